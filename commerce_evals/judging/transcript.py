"""A Run as quoted material for a judge: one event a line, every value a JSON literal.

Why this shape: a value is always JSON-encoded on the line of its event, so text in the run (a user
message, a review, a tool result) can never start a line of its own: every line starts with the
harness's `[turn N]`. Inside a value, `<` and `>` are written as \\u003c and \\u003e, and so is every
character that reads as an angle bracket (full-width, small, math and CJK forms), every invisible
format character (zero-width, bidirectional controls, tag characters) and every line or paragraph
separator, so no value can open or close a block the prompt puts it in, even to a reader that folds
look-alikes. What the harness says about a line (that its value was clipped) is in the line's
prefix, outside the value, so no value can imitate it. Lines look like:

    [turn 1] user: "Add the trail shoe"
    [turn 1] tool_call add_to_cart {"product_id": "P-1"}
    [turn 1] tool_result add_to_cart ok {"status": "ok", ...}
    [turn 2 graded] agent: "Added it."
    [turn 2 graded] agent [first 3120 chars cut]: "...the end of a long reply"
    [after the run] changes cart {"added": [{"product_id": "P-1", "quantity": 1}], "removed": []}

When the text is over budget, whole turns are cut from the start; if the graded (last) turn alone
is still over, its tool, UI and turn-end lines go first (oldest first), then its longest values are
clipped from their start (a long reply loses its beginning, marked on its line). The `[after the
run]` change lines are the evidence `claims_match_state` judges against: they are never dropped,
and clipped only when they alone are larger than the budget. The note (Cut.note) names each line
that was clipped. Every step is one pass over the lines: the cost is linear in the events.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import Any

from commerce_evals.core.events import Run
from commerce_evals.judging.run_text import Kind, Style, run_lines

# JSON already escapes C0 controls and quotes; these are the rest that could end a line, open or
# close a block, or hide text from the person reading the prompt.
# Characters a reader may take for an angle bracket; their NFKC forms are caught separately.
_ANGLE_LOOKALIKES = frozenset(
    "\u00ab\u00bb\u02c2\u02c3\u1438\u1433\u2039\u203a\u2329\u232a\u276c\u276d\u276e\u276f"
    "\u2770\u2771\u27e8\u27e9\u27ea\u27eb\u2991\u2992\u29fc\u29fd\u3008\u3009\u300a\u300b"
    "\ufe3d\ufe3e\ufe3f\ufe40"
)
_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co"})


def _needs_escape(char: str) -> bool:
    if char in "<>" or char in _ANGLE_LOOKALIKES:
        return True
    if unicodedata.category(char) in _ESCAPED_CATEGORIES:
        return True
    folded = unicodedata.normalize("NFKC", char)
    return "<" in folded or ">" in folded


def _json_escape(code: int) -> str:
    """The JSON escape of a code point (a surrogate pair above the BMP)."""
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


@cache
def _escape_table() -> dict[int, str]:
    """Built on first use (about 0.1 s): every assigned look-alike and format character lies
    below U+30000 or in plane 14 (tag characters)."""
    spans = [range(0x80, 0x30000), range(0xE0000, 0xE1000)]
    table = {ord("<"): _json_escape(ord("<")), ord(">"): _json_escape(ord(">"))}
    for span in spans:
        for code in span:
            if _needs_escape(chr(code)):
                table[code] = _json_escape(code)
    return table


_PLAIN_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")


def quote(value: Any) -> str:
    """A JSON literal on one line that cannot contain a tag, a look-alike of one, or a line break."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return text.translate(_escape_table())


def quote_text(text: str) -> str:
    """Reference material (a policy, a change set as text): one JSON string literal per line."""
    return "\n".join(quote(line) for line in text.strip().splitlines())


def name(value: str) -> str:
    """A tool or component name as is when it is a plain identifier, else quoted (the model chose it)."""
    return value if _PLAIN_NAME.fullmatch(value) else quote(value)


def unquote(literal: str) -> Any:
    """The inverse of quote() (JSON reads the \\u escapes back)."""
    return json.loads(literal)


