"""The strict base of every model a person's file is read into: an unknown key is an error.

A typo such as `never_call` or `todya` must fail loudly, never load as an ignored extra.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Strict(BaseModel):
    """Unknown keys are errors."""

    model_config = ConfigDict(extra="forbid")


class FrozenStrict(Strict):
    """Strict, and immutable once read (rows shared by every sample of a task)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
