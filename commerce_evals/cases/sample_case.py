"""The case a sample carries in its metadata: dumped once when the task loads, parsed once.

The solver and each scorer need the Case of the sample they run; parsing the dump every time
(`Case.model_validate(state.metadata["case"])`) re-validated the whole case for every call. The
dump is stored frozen (core.frozen) with the Case parsed from it alongside, so a call reads
that. A dump read back from a log (`inspect score`, the reports) is a plain dict and is parsed.

A run of the cases leaves the counterexamples out of the dump; the sample carries the hashed
graded replies of them instead, each with the judged parts its counterexample names
(`known_bad_keys`), which is all the scripted judge needs to say Fail where the case's author
declared a judge would.
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Mapping
from typing import Any

from commerce_evals.cases.model import Case
from commerce_evals.core.frozen import ParsedDump, parsed_dump


def case_json(dump: dict[str, Any], parsed: Case | None = None) -> ParsedDump[Case]:
    """A case's dump as sample metadata holds it, with the Case it is the dump of kept beside:
    `parsed` when the caller holds it already (a task's cases were validated as they loaded),
    else parsed from the dump."""
    return parsed_dump(dump, Case.model_validate(dump) if parsed is None else parsed)


def case_of(metadata: Mapping[str, Any]) -> Case:
    """The Case of a sample, from its metadata."""
    dump = metadata["case"]
    return dump.parsed if isinstance(dump, ParsedDump) else Case.model_validate(dump)


def reply_key(text: str) -> str:
    """A reply as the scripted judge tells replies apart (compatibility forms folded, spacing and
    case ignored), hashed: what a sample carries of its case's known-bad replies."""
    folded = " ".join(unicodedata.normalize("NFKC", text).split()).casefold()
    return hashlib.sha256(folded.encode()).hexdigest()[:16]


JUDGED_PARTS = ("dimensions", "rubric")


def known_bad_keys(case: Case) -> dict[str, list[str]]:
    """The keys of the graded replies of the case's counterexamples that no known-good run (its
    reference or an alternative) gives too, each with the judged keys (`rubric`, `dimensions`)
    its counterexamples name in `breaks`: the parts a judge must fail for that reply."""
    good = {reply_key(script[-1].reply) for script in case.oracle_scripts() if script}
    bad: dict[str, set[str]] = {}
    for cx in case.counterexamples:
        if cx.skip is not None:
            continue
        key = reply_key(case.script(cx.name)[-1].reply)
        if key not in good:
            bad.setdefault(key, set()).update(set(cx.breaks) & set(JUDGED_PARTS))
    return {key: sorted(parts) for key, parts in sorted(bad.items())}