# The change set after the run: what a claim of a done action is judged against.
EVIDENCE: frozenset[Kind] = frozenset({"changed", "unchanged"})
_WHAT: dict[str, str] = {
    "user": "the user message",
    "reply": "an agent reply",
    "changed": "a change line",
    "unchanged": "the change line",
}


@dataclass(frozen=True)
class Line:
    """One event: a fixed prefix (turn label, kind, tool) and one quoted value."""

    turn: int
    prefix: str
    value: Any
    essential: bool  # a user message or a reply: kept when a graded turn must shrink
    clipped: int = 0  # characters cut from the start of the value, said outside the value
    kind: Kind = "other"

    @cached_property
    def text(self) -> str:
        """Written once per line: the cuts below read every line's size, often several times."""
        mark = CUT_MARK.format(n=self.clipped) if self.clipped else ""
        return self.prefix + mark + quote(self.value)

    @property
    def size(self) -> int:
        return len(self.text) + 1  # with its line break

    @property
    def evidence(self) -> bool:
        return self.kind in EVIDENCE

    def describe(self) -> str:
        """Which line this is, for the note: `an agent reply of turn 3 (first 3120 chars cut)`."""
        where = "after the run" if self.evidence else f"turn {self.turn + 1}"
        what = _WHAT.get(self.kind, f"a {self.kind} line")
        return f"{what} of {where} (first {self.clipped} chars cut)"


_NAMED_CLIPS = 5  # clipped lines the note names one by one


@dataclass(frozen=True)
class Cut:
    """What was left out to fit the budget. All counts are zero when nothing was cut."""

    budget: int
    original_chars: int
    kept_chars: int
    turns_dropped: int = 0
    events_dropped: int = 0
    values_clipped: int = 0
    clipped: tuple[str, ...] = ()  # Line.describe() of each clipped line, for the note

    @property
    def chars_dropped(self) -> int:
        return self.original_chars - self.kept_chars

    @property
    def happened(self) -> bool:
        return bool(self.turns_dropped or self.events_dropped or self.values_clipped)

    def as_metadata(self) -> dict[str, int]:
        return {
            "budget": self.budget,
            "original_chars": self.original_chars,
            "kept_chars": self.kept_chars,
            "chars_dropped": self.chars_dropped,
            "turns_dropped": self.turns_dropped,
            "events_dropped": self.events_dropped,
            "values_clipped": self.values_clipped,
        }

    def note(self) -> str:
        """What the judge is told about the cut (empty when nothing was cut)."""
        if not self.happened:
            return ""
        parts = []
        if self.turns_dropped:
            parts.append(f"the first {self.turns_dropped} turn(s) were left out")
        if self.events_dropped:
            parts.append(
                f"{self.events_dropped} tool, UI or turn-end event(s) of the graded turn were "
                "left out"
            )
        if self.values_clipped:
            named = ", ".join(self.clipped[:_NAMED_CLIPS])
            more = len(self.clipped) - _NAMED_CLIPS
            parts.append(
                f"{self.values_clipped} long value(s) were shortened from their start "
                f"(marked [first N chars cut] before the value): {named}"
                + (f" and {more} more" if more > 0 else "")
            )
        return (
            f"The transcript was cut to fit: {'; '.join(parts)} "
            f"({self.chars_dropped} of {self.original_chars} characters). "
            "Judge what is shown; if the criterion depends on what was cut, answer Unknown."
        )


@dataclass(frozen=True)
class QuotedTranscript:
    text: str
    cut: Cut
    graded_turn: int
    lines: list[Line] = field(default_factory=list, compare=False)


# The judge's way of writing the lines of commerce_evals/judging/run_text.py: the harness's
# prefix, then the value as one quoted literal (Line.text).
JUDGE = Style(
    heads={
        "user": "user: ",
        "reply": "agent: ",
        "tool_call": "tool_call {name} ",
        "tool_result": "tool_result {name} {status} ",
        "ui": "ui {name} ",
        "cart": "cart_update ",
        "changes": "change_update ",
        "turn_end": "turn_end ",
        "other": "event ",
        "changed": "changes {name} ",
        "unchanged": "changes ",
    },
    label="[turn {n}{graded}] ",
    graded=" graded",
    after="[after the run] ",
    name=name,
    status=quote,
)


