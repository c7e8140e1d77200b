"""Judge dimensions: the shared ones (a prompt file each in commerce_evals/judging/prompts/) and a case's rubric.

A dimension file is markdown with a YAML front matter block:

    ---
    name: budget_respected          # must equal the file name (without .md)
    title: Budget respected
    needs_context: false            # true: needs the World's judge context (a policy, say)
    part: rubric                    # path: its verdict is a path grade (a "never" done in words)
    ---
    ## Criterion ... ## Pass ... ## Fail ... ## Examples (one of them borderline)

The body is what the judge reads as its criterion. Files whose name starts with `_` are templates,
not dimensions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationError

from commerce_evals.cases.errors import InputError
from commerce_evals.cases.model import Expected
from commerce_evals.cases.reading import ReadError, parse_yaml, read_text
from commerce_evals.core.strict import Strict

JUDGES_DIR = Path(__file__).resolve().parent / "prompts"
RUBRIC = "rubric"
NAME = r"^[a-z][a-z0-9_]*$"
REQUIRED_SECTIONS = ("criterion", "pass", "fail", "examples")
_FRONT_MATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*\n(.*)\Z", re.DOTALL)
_HEADING = re.compile(r"^##\s+(.+?)\s*$", re.MULTILINE)


class DimensionFileError(InputError):
    """A dimension file that does not load, naming the file and what is wrong."""


# The parts of a score a judged verdict may count under: the rubric (what the reply says, judged),
# or the path, for a "never" a run can do in its words as well as by a call (seed 001: "A run that
# reaches the result by a never fails the task"; asking who the buyer is, saying money arrived).
JudgedPart = Literal["rubric", "path"]


class DimensionMeta(Strict):
    name: str = Field(pattern=NAME)
    title: str = Field(min_length=1)
    needs_context: bool = False
    part: JudgedPart = "rubric"


@dataclass(frozen=True)
class Dimension:
    """One thing a judge decides. `criterion` is the text the judge reads; `source` says where from."""

    name: str
    title: str
    criterion: str
    needs_context: bool
    source: str
    part: JudgedPart = "rubric"


def parse_dimension_file(path: Path) -> Dimension:
    try:
        text = read_text(path, what="dimension file")
    except ReadError as err:
        raise DimensionFileError(err.problems) from err
    match = _FRONT_MATTER.match(text)
    if not match:
        raise DimensionFileError(f"{path}: needs a front matter block between '---' lines")
    try:
        meta = DimensionMeta.model_validate(parse_yaml(match.group(1), str(path)) or {})
    except ReadError as err:
        raise DimensionFileError(err.problems) from err
    except ValidationError as err:
        first = err.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or "(front matter)"
        raise DimensionFileError(f"{path}: front matter: {where}: {first['msg']}") from err
    if meta.name != path.stem:
        raise DimensionFileError(f"{path}: name {meta.name!r} differs from the file name")
    body = match.group(2).strip()
    headings = [h.casefold() for h in _HEADING.findall(body)]
    missing = [s for s in REQUIRED_SECTIONS if not any(h.startswith(s) for h in headings)]
    if missing:
        raise DimensionFileError(f"{path}: missing sections {missing} (as '## <Section>' headings)")
    examples = body[body.casefold().index("## examples") :]
    if "borderline" not in examples.casefold():
        raise DimensionFileError(f"{path}: the examples need at least one marked borderline")
    return Dimension(
        name=meta.name,
        title=meta.title,
        criterion=body,
        needs_context=meta.needs_context,
        source=str(path.relative_to(JUDGES_DIR.parent.parent))
        if path.is_relative_to(JUDGES_DIR.parent.parent)
        else str(path),
        part=meta.part,
    )


@lru_cache(maxsize=1)
def shared_dimensions() -> dict[str, Dimension]:
    """Every shared dimension in the package, by name. Raises on the first bad file."""
    return {
        path.stem: parse_dimension_file(path)
        for path in sorted(JUDGES_DIR.glob("*.md"))
        if not path.stem.startswith("_")
    }


def part_of(dimension: str) -> JudgedPart:
    """The part a dimension's verdict counts under: the case's rubric and an unknown name are the
    rubric's, a shared dimension says its own."""
    shared = shared_dimensions().get(dimension)
    return shared.part if shared is not None else "rubric"


