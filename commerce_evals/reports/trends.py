"""Each rubric dimension's pass rate over time, from judge verdicts in logs.

The time of a verdict is when its conversation was captured (production logs carry
`captured_at`), else when its log was created (a regression set run each week, say). A
dimension's rate in a period is Pass / (Pass + Fail); Unknown verdicts (a person must look) and
judge failures are counted apart, never as passes. A production conversation judged in several
logs counts once, by its newest log. Verdicts of different judges (model, template, config, or a
shared dimension's text) are never pooled: when a dimension was judged by more than one, each
judge gets its own series, `dimension [model hash]`. Logs that are cancelled or incomplete are
named in `partial`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import pandas as pd

from commerce_evals.reports.frames import sample_frame, verdict_rows
from commerce_evals.reports.logs import completeness, read_logs

Period = Literal["day", "week", "month"]
FORMATS = {"day": "%Y-%m-%d", "week": "%G-W%V", "month": "%Y-%m"}


@dataclass(frozen=True)
class Trends:
    rates: pd.DataFrame  # period x dimension: pass rate (NaN: no settled verdict)
    settled: pd.DataFrame  # period x dimension: Pass + Fail verdicts
    unsettled: pd.DataFrame  # period x dimension: Unknown + judge failures
    verdicts: int
    partial: list[str] = field(default_factory=list)  # logs that are not complete runs


def _dedupe(verdicts: pd.DataFrame) -> pd.DataFrame:
    """A captured conversation judged by several logs: keep the newest log's verdicts (per judge:
    two judges' verdicts on one conversation are two series, not one replacing the other)."""
    captured = verdicts[verdicts["captured"].notna()]
    rest = verdicts[verdicts["captured"].isna()]
    captured = captured.sort_values("created").drop_duplicates(
        ["id", "epoch", "dimension", "judge"], keep="last"
    )
    return pd.concat([captured, rest])


def series_names(verdicts: pd.DataFrame) -> pd.Series:
    """The dimension, or `dimension [judge]` for a dimension judged by more than one judge."""
    judged = verdicts[verdicts["judge"] != ""]
    judges = judged.groupby("dimension")["judge"].nunique()
    split = set(judges[judges > 1].index)
    return pd.Series(
        [
            f"{d} [{j}]" if d in split and j else d
            for d, j in zip(verdicts["dimension"], verdicts["judge"], strict=True)
        ],
        index=verdicts.index,
    )


def trends(paths: Sequence[Path | str], period: Period = "day") -> Trends:
    logs = read_logs(paths, latest=False, case_runs=True)
    partial = [
        f"{path}: {state.describe()}" for path, log in logs if (state := completeness(log)).partial
    ]
    verdicts = verdict_rows(sample_frame([log for _, log in logs]))
    if verdicts.empty:
        empty = pd.DataFrame()
        return Trends(empty, empty, empty, 0, partial)
    verdicts = _dedupe(verdicts)
    verdicts = verdicts.assign(dimension=series_names(verdicts))
    when = pd.to_datetime(verdicts["captured"].fillna(verdicts["created"]), utc=True)
    verdicts = verdicts.assign(period=when.dt.strftime(FORMATS[period]))
    counts = (
        verdicts.groupby(["period", "dimension", "status"]).size().unstack("status", fill_value=0)
    )
    for status in ("pass", "fail", "unknown", "judge_failed"):
        if status not in counts:
            counts[status] = 0
    settled = (counts["pass"] + counts["fail"]).unstack("dimension", fill_value=0)
    passes = counts["pass"].unstack("dimension", fill_value=0)
    unsettled = (counts["unknown"] + counts["judge_failed"]).unstack("dimension", fill_value=0)
    rates = (passes / settled.where(settled > 0)).sort_index()
    return Trends(rates, settled.sort_index(), unsettled.sort_index(), len(verdicts), partial)
