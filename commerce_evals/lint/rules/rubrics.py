"""Rubrics as seed 000 words them: "one PASS condition and one FAIL condition that no response
satisfies both of; it names the fixture fact that decides it; variants you accept are written
into it; it says nothing about tone, length, or the order components appear in."

Each rule reads the rubric's text beside what the case holds: the fixtures and the tool results of
its replayed reference (is a named fact one of the world's?), its known-good replies (does the
rubric accept the forms they state a fact in?). The wording rule itself (exactly one PASS and one
FAIL) is the judge's own, in judged.py.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

from commerce_evals.facts import Mention, mentions, normalise
from commerce_evals.lint.model import Finding, LintCase, LintRun
from commerce_evals.lint.registry import Rule
from commerce_evals.lint.rules.drafts import finished
from commerce_evals.lint.text import EXCLUDES as _EXCLUDES
from commerce_evals.lint.text import content_words as _content

_CONDITION = re.compile(r"\b(PASS|FAIL)\b(?:\s+(?:if|when|only if)\b)?", re.IGNORECASE)


@dataclass(frozen=True)
class Conditions:
    passes: str
    fails: str


def conditions(rubric: str) -> Conditions | None:
    """The PASS and FAIL conditions' text, or None when the rubric is not one of each (the
    rubric-pass-fail rule's finding)."""
    marks = [m for m in _CONDITION.finditer(rubric) if m.group(1).isupper()]
    if sorted(m.group(1) for m in marks) != ["FAIL", "PASS"]:
        return None
    texts = {}
    for index, mark in enumerate(marks):
        end = marks[index + 1].start() if index + 1 < len(marks) else len(rubric)
        texts[mark.group(1)] = " ".join(rubric[mark.end() : end].split()).strip(" .")
    return Conditions(texts["PASS"], texts["FAIL"])


# ---- tone, length, order ------------------------------------------------------------------------

# Units a reply's length is counted in: a number of them is a length, whatever else it says.
_TEXT_UNITS = (
    r"words?|sentences?|characters?|chars|letters|lines?|paragraphs?|bullets?|bullet points?"
    r"|emojis?|exclamation marks?|tokens?"
)
_COUNTED_LENGTH = re.compile(rf"\b\d+\s+(?:{_TEXT_UNITS})\b", re.IGNORECASE)
# The adjectives English has for the length of a text (a closed class, not a list of phrasings).
_LENGTH_WORDS = re.compile(
    r"\b(?:short|shorter|brief|briefly|concise|concisely|succinct|terse|long-winded|lengthy"
    r"|verbose|wordy|length)\b",
    re.IGNORECASE,
)
# Tone is named as such, or by an adjective of manner a reader would grade a voice by.
_TONE_WORDS = re.compile(
    r"\b(?:tone|polite|politely|friendly|warm|warmly|courteous|empathetic|empathy|apologetic"
    r"|apologi[sz]es?|cheerful|enthusiastic|upbeat|professional|formal|informal|casual|rude"
    r"|curt|respectful|kind|kindly|sympathetic|reassuring|confident|excited)\b",
    re.IGNORECASE,
)
# A position among what is shown: first, last, top, ..., or an order of items.
_POSITION = re.compile(
    r"\b(?:first|last|second|third|top|bottom|leads? with|followed by|ahead of"
    r"|in (?:that|this|the|descending|ascending|price|alphabetical) order|ordered|sorted|ranked"
    r"|ranking|order of)\b",
    re.IGNORECASE,
)
_ID = re.compile(r"\b[A-Z]{1,4}-\d+(?:-\d+)?\b")
_SHOWN = re.compile(
    r"\b(?:shows?|shown|lists?|listed|cards?|suggest\w*|present\w*|recommend\w*|picks?)\b",
    re.IGNORECASE,
)
_BEFORE_AFTER = re.compile(
    r"\b[A-Z]{1,4}-\d+\b[^.;]{0,40}\b(?:before|after)\b[^.;]{0,40}\b[A-Z]{1,4}-\d+\b"
)


