"""A locale of the domains: the same flows, keys, tools and rules over a store in another
language. `-T locale=ja` gives a flow the locale's fixtures (fixtures/<domain>-ja: a catalog in
yen with Japanese names, the store's caps, skills and policy in Japanese), its cases
(datasets/ja/<flow>.yaml), its agent instructions (<agent>.ja.md beside the domain's own) and its
tool descriptions (tools.ja.yaml beside them: the words change, names and types do not). A case
names its locale in its id (`checkout-ja-001-...`), so a case is never run against another
store's fixtures. `-T fixtures=`, `-T dataset=`, `-T instructions=` and `-T tools=` still win.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from commerce_evals.domains.fixtures import DATASETS, FIXTURES

DEFAULT = "en"


@dataclass(frozen=True)
class Locale:
    name: str
    # fixtures/<folder> per domain; a domain not named has no store in this locale
    fixtures: dict[str, str]
    # datasets/<folder>/<flow>.yaml
    datasets: str = ""

    def fixtures_folder(self, domain: str) -> Path | None:
        """The locale's fixtures of `domain` (None: the domain's default folder)."""
        if self.name == DEFAULT:
            return None
        folder = self.fixtures.get(domain)
        return FIXTURES / folder if folder else None

    def dataset_root(self) -> Path:
        return DATASETS / self.datasets if self.datasets else DATASETS

    def localised(self, path: Path) -> Path:
        """The locale's own version of a file of the domain (`shopper.md` -> `shopper.ja.md`)."""
        if self.name == DEFAULT:
            return path
        return path.with_name(f"{path.stem}.{self.name}{path.suffix}")


LOCALES: dict[str, Locale] = {
    DEFAULT: Locale(DEFAULT, {}),
    "ja": Locale("ja", {"shop": "shop-ja", "support": "support-ja"}, datasets="ja"),
}


def locale_of(name: str | None) -> Locale:
    return LOCALES[name or DEFAULT]
