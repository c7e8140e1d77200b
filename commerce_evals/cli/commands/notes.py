"""`commerce-evals notes LOG...`: a person reads failed runs and writes one note per failure.

    notes LOG...                       walk the failed runs (and --passed N sampled passed runs)
    notes --group LOG... --out modes.yaml [--model-role clusterer=MODEL]
                                       group the notes into failure modes, ranked by count

Notes go to LOG.notes.jsonl beside each log. It asks a person: it refuses to run without a
terminal and never writes a note itself; a clusterer model only proposes a grouping, which the
person accepts or edits.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.prompt import Prompt

from commerce_evals.cli.commands._output import answer, die, is_terminal, plural

if TYPE_CHECKING:  # the authoring modules (and Inspect under them) load when the command runs
    from commerce_evals.authoring.notes import Note, RunItem

Ask = Callable[[str], str]


def note_loop(items: list[RunItem], author: str, ask: Ask, console: Console) -> dict[str, int]:
    """Show each run; append the person's note at once, beside its log."""
    from commerce_evals.authoring.notes import Note, append_note, notes_path, now
    from commerce_evals.judging.run_text import readable

    counts = {"noted": 0, "skipped": 0}
    for number, item in enumerate(items, start=1):
        full = False
        while True:
            verdict = "passed" if item.passed else "FAILED"
            console.rule(f"[{number}/{len(items)}] {item.sample_id} (epoch {item.epoch}) {verdict}")
            if item.case.notes or item.case.purpose:
                console.print(f"case: {item.case.purpose or item.case.notes}", markup=False)
            if item.explanation:
                console.print(item.explanation, markup=False)
            console.print(readable(item.run, None if full else 400), markup=False)
            answer = ask(
                "your note on what went wrong (Enter = nothing wrong / skip, v = full tool data, "
                "q = quit)"
            ).strip()
            if answer.lower() == "v":
                full = True
                continue
            break
        if answer.lower() == "q":
            break
        if not answer:
            counts["skipped"] += 1
            continue
        append_note(
            notes_path(Path(item.log)),
            Note(
                log=item.log,
                run_id=item.run_id,
                sample_id=item.sample_id,
                epoch=item.epoch,
                transcript_sha=item.transcript_sha,
                passed=item.passed,
                failed_keys=item.failed_keys,
                failed_dimensions=item.failed_dimensions,
                note=answer,
                author=author,
                time=now(),
            ),
        )
        counts["noted"] += 1
    return counts


def assign_loop(
    notes: list[Note], proposed: list[str] | None, ask: Ask, console: Console
) -> list[str]:
    """One mode name per note, chosen by the person (a proposed name is kept on Enter)."""
    names: list[str] = []
    assignment: list[str] = []
    for index, note in enumerate(notes):
        suggestion = proposed[index] if proposed else None
        if suggestion and suggestion not in names:
            names.append(suggestion)
        console.rule(f"note {index + 1}/{len(notes)}: {note.sample_id}")
        console.print(note.note, markup=False)
        for number, name in enumerate(names, start=1):
            console.print(f"  {number}. {name}", markup=False)
        while True:
            hint = f" (Enter = {suggestion})" if suggestion else ""
            answer = ask(f"mode number or a new mode name{hint}").strip()
            if not answer and suggestion:
                chosen = suggestion
            elif answer.isdigit() and 1 <= int(answer) <= len(names):
                chosen = names[int(answer) - 1]
            elif answer and not answer.isdigit():
                chosen = " ".join(answer.split())
            else:
                console.print("give a listed number or a name")
                continue
            break
        if chosen not in names:
            names.append(chosen)
        assignment.append(chosen)
    return assignment


def _propose(notes: list[Note], spec: str, console: Console) -> tuple[list[str], str]:
    from commerce_evals.authoring.grouping import clusterer_prompt, parse_proposal
    from commerce_evals.authoring.roles import CLUSTERER, ask_each, bind, parse_role

    model = bind(CLUSTERER, parse_role(spec, CLUSTERER))
    (answer,) = ask_each(model, [clusterer_prompt(notes)])
    modes = parse_proposal(answer, len(notes))
    proposed = [""] * len(notes)
    for name, numbers in modes:
        for n in numbers:
            proposed[n - 1] = name
    console.rule(f"{model} proposes {len(modes)} failure modes")
    for name, numbers in modes:
        console.print(f"[bold]{escape(name)}[/bold] ({len(numbers)})")
        for n in numbers:
            console.print(f"  {n}. {escape(notes[n - 1].note)}")
    return proposed, str(model)


