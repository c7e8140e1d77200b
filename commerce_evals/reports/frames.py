"""Inspect's analysis data frames for our logs, and the rates and token counts read off them.

`samples_df` gives one row per sample epoch with the model, the sample metadata and the scores
(dict scores arrive as JSON strings); judge verdicts come from the score metadata through a
custom column. `evals_df` gives one row per log, with model and role usage through custom
columns.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from inspect_ai.analysis import (
    EvalColumn,
    EvalInfo,
    EvalModel,
    SampleColumn,
    SampleSummary,
    evals_df,
    samples_df,
)
from inspect_ai.log import EvalLog

from commerce_evals.core.tokens import TokenCount, total
from commerce_evals.grading.score_metadata import verdicts_of
from commerce_evals.judging.prompt import judge_key
from commerce_evals.reports.logs import (
    PARTS,
    PRIORITIES,
    SCORER,
    agent_label,
    reported_verdict,
    run_key,
)
from commerce_evals.reports.prices import Cost, PriceTable

# Scorers whose metadata holds judge verdicts: the flows' and the production task's.
JUDGED_SCORERS = (SCORER, "production_judges")
VERDICT_STATUSES = ("pass", "fail", "unknown", "judge_failed", "not_judged")


def _json(value: Any) -> Any:
    if value is None or (not isinstance(value, list | dict) and pd.isna(value)):
        return None
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return None
    return value


def sample_frame(logs: Sequence[EvalLog]) -> pd.DataFrame:
    """One row per sample epoch; `verdicts` holds the judge verdicts (a list, maybe empty).

    Takes logs already read (commerce_evals.reports.logs.read_logs), so they are not parsed twice."""
    columns = [
        *SampleSummary,
        *EvalModel,
        *EvalInfo,
        *(
            SampleColumn(f"score_metadata_{name}", path=f"scores.{name}.metadata", full=True)
            for name in JUDGED_SCORERS
        ),
    ]
    frame = _keyed(samples_df(list(logs), columns=columns, quiet=True))
    verdicts = [
        [
            reported_verdict(v)
            for name in JUDGED_SCORERS
            for v in verdicts_of(_json(row.get(f"score_metadata_{name}")))
        ]
        for _, row in frame.iterrows()
    ]
    frame["verdicts"] = verdicts
    return frame.drop(
        columns=[f"score_metadata_{name}" for name in JUDGED_SCORERS], errors="ignore"
    )


def eval_frame(files: Sequence[Path | str]) -> pd.DataFrame:
    """One row per log, with `model_usage` and `role_usage` parsed into dicts (headers only)."""
    columns = [
        *EvalModel,
        *EvalInfo,
        EvalColumn("model_usage", path="stats.model_usage"),
        EvalColumn("role_usage", path="stats.role_usage"),
    ]
    frame = evals_df([str(f) for f in files], columns=columns, quiet=True)
    for column in ("model_usage", "role_usage", "model_roles"):
        frame[column] = [(_json(v) or {}) for v in frame[column]]
    return _keyed(frame)


def _keyed(frame: pd.DataFrame) -> pd.DataFrame:
    """`model` as reports name a run (logs.run_key): a run with a simulated customer is named
    with its customer model, so it is never merged with a scripted-customer run of the model."""
    if frame.empty or "model_roles" not in frame:
        return frame
    frame["agent_model"] = list(frame["model"])
    metadata = frame["metadata"] if "metadata" in frame else [None] * len(frame)
    frame["model"] = [
        run_key(model, _role(_json(roles) or {}, "customer"), agent_label(_json(meta)))
        for model, roles, meta in zip(frame["model"], frame["model_roles"], metadata, strict=True)
    ]
    return frame


def _score(row: pd.Series) -> dict[str, Any]:
    value = _json(row.get(f"score_{SCORER}"))
    return value if isinstance(value, dict) else {}


def _rate(values: list[float]) -> float | None:
    scored = [v for v in values if v is not None and not math.isnan(v)]
    return sum(scored) / len(scored) if scored else None


def part_rates(samples: pd.DataFrame) -> pd.DataFrame:
    """Per model: the share of scored epochs passing overall and in each part (NaN left out)."""
    rows = []
    for model, group in samples.groupby("model", sort=True):
        scores = [_score(row) for _, row in group.iterrows()]
        row: dict[str, Any] = {"model": model}
        for part in ("passed", "passed_code", *PARTS):
            row[part] = _rate([float(s[part]) for s in scores if part in s])
        rows.append(row)
    return pd.DataFrame(rows).set_index("model") if rows else pd.DataFrame()


def _counted(model: str, group: str, values: list[float]) -> dict[str, Any]:
    scored = [v for v in values if v is not None and not math.isnan(v)]
    return {"model": model, "group": group, "passes": int(sum(scored)), "n": len(scored)}


RATE_COLUMNS = ["model", "group", "passes", "n"]


def part_counts(samples: pd.DataFrame) -> pd.DataFrame:
    """Long form, one row per model and part: passes and scored epochs (for intervals)."""
    rows = []
    for model, group in samples.groupby("model", sort=True):
        scores = [_score(row) for _, row in group.iterrows()]
        for part in ("passed", "passed_code", *PARTS):
            rows.append(_counted(str(model), part, [float(s[part]) for s in scores if part in s]))
    return pd.DataFrame(rows, columns=RATE_COLUMNS)


def priority_counts(samples: pd.DataFrame) -> pd.DataFrame:
    """Long form, one row per model and priority: passes and scored epochs of `passed`."""
    rows = []
    for model, group in samples.groupby("model", sort=True):
        for priority in PRIORITIES:
            if "metadata_priority" not in group:
                continue
            mine = group[group["metadata_priority"] == priority]
            values = [float(_score(r).get("passed", math.nan)) for _, r in mine.iterrows()]
            rows.append(_counted(str(model), priority, values))
    return pd.DataFrame(rows, columns=RATE_COLUMNS)


def priority_rates(samples: pd.DataFrame) -> pd.DataFrame:
    """Per model and priority: the share of scored epochs that passed."""
    rows = []
    for model, group in samples.groupby("model", sort=True):
        row: dict[str, Any] = {"model": model}
        for priority in PRIORITIES:
            if "metadata_priority" not in group:
                row[priority] = None
                continue
            mine = group[group["metadata_priority"] == priority]
            row[priority] = _rate(
                [float(_score(r).get("passed", math.nan)) for _, r in mine.iterrows()]
            )
        rows.append(row)
    return pd.DataFrame(rows).set_index("model") if rows else pd.DataFrame()


def verdict_rows(samples: pd.DataFrame) -> pd.DataFrame:
    """One row per judge verdict: model, sample id, epoch, dimension, status, and when: the
    conversation's capture time (production samples) and the log's creation time."""
    rows = []
    for _, row in samples.iterrows():
        captured = row.get("metadata_captured_at")
        for verdict in row["verdicts"]:
            rows.append(
                {
                    "model": row["model"],
                    "id": row["id"],
                    "epoch": row["epoch"],
                    "dimension": verdict.dimension,
                    "status": verdict.status,
                    "judge": judge_key(verdict),
                    "captured": captured if isinstance(captured, str) and captured else None,
                    "created": str(row["created"]),
                }
            )
    columns = ["model", "id", "epoch", "dimension", "status", "judge", "captured", "created"]
    return pd.DataFrame(rows, columns=columns)


def dimension_rates(samples: pd.DataFrame) -> pd.DataFrame:
    """Per model and dimension: verdict counts by status and the pass rate over Pass + Fail."""
    verdicts = verdict_rows(samples)
    if verdicts.empty:
        return pd.DataFrame(columns=["model", "dimension", *VERDICT_STATUSES, "rate"])
    counts = (
        verdicts.groupby(["model", "dimension", "status"]).size().unstack("status", fill_value=0)
    )
    for status in VERDICT_STATUSES:
        if status not in counts:
            counts[status] = 0
    counts = counts[list(VERDICT_STATUSES)].reset_index()
    settled = counts["pass"] + counts["fail"]
    counts["rate"] = [p / s if s else None for p, s in zip(counts["pass"], settled, strict=True)]
    return counts


def _grader(roles: dict[str, Any]) -> str | None:
    return _role(roles, "grader")


def _role(roles: dict[str, Any], name: str) -> str | None:
    bound = roles.get(name)
    if isinstance(bound, list):
        bound = bound[0] if bound else None
    return bound.get("model") if isinstance(bound, dict) else None


def _add_cost(total: Cost | None, more: Cost | None) -> Cost | None:
    """Unknown stays unknown: one log of a model with no price makes its total unknown."""
    return None if total is None or more is None else total + more


def judge_tokens(samples: pd.DataFrame) -> pd.DataFrame:
    """Per model: judge calls and their tokens read off the verdicts, cache hits included.

    Inspect's role usage counts only calls that reached the provider, so a run whose verdicts all
    came from the cache reads 0 judge tokens there; each verdict records the tokens of its call
    (a cache hit, those of the call it replays), so this counts the judging every run needed, and
    `cached_*` says how much of it the cache answered."""
    totals: dict[str, dict[str, int]] = {}
    for _, row in samples.iterrows():
        mine = totals.setdefault(
            str(row["model"]),
            dict.fromkeys(
                (
                    "judge_calls",
                    "judge_cached",
                    "judge_all_input",
                    "judge_all_output",
                    "judge_cached_input",
                    "judge_cached_output",
                ),
                0,
            ),
        )
        for verdict in row["verdicts"]:
            if not verdict.called:
                continue
            tokens_in = verdict.input_tokens
            tokens_out = verdict.output_tokens
            mine["judge_calls"] += 1
            mine["judge_all_input"] += tokens_in
            mine["judge_all_output"] += tokens_out
            if verdict.cached:
                mine["judge_cached"] += 1
                mine["judge_cached_input"] += tokens_in
                mine["judge_cached_output"] += tokens_out
    return pd.DataFrame.from_dict(totals, orient="index")


WHO = {"agent": None, "judge": "grader", "customer": "customer"}


def token_usage(evals: pd.DataFrame, prices: PriceTable) -> pd.DataFrame:
    """Per run: agent, judge and customer tokens apart, each part counted, and their cost.

    Inspect counts usage per model and, apart, per role; the agent's share is every model's
    usage less every role's, so a grader or a customer bound to the agent's own model is still
    counted apart. The judge is the `grader` role, a simulated customer the `customer` role.
    `<who>_input` is every input token processed (full rate, cache read and cache write; Inspect's
    `input_tokens` alone leaves out what a prompt cache served), `<who>_cache_read`,
    `<who>_cache_write` and `<who>_reasoning` (a part of the output) are its parts; a cost is
    None when unknown, and `cost_notes` names the tokens priced at a model's input price for want
    of a cache price.
    """
    totals: dict[str, dict[str, Any]] = {}
    for _, row in evals.iterrows():
        model = row["model"]
        agent_model = row.get("agent_model") or model
        mine = totals.setdefault(
            model,
            {
                **{f"{who}_tokens": TokenCount() for who in WHO},
                **{f"{who}_cost": Cost(0.0) for who in WHO},
                "graders": set(),
                "customers": set(),
                "priced": {},
            },
        )
        roles = row["role_usage"]
        used = {"agent": total(row["model_usage"]) - total(roles)}
        bound = {"agent": agent_model}
        for who, role in WHO.items():
            if role is not None:
                used[who] = TokenCount.from_usage(roles.get(role))
                bound[who] = _role(row["model_roles"], role)
        for who, tokens in used.items():
            mine[f"{who}_tokens"] += tokens
            name = bound[who]
            if who != "agent":
                if name:
                    mine["graders" if who == "judge" else "customers"].add(name)
                if not (name and (tokens.processed_input or tokens.output)):
                    continue  # no call of this role: it cost nothing
            spent = prices.cost(name, tokens)
            mine[f"{who}_cost"] = _add_cost(mine[f"{who}_cost"], spent)
            if spent is not None and name:
                mine["priced"][name] = mine["priced"].get(name, Cost(0.0)) + spent
    rows = []
    for model, mine in sorted(totals.items()):
        costs = [mine[f"{who}_cost"] for who in WHO]
        known = None if any(c is None for c in costs) else sum(c.amount for c in costs)
        notes = [
            note
            for name, cost in sorted(mine["priced"].items())
            for note in prices.fallback_notes(name, cost)
        ]
        out: dict[str, Any] = {"model": model}
        for who in WHO:
            count: TokenCount = mine[f"{who}_tokens"]
            cost = mine[f"{who}_cost"]
            out |= {
                f"{who}_input": count.processed_input,
                f"{who}_cache_read": count.cache_read,
                f"{who}_cache_write": count.cache_write,
                f"{who}_output": count.output,
                f"{who}_reasoning": count.reasoning,
                f"{who}_cost": None if cost is None else cost.amount,
            }
        out |= {
            "grader": ", ".join(sorted(mine["graders"])) or "-",
            "customer": ", ".join(sorted(mine["customers"])) or "scripted",
            "total_cost": known,
            "cost_notes": "\n".join(notes),
        }
        rows.append(out)
    return pd.DataFrame(rows).set_index("model") if rows else pd.DataFrame()
