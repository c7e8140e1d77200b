"""McNemar's test against values worked out by hand."""

from __future__ import annotations

import math

import pytest

from commerce_evals.reports.stats import EXACT_BELOW, mcnemar


def pairs(b: int, c: int, same: int = 0) -> list[tuple[bool, bool]]:
    return [(True, False)] * b + [(False, True)] * c + [(True, True)] * same


def test_exact_binomial_matches_the_hand_computed_value() -> None:
    # b = 5, c = 1: n = 6; P(X <= 1) = (C(6,0) + C(6,1)) / 2^6 = 7/64; two-sided 14/64
    test = mcnemar(pairs(5, 1, same=20))
    assert test.method == "exact binomial"
    assert (test.b, test.c, test.shared) == (5, 1, 26)
    assert test.p_value == pytest.approx(14 / 64)
    assert not test.beyond_noise(0.05)


def test_exact_binomial_all_one_way_is_beyond_noise() -> None:
    # b = 8, c = 0: 2 * (1/2)^8 = 1/128
    test = mcnemar(pairs(8, 0))
    assert test.p_value == pytest.approx(1 / 128)
    assert test.beyond_noise(0.05)
    assert "beyond noise" in test.describe()


def test_chi_square_with_continuity_correction_for_many_discordant_cases() -> None:
    # b = 20, c = 8: (|20 - 8| - 1)^2 / 28 = 121/28 = 4.3214; P(chi2_1 > 4.3214) = 0.03763
    test = mcnemar(pairs(20, 8))
    assert EXACT_BELOW <= 20 + 8
    assert test.method == "chi-square with continuity correction"
    assert test.statistic == pytest.approx(121 / 28)
    assert test.p_value == pytest.approx(0.037630, abs=1e-5)
    assert test.beyond_noise(0.05) and not test.beyond_noise(0.01)


def test_symmetric_changes_are_noise_and_no_change_is_no_evidence() -> None:
    assert mcnemar(pairs(3, 3)).p_value == pytest.approx(1.0)
    none = mcnemar(pairs(0, 0, same=10))
    assert none.method == "none" and none.p_value == 1.0 and not none.beyond_noise()
    assert "no case changed" in none.describe()


def test_exact_and_chi_square_agree_roughly_at_the_switch() -> None:
    exact = mcnemar(pairs(18, 6)).p_value  # 24 discordant: exact
    approx = mcnemar(pairs(19, 6)).p_value  # 25 discordant: chi-square
    assert math.isclose(exact, 0.0227, abs_tol=1e-3)
    assert math.isclose(approx, 0.0164, abs_tol=1e-3)
