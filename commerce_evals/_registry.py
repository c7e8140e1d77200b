"""Imported by Inspect through the `inspect_ai` entry point: every task and model provider.

Every task is reachable as `commerce_evals/<name>` wherever Inspect runs. Inspect prefixes a
task's registry name with its package only when it takes the module for an installed one; run
as `python -m inspect_ai` in a clone's root, Python imports the clone's own `commerce_evals/`
from the working folder, whose install record (an `.egg-info` there, or a wheel installed
elsewhere) is not an editable one, so Inspect registers plain `checkout` and then reads
`commerce_evals/checkout` as a path, finding no task. Each task that came out unprefixed is
registered once more under its prefixed name.
"""

from collections.abc import Callable
from typing import Any

from inspect_ai import task, task_source
from inspect_ai.util import registry_info

from commerce_evals.case_set import case_set, case_set_flow
from commerce_evals.checkout import checkout
from commerce_evals.dealer import dealer as dealer
from commerce_evals.discovery import discovery
from commerce_evals.injection import injection
from commerce_evals.memory import memory
from commerce_evals.merchant import merchant
from commerce_evals.production import production
from commerce_evals.scoring.metrics import mean_and_pass_hat_k, pass_hat_k
from commerce_evals.scripted.chaos import commerce_test
from commerce_evals.scripted.providers import commerce
from commerce_evals.support import support

PACKAGE = "commerce_evals"


def _reachable_by_package_name(function: Any, register: Callable[..., Any]) -> None:
    name = registry_info(function).name
    if "/" not in name:
        register(name=f"{PACKAGE}/{name}")(function)


for _function in (checkout, discovery, memory, merchant, injection, support, dealer, production):
    _reachable_by_package_name(_function, task)
_reachable_by_package_name(case_set_flow, task)
_reachable_by_package_name(case_set, task_source)

__all__ = [
    "case_set",
    "case_set_flow",
    "checkout",
    "commerce",
    "commerce_test",
    "discovery",
    "injection",
    "memory",
    "mean_and_pass_hat_k",
    "merchant",
    "pass_hat_k",
    "production",
    "support",
]
