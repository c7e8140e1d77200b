"""`commerce-evals label LOG`: a person labels judged runs, one dimension at a time.

It asks a person: it refuses to run without a terminal, asks for the labeller's name, and never
fills in a label itself. The judge's own verdict is not shown, so it cannot anchor the person.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.prompt import Prompt
from rich.text import Text

from commerce_evals.cli.commands._output import die

if TYPE_CHECKING:  # Inspect and the judging modules load when the command runs
    from inspect_ai.log import EvalLog

    from commerce_evals.harness.events import Run

CHOICES = {"p": "Pass", "f": "Fail", "s": "Skip"}


@dataclass(frozen=True)
class LabelItem:
    sample_id: str
    epoch: int
    dimension: str
    criterion: str
    run: Run
    transcript_sha: str
    # What the judge was given beside the transcript (the domain's policy, for dimensions that
    # need it), so a criterion that says "the policy quoted above" can be checked by a person.
    reference: str = ""
    judge: str = ""


def _criterion(dimension: str, rubric: str | None) -> str:
    from commerce_evals.judging.dimensions import RUBRIC, shared_dimensions

    if dimension == RUBRIC:
        return rubric or ""
    text = shared_dimensions()[dimension].criterion
    cut = text.casefold().find("## examples")
    return text[:cut].strip() if cut >= 0 else text


def judge_reference(log: EvalLog) -> str:
    """The reference text the log's scorer quoted to the judge (empty when the domain has none)."""
    for scorer in log.eval.scorers or []:
        context = (scorer.options or {}).get("judge_context")
        if isinstance(context, str) and context.strip():
            return context.strip()
    return ""


def label_items(log_path: Path | str, dimensions: list[str] | None = None) -> list[LabelItem]:
    """Every (sample, epoch, dimension) the judge was asked about in the log, or in every log of
    a folder or URL (a sweep's shards together), in sample order."""
    from commerce_evals.judging.records import read_sample_logs

    items: list[LabelItem] = []
    for _, log in read_sample_logs([log_path]):
        items.extend(_log_items(log, dimensions))
    return items


def _log_items(log: EvalLog, dimensions: list[str] | None) -> list[LabelItem]:
    from commerce_evals.grading.score_metadata import ScoreMetadata
    from commerce_evals.judging.dimensions import RUBRIC, shared_dimensions
    from commerce_evals.judging.prompt import judge_key, sha
    from commerce_evals.judging.records import case_score, sample_case, sample_run

    items: list[LabelItem] = []
    reference = judge_reference(log)
    for sample in sorted(log.samples or [], key=lambda s: (str(s.id), s.epoch)):
        score = case_score(sample)
        judge = ScoreMetadata.from_score(score).judge
        run = sample_run(sample)
        if judge is None or run is None:
            continue
        case = sample_case(sample)
        for verdict in judge.verdicts:
            name = verdict.dimension
            if dimensions and name not in dimensions:
                continue
            if name != RUBRIC and name not in shared_dimensions():
                continue
            items.append(
                LabelItem(
                    sample_id=str(sample.id),
                    epoch=sample.epoch,
                    dimension=name,
                    criterion=_criterion(name, case.expected.rubric),
                    run=run,
                    transcript_sha=judge.transcript_sha or sha(run.model_dump(mode="json")),
                    reference=reference if _needs_reference(name) else "",
                    judge=judge_key(verdict),
                )
            )
    return items


def _needs_reference(dimension: str) -> bool:
    from commerce_evals.judging.dimensions import shared_dimensions

    shared = shared_dimensions().get(dimension)
    return shared is not None and shared.needs_context


def label_loop(
    items: list[LabelItem],
    labeller: str,
    labels_path: Path,
    ask: Callable[[str], str],
    console: Console,
) -> dict[str, int]:
    """Show each item, record the person's answer at once. Returns counts by answer."""
    from commerce_evals.judging.labels import Label, append_label, now
    from commerce_evals.reports.run_text import readable

    counts = {"Pass": 0, "Fail": 0, "Skip": 0}
    for number, item in enumerate(items, start=1):
        full = False
        while True:
            console.rule(f"[{number}/{len(items)}] {item.sample_id} (epoch {item.epoch})")
            if item.reference:
                console.print(Panel(Text(item.reference), title="reference given to the judge"))
            console.print(Panel(Text(item.criterion), title=f"criterion: {item.dimension}"))
            console.print(readable(item.run, None if full else 400), highlight=False, markup=False)
            answer = (
                ask("p = Pass, f = Fail, s = skip, v = view tool data in full, q = quit")
                .strip()
                .lower()
            )
            if answer == "v":
                full = True
                continue
            if answer == "q":
                return counts
            if answer in CHOICES:
                break
            console.print("answer p, f, s, v or q")
        verdict = CHOICES[answer]
        append_label(
            labels_path,
            Label(
                sample_id=item.sample_id,
                epoch=item.epoch,
                dimension=item.dimension,
                verdict=verdict,  # type: ignore[arg-type]
                labeller=labeller,
                time=now(),
                transcript_sha=item.transcript_sha,
                judge=item.judge or None,
            ),
        )
        counts[verdict] += 1
    return counts


def label(
    log: Annotated[
        str,
        typer.Argument(help="A judged .eval log, or a folder of them (a path or an s3:// URL)."),
    ],
    labels: Annotated[
        Path, typer.Option("--labels", help="Labels file to append to (JSONL or a YAML list).")
    ] = Path("labels.jsonl"),
    dimension: Annotated[
        list[str] | None, typer.Option("--dimension", help="Only these dimensions.")
    ] = None,
    relabel: Annotated[
        bool, typer.Option(help="Also show items you have labelled before.")
    ] = False,
) -> None:
    """Label judged runs by hand: Pass, Fail or skip, recorded with your name."""
    from commerce_evals.judging.labels import LabelFileError, read_labels
    from commerce_evals.reports.logs import LogReadError

    console = Console()
    if not sys.stdin.isatty():
        console.print(
            "[red]label asks a person for every verdict: run it in a terminal. Input is not a "
            "terminal, and labels written by a script or a model would make calibration "
            "circular.[/red]"
        )
        raise typer.Exit(2)
    try:
        existing = read_labels(labels)
    except LabelFileError as err:
        die("\n".join(err.problems))  # `error:` and exit 2, as every command's input error
    labeller = ""
    while not labeller:
        labeller = " ".join(Prompt.ask("Your name (recorded on every label)").split())
    done = {(x.sample_id, x.epoch, x.dimension) for x in existing if x.labeller == labeller}
    try:
        found = label_items(log, dimension or None)
    except LogReadError as err:
        console.print(f"[red]{escape(str(err))}[/red]", highlight=False, soft_wrap=True)
        raise typer.Exit(2) from err
    items = [
        item
        for item in found
        if relabel or (item.sample_id, item.epoch, item.dimension) not in done
    ]
    if not items:
        console.print("nothing left to label in this log for you")
        return
    counts = label_loop(
        items, labeller, labels, lambda text: Prompt.ask(text, console=console), console
    )
    console.print(
        f"recorded {counts['Pass']} Pass, {counts['Fail']} Fail, {counts['Skip']} skip in {labels}"
    )


def register(app: typer.Typer) -> None:
    app.command("label")(label)
