from commerce_evals.grading.matching import matches


def test_dict_pattern_is_a_subset_and_nests() -> None:
    assert matches({"a": 1}, {"a": 1, "b": 2})
    assert matches(
        {"pricing": {"buyNowPrice": 24500}}, {"pricing": {"buyNowPrice": 24500.0, "x": 1}}
    )
    assert not matches({"a": 1, "c": 3}, {"a": 1})
    assert not matches({"a": {"b": 1}}, {"a": 1})


def test_lists_compare_as_sets() -> None:
    assert matches(["I-1", "I-2"], ["I-2", "I-1"])
    assert not matches(["I-1"], ["I-1", "I-2"])
    assert not matches(["I-1", "I-3"], ["I-1", "I-2"])


def test_amounts_within_a_cent_and_strings_ignore_case() -> None:
    assert matches(104.0, 104.004)
    assert not matches(104.0, 104.02)
    assert matches("Customer Request", "customer request")
    assert matches("59715", 59715)
    assert not matches("yes", "no")


def test_star_means_present_with_any_value() -> None:
    assert matches({"idempotencyKey": "*"}, {"idempotencyKey": "k-1"})
    assert not matches({"idempotencyKey": "*"}, {"other": 1})
    assert not matches({"idempotencyKey": "*"}, {"idempotencyKey": None})


def test_booleans_are_not_numbers() -> None:
    assert matches(True, True)
    assert not matches(True, 1)
    assert not matches(1, True)


def _seed_refund_state(refund: dict[str, object]) -> tuple[bool, str]:
    """Seed 003's refund-two-items-one-call task, as loaded, graded on a run that wrote `refund`."""
    from commerce_evals.cases.model import load_case_sources
    from commerce_evals.domains.fixtures import DATASETS
    from commerce_evals.grading.graders import DomainBrief, GradeContext, grade
    from tests.helpers import make_run

    sources = load_case_sources(sorted((DATASETS / "support" / "seed_003").iterdir()), "support")
    [case] = [c for _, c in sources if c.id == "refund-two-items-one-call"]
    run = make_run(("go", []), start={"refunds": []}, end={"refunds": [refund]})
    [state] = [
        g for g in grade(case.expected, run, DomainBrief(), GradeContext(run)) if g.key == "state"
    ]
    return state.passed, state.reason


def test_seed_003_rows_compare_items_as_sets_amounts_within_a_cent_and_text_in_any_case() -> None:
    right = {"order_id": "R-1070", "item_ids": ["I-1", "I-2"], "amount": 104.0, "reason": "x"}
    assert _seed_refund_state(right)[0]
    assert _seed_refund_state({**right, "item_ids": ["I-2", "I-1"]})[0]
    assert _seed_refund_state({**right, "amount": 104.004})[0]
    assert _seed_refund_state({**right, "amount": "104"})[0]
    assert _seed_refund_state({**right, "order_id": "r-1070"})[0]
    for wrong in ({"item_ids": ["I-1"]}, {"amount": 104.02}, {"order_id": "R-1071"}):
        passed, reason = _seed_refund_state({**right, **wrong})
        assert not passed and "no row in refunds matches" in reason


def test_a_required_field_left_empty_does_not_match() -> None:
    assert not matches({"customer_id": "C-001"}, {"customer_id": None})
    assert not matches({"customer_id": "C-001"}, {"customer_id": ""})
    assert not matches({"customer_id": "C-001"}, {"order_id": "R-1"})
