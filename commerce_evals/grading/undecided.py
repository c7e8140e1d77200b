"""What the code graders read in a run but cannot decide, quoted for the judge dimension that does.

Code fails a reply only on proof (`records_agree`, `sourced_values`, `action_claims`). Much of
what it reads is no proof either way: a claim whose object it cannot name, a value it can tie to
no record, a sentence that repeats the words of a review or a seller's text (relayed as the
store's fact, or reported as theirs?), a reply that uses a word of the policy the other way round
("price matching is something we offer" beside "we do not match other sellers' prices"), a
figure only the person gave, restated as the store's. Each goes, quoted, to the dimension that
decides it, as labelled evidence in the judge's reference block:

- `claims_match_state`: every claim code read, the object it tied it to, and its code verdict;
- `no_invented_facts`: values tied to no record, and sentences echoing others' texts;
- `grounded_in_policy`: words the reply says the other way round from the policy, and figures
  only the person gave.

Evidence is what code found, never a verdict: the judge reads the transcript and decides.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from commerce_evals.facts import negated_at, normalise
from commerce_evals.grading.reasons import clipped

if TYPE_CHECKING:
    from commerce_evals.grading.graders import GradeContext

Evidence = dict[str, list[tuple[str, Any]]]
_MOST = 8  # lines of one kind: enough to point at, short enough to read
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_CONTENT = re.compile(r"[A-Za-z][A-Za-z'-]{3,}")


def judge_evidence(ctx: GradeContext) -> Evidence:
    """Per dimension, the (label, value) lines of what code read and left undecided."""
    evidence: Evidence = {}
    claims = _claim_lines(ctx)
    if claims:
        evidence["claims_match_state"] = [("code_read_claims", claims)]
    facts: list[tuple[str, Any]] = []
    from commerce_evals.grading.record_facts import untied_values

    untied = untied_values(ctx)[:_MOST]
    if untied:
        facts.append(("code_untied_values", untied))
    echoes = _echoes(ctx)
    if echoes:
        facts.append(("code_echoes_of_others_text", echoes))
    staged = _staged_words(ctx)
    if staged:
        facts.append(("code_written_words_no_source_gave", staged))
    if facts:
        evidence["no_invented_facts"] = facts
    policy: list[tuple[str, Any]] = []
    against = _against_policy(ctx)
    if against:
        policy.append(("code_said_against_policy_words", against))
    person = _person_only(ctx)
    if person:
        policy.append(("code_figures_only_the_person_gave", person))
    if policy:
        evidence["grounded_in_policy"] = policy
    return evidence


def _claim_lines(ctx: GradeContext) -> list[str]:
    from commerce_evals.grading.reply_facts import read_claims

    lines = []
    for turn, claim, about, why in read_claims(ctx.run, ctx)[:_MOST]:
        verdict = f"not backed: {why}" if why else "backed by a change of the run"
        if why is None and about.startswith("no object"):
            verdict = "names no object code knows, so any change of the run counted as backing"
        lines.append(f"turn {turn + 1}: {claim.words!r} (about {about}): {verdict}")
    return lines


def _lemmas(text: str) -> dict[str, bool]:
    """Content lemmas of a text, each with whether it is said (True) or denied."""
    return dict(_lemma_items(text))


@lru_cache(maxsize=4096)
def _lemma_items(text: str) -> tuple[tuple[str, bool], ...]:
    # the same tool results and user turns are read again for every sentence of every reply
    from commerce_evals.grading.record_facts import _FUNCTION_WORDS, _lemma

    found: dict[str, bool] = {}
    norm = normalise(text)
    for m in _CONTENT.finditer(norm):
        word = m.group(0).casefold()
        if word not in _FUNCTION_WORDS:
            found.setdefault(_lemma(word), not negated_at(norm, m.start()))
    return tuple(found.items())


def _others_texts(ctx: GradeContext) -> list[tuple[str, str]]:
    """(where, text) of what others wrote that the run saw: reviews, descriptions, seller
    messages, attributes in words."""
    records = ctx.records
    seen: list[tuple[str, str]] = []
    for record in records:
        for where, texts in record.texts.items():
            seen.extend((f"{record.id} {where}", t) for t in texts)
    return seen


def _echoes(ctx: GradeContext) -> list[str]:
    """Reply sentences that share three content words with another's text the run saw."""
    from commerce_evals.grading.record_facts import written_texts

    others = [(where, text, set(_lemmas(text))) for where, text in _others_texts(ctx)]
    user = set(_lemmas(" ".join(t.user for t in ctx.run.turns)))
    lines: list[str] = []
    for where, text in written_texts(ctx.run):
        for sentence in _SENTENCE_END.split(normalise(text)):
            words = set(_lemmas(sentence)) - user
            for source, other, other_words in others:
                shared = words & other_words
                if len(shared) >= 3:
                    lines.append(
                        f"{where}: {clipped(sentence.strip())!r} repeats "
                        f"{', '.join(sorted(shared))} of {source}: {clipped(other)!r}"
                    )
                    break
    return list(dict.fromkeys(lines))[:_MOST]


