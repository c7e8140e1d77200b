"""What the agent's instructions show of a case's injected state: every item a line of labelled
fields (`- id: PE-2002 | name: ... | shown at: $56.00`), so no model can read a name as part of
an id, in every domain and every case of every flow."""

from __future__ import annotations

from typing import Any

import pytest

from commerce_evals.cases.model import load_cases
from commerce_evals.cases.state import AFTER
from commerce_evals.core.flow_table import FLOWS
from commerce_evals.domains.base import World, labelled
from commerce_evals.domains.shop.world import ShopWorld
from commerce_evals.domains.worlds import cached_world
from commerce_evals.harness.flow_inputs import dataset_files
from commerce_evals.harness.sample_run import render_instructions

ID_LABELS = ("id", "customer id")


def fields(line: str) -> dict[str, str]:
    """A `- label: value | label: value` line read back; {} when it is not one."""
    if not line.startswith("- "):
        return {}
    pairs = [part.partition(": ") for part in line[2:].split(" | ")]
    if any(not sep for _, sep, _ in pairs):
        return {}
    return {label: value for label, _, value in pairs}


def item_lines(text: str) -> list[str]:
    """The list items of the instructions' state part (memory facts are the person's words)."""
    return [line for line in text.splitlines() if line.startswith("- ")]


def test_a_shown_product_is_labelled_as_the_model_misread_it() -> None:
    world = cached_world("shop", None, True)
    assert isinstance(world, ShopWorld)
    session = world.session({"seen_products": ["PE-2002"], "cart": [{"product_id": "P-1001"}]})
    context = session.context()
    assert "- id: PE-2002 | name: Lotusline Everyday TPE Yoga Mat | shown at: $56.00" in context
    cart = world.products["P-1001"].name
    assert f"- id: P-1001 | name: {cart} | quantity: 1" in context
    assert "PE-2002 Lotusline" not in context


def test_a_signed_in_customer_is_labelled() -> None:
    context = (
        cached_world("support", None, True).session({"verified_customer_id": "C-001"}).context()
    )
    assert "- customer id: C-001 | name: Ana Torres" in context.splitlines()


def test_labelled_writes_each_field_with_its_label() -> None:
    line = labelled(("id", "P-1"), ("name", "Ridge 2"), ("quantity", 2))
    assert line == "- id: P-1 | name: Ridge 2 | quantity: 2"
    assert fields(line) == {"id": "P-1", "name": "Ridge 2", "quantity": "2"}


def cases_by_flow() -> list[tuple[str, World, str, dict[str, Any], str]]:
    found = []
    for flow, spec in FLOWS.items():
        world = cached_world(spec.domain, None, True)
        paths, _ = dataset_files(flow, None)
        for case in load_cases(paths):
            if case.state and AFTER not in case.state:
                found.append((flow, world, spec.agent, case.state, case.id))
    return found


@pytest.mark.parametrize("flow", sorted(FLOWS))
def test_every_case_shows_its_ids_as_labelled_fields(flow: str) -> None:
    """Each item line of each case's rendered instructions (memory facts aside) is labelled, and
    its id field is exactly an id the world or the case knows."""
    checked = 0
    for case_flow, world, agent, state, case_id in cases_by_flow():
        if case_flow != flow:
            continue
        session = world.session(state)
        template = world.agents[agent].instructions.read_text(encoding="utf-8")
        text = render_instructions(template, world.instruction_variables(), session)
        memory = {f"- {m['text']}" for m in getattr(session, "memory", [])}
        known = world.known_ids() | world.case_ids(state)
        for line in item_lines(session.context()):
            if line in memory:
                continue
            labels = fields(line)
            assert labels, f"{case_id}: an unlabelled item line {line!r}"
            [id_label] = [label for label in ID_LABELS if label in labels]
            assert labels[id_label] in known, f"{case_id}: {line!r}"
            assert line in text or "$memory" not in template
            checked += 1
    if flow in ("checkout", "discovery", "memory", "injection", "support"):
        assert checked, f"no case of {flow} injects an item the instructions show"
