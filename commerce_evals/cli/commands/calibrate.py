"""`commerce-evals calibrate --labels FILE LOG...`: how far to trust each judge, from human labels.

A judge is calibrated one at a time: when a dimension's verdicts in the logs come from more than
one judge (model, template, config, or the dimension's text), that dimension is refused unless
--judge picks one. Labels given on a log judged by another judge (`commerce-evals label` writes
which) are counted and named; they still count, since a label judges the run, not the judge.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape

from commerce_evals.cli.commands._dimensions import check_dimension_options, judge_dimensions
from commerce_evals.cli.commands._output import die
from commerce_evals.reports.report import Cell, Column, Report, Table, table
from commerce_evals.reports.terminal import print_report

# Labelled items (with a judge Pass or Fail) a criterion needs before its TPR, TNR and corrected
# rate are read as more than noise: at 20, one item moves a rate by five points.
MIN_LABELS = 20

if TYPE_CHECKING:  # Inspect is imported only when the command runs
    from commerce_evals.judging.calibration import DimensionReport, HumanLabel, JudgeVerdict
    from commerce_evals.reports.judge_records import JudgedItem


def one_judge(
    items: list[JudgedItem], wanted: str | None
) -> tuple[list[JudgedItem], str | None, str | None]:
    """(the items of one judge, that judge, why refused). Items with no judge (not judged)
    stay with whichever judge is chosen; they carry no verdict to pool."""
    judges = sorted({item.judge for item in items if item.judge})
    if wanted is not None:
        chosen = [j for j in judges if wanted in j]
        if len(chosen) != 1:
            return [], None, f"--judge {wanted!r} matches {len(chosen)} of the judges {judges}"
        judges = chosen
    elif len(judges) > 1:
        return (
            [],
            None,
            (
                f"verdicts of {len(judges)} judges in these logs ({'; '.join(judges)}): "
                "calibrate one at a time with --judge"
            ),
        )
    judge = judges[0] if judges else None
    return [item for item in items if not item.judge or item.judge == judge], judge, None


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _left_out(r: DimensionReport) -> str:
    parts = [
        (r.unknown, "Unknown verdicts"),
        (r.labelled_unknown, "labelled but judged Unknown"),
        (r.judge_failed, "judge failures"),
        (r.not_judged, "not judged"),
        (r.skipped, "skips"),
        (r.disputed, "disputed"),
        (r.stale, "stale labels"),
        (r.unmatched, "labels with no verdict"),
    ]
    return ", ".join(f"{n} {what}" for n, what in parts if n) or "none"


def reports_table(reports: list[DimensionReport], min_labels: int = MIN_LABELS) -> Table:
    columns = ["criterion", "labelled test/dev", "TPR", "TNR", "judged", "p_obs", "theta"]
    columns += ["95% CI", "Unknown"]
    rows: list[list[str | Cell]] = []
    for r in reports:
        ci = (
            f"[{r.interval.low:.3f}, {r.interval.high:.3f}]"
            if r.interval and r.interval.low is not None and r.interval.high is not None
            else "—"
        )
        rows.append(
            [
                r.dimension,
                Cell(
                    f"{r.test.positives + r.test.negatives}/{r.dev.positives + r.dev.negatives}"
                    + (" (too few)" if r.labelled < min_labels and not r.refused else ""),
                    "bad" if r.labelled < min_labels and not r.refused else "plain",
                ),
                _pct(r.tpr),
                _pct(r.tnr),
                str(r.judged),
                _pct(r.p_obs),
                Cell("refused", "bad") if r.refused else Cell(_pct(r.theta)),
                ci,
                str(r.unknown),
            ]
        )
    return table(
        [Column(c, right=c != "criterion", wrap=c != "criterion") for c in columns],
        rows,
        "Judge calibration (TPR / TNR on the held-out test split)",
    )


def kappa_table(reports: list[DimensionReport]) -> Table | None:
    rows = [(r.dimension, k) for r in reports for k in r.kappas]
    if not rows:
        return None
    return table(
        [Column(c, right=c == "items") for c in ("dimension", "labellers", "items", "kappa")],
        [
            [
                dimension,
                " / ".join(row.labellers),
                str(row.items),
                "undefined (one class only)" if row.kappa is None else f"{row.kappa:.3f}",
            ]
            for dimension, row in rows
        ],
        "Agreement between labellers (Cohen's kappa on items both labelled)",
    )


def calibrate(
    logs: Annotated[
        list[str],
        typer.Argument(help="Judged .eval logs or folders of them (paths or s3:// URLs)."),
    ],
    labels: Annotated[
        Path, typer.Option("--labels", exists=True, help="Labels file (JSONL or YAML).")
    ],
    dimension: Annotated[
        list[str] | None, typer.Option("--dimension", help="Only these dimensions.")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the dev/test split and the bootstrap.")] = 0,
    test_fraction: Annotated[
        float,
        typer.Option(min=0.0, max=1.0, help="Share of labelled items held out for test."),
    ] = 0.5,
    resamples: Annotated[int, typer.Option(min=100, help="Bootstrap resamples.")] = 2000,
    judge: Annotated[
        str | None,
        typer.Option(
            help="Calibrate this judge (a part of its `model hash` name) when logs hold several."
        ),
    ] = None,
    groups: Annotated[
        Path | None,
        typer.Option(
            "--groups",
            exists=True,
            help="Rubrics to pool as one criterion: YAML `groups: {name: [case ids or patterns]}`.",
        ),
    ] = None,
    min_labels: Annotated[
        int,
        typer.Option(
            min=1, help="Labelled items a criterion needs before its numbers are trusted."
        ),
    ] = MIN_LABELS,
) -> None:
    """TPR, TNR, kappa and the corrected pass rate with its interval, per criterion: each shared
    dimension, and each case's rubric by its text (or by a group declared in --groups)."""
    from commerce_evals.judging.calibration import (
        DimensionReport,
        HumanLabel,
        JudgeVerdict,
        calibrate_dimension,
    )
    from commerce_evals.judging.groups import (
        GroupsFileError,
        RubricGroups,
        group_key,
        group_names,
        read_groups,
    )
    from commerce_evals.judging.groups import legend as group_legend
    from commerce_evals.judging.labels import LabelFileError, check_label_ids, located_labels
    from commerce_evals.reports import judge_records as records
    from commerce_evals.reports.logs import LogReadError, log_files

    console = Console()
    known = judge_dimensions()
    check_dimension_options(dimension, known)
    try:
        declared = read_groups(groups) if groups else RubricGroups()
    except GroupsFileError as err:
        die("\n".join(err.problems))
    try:
        located = located_labels(labels)
    except LabelFileError as err:
        die("\n".join(err.problems))  # `error:` and exit 2, as every command's input error
    try:
        # files, folders or URLs, as diff, gate and compare accept; a folder with no log is an error
        judged = records.read_judged_logs(log_files(logs))
    except LogReadError as err:
        die(str(err))
    try:
        check_label_ids(labels, located, judged.asked, known)
    except LabelFileError as err:
        die("\n".join(err.problems))
    items = [item for item in judged.items if not dimension or item.dimension in dimension]
    all_labels = [label for _, label in located if not dimension or label.dimension in dimension]
    # each verdict's criterion; a label joins the criterion of the verdict it labels
    keyed = {
        (item.sample_id, item.epoch, item.dimension): group_key(
            item.dimension, item.sample_id, item.criterion, declared
        )
        for item in items
    }
    grouped = [(key, sample_id) for (sample_id, _, _), key in keyed.items()] + [
        (group_key(label.dimension, label.sample_id, None, declared), label.sample_id)
        for label in all_labels
        if (label.sample_id, label.epoch, label.dimension) not in keyed
    ]
    shown = group_names(grouped)

    def criterion_of(sample_id: str, epoch: int, name: str) -> str:
        key = keyed.get((sample_id, epoch, name)) or group_key(name, sample_id, None, declared)
        return shown.get(key, key)

    by_dimension_labels: dict[str, list[HumanLabel]] = defaultdict(list)
    for index, label in enumerate(all_labels):
        by_dimension_labels[criterion_of(label.sample_id, label.epoch, label.dimension)].append(
            HumanLabel(
                key=f"{label.sample_id}#{label.epoch}",
                labeller=label.labeller,
                verdict=label.verdict,
                transcript_sha=label.transcript_sha,
                order=label.time.timestamp() + index * 1e-9,
            )
        )
    by_dimension_items: dict[str, list[JudgedItem]] = defaultdict(list)
    for item in items:
        by_dimension_items[criterion_of(item.sample_id, item.epoch, item.dimension)].append(item)
    by_dimension_verdicts: dict[str, list[JudgeVerdict]] = defaultdict(list)
    refusals: dict[str, str] = {}
    other_judge: dict[str, int] = {}
    for name, mine in by_dimension_items.items():
        kept, chosen, refusal = one_judge(mine, judge)
        if refusal:
            refusals[name] = refusal
            continue
        by_dimension_verdicts[name] = [
            JudgeVerdict(f"{item.sample_id}#{item.epoch}", item.status, item.transcript_sha)
            for item in kept
        ]
        other_judge[name] = sum(
            1
            for label in all_labels
            if criterion_of(label.sample_id, label.epoch, label.dimension) == name
            and label.judge
            and chosen
            and label.judge != chosen
        )
    names = sorted(set(by_dimension_labels) | set(by_dimension_verdicts))
    if not names:
        die("nothing to calibrate: no labels and no verdicts for those dimensions")
    reports = []
    for name in names:
        if name in refusals:
            report = DimensionReport(name, refused=refusals[name])
        elif not by_dimension_labels.get(name):
            report = DimensionReport(name, refused="no labels for this dimension")
        else:
            report = calibrate_dimension(
                name,
                by_dimension_labels[name],
                by_dimension_verdicts.get(name, []),
                seed=seed,
                test_fraction=test_fraction,
                resamples=resamples,
            )
        reports.append(report)
    kappas = kappa_table(reports)
    table_ = reports_table(reports, min_labels)
    print_report(console, Report([table_, *([kappas] if kappas else [])]))
    for line in group_legend(grouped):
        console.print(escape(line), highlight=False, soft_wrap=True)
    for r in reports:
        name = escape(r.dimension)
        console.print(f"{name}: left out: {_left_out(r)}", highlight=False, soft_wrap=True)
        if other_judge.get(r.dimension):
            console.print(
                f"{name}: {other_judge[r.dimension]} label(s) were given on a log judged "
                "by another judge than the one calibrated here (they still count: a label "
                "judges the run, which the transcript hash ties them to)",
                highlight=False,
                soft_wrap=True,
            )
        if r.refused:
            console.print(
                f"[red]{name}: refused: {escape(r.refused)}[/red]",
                highlight=False,
                soft_wrap=True,
            )
        elif r.labelled < min_labels:
            console.print(
                f"[yellow]{name}: too few labels to trust: {r.labelled} labelled "
                f"item(s) with a judge verdict, fewer than {min_labels}; label more runs of "
                f"this criterion before reading its numbers[/yellow]",
                highlight=False,
                soft_wrap=True,
            )
        elif r.interval and r.interval.dropped:
            console.print(
                f"{name}: {r.interval.dropped} of {r.interval.used + r.interval.dropped} "
                "bootstrap resamples were left out (a class missing or TPR + TNR <= 1)",
                highlight=False,
            )
    if any(r.refused for r in reports):
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("calibrate")(calibrate)