def style_problems(rubric: str) -> list[str]:
    """What a rubric grades that seed 000 keeps out of rubrics: tone, length, the order of what
    is shown. A position word counts when an id or a shown thing shares its clause."""
    problems: list[str] = []
    # number words read as digits for a count ("fifty words"); the rest as written ("first")
    length = _COUNTED_LENGTH.search(normalise(rubric)) or _LENGTH_WORDS.search(rubric)
    text = rubric
    if length:
        problems.append(f"it grades length ({length.group(0)!r})")
    tone = _TONE_WORDS.search(text)
    if tone:
        problems.append(f"it grades tone ({tone.group(0)!r})")
    # a parenthesis is read as the ids it names, in the clause it stands in
    text = re.sub(r"\(([^)]*)\)", lambda m: " ".join(_ID.findall(m.group(1))), text)
    for clause in re.split(r"[.;,]|\bor\b|\band\b", text):
        position = _POSITION.search(clause)
        if position and (_ID.search(clause) or _SHOWN.search(clause)):
            problems.append(f"it grades the order things are shown in ({clause.strip()!r})")
            break
    else:
        order = _BEFORE_AFTER.search(text)
        if order:
            problems.append(f"it grades the order things are shown in ({order.group(0)!r})")
    return problems


def rule_rubric_no_style(run: LintRun) -> Iterator[Finding]:
    """A rubric says nothing about tone, length (a count of words, sentences or lines, or a word
    for length) or the order shown things appear in (an id or a shown thing placed first, last,
    on top, before another)."""
    for item in run.cases:
        rubric = item.case.expected.rubric
        for problem in style_problems(rubric) if rubric else []:
            yield item.finding(
                "rubric-no-style",
                f"{problem}: a rubric judges what the reply says against the fixtures; drop it, "
                "or make it a key (reply_states, last_presented)",
            )


# ---- the fact that decides it -------------------------------------------------------------------


@dataclass(frozen=True)
class WorldFacts:
    """What a case's world holds, as text and as values: the fixture records, the tool results
    of its replayed reference, the domain's policy, the case's own state and turns."""

    text: str
    numbers: frozenset[float]
    dates: frozenset[date]

    def holds_number(self, value: float) -> bool:
        return any(abs(value - n) <= 0.01 for n in self.numbers)

    def holds_date(self, value: date) -> bool:
        return any((d.month, d.day) == (value.month, value.day) for d in self.dates)

    def holds_token(self, token: str) -> bool:
        return (
            re.search(rf"(?<![\w]){re.escape(token)}(?![\w])", self.text, re.IGNORECASE) is not None
        )


_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")


def world_facts(item: LintCase) -> WorldFacts:
    parts: list[object] = [item.case.turns, item.case.state]
    if item.world is not None:
        parts.append(item.world.records_of(item.world.known_ids()))
        parts.append(item.world.judge_context())
    parts.append([answer for turn in item.replay for _, answer in turn])
    text = json.dumps(parts, default=str)
    return _facts_of(text)


@lru_cache(maxsize=64)
def _facts_of(text: str) -> WorldFacts:
    numbers = {float(n.replace(",", "")) for n in _NUMBER.findall(text)}
    dates = {m.value for m in mentions(text) if m.kind == "date" and isinstance(m.value, date)}
    # a fixture's ISO dates, read whole
    for iso in re.findall(r"\b(\d{4})-(\d{2})-(\d{2})", text):
        try:
            dates.add(date(int(iso[0]), int(iso[1]), int(iso[2])))
        except ValueError:
            continue
    return WorldFacts(text, frozenset(numbers), frozenset(dates))


_CODE = re.compile(r"[\w.:/-]*\d[\w.:/-]*")
_QUOTED = re.compile(r"\"([^\"]{2,})\"|'([^']{2,})'")


