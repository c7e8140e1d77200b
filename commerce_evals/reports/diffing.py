"""Two runs' failure sets side by side: which cases broke, which were fixed, which are flaky.

A case's bit in a run is pass^k: it passed every scored epoch. Buckets, first match wins:
  only_base / only_new   the case is in one run only
  unscored       skipped in one run, or without a verdict in both (needs review or error in both)
  needs_review   the new run has no verdict for it because the judge did not settle it
  errored        the new run has no verdict for it because of sample errors
  newly_settled  the base run had no verdict (needs review or error), the new run has one
  judge_changed  the verdict changed, the code-graded parts did not, and the judge or the
                 rubric text differs between the runs: a change of judge, not of agent
  flaky          the new run's epochs disagree (a regression when the base passed every epoch)
  newly_failing  passed every epoch in the base, failed every epoch in the new run
  fixed          did not pass every epoch in the base, passes every epoch now
  still_failing  failed before (every epoch, or some) and fails every epoch now
  still_passing  passed every epoch in both
A change regressed when a case is newly failing, or flaky where the base passed every epoch; a
case that passed in the base and has no verdict in the new run (needs review, errored) lost its
verdict, which is not a clean diff either.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Literal

from commerce_evals.reports.fingerprints import judge_changed
from commerce_evals.reports.logs import PRIORITIES, CaseResult, RunResults
from commerce_evals.reports.stats import McNemar, mcnemar

Bucket = Literal[
    "newly_failing",
    "fixed",
    "still_failing",
    "flaky",
    "still_passing",
    "needs_review",
    "errored",
    "newly_settled",
    "judge_changed",
    "unscored",
    "only_base",
    "only_new",
]
BUCKETS: tuple[Bucket, ...] = (
    "newly_failing",
    "flaky",
    "needs_review",
    "errored",
    "judge_changed",
    "still_failing",
    "fixed",
    "newly_settled",
    "still_passing",
    "unscored",
    "only_base",
    "only_new",
)
SETTLED = ("pass", "fail", "flaky")
NO_VERDICT = ("needs_review", "error")


@dataclass(frozen=True)
class CaseChange:
    id: str
    priority: str
    bucket: Bucket
    base: CaseResult | None
    new: CaseResult | None

    @property
    def regressed(self) -> bool:
        if self.bucket == "newly_failing":
            return True
        return self.bucket == "flaky" and self.base is not None and self.base.status == "pass"

    @property
    def lost_verdict(self) -> bool:
        """Passed in the base; no verdict now (needs review, or sample errors)."""
        return (
            self.bucket in ("needs_review", "errored")
            and self.base is not None
            and self.base.status == "pass"
        )


def _code_results(case: CaseResult) -> set[bool | None]:
    return {e.passed_code for e in case.epochs}


def bucket_of(base: CaseResult | None, new: CaseResult | None) -> Bucket:
    if base is None:
        return "only_new"
    if new is None:
        return "only_base"
    if "unscored" in (base.status, new.status):
        return "unscored"
    if new.status in NO_VERDICT:
        if base.status == new.status:
            return "unscored"
        return "needs_review" if new.status == "needs_review" else "errored"
    if base.status in NO_VERDICT:
        return "newly_settled"
    if (
        base.status != new.status
        and _code_results(base) == _code_results(new)
        and judge_changed(base, new)
    ):
        return "judge_changed"
    if new.status == "flaky":
        return "flaky"
    if base.status == "pass":
        return "still_passing" if new.status == "pass" else "newly_failing"
    return "fixed" if new.status == "pass" else "still_failing"


def _priority_rank(priority: str) -> int:
    return PRIORITIES.index(priority) if priority in PRIORITIES else len(PRIORITIES)


@dataclass(frozen=True)
class Diff:
    base: RunResults
    new: RunResults
    changes: list[CaseChange]
    test: McNemar

    def bucket(self, name: Bucket) -> list[CaseChange]:
        return [c for c in self.changes if c.bucket == name]

    @property
    def regressions(self) -> list[CaseChange]:
        return [c for c in self.changes if c.regressed]

    @property
    def lost_verdicts(self) -> list[CaseChange]:
        return [c for c in self.changes if c.lost_verdict]

    def missing(self) -> tuple[list[str], list[str]]:
        """(ids only in BASE, ids only in NEW)."""
        return (
            [c.id for c in self.changes if c.bucket == "only_base"],
            [c.id for c in self.changes if c.bucket == "only_new"],
        )

    def counts_by_priority(self) -> dict[str, Counter[str]]:
        table: dict[str, Counter[str]] = {}
        for change in self.changes:
            table.setdefault(change.priority, Counter())[change.bucket] += 1
        return dict(sorted(table.items(), key=lambda item: _priority_rank(item[0])))

    def pass_rates(self) -> tuple[float | None, float | None]:
        """pass^k rates of base and new over the cases both runs scored."""
        shared = [c for c in self.changes if _comparable(c.base, c.new)]
        if not shared:
            return None, None
        base = sum(c.base.status == "pass" for c in shared if c.base) / len(shared)
        new = sum(c.new.status == "pass" for c in shared if c.new) / len(shared)
        return base, new


def _comparable(base: CaseResult | None, new: CaseResult | None) -> bool:
    """Both runs settled the case with the same judge: a pair McNemar and the rates may use."""
    return (
        base is not None
        and new is not None
        and base.status in SETTLED
        and new.status in SETTLED
        and not judge_changed(base, new)
    )


class CaseSetMismatch(ValueError):
    """The runs do not cover the same cases; the message says how."""


def check_case_sets(base: RunResults, new: RunResults, allow_partial: bool) -> None:
    """Refuse runs that share no case, and (unless allowed) runs over different case sets."""
    a, b = set(base.cases), set(new.cases)
    if not a & b:
        raise CaseSetMismatch(
            f"BASE ({len(a)} case{'s' * (len(a) != 1)}) and NEW ({len(b)} case{'s' * (len(b) != 1)})"
            " share no case: nothing to diff"
            " (runs of different flows or sets?)"
        )
    if a != b and not allow_partial:
        raise CaseSetMismatch(
            f"BASE and NEW cover different cases ({len(a - b)} only in BASE, {len(b - a)} only"
            " in NEW): a partial or different run; pass --allow-partial to diff the shared ones"
        )


def diff_runs(base: RunResults, new: RunResults) -> Diff:
    ids = sorted(set(base.cases) | set(new.cases))
    changes = []
    pairs: list[tuple[bool, bool]] = []
    for case_id in ids:
        b, n = base.cases.get(case_id), new.cases.get(case_id)
        either = n or b
        assert either is not None
        changes.append(CaseChange(case_id, either.priority, bucket_of(b, n), b, n))
        if _comparable(b, n):
            assert b is not None and n is not None
            pairs.append((b.status == "pass", n.status == "pass"))
    changes.sort(key=lambda c: (BUCKETS.index(c.bucket), _priority_rank(c.priority), c.id))
    return Diff(base, new, changes, mcnemar(pairs))
