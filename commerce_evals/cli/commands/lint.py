"""`commerce-evals lint [PATHS]`: seed 000's authoring rules over case files (datasets/ by default).

Exits 1 naming file, case and rule for every breach (a file that does not load, or holds no case,
is one); 0 when every case passes every rule; 2 when there is nothing to check (a path that does
not exist, a folder with no case file).
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape

from commerce_evals.cli.commands._output import die, plural

if TYPE_CHECKING:  # the rules (and Inspect under them) are imported only when the command runs
    from commerce_evals.lint.runner import Finding


def _shown(path: str) -> str:
    """A path relative to the working directory when it is under it (easier to click)."""
    try:
        return os.path.relpath(path) if Path(path).is_absolute() else path
    except ValueError:
        return path


def render(finding: Finding) -> str:
    return replace(finding, path=_shown(finding.path)).line()


def lint(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="Case files or folders (default: datasets/).", show_default=False),
    ] = None,
    rule: Annotated[
        list[str] | None,
        typer.Option("--rule", "-r", help="Only these rules (repeatable). Default: every rule."),
    ] = None,
    list_rules: Annotated[
        bool, typer.Option("--list-rules", help="Print the rules and what each checks, then exit.")
    ] = False,
) -> None:
    """Check case files against the fixtures and the authoring rules; exit 1 on any breach."""
    from commerce_evals.cases.model import CaseFileError, skip_reason, sort_case_files
    from commerce_evals.domains.base import DATASETS
    from commerce_evals.lint.runner import RULES, check, defaults, load, waivers

    out = Console(highlight=False, soft_wrap=True)
    if list_rules:
        for name, fn in RULES.items():
            doc = " ".join((fn.__doc__ or "").split())
            out.print(f"[bold]{name}[/bold]: {escape(doc)}")
        raise typer.Exit(0)
    unknown = sorted(set(rule or []) - set(RULES))
    if unknown:
        raise typer.BadParameter(f"unknown rules {unknown}; see --list-rules", param_hint="--rule")
    for path in paths or []:
        try:
            sort_case_files(path)  # nothing to check is an error (2), not a clean pass
        except CaseFileError as err:
            die(str(err))
    run = load(paths or [DATASETS])
    findings = check(run, rule)
    if not run.cases and not findings:
        die("no cases found")
    for path in run.skipped:
        out.print(f"[dim]skipped {escape(_shown(str(path)))}: {skip_reason(path)}[/dim]")
    for waiver in waivers(run):
        out.print(f"[dim]waiver: {escape(waiver)}[/dim]")
    for line in defaults(run):
        out.print(f"[dim]defaulted: {escape(line)}[/dim]")
    for finding in findings:
        out.print(escape(render(finding)))
    files = len({c.path for c in run.cases})
    summary = (
        f"{plural(len(run.cases), 'case')} in {plural(files, 'file')}, "
        f"{plural(len(findings), 'problem')}"
    )
    if findings:
        out.print(f"[red]{summary}[/red]")
        raise typer.Exit(1)
    out.print(f"[green]{summary}[/green]")


def register(app: typer.Typer) -> None:
    app.command("lint")(lint)
