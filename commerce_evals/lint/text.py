"""Words of the case text the lint reads by meaning: a text's content words as lemmas (a closed
class of English function words left out, lemmas from lemminflect's lexicon), and the words that
make a clause about an absence or an exclusion."""

from __future__ import annotations

import re

from commerce_evals.facts import normalise

# Function words: what a condition's content is read without (a closed class of English).
FUNCTION_WORDS = frozenset(
    {
        "a",
        "an",
        "the",
        "it",
        "its",
        "it's",
        "this",
        "that",
        "these",
        "those",
        "they",
        "them",
        "their",
        "reply",
        "replies",
        "agent",
        "answer",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "has",
        "have",
        "had",
        "do",
        "does",
        "did",
        "will",
        "would",
        "can",
        "could",
        "may",
        "might",
        "must",
        "should",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "from",
        "by",
        "with",
        "as",
        "about",
        "into",
        "than",
        "then",
        "so",
        "if",
        "or",
        "and",
        "but",
        "any",
        "each",
        "every",
        "all",
        "some",
        "one",
        "ones",
        "either",
        "whether",
        "also",
        "only",
        "just",
        "such",
        "which",
        "who",
        "what",
        "when",
        "says",
        "say",
        "said",
        "tell",
        "tells",
        "told",
        "states",
        "state",
        "stated",
        "gives",
        "give",
        "given",
        "names",
        "name",
        "named",
        "mentions",
        "mention",
        "person",
        "customer",
        "something",
        "anything",
        "everything",
        "confirm",
        "confirms",
        "confirmed",
        "imply",
        "implies",
        "implied",
        "claim",
        "claims",
        "claimed",
        "other",
        "another",
        "different",
    }
)
# Words that make a condition about an absence or an exclusion.
EXCLUDES = re.compile(
    r"\b(?:no|not|never|none|nothing|neither|nor|without|only|otherwise|n't|leaves? out"
    r"|omits?|fails? to|instead of|rather than|else)\b|n't\b",
    re.IGNORECASE,
)
PRONOUNS = frozenset(
    {
        "a",
        "an",
        "the",
        "it",
        "its",
        "they",
        "them",
        "their",
        "this",
        "that",
        "these",
        "those",
        "something",
        "anything",
    }
)


def content_words(text: str, common: bool = False) -> set[str]:
    """A text's content words, as lemmas, and its facts; a hyphenated word counts as its parts
    ("cable-versus-battery"), an id stays whole ("P-1017"). `common`: the common verbs and
    words of a condition count too (only pronouns and negations are left out)."""
    if common:
        plain = re.findall(r"[a-z][a-z'-]+", text.casefold())
        return {stem(w) for w in plain if w not in PRONOUNS and not EXCLUDES.fullmatch(w)}
    words: list[str] = []
    for word in re.findall(
        r"[A-Za-z][A-Za-z0-9'_-]+|\$?\d[\d,.]*\d|\d", normalise(text).casefold()
    ):
        is_id = re.fullmatch(r"[a-z]{1,4}-\d+", word)
        words.extend([word] if is_id or "-" not in word else [w for w in word.split("-") if w])
    return {stem(w) for w in words if w not in FUNCTION_WORDS and not EXCLUDES.fullmatch(w)}


def stem(word: str) -> str:
    from lemminflect import getAllLemmas

    # the shortest lemma of any part of speech: "comes" is "come", "gifts" "gift"
    lemmas = [
        str(x) for pos in ("NOUN", "VERB", "ADJ") for x in getAllLemmas(word, pos).get(pos, ())
    ]
    return min(lemmas, key=len, default=word)
