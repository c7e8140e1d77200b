"""`commerce-evals label LOG`: a person labels judged runs, one dimension at a time.

It asks a person: it refuses to run without a terminal, asks for the labeller's name, and never
fills in a label itself. The judge's own verdict is not shown, so it cannot anchor the person.

A run holds hundreds of verdicts; a person labels a sample of them: at most `--limit` (50 unless
told; 0 for every one) and at most `--per-dimension` per dimension, drawn (with `--seed`) evenly
from the judge's Pass verdicts, its Fail verdicts and the rest, so calibration sees both classes.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.panel import Panel
from rich.prompt import Prompt
from rich.text import Text

from commerce_evals.cli.commands._dimensions import check_dimension_options, judge_dimensions
from commerce_evals.cli.commands._output import answer, die, is_terminal, plural

if TYPE_CHECKING:  # Inspect and the judging modules load when the command runs
    from inspect_ai.log import EvalLog

    from commerce_evals.core.events import Run

CHOICES = {"p": "Pass", "f": "Fail", "s": "Skip"}
# verdicts a sample is drawn evenly from: the judge's Pass, its Fail, and every other status
STRATA = ("pass", "fail", "unsettled")
DEFAULT_LIMIT = 50


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
    # the judge's verdict (pass, fail, unknown, ...): never shown, only what a sample is drawn by
    status: str = ""

    @property
    def stratum(self) -> str:
        return self.status if self.status in ("pass", "fail") else "unsettled"


def _round_robin(groups: list[list[LabelItem]], count: int | None) -> list[LabelItem]:
    """One item from each group in turn until `count` are taken (None: all)."""
    taken: list[LabelItem] = []
    queues = [list(g) for g in groups]
    while queues and (count is None or len(taken) < count):
        for queue in queues:
            if count is not None and len(taken) >= count:
                break
            taken.append(queue.pop(0))
        queues = [q for q in queues if q]
    return taken


def sample_items(
    items: list[LabelItem], limit: int | None, per_dimension: int | None, seed: int = 0
) -> list[LabelItem]:
    """At most `per_dimension` items of each dimension and `limit` in all, drawn in turn from
    each (dimension, judge verdict) group, shuffled by `seed`; kept in the log's order."""
    rng = random.Random(seed)
    groups: dict[tuple[str, str], list[LabelItem]] = defaultdict(list)
    for item in items:
        groups[(item.dimension, item.stratum)].append(item)
    for group in groups.values():
        rng.shuffle(group)
    order = sorted(groups, key=lambda k: (k[0], STRATA.index(k[1])))
    dimensions = sorted({d for d, _ in order})
    chosen: list[list[LabelItem]] = []
    for dimension in dimensions:
        mine = [groups[k] for k in order if k[0] == dimension]
        chosen.append(_round_robin(mine, per_dimension))
    # the limit draws from every dimension's groups in turn too
    regrouped: dict[tuple[str, str], list[LabelItem]] = defaultdict(list)
    for item in (i for picked in chosen for i in picked):
        regrouped[(item.dimension, item.stratum)].append(item)
    taken = _round_robin([regrouped[k] for k in order if regrouped[k]], limit)
    position = {id(item): index for index, item in enumerate(items)}
    return sorted(taken, key=lambda item: position[id(item)])


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
    from commerce_evals.reports.judge_records import read_sample_logs

    items: list[LabelItem] = []
    for _, log in read_sample_logs([log_path]):
        items.extend(_log_items(log, dimensions))
    return items


def _log_items(log: EvalLog, dimensions: list[str] | None) -> list[LabelItem]:
    from commerce_evals.grading.score_metadata import ScoreMetadata
    from commerce_evals.judging.dimensions import RUBRIC, shared_dimensions
    from commerce_evals.judging.prompt import judge_key, sha
    from commerce_evals.reports.judge_records import case_score, sample_case, sample_run

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
                    status=verdict.status,
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
    """Show each item, record the person's answer at once. Returns counts by answer. Input
    that ends (Ctrl-D) stops with an error line saying what was recorded."""
    from commerce_evals.judging.labels import Label, append_label, now
    from commerce_evals.judging.run_text import readable

    counts = {"Pass": 0, "Fail": 0, "Skip": 0}
    for number, item in enumerate(items, start=1):
        full = False
        while True:
            console.rule(f"[{number}/{len(items)}] {item.sample_id} (epoch {item.epoch})")
            if item.reference:
                console.print(Panel(Text(item.reference), title="reference given to the judge"))
            console.print(Panel(Text(item.criterion), title=f"criterion: {item.dimension}"))
            console.print(readable(item.run, None if full else 400), highlight=False, markup=False)
            given = (
                answer(
                    lambda: ask(
                        "p = Pass, f = Fail, s = skip, v = view tool data in full, q = quit"
                    ),
                    "label",
                    f"the label of {item.sample_id} ({item.dimension})",
                    f"{_recorded(counts, labels_path)}; run label again in a terminal to go on",
                )
                .strip()
                .lower()
            )
            if given == "v":
                full = True
                continue
            if given == "q":
                return counts
            if given in CHOICES:
                break
            console.print("answer p, f, s, v or q")
        verdict = CHOICES[given]
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


def _recorded(counts: dict[str, int], labels: Path) -> str:
    return (
        f"recorded {counts['Pass']} Pass, {counts['Fail']} Fail, {counts['Skip']} skip in {labels}"
    )


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
    limit: Annotated[
        int,
        typer.Option(
            "--limit", min=0, help="Label at most this many verdicts in all (0: every one)."
        ),
    ] = DEFAULT_LIMIT,
    per_dimension: Annotated[
        int | None,
        typer.Option("--per-dimension", min=1, help="Label at most this many per dimension."),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the sample drawn.")] = 0,
) -> None:
    """Label a sample of judged runs by hand (Pass, Fail or skip), recorded with your name."""
    from commerce_evals.judging.labels import LabelFileError, read_labels
    from commerce_evals.reports.logs import LogReadError

    console = Console()
    check_dimension_options(dimension, judge_dimensions())
    if not is_terminal():
        die(
            "label asks a person for each verdict it shows, and its input is not a terminal: run "
            "it in a terminal (labels written by a script or a model would make calibration "
            "circular)"
        )
    try:
        existing = read_labels(labels)
    except LabelFileError as err:
        die("\n".join(err.problems))  # `error:` and exit 2, as every command's input error
    labeller = ""
    while not labeller:
        labeller = " ".join(
            answer(
                lambda: Prompt.ask("Your name (recorded on every label)"),
                "label",
                "a name was given",
                "run it in a terminal (nothing was recorded)",
            ).split()
        )
    done = {(x.sample_id, x.epoch, x.dimension) for x in existing if x.labeller == labeller}
    try:
        found = label_items(log, dimension or None)
    except LogReadError as err:
        die(str(err))
    left = [
        item
        for item in found
        if relabel or (item.sample_id, item.epoch, item.dimension) not in done
    ]
    if not left:
        console.print("nothing left to label in this log for you")
        return
    items = sample_items(left, limit or None, per_dimension, seed)
    console.print(
        f"{plural(len(items), 'verdict')} to label of the {len(left)} left for you "
        f"(drawn evenly from the judge's Pass, Fail and other verdicts of each dimension, "
        f"seed {seed}; --limit, --per-dimension choose how many)",
        highlight=False,
        markup=False,
        soft_wrap=True,
    )
    counts = label_loop(
        items, labeller, labels, lambda text: Prompt.ask(text, console=console), console
    )
    console.print(_recorded(counts, labels), highlight=False, markup=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command("label")(label)
