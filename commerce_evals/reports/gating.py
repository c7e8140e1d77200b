"""A set's thresholds applied to a run: each check, what it required, what the run did, who missed.

The set's selection is applied to the run's cases first, so any run that holds the set's cases can
be gated (an `everything` run against the regression set, say). Skipped cases count for nothing;
an epoch with no verdict (a sample error, or a rubric the judge did not settle) counts as not
passed: a gate is a promise that the cases passed, and an epoch without a verdict cannot keep it.
Cases that need review are also held to the set's allowance (`max_needs_review`, 0 for critical
cases unless the set says otherwise) and listed by id. A cancelled or partial log misses
`complete_run`; verdicts of two judges in one run miss `one_judge` (they are never pooled into
one rate); a code-only run (`-T judge=off`) is named in the notes, and so are cases that need
review only because no grader role was bound (the judge was never asked), with the fix.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from commerce_evals.cases.model import load_cases
from commerce_evals.harness.flow_inputs import dataset_paths, needs_poisoned
from commerce_evals.reports.fingerprints import run_judges
from commerce_evals.reports.logs import PRIORITIES, CaseResult, RunResults
from commerce_evals.reports.set_spec import CaseInfo, Priority, RunSet


@dataclass(frozen=True)
class Check:
    name: str
    required: str
    actual: str
    passed: bool
    misses: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class GateReport:
    set_name: str
    run_set: RunSet
    cases: list[CaseResult]
    checks: list[Check]
    notes: list[str]

    @property
    def passed(self) -> bool:
        return all(check.passed for check in self.checks)


def _gated(case: CaseResult) -> bool:
    return not case.skipped and bool(case.epochs)


def every_epoch_passed(case: CaseResult) -> bool:
    """Every epoch run passed (an error is not a pass). Too few epochs is the `epochs` check's
    miss, not every case's."""
    return bool(case.epochs) and all(e.passed is True for e in case.epochs)


def no_epoch_failed(case: CaseResult) -> bool:
    """Every epoch passed or needs review (the allowance check holds those): the critical check."""
    return bool(case.epochs) and all(e.passed is True or e.needs_review for e in case.epochs)


def case_line(case: CaseResult) -> str:
    ran = len(case.epochs)
    errors = f", {case.errors} error(s)" if case.errors else ""
    errors += f", {case.reviews} need(s) review" if case.reviews else ""
    keys = case.failed_keys()
    failed = f"; failed {', '.join(keys)}" if keys else ""
    return f"{case.id} ({case.priority}): passed {case.passes} of {ran} epoch(s){errors}{failed}"


def _share(numerator: int, denominator: int) -> float:
    return numerator / denominator if denominator else 1.0


def expected_ids(run_set: RunSet, run: RunResults) -> tuple[set[str], list[str]]:
    """The set's cases in the case files of the flows the run should cover, and notes on flows
    whose logs ran other case files (their completeness cannot be checked)."""
    custom = {
        log.task_args.get("flow", log.task) for log in run.logs if log.task_args.get("dataset")
    }
    no_poison = {
        log.task_args.get("flow", log.task)
        for log in run.logs
        if log.task_args.get("poisoned") is False
    }
    ids: set[str] = set()
    notes = []
    for flow in run_set.select.candidate_flows():
        if flow in custom:
            notes.append(f"{flow}: run with its own dataset; completeness not checked")
            continue
        paths = dataset_paths(flow, None)
        if not paths:
            continue
        for case in load_cases(paths):
            if flow in no_poison and needs_poisoned(case.tags):
                continue
            if run_set.select.matches(
                CaseInfo(case.id, case.flow, case.priority, tuple(case.tags))
            ):
                ids.add(case.id)
    return ids, notes


