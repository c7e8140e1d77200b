"""The `commerce-evals` command. Each command lives in commerce_evals/commands/<name>.py and
registers itself on the app through `register(app)`."""

from __future__ import annotations

from importlib import import_module

import typer

app = typer.Typer(
    help="Author, run-pattern and report tools for commerce-evals (runs are `inspect eval`).",
    no_args_is_help=True,
    add_completion=False,
)


@app.callback()
def main() -> None:
    """Keeps `commerce-evals <command>` a group even while only one command is registered."""


# One line per command module; keep the list sorted.
COMMANDS: list[str] = [
    "calibrate",
    "compare",
    "diff",
    "draft",
    "gate",
    "label",
    "lint",
    "notes",
    "search",
    "trends",
]

for _name in COMMANDS:
    import_module(f"commerce_evals.commands.{_name}").register(app)


if __name__ == "__main__":
    app()
