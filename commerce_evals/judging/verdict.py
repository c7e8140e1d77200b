"""Reading a verdict out of a judge's reply, by the format the judge was asked for.

JSON (the default; the judge is sent Inspect's `ResponseSchema` where the provider supports it):
the verdict is one JSON object `{"critique": ..., "verdict": ...}`. When the whole reply is that
object (the structured-output case), it is the verdict. Otherwise the judge's object is the LAST
one that starts a line and lies outside quoted material, where quoted material is a block-quote
line (`> ...`) or a fenced block not marked `json`. Objects inside another object (a critique that
quotes JSON) are never candidates, and neither is an object that does not start its line: every
line of the transcript the judge was shown starts with `[turn`, and every reference line with a
JSON string, so nothing echoed from the prompt can ever be read as the judge's own verdict.

Text lines (the fallback, only for a provider that can do neither): the judge's FINAL non-empty
line must be the verdict (`Verdict: Fail`, `**Final verdict:** failed.`, `My verdict: Pass`);
nothing earlier is searched, so a verdict quoted before it never counts, and a reply whose last
line is anything else has no verdict.

Labels: pass, passed, fail, failed, unknown, in any case (Unicode compatibility forms, such as a
full-width colon or full-width letters, are read as their plain forms). Nothing is ever deleted
from a reply because of a tag found in it. No verdict: None, which the caller records as a judge
failure (never a pass).
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

VerdictLabel = Literal["Pass", "Fail", "Unknown"]
Mode = Literal["json", "line"]
LABELS: dict[str, VerdictLabel] = {
    "pass": "Pass",
    "passed": "Pass",
    "fail": "Fail",
    "failed": "Fail",
    "unknown": "Unknown",
}
ANSWER_KEYS = frozenset({"critique", "verdict"})

_LABEL = r"(pass(?:ed)?|fail(?:ed)?|unknown)"
# The final line: "Verdict: Fail", "**Final verdict** - failed.", "My verdict is Pass", "Fail"
_FINAL_LINE = re.compile(
    rf"^(?:(?:(?:my|the|final|overall)\s+)*(?:verdict|result)\s*(?:is\s*)?[:=\-–—]?\s*)?"
    rf"{_LABEL}\s*[.!]?$",
    re.IGNORECASE,
)
_DECORATION = str.maketrans("", "", "*_`#")
_CRITIQUE_LABEL = re.compile(r"^\s*[*_#`]*\s*critique\s*[*_`]*\s*:\s*", re.IGNORECASE)
_FENCE = re.compile(r"^\s*(```|~~~)\s*([A-Za-z0-9_+-]*)")


@dataclass(frozen=True)
class ParsedVerdict:
    verdict: VerdictLabel
    critique: str
    source: Literal["json", "line"]


def plain(text: str) -> str:
    """Compatibility forms folded (full-width letters and colons read as plain ones)."""
    return unicodedata.normalize("NFKC", text)


def label_of(value: object) -> VerdictLabel | None:
    if not isinstance(value, str):
        return None
    return LABELS.get(plain(value).strip().rstrip(".!").strip().casefold())


def _answer(value: object) -> ParsedVerdict | None:
    """A JSON value read as the judge's answer: an object of the schema's keys with a known label."""
    if not isinstance(value, dict) or "verdict" not in value or not set(value) <= ANSWER_KEYS:
        return None
    label = label_of(value["verdict"])
    if label is None:
        return None
    return ParsedVerdict(label, str(value.get("critique", "")), "json")


def _whole(reply: str) -> ParsedVerdict | None:
    """The reply as one JSON object (allowing one fence around it)."""
    text = reply.strip()
    fence = _FENCE.match(text)
    if fence and text.endswith(fence.group(1)) and len(text) > 6:
        text = text[fence.end() : -len(fence.group(1))].strip()
    try:
        return _answer(json.loads(text))
    except (json.JSONDecodeError, RecursionError):
        return None


def _own_lines(reply: str) -> list[tuple[int, str]]:
    """(offset, line) of each line the judge wrote in its own voice: not a block-quote line,
    not inside a fence other than a `json` one."""
    lines: list[tuple[int, str]] = []
    offset = 0
    fence: str | None = None
    own_fence = False
    for line in reply.splitlines(keepends=True):
        opened = _FENCE.match(line)
        if fence is None and opened:
            fence, own_fence = opened.group(1), opened.group(2).casefold() == "json"
        elif fence is not None and line.strip().startswith(fence):
            fence, own_fence = None, False
        elif (fence is None or own_fence) and not line.lstrip().startswith(">"):
            lines.append((offset, line))
        offset += len(line)
    return lines


def _json_verdict(reply: str) -> ParsedVerdict | None:
    whole = _whole(reply)
    if whole is not None:
        return whole
    decoder = json.JSONDecoder()
    found: ParsedVerdict | None = None
    resume = 0  # objects inside an object already read are not candidates
    for offset, line in _own_lines(reply):
        start = offset + len(line) - len(line.lstrip())
        if start < resume or not line.lstrip().startswith("{"):
            continue
        try:
            value, end = decoder.raw_decode(reply, start)
        except (json.JSONDecodeError, RecursionError):
            continue
        resume = end
        parsed = _answer(value)
        if parsed is not None:
            found = parsed
    return found


def _line_verdict(reply: str) -> ParsedVerdict | None:
    whole = _whole(reply)
    if whole is not None:
        return whole
    lines = [line for line in plain(reply).splitlines() if line.strip()]
    if not lines:
        return None
    final = lines[-1].translate(_DECORATION).strip().lstrip(">-").strip()
    match = _FINAL_LINE.match(final)
    if not match:
        return None
    critique = "\n".join(lines[:-1]).strip()
    critique = _CRITIQUE_LABEL.sub("", critique, count=1).strip()
    label = LABELS[match.group(1).casefold()]
    return ParsedVerdict(label, critique, "line")


def parse_verdict(reply: str, mode: Mode = "json") -> ParsedVerdict | None:
    """The judge's verdict in the format it was asked for; None when it gave none."""
    return _json_verdict(reply) if mode == "json" else _line_verdict(reply)
