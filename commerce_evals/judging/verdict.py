"""Reading a verdict out of a judge's reply, by the format the judge was asked for.

A judge that does not enforce the response schema often states its verdict and then quotes what
it judged, and what it judged may hold a forged verdict. So the verdict comes from the judge's own
answer, and any disagreement anywhere in the reply is a judge failure, never a pass:

1. The whole reply (allowing one fence around it) parsed as the schema object is the verdict:
   `{"critique": ..., "verdict": ...}`, or seed 003's `{"critique": ..., "result": ...}`. Whatever
   the critique string holds is the judge's reasoning, never a verdict.
2. Otherwise the judge's own answer must be found, in the format asked for:
   JSON: an object of the schema that starts a line of the judge's own voice: not a block-quote
   line (`> ...`), not an indented block, not inside a fence other than a `json` one.
   Text lines (only for a provider that can do neither): the FINAL non-empty line, written in
   the judge's own voice (not quoted, indented or fenced), is the verdict (`Verdict: Fail`,
   `**Final verdict:** failed.`, `- Verdict: Pass`).
   And every verdict stated anywhere in the reply must agree with it: an object with a `verdict`
   or `result` key (at any depth, on any line, malformed outer object or not), a `verdict: X`
   phrase (quoted, escaped, fenced, in a list, behind `>`), a line that is only a verdict. Two
   different verdicts, or an object with one key twice (its value is whichever a reader keeps),
   make no verdict.

The one thing not searched is a verbatim echo of the quoted transcript the judge was shown: a
line starting with the harness's `[turn N]`, `[turn N graded]` or `[after the run]` prefix (every
value on it is a JSON literal, so no agent text can start such a line). An echo can never be read
as the judge's verdict either: it starts neither an object nor a verdict line.

Labels: pass, passed, fail, failed, unknown, in any case (Unicode compatibility forms, such as a
full-width colon or full-width letters, are read as their plain forms; invisible format
characters are ignored when looking for stated verdicts). Nothing is ever deleted from a reply
because of a tag found in it. No verdict: None, which the caller records as a judge failure
(never a pass).
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

VerdictLabel = Literal["Pass", "Fail", "Unknown"]
Mode = Literal["json", "line"]
LABELS: dict[str, VerdictLabel] = {
    "pass": "Pass",
    "passed": "Pass",
    "fail": "Fail",
    "failed": "Fail",
    "unknown": "Unknown",
}
VERDICT_KEYS = ("verdict", "result")  # the project's key, and seed 003's
ANSWER_KEYS = frozenset({"critique", *VERDICT_KEYS})

_LABEL = r"(pass(?:ed)?|fail(?:ed)?|unknown)"
# The final line: "Verdict: Fail", "**Final verdict** - failed.", "My verdict is Pass", "Fail"
_FINAL_LINE = re.compile(
    rf"^(?:(?:(?:my|the|final|overall)\s+)*(?:verdict|result)\s*(?:is\s*)?[:=\-–—]?\s*)?"
    rf"{_LABEL}\s*[.!]?$",
    re.IGNORECASE,
)
# A verdict stated anywhere: `verdict: pass`, `"verdict": "Pass"`, `\"verdict\": \"Pass\"`,
# `“verdict”: “Pass”`, `Verdict is **Pass**`; `result` only as a quoted key (it is common prose)
_QUOTES = "\"'`\\\\\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f\u00ab\u00bb\u2039\u203a"
_STATED = re.compile(
    rf"\bverdicts?\b[^\w\n]{{0,12}}(?:(?:is|was)\b[^\w\n]{{0,12}})?{_LABEL}\b"
    rf"|[{_QUOTES}]result[{_QUOTES}]+\s*[:=]\s*[{_QUOTES}\s]*{_LABEL}\b",
    re.IGNORECASE,
)
_DECORATION = str.maketrans("", "", "*_`#")
_LIST_MARKER = re.compile(r"^(?:[-+*•]|\d+[.)])\s*")
_QUOTE_MARKERS = re.compile(r"^(?:[\s>|]|[-+*•]\s|\d+[.)]\s)*")
_CRITIQUE_LABEL = re.compile(r"^\s*[*_#`]*\s*critique\s*[*_`]*\s*:\s*", re.IGNORECASE)
_FENCE = re.compile(r"^\s*(```|~~~)\s*([A-Za-z0-9_+-]*)")
_HARNESS_LINE = re.compile(r"^\[(?:turn \d+(?: graded)?|after the run)\] ")
_INDENTED = 4  # columns: an indented code block, quoted material in Markdown


@dataclass(frozen=True)
class ParsedVerdict:
    verdict: VerdictLabel
    critique: str
    source: Literal["json", "line"]


class Ambiguous(ValueError):
    """The reply states more than one verdict, or an object holds one key twice."""


def plain(text: str) -> str:
    """Compatibility forms folded (full-width letters and colons read as plain ones)."""
    return unicodedata.normalize("NFKC", text)


def label_of(value: object) -> VerdictLabel | None:
    if not isinstance(value, str):
        return None
    return LABELS.get(plain(value).strip().rstrip(".!").strip().casefold())


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    if len(set(keys)) < len(keys):
        raise Ambiguous(
            f"an object holds a key twice: {sorted({k for k in keys if keys.count(k) > 1})}"
        )
    return dict(pairs)


_DECODER = json.JSONDecoder(object_pairs_hook=_no_duplicates)


def _decode(text: str, start: int = 0) -> tuple[Any, int] | None:
    """The JSON value at `start` and where it ends; None when there is none. Raises Ambiguous."""
    try:
        return _DECODER.raw_decode(text, start)
    except (json.JSONDecodeError, RecursionError):
        return None


def _answer(value: object) -> ParsedVerdict | None:
    """A JSON value read as the judge's answer: an object of the schema's keys whose verdict
    (`verdict`, `result`, or both agreeing) is a known label."""
    if not isinstance(value, dict) or not set(value) <= ANSWER_KEYS:
        return None
    labels = [label_of(value[key]) for key in VERDICT_KEYS if key in value]
    if not labels or None in labels or len(set(labels)) > 1:
        return None
    label = labels[0]
    assert label is not None
    return ParsedVerdict(label, str(value.get("critique", "")), "json")


def _whole(reply: str) -> ParsedVerdict | None:
    """The reply as one schema object (allowing one fence around it). Raises Ambiguous."""
    text = reply.strip()
    fence = _FENCE.match(text)
    if fence and text.endswith(fence.group(1)) and len(text) > 6:
        text = text[fence.end() : -len(fence.group(1))].strip()
    decoded = _decode(text)
    if decoded is None or text[decoded[1] :].strip():
        return None
    return _answer(decoded[0])


def _indent(line: str) -> int:
    stripped = line.expandtabs(4)
    return len(stripped) - len(stripped.lstrip())


def _own_lines(reply: str, json_fences: bool) -> list[tuple[int, str]]:
    """(offset, line) of each line the judge wrote in its own voice: not a block-quote line, not
    an indented block, not inside a fence (a `json` fence counts as its own when `json_fences`)."""
    lines: list[tuple[int, str]] = []
    offset = 0
    fence: str | None = None
    own_fence = False
    for line in reply.splitlines(keepends=True):
        opened = _FENCE.match(line)
        if fence is None and opened:
            fence = opened.group(1)
            own_fence = json_fences and opened.group(2).casefold() == "json"
        elif fence is not None and line.strip().startswith(fence):
            fence, own_fence = None, False
        elif (
            (fence is None or own_fence)
            and not line.lstrip().startswith(">")
            and (_indent(line) < _INDENTED or not line.strip())
        ):
            lines.append((offset, line))
        offset += len(line)
    return lines


def _labels_in(value: object) -> Iterator[VerdictLabel]:
    """Every verdict a decoded JSON value states, at any depth."""
    if isinstance(value, dict):
        for key in VERDICT_KEYS:
            label = label_of(value.get(key))
            if label is not None:
                yield label
        for item in value.values():
            yield from _labels_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from _labels_in(item)


def _searched(reply: str) -> str:
    """The reply as searched for stated verdicts: compatibility forms folded, invisible format
    characters dropped, and echoed transcript lines blanked."""
    visible = "".join(c for c in reply if unicodedata.category(c) != "Cf")
    return "\n".join(
        "" if _HARNESS_LINE.match(line) else line for line in plain(visible).splitlines()
    )


def stated_verdicts(reply: str) -> set[VerdictLabel]:
    """Every verdict the reply states anywhere outside an echo of its transcript. Raises
    Ambiguous for an object that holds a key twice."""
    text = _searched(reply)
    found: set[VerdictLabel] = set()
    resume = 0  # an object already read is walked whole, not decoded again from inside
    for brace in re.finditer(r"\{", text):
        if brace.start() < resume:
            continue
        decoded = _decode(text, brace.start())
        if decoded is not None:
            found.update(_labels_in(decoded[0]))
            resume = decoded[1]
    for match in _STATED.finditer(text):
        found.add(LABELS[(match.group(1) or match.group(2)).casefold()])
    for line in text.splitlines():
        bare = _QUOTE_MARKERS.sub("", line.translate(_DECORATION)).strip()
        if line_match := _FINAL_LINE.match(bare):
            found.add(LABELS[line_match.group(1).casefold()])
    return found


def _own_json(reply: str) -> ParsedVerdict | None:
    """The last schema object that starts a line of the judge's own voice."""
    found: ParsedVerdict | None = None
    resume = 0  # objects inside an object already read are not candidates
    for offset, line in _own_lines(reply, json_fences=True):
        start = offset + len(line) - len(line.lstrip())
        if start < resume or not line.lstrip().startswith("{"):
            continue
        decoded = _decode(reply, start)
        if decoded is None:
            continue
        resume = decoded[1]
        found = _answer(decoded[0]) or found
    return found


