"""Every case, counterexample and alternative keeps the verdict recorded in tests/data/verdicts.json.

The record is the behaviour the code had before a refactor. A deliberate change of verdicts is
recorded again with `python -m tests.verdict_record` and shows in the diff of that file.
"""

from __future__ import annotations

import json

from tests.verdict_record import VERDICTS_FILE, record_verdicts


def test_every_verdict_is_the_recorded_one() -> None:
    recorded = json.loads(VERDICTS_FILE.read_text())
    now = json.loads(json.dumps(record_verdicts()))
    assert now.keys() == recorded.keys()
    moved = [
        f"{group} {sample}: {recorded[group].get(sample)} -> {now[group].get(sample)}"
        for group in recorded
        for sample in sorted(recorded[group].keys() | now[group].keys())
        if recorded[group].get(sample) != now[group].get(sample)
    ]
    assert not moved, "verdicts moved:\n" + "\n".join(moved[:40])
