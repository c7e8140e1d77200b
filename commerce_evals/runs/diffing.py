"""Two runs' failure sets side by side: which cases broke, which were fixed, which are flaky.

A case's bit in a run is pass^k: it passed every scored epoch. Buckets, first match wins:
  flaky          the new run's epochs disagree (a regression when the base passed every epoch)
  newly_failing  passed every epoch in the base, failed every epoch in the new run
  fixed          did not pass every epoch in the base, passes every epoch now
  still_failing  failed before (every epoch, or some) and fails every epoch now
  still_passing  passed every epoch in both
  unscored       skipped, or no verdict in one of the runs (a sample error: not the agent's)
  only_base / only_new   the case is in one run only
A change regressed when a case is newly failing, or flaky where the base passed every epoch.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Literal

from commerce_evals.runs.logs import PRIORITIES, CaseResult, RunResults
from commerce_evals.runs.stats import McNemar, mcnemar

Bucket = Literal[
    "newly_failing",
    "fixed",
    "still_failing",
    "flaky",
    "still_passing",
    "unscored",
    "only_base",
    "only_new",
]
BUCKETS: tuple[Bucket, ...] = (
    "newly_failing",
    "flaky",
    "still_failing",
    "fixed",
    "still_passing",
    "unscored",
    "only_base",
    "only_new",
)


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


def bucket_of(base: CaseResult | None, new: CaseResult | None) -> Bucket:
    if base is None:
        return "only_new"
    if new is None:
        return "only_base"
    if base.status == "unscored" or new.status == "unscored":
        return "unscored"
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

    def counts_by_priority(self) -> dict[str, Counter[str]]:
        table: dict[str, Counter[str]] = {}
        for change in self.changes:
            table.setdefault(change.priority, Counter())[change.bucket] += 1
        return dict(sorted(table.items(), key=lambda item: _priority_rank(item[0])))

    def pass_rates(self) -> tuple[float | None, float | None]:
        """pass^k rates of base and new over the cases both runs scored."""
        shared = [
            c
            for c in self.changes
            if c.base and c.new and "unscored" not in (c.base.status, c.new.status)
        ]
        if not shared:
            return None, None
        base = sum(c.base.status == "pass" for c in shared if c.base) / len(shared)
        new = sum(c.new.status == "pass" for c in shared if c.new) / len(shared)
        return base, new


def diff_runs(base: RunResults, new: RunResults) -> Diff:
    ids = sorted(set(base.cases) | set(new.cases))
    changes = []
    pairs: list[tuple[bool, bool]] = []
    for case_id in ids:
        b, n = base.cases.get(case_id), new.cases.get(case_id)
        either = n or b
        assert either is not None
        changes.append(CaseChange(case_id, either.priority, bucket_of(b, n), b, n))
        if b and n and "unscored" not in (b.status, n.status):
            pairs.append((b.status == "pass", n.status == "pass"))
    changes.sort(key=lambda c: (BUCKETS.index(c.bucket), _priority_rank(c.priority), c.id))
    return Diff(base, new, changes, mcnemar(pairs))
