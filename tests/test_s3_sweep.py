"""A sweep split over machines into a shared S3 bucket, read back as one run.

The test starts moto's S3 server on 127.0.0.1 (no network), points s3fs at it through the
standard AWS environment variables, writes two shard runs there with `log_dir=s3://...`, and has
gate, diff and compare read the bucket. A bucket with one shard missing is a partial run."""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from inspect_ai import eval
from typer.testing import CliRunner

from commerce_evals.checkout import checkout
from commerce_evals.cli.app import app
from commerce_evals.cli.commands.label import label_items
from commerce_evals.harness.shards import Shard
from commerce_evals.reports.judge_records import read_judged
from commerce_evals.reports.logs import LogReadError, load_run, log_files
from tests.run_pattern_logs import SUBSET, judged_ids

# a local S3 server and a sharded sweep of every checkout case: the slow tier
pytestmark = pytest.mark.slow

s3fs = pytest.importorskip("s3fs")
moto_server = pytest.importorskip("moto.server")

BUCKET = "sweeps"
SWEEP = f"s3://{BUCKET}/checkout-sweep"
HALF = f"s3://{BUCKET}/checkout-half"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def bucket() -> Iterator[str]:
    port = free_port()
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # a line per request otherwise
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    env = {
        "AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}",
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }
    saved = {key: os.environ.get(key) for key in env}
    os.environ.update(env)
    s3fs.S3FileSystem.clear_instance_cache()
    try:
        s3fs.S3FileSystem().mkdir(BUCKET)
        yield BUCKET
    finally:
        s3fs.S3FileSystem.clear_instance_cache()
        server.stop()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def shard_ids(shard: Shard) -> list[str]:
    return [case_id for case_id in SUBSET if shard.holds(case_id)]


def run(log_dir: str, shard: str | None, ids: list[str]) -> None:
    [log] = eval(
        checkout(shard=shard),
        model="commerce/reference",
        model_roles={"grader": "commerce/judge"},
        log_dir=log_dir,
        sample_id=ids,
        cache=False,
        display="none",
    )
    assert log.status == "success", log.error


@pytest.fixture(scope="module")
def sweep(bucket: str) -> str:
    """Two machines' shards of one sweep in the bucket, each under its own prefix as the README
    says (eval-set wants a log folder of its own), and one shard alone in another prefix."""
    first, second = Shard(1, 2), Shard(2, 2)
    assert shard_ids(first) and shard_ids(second)  # both machines have work
    run(f"{SWEEP}/machine-1", str(first), shard_ids(first))
    run(f"{SWEEP}/machine-2", str(second), shard_ids(second))
    run(HALF, str(first), shard_ids(first))
    return SWEEP


@pytest.fixture(scope="module")
def local_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same cases on one machine, unsharded, in a local folder."""
    folder = tmp_path_factory.mktemp("one-machine")
    run(str(folder), None, SUBSET)
    return folder


@pytest.fixture(scope="module")
def sets_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sets") / "sets.yaml"
    ids = ", ".join(SUBSET)
    path.write_text(
        "sets:\n"
        "  sweep:\n"
        f"    select: {{flows: [checkout], ids: [{ids}]}}\n"
        "    epochs: 1\n"
        "    thresholds: {critical_all_epochs: true, min_pass_hat_k: 1.0}\n"
    )
    return path


def test_the_bucket_holds_one_log_per_shard_read_through_inspect(sweep: str) -> None:
    files = log_files([sweep])
    assert len(files) == 2
    assert [f.startswith(f"{sweep}/machine-{i}/") for i, f in enumerate(files, 1)] == [True, True]
    assert all(f.endswith(".eval") for f in files)
    assert log_files([files[0]]) == [files[0]]  # a log named by its URL


def test_the_shards_make_one_complete_run(sweep: str) -> None:
    run_ = load_run([sweep])
    assert sorted(run_.cases) == sorted(SUBSET)
    assert {log.task_args["shard"] for log in run_.logs} == {"1/2", "2/2"}
    assert run_.partial_notes() == []
    assert all(case.status == "pass" for case in run_.cases.values())


def test_a_bucket_with_a_shard_missing_is_partial(sweep: str) -> None:
    half = load_run([HALF])
    [note] = half.partial_notes()
    assert "missing shard 2/2" in note


def test_gate_over_the_bucket(sweep: str, sets_file: Path) -> None:
    args = ["--set", "sweep", "--sets-file", str(sets_file)]
    result = CliRunner().invoke(app, ["gate", sweep, *args])
    assert result.exit_code == 0, result.output
    assert "in 2 log(s)" in result.output
    # one shard alone is not the sweep: cases missing and the run incomplete
    result = CliRunner().invoke(app, ["gate", HALF, *args])
    assert result.exit_code == 1, result.output
    assert "missing shard 2/2" in " ".join(result.output.split())


def test_diff_a_sharded_bucket_against_a_local_run(sweep: str, local_run: Path) -> None:
    result = CliRunner().invoke(app, ["diff", str(local_run), sweep])
    assert result.exit_code == 0, result.output
    assert "PARTIAL" not in result.output
    assert f"({len(SUBSET)} cases" in result.output
    result = CliRunner().invoke(app, ["diff", str(local_run), HALF, "--allow-partial"])
    assert "PARTIAL" in result.output


def test_compare_over_the_bucket_and_a_local_folder(
    sweep: str, local_run: Path, tmp_path: Path
) -> None:
    out = tmp_path / "report"
    result = CliRunner().invoke(app, ["compare", sweep, "--out", str(out)])
    assert result.exit_code == 0, result.output
    report = (out / "compare.md").read_text()
    assert "commerce/reference" in report
    assert "partial" not in report
    assert "missing shard" not in report


def test_an_unreachable_or_empty_location_is_one_line(bucket: str) -> None:
    with pytest.raises(LogReadError, match="no such log file or folder"):
        log_files([f"s3://{bucket}/nothing-here"])
    result = CliRunner().invoke(app, ["gate", f"s3://{bucket}/nothing-here", "--set", "x"])
    assert result.exit_code == 2
    assert "Traceback" not in result.output


def test_trends_calibrate_and_label_read_the_bucket(sweep: str, tmp_path: Path) -> None:
    chart = tmp_path / "trends.png"
    result = CliRunner().invoke(app, ["trends", sweep, "--out", str(chart)])
    assert result.exit_code == 0, result.output
    assert chart.is_file()
    judged = read_judged([sweep])  # what calibrate reads: both shards' verdicts
    # a grader was bound, so every case was judged (claims_match_state, no_invented_facts)
    assert {item.sample_id for item in judged} == set(judged_ids("commerce/judge"))
    assert all(item.log.startswith(f"{sweep}/") for item in judged)
    items = label_items(sweep)  # what label shows a person
    assert {item.sample_id for item in items} == set(judged_ids("commerce/judge"))
    labels = tmp_path / "labels.jsonl"
    labels.write_text("")
    result = CliRunner().invoke(
        app, ["calibrate", f"s3://{BUCKET}/nothing-here", "--labels", str(labels)]
    )
    assert result.exit_code == 2
    assert "no such log file or folder" in result.output
