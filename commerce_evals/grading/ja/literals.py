"""Whether a Japanese text says a literal as so (literals.py's `affirmed`, in Japanese).

Japanese puts the negation and the contrast after the word: 「TPEは使いません」 does not say TPE
is used; 「TPEより天然ゴムが好き」 sets TPE against the rubber, while 「天然ゴムよりTPEが好き」 prefers it;
「レザーではなくメッシュ」, 「ウール以外」, 「天然ゴムは苦手」, 「ワイヤレスは避けたい」 set the word aside.
"""

from __future__ import annotations

import re

from commerce_evals.japanese.text import NEGATED_PREDICATE, clause_bounds

_CONTRAST_AFTER = re.compile(
    r"^\s?(?:より|よりも|ではなく|じゃなく|でなく|以外|抜き|なし|無し"
    r"|(?:は|が|を)(?:避け|苦手|嫌|好きではな|好きじゃな|不要|いらな|要らな|使わな|選ばな|やめ|控え))"
)


def affirmed(text: str, start: int, end: int, contrast: bool = False) -> bool:
    """Whether the word at [start, end) is said as so: its clause's predicate is not negated
    (unless the hit itself holds the negation), and, with `contrast`, nothing after it sets it
    against another thing."""
    hit = text[start:end]
    if NEGATED_PREDICATE.search(hit):
        return True
    after = text[end:]
    if contrast and _CONTRAST_AFTER.match(after):
        return False
    _, clause_end = clause_bounds(text, start)
    governed = text[end:clause_end]
    # a predicate of its own clause only: 「TPEのマットは使いません」 is negated, 「TPEが好きで、ゴムは
    # 使いません」 is not (the comma after a predicate ends the clause)
    return not NEGATED_PREDICATE.search(governed)
