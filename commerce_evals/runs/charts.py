"""PNG charts drawn with matplotlib (headless) from the frames in commerce_evals/runs/frames.py."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

DPI = 120


def grouped_bars(frame: pd.DataFrame, title: str, ylabel: str, path: Path) -> Path | None:
    """Rows are groups along the x axis, columns are bars within a group; values in [0, 1]."""
    data = frame.astype(float)
    if data.empty or data.isna().all().all():
        return None
    fig, ax = plt.subplots(
        figsize=(max(6.0, 1.2 * len(data.index) * max(1, len(data.columns)) / 2), 4)
    )
    data.plot.bar(ax=ax, rot=0, width=0.8)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.grid(axis="y", alpha=0.3)
    for label in ax.get_xticklabels():
        label.set_fontsize("small")
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def stacked_tokens(usage: pd.DataFrame, path: Path) -> Path | None:
    """Per model: the agent's tokens and the judge's (grader role), each input + output stacked,
    in two panels, since a judge's share is small beside an agent's."""
    if usage.empty:
        return None
    fig, axes = plt.subplots(1, 2, figsize=(max(8.0, 2.4 * len(usage.index)), 4))
    for ax, who in zip(axes, ("agent", "judge"), strict=True):
        data = usage[[f"{who}_input", f"{who}_output"]].astype(float)
        data.columns = ["input", "output"]
        data.plot.bar(ax=ax, stacked=True, rot=15)
        ax.set_title(f"{who} tokens" + (" (grader role)" if who == "judge" else ""))
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


def trend_lines(table: pd.DataFrame, title: str, path: Path) -> Path | None:
    """One line per column (a dimension) over the index (time buckets); values in [0, 1]."""
    data = table.astype(float)
    if data.empty or data.isna().all().all():
        return None
    fig, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(data.index)), 4))
    for column in data.columns:
        ax.plot(data.index.astype(str), data[column], marker="o", label=column)
    ax.set_ylim(-0.05, 1.05)
    ax.set_ylabel("pass rate (Pass / (Pass + Fail))")
    ax.set_title(title)
    ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    for label in ax.get_xticklabels():
        label.set_rotation(30)
        label.set_fontsize("small")
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path
