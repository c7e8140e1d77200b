"""What the run-pattern commands (diff, gate, compare, trends) share in how they print."""

from __future__ import annotations

import sys
from typing import NoReturn

import typer
from rich.console import Console

# 0: fine; 1: the run regressed or missed a threshold; 2: the command could not do its job.
EXIT_OK, EXIT_FAILED, EXIT_ERROR = 0, 1, 2


# Piped output (CI logs, files) gets wide tables rather than columns squeezed to 80.
PIPED_WIDTH = 200


def console() -> Console:
    return Console(
        highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else PIPED_WIDTH
    )


def die(message: str) -> NoReturn:
    Console(stderr=True, highlight=False, soft_wrap=True).print(f"error: {message}", markup=False)
    raise typer.Exit(EXIT_ERROR)


def plural(count: int, noun: str, plural_form: str | None = None) -> str:
    """`1 case`, `2 cases`: a count with its noun in the right number."""
    return f"{count} {noun if count == 1 else plural_form or noun + 's'}"
