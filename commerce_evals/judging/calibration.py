"""Checking a judge against human labels: pure functions, no I/O.

For one dimension: labelled items are matched to the judge's verdicts and split (seeded, by a hash
of the item, so adding labels never moves an item between splits) into dev and test. On the test
split, TPR = P(judge Pass | human Pass) and TNR = P(judge Fail | human Fail). With p_obs the judge's
pass rate over everything it judged, the corrected pass rate is

    theta = (p_obs + TNR - 1) / (TPR + TNR - 1), clipped to [0, 1]

(the Rogan-Gladen estimator), with a bootstrap interval that resamples the labelled test items and
the judged items together. It is refused when a class is missing from the test labels or when
TPR + TNR <= 1 (the judge is no better than a coin there, and the formula divides by <= 0).
"""

from __future__ import annotations

import hashlib
import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations


class CalibrationRefused(ValueError):
    """The numbers would mean nothing; the message says why."""


# ---- the math --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Confusion:
    """Counts of (human, judge) over labelled items: tp = both Pass, tn = both Fail."""

    tp: int = 0
    fn: int = 0
    tn: int = 0
    fp: int = 0

    @classmethod
    def of(cls, pairs: Sequence[tuple[bool, bool]]) -> Confusion:
        """From (human passed, judge passed) pairs."""
        return cls(
            tp=sum(1 for h, j in pairs if h and j),
            fn=sum(1 for h, j in pairs if h and not j),
            tn=sum(1 for h, j in pairs if not h and not j),
            fp=sum(1 for h, j in pairs if not h and j),
        )

    @property
    def positives(self) -> int:
        return self.tp + self.fn

    @property
    def negatives(self) -> int:
        return self.tn + self.fp

    def rates(self) -> tuple[float, float]:
        """(TPR, TNR). Refused when the labels hold no Pass or no Fail."""
        if self.positives == 0:
            raise CalibrationRefused("no item a person labelled Pass, so TPR is undefined")
        if self.negatives == 0:
            raise CalibrationRefused("no item a person labelled Fail, so TNR is undefined")
        return self.tp / self.positives, self.tn / self.negatives


def corrected_rate(p_obs: float, tpr: float, tnr: float) -> float:
    """theta = (p_obs + TNR - 1) / (TPR + TNR - 1), clipped to [0, 1]."""
    if tpr + tnr <= 1:
        raise CalibrationRefused(
            f"TPR + TNR = {tpr + tnr:.3f} <= 1: the judge does no better than chance on the "
            "labelled items, so its pass rate cannot be corrected"
        )
    return min(1.0, max(0.0, (p_obs + tnr - 1) / (tpr + tnr - 1)))


def cohen_kappa(a: Sequence[bool], b: Sequence[bool]) -> float | None:
    """Agreement of two people beyond chance over the same items; None when chance is 1."""
    if len(a) != len(b) or not a:
        raise ValueError("kappa needs two equally long, non-empty lists of labels")
    n = len(a)
    observed = sum(1 for x, y in zip(a, b, strict=True) if x == y) / n
    pa, pb = sum(a) / n, sum(b) / n
    chance = pa * pb + (1 - pa) * (1 - pb)
    if chance == 1:
        return None
    return (observed - chance) / (1 - chance)


def percentile(values: Sequence[float], q: float) -> float:
    """The q-quantile (0..1) of values, linearly interpolated."""
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


@dataclass(frozen=True)
class Interval:
    low: float | None
    high: float | None
    used: int
    dropped: int  # resamples where a class went missing or TPR + TNR <= 1


def bootstrap_interval(
    pairs: Sequence[tuple[bool, bool]],
    judged: Sequence[bool],
    seed: int,
    resamples: int = 2000,
    level: float = 0.95,
) -> Interval:
    """Percentile interval of theta, resampling the labelled pairs and the judged verdicts."""
    rng = random.Random(seed)
    thetas: list[float] = []
    dropped = 0
    for _ in range(resamples):
        sample_pairs = rng.choices(pairs, k=len(pairs))
        p_obs = sum(rng.choices(judged, k=len(judged))) / len(judged)
        try:
            tpr, tnr = Confusion.of(sample_pairs).rates()
            thetas.append(corrected_rate(p_obs, tpr, tnr))
        except CalibrationRefused:
            dropped += 1
    if not thetas:
        return Interval(None, None, 0, dropped)
    tail = (1 - level) / 2
    return Interval(percentile(thetas, tail), percentile(thetas, 1 - tail), len(thetas), dropped)


