"""Imported by Inspect through the `inspect_ai` entry point: every task and model provider."""

from commerce_evals.chaos import chaos
from commerce_evals.checkout import checkout
from commerce_evals.providers import commerce
from commerce_evals.scorer import pass_hat_k

__all__ = ["chaos", "checkout", "commerce", "pass_hat_k"]