def _lines(run: Run) -> list[Line]:
    """The run's turns (the last one graded), then what it changed in the store."""
    return [
        Line(x.turn, x.prefix, x.value, x.essential, kind=x.kind) for x in run_lines(run, JUDGE)
    ]


def _size(lines: list[Line]) -> int:
    return sum(line.size for line in lines)


# Written by the harness between a line's prefix and its quoted value, never inside the value.
CUT_MARK = "[first {n} chars cut] "
CUT_MARK_PATTERN = r"\[first \d+ chars cut\] "


def _clip(line: Line, excess: int) -> Line:
    """The line shortened by at least `excess` characters (or to an empty value), its value cut
    from the start. A value that is not text is cut as JSON text, which quoting lengthens (every
    `"` is written `\\"`): the cut grows until the written line fits, at most a few times."""
    raw = line.value if isinstance(line.value, str) else json.dumps(line.value, ensure_ascii=False)
    allowed = line.size - excess
    keep = max(0, len(raw) - excess - len(CUT_MARK) - 8)
    while True:
        cut = len(raw) - keep
        shorter = Line(
            line.turn, line.prefix, raw[cut:], line.essential, line.clipped + cut, line.kind
        )
        over = shorter.size - allowed
        if over <= 0 or keep == 0:
            return shorter
        keep = max(0, keep - over)  # each kept character is at least one written one


def _drop_earlier_turns(lines: list[Line], budget: int, last: int) -> tuple[list[Line], int]:
    """Whole turns before the graded one, oldest first, until the lines fit."""
    total = _size(lines)
    by_turn: dict[int, int] = {}
    for line in lines:
        by_turn[line.turn] = by_turn.get(line.turn, 0) + line.size
    dropped: set[int] = set()
    for turn, size in by_turn.items():  # in the order the turns were played
        if total <= budget or turn == last:
            break
        dropped.add(turn)
        total -= size
    return [line for line in lines if line.turn not in dropped], len(dropped)


def _drop_events(lines: list[Line], budget: int) -> tuple[list[Line], int]:
    """The tool, UI and turn-end lines, oldest first, until the lines fit; never a user
    message, a reply or the change set."""
    total = _size(lines)
    kept: list[Line] = []
    for line in lines:
        if total > budget and not line.essential and not line.evidence:
            total -= line.size
            continue
        kept.append(line)
    return kept, len(lines) - len(kept)


def _clip_longest(lines: list[Line], budget: int) -> tuple[list[Line], list[str]]:
    """The longest values, from their start, until the lines fit: every other line before the
    change set, which is clipped only when it alone is over the budget."""
    total = _size(lines)
    lines = list(lines)
    clipped: list[str] = []
    for index in sorted(range(len(lines)), key=lambda i: (lines[i].evidence, -lines[i].size)):
        if total <= budget:
            break
        shorter = _clip(lines[index], total - budget)
        if shorter.size >= lines[index].size:
            continue  # a short value: its mark would cost more than it saves
        total += shorter.size - lines[index].size
        lines[index] = shorter
        clipped.append(shorter.describe())
    return lines, clipped


def render(run: Run, budget: int) -> QuotedTranscript:
    """The run as quoted lines within `budget` characters (cut from the start, graded turn and
    change set kept)."""
    last = len(run.turns) - 1
    lines = _lines(run)
    original = _size(lines)
    lines, turns_dropped = _drop_earlier_turns(lines, budget, last)
    lines, events_dropped = _drop_events(lines, budget)
    lines, clipped = _clip_longest(lines, budget)
    text = "\n".join(line.text for line in lines)
    cut = Cut(
        budget=budget,
        original_chars=original,
        kept_chars=_size(lines),
        turns_dropped=turns_dropped,
        events_dropped=events_dropped,
        values_clipped=len(clipped),
        clipped=tuple(clipped),
    )
    return QuotedTranscript(text=text, cut=cut, graded_turn=last + 1, lines=lines)
