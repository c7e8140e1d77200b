"""Each rubric dimension's pass rate over time, from judge verdicts in logs.

The time of a verdict is when its conversation was captured (production logs carry
`captured_at`), else when its log was created (a regression set run each week, say). A
dimension's rate in a period is Pass / (Pass + Fail); Unknown verdicts (a person must look) and
judge failures are counted apart, never as passes. A production conversation judged in several
logs counts once, by its newest log.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pandas as pd

from commerce_evals.runs.frames import sample_frame, verdict_rows
from commerce_evals.runs.logs import read_logs

Period = Literal["day", "week", "month"]
FORMATS = {"day": "%Y-%m-%d", "week": "%G-W%V", "month": "%Y-%m"}


@dataclass(frozen=True)
class Trends:
    rates: pd.DataFrame  # period x dimension: pass rate (NaN: no settled verdict)
    settled: pd.DataFrame  # period x dimension: Pass + Fail verdicts
    unsettled: pd.DataFrame  # period x dimension: Unknown + judge failures
    verdicts: int


def _dedupe(verdicts: pd.DataFrame) -> pd.DataFrame:
    """A captured conversation judged by several logs: keep the newest log's verdicts."""
    captured = verdicts[verdicts["captured"].notna()]
    rest = verdicts[verdicts["captured"].isna()]
    captured = captured.sort_values("created").drop_duplicates(
        ["id", "epoch", "dimension"], keep="last"
    )
    return pd.concat([captured, rest])


def trends(paths: Sequence[Path | str], period: Period = "day") -> Trends:
    verdicts = verdict_rows(sample_frame([log for _, log in read_logs(paths, latest=False)]))
    if verdicts.empty:
        empty = pd.DataFrame()
        return Trends(empty, empty, empty, 0)
    verdicts = _dedupe(verdicts)
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
    return Trends(rates, settled.sort_index(), unsettled.sort_index(), len(verdicts))