def named_facts(rubric: str, facts: WorldFacts) -> list[str]:
    """The facts of the world a rubric names: ids, amounts, dates, percents and quoted names the
    world holds. A count of words or lines is no fact, and neither is a number the world lacks."""
    found = [token for token in _ID.findall(rubric) if facts.holds_token(token)]
    # a key, a code or an external id written as the fixtures write it (sk_test_...4f2a)
    for token in _CODE.findall(rubric):
        token = token.rstrip(".:,")
        if not _NUMBER.fullmatch(token) and len(token) >= 4 and facts.holds_token(token):
            found.append(token)
    text = normalise(rubric)
    for mention in mentions(rubric):
        if _COUNTED_LENGTH.match(text[mention.start :]):
            continue
        if isinstance(mention.value, date):
            if facts.holds_date(mention.value):
                found.append(mention.text)
        elif facts.holds_number(float(mention.value)) and mention.kind != "count":
            found.append(mention.text)
    for match in _QUOTED.finditer(rubric):
        name = match.group(1) or match.group(2)
        if facts.holds_token(name):
            found.append(name)
    return list(dict.fromkeys(found))


def rule_rubric_names_fact(run: LintRun) -> Iterator[Finding]:
    """A rubric names the fixture fact that decides it: an id the fixtures hold, or an amount,
    date, percent or quoted name that a fixture record, a tool result of the reference run, the
    domain's policy or the case's own turns hold. A digit is not enough: "under 50 words" names
    no fact of the world."""
    for item in finished(run):
        rubric = item.case.expected.rubric
        if rubric and not named_facts(rubric, world_facts(item)):
            yield item.finding(
                "rubric-names-fact",
                "the rubric names no fact of the fixtures (an id they hold, or an amount, date "
                "or quoted name a record, a tool result of the reference or the policy gives) "
                "that decides it",
            )


# ---- no response satisfies both -----------------------------------------------------------------

# A PASS clause rules out what it quantifies over whole ("every shoe", "each gift") as well.
_RULES_OUT = re.compile(rf"{_EXCLUDES.pattern}|\b(?:every|each|all)\b", re.IGNORECASE)
_ALTERNATIVE = re.compile(r",?\s+\bor\b\s+|;\s*|,\s+(?!\d)")
_DETERMINER = re.compile(r"^(?:the|a|an|any|its|their|all|some)\b", re.IGNORECASE)


_COMPLEMENT = re.compile(
    r"^(?:(?:it|the reply|the agent|they)\s+)?(?:does not|doesn't|did not|is not|isn't|do not"
    r"|not|otherwise)(?:\s+(?:do|say|pass) so)?\.?$",
    re.IGNORECASE,
)


def _omits(alternative: str) -> bool:
    """An alternative about something missing: it opens on an absence or its own verb is
    negated ("gives no date", "leaves out the price", "says nothing", "picks one without naming
    ..."), not a claim about something else that is not so ("reports something they do not say")."""
    words = re.findall(r"[\w'$-]+", alternative.casefold())
    words = [w for w in words if w not in {"it", "the", "reply", "agent"}]
    return bool(_EXCLUDES.search(" ".join(words[:3])))


@dataclass(frozen=True)
class Alternative:
    text: str
    omission: bool


def fail_alternatives(fails: str) -> list[Alternative]:
    """The FAIL condition's alternatives ("X, Y or Z"). A piece with fewer than two content
    words joins the next ("any suggested or recommended shoe"); a noun phrase that goes on from
    the piece before ("leaves out the material difference or the price difference") is read with
    its verb, so it is missing when that one is."""
    # a parenthesis gives an example of an alternative, not another one
    fails = re.sub(r"\([^)]*\)", "", fails)
    pieces = [p.strip() for p in _ALTERNATIVE.split(fails) if p.strip()]
    merged: list[str] = []
    carry = ""
    for piece in pieces:
        piece = f"{carry} or {piece}" if carry else piece
        # a piece too short to stand alone ("any suggested", "it says") goes on in the next one,
        # unless it says what is missing ("it says nothing")
        carry = piece if len(_content(piece)) < 2 and not _EXCLUDES.search(piece) else ""
        if not carry:
            merged.append(piece)
    if carry:
        merged.append(carry)
    found: list[Alternative] = []
    for piece in merged:
        omission = _omits(piece)
        if not omission and found and _DETERMINER.match(piece) and not _has_verb(piece):
            omission = found[-1].omission
        found.append(Alternative(piece, omission))
    return found