def _own_line(reply: str) -> ParsedVerdict | None:
    """The final non-empty line, when it is a verdict in the judge's own voice."""
    lines = [line for line in plain(reply).splitlines() if line.strip()]
    if not lines:
        return None
    text = "\n".join(lines)
    own = _own_lines(text, json_fences=False)
    if not own or own[-1][0] != len(text) - len(lines[-1]):
        return None  # the final line is quoted, indented or fenced: not the judge's own voice
    final = _LIST_MARKER.sub("", lines[-1].translate(_DECORATION).strip()).strip()
    match = _FINAL_LINE.match(final)
    if not match:
        return None
    critique = "\n".join(lines[:-1]).strip()
    critique = _CRITIQUE_LABEL.sub("", critique, count=1).strip()
    return ParsedVerdict(LABELS[match.group(1).casefold()], critique, "line")


def _parse(reply: str, mode: Mode) -> ParsedVerdict | None:
    whole = _whole(reply)
    if whole is not None:
        return whole
    own = _own_json(reply) if mode == "json" else _own_line(reply)
    if own is None or stated_verdicts(reply) - {own.verdict}:
        return None
    return own


def parse_verdict(reply: str, mode: Mode = "json") -> ParsedVerdict | None:
    """The judge's verdict in the format it was asked for; None when it gave none, or more than
    one, or wrote an object with a key twice."""
    try:
        return _parse(reply, mode)
    except Ambiguous:
        return None


def no_verdict_reason(reply: str) -> str:
    """Why `parse_verdict` read no verdict in a reply, for the judge failure's record."""
    if not reply.strip():
        return "empty reply"
    try:
        stated = stated_verdicts(reply)
    except Ambiguous as err:
        return f"no single verdict in the judge's reply: {err}"
    if len(stated) > 1:
        named = ", ".join(sorted(stated))
        return f"no single verdict in the judge's reply: it states {named} (a quote of the run?)"
    return "no verdict in the judge's reply"
