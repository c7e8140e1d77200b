"""`commerce-evals draft`: case skeletons a person finishes (seed 003, steps 1 and 5).

    draft dimensions FILE --out drafts/support.yaml --model-role drafter=MODEL [--max-drafts N]
        tuples covering every pair of values, one drafted message per tuple (at most N, 200
        unless told: a file that would make more is refused before any drafter call)
    draft dimensions FILE --propose --flow support --model-role drafter=MODEL
        3 or 4 dimensions proposed by the drafter from the agent's tools and policy, written to
        the new FILE for a person to edit before drafting from it
    draft cheats CASES [--case ID] --out drafts/cheats.yaml --model-role drafter=MODEL
        the cheapest runs that would pass every key while a reviewer fails them, as draft
        counterexamples, each replayed: covered (the graders fail it) or a hole to close
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
    file: Annotated[
        Path,
        typer.Argument(
            dir_okay=False,
            help="A dimensions file (with --propose: a new one, written for a person to edit).",
        ),
    ],
    out: Annotated[
        Path | None,
        typer.Option("--out", help="A new file for the drafts (never written over)."),
    ] = None,
    propose: Annotated[
        bool,
        typer.Option(
            "--propose",
            help="Ask the drafter for 3 or 4 dimensions of --flow (its tools and policy) and "
            "write them to FILE for a person to edit; no tuple is drafted.",
        ),
    ] = False,
    flow: Annotated[
        str | None, typer.Option("--flow", help="With --propose: the flow whose agent it is.")
    ] = None,
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
    """Tuples over the dimensions (all pairs by default), one drafted message each; or, with
    --propose, the dimensions themselves, proposed by the drafter for a person to edit."""
    if propose:
        _propose(file, flow, model_role)
        return
    if out is None:
        _fail(Console(), ["--out: name a new file for the drafts (or give --propose)"])
    assert out is not None
    if not file.is_file():
        _fail(Console(), [f"{file}: no such dimensions file (--propose writes a new one)"])
    from commerce_evals.authoring.dimensions import DimensionsFileError, read_dimensions
    from commerce_evals.authoring.drafting import (
        NoDrafts,
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
    except (TooManyDrafts, NoDrafts) as err:
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


def _propose(file: Path, flow: str | None, model_role: str) -> None:
    """Dimensions for `flow` from the drafter, written to a new file a person edits."""
    from commerce_evals.authoring.proposing import (
        ProposalError,
        proposal_yaml,
        propose_prompt,
        proposed_file,
    )
    from commerce_evals.authoring.roles import DRAFTER, RoleError, ask_each, bind, parse_role
    from commerce_evals.core.flow_table import FLOWS

    console = Console(highlight=False, soft_wrap=True)
    if flow is None or flow not in FLOWS:
        given = f"--flow {flow}: not a flow" if flow else "--flow: name the flow"
        _fail(console, [f"{given}; flows: {', '.join(FLOWS)}"])
    assert flow is not None
    if file.exists():
        _fail(console, [f"{file} exists: a proposal is never written over a file; name a new one"])
    try:
        model = bind(DRAFTER, parse_role(model_role, DRAFTER))
        [answer] = ask_each(model, [propose_prompt(flow)])
        proposal = proposed_file(flow, answer)
    except RoleError as err:
        _fail(console, [str(err)])
    except ProposalError as err:
        _fail(console, [f"the drafter's proposal is not a dimensions file: {err}"])
    file.parent.mkdir(parents=True, exist_ok=True)
    with file.open("x", encoding="utf-8") as written:
        written.write(proposal_yaml(proposal, str(model)))
    names = ", ".join(f"{n} ({len(v)})" for n, v in proposal.dimensions.items())
    console.print(f"wrote {len(proposal.dimensions)} proposed dimensions to {file}: {names}")
    console.print(
        f"edit them, then draft: commerce-evals draft dimensions {file} --out drafts/{flow}.yaml"
    )


@draft_app.command("cheats")
def cheats(
    paths: Annotated[
        list[Path], typer.Argument(help="Case files or folders (the cases to find cheats for).")
    ],
    out: OutOption,
    case: Annotated[
        list[str] | None,
        typer.Option("--case", help="Only this case (an id or shell pattern; repeatable)."),
    ] = None,
    model_role: Annotated[
        str, typer.Option("--model-role", help="drafter=<model> (commerce/drafter offline).")
    ] = "drafter=commerce/drafter",
) -> None:
    """The cheapest runs that would pass every key while a reviewer fails them, per case, as
    draft counterexamples: each replayed through the graders and marked covered or a hole."""
    from fnmatch import fnmatchcase

    from commerce_evals.authoring.cheats import cheats_prompt, drafted_entry, read_cheats
    from commerce_evals.authoring.replay import replay_cheats
    from commerce_evals.authoring.roles import DRAFTER, RoleError, ask_each, bind, parse_role
    from commerce_evals.cases.model import CaseFileError, case_files, load_case_sources

    console = Console(highlight=False, soft_wrap=True)
    try:
        files = [f for path in paths for f in case_files(path)]
        sources = load_case_sources(files)
    except CaseFileError as err:
        _fail(console, err.problems)
    chosen = [
        (path, c)
        for path, c in sources
        if c.reference is not None
        and c.skip is None
        and (not case or any(fnmatchcase(c.id, p) for p in case))
    ]
    if not chosen:
        named = f" matching {case}" if case else ""
        _fail(console, [f"no runnable case{named} in {', '.join(map(str, paths))}"])
    try:
        model = bind(DRAFTER, parse_role(model_role, DRAFTER))
        answers = ask_each(model, [cheats_prompt(c, _rules_of(c)) for _, c in chosen])
    except RoleError as err:
        _fail(console, [str(err)])
    drafted = [read_cheats(c, answer) for (_, c), answer in zip(chosen, answers, strict=True)]
    for problem in (p for d in drafted for p in d.problems):
        console.print(f"[yellow]skipped: {escape(problem)}[/yellow]")
    verdicts = replay_cheats(
        [(path, d.case, d.cheats) for (path, _), d in zip(chosen, drafted, strict=True)],
        [c for _, c in sources],
    )
    entries = []
    for d in drafted:
        if not d.cheats:
            continue
        mine = verdicts.get(d.case.id, {})
        for cheat in d.cheats:
            verdict = mine.get(cheat.name)
            status = (
                "not replayed"
                if verdict is None
                else f"covered ({', '.join(verdict.failed)})"
                if verdict.covered
                else "HOLE: passes every code key"
            )
            console.print(f"{d.case.id}~{cheat.name}: {status}")
        entries.append(drafted_entry(d.case, d.cheats, mine))
    if not entries:
        _fail(console, ["the drafter proposed no cheat that could be read; nothing written"])
    holes = sum(1 for e in entries for cx in e["counterexamples"] if not cx["breaks"])
    total = sum(len(e["counterexamples"]) for e in entries)
    _write(
        console,
        out,
        entries,
        f"Cheats drafted by {model} for {len(entries)} case(s): {total} draft counterexamples, "
        f"{holes} of them holes (they pass every code key).\n"
        "Each: replayed through the graders; a covered one goes into its case's counterexamples "
        "with the breaks shown, a hole is closed (a key or a judged dimension) first.",
    )


def _rules_of(case: object) -> dict[str, str]:
    """The domain's invariants a case's runs are graded on, by name, with what each holds."""
    from commerce_evals.core.flow_table import FLOWS
    from commerce_evals.domains import WORLDS

    flow = getattr(case, "flow", "")
    spec = FLOWS.get(flow)
    if spec is None:
        return {}
    return {rule.name: rule.doc for rule in WORLDS[spec.domain].invariants}


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
    from commerce_evals.reports.judge_records import read_log

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
    from commerce_evals.core.flow_table import FLOWS
    from commerce_evals.domains.base import DATASETS
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
        _fail(console, str(err).splitlines())
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
