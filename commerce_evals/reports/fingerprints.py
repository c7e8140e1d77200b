"""What a run's verdicts depend on besides the agent's behaviour, read back from its logs.

The agent side is in each log's task metadata (flow.py): hashes of the instructions, the tool
descriptions, the fixture files, the skills and the policy text. The judge side is on every
verdict (judging/prompt.py): the judge model, the prompt template and generate config (together:
which judge), and the dimension's text (the rubric). diff and compare name every difference
between the runs they put side by side; diff, gate and trends never pool verdicts of two judges.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from commerce_evals.core.flow_table import BUILT_IN_AGENT
from commerce_evals.grading.score_metadata import VerdictRecord
from commerce_evals.reports.logs import CaseResult, RunResults

AGENT_KEYS = {
    "instructions_sha": "agent instructions",
    "tools_sha": "tools",
    "tools_file_sha": "tool descriptions file",
    "fixtures_sha": "fixtures",
    "skills_sha": "skills",
    "policy_sha": "policy text",
}


def judge_of(verdict: VerdictRecord) -> str | None:
    """Which judge gave a verdict: model, template and config (None: no judge was called)."""
    if not verdict.model:
        return None
    return f"{verdict.model} (template {verdict.template_sha}, config {verdict.config_sha})"


def case_judges(case: CaseResult) -> set[str]:
    return {j for e in case.epochs for v in e.verdicts if (j := judge_of(v))}


def case_verdict_fingerprints(case: CaseResult) -> set[tuple[str, str]]:
    """(dimension, fingerprint) of every verdict a judge gave on the case."""
    return {(v.dimension, v.fingerprint) for e in case.epochs for v in e.verdicts if v.fingerprint}


def run_judges(run: RunResults) -> set[str]:
    return {judge for case in run.cases.values() for judge in case_judges(case)}


def dimension_texts(run: RunResults) -> dict[tuple[str, str], set[str]]:
    """(case id, dimension) -> the hashes of the dimension's text (and reference) it was judged on."""
    texts: dict[tuple[str, str], set[str]] = defaultdict(set)
    for case in run.cases.values():
        for epoch in case.epochs:
            for v in epoch.verdicts:
                if v.dimension_sha:
                    texts[(case.id, v.dimension)].add(f"{v.dimension_sha}/{v.context_sha}")
    return texts


# named by value: which agent made the run, and whose tool descriptions it was offered
DOMAIN_TOOL_TEXT = "the domain's"


def agent_fingerprints(run: RunResults) -> dict[str, dict[str, Any]]:
    """Per flow (task): the agent-side hashes its log recorded, the agent that made the run and
    the tool descriptions file it was offered (logs from before either existed: the built-in
    agent and the domain's descriptions)."""
    found: dict[str, dict[str, Any]] = {}
    for log in run.logs:
        flow = str(log.task_args.get("flow") or log.metadata.get("flow") or log.task)
        found[flow] = {key: log.metadata.get(key) for key in AGENT_KEYS}
        found[flow]["agent"] = log.metadata.get("agent_under_test") or BUILT_IN_AGENT
        found[flow]["tools_file"] = log.metadata.get("tools_file") or DOMAIN_TOOL_TEXT
    return found


def _named(flow: str, what: str, a: Any, b: Any, names: tuple[str, str]) -> str:
    return f"{flow}: {what}: {names[0]} {a}, {names[1]} {b}"


def _short(values: Iterable[str]) -> str:
    return ", ".join(sorted(values)) or "none"


def differences(
    base: RunResults, new: RunResults, names: tuple[str, str] = ("BASE", "NEW")
) -> list[str]:
    """One line per thing that differs between two runs besides the model under test."""
    lines: list[str] = []
    a, b = agent_fingerprints(base), agent_fingerprints(new)
    for flow in sorted(set(a) & set(b)):
        changed = [
            label for key, label in AGENT_KEYS.items() if a[flow].get(key) != b[flow].get(key)
        ]
        if changed:
            lines.append(f"{flow}: {', '.join(changed)} differ between {names[0]} and {names[1]}")
        for key, what in (("agent", "agent"), ("tools_file", "tool descriptions")):
            if a[flow][key] != b[flow][key]:
                lines.append(_named(flow, what, a[flow][key], b[flow][key], names))
    judges_a, judges_b = run_judges(base), run_judges(new)
    if judges_a and judges_b and judges_a != judges_b:
        lines.append(
            f"the judge differs: {names[0]} {_short(judges_a)}; {names[1]} {_short(judges_b)}"
        )
    for name, run in zip(names, (base, new), strict=True):
        if run.judge_off:
            lines.append(f"{name} is code-only (judge=off): its rubric cases were not judged")
        elif not run_judges(run) and any(e.verdicts for c in run.cases.values() for e in c.epochs):
            lines.append(f"{name} had no judge (no grader bound): its rubric cases need review")
    texts_a, texts_b = dimension_texts(base), dimension_texts(new)
    rubric = sorted(k for k in set(texts_a) & set(texts_b) if texts_a[k] != texts_b[k])
    if rubric:
        shown = ", ".join(f"{case}/{dim}" for case, dim in rubric[:6])
        more = f" and {len(rubric) - 6} more" if len(rubric) > 6 else ""
        lines.append(f"the rubric text differs for {len(rubric)} case dimension(s): {shown}{more}")
    return lines


def judge_changed(base: CaseResult, new: CaseResult) -> bool:
    """Both runs judged the case, but not with the same judge or the same rubric text."""
    a, b = case_verdict_fingerprints(base), case_verdict_fingerprints(new)
    return bool(a) and bool(b) and a != b
