"""Frozen JSON and FrozenScore: copies that share, values that refuse change, JSON as before."""

from __future__ import annotations

import math
from copy import deepcopy

import pytest
from inspect_ai._util.registry import registry_unqualified_name
from inspect_ai.scorer import SampleScore, Score, mean_score

from commerce_evals.core.frozen import FrozenDict, FrozenScore, freeze
from commerce_evals.scoring.metrics import mean_and_pass_hat_k, pass_hat_k


def a_score() -> Score:
    return Score(
        value={"passed": 1.0, "rubric": math.nan},
        answer="Added to your cart.",
        explanation="PASS",
        metadata={"grades": [{"key": "changes", "passed": True}], "judge": None},
    )


def test_a_frozen_value_refuses_change_and_is_its_own_copy() -> None:
    value = freeze({"grades": [{"key": "changes"}]})
    assert deepcopy(value) is value
    with pytest.raises(TypeError):
        value["grades"] = []
    with pytest.raises(TypeError):
        value["grades"].append({"key": "state"})


def test_a_frozen_score_serialises_as_the_plain_score_does() -> None:
    plain = a_score()
    assert FrozenScore.of(plain).model_dump_json() == plain.model_dump_json()


def test_a_copy_for_one_metric_key_never_reaches_the_original() -> None:
    original = SampleScore(score=FrozenScore.of(a_score()), sample_id="c-1")
    copy = deepcopy(original)
    assert copy.score is not original.score
    copy.score.value = 1.0  # what Inspect does to each metric key's copy
    assert original.score.value == {"passed": 1.0, "rubric": original.score.value["rubric"]}
    with pytest.raises(TypeError):
        original.score.value["passed"] = 0.0  # type: ignore[index]
    copy.score.history.append(None)  # type: ignore[arg-type]
    assert original.score.history == []


def test_the_flow_reducer_gives_inspects_mean_and_pass_hat_k_in_one_frozen_score() -> None:
    epochs = [a_score(), a_score().model_copy(update={"value": {"passed": 0.0, "rubric": 1.0}})]
    ours, inspects = mean_and_pass_hat_k()(epochs), mean_score()(epochs)
    assert registry_unqualified_name(mean_and_pass_hat_k()) == "mean_and_pass_hat_k"
    assert isinstance(ours, FrozenScore) and isinstance(ours.value, FrozenDict)
    assert isinstance(inspects.value, dict)
    with_k = {**inspects.value, "passed^k": 0.0}
    assert ours.model_dump_json() == inspects.model_copy(update={"value": with_k}).model_dump_json()
    assert pass_hat_k()(epochs).value == {"passed^k": 0.0}
    both_passed = [a_score(), a_score()]
    assert mean_and_pass_hat_k()(both_passed).value["passed^k"] == 1.0


def test_equal_scores_share_their_parts_and_unequal_ones_keep_their_own() -> None:
    one, two = FrozenScore.of(a_score()), FrozenScore.of(a_score())
    assert one.metadata is two.metadata and one.explanation is two.explanation
    # 1, 1.0 and true are equal to Python but not in the log: never shared
    ints = FrozenScore.of(a_score().model_copy(update={"value": {"passed": 1, "rubric": 0}}))
    floats = FrozenScore.of(a_score().model_copy(update={"value": {"passed": 1.0, "rubric": 0.0}}))
    assert ints.model_dump_json() != floats.model_dump_json()
    assert '"passed":1,' in ints.model_dump_json()
    other = FrozenScore.of(a_score().model_copy(update={"metadata": {"grades": [], "judge": None}}))
    assert other.metadata is not one.metadata
    assert other.metadata["judge"] is None and one.metadata["grades"][0]["key"] == "changes"
