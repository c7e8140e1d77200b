"""The case a sample carries in its metadata: dumped once when the task loads, parsed once.

The solver and each scorer need the Case of the sample they run; parsing the dump every time
(`Case.model_validate(state.metadata["case"])`) re-validated the whole case for every call. The
dump is stored frozen (harness.frozen) with the Case parsed from it alongside, so a call reads
that. A dump read back from a log (`inspect score`, the reports) is a plain dict and is parsed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from commerce_evals.cases.model import Case
from commerce_evals.harness.frozen import FrozenDict, freeze


class CaseJSON(FrozenDict):
    """A case's frozen dump, with the Case parsed from it (never serialised: a dict's items are)."""

    __slots__ = ("parsed",)
    parsed: Case


def case_json(dump: dict[str, Any]) -> CaseJSON:
    """A case's dump as sample metadata holds it, with the Case parsed from it kept beside."""
    frozen = CaseJSON({key: freeze(value) for key, value in dump.items()})
    frozen.parsed = Case.model_validate(dump)
    return frozen


def case_of(metadata: Mapping[str, Any]) -> Case:
    """The Case of a sample, from its metadata."""
    dump = metadata["case"]
    return dump.parsed if isinstance(dump, CaseJSON) else Case.model_validate(dump)
