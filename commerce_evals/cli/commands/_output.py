"""What the run-pattern commands (diff, gate, compare, trends) share in how they print."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import NoReturn, TypeVar

import typer
from rich.console import Console

T = TypeVar("T")

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


def has_input() -> bool:
    """Whether standard input can be read at all (it is None or closed when a job starts a
    command with no input)."""
    return sys.stdin is not None and not sys.stdin.closed


def is_terminal() -> bool:
    return has_input() and sys.stdin.isatty()


def answer(prompt: Callable[[], T], command: str, awaited: str, fix: str) -> T:
    """A person's answer to a prompt. Input that ends before one (no terminal, a pipe that ran
    dry, Ctrl-D, no standard input at all) is one error line and exit 2, where click would print
    a bare `Aborted!`."""
    ended = f"{command}: input ended before {awaited}; {fix}"
    if not has_input():
        die(ended)
    try:
        return prompt()
    except EOFError:
        sys.stdout.write("\n")  # end the prompt's line, so the error starts a line of its own
        sys.stdout.flush()
        die(ended)
