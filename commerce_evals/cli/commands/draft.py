"""`commerce-evals draft`: case skeletons a person finishes (seed 003, steps 1 and 5).

    draft dimensions FILE --out drafts/support.yaml --model-role drafter=MODEL [--max-drafts N]
        tuples covering every pair of values, one drafted message per tuple (at most N, 200
        unless told: a file that would make more is refused before any drafter call)
    draft failure LOG --sample ID --out drafts/x.yaml
        a skeleton from one failed run; each suggested expected key is confirmed by a person
    draft mode MODES.yaml NAME --out drafts/x.yaml
        a skeleton from every run of one failure mode (see `commerce-evals notes --group`)

Exit 0 on a written draft file, 2 when it could not (a bad input file, an unbound role, an
existing output file, more drafts than --max-drafts, input that ended before a person confirmed
each suggested key). Each problem is one `error:` line on stderr.
"""

from __future__ import annotations

from collections.abc import Callable
from difflib import get_close_matches
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.prompt import Confirm

from commerce_evals.cli.commands._output import EXIT_ERROR, answer

if TYPE_CHECKING:  # the authoring modules (and Inspect under them) load when a command runs
    from commerce_evals.authoring.from_failure import Suggestion
    from commerce_evals.authoring.notes import RunItem

draft_app = typer.Typer(help="Draft case skeletons a person finishes.", no_args_is_help=True)
OutOption = Annotated[
    Path, typer.Option("--out", help="A new file for the drafts (never written over).")
]
DatasetsOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--datasets", help="Case files or folders whose ids are taken (default: datasets/)."
    ),
]


def _fail(console: Console, lines: list[str]) -> None:
    errors = Console(stderr=True, highlight=False, soft_wrap=True)
    for line in lines:
        errors.print(f"error: {line}", markup=False)
    raise typer.Exit(EXIT_ERROR)


def _write(console: Console, out: Path, drafts: list[dict], header: str) -> None:
    from commerce_evals.authoring.skeletons import write_drafts
    from commerce_evals.cases.model import CaseFileError

    try:
        write_drafts(out, drafts, header)
    except CaseFileError as err:
        _fail(console, err.problems)
    except FileExistsError as err:
        _fail(console, [str(err)])
    console.print(
        f"wrote {len(drafts)} drafts to {out} (each skip: draft until a person finishes it)"
    )


@draft_app.command("dimensions")
def dimensions(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="A dimensions file.")],
    out: OutOption,
    model_role: Annotated[
        str, typer.Option("--model-role", help="drafter=<model> (commerce/drafter offline).")
    ] = "drafter=commerce/drafter",
    datasets: DatasetsOption = None,
    max_drafts: Annotated[
        int,
        typer.Option(
            "--max-drafts",
            min=1,
            help="Refuse a file that would make more drafts (drafter calls) than this.",
        ),
    ] = 200,
) -> None:
    """Tuples over the dimensions (all pairs by default), one drafted message each."""
    from commerce_evals.authoring.dimensions import DimensionsFileError, read_dimensions
    from commerce_evals.authoring.drafting import (
        TooManyDrafts,
        drafter_prompt,
        skeleton,
        tuples_for,
    )
    from commerce_evals.authoring.roles import DRAFTER, RoleError, ask_each, bind, parse_role
    from commerce_evals.authoring.skeletons import ids_in, next_number
    from commerce_evals.domains.base import DATASETS

    console = Console(highlight=False, soft_wrap=True)
    try:
        spec = read_dimensions(file)
        coverage = tuples_for(spec, max_drafts)
        model = bind(DRAFTER, parse_role(model_role, DRAFTER))
    except DimensionsFileError as err:
        _fail(console, err.problems)
    except TooManyDrafts as err:
        _fail(console, [f"{file}: {err}"])
    except RoleError as err:
        _fail(console, [str(err)])
    console.print(
        f"{len(coverage.tuples)} tuples cover {coverage.pairs_covered} of {coverage.pairs_required}"
        f" value pairs ({coverage.strength})"
    )
    for pair in coverage.unreachable:
        console.print(f"[dim]not coverable (every tuple holding it is excluded): {pair}[/dim]")
    try:
        messages = ask_each(model, [drafter_prompt(spec, row) for row in coverage.tuples])
    except RoleError as err:
        _fail(console, [str(err)])
    first = next_number(spec.flow, ids_in(datasets or [DATASETS]))
    drafts = [
        skeleton(spec, row, message, first + i)
        for i, (row, message) in enumerate(zip(coverage.tuples, messages, strict=True))
    ]
    _write(
        console,
        out,
        drafts,
        f"Drafted from {file} by {model} ({coverage.strength} coverage).\n"
        "Each draft: read the message, write `expected` and the reference run, remove `skip`.",
    )


def _ask_confirm(console: Console, command: str) -> Callable[[Suggestion], bool]:
    def confirm(suggestion: Suggestion) -> bool:
        console.print(f"suggested [bold]{suggestion.key}[/bold]: {escape(str(suggestion.value))}")
        console.print(f"  because {escape(suggestion.why)}")
        return answer(
            lambda: Confirm.ask("keep it?", console=console, default=False),
            f"draft {command}",
            f"a person kept or dropped the suggested {suggestion.key}",
            "run it in a terminal, where a person answers y or n for each suggested key "
            "(nothing was written)",
        )

    return confirm


