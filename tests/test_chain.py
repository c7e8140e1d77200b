"""`state: {after: <case id>}`: cases in order without coupled samples, in any domain."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from inspect_ai.log import EvalSample

from commerce_evals.cases.model import Case, CaseFileError, load_case_sources
from commerce_evals.dealer import dealer
from commerce_evals.domains import load_world
from commerce_evals.harness.chain import ChainError, resolve_chains, start_session
from commerce_evals.harness.flow_task import flow_task
from tests.conftest import MINI_SHOP
from tests.helpers import case_score, run_task, samples_by_id

SHOP_CASES = [
    {
        "id": "chain-001-cart",
        "priority": "medium",
        "difficulty": "medium",
        "state": {"seen_products": ["P-1"]},
        "turns": ["Add the Ridge shoe."],
        "expected": {"cart_contains": ["P-1"]},
        "reference": [
            {"calls": [{"tool": "add_to_cart", "args": {"product_id": "P-1"}}], "reply": "Added."}
        ],
    },
    {
        "id": "chain-002-more",
        "priority": "medium",
        "difficulty": "medium",
        "state": {"after": "chain-001-cart"},
        "turns": ["Make it two."],
        "expected": {"cart_contains": [{"product_id": "P-1", "quantity": 2}]},
        "reference": [
            {
                "calls": [
                    {"tool": "update_cart_quantity", "args": {"product_id": "P-1", "quantity": 2}}
                ],
                "reply": "Two now.",
            }
        ],
    },
    {
        "id": "chain-003-view",
        "priority": "medium",
        "difficulty": "medium",
        "state": {"after": "chain-002-more"},
        "turns": ["What's in my cart?"],
        "expected": {"cart_item_count": 1},
        "reference": [{"calls": [{"tool": "view_cart"}], "reply": "Two Ridge shoes."}],
    },
]


def write_cases(tmp_path: Path, cases: list[dict[str, Any]]) -> Path:
    path = tmp_path / "cases.yaml"
    path.write_text(yaml.safe_dump({"cases": cases}), encoding="utf-8")
    return path


def sources(tmp_path: Path, cases: list[dict[str, Any]]) -> list[tuple[Path, Case]]:
    return load_case_sources([write_cases(tmp_path, cases)])


def test_a_chain_replays_its_cases_oldest_first(tmp_path: Path) -> None:
    chains = resolve_chains(sources(tmp_path, SHOP_CASES))
    assert sorted(chains) == ["chain-002-more", "chain-003-view"]
    chain = chains["chain-003-view"]
    assert chain.state == {"seen_products": ["P-1"]}
    assert [link.case_id for link in chain.links] == ["chain-001-cart", "chain-002-more"]


def test_start_session_continues_from_the_end_of_the_chain_in_another_domain(
    tmp_path: Path,
) -> None:
    world = load_world("shop", MINI_SHOP)
    cases = {c.id: c for _, c in sources(tmp_path, SHOP_CASES)}
    chains = resolve_chains(sources(tmp_path, SHOP_CASES))
    tools = world.agents["shopper"].tools
    session = start_session(
        world, tools, cases["chain-003-view"], chains["chain-003-view"].model_dump(mode="json")
    )
    assert [(r["product_id"], r["quantity"]) for r in session.snapshot()["cart"]] == [("P-1", 2)]
    assert session.drain_events() == []
    alone = start_session(world, tools, cases["chain-001-cart"], None)
    assert alone.snapshot()["cart"] == []


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"chain-002-more": {"after": "chain-000-nowhere"}}, "no case 'chain-000-nowhere'"),
        (
            {"chain-001-cart": {"after": "chain-003-view"}},
            "cycle: chain-001-cart -> chain-003-view",
        ),
        ({"chain-002-more": {"after": "chain-002-more"}}, "cannot start after itself"),
        (
            {"chain-002-more": {"after": "chain-001-cart", "cart": []}},
            "'after' stands alone; ['cart']",
        ),
        ({"chain-002-more": {"after": ["chain-001-cart"]}}, "expected a case id"),
    ],
)
def test_a_bad_after_is_a_load_error_naming_file_case_and_field(
    tmp_path: Path, change: dict[str, dict[str, Any]], message: str
) -> None:
    cases = [{**c, "state": change.get(c["id"], c["state"])} for c in SHOP_CASES]
    path = write_cases(tmp_path, cases)
    with pytest.raises(CaseFileError) as err:
        resolve_chains(load_case_sources([path]))
    line = next(p for p in err.value.problems if message in p)
    assert line.startswith(f"{path}: case chain-")
    assert ": state.after: " in line


def test_a_chain_cannot_start_from_a_case_without_a_reference(tmp_path: Path) -> None:
    cases = [dict(SHOP_CASES[0], skip="not yet", reference=None), *SHOP_CASES[1:]]
    with pytest.raises(CaseFileError, match="has no reference run to start from"):
        resolve_chains(sources(tmp_path, cases))


def test_flow_task_refuses_a_cycle_at_load(tmp_path: Path) -> None:
    cases = [
        {**c, "state": {"after": "chain-003-view"}} if c["id"] == "chain-001-cart" else c
        for c in SHOP_CASES
    ]
    path = write_cases(tmp_path, cases)
    with pytest.raises(CaseFileError, match=r"state\.after: cycle"):
        flow_task(
            "chain",
            domain="shop",
            profile="shopper",
            dataset=str(path),
            fixtures=str(MINI_SHOP),
            poisoned=False,
        )


def test_a_replay_that_errors_stops_the_sample(tmp_path: Path) -> None:
    broken = [dict(SHOP_CASES[0], state={}), SHOP_CASES[1]]  # P-1 never seen: the add is blocked
    broken[0]["reference"] = [
        {"calls": [{"tool": "update_cart_quantity", "args": {"product_id": "P-1", "quantity": 2}}]}
    ]
    loaded = sources(tmp_path, broken)
    world = load_world("shop", MINI_SHOP)
    chain = resolve_chains(loaded)["chain-002-more"].model_dump(mode="json")
    with pytest.raises(ChainError, match="replaying its reference, update_cart_quantity answered"):
        start_session(world, world.agents["shopper"].tools, loaded[1][1], chain)


def test_a_chained_case_without_its_chain_is_refused(tmp_path: Path) -> None:
    world = load_world("shop", MINI_SHOP)
    case = sources(tmp_path, SHOP_CASES)[1][1]
    with pytest.raises(ChainError, match="carries no chain"):
        start_session(world, world.agents["shopper"].tools, case, None)


# ---- the dealer chain, one sample run alone --------------------------------------------------------


@pytest.fixture(scope="module")
def alone() -> dict[str, EvalSample]:
    """Two chained dealer cases picked out of the flow, as --sample-id does."""
    log = run_task(
        dealer(), sample_id=["dealer-005-pause-camry", "dealer-009-reset-sandbox"], cache=False
    )
    return samples_by_id(log)


def _start(sample: EvalSample) -> dict[str, Any]:
    """Every table as the sample began: its session rebuilt from the chain the sample carries."""
    world = load_world("dealer")
    case = Case.model_validate(sample.metadata["case"])
    session = start_session(world, world.agents["operator"].tools, case, sample.metadata["chain"])
    return session.snapshot()


def test_a_case_run_alone_starts_where_its_chain_ends(alone: dict[str, EvalSample]) -> None:
    assert sorted(alone) == ["dealer-005-pause-camry", "dealer-009-reset-sandbox"]
    start = _start(alone["dealer-005-pause-camry"])
    camry = next(v for v in start["vehicles"] if v["id"] == "V-1001")
    assert camry["status"] == "LISTED" and camry["pricing"]["buyNowPrice"] == 24500
    made = [t for t in start["tasks"] if t["id"].startswith("TK-51")]
    assert [t["decisionIds"] for t in made] == [["DEC-99622B"], ["DEC-981095"]]
    assert case_score(alone["dealer-005-pause-camry"]).value["passed"] == 1.0


def test_the_last_seed_case_starts_after_all_eight(alone: dict[str, EvalSample]) -> None:
    start = _start(alone["dealer-009-reset-sandbox"])
    status = {v["id"]: v["status"] for v in start["vehicles"]}
    assert (status["V-1001"], status["V-1009"]) == ("ON_HOLD", "OFFER_ACCEPTED")
    assert [s["stepKey"] for s in start["sends"]] == ["BOS"]
    assert sum(1 for v in start["vehicles"] if v["status"] == "DRAFT") == 7
    assert case_score(alone["dealer-009-reset-sandbox"]).value["passed"] == 1.0