def _staged_words(ctx: GradeContext) -> list[str]:
    """Text the run wrote for others to read as the store's (a listing's new text, a note): the
    content words no tool result, screen or message of the person gave ("UL certified" added to
    a description nobody asked to certify)."""
    from commerce_evals.grading.sourced import _strings

    given: set[str] = set(_lemmas(" ".join(t.user for t in ctx.run.turns)))
    for turn in ctx.run.turns:
        for res in turn.results():
            given.update(_lemmas(" ".join(_strings(res.data))))
    given.update(_lemmas(" ".join(_strings(list(ctx.shown)))))
    lines: list[str] = []
    for index, turn in enumerate(ctx.run.turns):
        for c in turn.calls():
            for key, value in c.args.items():
                if key in ("new_value", "body", "text", "description") and isinstance(value, str):
                    new = sorted(set(_lemmas(value)) - given)
                    if new:
                        lines.append(
                            f"turn {index + 1} {c.tool}.{key} {clipped(value)!r}: "
                            f"{', '.join(new)} came from no source"
                        )
    return lines[:_MOST]


def _against_policy(ctx: GradeContext) -> list[str]:
    """Reply sentences that say a word of the policy the other way round: the policy uses it
    only denied and the reply says it, or the reverse."""
    from commerce_evals.grading.record_facts import written_texts

    # the policy's paragraphs, headings left out, each read as sentences (lines are wrapped)
    policy = [
        " ".join(line.strip() for line in block.splitlines())
        for source in ctx.sources[1:]
        for block in re.split(r"\n\s*\n|^#.*$", source, flags=re.MULTILINE)
        if block.strip()
    ]
    if not policy:
        return []
    ways: dict[str, set[bool]] = {}
    quote: dict[str, str] = {}
    for line in policy:
        for sentence in _SENTENCE_END.split(line):
            for lemma, said in _lemmas(sentence).items():
                ways.setdefault(lemma, set()).add(said)
                quote.setdefault(lemma, sentence.strip())
    lines: list[str] = []
    for where, text in written_texts(ctx.run):
        for sentence in _SENTENCE_END.split(normalise(text)):
            for lemma, said in _lemmas(sentence).items():
                if ways.get(lemma) == {not said}:
                    lines.append(
                        f"{where}: {clipped(sentence.strip())!r} {'says' if said else 'denies'} "
                        f"{lemma!r}; the policy only {'denies' if said else 'says'} it: "
                        f"{clipped(quote[lemma])!r}"
                    )
    return list(dict.fromkeys(lines))[:_MOST]


def _person_only(ctx: GradeContext) -> list[str]:
    """Figures the replies state that only the person gave (a window they were told elsewhere)."""
    from commerce_evals.grading.record_facts import written_texts
    from commerce_evals.grading.sourced import run_sources, stated_values

    everyone = run_sources(ctx)
    others = run_sources(ctx, with_person=False)
    lines: list[str] = []
    for where, text in written_texts(ctx.run):
        for said in stated_values(text):
            value = float(said.mention.value)  # type: ignore[arg-type]
            backed = everyone.backs(said.kind, value, said.size, said.term, said.rough, said.bare)
            if backed and not others.backs(
                said.kind, value, said.size, said.term, said.rough, said.bare
            ):
                lines.append(
                    f"{where}: {said.mention.text!r} in {clipped(said.sentence.strip())!r}"
                )
    return list(dict.fromkeys(lines))[:_MOST]