@lru_cache(maxsize=1)
def rubric_wrapper() -> str:
    """Read once per process: every judged case's rubric is wrapped in it."""
    return (JUDGES_DIR / "_rubric.md").read_text(encoding="utf-8")


def rubric_dimension(rubric: str) -> Dimension:
    """A case's own rubric as a dimension named `rubric` (the wrapper tells the judge how to read it)."""
    criterion = rubric_wrapper().replace("{{rubric}}", rubric.strip()).strip()
    return Dimension(
        name=RUBRIC,
        title="The case's rubric",
        criterion=criterion,
        needs_context=False,
        source="case",
    )


# Judged on every case whenever a grader is bound (a case need not name them): what the agent
# says happened against the change set, and the facts it states against the tool results.
EVERY_CASE = ("claims_match_state", "no_invented_facts")


def every_case_dimensions(expected: Expected) -> list[Dimension]:
    """The shared dimensions every case gets when judged, less those it already names."""
    shared = shared_dimensions()
    return [shared[n] for n in EVERY_CASE if n not in expected.dimensions]


def dimensions_for(expected: Expected) -> tuple[list[Dimension], list[str]]:
    """The dimensions a case asks for, in order (rubric first), and the names that do not exist."""
    found: list[Dimension] = []
    unknown: list[str] = []
    if expected.rubric:
        found.append(rubric_dimension(expected.rubric))
    shared = shared_dimensions()
    for name in expected.dimensions:
        if name in shared:
            found.append(shared[name])
        else:
            unknown.append(name)
    return found, unknown


_PASS = re.compile(r"\bPASS\b")
_FAIL = re.compile(r"\bFAIL\b")


def rubric_wording_problem(rubric: str) -> str | None:
    """Why a rubric is not one PASS condition and one FAIL condition, or None: the judge reads
    exactly one of each (see prompts/_rubric.md); the load check and the lint both ask here."""
    passes, fails = len(_PASS.findall(rubric)), len(_FAIL.findall(rubric))
    if passes == 1 and fails == 1:
        return None
    return (
        f"the rubric has {passes} PASS and {fails} FAIL conditions; it needs one PASS condition "
        "and one FAIL condition ('PASS if <condition>. FAIL if <condition>.')"
    )


def check_expected(expected: Expected, judge_context: str | None = None) -> list[str]:
    """Problems with a case's judged keys, one line each, for load-time validation: the rubric's
    wording, then the dimensions it names (see dimension_problems)."""
    wording = rubric_wording_problem(expected.rubric) if expected.rubric is not None else None
    rubric = [f"expected.rubric: {wording}"] if wording else []
    return rubric + dimension_problems(expected, judge_context)


def dimension_problems(expected: Expected, judge_context: str | None = None) -> list[str]:
    """Dimensions a case names that could never be judged: unknown, named twice, or the rubric.

    With `judge_context` given (the World's), a dimension that needs context is refused when the
    domain supplies none.
    """
    problems: list[str] = []
    shared = shared_dimensions()
    seen: set[str] = set()
    for name in expected.dimensions:
        if name == RUBRIC:
            problems.append(
                "expected.dimensions: 'rubric' is the case's own rubric key, not a name"
            )
        elif name not in shared:
            problems.append(
                f"expected.dimensions: no judge named {name!r}; judges: {sorted(shared)}"
            )
        elif shared[name].needs_context and judge_context is not None and not judge_context.strip():
            problems.append(
                f"expected.dimensions: {name!r} needs the domain's judge context "
                "(World.judge_context()), and this domain supplies none"
            )
        if name in seen:
            problems.append(f"expected.dimensions: {name!r} is named twice")
        seen.add(name)
    return problems