def in_test_split(key: str, seed: int, test_fraction: float) -> bool:
    digest = hashlib.sha256(f"{seed}:{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < test_fraction


# ---- one dimension: labels matched to verdicts ------------------------------------------------


@dataclass(frozen=True)
class HumanLabel:
    key: str  # sample id and epoch, e.g. "checkout-101-x#1"
    labeller: str
    verdict: str  # Pass, Fail or Skip
    transcript_sha: str | None = None
    order: float = 0.0  # later labels by the same person replace earlier ones


@dataclass(frozen=True)
class JudgeVerdict:
    key: str
    status: str  # pass, fail, unknown, judge_failed, not_judged
    transcript_sha: str | None = None


@dataclass(frozen=True)
class KappaRow:
    labellers: tuple[str, str]
    items: int
    kappa: float | None


@dataclass
class DimensionReport:
    dimension: str
    judged: int = 0  # Pass/Fail verdicts in the logs
    judged_pass: int = 0
    unknown: int = 0  # Unknown verdicts in the logs: left out
    judge_failed: int = 0
    not_judged: int = 0
    labelled: int = 0  # items with a human truth and a judge Pass/Fail
    labelled_unknown: int = 0  # of those a person labelled, the judge said Unknown: left out
    skipped: int = 0  # Skip labels
    disputed: int = 0  # people split evenly: left out
    stale: int = 0  # labelled a different run than the one judged
    unmatched: int = 0  # labelled items with no verdict in the logs
    test: Confusion = field(default_factory=Confusion)
    dev: Confusion = field(default_factory=Confusion)
    tpr: float | None = None
    tnr: float | None = None
    p_obs: float | None = None
    theta: float | None = None
    interval: Interval | None = None
    kappas: list[KappaRow] = field(default_factory=list)
    refused: str | None = None


def _latest_per_person(labels: Sequence[HumanLabel]) -> dict[str, dict[str, HumanLabel]]:
    """key -> labeller -> that person's latest label."""
    by_key: dict[str, dict[str, HumanLabel]] = defaultdict(dict)
    for label in sorted(labels, key=lambda x: x.order):
        by_key[label.key][label.labeller] = label
    return by_key


def kappa_rows(by_key: dict[str, dict[str, HumanLabel]]) -> list[KappaRow]:
    people = sorted({p for votes in by_key.values() for p in votes})
    rows: list[KappaRow] = []
    for a, b in combinations(people, 2):
        shared = [
            (votes[a].verdict == "Pass", votes[b].verdict == "Pass")
            for votes in by_key.values()
            if a in votes
            and b in votes
            and {votes[a].verdict, votes[b].verdict} <= {"Pass", "Fail"}
        ]
        if shared:
            rows.append(
                KappaRow(
                    (a, b), len(shared), cohen_kappa([x for x, _ in shared], [y for _, y in shared])
                )
            )
    return rows


def calibrate_dimension(
    dimension: str,
    labels: Sequence[HumanLabel],
    verdicts: Sequence[JudgeVerdict],
    seed: int = 0,
    test_fraction: float = 0.5,
    resamples: int = 2000,
) -> DimensionReport:
    report = DimensionReport(dimension)
    judge_by_key: dict[str, JudgeVerdict] = {}
    for verdict in verdicts:
        if verdict.status in ("pass", "fail"):
            report.judged += 1
            report.judged_pass += verdict.status == "pass"
        elif verdict.status == "unknown":
            report.unknown += 1
        elif verdict.status == "judge_failed":
            report.judge_failed += 1
        else:
            report.not_judged += 1
        judge_by_key[verdict.key] = verdict  # the last log given wins for a labelled item

    by_key = _latest_per_person(labels)
    report.kappas = kappa_rows(by_key)
    test_pairs: list[tuple[bool, bool]] = []
    dev_pairs: list[tuple[bool, bool]] = []
    for key, votes in sorted(by_key.items()):
        decided = [v for v in votes.values() if v.verdict in ("Pass", "Fail")]
        report.skipped += len(votes) - len(decided)
        if not decided:
            continue
        judged = judge_by_key.get(key)
        if judged is None:
            report.unmatched += 1
            continue
        if any(v.transcript_sha and v.transcript_sha != judged.transcript_sha for v in decided):
            report.stale += 1
            continue
        passes = sum(v.verdict == "Pass" for v in decided)
        if passes * 2 == len(decided):
            report.disputed += 1
            continue
        if judged.status == "unknown":
            report.labelled_unknown += 1
            continue
        if judged.status not in ("pass", "fail"):
            continue
        pair = (passes * 2 > len(decided), judged.status == "pass")
        report.labelled += 1
        (
            test_pairs if in_test_split(f"{dimension}:{key}", seed, test_fraction) else dev_pairs
        ).append(pair)
    report.test, report.dev = Confusion.of(test_pairs), Confusion.of(dev_pairs)
    try:
        if report.judged == 0:
            raise CalibrationRefused("the logs hold no Pass or Fail verdict for this dimension")
        report.p_obs = report.judged_pass / report.judged
        report.tpr, report.tnr = report.test.rates()
        report.theta = corrected_rate(report.p_obs, report.tpr, report.tnr)
    except CalibrationRefused as refusal:
        report.refused = str(refusal)
        return report
    judged_flags = [True] * report.judged_pass + [False] * (report.judged - report.judged_pass)
    report.interval = bootstrap_interval(test_pairs, judged_flags, seed, resamples)
    return report
