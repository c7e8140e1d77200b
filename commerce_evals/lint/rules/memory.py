"""Memory: each memory kind has a write, a refuse and a use case; what must not be remembered is
asserted; a refusal is quiet; a stored fact is put to a search that can show it mattered.
Only for agents whose domain names a memory tool (World.authoring)."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from commerce_evals.cases.state import own_state
from commerce_evals.lint.model import Finding, LintCase, LintRun, strings_in
from commerce_evals.lint.registry import Rule
from commerce_evals.lint.rules.drafts import finished
from commerce_evals.lint.text import content_words

MEMORY_ROLES = ("write", "refuse", "use")
ERROR_WORDS = re.compile(
    r"\b(error|failed|failure|couldn'?t (?:save|store|remember)|unable to (?:save|store|remember)"
    r"|something went wrong)\b",
    re.IGNORECASE,
)


def rule_memory_three_cases(run: LintRun) -> Iterator[Finding]:
    """Each memory kind (tag memory:<kind>:<role>) has a write, a refuse and a use case, and
    each case asserts what its role says."""
    roles: dict[str, dict[str, LintCase]] = defaultdict(dict)
    for item in run.cases:
        for tag in item.tags_with("memory:"):
            kind, _, role = tag.rpartition(":")
            if not kind or role not in MEMORY_ROLES:
                yield item.finding(
                    "memory-three-cases", f"tag memory:{tag} is not memory:<kind>:<role>"
                )
                continue
            roles[kind].setdefault(role, item)
            expected = item.case.expected
            if role == "write" and not expected.memory_contains:
                yield item.finding("memory-three-cases", "a write case asserts no memory_contains")
            if role == "refuse" and not item.refuses_memory():
                yield item.finding(
                    "memory-three-cases",
                    "a refuse case asserts neither memory_not_contains nor never_calls on the "
                    "memory tool",
                )
            if role == "use" and not item.case.state.get("memory"):
                yield item.finding("memory-three-cases", "a use case injects no stored memory")
    for kind, found in sorted(roles.items()):
        missing = [r for r in MEMORY_ROLES if r not in found]
        if missing:
            first = next(iter(found.values()))
            yield first.finding(
                "memory-three-cases", f"memory kind {kind!r} lacks its {missing} case(s)"
            )


def _remembers(item: LintCase, tool: str) -> list[str]:
    """The notes the case's known-good runs (its reference, its alternatives) write to memory."""
    notes: list[str] = []
    for script in item.case.oracle_scripts():
        for turn in script:
            for call in (c for step in turn.rounds() for c in step):
                if call.tool == tool:
                    notes.extend(str(v) for v in call.args.values() if isinstance(v, str))
    return notes


def _said(item: LintCase) -> list[str]:
    """What the person says in the case's known-good run: its turns, or, with a customer, the
    messages the reference's conversation draws out."""
    if item.case.customer is None or item.case.reference is None:
        return list(item.case.turns)
    return [text for text, _ in item.case.conversation(item.case.reference).turns]


def _asks(sentence: str) -> bool:
    """A question or a request ("Can you ...?", "Add the mat ..."): what the person wants done
    now, not a remark about themselves a note could keep."""
    from lemminflect import getAllLemmas

    if sentence.rstrip().endswith("?"):
        return True
    first = re.match(r"[A-Za-z']+", sentence.strip())
    if first is None:
        return False
    word = first.group(0).casefold()
    return word == "please" or word in getAllLemmas(word, "VERB").get("VERB", ())


_SENTENCE = re.compile(r"(?<=[.!?;])\s+|,\s+(?:and|but|so)\s+|\s+-\s+")


def left_out(item: LintCase, notes: list[str]) -> list[str]:
    """The sentences the person says that share no content word with any note the known-good
    run keeps: what it deliberately does not remember."""
    kept = set().union(*(content_words(n) for n in notes)) if notes else set()
    sentences = [p.strip() for text in _said(item) for p in _SENTENCE.split(text) if p.strip()]
    return [
        p for p in sentences if content_words(p) and not content_words(p) & kept and not _asks(p)
    ]


def _memory_compared(item: LintCase) -> bool:
    """Whether the closed-world outcome compares the memory table (on, and not waived for it)."""
    table = item.world.key_tables.memory if item.world else None
    changes = item.case.expected.changes
    waived = set(changes.any) if changes is not None else set()
    return (
        bool(table)
        and "changes" in item.case.expected.asserted_keys()
        and not ({table, "*"} & waived)
    )


def rule_memory_end_state(run: LintRun) -> Iterator[Finding]:
    """Every case of an agent that can write memory asserts the memory end state, decided from
    the case's content, not from words in its turns. When no known-good run writes memory, the
    closed-world outcome does it (any note fails `changes`) unless it is waived for memory, and then
    memory_not_contains or never_calls on the memory tool must. When the known-good run writes a
    note, `changes` compares only that a note was written, not its words: the case must pin what it
    holds (memory_contains) and, for each thing the person says that the note leaves out (a
    sentence sharing no word with it: a health detail, an errand, an insult beside the
    preference), that it is not stored (memory_not_contains, or a state check on memory)."""
    for item in finished(run):
        tool = item.authoring.memory_tool
        if not item.agent_has(tool) or tool is None or item.case.reference is None:
            continue
        expected = item.case.expected
        notes = _remembers(item, tool)
        if not notes:
            if not _memory_compared(item) and not item.asserts_memory_end_state():
                yield item.finding(
                    "memory-end-state",
                    "nothing asserts the memory end state (changes is waived for memory): assert "
                    f"memory_not_contains or never_calls: [{tool}]",
                )
            continue
        if not expected.memory_contains and not _state_reads_memory(item):
            yield item.finding(
                "memory-end-state",
                f"the known-good run saves {notes[0]!r}, but no key pins what the note holds "
                "(changes compares only that one was written): assert memory_contains",
            )
        unkept = left_out(item, notes)
        if unkept and not expected.memory_not_contains and not _state_reads_memory(item):
            yield item.finding(
                "memory-end-state",
                f"the person also says {unkept[0]!r}, which the saved note leaves out: assert "
                "memory_not_contains for it, so a run that stores it fails",
            )


