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
