"""Errors a user can cause, and how they reach the terminal: a few lines, exit code 2, no traceback.

Every mistake in what a person gives the harness (a task argument, a case file, fixtures,
instructions, a scripted model's arguments, a traffic or label file, a log) raises an `InputError`
whose lines each name the file or argument, the place in it and what to do.

Under `inspect eval` a task-load error is an uncaught exception, so Inspect's excepthook would
print it with a traceback (or, for its own `PrerequisiteError`, through rich markup, which eats
anything in square brackets, and with exit code 1, the code this project keeps for "a threshold
was missed"). So importing this module wraps `sys.excepthook`: an uncaught `InputError` prints as
`error: <lines>` on stderr and exits 2; every other exception goes to the hook that was there
(Inspect's or Python's), whichever order the two hooks were installed in. Called from Python
(`inspect_ai.eval(...)`, tests) an `InputError` is an ordinary `ValueError`.
"""

from __future__ import annotations

import errno
import sys
from types import TracebackType

EXIT_ERROR = 2
# An OSError with one of these, uncaught, is a place the user told the command to write to (a
# --log-dir, an --out) that it cannot: said in one line, not a traceback.
UNWRITABLE = frozenset({errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOTDIR, errno.ENOSPC})


class InputError(ValueError):
    """A user's mistake: one line per problem, each naming the file or argument and the fix."""

    exit_code = EXIT_ERROR

    def __init__(self, problems: str | list[str]):
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        super().__init__("\n".join(self.problems))


def report(error: InputError) -> str:
    """What the terminal shows: `error: ` before the first line, the rest as they are."""
    return f"error: {error}"


def unwritable(error: BaseException) -> InputError | None:
    """An uncaught OSError about a folder or file that cannot be written, as an InputError."""
    if isinstance(error, OSError) and error.errno in UNWRITABLE and error.filename:
        return InputError(
            f"{error.filename}: cannot write here ({error.strerror}); "
            "choose a folder you can write to (--log-dir, --out)"
        )
    return None


# Inspect's own refusal to resume a task source, raised as a bare ValueError with a traceback.
TASK_SOURCE_REFUSED = "A TaskSource is only supported by"


def task_source_refused(error: BaseException) -> InputError | None:
    """`inspect eval-set commerce_evals/case_set ...`: one line saying what to run instead."""
    if isinstance(error, ValueError) and str(error).startswith(TASK_SOURCE_REFUSED):
        return InputError(
            "inspect eval-set cannot run commerce_evals/case_set (a set's tasks are made as it "
            "runs, and eval-set resumes a fixed list); run it with inspect eval "
            "commerce_evals/case_set -T set=NAME, or give eval-set the flow tasks "
            "(docs/run-pattern.md)"
        )
    return None


_previous_hook = sys.excepthook


def _hook(kind: type[BaseException], error: BaseException, traceback: TracebackType | None) -> None:
    shown = (
        error if isinstance(error, InputError) else unwritable(error) or task_source_refused(error)
    )
    if shown is not None:
        sys.stderr.write(report(shown) + "\n")
        sys.stderr.flush()
        raise SystemExit(shown.exit_code)
    _previous_hook(kind, error, traceback)


def install_hook() -> None:
    """Wrap the current excepthook once (idempotent across re-imports)."""
    global _previous_hook
    if (
        getattr(sys.excepthook, "__name__", "") == _hook.__name__
        and getattr(sys.excepthook, "__module__", "") == __name__
    ):
        return
    _previous_hook = sys.excepthook
    sys.excepthook = _hook


install_hook()