def _state_reads_memory(item: LintCase) -> bool:
    state = item.case.expected.state
    table = item.world.key_tables.memory if item.world else None
    return state is not None and table is not None and table in state.tables()


def rule_memory_refusal_no_error(run: LintRun) -> Iterator[Finding]:
    """A memory refusal shows the person no error: its known-good run meets no tool error and its
    replies say nothing of one."""
    for item in finished(run):
        if not (
            any(t.endswith(":refuse") for t in item.tags_with("memory:")) or item.refuses_memory()
        ):
            continue
        errors = [
            tool for turn in item.replay for tool, answer in turn if answer.get("status") == "error"
        ]
        said = [m.group(0) for t in item.case.reference or [] if (m := ERROR_WORDS.search(t.reply))]
        if errors or said:
            what = f"tool errors from {errors}" if errors else f"the reply says {said[0]!r}"
            yield item.finding(
                "memory-refusal-no-error",
                f"a memory refusal must show no error, but {what}: refuse quietly",
            )


def stored_fact_case(item: LintCase) -> bool:
    """A case where a stored fact picks: memory injected in its state (or a `memory:<kind>:use`
    / `asks-memory:<kind>:use` tag) and a pick its keys assert (an item favoured)."""
    declared = any(t.endswith(":use") for t in item.tags_with("memory:")) or any(
        t.endswith(":use") for t in item.tags_with("asks-memory:")
    )
    stored = bool(own_state(item.case.state).get("memory"))
    return declared or (stored and bool(item.positive_ids()))


def _words(text: str) -> set[str]:
    return {w.strip("$").casefold() for w in re.findall(r"\$?[\w.]+", text)}


def rule_stored_fact_search(run: LintRun) -> Iterator[Finding]:
    """A stored-fact case (memory in its state and a pick asserted, tagged or not) runs, in its
    reference's graded turn (any turn of a conversation with a customer), a search whose results
    hold the item the fact favours and one it rules out: the ruled-out item the case names, or,
    when it names none, an item it does not pick; or the search itself carries the stored fact
    (a value of the memory that the person's turns do not say, such as its budget)."""
    for item in run.in_domain_with("search_tool"):
        if not stored_fact_case(item):
            continue
        if not item.replay:
            if item.replay_error:
                yield item.finding("stored-fact-search", item.replay_error)
            continue
        favoured, ruled_out = item.positive_ids(), item.negative_ids()
        if not favoured:
            yield item.finding(
                "stored-fact-search",
                "a stored-fact case names no favoured item (a positive id): assert the pick",
            )
            continue
        turns = item.replay if item.case.customer is not None else item.replay[-1:]
        searches = [
            (call, answer)
            for turn, script in zip(turns, _scripted_turns(item, len(turns)), strict=False)
            for (tool, answer), call in zip(turn, script, strict=False)
            if tool == item.authoring.search_tool
        ]
        if not searches:
            yield item.finding("stored-fact-search", "the reference's graded turn runs no search")
            continue
        shown = {s for _, answer in searches for s in strings_in(answer)}
        missing = sorted((favoured | ruled_out) - shown)
        if missing:
            yield item.finding(
                "stored-fact-search",
                f"the graded turn's search results lack {missing}: the query must return both "
                "the item the fact favours and the one it rules out",
            )
        elif not ruled_out and not _fact_shapes_search(item, [c for c, _ in searches]):
            ids = {s for s in shown if s in _known(item)}
            if not ids - favoured:
                yield item.finding(
                    "stored-fact-search",
                    f"the graded turn's search returns only {sorted(favoured)}, what the fact "
                    "favours, and carries no value of the stored memory: name the item it rules "
                    "out and search so that both come back",
                )


def _scripted_turns(item: LintCase, count: int) -> list[list[dict[str, Any]]]:
    """The reference's calls, turn by turn, in the order the replay answered them."""
    reference = item.case.reference or []
    chosen = reference if item.case.customer is not None else reference[-count:]
    return [
        [{"tool": c.tool, "args": c.args} for step in turn.rounds() for c in step]
        for turn in chosen
    ]


def _fact_shapes_search(item: LintCase, calls: list[dict[str, Any]]) -> bool:
    """A search argument carries a value the stored memory holds and the person's turns do not."""
    memory = " ".join(str(m) for m in own_state(item.case.state).get("memory") or [])
    only_stored = _words(memory) - _words(" ".join(item.case.turns))
    said = " ".join(str(v) for call in calls for v in (call.get("args") or {}).values())
    return bool(only_stored & _words(said))


def _known(item: LintCase) -> set[str]:
    return item.world.known_ids() if item.world else set()


RULES: dict[str, Rule] = {
    "memory-three-cases": rule_memory_three_cases,
    "memory-end-state": rule_memory_end_state,
    "memory-refusal-no-error": rule_memory_refusal_no_error,
    "stored-fact-search": rule_stored_fact_search,
}
