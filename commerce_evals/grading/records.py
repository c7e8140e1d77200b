"""The records a run saw or changed, and where a reply names them.

A record is any object with an id that the agent was shown (a tool result, the screen the
session context rendered) or that the run left behind (the start and end snapshots): a product,
an order, an offer, a refund, a vehicle, a staged change. Its fields keep every value observed,
in the order observed, so a price seen earlier and the price a tool gave later both belong to it.

A reply names a record by its id, by its name, or by a short name: a run of one to three words
of its name that no other record of the run shares ("the Stargazer", "the Dutch oven"). Only the
run's own records are candidates, so a short name is unambiguous within what the agent saw.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from commerce_evals.facts import normalise
from commerce_evals.grading.row_reading import (
    CONTAINERS,
    NAME,
    NEW,
    PARENT,
    READINGS,
    TEXT,
    VALUE,
    Reading,
    RowKey,
    Step,
    Tape,
    id_field_of,
    read_row,
)
from commerce_evals.japanese.text import is_japanese, token_pattern

T = TypeVar("T")

# words of a name that never name a record on their own
_GENERIC = frozenset(
    [
        "the",
        "a",
        "an",
        "and",
        "or",
        "of",
        "for",
        "with",
        "in",
        "on",
        "to",
        "by",
        "set",
        "pack",
        "pair",
        "kit",
        "size",
        "inch",
        "inches",
        "qt",
        "oz",
        "lb",
        "mm",
        "cm",
        "new",
        "one",
        "two",
        "three",
        "item",
        "items",
        "product",
        "order",
        "offer",
        "car",
        "vehicle",
        "color",
        "colour",
        "style",
        "model",
        "edition",
        "plus",
        "pro",
        "max",
        "mini",
        "large",
        "small",
        "medium",
    ]
)
# words of a yes/no field's name that say nothing on their own ("is_final", "has_")
_FLAG_GENERIC = frozenset(
    {
        "ready",
        "compatible",
        "included",
        "needs",
        "need",
        "required",
        "safe",
        "true",
        "flag",
        "changed",
        "simulated",
        "verified",
    }
)
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'.+-]*[A-Za-z0-9+]|[A-Za-z0-9]")


@dataclass
class Record:
    id: str
    names: set[str] = field(default_factory=set)
    # field path -> every value observed, in order
    values: dict[str, list[Any]] = field(default_factory=dict)
    # what its texts say, by where they stand: "reviews" (each review's text), "description"
    texts: dict[str, list[str]] = field(default_factory=dict)
    # every text value of its fields, kept by `observe` (see `strings`); not an argument, so it
    # cannot disagree with `values`
    _strings: set[str] = field(default_factory=set, init=False, repr=False, compare=False)

    def read_text(self, where: str, text: str) -> None:
        seen = self.texts.setdefault(where, [])
        if text not in seen:
            seen.append(text)

    def observe(self, path: str, value: Any) -> None:
        seen = self.values.setdefault(path, [])
        if value not in seen:
            seen.append(value)
            if isinstance(value, str):
                self._strings.add(value)

    def strings(self) -> AbstractSet[str]:
        """Every text value of its fields (what may name another record). Read it only."""
        return self._strings

    def latest(self, path: str) -> Any:
        seen = self.values.get(path)
        return seen[-1] if seen else None

    def fields(self, *suffixes: str) -> Iterator[tuple[str, Any]]:
        """Every (path, value) whose last path part is one of `suffixes` (all when none)."""
        for path, seen in self.values.items():
            leaf = path.rsplit(".", 1)[-1]
            if not suffixes or leaf in suffixes:
                for value in seen:
                    yield path, value

    def flag_words(self) -> list[tuple[str, str, frozenset[bool]]]:
        """(word, field, value) for each true-or-false field, by the words of its name that no
        other such field of the record shares ("dimmable"; "induction" of induction_ready)."""
        flags = {
            path: frozenset(v for v in seen if isinstance(v, bool))
            for path, seen in self.values.items()
            if any(isinstance(v, bool) for v in seen)
        }
        words: dict[str, list[str]] = {}
        for path in flags:
            for word in re.split(r"[_.]|(?<=[a-z])(?=[A-Z])", path.rsplit(".", 1)[-1]):
                if len(word) >= 4 and word.casefold() not in _FLAG_GENERIC:
                    words.setdefault(word.casefold(), []).append(path)
        return [(w, ps[0], flags[ps[0]]) for w, ps in words.items() if len(ps) == 1]

    def numbers(self) -> list[tuple[str, float]]:
        return [
            (path, float(value))
            for path, value in self.fields()
            if isinstance(value, int | float) and not isinstance(value, bool)
        ]


# a named part of a record: its id, the records a sentence must name for a plain word to name
# it, and the patterns of its short names, each with the folded words an ASCII text must hold
# for it to match (Records._parts)
_Part = tuple[str, frozenset[str], tuple[tuple[re.Pattern[str], tuple[str, ...]], ...]]


class Records:
    """Every record of a run, by id, and the reader of the names a reply gives them.

    `rows_fixed`: the rows given to `add` do not change while the records are read (a run's,
    read in one go by `run_records`), so a row read again, written the same under the same
    parent, is skipped; a caller that changes a row between two adds leaves it False.
    """

    def __init__(self, rows_fixed: bool = False) -> None:
        self.by_id: dict[str, Record] = {}
        # every total a tool gave (a cart's, a summary's, a line's)
        self.totals: list[float] = []
        # a record's row under its parent (an order's item): read with the parent's id
        self.parent: dict[str, str] = {}
        # what the readers ask again and again of the same records, until the next add
        self._surfaces_read: list[tuple[str, str, bool, tuple[str, ...]]] | None = None
        self._surface_index_read: tuple[list[int], dict[str, list[int]]] | None = None
        self._references_read: dict[str, tuple[Reference, ...]] = {}
        self._links_read: dict[str, tuple[str, ...]] = {}
        self._naming: dict[str, set[str]] | None = None
        self._parts_read: list[_Part] | None = None
        self._children: dict[str, set[str]] = {}
        self._derived: dict[tuple[Callable[[Record], Any], str], Any] = {}
        self._read_across: dict[Callable[[Records], Any], Any] = {}
        self._rows_fixed = rows_fixed
        # each row read, by `RowKey`, and its reading: a run shows most rows more than once (a
        # record's row, then the start and end snapshots), and reading one again only sets the
        # parents it set again (see _add)
        self._rows_read: dict[RowKey, Reading] = {}

    def _changed(self) -> None:
        self._surfaces_read = None
        self._surface_index_read = None
        self._references_read.clear()
        self._links_read.clear()
        self._naming = None
        self._parts_read = None
        self._derived.clear()
        self._read_across.clear()

    def derived(self, record: Record, reader: Callable[[Record], T]) -> T:
        """What `reader` reads of one of these records, read once until the records change (a
        grader asks it of every record for every sentence). The value is shared: read it only."""
        key = (reader, record.id)
        if key not in self._derived:
            self._derived[key] = reader(record)
        return cast(T, self._derived[key])

    def across(self, reader: Callable[[Records], T]) -> T:
        """What `reader` reads of all the records together (an index over them), read once until
        the records change. The value is shared: read it only."""
        if reader not in self._read_across:
            self._read_across[reader] = reader(self)
        return cast(T, self._read_across[reader])

    def add(self, node: Any, parent: str | None = None) -> None:
        self._changed()
        self._add(node, parent)

    def _add(self, node: Any, parent: str | None) -> None:
        if isinstance(node, list):
            for item in node:
                if isinstance(item, CONTAINERS):
                    self._add(item, parent)
            return
        if not isinstance(node, dict):
            return
        id_field = id_field_of(node)
        if id_field is None:
            # no record of its own (a search's results): its totals and parts as it is read,
            # and each row in it read (and shared) on its own
            tape = Tape(self._take, on_child=self._add)
            tape.totals(node)
            tape.row(node, parent, None, None)
            return
        key = (parent, repr(node))
        # A row read before under the same parent, written the same, observes nothing new: its
        # values, names and texts are all there (and its totals are listed, which the readers
        # take as a set). Only the parents it set can have been set otherwise since (an id
        # holding "/"), so they are set again, in the same order.
        earlier = self._rows_read.get(key) if self._rows_fixed else None
        if earlier is not None:
            for child, its_parent in earlier.parents:
                self.parent[child] = its_parent
            return
        reading = READINGS.get(key)
        if reading is None:
            reading = read_row(node, parent, id_field)
            if reading.exact:
                READINGS.put(key, reading)
        self._replay(reading.steps)
        if self._rows_fixed and reading.exact:
            self._rows_read[key] = reading

    def _take(self, step: Step) -> None:
        self._replay((step,))

    def _replay(self, steps: Iterable[Step]) -> None:
        """The steps of reading rows (see Tape), taken in order."""
        by_id = self.by_id
        for kind, key, a, b in steps:
            if kind == VALUE:
                by_id[cast(str, key)].observe(a, b)
            elif kind == NEW:
                if key not in by_id:
                    by_id[cast(str, key)] = Record(cast(str, key))
            elif kind == NAME:
                by_id[cast(str, key)].names.add(a)
            elif kind == TEXT:
                by_id[cast(str, key)].read_text(a, b)
            elif kind == PARENT:
                self.parent[cast(str, key)] = a
            else:
                self.totals.append(a)

    def possible_totals(self) -> list[float]:
        """The totals the tools gave, and every line's quantity times price."""
        lines = [
            float(q) * float(p)
            for r in self
            for _, q in r.fields("quantity")
            for _, p in r.fields("price", "unit_price")
            if isinstance(q, int | float) and isinstance(p, int | float)
        ]
        return [*self.totals, *lines]

    def sibling_sums(self, record: Record) -> list[float]:
        """The sums of the prices of a nested record and its siblings (an order's items)."""
        parent = self.parent.get(record.id)
        if parent is None:
            return []
        prices = [
            float(v)
            for key, owner in self.parent.items()
            if owner == parent
            for _, v in self.by_id[key].fields("price")
            if isinstance(v, int | float)
        ][:8]
        sums: set[float] = set()
        for mask in range(1, 1 << len(prices)):
            sums.add(round(sum(p for i, p in enumerate(prices) if mask >> i & 1), 2))
        return sorted(sums)

    def linked(self, record: Record) -> list[Record]:
        """The records it names in its fields, the records naming it, and its parent: an
        offer's vehicle, a vehicle's offers, a staged change's product, an item's order."""
        links = self._links_read.get(record.id)
        if links is None:
            links = self._links_read[record.id] = self._read_links(record)
        return [self.by_id[key] for key in links]

    def _read_links(self, record: Record) -> tuple[str, ...]:
        if self._naming is None:
            # each text value -> the records holding it, each record -> its parts: one pass
            # over the records instead of one per record asked about
            self._naming, self._children = {}, {}
            for other in self:
                for value in other.strings():
                    self._naming.setdefault(value, set()).add(other.id)
            for child, parent in self.parent.items():
                self._children.setdefault(parent, set()).add(child)
        found: set[str] = set()
        for own in {record.id, *record.id.split("/")}:
            found |= self._naming.get(own, set())
        found.update(value for value in record.strings() if value in self.by_id)
        found |= self._children.get(record.id, set())
        its_parent = self.parent.get(record.id)
        if its_parent in self.by_id:
            found.add(its_parent)
        found.discard(record.id)
        return tuple(key for key in self.by_id if key in found) if len(found) > 1 else tuple(found)

    def get(self, record_id: str) -> Record | None:
        return self.by_id.get(record_id)

    def __iter__(self) -> Iterator[Record]:
        return iter(self.by_id.values())

    def references(self, text: str) -> list[Reference]:
        """Where `text` (normalised) names a record: ids, names and unambiguous short names,
        longest first and never overlapping. A short name two records share is found too, with
        no record (`record_id` ""): a value beside it is said of one of them, nobody knows which."""
        read = self._references_read.get(text)
        if read is None:
            read = self._references_read[text] = tuple(self._read_references(text))
        return list(read)

    def _read_references(self, text: str) -> list[Reference]:
        found: list[Reference] = []
        taken: list[tuple[int, int]] = []
        japanese = is_japanese(text)
        # an ASCII name can be in an ASCII text only where each of its words is (case aside):
        # most of the records' names are not, and their patterns need not run
        folded = text.casefold() if text.isascii() else None
        surfaces = self._surfaces()
        if folded is not None:
            # the names holding the longest word of each that the text holds, in their order
            always, by_word = self._surface_index()
            picked = [*always, *(i for w, found in by_word.items() if w in folded for i in found)]
            surfaces = [surfaces[i] for i in sorted(picked)]
        for surface, record_id, exact, words in surfaces:
            if folded is not None and not _all_in(words, folded):
                continue
            pattern = _japanese_pattern(surface) if japanese else _surface_pattern(surface, exact)
            for m in pattern.finditer(text):
                if any(m.start() < e and s < m.end() for s, e in taken):
                    continue
                taken.append((m.start(), m.end()))
                found.append(Reference(record_id, m.start(), m.end(), m.group(0)))
        found.extend(self._part_references(text, found, taken))
        return sorted(found, key=lambda r: r.start)

    def _part_references(
        self, text: str, found: list[Reference], taken: list[tuple[int, int]]
    ) -> list[Reference]:
        """A part of a record ("the balance" of a closing's "Balance payment" step) named in
        plain words, where the sentence names its parent or a record linked to the parent (the
        closing's vehicle)."""
        named = {r.record_id for r in found if r.record_id}
        if not named:
            return []
        extra: list[Reference] = []
        folded = text.casefold() if text.isascii() else None
        for part_id, near, patterns in self._parts():
            if near.isdisjoint(named):
                continue
            for pattern, words in patterns:
                if folded is not None and not _all_in(words, folded):
                    continue
                for m in pattern.finditer(text):
                    if any(m.start() < e and s < m.end() for s, e in taken):
                        continue
                    taken.append((m.start(), m.end()))
                    extra.append(Reference(part_id, m.start(), m.end(), m.group(0)))
        return extra

    def _parts(self) -> list[_Part]:
        """Per named part of a record: its id, the records a sentence must name for a plain
        word to name the part (its parent and what the parent links to), and the patterns of
        its short names. Read once until the records change: every sentence asks."""
        if self._parts_read is None:
            self._parts_read = []
            for part in self:
                if part.id not in self.parent or "/" not in part.id or not part.names:
                    continue
                parent = self.by_id.get(self.parent[part.id])
                if parent is None:
                    continue
                near = frozenset({parent.id, *(o.id for o in self.linked(parent))})
                patterns = tuple(p for name in part.names for p in _part_patterns(name))
                self._parts_read.append((part.id, near, patterns))
        return self._parts_read

    def _surfaces(self) -> list[tuple[str, str, bool, tuple[str, ...]]]:
        """(surface, record id or "" when shared, whether it must match as written, its folded
        ASCII words): ids and whole names match in any case; a short name only with the name's
        own capitals ("the Stargazer", not "a cushioned road shoe" for the Cushioned Road Shoe).
        An ASCII text can hold an ASCII name only where it holds each of its words."""
        if self._surfaces_read is None:
            self._surfaces_read = [
                (surface, record_id, exact, _ascii_words(surface))
                for surface, record_id, exact in self._read_surfaces()
            ]
        return self._surfaces_read

    def _surface_index(self) -> tuple[list[int], dict[str, list[int]]]:
        """The positions in `_surfaces` of the names with no ASCII words (always tried), and of
        the others by their longest word: a text that lacks the word lacks the name, so a
        sentence tries the few names whose word it holds, not every name of the run."""
        if self._surface_index_read is None:
            always: list[int] = []
            by_word: dict[str, list[int]] = {}
            for i, (_, _, _, words) in enumerate(self._surfaces()):
                if words:
                    by_word.setdefault(words[0], []).append(i)
                else:
                    always.append(i)
            self._surface_index_read = (always, by_word)
        return self._surface_index_read

    def _read_surfaces(self) -> list[tuple[str, str, bool]]:
        surfaces: dict[str, set[str]] = {}
        written: dict[str, str] = {}
        whole: set[str] = set()
        for record in self:
            if "/" not in record.id:
                surfaces.setdefault(record.id.casefold(), set()).add(record.id)
                written[record.id.casefold()] = record.id
                whole.add(record.id.casefold())
            for name in record.names:
                folded_name, forms = _name_surfaces(name)
                whole.add(folded_name)
                for folded, form in forms:
                    surfaces.setdefault(folded, set()).add(record.id)
                    written.setdefault(folded, form)
        unique = [
            (written[s], next(iter(ids)) if len(ids) == 1 else "", s not in whole)
            for s, ids in surfaces.items()
        ]
        return sorted(unique, key=lambda x: -len(x[0]))


