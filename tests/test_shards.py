"""`-T shard=i/n`: every case in exactly one shard, the same split on every machine and run, a
chained case whole in its shard, a missing shard named by every report."""

from __future__ import annotations

import pytest
from inspect_ai import eval

from commerce_evals.case_set import case_set_flow
from commerce_evals.cases.model import load_cases
from commerce_evals.core.flow_table import FLOWS
from commerce_evals.dealer import dealer
from commerce_evals.harness.flow_inputs import dataset_paths
from commerce_evals.harness.shards import Shard, shard_number, sizes
from commerce_evals.harness.task_args import TaskArgumentError
from commerce_evals.reports.logs import Completeness, LogInfo, shard_gaps


def all_case_ids() -> list[str]:
    return [case.id for flow in FLOWS for case in load_cases(dataset_paths(flow, None))]


def test_every_case_of_every_flow_is_in_exactly_one_shard() -> None:
    ids = all_case_ids()
    assert len(ids) > 100
    for count in (1, 2, 3, 5, 8):
        holders = [[i for i in range(1, count + 1) if Shard(i, count).holds(c)] for c in ids]
        assert all(len(h) == 1 for h in holders)
        assert sum(sizes(ids, count)) == len(ids)
        if count <= 5:  # no shard empty at this size: the hash spreads the ids
            assert min(sizes(ids, count)) > 0


def test_the_split_is_fixed_by_the_case_id_alone() -> None:
    # SHA-256 of the id, not Python's salted hash(): these numbers hold on every machine and run
    assert [shard_number("checkout-001-cart-seen-product", n) for n in (2, 3, 7)] == [1, 2, 4]
    assert [shard_number("support-001", n) for n in (2, 3, 7)] == [1, 3, 7]
    ids = all_case_ids()
    before = {c: shard_number(c, 3) for c in ids}
    more = ["checkout-900-new-case", "dealer-900-another", *ids]  # cases added: none moves
    assert {c: shard_number(c, 3) for c in more if c in before} == before


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("0/3", "1 <= i <= n"),
        ("4/3", "1 <= i <= n"),
        ("2/0", "1 <= i <= n"),
        ("half", "expected i/n"),
        (2, "expected i/n"),
        (True, "expected text"),
    ],
)
def test_a_wrong_shard_is_one_error_naming_the_argument(value: object, problem: str) -> None:
    with pytest.raises(TaskArgumentError) as err:
        dealer(shard=value)
    assert str(err.value).startswith(f"-T shard={value}")
    assert problem in str(err.value)


def test_the_shards_of_a_flow_cover_it_and_record_the_split() -> None:
    whole = [str(s.id) for s in dealer().dataset]
    parts = [dealer(shard=f" {i} / 3 ") for i in (1, 2, 3)]
    ids = [[str(s.id) for s in task.dataset] for task in parts]
    assert sorted(sum(ids, [])) == sorted(whole)
    assert all(set(a).isdisjoint(b) for a in ids for b in ids if a is not b)
    for i, task in enumerate(parts, start=1):
        assert task.metadata["shard"] == f"{i}/3"
        assert task.metadata["shard_sizes"] == [len(p) for p in ids]


def test_a_chained_case_runs_alone_in_its_shard() -> None:
    # a chained case whose predecessor falls in another shard: it still starts where that run ended
    chained = [
        s
        for s in dealer().dataset
        if "chain" in (s.metadata or {})
        and shard_number(str(s.id), 3) != shard_number(s.metadata["case"]["state"]["after"], 3)
    ]
    assert chained
    sample = chained[0]
    case_id = str(sample.id)
    mine = Shard(shard_number(case_id, 3), 3)
    task = dealer(shard=str(mine))
    assert sample.metadata["case"]["state"]["after"] not in {str(s.id) for s in task.dataset}
    [kept] = [s for s in task.dataset if s.id == case_id]
    assert kept.metadata["chain"] == sample.metadata["chain"]  # the chain is carried whole
    [log] = eval(
        task,
        model="commerce/reference",
        sample_id=[case_id],
        cache=False,
        display="none",
        log_dir=None,
    )
    assert log.status == "success", log.error
    [scored] = log.samples
    assert scored.scores["commerce_case"].value["passed"] == 1.0


def test_a_set_is_sharded_within_each_flow() -> None:
    whole = [str(s.id) for s in case_set_flow(flow="checkout", set="regression").dataset]
    parts = [case_set_flow(flow="checkout", set="regression", shard=f"{i}/2") for i in (1, 2)]
    assert sorted(str(s.id) for t in parts for s in t.dataset) == sorted(whole)
    assert parts[0].metadata["shard_sizes"] == [len(parts[0].dataset), len(parts[1].dataset)]
    assert parts[0].metadata["set"] == "regression"


def info(shard: str | None, sizes: list[int], flow_args: dict | None = None) -> LogInfo:
    args = {**(flow_args or {}), **({"shard": shard} if shard else {})}
    meta = {"shard": shard, "shard_sizes": sizes} if shard else {}
    return LogInfo(
        path=f"s3://b/{shard}.eval",
        task="checkout",
        model="m",
        grader=None,
        epochs=1,
        set=None,
        created="2026-12-01T00:00:00",
        status="success",
        task_args=args,
        completeness=Completeness("success", 3, 3),
        metadata=meta,
    )


def test_a_missing_shard_is_named_and_an_empty_one_is_not_awaited() -> None:
    assert (
        shard_gaps([info("1/3", [3, 3, 2]), info("2/3", [3, 3, 2]), info("3/3", [3, 3, 2])]) == []
    )
    [gap] = shard_gaps([info("1/3", [3, 3, 2]), info("3/3", [3, 3, 2])])
    assert "missing shard 2/3 (3 samples)" in gap
    assert shard_gaps([info("1/3", [3, 3, 0]), info("2/3", [3, 3, 0])]) == []
    [mixed] = shard_gaps([info("1/2", [4, 4]), info("1/3", [3, 3, 2])])
    assert "different splits" in mixed
    # other arguments make another run: its shards are counted apart
    runs = [info("1/2", [4, 4]), info("2/2", [4, 4]), info("1/2", [4, 4], {"judge": "off"})]
    [other] = shard_gaps(runs)
    assert "missing shard 2/2" in other
    assert shard_gaps([info(None, [])]) == []
    # a log whose metadata says something else under "shard" is an ordinary log, not a crash
    assert shard_gaps([info("garbage", [1, 1])]) == []
    # sizes not recorded: every shard is awaited
    assert "missing shard 2/2 (1 samples)" in shard_gaps([info("1/2", [])])[0]
