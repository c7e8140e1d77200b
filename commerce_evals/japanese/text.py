"""Japanese text as the readers read it: which texts are Japanese, one normal form, sentences,
clauses, and whether what a clause says of a value is negated.

Japanese has no spaces and puts its predicate, and the predicate's negation, at the end of the
clause: 「12,800円ではありません」 negates the amount, 「在庫はございません」 the stock. So negation is
read forward from a value to its clause's predicate, never from a word before it as in English.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from commerce_evals.japanese.numerals import numerals_as_digits

# kana, kanji, Japanese punctuation and the yen sign: any of them makes a text Japanese
_JAPANESE = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff66-\uff9f\u3001\u3002\u300c-\u300f¥￥]"
)
_YEN_CODE = re.compile(r"\bJPY\b")
KANA_OR_KANJI = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff々〆ヶ"
# one script class each: a short name in katakana stops where katakana stops
_SCRIPT_CLASSES = (
    r"\u30a0-\u30ffー",
    r"\u4e00-\u9fff\u3400-\u4dbf々",
    r"\u3040-\u309f",
    r"A-Za-z0-9",
)


@lru_cache(maxsize=4096)
def is_japanese(text: str) -> bool:
    """Kana, kanji, Japanese punctuation or yen (¥, JPY): the Japanese readers read it."""
    return bool(_JAPANESE.search(text) or _YEN_CODE.search(text))


@lru_cache(maxsize=512)
def normalise(text: str) -> str:
    """Full-width letters, digits and signs as ASCII (NFKC: "１２，８００円" is "12,800円", "￥" is
    "¥", "％" is "%"), half-width katakana as full-width, and kanji numerals that write a quantity
    as digits (numerals.py). Idempotent: every reader reads positions in this form."""
    text = unicodedata.normalize("NFKC", text).replace("\u2019", "'")
    return numerals_as_digits(text)


# ---- sentences and clauses -----------------------------------------------------------------------

SENTENCE_END = re.compile(r"(?<=[。！？!?])\s*|\n+|(?<=\.)\s+")
# forms a predicate ends a clause in before a comma: ...ます、 ...て、 ...が、 ...ので、 ...なく、
_PREDICATE_BEFORE_COMMA = re.compile(
    r"(?:ます|です|でした|ました|ません|た|て|で|が|けど|けれど|けれども|ので|から|し|ず|なく|ば|ら"
    r"|ものの|つつ|ながら|ところ|場合|ため)\s*$"
)
_HARD_BREAK = re.compile(r"[。！？!?;；\n()（）「」『』]|\s[-–—]\s|:\s|：")
_COMMA = re.compile(r"[、,，]\s*")


def sentences(text: str) -> list[tuple[int, str]]:
    """(start, sentence) for each sentence of `text` (normalised), ends kept with the sentence."""
    found: list[tuple[int, str]] = []
    start = 0
    for m in SENTENCE_END.finditer(text):
        if m.end() <= start or m.start() < start:
            continue
        if text[start : m.start()].strip():
            found.append((start, text[start : m.start()]))
        start = m.end()
    if text[start:].strip():
        found.append((start, text[start:]))
    return found


@lru_cache(maxsize=1024)
def _breaks(text: str) -> tuple[tuple[int, int], ...]:
    """Where clauses break: a sentence end or bracket, and a comma after a predicate or after a
    segment that holds a number ("Aは12,800円、Bは13,800円です"); a comma after a topic or an
    adverb ("現在、こちらは…") joins what follows to it."""
    breaks = [(m.start(), m.end()) for m in _HARD_BREAK.finditer(text)]
    for m in _COMMA.finditer(text):
        previous = max((e for s, e in breaks if e <= m.start()), default=0)
        segment = text[previous : m.start()]
        if (
            m.group(0).startswith(",")
            and re.search(r"\d$", segment)
            and text[m.end() : m.end() + 1].isdigit()
        ):
            continue  # a comma inside a number ("12, 800" was never written so; "12,800" has none)
        if _PREDICATE_BEFORE_COMMA.search(segment) or re.search(r"\d", segment):
            breaks.append((m.start(), m.end()))
    return tuple(sorted(breaks))


def clause_bounds(text: str, position: int) -> tuple[int, int]:
    start, end = 0, len(text)
    for s, e in _breaks(text):
        if e <= position:
            start = e
        elif s >= position:
            end = s
            break
    return start, end


# ---- negation ------------------------------------------------------------------------------------

# a negated predicate: ない, なく, ません, ず, ぬ, なし/無し, 不可
NEGATED_PREDICATE = re.compile(
    r"(?:ない|なく|ません|ませぬ|ず(?!つ)|ぬ(?![ぐれ])|なし|無し|不可|できかね|いたしかね|しかね|かねます)"
)
# the value only modifies a noun (「12,800円の商品は在庫がありません」: the stock is negated, not
# the amount): a value before の, な or a relative clause's own verb is no argument of the predicate
_ATTRIBUTIVE = re.compile(r"^\s*(?:の|な)(?!で|い|く|し)")
_NOUN_PHRASE_DENIED = re.compile(
    r"^\s*の[^、。はが]{0,12}?(?:では|じゃ)(?:なく|ない|ありません|ございません)"
)
_EMPHATIC_NOT = re.compile(r"(?:では|じゃ|でも)(?:ない|なく|ありません|ございません)")


def negated_after(text: str, end: int) -> bool:
    """Whether the predicate of the clause holding the value that ends at `end` is negated, and
    the value is its argument: 「12,800円ではありません」, 「12月2日には届きません」, 「12,800円ではなく
    13,800円です」 (the first only)."""
    _, clause_end = clause_bounds(text, max(end - 1, 0))
    rest = text[end:clause_end]
    if _ATTRIBUTIVE.match(rest):
        # 「12月2日のお届けではなく」 negates the phrase the value belongs to; 「12,800円の商品は在庫が
        # ありません」 negates another predicate
        return bool(_NOUN_PHRASE_DENIED.match(rest))
    # the predicate that governs the value: up to the next digit (another value's own predicate)
    nxt = re.search(r"\d|[¥]", rest)
    governed = rest[: nxt.start()] if nxt else rest
    if _EMPHATIC_NOT.search(governed):
        return True
    return bool(NEGATED_PREDICATE.search(governed))


def token_pattern(token: str) -> str:
    """A regex for `token` standing whole in Japanese text: an ASCII token (an id, a brand)
    not inside a longer ASCII word, a Japanese one not inside a longer run of its own script
    (a katakana name stops where katakana stops)."""
    parts = [re.escape(p) for p in re.split(r"[-\s]+", token.strip()) if p]
    body = r"[-\s]?".join(parts)
    first, last = token.strip()[:1], token.strip()[-1:]
    return rf"{_boundary_before(first)}{body}{_boundary_after(last)}"


def _script_of(char: str) -> str | None:
    for cls in _SCRIPT_CLASSES:
        if re.match(f"[{cls}]", char):
            return cls
    return None


def _boundary_before(char: str) -> str:
    cls = _script_of(char)
    if cls is None or cls == _SCRIPT_CLASSES[2]:
        return ""
    extra = "_-" if cls == _SCRIPT_CLASSES[3] else ""
    return rf"(?<![{cls}{extra}])"


def _boundary_after(char: str) -> str:
    cls = _script_of(char)
    if cls is None or cls == _SCRIPT_CLASSES[2]:
        return ""
    extra = "_-" if cls == _SCRIPT_CLASSES[3] else ""
    return rf"(?![{cls}{extra}])"


def token_positions(text: str, token: str) -> list[int]:
    """Where `token` stands whole in `text` (both normalised), ignoring case."""
    pattern = token_pattern(normalise(token))
    return [m.start() for m in re.finditer(pattern, normalise(text), re.IGNORECASE)]


def word_end(text: str, start: int) -> int:
    """The end of the run of one script that starts at `start` (a word, as far as Japanese
    without spaces shows one)."""
    cls = _script_of(text[start : start + 1]) if start < len(text) else None
    if cls is None:
        return start + 1
    m = re.match(f"[{cls}]+", text[start:])
    return start + (m.end() if m else 1)


# ---- words for a search --------------------------------------------------------------------------

_KATAKANA_RUN = re.compile(r"[\u30a0-\u30ffー]+")
_KANJI_RUN = re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf々]+")


def search_tokens(text: str) -> list[str]:
    """The Japanese words of `text` for a search index, with no dictionary: each run of katakana
    and each run of kanji as character pairs (「ランニングシューズ」 holds 「シューズ」's pairs, so a
    query for シューズ finds it), a one-character run as itself; hiragana (particles, endings) is
    left out. Japanese writes compounds without spaces, so whole runs would never match a part."""
    plain = unicodedata.normalize("NFKC", text)
    found: list[str] = []
    for run in [*_KATAKANA_RUN.findall(plain), *_KANJI_RUN.findall(plain)]:
        run = run.strip("ー")
        if len(run) == 1:
            found.append(run)
        found.extend(run[i : i + 2] for i in range(len(run) - 1))
    return found
