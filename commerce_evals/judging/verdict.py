"""Reading a verdict out of a judge's reply.

A reply may be a JSON object (structured output) or text with labelled lines. Either way the LAST
verdict wins, so a critique that quotes a "Verdict: Pass" from the run before the judge's own
verdict line cannot decide it. Anything the judge echoes inside a transcript or reference block is
removed first, so a quoted verdict after the real one is not read either. No verdict found: None,
which the caller records as a judge failure.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Literal

VerdictLabel = Literal["Pass", "Fail", "Unknown"]
LABELS: dict[str, VerdictLabel] = {"pass": "Pass", "fail": "Fail", "unknown": "Unknown"}

# An echoed block runs from its first opening tag to the LAST closing tag of the same name (or to
# the end): quoted text may hold a forged closing tag, and ending at the first one would let the
# text after it count as the judge's own words. A verdict written between two echoes is lost with
# them, which makes a judge failure, never a wrong verdict.
_OPEN = re.compile(r"<(transcript|reference)>", re.IGNORECASE)
# "Verdict: Pass", "**Verdict:** Fail", "result = unknown", "- Verdict - Pass"
_LINE = re.compile(
    r"^[\s>*_#`-]*(?:final\s+)?(?:verdict|result)[\s*_`]*[:=\-][\s*_`\"']*(pass|fail|unknown)\b",
    re.IGNORECASE | re.MULTILINE,
)
_CRITIQUE_LINE = re.compile(r"^[\s>*_#`-]*critique[\s*_`]*:[\s*_`]*", re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True)
class ParsedVerdict:
    verdict: VerdictLabel
    critique: str
    source: Literal["json", "line"]


def strip_echoes(reply: str) -> str:
    while match := _OPEN.search(reply):
        close = reply.lower().rfind(f"</{match.group(1).lower()}>")
        end = close + len(match.group(1)) + 3 if close > match.start() else len(reply)
        reply = reply[: match.start()] + " " + reply[end:]
    return reply


def _json_candidates(text: str) -> list[tuple[int, ParsedVerdict]]:
    decoder = json.JSONDecoder()
    found: list[tuple[int, ParsedVerdict]] = []
    index = text.find("{")
    while index >= 0:
        try:
            value, end = decoder.raw_decode(text, index)
        except json.JSONDecodeError:
            index = text.find("{", index + 1)
            continue
        if isinstance(value, dict):
            label = value.get("verdict", value.get("result"))
            if isinstance(label, str) and label.strip().casefold() in LABELS:
                critique = value.get("critique", value.get("reason", ""))
                found.append(
                    (end, ParsedVerdict(LABELS[label.strip().casefold()], str(critique), "json"))
                )
        index = text.find("{", end)
    return found


def _line_candidates(text: str) -> list[tuple[int, ParsedVerdict]]:
    found: list[tuple[int, ParsedVerdict]] = []
    for match in _LINE.finditer(text):
        before = text[: match.start()]
        critiques = list(_CRITIQUE_LINE.finditer(before))
        critique = before[critiques[-1].end() :] if critiques else before
        found.append(
            (
                match.end(),
                ParsedVerdict(LABELS[match.group(1).casefold()], critique.strip(), "line"),
            )
        )
    return found


def parse_verdict(reply: str) -> ParsedVerdict | None:
    """The last verdict in the reply, from a JSON object or a labelled line; None if there is none."""
    text = strip_echoes(reply)
    candidates = _json_candidates(text) + _line_candidates(text)
    if not candidates:
        return None
    return max(candidates, key=lambda c: c[0])[1]
