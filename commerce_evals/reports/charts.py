"""The chart renderer: a report's charts (commerce_evals/reports/report.py) drawn as PNG files
with matplotlib (headless)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from commerce_evals.reports.report import Chart, RateChart, TokenChart  # noqa: E402
from commerce_evals.reports.stats import wilson  # noqa: E402

DPI = 120
# Models told apart by colour and by marker, so a chart printed in grey still separates them.
MARKERS = ("o", "s", "D", "^", "v", "P", "X", "*")
LINESTYLES = ("-", "--", "-.", ":")


def interval_chart(rows: pd.DataFrame, title: str, path: Path) -> Path | None:
    """Pass rates with 95% Wilson intervals: one row of the chart per group (a part, a priority, a
    dimension), one point per model, each labelled with its rate and `passes/n`.

    `rows` has columns model, group, passes, n (groups in the order to show). The axis is
    zoomed to the intervals (and says so), so a 3-point difference is visible and its
    interval shows whether it is more than noise."""
    data = rows[rows["n"] > 0]
    if data.empty:
        return None
    groups = list(dict.fromkeys(data["group"]))
    models = list(dict.fromkeys(data["model"]))
    step = 0.8 / max(1, len(models))
    fig, ax = plt.subplots(figsize=(9.0, max(2.5, 0.45 * len(groups) * max(1, len(models)) + 1.2)))
    lows: list[float] = []
    highs: list[float] = []
    for m_index, model in enumerate(models):
        mine = data[data["model"] == model]
        marker = MARKERS[m_index % len(MARKERS)]
        for _, row in mine.iterrows():
            y = groups.index(row["group"]) + (m_index - (len(models) - 1) / 2) * step
            passes, n = int(row["passes"]), int(row["n"])
            rate = passes / n
            low, high = wilson(passes, n) or (rate, rate)
            lows.append(low)
            highs.append(high)
            colour = f"C{m_index}"
            ax.plot([low, high], [y, y], color=colour, linewidth=2, alpha=0.7)
            ax.plot([rate], [y], marker=marker, color=colour, markersize=7, linestyle="none")
            ax.annotate(
                f"{rate:.2f} ({passes}/{n})",
                (high, y),
                xytext=(4, 0),
                textcoords="offset points",
                va="center",
                fontsize="x-small",
            )
        ax.plot([], [], marker=marker, color=f"C{m_index}", label=model, linestyle="-")
    low_edge = max(0.0, min(lows) - 0.05)
    high_edge = min(1.0, max(highs) + 0.02)
    ax.set_xlim(low_edge, high_edge + (high_edge - low_edge) * 0.25)  # room for the labels
    ticks = [t / 20 for t in range(21) if low_edge <= t / 20 <= high_edge + 1e-9]
    if len(ticks) > 8:
        ticks = ticks[::2]
    ax.set_xticks(ticks)
    ax.set_yticks(range(len(groups)), groups)
    ax.invert_yaxis()
    zoomed = " (axis zoomed)" if low_edge > 0 else ""
    ax.set_xlabel(f"pass rate, 95% Wilson interval{zoomed}; labels: rate (passes/n)")
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def _stacked_parts(usage: pd.DataFrame, prefix: str) -> pd.DataFrame:
    """Input and output; when a prompt cache read or wrote some of the input, the input at the
    full rate, the cache read and the cache write stacked apart (`<prefix>_input` counts all
    three)."""
    data = usage[[f"{prefix}_input", f"{prefix}_output"]].fillna(0).astype(float)
    data.columns = ["input", "output"]
    parts = [f"{prefix}_cache_read", f"{prefix}_cache_write"]
    if not all(p in usage for p in parts):
        return data
    cached = usage[parts].fillna(0).astype(float)
    if not cached.to_numpy().any():
        return data
    cached.columns = ["cache read", "cache write"]
    full = data["input"] - cached.sum(axis=1)
    return pd.concat([full.rename("input (full rate)"), cached, data["output"]], axis=1)


def stacked_tokens(usage: pd.DataFrame, path: Path) -> Path | None:
    """Per model: the agent's tokens and the judge's (grader role), each input + output stacked,
    in two panels, since a judge's share is small beside an agent's."""
    if usage.empty:
        return None
    fig, axes = plt.subplots(1, 2, figsize=(max(8.0, 2.4 * len(usage.index)), 4))
    # the judge's panel counts every call the run needed, cache hits too, when the verdicts say
    needed = "judge_all_input" in usage
    for ax, who in zip(axes, ("agent", "judge"), strict=True):
        prefix = "judge_all" if who == "judge" and needed else who
        data = _stacked_parts(usage, prefix)
        data.plot.bar(ax=ax, stacked=True, rot=15)
        title = "agent tokens"
        if who == "judge":
            title = "judge tokens needed (cache hits too)" if needed else "judge tokens (paid)"
        ax.set_title(title)
        ax.set_ylabel("tokens")
        ax.set_xlabel("")
        ax.legend(fontsize="small")
        ax.grid(axis="y", alpha=0.3)
        for label in ax.get_xticklabels():
            label.set_fontsize("small")
    fig.suptitle("Tokens per model under test")
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def trend_lines(
    table: pd.DataFrame, title: str, path: Path, settled: pd.DataFrame | None = None
) -> Path | None:
    """One line per column (a dimension) over the index (time buckets); values in [0, 1].

    Lines differ in colour, marker and dash and are nudged apart a little along x, so equal
    series stay visible; with `settled` (the Pass + Fail count behind each point) each point
    gets its 95% Wilson interval and its n."""
    data = table.astype(float)
    if data.empty or data.isna().all().all():
        return None
    # room on the right for the legend, whose judge-split names are long
    fig, ax = plt.subplots(figsize=(max(6.0, 1.1 * len(data.index)) + 4.5, 4.5))
    x = list(range(len(data.index)))
    width = 0.25 / max(1, len(data.columns))
    for c_index, column in enumerate(data.columns):
        nudge = (c_index - (len(data.columns) - 1) / 2) * width
        xs = [i + nudge for i in x]
        ys = data[column].tolist()
        colour = f"C{c_index}"
        ax.plot(
            xs,
            ys,
            marker=MARKERS[c_index % len(MARKERS)],
            linestyle=LINESTYLES[c_index % len(LINESTYLES)],
            color=colour,
            label=column,
        )
        if settled is None or column not in settled:
            continue
        for xi, yi, period in zip(xs, ys, data.index, strict=True):
            n = int(settled.at[period, column]) if period in settled.index else 0
            if n == 0 or pd.isna(yi):
                continue
            low, high = wilson(round(yi * n), n) or (yi, yi)
            ax.plot([xi, xi], [low, high], color=colour, alpha=0.35, linewidth=3)
            ax.annotate(
                f"n={n}", (xi, yi), xytext=(3, 4), textcoords="offset points", fontsize="xx-small"
            )
    ax.set_xticks(x, [str(i) for i in data.index])
    ax.set_ylim(-0.05, 1.05)
    ax.set_ylabel("pass rate (Pass / (Pass + Fail))")
    ax.set_title(title)
    if settled is not None:
        ax.set_xlabel("bars: 95% Wilson interval; n: Pass + Fail verdicts behind the point")
    if len(x) == 1:
        ax.set_xlim(-0.5, 0.5)
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.grid(alpha=0.3)
    for label in ax.get_xticklabels():
        label.set_rotation(30)
        label.set_fontsize("small")
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def draw(chart: Chart, path: Path) -> Path | None:
    """The chart written to `path`; None when it has nothing to show."""
    if isinstance(chart, RateChart):
        return interval_chart(chart.points, chart.title, path)
    if isinstance(chart, TokenChart):
        return stacked_tokens(chart.usage, path)
    return trend_lines(chart.rates, chart.title, path, chart.settled)


def draw_all(charts: list[Chart], folder: Path) -> dict[str, Path]:
    """Each chart as `folder/<its file>`, by name; charts with nothing to show are left out."""
    folder.mkdir(parents=True, exist_ok=True)
    drawn = {chart.name: draw(chart, folder / chart.file) for chart in charts}
    return {name: path for name, path in drawn.items() if path is not None}
