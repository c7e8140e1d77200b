"""The judge prompt: quoted data first, then the instructions; and the fingerprint of a verdict.

The template (commerce_evals/judging/prompts/_template.md) has {{name}} slots, filled in one pass so text put
into one slot is never read as another slot. Everything between the block tags is quoted by
commerce_evals/judging/transcript.py: the transcript a JSON value per event line, the reference
material (a policy) a JSON string per line, and extra evidence (a change set, say) one labelled
JSON value per line, so no quoted text can open or close a block or start a line of its own.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from commerce_evals.grading.score_metadata import VerdictRecord
from commerce_evals.judging.dimensions import JUDGES_DIR, Dimension
from commerce_evals.judging.transcript import QuotedTranscript, name, quote, quote_text

CLOSE_TRANSCRIPT = "</transcript>"
_SLOT = re.compile(r"\{\{(\w+)\}\}")
# How a reader finds the end of the quoted data: any case, any spacing, look-alikes folded.
_CLOSE = re.compile(r"<\s*/\s*transcript\s*>", re.IGNORECASE)
_OPEN = re.compile(r"<\s*transcript\s*>", re.IGNORECASE)

AnswerFormat = Literal["json", "line"]
ANSWER_FORMATS: dict[AnswerFormat, str] = {
    "json": (
        "Answer with one JSON object and nothing after it: "
        '{"critique": "<your reasoning>", "verdict": "<Pass, Fail or Unknown>"}'
    ),
    "line": (
        "Write your critique, then end your answer with the verdict alone on the final line:\n"
        "Verdict: <Pass, Fail or Unknown>\n"
        "Only the final line is read as your verdict."
    ),
}


@lru_cache(maxsize=1)
def default_template() -> str:
    return (JUDGES_DIR / "_template.md").read_text(encoding="utf-8")


def fill(template: str, values: dict[str, str]) -> str:
    missing = sorted(set(_SLOT.findall(template)) - set(values))
    if missing:
        raise ValueError(f"judge template: no value for {missing}")
    return _SLOT.sub(lambda m: values[m.group(1)], template)


def evidence_lines(evidence: Sequence[tuple[str, Any]]) -> str:
    """Extra evidence for a judge, one `label: <JSON value>` line each, quoted like the transcript."""
    return "\n".join(f"{name(label)}: {quote(value)}" for label, value in evidence)


def reference_block(
    dimension: Dimension, context: str, evidence: Sequence[tuple[str, Any]] = ()
) -> str:
    """The quoted reference material: the policy (for dimensions that need it) and any evidence."""
    parts = []
    if dimension.needs_context and context.strip():
        parts.append(quote_text(context))
    if evidence:
        parts.append(evidence_lines(evidence))
    if not parts:
        return ""
    return "<reference>\n" + "\n".join(parts) + "\n</reference>\n\n"


def build_prompt(
    dimension: Dimension,
    transcript: QuotedTranscript,
    context: str = "",
    template: str | None = None,
    answer: AnswerFormat = "json",
    evidence: Sequence[tuple[str, Any]] = (),
) -> str:
    """One judge prompt. `context` (a policy) is quoted only for dimensions that need it;
    `evidence` (label, value) pairs are quoted for every dimension they are given to."""
    note = transcript.cut.note()
    return fill(
        template if template is not None else default_template(),
        {
            "reference_block": reference_block(dimension, context, evidence),
            "transcript": transcript.text,
            "cut_note": f"\n{note}\n" if note else "",
            "dimension": f"{dimension.name} ({dimension.title})",
            "criterion": dimension.criterion,
            "answer_format": ANSWER_FORMATS[answer],
        },
    )


@dataclass(frozen=True)
class PromptParts:
    """A prompt read back the way a reader would: the quoted data, then what follows it."""

    data: str
    instructions: str


def split_prompt(prompt: str) -> PromptParts:
    """Split where a credulous reader would: at the first thing that looks like a closing
    transcript tag, in any case or spacing and with look-alike characters folded. It only finds
    the real instructions when no quoted text can look like the end of the block."""
    folded = unicodedata.normalize("NFKC", prompt)
    start = _OPEN.search(folded)
    end = _CLOSE.search(folded, start.end()) if start else None
    if start is None or end is None:
        return PromptParts(data="", instructions=folded)
    return PromptParts(
        data=folded[start.end() : end.start()].strip("\n"), instructions=folded[end.end() :]
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


def judge_key(verdict: VerdictRecord) -> str:
    """Which judge a recorded verdict came from, for pooling: model, template and config, and for
    a shared dimension its text and reference too (a case's own rubric differs per case by
    design). "" when no judge was called. Verdicts with different keys are never pooled."""
    if not verdict.model:
        return ""
    parts = [verdict.model, verdict.template_sha, verdict.config_sha]
    if verdict.dimension != "rubric":
        parts += [verdict.dimension_sha, verdict.context_sha]
    return f"{verdict.model} {sha(parts)[:6]}"
