"""How an `expected` key is declared: once, by a decorator on the function that grades it.

    @expected_key("path", "graded turn", PatternList, "every pattern was called", default=EMPTY,
                  patterns=listed)
    def calls_tool(patterns: list[ToolPattern], ctx: GradeContext) -> Verdict: ...

The decorator records the key's part, what it reads, the type its value takes in a case file
(a shape of cases/key_values.py), its doc, and whether it is a negative, an attack key, on by
default, which tables it reads, where its call patterns are and its aliases; the function's name
is the key's name. The judged keys have no grader and are declared with `judged_key`.
`registered(modules)` gathers the declarations of the grader modules in registry order (the order
of declaration, a key of another module placed by `after`): the graders' table, the case model (generated into
cases/expected.py), the lint's and the injection metrics' key lists and the docs' key table are
all read from it (grading/keys.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from commerce_evals.cases.key_values import AliasValue, CallOrder, ToolPattern
from commerce_evals.grading.parts import Part

if TYPE_CHECKING:
    from commerce_evals.grading.graders import GradeContext, Verdict

Reads = Literal["graded turn", "every turn", "end state", "start and end state", "judge"]
# the kinds of table (KeyTables) a key reads: the cart, stored memory, the staged and applied
# change queues
TableKind = Literal["cart", "memory", "staged_changes", "applied_changes"]


# the default of a key whose value is a list: empty (a fresh list per case)
EMPTY: Any = []
PatternsOf = Callable[[Any], list[ToolPattern]]


@dataclass(frozen=True)
class KeySpec:
    """One `expected` key as its declaration gives it."""

    name: str
    part: Part
    reads: Reads
    value: Any  # the value's type, as the case model takes it (cases/key_values.py)
    doc: str
    default: Any = None
    negative: bool = False  # asserts something did NOT happen
    # a negative that a followed injected instruction breaks (the injection metrics' attack keys)
    attack: bool = False
    tables: frozenset[TableKind] = frozenset()  # snapshot tables it reads (state keys)
    patterns: PatternsOf | None = None  # its call patterns, for checking against the tools
    aliases: Mapping[str, AliasValue] = field(default_factory=dict)
    on_by_default: bool = False  # graded on every case unless waived (the closed-world outcome)
    # the key it follows in the registry; None: the key declared before it in its module
    after: str | None = None
    grader: Callable[[Any, GradeContext], Verdict] | None = None  # None: a judged key
    module: str = ""  # where it is declared


# every declaration, in the order the modules were read; `registered` orders and checks them
_DECLARED: dict[str, KeySpec] = {}

G = TypeVar("G", bound=Callable[..., Any])


def expected_key(
    part: Part,
    reads: Reads,
    value: Any,
    doc: str,
    *,
    default: Any = None,
    negative: bool = False,
    attack: bool = False,
    tables: Iterable[TableKind] = (),
    patterns: PatternsOf | None = None,
    aliases: Mapping[str, AliasValue] | None = None,
    on_by_default: bool = False,
    after: str | None = None,
) -> Callable[[G], G]:
    """Declare the decorated grader's key (named after the function), and leave it as it is."""

    def declare(grader: G) -> G:
        _declare(
            KeySpec(
                name=grader.__name__,
                part=part,
                reads=reads,
                value=value,
                doc=doc,
                default=default,
                negative=negative,
                attack=attack,
                tables=frozenset(tables),
                patterns=patterns,
                aliases=dict(aliases or {}),
                on_by_default=on_by_default,
                after=after,
                grader=grader,
                module=grader.__module__,
            )
        )
        return grader

    return declare


def judged_key(name: str, value: Any, doc: str, module: str, default: Any = None) -> None:
    """Declare a key the judges grade (part rubric): it has no grader function here."""
    _declare(KeySpec(name, "rubric", "judge", value, doc, default, module=module))


def _declare(spec: KeySpec) -> None:
    if spec.name in _DECLARED and _DECLARED[spec.name].module != spec.module:
        raise ValueError(f"key {spec.name!r} is declared twice: in {_DECLARED[spec.name].module}")
    if spec.attack and not spec.negative:
        raise ValueError(f"key {spec.name!r}: an attack key is a negative one")
    _DECLARED[spec.name] = spec


def registered(modules: Iterable[str]) -> tuple[KeySpec, ...]:
    """The keys declared in `modules` (every module that declares one), in registry order: the
    order of declaration in the first module; a key of another module goes after the key its
    `after` names, or, without one, after the key declared before it in its module."""
    order = list(modules)
    elsewhere = sorted({s.module for s in _DECLARED.values()} - set(order))
    if elsewhere:
        raise ValueError(f"keys are declared in {elsewhere}, which the registry does not read")
    names: list[str] = []
    for module in order:
        previous: str | None = None
        for spec in (s for s in _DECLARED.values() if s.module == module):
            anchor = spec.after or previous
            if anchor is not None and anchor not in names:
                raise ValueError(
                    f"key {spec.name!r} goes after {anchor!r}, which is no key before it"
                )
            names.insert(names.index(anchor) + 1 if anchor else len(names), spec.name)
            previous = spec.name
    return tuple(_DECLARED[name] for name in names)


# ---- where a key's call patterns are, for checking them against the domain's tools -------------


def listed(value: list[Any]) -> list[ToolPattern]:
    return list(value)


def one(value: ToolPattern | None) -> list[ToolPattern]:
    return [value] if value is not None else []


def orders(value: list[CallOrder]) -> list[ToolPattern]:
    return [p for rule in value for p in (*rule.first, rule.then)]
