"""The catalog's search: an inverted index built once per World, so a query never scans."""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable
from itertools import combinations

from commerce_evals.domains.shop.models import Product
from commerce_evals.japanese.text import is_japanese, search_tokens

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
    words = [stem(w) for w in _WORD.findall(text.lower()) if w not in STOPWORDS]
    if is_japanese(text):
        words += search_tokens(text)  # a Japanese listing or query: its words have no spaces
    return words


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
    """Token -> product ids, built once; a query touches only the postings of its own words."""

    MAX_WORDS = 8

    def __init__(self, products: Iterable[Product]):
        postings: dict[str, set[str]] = defaultdict(set)
        self._rating: dict[str, float] = {}
        for product in products:
            self._rating[product.id] = product.rating
            for text in _product_text(product):
                for token in tokens(text):
                    postings[token].add(product.id)
        self._postings = {token: frozenset(ids) for token, ids in postings.items()}
        count = len(self._rating)
        self._idf = {t: math.log(1 + count / len(ids)) for t, ids in self._postings.items()}

    def search(self, query: str) -> list[str]:
        """Ids of products matching at least half the query's words, best first.

        Relevance is the summed rarity (idf) of the matched words; ties go to the better rated.
        """
        words = [w for w in dict.fromkeys(tokens(query)) if w in self._postings][: self.MAX_WORDS]
        wanted = len(dict.fromkeys(tokens(query)))
        if not words:
            return []
        needed = math.ceil(min(wanted, self.MAX_WORDS) / 2)
        if needed > len(words):
            return []
        # candidates by set algebra (C speed), scores only for them
        candidates: set[str] = set()
        for group in combinations(words, needed):
            candidates |= frozenset.intersection(*(self._postings[w] for w in group))
        scored = [
            (-sum(self._idf[w] for w in words if pid in self._postings[w]), -self._rating[pid], pid)
            for pid in candidates
        ]
        scored.sort()
        return [pid for _, _, pid in scored]
