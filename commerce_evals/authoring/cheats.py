"""The cheapest way to cheat each grader (seed 003, step 6: "Ask AI for the cheapest way to cheat
each grader and close the gaps it finds").

For each case, the `drafter` is shown the case (its purpose, state, turns, expected keys and
reference run), what each of its keys asserts (from the key registry) and the domain's rules
checked on every run, and is asked for the cheapest runs that would pass every key while a careful
reviewer would fail them. Each becomes a draft counterexample (`skip: draft`, the drafter's reason
as its note), replayed through the graders (code only): one the graders already fail is
**covered** (its `breaks` say by what); one that passes every code key is a **hole** to close. A
person reads each, keeps the covered ones as counterexamples and closes the holes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import Field, ValidationError

from commerce_evals.authoring.skeletons import DRAFT
from commerce_evals.cases.model import Case
from commerce_evals.cases.scripts import ScriptedTurn
from commerce_evals.core.strict import Strict
from commerce_evals.grading.keys import BY_NAME

CHEATS_OPEN, CHEATS_CLOSE = "<cheat-case>", "</cheat-case>"
REFERENCE_OPEN, REFERENCE_CLOSE = "<known-good>", "</known-good>"
MAX_CHEATS = 3
PROMPT = """You test the graders of an agent evaluation. Below is one case: what it is about, the
state it starts from, what the person says, and the keys its graders check; then what each key
asserts, the rules checked on every run, and the case's known-good run.

Find the cheapest runs an agent could make that would pass every key while a careful reviewer
would fail them: it did not really do what was asked, it told the person something false or left
out what they needed, or it broke a rule no key reads. For each, say in one sentence why a
reviewer fails it, and write the run in the known-good run's shape: one entry per turn, `calls` a
list of rounds (a round is one call {{"tool": ..., "args": {{...}}}} or a list of calls made
together) and `reply`.

{case_open}
{case}
{case_close}

What each key asserts:
{keys}

Rules checked on every run of this domain:
{rules}

{reference_open}
{reference}
{reference_close}

Answer with one JSON object and nothing else (at most {most} cheats):
{{"cheats": [{{"name": "<lower-case-with-dashes>", "why": "<why a reviewer fails it>",
  "turns": [{{"calls": [...], "reply": "..."}}]}}]}}
"""


class CheatDraft(Strict):
    """One cheat as the drafter writes it."""

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$", max_length=60)
    why: str = Field(min_length=1)
    turns: list[ScriptedTurn] = Field(min_length=1)


@dataclass
class Drafted:
    """A case's cheats, and what of the drafter's answer could not be read."""

    case: Case
    cheats: list[CheatDraft] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def case_block(case: Case) -> dict[str, Any]:
    """What the drafter is shown of the case (its own counterexamples and alternatives left out:
    it finds cheats afresh)."""
    return {
        "id": case.id,
        "purpose": case.purpose or case.notes,
        "state": case.state,
        "turns": [
            {"say": turn, "confirms": sorted(case.confirmed(i))} if case.confirmed(i) else turn
            for i, turn in enumerate(case.turns)
        ],
        "expected": case.expected.model_dump(
            mode="json", include=set(case.expected.written_keys())
        ),
        **({"customer": case.customer.model_dump(mode="json")} if case.customer else {}),
    }


def cheats_prompt(case: Case, rules: dict[str, str]) -> str:
    keys = "\n".join(
        f"- {name} ({BY_NAME[name].part}): {BY_NAME[name].doc}"
        for name in case.expected.asserted_keys()
        if name in BY_NAME
    )
    return PROMPT.format(
        case_open=CHEATS_OPEN,
        case=json.dumps(case_block(case), indent=1, ensure_ascii=False),
        case_close=CHEATS_CLOSE,
        keys=keys,
        rules="\n".join(f"- {name}: {doc}" for name, doc in sorted(rules.items())) or "- none",
        reference_open=REFERENCE_OPEN,
        reference=json.dumps(
            [t.model_dump(mode="json", exclude_defaults=True) for t in case.reference or []],
            ensure_ascii=False,
        ),
        reference_close=REFERENCE_CLOSE,
        most=MAX_CHEATS,
    )


def read_cheats(case: Case, answer: str) -> Drafted:
    """The cheats in the drafter's answer; what cannot be read is named, never guessed at."""
    drafted = Drafted(case)
    start, end = answer.find("{"), answer.rfind("}")
    try:
        data = json.loads(answer[start : end + 1]) if 0 <= start < end else None
    except json.JSONDecodeError as err:
        drafted.problems.append(f"{case.id}: the drafter's answer is not JSON: {err}")
        return drafted
    entries = data.get("cheats") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        drafted.problems.append(f"{case.id}: the drafter's answer holds no list of cheats")
        return drafted
    names = {cx.name for cx in case.counterexamples} | {a.name for a in case.alternatives}
    for index, entry in enumerate(entries[:MAX_CHEATS]):
        try:
            cheat = CheatDraft.model_validate(entry)
        except ValidationError as err:
            first = err.errors(include_url=False)[0]
            where = ".".join(str(p) for p in first["loc"]) or "(cheat)"
            drafted.problems.append(f"{case.id}: cheats.{index}.{where}: {first['msg']}")
            continue
        limit = case.customer.max_turns if case.customer else len(case.turns)
        if len(cheat.turns) > limit:
            drafted.problems.append(
                f"{case.id}: cheats.{index}: {len(cheat.turns)} turns, more than the case's {limit}"
            )
            continue
        if cheat.name in names:
            cheat = cheat.model_copy(update={"name": f"cheat-{cheat.name}"})
        names.add(cheat.name)
        drafted.cheats.append(cheat)
    return drafted


