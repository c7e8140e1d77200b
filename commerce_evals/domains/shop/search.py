"""The catalog's search: an inverted index built once per World, so a query never scans."""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable

from commerce_evals.domains.shop.models import Product

_WORD = re.compile(r"[a-z0-9]+")
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "the",
        "for",
        "of",
        "to",
        "in",
        "on",
        "with",
        "me",
        "my",
        "i",
        "some",
        "any",
        "under",
        "over",
        "below",
        "above",
        "need",
        "want",
        "looking",
        "find",
        "show",
        "get",
        "buy",
        "please",
        "something",
        "good",
        "best",
        "new",
    ]
)


def stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("es") and word[-3] in "sxz":
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def tokens(text: str) -> list[str]:
    return [stem(w) for w in _WORD.findall(text.lower()) if w not in STOPWORDS]


def _product_text(product: Product) -> Iterable[str]:
    yield product.name
    yield product.brand
    yield product.niche.replace("-", " ")
    yield product.description
    for key, value in product.attributes.items():
        if isinstance(value, str):
            yield value
        elif value is True:
            yield key.replace("_", " ")


class SearchIndex:
    def __init__(self, products: Iterable[Product]):
        self._postings: dict[str, set[str]] = defaultdict(set)
        count = 0
        for product in products:
            count += 1
            for text in _product_text(product):
                for token in tokens(text):
                    self._postings[token].add(product.id)
        self._idf = {t: math.log(1 + count / len(ids)) for t, ids in self._postings.items()}

    def search(self, query: str) -> list[tuple[str, float]]:
        """(product id, relevance) for products matching at least half the query's words."""
        words = list(dict.fromkeys(tokens(query)))
        if not words:
            return []
        scores: dict[str, float] = defaultdict(float)
        hits: dict[str, int] = defaultdict(int)
        for word in words:
            for product_id in self._postings.get(word, ()):
                scores[product_id] += self._idf[word]
                hits[product_id] += 1
        needed = math.ceil(len(words) / 2)
        return [(pid, score) for pid, score in scores.items() if hits[pid] >= needed]
