"""Regenerate the docs' figures, or check them: every claim (claims.py) and block (blocks.py,
samples.py) applied to the text of its doc."""

from __future__ import annotations

import difflib
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from commerce_evals.docgen.blocks import Block
from commerce_evals.docgen.claims import Claim, Sources

CLAIMS_FILE = "commerce_evals/docgen/claims.py"


@dataclass(frozen=True)
class Drift:
    """A stated figure or block that is not what the data says."""

    doc: str
    what: str
    stated: str
    computed: str

    def describe(self, lines: int = 12) -> str:
        if "\n" in self.stated or "\n" in self.computed:
            diff = list(
                difflib.unified_diff(
                    self.stated.splitlines(),
                    self.computed.splitlines(),
                    "doc",
                    "data",
                    n=0,
                    lineterm="",
                )
            )[2:]
            shown = "\n".join(f"    {line}" for line in diff[:lines])
            more = f"\n    ... {len(diff) - lines} more lines" if len(diff) > lines else ""
            return f"{self.doc}: {self.what} differs from what the data gives:\n{shown}{more}"
        return f"{self.doc}: {self.what}: states {self.stated!r}, the data gives {self.computed!r}"


@dataclass
class Outcome:
    texts: dict[str, tuple[str, str]] = field(default_factory=dict)  # doc -> (old, new)
    drift: list[Drift] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # a claim or block the doc lost

    @property
    def changed(self) -> dict[str, str]:
        return {doc: new for doc, (old, new) in self.texts.items() if old != new}


def _as_written(value: str, stated: str) -> str:
    """A word at the start of a sentence keeps its capital (`Ten cases`, `ten cases`)."""
    if stated[:1].isupper() and value[:1].islower():
        return value[:1].upper() + value[1:]
    return value


def apply_block(text: str, block: Block, sources: Sources, out: Outcome) -> str:
    starts = text.count(block.start_marker)
    ends = text.count(block.end_marker)
    if starts != 1 or ends != 1:
        out.problems.append(
            f"{block.doc}: block {block.name}: its markers are found {starts} and {ends} times;"
            f" keep one pair: {block.start_marker} ... {block.end_marker}"
        )
        return text
    head, rest = text.split(block.start_marker)
    stated, tail = rest.split(block.end_marker)
    computed = f"\n{block.render(sources).strip(chr(10))}\n"
    if stated != computed:
        out.drift.append(Drift(block.doc, f"block {block.name}", stated, computed))
    return head + block.start_marker + computed + block.end_marker + tail


def apply_claim(text: str, claim: Claim, sources: Sources, out: Outcome) -> str:
    matches = list(claim.regex.finditer(text))
    if len(matches) != 1:
        out.problems.append(
            f"{claim.doc}: the sentence /{claim.pattern}/ is found {len(matches)} times; it must"
            f" be once: reword the pattern beside it in {CLAIMS_FILE}"
        )
        return text
    [match] = matches
    values = claim.values(sources)
    stated_values = match.groups()
    if len(values) != len(stated_values):
        out.problems.append(
            f"{claim.doc}: /{claim.pattern}/ states {len(stated_values)} figures where the data"
            f" now gives {len(values)} ({', '.join(values)}): rewrite the sentence and its"
            f" pattern in {CLAIMS_FILE}"
        )
        return text
    if claim.unordered and sorted(values) == sorted(stated_values):
        return text
    changes = []
    for index, value in enumerate(values, start=1):
        stated = match.group(index)
        computed = _as_written(value, stated)
        if stated != computed:
            where = f"line {text.count(chr(10), 0, match.start(index)) + 1}"
            what = f"{where}, {_around(text, match.start(index), match.end(index))}"
            out.drift.append(Drift(claim.doc, what, stated, computed))
            changes.append((match.start(index), match.end(index), computed))
    for start, end, computed in reversed(changes):
        text = text[:start] + computed + text[end:]
    return text


def _around(text: str, start: int, end: int, width: int = 30) -> str:
    """The stated figure in its words: `...over [150] products as...`."""
    before = text[max(0, start - width) : start].split("\n")[-1]
    after = text[end : end + width].split("\n")[0]
    return f"'...{before}[{text[start:end]}]{after}...'"


def regenerate(
    root: Path,
    sources: Sources,
    claims: Sequence[Claim],
    blocks: Sequence[Block],
    needs: Collection[str],
) -> Outcome:
    """Every claim and block applied to its doc's text, those computed from `needs`; the others
    are left as they are."""
    out = Outcome()
    docs = sorted({c.doc for c in claims} | {b.doc for b in blocks})
    for doc in docs:
        old = (root / doc).read_text(encoding="utf-8")
        text = old
        for block in blocks:
            if block.doc == doc and block.needs in needs:
                text = apply_block(text, block, sources, out)
        for claim in claims:
            if claim.doc == doc and claim.needs in needs:
                text = apply_claim(text, claim, sources, out)
        out.texts[doc] = (old, text)
    return out