def replay_entry(case: Case, cheats: list[CheatDraft]) -> dict[str, Any]:
    """The case as a case file holds it, with its cheats as the counterexamples to replay (their
    `breaks` a placeholder: what they fail is what the replay finds out)."""
    entry = case_entry(case)
    placeholder = case.expected.asserted_keys()[:1] or ["changes"]
    entry["counterexamples"] = [
        {"name": c.name, "breaks": placeholder, "turns": [t.model_dump() for t in c.turns]}
        for c in cheats
    ]
    return entry


def case_entry(case: Case) -> dict[str, Any]:
    """The case as a case file holds it (the keys it writes at their default value kept)."""
    entry = case.model_dump(mode="json", exclude_defaults=True, exclude={"counterexamples"})
    written = case.expected.model_dump(mode="json", include=case.expected.model_fields_set)
    entry.setdefault("expected", {}).update(
        {k: v for k, v in written.items() if k not in entry["expected"]}
    )
    return entry


@dataclass(frozen=True)
class Verdict:
    """What the graders made of one cheat."""

    failed: tuple[str, ...]  # the code keys and invariants it failed (none: a hole)

    @property
    def covered(self) -> bool:
        return bool(self.failed)


def drafted_entry(case: Case, cheats: list[CheatDraft], verdicts: dict[str, Verdict]) -> dict:
    """The case with its cheats as draft counterexamples: covered ones with what they break,
    holes with nothing broken and a note saying so."""
    entry = case_entry(case)
    drafts = []
    for cheat in cheats:
        verdict = verdicts.get(cheat.name)
        if verdict is None:
            status = "not replayed (see the command's output)"
        elif verdict.covered:
            status = f"covered: the graders fail it on {', '.join(verdict.failed)}"
        else:
            status = "a hole: it passes every code key; close it with a key or a judged dimension"
        drafts.append(
            {
                "name": cheat.name,
                "skip": DRAFT,
                "breaks": list(verdict.failed) if verdict else [],
                "note": f"{cheat.why} [{status}]",
                "turns": [t.model_dump(mode="json", exclude_defaults=True) for t in cheat.turns],
            }
        )
    entry["counterexamples"] = drafts
    return entry


def scripted_cheats(prompt: str) -> dict[str, Any]:
    """What the offline `commerce/drafter` proposes, read from the prompt's known-good run: keep
    the reply and drop the last turn's calls (says it is done, does nothing), and keep the calls
    and drop the reply (does it, tells the person nothing)."""
    block = re.search(rf"{REFERENCE_OPEN}\n(.*?)\n{REFERENCE_CLOSE}", prompt, re.S)
    turns = json.loads(block.group(1)) if block else []
    if not turns:
        return {"cheats": []}
    *before, last = turns
    cheats = []
    if last.get("calls"):
        cheats.append(
            {
                "name": "says-so-without-doing-it",
                "why": "it tells the person the work is done but makes none of the calls",
                "turns": [*before, {"calls": [], "reply": last.get("reply", "")}],
            }
        )
    cheats.append(
        {
            "name": "does-it-and-says-nothing",
            "why": "it tells the person nothing of what it found or did",
            "turns": [*before, {"calls": last.get("calls", []), "reply": "Done."}],
        }
    )
    return {"cheats": cheats}
