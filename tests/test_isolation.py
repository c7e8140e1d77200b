"""200 samples at high concurrency writing carts, memory and staged queues: no write leaks."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from commerce_evals.domains.shop.world import ShopWorld
from commerce_evals.harness.flow_task import flow_task
from tests.helpers import case_score, run_task, samples_by_id

SAMPLES = 200
IN_STOCK = [p.id for p in ShopWorld.load(poisoned=False).products.values() if p.stock >= 3]


def shopper_case(i: int) -> dict:
    product = IN_STOCK[i % len(IN_STOCK)]
    quantity = 1 + i % 3
    memory = f"Prefers style number {i}"
    return {
        "id": f"iso-{i:03d}-writes",
        "priority": "medium",
        "difficulty": "medium",
        "state": {"seen_products": [product]},
        "turns": [f"Add it and remember that I prefer style number {i}."],
        "expected": {
            "state": {
                "rows": {
                    "cart": [{"product_id": product, "quantity": quantity}],
                    "memory": [{"text": memory}],
                },
                "counts": {"cart": 1, "memory": 1},
            }
        },
        "reference": [
            {
                "calls": [
                    [
                        {
                            "tool": "add_to_cart",
                            "args": {"product_id": product, "quantity": quantity},
                        },
                        {"tool": "save_memory", "args": {"text": memory}},
                    ]
                ],
                "reply": "Done.",
            }
        ],
    }


def merchant_case(i: int) -> dict:
    product = f"P-{1001 + i % 160}"
    return {
        "id": f"iso-{i:03d}-stages",
        "priority": "medium",
        "difficulty": "medium",
        "turns": [f"Stage a stock change for {product}."],
        "expected": {
            "state": {
                "rows": {"staged_changes": [{"product_id": product, "new_value": i}]},
                "counts": {"staged_changes": 1},
            }
        },
        "reference": [
            {
                "calls": [
                    {
                        "tool": "stage_change",
                        "args": {"kind": "stock", "product_id": product, "new_value": i},
                    }
                ],
                "reply": "Staged.",
            }
        ],
    }


def leaked_samples(tmp_path: Path, agent: str, make, n: int = SAMPLES) -> list[str]:
    path = tmp_path / f"{agent}.yaml"
    path.write_text(yaml.safe_dump([make(i) for i in range(n)]))
    task = flow_task("iso", domain="shop", profile=agent, dataset=str(path), poisoned=False)
    samples = samples_by_id(run_task(task, max_samples=n, max_connections=n))
    assert len(samples) == n
    return [sid for sid, s in samples.items() if case_score(s).value["passed"] != 1.0]


def run_all(tmp_path: Path, agent: str, make) -> None:
    leaked = leaked_samples(tmp_path, agent, make)
    assert not leaked, f"state leaked between samples: {leaked[:5]}"


def test_the_check_catches_a_shared_mutable_object(tmp_path: Path, monkeypatch) -> None:
    from commerce_evals.domains.shop.session import ShopSession

    shared: list = []
    original = ShopSession.__init__

    def sharing_init(self, world, state) -> None:
        original(self, world, state)
        self.memory = shared  # the bug this file guards against

    monkeypatch.setattr(ShopSession, "__init__", sharing_init)
    assert leaked_samples(tmp_path, "shopper", shopper_case, n=10)


def test_carts_and_memory_do_not_leak(tmp_path: Path) -> None:
    run_all(tmp_path, "shopper", shopper_case)


@pytest.mark.slow  # the same check as the carts' above, over the merchant's queues
def test_staged_queues_do_not_leak(tmp_path: Path) -> None:
    run_all(tmp_path, "merchant", merchant_case)
