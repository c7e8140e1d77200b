"""The `commerce-evals` command. Each command lives in commerce_evals/cli/commands/<name>.py and
registers itself on the app through `register(app)`."""

from __future__ import annotations

import sys
from importlib import import_module
from importlib.metadata import PackageNotFoundError, version
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from commerce_evals.cases.errors import InputError, report, unwritable

try:  # typer 0.2x carries its own copy of click; earlier releases use the click package
    from typer._click import exceptions as click_errors
except ImportError:  # pragma: no cover
    from click import exceptions as click_errors  # type: ignore[no-redef]


class CommandGroup(TyperGroup):
    """A usage mistake (an unknown command or option, a missing argument, a value of the wrong
    type or out of range) is one `error:` line naming the command and its --help, exit 2: click
    would print the usage, a hint and `Error: ...` over four lines. `--help`, and a command or
    group given no arguments, still print the help."""

    def main(  # type: ignore[override]
        self,
        args: Any = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        try:
            code = super().main(args, prog_name, complete_var, False, **extra)
        except click_errors.NoArgsIsHelpError as err:
            err.show()
            sys.exit(err.exit_code)
        except click_errors.UsageError as err:
            command = err.ctx.command_path if err.ctx else prog_name or "commerce-evals"
            message = " ".join(err.format_message().split()).rstrip(".")
            hint = "" if "; see " in message else f"; see {command} --help"
            sys.stderr.write(f"error: {command}: {message}{hint}\n")
            sys.exit(err.exit_code)
        except click_errors.ClickException as err:
            sys.stderr.write(f"error: {err.format_message()}\n")
            sys.exit(err.exit_code)
        except typer.Abort:
            sys.stderr.write("Aborted!\n")
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)


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
    cls=CommandGroup,
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