def _stop(console: Console, lines: list[str]) -> None:
    die("\n".join(lines))  # `error:` and exit 2, as every command's input error


def notes(
    logs: Annotated[
        list[Path],
        typer.Argument(exists=True, help="Scored .eval logs, or folders of them."),
    ],
    passed: Annotated[
        int, typer.Option("--passed", help="Also show this many passed runs, sampled.")
    ] = 0,
    group_notes: Annotated[
        bool, typer.Option("--group", help="Group the logs' notes into failure modes.")
    ] = False,
    out: Annotated[
        Path, typer.Option("--out", help="With --group: the failure-modes file to write.")
    ] = Path("failure-modes.yaml"),
    model_role: Annotated[
        str | None,
        typer.Option("--model-role", help="With --group: clusterer=<model> proposes a grouping."),
    ] = None,
) -> None:
    """Write one note per failed run; with --group, count the notes' failure modes."""
    from commerce_evals.authoring.notes import (
        NotesFileError,
        notes_path,
        read_notes,
        run_items,
        to_walk,
    )
    from commerce_evals.reports.logs import LogReadError, log_files

    console = Console(highlight=False, soft_wrap=True)
    try:
        # a folder, as diff, gate and compare accept; notes are local files beside the logs
        files = [Path(location) for location in log_files(logs)]
    except LogReadError as err:
        die(str(err))
    if not is_terminal():
        die(
            "notes asks a person for every note and grouping, and its input is not a terminal: "
            "run it in a terminal (notes written by a model find generic problems, not this "
            "agent's)"
        )
    written = ", ".join(str(notes_path(log)) for log in files)
    author = ""
    while not author:
        author = " ".join(
            answer(
                lambda: Prompt.ask("Your name (recorded on every note)", console=console),
                "notes",
                "a name was given",
                "run it in a terminal (nothing was written)",
            ).split()
        )

    def ask(text: str) -> str:
        return answer(
            lambda: Prompt.ask(text, console=console, default="", show_default=False),
            "notes",
            "an answer",
            f"every note given so far is kept in {written}; run notes again to go on",
        )

    if group_notes:
        _group(files, out, model_role, author, ask, console)
        return
    try:
        done = {n.key for log in files for n in read_notes(notes_path(log)) if n.author == author}
    except NotesFileError as err:
        _stop(console, err.problems)
    items = [i for log in files for i in to_walk(run_items(log), passed) if i.key not in done]
    if not items:
        console.print("no run left to read in these logs for you")
        return
    counts = note_loop(items, author, ask, console)
    noted = sorted({str(notes_path(Path(item.log))) for item in items})
    console.print(
        f"wrote {plural(counts['noted'], 'note')} ({plural(counts['skipped'], 'run')} with none)"
        f" to {', '.join(noted)}"
    )


def _group(
    logs: list[Path], out: Path, model_role: str | None, author: str, ask: Ask, console: Console
) -> None:
    from commerce_evals.authoring.grouping import (
        ModesFile,
        ProposalError,
        group,
        ranked,
        table,
        write_modes,
    )
    from commerce_evals.authoring.notes import NotesFileError, notes_path, read_notes
    from commerce_evals.authoring.roles import RoleError

    try:
        found = [n for log in logs for n in read_notes(notes_path(log))]
    except NotesFileError as err:
        _stop(console, err.problems)
    if not found:
        _stop(
            console, [f"no notes beside {[str(p) for p in logs]}: run `commerce-evals notes` first"]
        )
    proposed, proposer = None, None
    if model_role:
        try:
            proposed, proposer = _propose(found, model_role, console)
        except (RoleError, ProposalError) as err:
            _stop(console, [str(err)])
        answer = ask("a = accept this grouping, e = edit it note by note").strip().lower()
        if answer != "a":
            proposed = assign_loop(found, proposed, ask, console)
    assignment = proposed if proposed else assign_loop(found, None, ask, console)
    modes = group(found, assignment)
    write_modes(out, ModesFile(grouped_by=author, proposed_by=proposer, modes=modes))
    console.print(table(ranked(modes, found)), markup=False)
    console.print(f"wrote {len(modes)} failure modes to {out}")


def register(app: typer.Typer) -> None:
    app.command("notes")(notes)