@dataclass(frozen=True)
class Reference:
    record_id: str
    start: int
    end: int
    text: str


@functools.lru_cache(maxsize=4096)
def _short_forms(name: str) -> tuple[str, ...]:
    """The name itself and its runs of one to three words that carry meaning."""
    return tuple(_read_short_forms(name))


@functools.lru_cache(maxsize=4096)
def _part_patterns(name: str) -> tuple[tuple[re.Pattern[str], tuple[str, ...]], ...]:
    """The patterns of a part's short names in plain words (a number names no part alone), each
    with its folded ASCII words (`_ascii_words`)."""
    return tuple(
        (_surface_pattern(form.casefold(), exact=False), _ascii_words(form.casefold()))
        for form in _short_forms(name)
        if not re.search(r"\d", form)
    )


@functools.lru_cache(maxsize=8192)
def _name_surfaces(name: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """A name folded, and each of its short forms folded beside it as written."""
    forms = _japanese_short_forms(name) if is_japanese(name) else _short_forms(name)
    return name.casefold(), tuple((form.casefold(), form) for form in forms)


def _read_short_forms(name: str) -> Iterator[str]:
    words = _WORD.findall(name)
    yield name
    for size in (3, 2, 1):
        for i in range(len(words) - size + 1):
            run = words[i : i + size]
            if run[0].casefold() in _GENERIC or run[-1].casefold() in _GENERIC:
                continue
            if size == 1 and (len(run[0]) < 4 or re.search(r"\d", run[0])):
                continue
            if all(w.isdigit() for w in run) or not any(w[:1].isupper() for w in run):
                continue  # "900 ml", "wooden trains": a short name has a word of the name's own
            yield " ".join(run)


def _japanese_short_forms(name: str) -> Iterable[str]:
    """A Japanese name and its runs of one to three of its space-separated parts, written with or
    without the spaces (「シズク 真空断熱ボトル 500ml」: 「真空断熱ボトル」, 「シズク真空断熱ボトル」); a part of
    only digits and a unit ("500ml") names nothing alone."""
    parts = normalise(name).split()
    yield name
    for size in (3, 2, 1):
        for i in range(len(parts) - size + 1):
            run = parts[i : i + size]
            if size == 1 and (len(run[0]) < 2 or re.fullmatch(r"[\d.]+\w{0,3}", run[0])):
                continue
            yield " ".join(run)
            if size > 1:
                yield "".join(run)


_PATTERNS: dict[str, re.Pattern[str]] = {}


@functools.lru_cache(maxsize=8192)
def _ascii_words(surface: str) -> tuple[str, ...]:
    """The words of a name as its pattern matches them, folded, longest first (the rarest in a
    text, so `_all_in` stops soonest, and the one `_surface_index` files it under); none for a
    name not in ASCII (its pattern always runs)."""
    if not surface.isascii():
        return ()
    return tuple(sorted(re.split(r"[-\s]+", surface.casefold()), key=len, reverse=True))


def _all_in(words: tuple[str, ...], text: str) -> bool:
    """Whether every word is in the text (a plain loop: it runs for every name against every
    sentence, and a generator costs more than the test)."""
    for word in words:  # noqa: SIM110
        if word not in text:
            return False
    return True


def _japanese_pattern(surface: str) -> re.Pattern[str]:
    """A name in Japanese text: no spaces around it, so it stops where its script stops."""
    key = f"ja:{surface}"
    pattern = _PATTERNS.get(key)
    if pattern is None:
        pattern = re.compile(token_pattern(normalise(surface)), re.IGNORECASE)
        _PATTERNS[key] = pattern
    return pattern


def _surface_pattern(surface: str, exact: bool) -> re.Pattern[str]:
    key = f"{exact}:{surface}"
    pattern = _PATTERNS.get(key)
    if pattern is None:
        body = r"[-\s]?".join(re.escape(p) for p in re.split(r"[-\s]+", surface))
        flags = 0 if exact and surface[:1].isupper() else re.IGNORECASE
        pattern = re.compile(rf"(?<![\w-]){body}(?:'s|s)?(?![\w-])", flags)
        _PATTERNS[key] = pattern
    return pattern


def run_records(run: Any, shown: Iterable[dict[str, Any]] = ()) -> Records:
    """The records of a run: what the session context showed (`shown`), every tool result in
    order, then the start and end snapshots (so the end's values come last)."""
    records = Records(rows_fixed=True)
    records.add(list(shown))
    for turn in run.turns:
        for result in turn.results():
            if result.status == "ok":
                records.add(result.data)
    records.add(list(run.start.values()) if isinstance(run.start, dict) else [])
    records.add(list(run.end.values()))
    return records
