"""Where a reply or a saved memory says a literal the case names, and whether it says it as so.

`reply_includes` and `reply_matches` ask that a topic or token be named: "We don't price match"
names price matching, so any hit counts (what must be asserted is a typed fact, `reply_states`).
The keys that forbid a literal (`reply_omits`, `reply_not_matches`) and `memory_contains` read
polarity: a word said under a negation ("I won't guess any fee") does not say it, and in a saved
memory a word set against another ("prefers rubber over TPE", "avoid wireless") is not the thing
preferred. A hit whose own text holds the negation ("not sent") is read as written. Codes and ids
(a token with a digit, "AQUA50") count wherever they stand, spaced or hyphenated or not:
repeating a code is the act a case forbids, whatever surrounds it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from commerce_evals.facts import NEGATION
from commerce_evals.grading.ja import literals as ja_literals
from commerce_evals.japanese.text import is_japanese

# a clause ends here for a negation's reach: "isn't eligible because it's final sale"
_SCOPE_BREAK = re.compile(
    r"[.;:!?](?=\s|$)|,\s|\s[-–—]\s|\n|\(|\)"
    r"|\b(?:but|and|or|so|because|since|while|whereas|although|though|which|who|that|if|when"
    r"|unless|until|then)\b",
    re.IGNORECASE,
)
_REACH = 4  # words: "no one needs to reconnect", "it does not sear well"
# set against another thing: what stands after it is the thing not wanted
_CONTRAST = re.compile(
    r"\b(?:over|than|instead of|rather than|avoids?|avoiding|dislikes?|hates?|against"
    r"|not|no|never|without)\s+(?:\w+\s+){0,2}$",
    re.IGNORECASE,
)
_CODE = re.compile(r"^(?=.*\d)[A-Za-z0-9][A-Za-z0-9_-]*$")


def _scope(text: str, position: int) -> str:
    """The words before `position` within its clause, at most `_REACH` of them."""
    start = 0
    for match in _SCOPE_BREAK.finditer(text, 0, position):
        start = match.end()
    return " ".join(text[start:position].split()[-_REACH:])


def affirmed(text: str, start: int, end: int, contrast: bool = False) -> bool:
    """Whether the text at [start, end) is said as so: no negation reaches it, unless the hit
    itself carries one; with `contrast`, nothing sets it against another ("over", "avoid").
    Japanese negates and contrasts after the word (grading/ja/literals.py)."""
    if is_japanese(text):
        return ja_literals.affirmed(text, start, end, contrast)
    if NEGATION.search(text[start:end]):
        return True
    lead = _scope(text, start)
    if NEGATION.search(lead):
        return False
    return not (contrast and _CONTRAST.search(lead + " "))


def is_code(needle: str) -> bool:
    return bool(_CODE.match(needle.strip())) and len(re.sub(r"\W|_", "", needle)) >= 4


def _code_pattern(needle: str) -> re.Pattern[str]:
    """The code's letters and digits in order, with spaces or hyphens between any of them."""
    chars = [re.escape(c) for c in re.sub(r"[\W_]+", "", needle)]
    return re.compile(r"(?<![A-Za-z0-9])" + r"[\s-]*".join(chars) + r"(?![A-Za-z0-9])", re.I)


def _code_at(needle: str, text: str) -> bool:
    """Whether `text` writes the code: in one piece in any case, or spaced out in the code's own
    capitals ("PACK FREE 100", "A-Q-U-A 5-0"; "you save 20%" is no SAVE20)."""
    for m in _code_pattern(needle).finditer(text):
        written = m.group(0)
        if not re.search(r"\s", written) or written.upper() == written:
            return True
    return False


def hits(needle: str, text: str, contrast: bool = False) -> Iterator[tuple[int, int]]:
    """Every place `text` says `needle` (case-insensitive) as so; a code anywhere, however
    spaced."""
    if is_code(needle):
        if _code_at(needle, text):
            yield 0, 0
        return
    for m in re.finditer(re.escape(needle), text, re.IGNORECASE):
        if affirmed(text, m.start(), m.end(), contrast):
            yield m.start(), m.end()


def mentions_literal(needle: str, text: str) -> bool:
    """Whether the text holds `needle` at all, in any case (a code however spaced): what a key
    that wants a topic or a token named asks."""
    if is_code(needle):
        return _code_at(needle, text)
    return needle.casefold() in text.casefold()


def says(needle: str, text: str, contrast: bool = False) -> bool:
    return next(hits(needle, text, contrast), None) is not None


def matches_said(pattern: str, text: str) -> bool:
    """Whether the pattern matches somewhere the text says it as so."""
    return any(
        affirmed(text, m.start(), m.end()) or bool(re.search(r"\d", m.group(0)))
        for m in re.finditer(pattern, text, re.IGNORECASE)
    )
