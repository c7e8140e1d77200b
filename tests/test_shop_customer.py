"""The shop's customer cases (issue 19): ten per shopper flow where drawing out a fact is what is
graded, and shopper instructions that tell the agent what those cases grade. The cases themselves
run end to end in tests/test_flows.py (discovery, memory) and tests/test_checkout_flow.py."""

from __future__ import annotations

from commerce_evals.cases.model import Case, load_case_sources
from commerce_evals.domains.base import DATASETS
from commerce_evals.harness.flow_inputs import dataset_paths

SHOPPER_FLOWS = ("checkout", "discovery", "memory")
SHOPPER_MD = DATASETS.parent / "commerce_evals" / "domains" / "shop" / "shopper.md"


def _customer_cases(flow: str) -> list[Case]:
    return [c for _, c in load_case_sources(dataset_paths(flow, None), flow) if c.customer]


def test_each_shopper_flow_has_ten_customer_cases_with_variants() -> None:
    for flow in SHOPPER_FLOWS:
        cases = _customer_cases(flow)
        assert len(cases) >= 10, (flow, [c.id for c in cases])
        for case in cases:
            assert case.alternatives, case.id
            breaks = {k for cx in case.counterexamples for k in cx.breaks}
            assert "never_asks" in breaks, f"{case.id}: no counterexample asks what it had"
            if case.expected.asks_before:
                assert "asks_before" in breaks, f"{case.id}: no counterexample acts on a guess"


def test_the_shopper_instructions_say_what_the_customer_cases_grade() -> None:
    text = SHOPPER_MD.read_text(encoding="utf-8").lower()
    for phrase in ("size", "budget", "never ask for what you already have", "memory"):
        assert phrase in text, phrase
