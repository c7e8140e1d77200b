"""The case shape (seed 000's, plus reference and counterexample runs) and the case-file loader."""

from __future__ import annotations

import copy
import difflib
import os
import re
import unicodedata
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator, model_validator

from commerce_evals.cases.asking import EMPTY_LEXICON, Lexicon, domain_lexicon
from commerce_evals.cases.customer import Conversation, Customer, play_script
from commerce_evals.cases.errors import InputError
from commerce_evals.cases.expected import Expected
from commerce_evals.cases.key_values import status_names
from commerce_evals.cases.reading import ReadError, parse_data, read_text
from commerce_evals.cases.scripts import ScriptedTurn
from commerce_evals.cases.seed_format import is_seed_task, seed_task_to_case
from commerce_evals.core.flow_table import FLOWS
from commerce_evals.core.strict import Strict

# ASCII: `\d` alone also matches full-width and other digits, twins of an ASCII id
# a case of a locale's store names the locale after its flow: checkout-ja-001-... (domains/locales.py)
CASE_ID = re.compile(
    r"^[a-z][a-z0-9_]*(?:-(?P<locale>[a-z]{2}))?-\d{3}-[a-z0-9][a-z0-9-]*$", re.ASCII
)
# Seed 003's task ids (`identity-missing`), accepted as written for tasks in its format; their flow
# is the folder or file they sit in (datasets/support/...), kept in `flow_name`.
SEED_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$", re.ASCII)


