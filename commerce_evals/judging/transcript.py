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
is still over, its tool and UI lines go first (oldest first), and as a last resort its longest
values are clipped from their start. The graded turn's user message and replies stay whole unless
one of them is larger than the budget by itself.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from commerce_evals.harness.events import Run
from commerce_evals.reports.run_text import Style, run_lines

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


@dataclass(frozen=True)
class Line:
    """One event: a fixed prefix (turn label, kind, tool) and one quoted value."""

    turn: int
    prefix: str
    value: Any
    essential: bool  # a user message or a reply: kept when a graded turn must shrink
    clipped: int = 0  # characters cut from the start of the value, said outside the value

    @property
    def text(self) -> str:
        mark = CUT_MARK.format(n=self.clipped) if self.clipped else ""
        return self.prefix + mark + quote(self.value)


@dataclass(frozen=True)
class Cut:
    """What was left out to fit the budget. All counts are zero when nothing was cut."""

    budget: int
    original_chars: int
    kept_chars: int
    turns_dropped: int = 0
    events_dropped: int = 0
    values_clipped: int = 0

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
                f"{self.events_dropped} tool or UI event(s) of the graded turn were left out"
            )
        if self.values_clipped:
            parts.append(
                f"{self.values_clipped} long value(s) were shortened from their start "
                "(marked [first N chars cut] before the value)"
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


# The judge's way of writing the lines of commerce_evals/reports/run_text.py: the harness's
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
    """The run's turns (the last one graded), then what it changed in the store (cut after the
    graded turn's tool lines)."""
    return [Line(x.turn, x.prefix, x.value, x.essential) for x in run_lines(run, JUDGE)]


def _size(lines: list[Line]) -> int:
    return sum(len(line.text) + 1 for line in lines)


# Written by the harness between a line's prefix and its quoted value, never inside the value.
CUT_MARK = "[first {n} chars cut] "
CUT_MARK_PATTERN = r"\[first \d+ chars cut\] "


def _clip(line: Line, excess: int) -> Line:
    """The line with its value shortened from the start by at least `excess` characters."""
    raw = line.value if isinstance(line.value, str) else json.dumps(line.value, ensure_ascii=False)
    keep = max(0, len(raw) - excess - len(CUT_MARK) - 8)
    cut = len(raw) - keep
    return Line(line.turn, line.prefix, raw[cut:], line.essential, line.clipped + cut)


def render(run: Run, budget: int) -> QuotedTranscript:
    """The run as quoted lines within `budget` characters (cut from the start, graded turn kept)."""
    last = len(run.turns) - 1
    lines = _lines(run)
    original = _size(lines)
    turns_dropped = events_dropped = values_clipped = 0
    # 1. whole earlier turns, oldest first
    while _size(lines) > budget and lines and lines[0].turn != last:
        first_turn = lines[0].turn
        lines = [line for line in lines if line.turn != first_turn]
        turns_dropped += 1
    # 2. the graded turn's tool and UI lines, oldest first
    while _size(lines) > budget:
        index = next((i for i, line in enumerate(lines) if not line.essential), None)
        if index is None:
            break
        del lines[index]
        events_dropped += 1
    # 3. the longest remaining values, from their start
    while _size(lines) > budget and lines:
        index = max(range(len(lines)), key=lambda i: len(lines[i].text))
        before = _size(lines)
        clipped = _clip(lines[index], before - budget)
        if len(clipped.text) >= len(lines[index].text):
            break  # nothing left to clip: the prefixes alone are over budget
        lines[index] = clipped
        values_clipped += 1
    text = "\n".join(line.text for line in lines)
    cut = Cut(
        budget=budget,
        original_chars=original,
        kept_chars=_size(lines),
        turns_dropped=turns_dropped,
        events_dropped=events_dropped,
        values_clipped=values_clipped,
    )
    return QuotedTranscript(text=text, cut=cut, graded_turn=last + 1, lines=lines)