def _notes_for(item: RunItem) -> str:
    from commerce_evals.authoring.notes import NotesFileError, notes_path, read_notes

    try:
        notes = read_notes(notes_path(Path(item.log)))
    except NotesFileError:
        return ""
    return " / ".join(
        n.note for n in notes if (n.sample_id, n.epoch) == (item.sample_id, item.epoch)
    )


def _sample_metadata(log: Path, sample_id: str, epoch: int) -> dict:
    from commerce_evals.judging.records import read_log

    sample = next(
        s for s in read_log(log).samples or [] if str(s.id) == sample_id and s.epoch == epoch
    )
    return dict(sample.metadata or {})


@draft_app.command("failure")
def failure(
    log: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="A scored .eval log.")],
    sample: Annotated[str, typer.Option("--sample", help="The failed sample's id.")],
    out: OutOption,
    epoch: Annotated[int, typer.Option("--epoch")] = 1,
    datasets: DatasetsOption = None,
    flow: Annotated[
        str | None,
        typer.Option(
            "--flow",
            help="For a production log: the flow the draft belongs to (default: the first "
            "flow of the conversation's domain).",
        ),
    ] = None,
) -> None:
    """A skeleton from one failed run (of a flow, or a judged production conversation): its
    start state, its user turns, confirmed keys."""
    from dataclasses import replace

    from commerce_evals.authoring.from_failure import draft_from_run
    from commerce_evals.authoring.notes import production_case, run_items
    from commerce_evals.authoring.skeletons import ids_in, next_number
    from commerce_evals.domains.base import DATASETS
    from commerce_evals.harness.flow_table import FLOWS
    from commerce_evals.reports.traffic import Conversation

    console = Console(highlight=False, soft_wrap=True)
    runs = run_items(log)
    item = next((i for i in runs if i.sample_id == sample and i.epoch == epoch), None)
    if item is None:
        close = get_close_matches(sample, sorted({i.sample_id for i in runs}), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        _fail(console, [f"{log}: no scored run of {sample} (epoch {epoch}){hint}"])
    assert item is not None
    if flow is not None:
        if flow not in FLOWS:
            _fail(console, [f"--flow {flow}: not a flow; flows: {', '.join(FLOWS)}"])
        if not item.production:
            _fail(console, [f"--flow is for a production log; {sample} is a case of {log}"])
        conversation = Conversation.model_validate(
            (_sample_metadata(log, item.sample_id, item.epoch))["conversation"]
        )
        if FLOWS[flow].domain != conversation.domain:
            _fail(
                console,
                [
                    f"--flow {flow}: its domain is {FLOWS[flow].domain}, the conversation's "
                    f"{conversation.domain}"
                ],
            )
        item = replace(item, case=production_case(conversation, flow))
    number = next_number(item.case.flow, ids_in(datasets or [DATASETS]))
    draft = draft_from_run(item, number, _ask_confirm(console, "failure"), _notes_for(item))
    _write(console, out, [draft], f"Drafted from the failed run {sample} of {log}.")


@draft_app.command("mode")
def mode(
    modes_file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="A modes file.")],
    name: Annotated[str, typer.Argument(help="The failure mode to draft cases from.")],
    out: OutOption,
    datasets: DatasetsOption = None,
) -> None:
    """A skeleton from each run of one failure mode."""
    from commerce_evals.authoring.from_failure import draft_from_run
    from commerce_evals.authoring.grouping import read_modes
    from commerce_evals.authoring.notes import run_items
    from commerce_evals.authoring.skeletons import ids_in, next_number
    from commerce_evals.domains.base import DATASETS

    console = Console(highlight=False, soft_wrap=True)
    try:
        modes = read_modes(modes_file)
    except ValueError as err:
        _fail(console, [str(err)])
    chosen = next((m for m in modes.modes if m.name == name), None)
    if chosen is None:
        _fail(console, [f"{modes_file}: no mode {name!r}; modes: {[m.name for m in modes.modes]}"])
    assert chosen is not None
    taken = ids_in(datasets or [DATASETS])
    drafts = []
    items: dict[str, list[RunItem]] = {}
    for ref in chosen.notes:
        runs = items.setdefault(ref.log, run_items(Path(ref.log)))
        item = next((i for i in runs if (i.sample_id, i.epoch) == (ref.sample_id, ref.epoch)), None)
        if item is None:
            _fail(console, [f"{ref.log}: no scored run of {ref.sample_id} (epoch {ref.epoch})"])
        assert item is not None
        number = next_number(item.case.flow, taken)
        draft = draft_from_run(item, number, _ask_confirm(console, "mode"), ref.note, name)
        taken.add(draft["id"])
        drafts.append(draft)
    _write(console, out, drafts, f"Drafted from failure mode {name!r} of {modes_file}.")


def register(app: typer.Typer) -> None:
    app.add_typer(draft_app, name="draft")
