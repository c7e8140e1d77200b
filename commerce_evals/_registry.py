"""Imported by Inspect through the `inspect_ai` entry point: every task and model provider."""

from commerce_evals.case_set import case_set, case_set_flow
from commerce_evals.checkout import checkout
from commerce_evals.dealer import dealer as dealer
from commerce_evals.discovery import discovery
from commerce_evals.grading.metrics import mean_and_pass_hat_k, pass_hat_k
from commerce_evals.injection import injection
from commerce_evals.memory import memory
from commerce_evals.merchant import merchant
from commerce_evals.production import production
from commerce_evals.scripted.chaos import chaos
from commerce_evals.scripted.providers import commerce
from commerce_evals.support import support

__all__ = [
    "case_set",
    "case_set_flow",
    "chaos",
    "checkout",
    "commerce",
    "discovery",
    "injection",
    "memory",
    "mean_and_pass_hat_k",
    "merchant",
    "pass_hat_k",
    "production",
    "support",
]
