"""The `commerce-evals` command. Each command lives in commerce_evals/cli/commands/<name>.py and
registers itself on the app through `register(app)`."""

from __future__ import annotations

import sys
from importlib import import_module
from importlib.metadata import PackageNotFoundError, version
from typing import Annotated, Any

import typer

from commerce_evals.cases.errors import InputError, report, unwritable


class App(typer.Typer):
    """Any command's InputError (a file or argument the user gave) is one `error:` line, exit 2."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().__call__(*args, **kwargs)
        except InputError as err:
            sys.stderr.write(report(err) + "\n")
            raise SystemExit(err.exit_code) from None
        except OSError as err:
            shown = unwritable(err)
            if shown is None:
                raise
            sys.stderr.write(report(shown) + "\n")
            raise SystemExit(shown.exit_code) from None


app = App(
    help="Author, run-pattern and report tools for commerce-evals (runs are `inspect eval`).",
    no_args_is_help=True,
    add_completion=False,
    # Plain help: the rich renderer of this Typer labels every flag `<bool>` and boxes the
    # text to the terminal's width, which is hard to read at 80 columns.
    rich_markup_mode=None,
)


def installed_version() -> str:
    try:
        return version("commerce-evals")
    except PackageNotFoundError:  # imported from a source tree that was never installed
        return "unknown (not installed)"


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"commerce-evals {installed_version()}")
        raise typer.Exit()


@app.callback()
def main(
    show_version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_print_version,
            is_eager=True,
            help="Print the installed version and exit.",
        ),
    ] = False,
) -> None:
    """Keeps `commerce-evals <command>` a group even while only one command is registered."""


# One line per command module; keep the list sorted.
COMMANDS: list[str] = [
    "calibrate",
    "compare",
    "cost",
    "diff",
    "draft",
    "gate",
    "grade",
    "label",
    "lint",
    "notes",
    "search",
    "serve",
    "summary",
    "trends",
]

for _name in COMMANDS:
    import_module(f"commerce_evals.cli.commands.{_name}").register(app)


if __name__ == "__main__":
    app()