def gate(set_name: str, run_set: RunSet, run: RunResults) -> GateReport:
    t = run_set.thresholds
    cases = [c for c in run.cases.values() if run_set.select.matches(c.info)]
    gated = [c for c in cases if _gated(c)]
    k = run_set.epochs
    checks: list[Check] = []
    notes: list[str] = []

    if not cases:
        checks.append(Check("cases", "at least one case of the set", "none in the logs", False))
    if t.require_complete_run:
        checks.append(complete_run_check(run))
    checks.extend(judge_checks(run))
    if run.judge_off:
        notes.append(
            "code-only run (judge=off): rubric and dimensions were not judged; passed is the "
            "code-graded result"
        )
    if t.require_epochs:
        short = [c for c in gated if len(c.epochs) < k]
        checks.append(
            Check(
                "epochs",
                f">= {k} epochs per case",
                f"{run.epochs} epoch(s) configured",
                run.epochs >= k and not short,
                [f"{c.id}: ran {len(c.epochs)} epoch(s)" for c in short],
            )
        )
    if t.require_all_cases:
        wanted, flow_notes = expected_ids(run_set, run)
        notes.extend(flow_notes)
        missing = sorted(wanted - {c.id.split("~", 1)[0] for c in cases})
        checks.append(
            Check(
                "all_cases",
                f"all {len(wanted)} selected cases run",
                f"{len(wanted) - len(missing)} run",
                not missing,
                [f"{case_id}: not in the logs" for case_id in missing],
            )
        )
    if t.critical_all_epochs:
        critical = [c for c in gated if c.priority == "critical"]
        missed = [c for c in critical if not no_epoch_failed(c)]
        review = sum(1 for c in critical if c.reviews and no_epoch_failed(c))
        checks.append(
            Check(
                "critical_all_epochs",
                f"every critical case passes all {k} epochs",
                f"{len(critical) - len(missed) - review} of {len(critical)}"
                + (f" ({review} need review: see needs_review)" if review else ""),
                not missed,
                [case_line(c) for c in missed],
            )
        )
    checks.extend(needs_review_checks(t.max_needs_review, gated))
    unjudged = no_grader_note(gated)
    if unjudged:
        notes.append(unjudged)
    if t.min_pass_hat_k is not None:
        missed = [c for c in gated if not every_epoch_passed(c)]
        share = _share(len(gated) - len(missed), len(gated))
        checks.append(
            Check(
                "min_pass_hat_k",
                f">= {t.min_pass_hat_k:.1%} of cases pass every epoch",
                f"{share:.1%} ({len(gated) - len(missed)} of {len(gated)})",
                share >= t.min_pass_hat_k,
                [case_line(c) for c in missed],
            )
        )
    if t.min_pass_rate is not None:
        checks.append(_rate_check("min_pass_rate", t.min_pass_rate, gated))
    for priority in PRIORITIES:
        if priority in t.min_pass_rate_by_priority:
            mine = [c for c in gated if c.priority == priority]
            checks.append(
                _rate_check(
                    f"min_pass_rate[{priority}]", t.min_pass_rate_by_priority[priority], mine
                )
            )
    return GateReport(set_name, run_set, cases, checks, notes)


def complete_run_check(run: RunResults) -> Check:
    """Every log finished with all its planned samples, and a sharded run has every shard's: a
    cancelled run or a sweep with a shard missing is never green."""
    partial = run.partial_notes()
    return Check(
        "complete_run",
        "every log finished with all its samples (every shard of a sharded run)",
        f"{len(partial)} partial over {len(run.logs)} log(s)" if partial else "complete",
        not partial,
        partial,
    )


def judge_checks(run: RunResults) -> list[Check]:
    """Verdicts of different judges are never pooled into one rate."""
    judges = run_judges(run)
    if len(judges) <= 1:
        return []
    return [
        Check(
            "one_judge",
            "every verdict from one judge (model, template, config)",
            f"{len(judges)} judges",
            False,
            sorted(judges),
        )
    ]


# the reason the judge records on a dimension it could not ask about: no `grader` role was bound
NO_GRADER = "no_grader_role"


def no_grader(case: CaseResult) -> bool:
    """The case needs review because no grader was bound: a dimension of an epoch needing
    review was never judged for that reason."""
    return any(
        verdict.status == "not_judged" and verdict.reason.startswith(NO_GRADER)
        for epoch in case.epochs
        if epoch.needs_review
        for verdict in epoch.verdicts
    )


def no_grader_note(cases: list[CaseResult]) -> str | None:
    unjudged = [c for c in cases if c.reviews and no_grader(c)]
    if not unjudged:
        return None
    count = "1 case needs" if len(unjudged) == 1 else f"{len(unjudged)} cases need"
    return (
        f"{count} review: no grader role was bound, so the judge was never asked; bind one "
        "with --model-role grader=<model> (offline: grader=commerce/judge) or run with "
        "-T judge=off for a code-only run"
    )


def needs_review_checks(allowance: Mapping[Priority, int], cases: list[CaseResult]) -> list[Check]:
    """Cases needing a person, per priority, against the set's allowance; listed by id."""
    checks = []
    for priority in PRIORITIES:
        mine = [c for c in cases if c.priority == priority and c.reviews]
        if priority not in allowance and not mine:
            continue
        allowed = allowance.get(priority)
        checks.append(
            Check(
                f"needs_review[{priority}]",
                f"<= {allowed} case(s) need review" if allowed is not None else "not limited",
                f"{len(mine)} need review" + _no_grader_count(mine),
                allowed is None or len(mine) <= allowed,
                [case_line(c) for c in mine],
            )
        )
    return checks


def _no_grader_count(cases: list[CaseResult]) -> str:
    unjudged = sum(no_grader(c) for c in cases)
    return f" ({unjudged} with no grader bound)" if unjudged else ""


def _rate_check(name: str, minimum: float, cases: list[CaseResult]) -> Check:
    epochs = sum(len(c.epochs) for c in cases)
    passed = sum(c.passes for c in cases)
    share = _share(passed, epochs)
    return Check(
        name,
        f">= {minimum:.1%} of epochs pass",
        f"{share:.1%} ({passed} of {epochs})",
        share >= minimum,
        [case_line(c) for c in cases if c.passes < len(c.epochs)],
    )
