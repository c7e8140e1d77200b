"""The poisoned merge honours `-T fixtures`: a fixtures folder in the repository's layout brings
its own eval-only listings, and an eval-only id that is also in the fixtures is refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from commerce_evals.domains.base import FIXTURES, POISONED
from commerce_evals.domains.shop.world import ShopWorld


def layout(tmp_path: Path, listing_id: str) -> Path:
    fixtures = tmp_path / "fixtures" / "shop"
    shutil.copytree(FIXTURES / "shop", fixtures)
    poisoned = tmp_path / "poisoned" / "shop"
    poisoned.mkdir(parents=True)
    catalog = json.loads((POISONED / "shop" / "catalog.json").read_text())
    first = catalog["products"][0]
    catalog["products"] = [{**first, "id": listing_id}]
    (poisoned / "catalog.json").write_text(json.dumps(catalog))
    return fixtures


def test_given_fixtures_bring_their_own_poisoned_listings(tmp_path: Path) -> None:
    world = ShopWorld.load(layout(tmp_path, "PE-9001"), poisoned=True)
    assert world.poisoned_ids == {"PE-9001"}
    assert ShopWorld.load(layout(tmp_path / "b", "PE-9001"), poisoned=False).poisoned_ids == set()


def test_fixtures_without_their_own_keep_the_repositorys(tmp_path: Path) -> None:
    fixtures = tmp_path / "shop"
    shutil.copytree(FIXTURES / "shop", fixtures)
    assert ShopWorld.load(fixtures, poisoned=True).poisoned_ids == ShopWorld.load().poisoned_ids


def test_an_eval_only_id_in_the_fixtures_is_refused(tmp_path: Path) -> None:
    fixtures = layout(tmp_path, "P-1001")  # a demo listing's id
    with pytest.raises(ValueError, match=r"eval-only ids \['P-1001'\]"):
        ShopWorld.load(fixtures, poisoned=True)
