"""The `commerce-evals` command. Each command lives in commerce_evals/commands/<name>.py and
registers itself on the app through `register(app)`."""

from __future__ import annotations

import sys
from importlib import import_module
from typing import Any

import typer

from commerce_evals.errors import InputError, report, unwritable


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
)


@app.callback()
def main() -> None:
    """Keeps `commerce-evals <command>` a group even while only one command is registered."""


# One line per command module; keep the list sorted.
COMMANDS: list[str] = ["calibrate", "compare", "diff", "gate", "label", "lint", "search", "trends"]

for _name in COMMANDS:
    import_module(f"commerce_evals.commands.{_name}").register(app)


if __name__ == "__main__":
    app()
