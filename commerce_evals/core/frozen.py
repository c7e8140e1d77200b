"""Read-only JSON values, which a deep copy returns as they are.

Inspect deep-copies a sample's metadata into every epoch's TaskState (and, for metrics given per
value key, every score once per key). The case dump, its oracle change sets and a chain's replays
are never changed after the task loads, and a score's metadata is never changed after it is
scored, so they are stored frozen: a dict or list that refuses changes and is its own deep copy,
which equal scores can share (see `shared`). They serialise as the plain JSON they hold (the log and
`inspect view` see no difference) and read back from a log as plain dicts and lists.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections import OrderedDict
from typing import Any, Generic, NoReturn, Self, TypeVar

from inspect_ai.scorer import Score


def _refuse(self: object, *args: Any, **kwargs: Any) -> NoReturn:
    raise TypeError(f"a frozen {type(self).__name__} cannot change; copy it to change it")


class _OwnCopy:
    """A value that cannot change is its own copy, shallow or deep."""

    __slots__ = ()

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        return self

    def __copy__(self) -> Self:
        return self


class FrozenDict(_OwnCopy, dict[str, Any]):
    """A JSON object that refuses changes; copying it returns it."""

    __slots__ = ()

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenDict, (dict(self),))

    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse


Parsed = TypeVar("Parsed")


class ParsedDump(FrozenDict, Generic[Parsed]):
    """A model's frozen dump with the model it is the dump of kept beside, so a reader in the
    same process takes the model instead of validating the dump again. Only the dump is
    serialised; read back from a log it is a plain dict, which the reader validates."""

    __slots__ = ("parsed",)
    parsed: Parsed


def parsed_dump(dump: dict[str, Any], parsed: Parsed) -> ParsedDump[Parsed]:
    frozen: ParsedDump[Parsed] = ParsedDump({key: freeze(value) for key, value in dump.items()})
    frozen.parsed = parsed
    return frozen


class FrozenList(_OwnCopy, list[Any]):
    """A JSON array that refuses changes; copying it returns it."""

    __slots__ = ()

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenList, (list(self),))

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = extend = insert = pop = remove = clear = sort = reverse = _refuse


def freeze(value: Any) -> Any:
    """The same JSON value with every object and array in it frozen."""
    if isinstance(value, FrozenDict | FrozenList):
        return value
    if isinstance(value, dict):
        return FrozenDict({key: freeze(item) for key, item in value.items()})
    if isinstance(value, list | tuple):
        return FrozenList(freeze(item) for item in value)
    return value


# Frozen values made recently, by a digest of their exact JSON text (which tells 1 from 1.0 and
# true, unlike ==). Bounded, so that a run whose every value differs pays a fixed cost, not one per
# sample; a run that repeats itself (epochs of a steady agent, the same grade on many cases) keeps
# one copy of each value instead of one per score.
SHARED_LIMIT = 4096
_shared: OrderedDict[bytes, Any] = OrderedDict()


def shared(value: Any) -> Any:
    """freeze(value), reusing an equal frozen value (and equal parts of one) made recently.

    Inspect keeps every sample's score until the run ends; scores of a run that repeats itself
    are mostly equal, and this is what keeps their memory from growing with the sample count.
    """
    if isinstance(value, str):
        return sys.intern(value) if type(value) is str else value
    if not isinstance(value, dict | list | tuple):
        return value
    # Looked up before its parts are: an equal value made before is found with one digest,
    # and only a new one pays for digesting each of its parts in turn.
    text = json.dumps(value, separators=(",", ":"), default=str).encode()
    digest = hashlib.blake2b(text, digest_size=16).digest()
    existing = _shared.get(digest)
    if existing is not None:
        _shared.move_to_end(digest)
        return existing
    made: Any
    if isinstance(value, dict):
        made = FrozenDict({key: shared(item) for key, item in value.items()})
    else:
        made = FrozenList(shared(item) for item in value)
    _shared[digest] = made
    if len(_shared) > SHARED_LIMIT:
        _shared.popitem(last=False)
    return made


class FrozenScore(Score):
    """A Score whose value and metadata are frozen JSON, so that a copy of it, deep or not, is a
    new Score object sharing everything inside (nothing inside can change), and equal scores can
    share their parts (see `of`).

    Inspect keeps every sample's score until the run ends. For metrics given per value key it
    also deep-copies every score once per key each time it computes metrics, replacing each copy's
    `value` rather than changing it; a frozen value refuses a change in place, so sharing can
    never leak one copy into another.
    """

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> FrozenScore:
        return self.model_copy(update={"history": list(self.history)})

    @classmethod
    def of(cls, score: Score, share: bool = True) -> FrozenScore:
        """The same score, its value and metadata frozen and, with `share`, shared with equal
        ones made before (see `shared`). Not validated again: it was.

        Reducers pass share=False: the live display reduces every score again each time it
        computes metrics and throws the result away, and a reduced score's metadata is an epoch's
        that was shared already; freezing its new value is all it needs."""
        fields = dict(score.__dict__)
        for name in ("value", "answer", "explanation", "metadata"):
            fields[name] = shared(fields[name]) if share else freeze(fields[name])
        return cls.model_construct(_fields_set=score.model_fields_set, **fields)
