"""The judge prompt: quoted data first, then the instructions; and the fingerprint of a verdict.

The template (commerce_evals/judges/_template.md) has {{name}} slots, filled in one pass so text put
into one slot is never read as another slot.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from commerce_evals.judging.dimensions import JUDGES_DIR, Dimension
from commerce_evals.judging.transcript import QuotedTranscript

OPEN_TRANSCRIPT = "<transcript>"
CLOSE_TRANSCRIPT = "</transcript>"
_SLOT = re.compile(r"\{\{(\w+)\}\}")
# A block tag of ours inside reference text loses its "<", so it cannot open or close a block.
_OUR_TAGS = re.compile(r"<(?=\s*/?\s*(?:transcript|reference)\b)", re.IGNORECASE)


@lru_cache(maxsize=1)
def default_template() -> str:
    return (JUDGES_DIR / "_template.md").read_text(encoding="utf-8")


def fill(template: str, values: dict[str, str]) -> str:
    missing = sorted(set(_SLOT.findall(template)) - set(values))
    if missing:
        raise ValueError(f"judge template: no value for {missing}")
    return _SLOT.sub(lambda m: values[m.group(1)], template)


def neutralise(reference: str) -> str:
    return _OUR_TAGS.sub("‹", reference)


def build_prompt(
    dimension: Dimension,
    transcript: QuotedTranscript,
    context: str = "",
    template: str | None = None,
) -> str:
    """One judge prompt. `context` (a policy) is quoted only for dimensions that need it."""
    reference = (
        f"<reference>\n{neutralise(context.strip())}\n</reference>\n\n"
        if dimension.needs_context and context.strip()
        else ""
    )
    note = transcript.cut.note()
    return fill(
        template if template is not None else default_template(),
        {
            "reference_block": reference,
            "transcript": transcript.text,
            "cut_note": f"\n{note}\n" if note else "",
            "dimension": f"{dimension.name} ({dimension.title})",
            "criterion": dimension.criterion,
        },
    )


@dataclass(frozen=True)
class PromptParts:
    """A prompt read back the way a reader would: the quoted data, then what follows it."""

    data: str
    instructions: str


def split_prompt(prompt: str) -> PromptParts:
    """Split at the first closing transcript tag (a naive reader's split, which is the point:
    it only finds the real instructions when no quoted text can close the block early)."""
    start = prompt.find(OPEN_TRANSCRIPT)
    end = prompt.find(CLOSE_TRANSCRIPT, start + 1)
    if start < 0 or end < 0:
        return PromptParts(data="", instructions=prompt)
    return PromptParts(
        data=prompt[start + len(OPEN_TRANSCRIPT) : end].strip("\n"),
        instructions=prompt[end + len(CLOSE_TRANSCRIPT) :],
    )


def sha(value: Any) -> str:
    blob = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Fingerprint:
    """What a verdict depends on besides the transcript. Any change re-judges."""

    model: str
    dimension_sha: str
    template_sha: str
    config_sha: str
    context_sha: str | None

    @property
    def value(self) -> str:
        return sha(
            [self.model, self.dimension_sha, self.template_sha, self.config_sha, self.context_sha]
        )

    def as_metadata(self) -> dict[str, str | None]:
        return {
            "fingerprint": self.value,
            "model": self.model,
            "dimension_sha": self.dimension_sha,
            "template_sha": self.template_sha,
            "config_sha": self.config_sha,
            "context_sha": self.context_sha,
        }


def fingerprint(
    model: str,
    dimension: Dimension,
    template: str,
    config: dict[str, Any],
    context: str = "",
) -> Fingerprint:
    return Fingerprint(
        model=model,
        dimension_sha=sha(dimension.criterion),
        template_sha=sha(template),
        config_sha=sha(config),
        context_sha=sha(context.strip()) if dimension.needs_context and context.strip() else None,
    )