def _about(anchors: set[str], head: str, clause: set[str]) -> bool:
    return head in clause or len(anchors & clause) * 2 > len(anchors)


def _head(text: str) -> str:
    """The first content word of an alternative: what it is about (recommends, suggests, a
    gift, the balance)."""
    words = re.findall(r"[A-Za-z][A-Za-z0-9'_-]+|\$?\d[\d,.]*\d|\d", normalise(text).casefold())
    for word in words:
        found = _content(word)
        if found:
            return min(found)
    return ""


def _has_verb(text: str) -> bool:
    """Whether a piece holds a finite verb of its own (is, costs, recommends, came)."""
    from lemminflect import getAllLemmas

    for word in re.findall(r"[a-z]+", text.casefold()):
        if word in {"is", "are", "was", "were", "has", "have", "does", "did"}:
            return True
        verb = word.endswith(("s", "ed")) and getAllLemmas(word, "VERB").get("VERB")
        if verb and not getAllLemmas(word, "NOUN").get("NOUN"):
            return True
    return False


def exclusivity_problems(rubric: str) -> list[str]:
    """FAIL alternatives the PASS condition does not rule out, so a reply could satisfy both.

    An alternative about something missing is ruled out by a PASS requirement about the same
    thing (a content word or a fact in common); an alternative about something done or said
    (recommends P-1017, suggests one over $100) only by a PASS clause about its head (what is
    done or named: recommends, suggests, a gift) that excludes it or holds for every case (no,
    never, not, only, nothing else, every, each). A bare complement ("FAIL otherwise", "FAIL if
    it does not") rules itself out."""
    parts = conditions(rubric)
    if parts is None:
        return []
    # a parenthesis is read with the clause it stands in
    passes = re.sub(
        r"\([^)]*\)", lambda m: m.group(0).replace(",", " ").replace(";", " "), parts.passes
    )
    pass_clauses = [c for c in re.split(r"[.;]|\band\b|,\s(?!\d)", passes) if c.strip()]
    problems: list[str] = []
    for alternative in fail_alternatives(parts.fails):
        if _COMPLEMENT.match(alternative.text):  # "otherwise", "it does not"
            continue
        if alternative.omission and not _content(alternative.text):
            continue  # "it says nothing of that": the PASS condition, missing
        # what it is about; an alternative of only common verbs ("something they do not say")
        # is about those
        anchors = _content(alternative.text) or _content(alternative.text, common=True)
        if alternative.omission:
            ruled_out = any(anchors & _content(clause) for clause in pass_clauses)
        else:  # the clause that excludes it is about it: its head, or most of what it names
            head = _head(alternative.text) or min(anchors, default="")
            common = not _content(alternative.text)
            ruled_out = any(
                _about(anchors, head, _content(clause, common)) and _RULES_OUT.search(clause)
                for clause in pass_clauses
            )
        if not ruled_out:
            problems.append(alternative.text)
    return problems


def rule_rubric_exclusive(run: LintRun) -> Iterator[Finding]:
    """No reply satisfies both conditions: every FAIL alternative is one the PASS condition rules
    out (a missing thing the PASS requires, or a thing done or said that the PASS excludes)."""
    for item in run.cases:
        rubric = item.case.expected.rubric
        for alternative in exclusivity_problems(rubric) if rubric else []:
            yield item.finding(
                "rubric-exclusive",
                f"a reply could pass and fail at once: the PASS condition does not rule out "
                f"{alternative!r}; add to PASS that it does not happen (no, never, only ...)",
            )


# ---- the variants it accepts --------------------------------------------------------------------