class Counterexample(Strict):
    """A scripted bad run that must fail exactly the keys it names.

    `turns` replaces the last len(turns) turns of the reference; earlier turns replay the reference.
    In a case with a `customer`, `turns` is the whole agent side of the run (how long a
    conversation lasts depends on what the agent asks).
    """

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    breaks: list[str] = Field(default_factory=list)
    turns: list[ScriptedTurn] = Field(min_length=1)
    note: str = ""
    # `skip: draft`: drafted (commerce-evals draft cheats), not yet confirmed by a person; runs
    # leave it out, and its `breaks` may be empty (a cheat no grader fails yet)
    skip: str | None = None

    @model_validator(mode="after")
    def _breaks_named(self) -> Counterexample:
        if not self.breaks and self.skip is None:
            raise ValueError("breaks: name the keys this bad run fails (at least one)")
        return self

    @field_validator("breaks", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        values = [value] if isinstance(value, str) else value
        # an alias names its key: a counterexample may still say `before` for `call_order`
        return [Expected.canonical(v) if isinstance(v, str) else v for v in values]


class Alternative(Strict):
    """A scripted good run that differs from the reference and must pass every key.

    Other wording or formats of the same facts, an extra read-only lookup, another valid order of
    calls: what a careful reviewer would accept. `turns` replaces the last len(turns) turns of the
    reference, as a counterexample's do. Each alternative is also an oracle for the end state: a
    run passes the closed-world outcome when its changes match the reference's or any alternative's.
    """

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    turns: list[ScriptedTurn] = Field(min_length=1)
    note: str = ""


# Characters that show nothing: spaces and line breaks of every kind, zero-width and other
# format characters (U+200B, U+FEFF, ...), control characters.
INVISIBLE = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp"})


def says_nothing(text: str) -> bool:
    """Whether a message shows no character at all (only spaces, zero-width or control
    characters): an empty user turn however it is written."""
    return all(c.isspace() or unicodedata.category(c) in INVISIBLE for c in text)


class UserTurn(Strict):
    """A scripted user message, and the writes it consents to (tool names, `"*"` for any).

    Consent is declared by the case, never guessed from the text: `{say: "Yes, place it.",
    confirms: [place_order]}`. A plain string says the same with nothing confirmed.
    """

    say: str = Field(min_length=1)
    confirms: list[str] = Field(default_factory=list)


class Case(Strict):
    id: str
    priority: Literal["critical", "high", "medium", "low"]
    difficulty: Literal["easy", "medium", "hard"]
    # the fields above that a seed-format task did not carry and took a default for
    # (seed_format.DEFAULTS); the lint and the run summary name them
    defaulted: list[Literal["priority", "difficulty"]] = Field(default_factory=list)
    flow_name: str | None = None
    tags: list[str] = Field(default_factory=list)
    niche: str | None = None
    skip: str | None = None
    purpose: str = ""
    should: Literal["do", "ask", "refuse", "escalate", "answer"] | None = None
    state: dict[str, Any] = Field(default_factory=dict)
    turns: list[str] = Field(min_length=1)
    # per turn, the writes that turn's user message consents to (from `{say, confirms}` turns)
    confirms: list[list[str]] = Field(default_factory=list)
    expected: Expected
    # invariants of the domain this case does not hold, each with the reason
    waive: dict[str, str] = Field(default_factory=dict)
    notes: str = ""
    reference: list[ScriptedTurn] | None = None
    alternatives: list[Alternative] = Field(default_factory=list)
    counterexamples: list[Counterexample] = Field(default_factory=list)
    # who sends the turns after the first (cases/customer.py); None: every turn is scripted
    customer: Customer | None = None

    @model_validator(mode="before")
    @classmethod
    def _split_turns(cls, data: Any) -> Any:
        """`{say, confirms}` turns become the message text plus `confirms`, aligned by turn."""
        turns = data.get("turns") if isinstance(data, dict) else None
        if not isinstance(turns, list) or not any(isinstance(t, dict) for t in turns):
            return data
        parsed = [UserTurn.model_validate(t) if isinstance(t, dict) else t for t in turns]
        return {
            **data,
            "turns": [t.say if isinstance(t, UserTurn) else t for t in parsed],
            "confirms": [t.confirms if isinstance(t, UserTurn) else [] for t in parsed],
        }

    @field_validator("turns")
    @classmethod
    def _turns_say_something(cls, value: list[str]) -> list[str]:
        blank = [str(i) for i, turn in enumerate(value) if says_nothing(turn)]
        if blank:
            raise ValueError(f"turns.{blank[0]}: an empty user turn; write what the user says")
        return value

    @field_validator("waive")
    @classmethod
    def _waivers_have_reasons(cls, value: dict[str, str]) -> dict[str, str]:
        for name, reason in value.items():
            if len(reason.strip()) < 8:
                raise ValueError(f"waive.{name}: say why the case waives it")
        return value

    @model_validator(mode="after")
    def _id_shape(self) -> Case:
        seed_id = self.flow_name is not None and SEED_ID.match(self.id)
        if not CASE_ID.match(self.id) and not seed_id:
            raise ValueError(f"id {self.id!r} does not match <flow>-<nnn>-<behavior>")
        return self

    @field_validator("skip")
    @classmethod
    def _skip_has_reason(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("skip needs a reason")
        return value

    @model_validator(mode="after")
    def _scripts_fit(self) -> Case:
        if self.reference is None and self.skip is None:
            raise ValueError("reference: every runnable case needs a reference run")
        if self.customer is not None:
            self.customer.bind(self.lexicon())
        self._reveal_keys_fit()
        self._statuses_fit()
        if self.customer is not None:
            return self._customer_scripts_fit(self.customer)
        if self.reference is not None and len(self.reference) != len(self.turns):
            raise ValueError(
                f"reference: {len(self.reference)} scripted turns for {len(self.turns)} turns"
            )
        if self.confirms and len(self.confirms) != len(self.turns):
            raise ValueError(f"confirms: {len(self.confirms)} entries for {len(self.turns)} turns")
        keys = set(self.expected.asserted_keys())
        registry = set(Expected.model_fields)
        names: set[str] = set()
        for alt in self.alternatives:
            if alt.name in names:
                raise ValueError(f"alternatives: name {alt.name!r} is used twice")
            names.add(alt.name)
            if len(alt.turns) > len(self.turns):
                raise ValueError(f"alternatives.{alt.name}.turns: more turns than the case has")
        for cx in self.counterexamples:
            if cx.name in names:
                raise ValueError(f"counterexamples: name {cx.name!r} is used twice")
            names.add(cx.name)
            if len(cx.turns) > len(self.turns):
                raise ValueError(f"counterexamples.{cx.name}.turns: more turns than the case has")
            # a name that is no key is a domain invariant, checked against the domain (base.py)
            unknown = [k for k in cx.breaks if k in registry and k not in keys]
            if unknown:
                raise ValueError(
                    f"counterexamples.{cx.name}.breaks: {unknown} are not keys this case asserts"
                )
        return self

    def _reveal_keys_fit(self) -> None:
        """`asks_before`, `never_asks` and `asks_for` name reveals of the case's customer, or,
        in a case without one, `never_asks` and `asks_for` name topics of its domain."""
        asked_for = [n for e in self.expected.asks_for for n in ([e] if isinstance(e, str) else e)]
        named = [
            *(("asks_before", r) for rule in self.expected.asks_before for r in rule.reveals),
            *(("never_asks", r) for r in self.expected.never_asks),
            *(("asks_for", r) for r in asked_for),
        ]
        written = sorted({"asks_before", "never_asks", "asks_for"} & self.expected.model_fields_set)
        if not written:
            return
        if self.customer is None and "asks_before" in written:
            raise ValueError(
                "expected.asks_before: only a case with a `customer` can grade what the agent "
                "asked before acting; add a customer with the reveals it names"
            )
        if self.customer is None:
            topics = self.lexicon().topics
            unknown = [f"{key}: {name}" for key, name in named if name not in topics]
            if unknown:
                raise ValueError(
                    f"expected: {unknown} name no topic of the {self.domain!r} domain "
                    f"(domains/{self.domain}/asking.yaml: {sorted(topics)}); a case with a "
                    "`customer` may name its reveals instead"
                )
            return
        known = {r.name for r in self.customer.reveals}
        unknown = [f"{key}: {name}" for key, name in named if name not in known]
        if unknown:
            raise ValueError(
                f"expected: {unknown} name no reveal of the customer (reveals: {sorted(known)})"
            )

    def _statuses_fit(self) -> None:
        """A typed status belongs to the case's domain's table (grading/statuses.py)."""
        names = set(status_names(self.domain if self.flow in FLOWS else None))
        facts = [*self.expected.reply_states, *self.expected.reply_denies]
        foreign = sorted({f.status for f in facts if f.status and f.status not in names})
        if foreign:
            raise ValueError(
                f"expected: status {foreign} is not a status of the {self.domain!r} domain "
                f"(grading/statuses.py: {sorted(names)})"
            )

    def _customer_scripts_fit(self, customer: Customer) -> Case:
        """A customer case has one scripted turn; its reference and alternatives are whole
        conversations the scripted customer carries to their end, turn for turn."""
        if len(self.turns) != 1:
            raise ValueError(
                f"turns: a case with a customer has only its first turn scripted, found "
                f"{len(self.turns)} (later turns come from the customer's reveals)"
            )
        names: set[str] = set()
        variants: list[Alternative | Counterexample] = [*self.alternatives, *self.counterexamples]
        for variant in variants:
            if variant.name in names:
                raise ValueError(f"variants: name {variant.name!r} is used twice")
            names.add(variant.name)
            if len(variant.turns) > customer.max_turns:
                raise ValueError(
                    f"{variant.name}.turns: {len(variant.turns)} turns, over the customer's "
                    f"max_turns ({customer.max_turns})"
                )
        keys = set(self.expected.asserted_keys())
        registry = set(Expected.model_fields)
        for cx in self.counterexamples:
            unknown = [k for k in cx.breaks if k in registry and k not in keys]
            if unknown:
                raise ValueError(
                    f"counterexamples.{cx.name}.breaks: {unknown} are not keys this case asserts"
                )
        oracles = [("reference", self.reference or [])]
        oracles += [(f"alternatives.{a.name}", a.turns) for a in self.alternatives]
        for where, script in oracles if self.reference is not None else []:
            self._check_conversation(where, script)
        return self

    def _check_conversation(self, where: str, script: list[ScriptedTurn]) -> None:
        talk = self.conversation(script)
        if len(talk.turns) < len(script):
            raise ValueError(
                f"{where}: the scripted customer ends the conversation ({talk.ended}) after "
                f"turn {len(talk.turns)} of {len(script)}: turn {len(talk.turns)}'s reply must "
                "ask for a reveal (with one of its topics, in a question)"
            )
        if talk.ended is None:
            raise ValueError(
                f"{where}: the last reply asks the customer something, so the conversation "
                "would go on past the script: end it with a reply that asks nothing"
            )
        unanswered = [i + 1 for i, names in enumerate(talk.answered) if not names]
        if unanswered:
            raise ValueError(
                f"{where}: turn {unanswered[0]}'s reply asks for no declared reveal, so the "
                "customer would say it does not know: ask with one of a reveal's topics"
            )

    def conversation(self, script: list[ScriptedTurn]) -> Conversation:
        """The user turns of a scripted run: the case's own, or the scripted customer's answers
        to the script's replies."""
        if self.customer is None:
            turns = tuple((t, self.confirmed(i)) for i, t in enumerate(self.turns))
            return Conversation(turns[: len(script)] if script else turns, None)
        return play_script(
            self.customer, self.turns[0], self.confirmed(0), [t.spoken() for t in script]
        )

    def confirmed(self, turn: int) -> frozenset[str]:
        """The writes turn `turn` (0-based) consents to, as the case declares them."""
        return frozenset(self.confirms[turn]) if turn < len(self.confirms) else frozenset()

    @property
    def domain(self) -> str:
        spec = FLOWS.get(self.flow)
        return spec.domain if spec is not None else self.flow

    def lexicon(self) -> Lexicon:
        """The asking words of the case's domain (cases/asking.py)."""
        return domain_lexicon(self.domain) if self.flow in FLOWS else EMPTY_LEXICON

    @property
    def flow(self) -> str:
        if CASE_ID.match(self.id) or self.flow_name is None:
            return self.id.split("-", 1)[0]
        return self.flow_name

    @property
    def locale(self) -> str:
        """The store's language the case is written for: `ja` of checkout-ja-001-..., else en."""
        match = CASE_ID.match(self.id)
        return (match.group("locale") if match else None) or "en"

    def script(self, variant: str | None = None) -> list[ScriptedTurn]:
        """The run a scripted model replays: the reference, or one counterexample or alternative
        (names are unique across both) laid over it."""
        reference = self.reference or []
        if variant is None:
            return reference
        scripted: list[Counterexample | Alternative] = [*self.counterexamples, *self.alternatives]
        chosen = next(v for v in scripted if v.name == variant)
        if self.customer is not None:
            return chosen.turns
        return reference[: len(self.turns) - len(chosen.turns)] + chosen.turns

    def oracle_scripts(self) -> list[list[ScriptedTurn]]:
        """Every run that is right by definition: the reference, then each alternative."""
        if self.reference is None:
            return []
        return [self.reference, *(self.script(a.name) for a in self.alternatives)]


class CaseFileError(InputError):
    """Every problem in one or more case files, one line each naming file, case and field."""

    def __init__(self, problems: list[str]):
        super().__init__(problems)


CASE_SUFFIXES = (".yaml", ".yml", ".json")  # in any case: b.YAML is a case file
# The top-level keys of a case file that is a mapping (a list of cases, or one case, is the rest).
CASE_FILE_KEYS = ("cases", "defaults")
MAX_CASE_FILE_BYTES = 8 * 1024 * 1024
# Top-level keys of the other files that live beside case files (the run sets file, the price
# table): a file in a folder holding one of them, and neither `cases:` nor `id:`, is not a case file.
OTHER_FILE_KEYS = frozenset({"sets", "models"})


def _location(loc: tuple[Any, ...]) -> str:
    return ".".join(str(part) for part in loc) or "(case)"


def _read_data(path: Path) -> Any:
    try:
        text = read_text(path, MAX_CASE_FILE_BYTES, "case file")
        # a copy: cases keep references to the parsed values (state rows, call arguments)
        return copy.deepcopy(_parse_case_text(text, path))
    except ReadError as err:
        raise CaseFileError(err.problems) from err


@lru_cache(maxsize=32)
def _parse_case_text(text: str, path: Path) -> Any:
    """Parsed once per text: sorting a folder reads each file, and loading it reads it again."""
    return parse_data(text, path)


def _read_entries(path: Path) -> list[Any]:
    data = _read_data(path)
    if data is None:
        raise CaseFileError(
            [f"{path}: the file holds no cases (it is empty); add cases or remove it"]
        )
    if isinstance(data, dict) and "cases" in data:
        _check_top_level(data, path)
        defaults = data.get("defaults") or {}
        data = data["cases"]
        if isinstance(data, list):
            # keys every entry gets unless it sets them (seed tasks have no priority/difficulty)
            data = [{**defaults, **e} if isinstance(e, dict) else e for e in data]
    elif isinstance(data, dict) and ("id" in data or is_seed_task(data)):
        data = [data]
    elif isinstance(data, dict):
        keys = ", ".join(sorted(map(str, data))[:5])
        raise CaseFileError(
            [
                f"{path}: expected a list of cases, a mapping with 'cases:', or one case with "
                f"'id:'; found the keys {keys}"
            ]
        )
    if not isinstance(data, list):
        raise CaseFileError([f"{path}: expected a list of cases or a mapping with 'cases:'"])
    if not data:
        raise CaseFileError([f"{path}: the file holds no cases (an empty list); add cases"])
    return data


def _check_top_level(data: dict[Any, Any], path: Path) -> None:
    """Beside `cases:` only `defaults:` (a mapping): a typo there would be ignored otherwise."""
    for key in data:
        if key not in CASE_FILE_KEYS:
            near = difflib.get_close_matches(str(key), CASE_FILE_KEYS, n=1)
            hint = f"did you mean {near[0]}:? " if near else ""
            raise CaseFileError(
                [
                    f"{path}: {key}: not a key of a case file; {hint}"
                    f"its top-level keys are {', '.join(CASE_FILE_KEYS)}"
                ]
            )
    if "defaults" in data and not isinstance(data["defaults"], dict):
        raise CaseFileError([f"{path}: defaults: expected a mapping of case keys every case gets"])


def flow_of_path(path: Path | str) -> str | None:
    """The flow a file belongs to by where it sits: datasets/<flow>/x.yaml, <flow>.yaml, or the
    nearest folder above it named after a flow (datasets/support/seed_003/x.yaml)."""
    path = Path(path)
    names = (path.parent.name, path.stem, *(p.name for p in path.parents[1:]))
    return next((n for n in names if n in FLOWS), None)


def parse_case(entry: Any, path: Path | str, index: int, flow: str | None = None) -> Case:
    """Validate one entry; raise CaseFileError naming file, case and field.

    A seed-format task whose id is not <flow>-<nnn>-<behavior> takes its flow from `flow` or from
    where its file sits."""
    case_id = entry.get("id", f"#{index + 1}") if isinstance(entry, dict) else f"#{index + 1}"
    if not isinstance(entry, dict):
        raise CaseFileError([f"{path}: case {case_id}: (case): expected a mapping"])
    try:
        if is_seed_task(entry):
            entry = seed_task_to_case(entry)
            if not CASE_ID.match(str(entry["id"])):
                entry["flow_name"] = flow or flow_of_path(path)
        return Case.model_validate(entry)
    except ValidationError as err:
        raise CaseFileError(
            [
                f"{path}: case {case_id}: {_location(e['loc'])}: {e['msg']}"
                for e in err.errors(include_url=False)
            ]
        ) from err
    except ValueError as err:
        raise CaseFileError([f"{path}: case {case_id}: {err}"]) from err


def load_cases(paths: list[Path]) -> list[Case]:
    """Load case files; collect every problem across them and raise once if there are any."""
    return [case for _, case in load_case_sources(paths)]


def load_case_sources(paths: list[Path], flow: str | None = None) -> list[tuple[Path, Case]]:
    """Each valid case with the file it came from; every problem raised together."""
    problems: list[str] = []
    cases: list[tuple[Path, Case]] = []
    seen: dict[str, Path] = {}
    for path in paths:
        try:
            entries = _read_entries(path)
        except CaseFileError as err:
            problems.extend(err.problems)
            continue
        for index, entry in enumerate(entries):
            try:
                case = parse_case(entry, path, index, flow)
            except CaseFileError as err:
                problems.extend(err.problems)
                continue
            if case.id in seen:
                problems.append(f"{path}: case {case.id}: id: duplicate (first in {seen[case.id]})")
                continue
            seen[case.id] = path
            cases.append((path, case))
    if problems:
        raise CaseFileError(problems)
    return cases


# How an Inspect log written as JSON (--log-format json) begins: its version, then its status.
INSPECT_JSON_LOG = re.compile(rb'^\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:')


def is_inspect_log(path: Path) -> bool:
    """An Inspect log: a `.eval` file, or a JSON file that starts as Inspect writes its logs."""
    if path.suffix.lower() == ".eval":
        return True
    if path.suffix.lower() != ".json" or not path.is_file():
        return False
    with path.open("rb") as handle:
        return bool(INSPECT_JSON_LOG.match(handle.read(200).removeprefix(b"\xef\xbb\xbf")))


def is_case_file(path: Path) -> bool:
    """Whether a file met in a folder is a case file: anything but a mapping that holds another
    kind of file's keys (`sets:`, `models:`) and neither `cases:` nor `id:`, or an Inspect log.
    A file that does not read counts as a case file, so its error is reported; so does a typo
    such as `caes:`."""
    if is_inspect_log(path):
        return False
    try:
        data = _read_data(path)
    except CaseFileError:
        return True
    if not isinstance(data, dict) or "cases" in data or "id" in data:
        return True
    return not OTHER_FILE_KEYS & set(map(str, data))


def has_case_suffix(path: Path) -> bool:
    return path.suffix.lower() in CASE_SUFFIXES


def skip_reason(path: Path) -> str:
    """Why a file in a case folder is not read as cases (sort_case_files' other files)."""
    if not has_case_suffix(path):
        return f"not a case file (its name does not end in {', '.join(CASE_SUFFIXES)})"
    if is_inspect_log(path):
        return "an Inspect log, not a case file"
    keys = " or ".join(f"{key}:" for key in sorted(OTHER_FILE_KEYS))
    return f"not a case file (it holds {keys} and no cases:)"


def _broken_link(path: Path) -> str:
    return f"{path}: a symbolic link to {os.readlink(path)}, which does not exist; fix or remove it"


def entries_under(folder: Path) -> list[Path]:
    """Every entry under a folder that is not a folder, sorted, read through linked folders too:
    a link to a folder of cases brings its cases as a link to a file does (a plain rglob passes
    a linked folder by without a word). A link back to a folder already walked is not walked
    again."""
    found: list[Path] = []
    walked: set[str] = set()
    for root, folders, files in os.walk(folder, followlinks=True):
        real = os.path.realpath(root)
        if real in walked:
            folders[:] = []
            continue
        walked.add(real)
        found.extend(Path(root) / name for name in files)
    return sorted(found)


def _dangling(entries: list[Path]) -> list[str]:
    """Symbolic links under a case folder whose target is gone: an error, never a skip."""
    return [_broken_link(p) for p in entries if p.is_symlink() and not p.exists()]


def _named_file(path: Path) -> list[Path]:
    if path.is_symlink() and not path.exists():
        raise CaseFileError([_broken_link(path)])
    if not path.exists():
        raise CaseFileError([f"{path}: no such case file or folder"])
    if is_inspect_log(path):
        raise CaseFileError(
            [
                f"{path}: an Inspect log, not a case file; give case files (*.yaml, *.yml, "
                "*.json), and read logs with inspect view or commerce-evals gate, diff, compare"
            ]
        )
    return [path]


def sort_case_files(path: Path) -> tuple[list[Path], list[Path]]:
    """(case files, other files) under a folder, or the one file named; sorted for a stable
    order. Case-file suffixes match in any case; every other file is returned with the others
    (skip_reason says why), and a dangling symbolic link is an error. A path that does not
    exist, or a folder with no case file, is a CaseFileError. eval and lint both read folders
    through this, so they agree on what a case file is."""
    if not path.is_dir():
        return _named_file(path), []
    entries = entries_under(path)
    broken = _dangling(entries)
    if broken:
        raise CaseFileError(broken)
    found = [p for p in entries if p.is_file()]
    cases = [p for p in found if has_case_suffix(p) and is_case_file(p)]
    if not cases:
        raise CaseFileError(
            [f"{path}: no case files in this folder (looked for *.yaml, *.yml, *.json)"]
        )
    return cases, [p for p in found if p not in cases]


def case_files(path: Path) -> list[Path]:
    """A case file, or every case file under a folder (see sort_case_files)."""
    return sort_case_files(path)[0]