_ANY_FORM = re.compile(
    r"\bin any (?:(?:date|written|other) )?(?:format|form|words|wording|order|phrasing|unit)s?\b"
    r"|\bany written form\b|\bhowever (?:it is )?(?:written|worded|phrased)\b",
    re.IGNORECASE,
)


_BOUND = re.compile(
    r"\b(?:under|over|up to|at most|at least|less than|more than|below|above|within|no more"
    r"|no less)\s*$",
    re.IGNORECASE,
)
_BOUND_AFTER = re.compile(r"^\s*(?:or (?:less|more|under|over|lower|higher|below|above))\b")


def _forms(text: str, kind: str, value: float | date) -> list[Mention]:
    """The mentions of one value in a text, as stated (not negated, not a bound's end)."""
    normal = normalise(text)
    return [
        m
        for m in mentions(text)
        if m.kind == kind
        and not m.negated
        and _same(kind, value, m)
        and not _BOUND.search(normal[: m.start])
        and not _BOUND_AFTER.match(normal[m.end :])
    ]


def _same(kind: str, value: float | date, mention: Mention) -> bool:
    if isinstance(value, date) and isinstance(mention.value, date):
        return (value.month, value.day) == (mention.value.month, mention.value.day)
    if isinstance(value, date) or isinstance(mention.value, date):
        return False
    return abs(float(value) - float(mention.value)) < 0.005


def _form(mention: Mention) -> str:
    """How a value is written, its typography aside: an amount's "$", "USD", cents of .00 and
    thousands commas are one form; a date written with its month's name and one in digits are
    two, as are "$24k" and "$24,000"."""
    text = mention.text.casefold()
    if mention.kind in ("money", "percent", "count"):
        text = re.sub(r"usd|dollars?|bucks|percent|per ?cent|pct|[$%,\s]", "", text)
        return re.sub(r"\.0+$", "", text)
    text = re.sub(r"(\d)(?:st|nd|rd|th)\b", r"\1", text)
    return "name" if re.search(r"[a-z]", text) else ("iso" if "-" in text else "slash")


def variant_problems(item: LintCase) -> list[str]:
    """Forms a known-good reply states a rubric's amount or date in that the rubric neither
    writes in nor accepts as 'any format' or 'any words'."""
    rubric = item.case.expected.rubric
    if not rubric or _ANY_FORM.search(rubric):
        return []
    parts = conditions(rubric)
    if parts is None:
        return []
    replies = [("reference", item.case.reference or [])] + [
        (f"alternative {a.name}", item.case.script(a.name)) for a in item.case.alternatives
    ]
    problems: list[str] = []
    for wanted in _stated(parts.passes):
        written = {_form(m) for m in _forms(rubric, wanted.kind, wanted.value)}
        for name, script in replies:
            if not script:
                continue
            for said in _forms(script[-1].spoken(), wanted.kind, wanted.value):
                if _form(said) not in written:
                    problems.append(f"{name} states {wanted.text!r} as {said.text!r}")
    return sorted(set(problems))


def _stated(condition: str) -> list[Mention]:
    """The amounts and dates a condition asks be stated (not bounds, not counts)."""
    return [
        m
        for m in mentions(condition)
        if m.kind != "count" and m in _forms(condition, m.kind, m.value)
    ]


def rule_rubric_variants(run: LintRun) -> Iterator[Finding]:
    """The variants a rubric accepts are written into it: every form a known-good reply (the
    reference's, an alternative's) states one of the PASS condition's amounts or dates in is
    written in the rubric, or the rubric says it accepts any format or any words."""
    for item in finished(run):
        for problem in variant_problems(item):
            yield item.finding(
                "rubric-variants",
                f"{problem}, a form the rubric does not write in: add it, or say the rubric "
                "accepts it in any format",
            )


RULES: dict[str, Rule] = {
    "rubric-names-fact": rule_rubric_names_fact,
    "rubric-no-style": rule_rubric_no_style,
    "rubric-exclusive": rule_rubric_exclusive,
    "rubric-variants": rule_rubric_variants,
}
