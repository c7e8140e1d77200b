"""Bad input, class by class: each gets one clear first line and exit code 2, never a traceback.

Each table row is one bad input a new user could give: the exact first line of the message and
the exit code are asserted. In-process rows check the InputError (what the terminal shows is
`error: ` + its first line, exit code 2); the subprocess rows run `inspect eval` and
`commerce-evals` for real and check stderr, the exit code and that no traceback was printed.
"""

from __future__ import annotations

import inspect
import json
import os
import shutil
import struct
import subprocess
import sys
from collections.abc import Callable
from importlib import import_module
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from inspect_ai import eval
from inspect_ai.model import get_model
from typer.testing import CliRunner

from commerce_evals.case_set import case_set, case_set_flow
from commerce_evals.cases.errors import InputError, report
from commerce_evals.cases.model import load_cases
from commerce_evals.cases.reading import ALIAS_BUDGET, MAX_DEPTH, parse_yaml, read_data
from commerce_evals.checkout import checkout
from commerce_evals.cli.app import app
from commerce_evals.core.flow_table import FLOWS
from commerce_evals.discovery import discovery
from commerce_evals.harness.task_args import (
    DEFAULT_MAX_ROUNDS,
    TaskArgumentError,
    flow_arguments,
    flow_signature,
)
from commerce_evals.judging import shared_dimensions
from commerce_evals.production import production
from commerce_evals.reports.set_spec import load_sets
from commerce_evals.reports.traffic import load_traffic
from tests.conftest import DATA, MINI_SHOP
from tests.helpers import run_task, subprocess_env

ROOT = Path(__file__).parent.parent
MINI_CASES = DATA / "cases" / "mini.yaml"
CHECKOUT_ARGS = (
    "dataset, fixtures, instructions, poisoned, counterexamples, alternatives, max_rounds, "
    "max_calls_per_turn, judge, shard, cases, agent, tools, recorded, locale"
)
EXAMPLE_TRAFFIC = ROOT / "datasets" / "production" / "example.jsonl"
GOOD_LINE = EXAMPLE_TRAFFIC.read_bytes().splitlines()[0]

ALIAS_BOMB = "\n".join(
    [
        "a0: &a0 [x, x, x, x, x, x, x, x, x, x]",
        *(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)),
        "cases: [*a8]",
    ]
)
DEEP_YAML = "cases: " + "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5)
MINI_CASE = MINI_CASES.read_text(encoding="utf-8").split("\n  - id: checkout-002")[0]


def first_line(error: BaseException) -> str:
    return report(error).splitlines()[0]  # type: ignore[arg-type]


def expect_error(build: Callable[[], Any], line: str) -> None:
    with pytest.raises(InputError) as caught:
        build()
    assert first_line(caught.value) == line
    assert caught.value.exit_code == 2


def write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


# ---- task arguments -------------------------------------------------------------------------------

TASK_ARGUMENTS: list[tuple[str, Callable[[], Any], str]] = [
    (
        "a whole number that is not one",
        lambda: checkout(max_rounds="abc"),
        "error: -T max_rounds=abc: expected a whole number",
    ),
    (
        "a bool that is not one",
        lambda: checkout(poisoned="maybe"),
        "error: -T poisoned=maybe: expected true or false",
    ),
    (
        "an unknown name",
        lambda: checkout(max_round=3),
        f"error: -T max_round: task checkout takes no argument 'max_round'; "
        f"its arguments: {CHECKOUT_ARGS}",
    ),
    (
        "below its minimum",
        lambda: checkout(max_rounds=0),
        "error: -T max_rounds=0: must be at least 1",
    ),
    (
        "a retired name",
        lambda: checkout(epochs=5),
        "error: -T epochs=5: use Inspect's --epochs 5 instead (the tasks take no epochs "
        "argument; --epochs keeps their pass^k reducer)",
    ),
    (
        "a retired name under a set",
        lambda: case_set(set="checkout", epochs=3),
        "error: -T epochs=3: use Inspect's --epochs 3 instead (the tasks take no epochs "
        "argument; --epochs keeps their pass^k reducer)",
    ),
    (
        "a case that is not one",
        lambda: checkout(cases="checkout-004-quantity-cap-add-ten"),
        "error: -T cases=checkout-004-quantity-cap-add-ten: checkout-004-quantity-cap-add-ten "
        "names no case of flow 'checkout'; did you mean checkout-004-quantity-cap-adds-ten, "
        "checkout-005-quantity-under-cap, checkout-110-quantity-then-order? (a case id, or a "
        "shell pattern such as checkout-00*; not a sample id with ~)",
    ),
    (
        "a pattern that matches no case",
        lambda: checkout(cases=["checkout-001-cart-seen-product", "chekout-*"]),
        "error: -T cases=checkout-001-cart-seen-product,chekout-*: chekout-* names no case of "
        "flow 'checkout' (a case id, or a shell pattern such as checkout-00*; not a sample id "
        "with ~)",
    ),
    (
        "a missing case file",
        lambda: checkout(dataset="no/such.yaml"),
        "error: -T dataset=no/such.yaml: no such file or folder",
    ),
    (
        "a fixtures folder that is a file",
        lambda: checkout(fixtures=str(MINI_CASES)),
        f"error: -T fixtures={MINI_CASES}: is a file; name a folder",
    ),
    (
        "a missing instructions file",
        lambda: checkout(instructions="no/such.md"),
        "error: -T instructions=no/such.md: no such file",
    ),
    (
        "a list where text belongs",
        lambda: checkout(dataset=["a", "b"]),
        "error: -T dataset=['a', 'b']: expected text",
    ),
    (
        "an unknown flow",
        lambda: case_set_flow(flow="chekout", set="regression"),
        "error: -T flow=chekout: not one of checkout, discovery, memory, merchant, injection, "
        "support, dealer",
    ),
    (
        "an unknown set",
        lambda: case_set(set="regresion"),
        f"error: no set named 'regresion'; sets: {sorted(load_sets().sets)}",
    ),
    (
        "an unknown judge dimension",
        lambda: production(dimensions="politness"),
        "error: -T dimensions=politness: politness not shared judge dimensions; choose from "
        + ", ".join(sorted(shared_dimensions())),
    ),
    (
        "a missing traffic file",
        lambda: production(traffic="no/such.jsonl"),
        "error: -T traffic=no/such.jsonl: no such file",
    ),
]


@pytest.mark.parametrize(
    ("build", "line"), [r[1:] for r in TASK_ARGUMENTS], ids=[r[0] for r in TASK_ARGUMENTS]
)
def test_bad_task_argument(build: Callable[[], Any], line: str) -> None:
    expect_error(build, line)


def test_a_good_argument_given_as_text_is_converted() -> None:
    task = checkout(
        dataset=str(MINI_CASES), fixtures=str(MINI_SHOP), max_rounds="5", poisoned="false"
    )
    assert len(task.dataset) == len(load_cases([MINI_CASES]))
    assert task.metadata["poisoned"] is False


# ---- case files -----------------------------------------------------------------------------------


def _case_file_rows(tmp: Path) -> list[tuple[str, Path, str]]:
    folder = tmp / "empty-folder"
    folder.mkdir()
    big = tmp / "big.yaml"
    with big.open("w", encoding="utf-8") as out:
        out.write("cases: []\n" + "#" * (9 * 1024 * 1024))
    return [
        (
            "empty file",
            write(tmp / "empty.yaml", ""),
            "{p}: the file holds no cases (it is empty); add cases or remove it",
        ),
        (
            "empty list",
            write(tmp / "list.yaml", "cases: []\n"),
            "{p}: the file holds no cases (an empty list); add cases",
        ),
        (
            "empty folder",
            folder,
            "{p}: no case files in this folder (looked for *.yaml, *.yml, *.json)",
        ),
        (
            "a typo for cases:",
            write(tmp / "typo.yaml", "caes:\n  - id: checkout-001-x\n"),
            "{p}: expected a list of cases, a mapping with 'cases:', or one case with 'id:'; found the keys caes",
        ),
        (
            "not YAML",
            write(tmp / "broken.yaml", "cases: [\n"),
            "{p}: not valid YAML: while parsing a flow node: expected the node content, but found "
            "'<stream end>' (line 2, column 1)",
        ),
        (
            "not JSON",
            write(tmp / "broken.json", '{"cases": [}'),
            "{p}: not valid JSON: Expecting value (column 12)",
        ),
        (
            "not UTF-8",
            write(tmp / "latin1.yaml", b"cases:\n  - id: caf\xe9\n"),
            "{p}: not UTF-8: byte 0xe9 at offset 18 (line 2, column 12); save the file as UTF-8",
        ),
        (
            "nested too deep",
            write(tmp / "deep.yaml", DEEP_YAML),
            "{p}: nested deeper than 64 levels (line 1); flatten the data",
        ),
        (
            "an alias bomb",
            write(tmp / "bomb.yaml", ALIAS_BOMB),
            "{p}: YAML aliases expand to 2,345,679,022 values from 31 written (more than "
            f"{ALIAS_BUDGET:,} added); write the repeated values out or use fewer aliases",
        ),
        (
            "too big",
            big,
            f"{{p}}: {big.stat().st_size:,} bytes, over the 8,388,608-byte limit for a case file",
        ),
        (
            "a case that does not validate",
            write(tmp / "invalid.yaml", MINI_CASE.replace("priority: high", "priority: urgent")),
            "{p}: case checkout-001-cart-seen: priority: Input should be 'critical', 'high', 'medium' or 'low'",
        ),
    ]


@pytest.fixture(scope="module")
def case_file_rows(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, Path, str]]:
    return _case_file_rows(tmp_path_factory.mktemp("case-files"))


CASE_FILE_CLASSES = [
    "empty file",
    "empty list",
    "empty folder",
    "a typo for cases:",
    "not YAML",
    "not JSON",
    "not UTF-8",
    "nested too deep",
    "an alias bomb",
    "too big",
    "a case that does not validate",
]


def _row(rows: list[tuple[str, Path, str]], name: str) -> tuple[Path, str]:
    [(path, line)] = [(p, line.format(p=p)) for n, p, line in rows if n == name]
    return path, line


@pytest.mark.parametrize("name", CASE_FILE_CLASSES)
def test_bad_case_file_under_eval(case_file_rows: list[tuple[str, Path, str]], name: str) -> None:
    path, line = _row(case_file_rows, name)
    expect_error(lambda: checkout(dataset=str(path), fixtures=str(MINI_SHOP)), f"error: {line}")


# lint and eval share the loader: the same files fail both. A file that lint checked and found
# wanting is a finding (exit 1); a path with nothing to check is exit 2.
LINT_EXIT = {"empty folder": 2}


@pytest.mark.parametrize("name", CASE_FILE_CLASSES)
def test_bad_case_file_under_lint(case_file_rows: list[tuple[str, Path, str]], name: str) -> None:
    path, line = _row(case_file_rows, name)
    result = CliRunner().invoke(app, ["lint", str(path)])
    code = LINT_EXIT.get(name, 1)
    assert result.exit_code == code, result.output
    if code == 2:
        assert result.output.splitlines()[0] == f"error: {line}"
    else:
        problem = line.removeprefix(f"{path}: ")
        shown = os.path.relpath(path)
        if problem.startswith("case "):
            case, problem = problem.split(": ", 1)
            expected = f"{shown}: {case}: [schema] {problem}"
        else:
            expected = f"{shown}: case -: [schema] {problem}"
        assert result.output.splitlines()[0] == expected
    assert "Traceback" not in result.output


def test_lint_of_a_missing_path_is_exit_2() -> None:
    result = CliRunner().invoke(app, ["lint", "no/such/folder"])
    assert result.exit_code == 2
    assert result.output.splitlines()[0] == "error: no/such/folder: no such case file or folder"


def test_a_folder_of_other_files_skips_them_in_lint_and_eval(tmp_path: Path) -> None:
    write(tmp_path / "cases.yaml", MINI_CASE)
    write(tmp_path / "sets.yaml", "sets: {}\n")
    task = checkout(dataset=str(tmp_path), fixtures=str(MINI_SHOP))
    assert [s.id for s in task.dataset] == ["checkout-001-cart-seen"]
    result = CliRunner().invoke(app, ["lint", str(tmp_path), "--rule", "skip-reason"])
    assert result.exit_code == 0, result.output
    assert "skipped" in result.output and "sets.yaml" in result.output


# ---- fixtures and instructions ----------------------------------------------------------------------


def _fixture_copy(tmp: Path, name: str, file: str, content: str | bytes) -> Path:
    folder = tmp / name
    shutil.copytree(MINI_SHOP, folder)
    write(folder / file, content)
    return folder


FIXTURES: list[tuple[str, str, str | bytes, str]] = [
    (
        "not JSON",
        "catalog.json",
        "{",
        "{f}/catalog.json: not valid JSON: Expecting property name enclosed in double quotes (column 2)",
    ),
    (
        "not UTF-8",
        "store.json",
        b'{"store_name": "\xff"}',
        "{f}/store.json: not UTF-8: byte 0xff at offset 16 (line 1, column 17); save the file as UTF-8",
    ),
    (
        "nested too deep",
        "orders.json",
        "[" * 70 + "]" * 70,
        "{f}/orders.json: nested deeper than 64 levels; flatten the data",
    ),
    (
        "a bad skill file",
        "skills/x.md",
        b"\xfe",
        "{f}/skills/x.md: not UTF-8: byte 0xfe at offset 0 (line 1, column 1); save the file as UTF-8",
    ),
]


@pytest.mark.parametrize(
    ("name", "file", "content", "line"), FIXTURES, ids=[r[0] for r in FIXTURES]
)
def test_bad_fixture_file(
    tmp_path: Path, name: str, file: str, content: str | bytes, line: str
) -> None:
    folder = _fixture_copy(tmp_path, "fx", file, content)
    expect_error(
        lambda: checkout(dataset=str(MINI_CASES), fixtures=str(folder)),
        "error: " + line.format(f=folder),
    )


def test_a_fixtures_folder_missing_a_file(tmp_path: Path) -> None:
    expect_error(
        lambda: checkout(dataset=str(MINI_CASES), fixtures=str(tmp_path)),
        f"error: {tmp_path}/catalog.json: no such fixture file",
    )


INSTRUCTIONS: list[tuple[str, str | bytes, str]] = [
    (
        "an unknown placeholder",
        "You serve $store_nme on $today.",
        "{p}: unknown placeholders $store_nme; known: $customer_name, $max_change_pct, $max_quantity, $max_total, "
        "$max_total_money, $memory, $skills, $store_name, $today (write $$ for a dollar sign)",
    ),
    (
        "a bare dollar sign",
        "Prices are in $ and $5 off.",
        "{p}: a $ not followed by a placeholder name; write $$ for a dollar sign",
    ),
    (
        "not UTF-8",
        b"Serve \x80 well.",
        "{p}: not UTF-8: byte 0x80 at offset 6 (line 1, column 7); save the file as UTF-8",
    ),
]


@pytest.mark.parametrize(
    ("name", "content", "line"), INSTRUCTIONS, ids=[r[0] for r in INSTRUCTIONS]
)
def test_bad_instructions(tmp_path: Path, name: str, content: str | bytes, line: str) -> None:
    path = write(tmp_path / "agent.md", content)
    expect_error(
        lambda: checkout(dataset=str(MINI_CASES), fixtures=str(MINI_SHOP), instructions=str(path)),
        "error: " + line.format(p=path),
    )


# ---- scripted models ------------------------------------------------------------------------------

SCRIPTED = (
    "commerce/reference, commerce/flawed-<label>, commerce/judge, commerce/judge-pass, "
    "commerce/judge-fail, commerce/judge-unknown, commerce/judge-garbage, commerce/judge-refuse, "
    "commerce/judge-echo, commerce/customer, commerce/customer-endless"
)
MODELS: list[tuple[str, str, dict[str, Any], str]] = [
    (
        "a misspelt scripted model",
        "commerce/refrence",
        {},
        f"error: unknown scripted model commerce/refrence; scripted models: {SCRIPTED}",
    ),
    (
        "a misspelt scripted judge",
        "commerce/judge-fial",
        {},
        f"error: unknown scripted model commerce/judge-fial; scripted models: {SCRIPTED}",
    ),
    (
        "an unknown fault",
        "commerce-test/slow",
        {},
        "error: unknown fault commerce-test/slow; faults: commerce-test/malformed-args, commerce-test/unknown-tool, commerce-test/empty, commerce-test/endless, commerce-test/huge, commerce-test/error, commerce-test/mixed, commerce-test/judge-error, commerce-test/judge-slow",
    ),
    (
        "a judge fault under the commerce provider",
        "commerce/judge-slow",
        {},
        f"error: unknown scripted model commerce/judge-slow; scripted models: {SCRIPTED}",
    ),
    (
        "a flawed model with no label",
        "commerce/flawed-",
        {},
        "error: a flawed scripted model is named commerce/flawed-<label>, not commerce/flawed-",
    ),
    (
        "-M fail naming no case",
        "commerce/flawed-a",
        {"fail": "checkout-001-cart-seen-prodcut"},
        "error: -M fail=checkout-001-cart-seen-prodcut: no case id matches it; did you mean "
        "checkout-001-cart-seen-product, checkout-009-multi-item-fan-out, "
        "checkout-013-raise-quantity? (ids are <flow>-<nnn>-<behavior>; shell patterns such as checkout-00* work)",
    ),
    (
        "-M flaky naming no case of the dataset",
        "commerce/flawed-a",
        {"flaky": "discovery-*", "dataset": str(MINI_CASES)},
        "error: -M flaky=discovery-*: no case id matches it (ids are <flow>-<nnn>-<behavior>; shell patterns such as checkout-00* work)",
    ),
]


@pytest.mark.parametrize(("name", "model", "args", "line"), MODELS, ids=[r[0] for r in MODELS])
def test_bad_model(name: str, model: str, args: dict[str, Any], line: str) -> None:
    expect_error(lambda: get_model(model, memoize=False, **args), line)


def test_flawed_patterns_that_match_are_accepted() -> None:
    get_model("commerce/flawed-a", memoize=False, fail="checkout-00*", dataset=str(MINI_CASES))


# ---- logs and output folders ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def good_log() -> Path:
    log = run_task(checkout(dataset=str(MINI_CASES), fixtures=str(MINI_SHOP)))
    return Path(log.location)


def _header_middle(log: Path) -> int:
    """Where the middle of a log's header entry lies in its zip: every report reads the header
    (a sample's entry is read only by a report that opens the sample)."""
    import zipfile

    with zipfile.ZipFile(log) as archive:
        info = archive.getinfo("header.json")
    with log.open("rb") as raw:
        raw.seek(info.header_offset + 26)
        name_length, extra_length = struct.unpack("<HH", raw.read(4))
    return info.header_offset + 30 + name_length + extra_length + info.compress_size // 2


def _bad_logs(folder: Path, good: Path) -> dict[str, Path]:
    data = good.read_bytes()
    middle = len(data) // 2
    at = _header_middle(good)
    return {
        "zero bytes": write(folder / "zero.eval", b""),
        "truncated": write(folder / "truncated.eval", data[:middle]),
        "corrupt": write(folder / "corrupt.eval", data[:at] + b"\0" * 64 + data[at + 64 :]),
        "not a log": write(folder / "notes.eval", "these are my notes\n"),
    }


LOG_LINES = {
    "zero bytes": "error: {p}: not a readable Inspect log (the file is empty); re-run it or remove it",
    "truncated": "error: {p}: not a readable Inspect log (EOCD not found); re-run it or remove it",
    "corrupt": "error: {p}: not a readable Inspect log (",
    "not a log": "error: {p}: not a readable Inspect log (EOCD not found); re-run it or remove it",
}


@pytest.mark.parametrize("command", ["gate", "diff", "compare", "trends"])
@pytest.mark.parametrize("kind", list(LOG_LINES))
def test_bad_log_file(tmp_path: Path, good_log: Path, command: str, kind: str) -> None:
    bad = _bad_logs(tmp_path, good_log)[kind]
    args = {
        "gate": ["gate", str(bad), "--set", "regression"],
        "diff": ["diff", str(good_log), str(bad)],
        "compare": ["compare", str(bad), "--out", str(tmp_path / "out")],
        "trends": ["trends", str(bad), "--out", str(tmp_path / "t.png")],
    }[command]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    line = result.output.splitlines()[0]
    expected = LOG_LINES[kind].format(p=bad)
    assert line == expected if kind != "corrupt" else line.startswith(expected)
    assert "Traceback" not in result.output


def test_an_unwritable_output_folder(tmp_path: Path, good_log: Path) -> None:
    # A path under a file stands in for a read-only folder (the tests may run as root): the same
    # OSError path either way.
    blocker = write(tmp_path / "blocker", "a file, not a folder")
    result = CliRunner().invoke(app, ["compare", str(good_log), "--out", str(blocker / "out")])
    assert result.exit_code == 2, result.output
    assert result.output.splitlines()[0] == (
        f"error: {blocker}/out: cannot write the report (Not a directory); choose a folder with --out"
    )


def test_trends_writes_nothing_into_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a private judge cache: the production tests count real judge calls on the same traffic
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    traffic = write(tmp_path / "t.jsonl", GOOD_LINE + b"\n")
    logs = tmp_path / "logs"
    [log] = eval(
        production(traffic=str(traffic)),
        model="none",
        model_roles={"grader": "commerce/judge-pass"},
        log_dir=str(logs),
        display="none",
    )
    assert log.status == "success", log.error
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    result = CliRunner().invoke(app, ["trends", str(logs)])
    assert result.exit_code == 0, result.output
    assert list(work.iterdir()) == []
    assert f"chart: {logs / 'trends.png'}" in result.output


# ---- traffic, labels, sets ------------------------------------------------------------------------

TRAFFIC: list[tuple[str, bytes, str]] = [
    (
        "not UTF-8",
        b'{"id": "caf\xe9"}',
        "(line): not UTF-8: byte 0xe9 at offset 11 (line 1, column 12); save the file as UTF-8",
    ),
    (
        "not JSON",
        b"{oops",
        "(line): not valid JSON: Expecting property name enclosed in double quotes (column 2)",
    ),
    (
        "nested too deep",
        b"[" * 3000 + b"]" * 3000,
        "(line): nested deeper than 64 levels; flatten the data",
    ),
    ("not an object", b"[1, 2]", "(line): expected a JSON object"),
    ("a field missing", b'{"id": "c1"}', "captured_at: Field required"),
]


@pytest.mark.parametrize(("name", "line", "message"), TRAFFIC, ids=[r[0] for r in TRAFFIC])
def test_a_bad_traffic_line_is_skipped_with_file_and_line(
    tmp_path: Path, name: str, line: bytes, message: str
) -> None:
    path = write(tmp_path / "t.jsonl", b"\n".join([line, GOOD_LINE]) + b"\n")
    conversations, problems = load_traffic(path)
    assert len(conversations) == 1
    assert problems[0].describe() == f"{path}:1: {message} (line skipped)"


def test_a_traffic_file_with_no_good_line(tmp_path: Path) -> None:
    path = write(tmp_path / "t.jsonl", b"{oops\n")
    expect_error(
        lambda: production(traffic=str(path)),
        f"error: {path}: no valid conversation (1 line(s) skipped); first: {path}:1: (line): not "
        "valid JSON: Expecting property name enclosed in double quotes (column 2) (line skipped)",
    )


LABELS: list[tuple[str, str, bytes, str]] = [
    (
        "not UTF-8",
        "l.jsonl",
        b'{"x": "\xff"}\n',
        "error: {p}: not UTF-8: byte 0xff at offset 7 (line 1, column 8); save the file as UTF-8",
    ),
    (
        "not JSON",
        "l.jsonl",
        b"{\n",
        "error: {p}:1: (label): not valid JSON: Expecting property name enclosed in double quotes (column 2)",
    ),
    (
        "an alias bomb",
        "l.yaml",
        ALIAS_BOMB.replace("cases:", "labels:").encode(),
        "error: {p}: YAML aliases expand to 2,345,679,022 values from 31 written (more than 10,000 added); write the repeated values out or use fewer aliases",
    ),
]


@pytest.mark.parametrize(("name", "file", "content", "line"), LABELS, ids=[r[0] for r in LABELS])
def test_bad_label_file(tmp_path: Path, name: str, file: str, content: bytes, line: str) -> None:
    from commerce_evals.judging.labels import read_labels

    path = write(tmp_path / file, content)
    expect_error(lambda: read_labels(path), line.format(p=path))


def test_bad_sets_file(tmp_path: Path) -> None:
    path = write(tmp_path / "sets.yaml", b"sets: \xff\n")
    expect_error(
        lambda: case_set(set="x", sets_file=str(path)),
        f"error: {path}: not UTF-8: byte 0xff at offset 6 (line 1, column 7); save the file as UTF-8",
    )


# ---- the real commands: exit code, first line, no traceback ---------------------------------------


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = subprocess_env()
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


INSPECT = [sys.executable, "-m", "inspect_ai._cli.main", "eval", "commerce_evals/checkout"]
COMMANDS: list[tuple[str, list[str], str]] = [
    (
        "inspect eval: a -T value",
        [*INSPECT, "--model", "commerce/reference", "-T", "max_rounds=abc"],
        "error: -T max_rounds=abc: expected a whole number",
    ),
    (
        "inspect eval: an unknown -T name",
        [*INSPECT, "--model", "commerce/reference", "-T", "bogus=1"],
        f"error: -T bogus: task checkout takes no argument 'bogus'; its arguments: {CHECKOUT_ARGS}",
    ),
    (
        "inspect eval: a case file",
        [*INSPECT, "--model", "commerce/reference", "-T", "dataset={empty}"],
        "error: {empty}: the file holds no cases (it is empty); add cases or remove it",
    ),
    (
        "inspect eval: a scripted model",
        [*INSPECT, "--model", "commerce/refrence"],
        f"error: unknown scripted model commerce/refrence; scripted models: {SCRIPTED}",
    ),
    (
        "inspect eval: -M fail",
        [*INSPECT, "--model", "commerce/flawed-a", "-M", "fail=nope-001-x"],
        "error: -M fail=nope-001-x: no case id matches it (ids are <flow>-<nnn>-<behavior>; shell patterns such as checkout-00* work)",
    ),
    (
        "commerce-evals search: a fixtures folder",
        [sys.executable, "-m", "commerce_evals.cli.app", "search", "shoe", "--fixtures", "no/such"],
        "error: no/such: no such fixtures folder",
    ),
]


def test_eval_set_into_a_folder_it_cannot_write(tmp_path: Path) -> None:
    blocker = write(tmp_path / "blocker", "a file, not a folder")
    command = [sys.executable, "-m", "inspect_ai._cli.main", "eval-set", "commerce_evals/checkout"]
    result = _run(
        [*command, "--model", "commerce/reference", "--log-dir", str(blocker / "logs")], ROOT
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines()[0] == (
        f"error: {blocker}/logs: cannot write here (Not a directory); "
        "choose a folder you can write to (--log-dir, --out)"
    )
    assert "Traceback" not in result.stderr


def _tiered(rows: list[tuple[str, list[str], str]]) -> list[object]:
    """The first `inspect eval` row in the fast tier (one run of Inspect's command line through
    our error hook), the other `inspect eval` rows in the slow tier: each starts an Inspect of its
    own, and what each message says is checked in-process above."""
    first = next(row[0] for row in rows if row[0].startswith("inspect eval"))
    slow = [row[0] for row in rows if row[0].startswith("inspect eval") and row[0] != first]
    return [pytest.param(*row, marks=pytest.mark.slow) if row[0] in slow else row for row in rows]


@pytest.mark.parametrize(
    ("name", "command", "line"), _tiered(COMMANDS), ids=[r[0] for r in COMMANDS]
)
def test_the_command_prints_one_line_and_exits_2(
    tmp_path: Path, name: str, command: list[str], line: str
) -> None:
    empty = write(tmp_path / "empty.yaml", "")
    command = [part.format(empty=empty) for part in command]
    # from a folder of its own: `python -m` puts the working folder first on sys.path, and the
    # checkout's .egg-info there would shadow the installed package's record for Inspect
    result = _run(
        [*command, "--log-dir", str(tmp_path / "logs")] if "eval" in command else command,
        tmp_path,
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines()[0] == line.format(empty=empty)
    assert "Traceback" not in result.stderr + result.stdout
    assert not (tmp_path / "logs").exists() or not list((tmp_path / "logs").glob("*.eval"))


# ---- fuzzing the task arguments -------------------------------------------------------------------

NAMES = [*flow_signature().parameters, "max_round", "model", "", "poisoned ", "T"]
VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**6), max_value=10**6),
    st.floats(allow_nan=True),
    st.text(max_size=12),
    st.sampled_from(
        [
            *["true", "false", "12", "0", "-1", "abc", str(MINI_CASES), str(MINI_SHOP)],
            *["datasets", "1/2", "3/2", " 2 / 3 ", "0/0", "1/"],
        ]
    ),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


def _recording(**kwargs: Any) -> dict[str, Any]:
    return kwargs


CHECKED = flow_arguments(_recording)
TYPES = {
    "dataset": str,
    "fixtures": str,
    "instructions": str,
    "poisoned": bool,
    "counterexamples": bool,
    "alternatives": bool,
    "max_rounds": int,
    "max_calls_per_turn": int,
    "judge": bool,
    "shard": str,
    "cases": str,
    "agent": str,
    "tools": str,
    "recorded": str,
    "locale": str,
}


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.sampled_from(NAMES), VALUES, max_size=4))
def test_any_task_arguments_are_accepted_typed_or_refused_in_one_line(args: dict[str, Any]) -> None:
    try:
        accepted = CHECKED(**args)
    except TaskArgumentError as err:
        assert len(err.problems) == 1 and "\n" not in err.problems[0]
        assert err.problems[0].startswith("-T ")
        return
    # a flow task receives every argument: the given ones checked, the others at their defaults
    assert set(args) <= set(accepted) == set(TYPES)
    for name, value in accepted.items():
        if TYPES[name] is not object:
            assert value is None or type(value) is TYPES[name], (name, value)
        if name in {"max_rounds", "max_calls_per_turn"}:
            assert value >= 1
        if name == "shard" and value is not None:
            index, count = map(int, value.split("/"))
            assert 1 <= index <= count, value


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(
        st.sampled_from(["max_rounds", "epochs", "poisoned", "counterexamples", "instructions"]),
        VALUES,
        max_size=3,
    )
)
def test_the_real_task_builds_or_refuses_in_one_line(args: dict[str, Any]) -> None:
    try:
        task = checkout(dataset=str(MINI_CASES), fixtures=str(MINI_SHOP), **args)
    except InputError as err:
        assert err.problems and all("\n" not in p for p in err.problems)
        return
    assert len(task.dataset) >= 1


def test_every_flow_task_takes_the_one_declared_signature() -> None:
    # Inspect reads a task's parameters from its signature: each flow task shows FlowArguments
    for flow in FLOWS:
        function = getattr(import_module(f"commerce_evals.{flow}"), flow)
        params = inspect.signature(function).parameters
        assert list(params) == [*flow_signature().parameters, "unknown_arguments"], flow
        assert params["max_rounds"].default == DEFAULT_MAX_ROUNDS
    # an argument not given takes the flow's default, not flow_task's
    for flow in ("checkout", "merchant"):
        function = getattr(import_module(f"commerce_evals.{flow}"), flow)
        assert (function().metadata or {})["poisoned"] is FLOWS[flow].poisoned, flow


# ---- round 2 (issue 30): nothing a person writes is silently weakened, skipped or read as a pass --

MINI_TEXT = MINI_CASES.read_text(encoding="utf-8")
# the line of `priority: high` in MINI_CASE, and of a second copy written just after it
PRIORITY_LINE = MINI_CASE.splitlines().index("    priority: high") + 1


def _json_case_file() -> str:
    case = load_cases([MINI_CASES])[0].model_dump(mode="json", exclude_defaults=True)
    text = json.dumps({"cases": [case]}, indent=1)
    return text.replace('"priority": "high"', '"priority": "high",\n   "priority": "low"', 1)


def _reader_rows(tmp: Path) -> list[tuple[str, Path, str]]:
    twice = MINI_CASE.replace("    priority: high", "    priority: high\n    priority: low", 1)
    json_twice = _json_case_file()
    at = json_twice.index('"priority": "low"')
    line = json_twice.count("\n", 0, at) + 1
    first = json_twice.count("\n", 0, json_twice.index('"priority": "high"')) + 1
    column = at - json_twice.rfind("\n", 0, at)
    nan = MINI_CASE.replace(
        "seen_products: [P-1]", "seen_products: [{product_id: P-1, price_seen: .nan}]"
    )
    nan_line = (
        nan.splitlines().index("    state: {seen_products: [{product_id: P-1, price_seen: .nan}]}")
        + 1
    )
    return [
        (
            "a case key written twice (YAML)",
            write(tmp / "twice.yaml", twice),
            f"{{p}}: line {PRIORITY_LINE + 1}: key 'priority' written twice (first on line "
            f"{PRIORITY_LINE}); keep one of them",
        ),
        (
            "cases: written twice",
            write(tmp / "cases-twice.yaml", MINI_CASE + "\ncases: []\n"),
            f"{{p}}: line {MINI_CASE.count(chr(10)) + 2}: key 'cases' written twice (first on "
            "line 1); keep one of them",
        ),
        (
            "a case key written twice (JSON)",
            write(tmp / "twice.json", json_twice),
            f"{{p}}: line {line}, column {column}: key 'priority' written twice (first at line "
            f"{first}, column {column}); keep one of them",
        ),
        (
            "a NaN in a case's state",
            write(tmp / "nan.yaml", nan),
            f"{{p}}: line {nan_line}: price_seen: .nan is not a finite number; write a finite number",
        ),
        (
            "a misspelt key beside cases:",
            write(tmp / "defualts.yaml", "defualts: {priority: low}\n" + MINI_CASE),
            "{p}: defualts: not a key of a case file; did you mean defaults:? its top-level keys "
            "are cases, defaults",
        ),
        (
            "defaults that are not a mapping",
            write(tmp / "defaults-list.yaml", "defaults: [low]\n" + MINI_CASE),
            "{p}: defaults: expected a mapping of case keys every case gets",
        ),
        (
            "an empty user turn",
            write(
                tmp / "empty-turn.yaml",
                MINI_CASE.replace('["Add the Ridge trail shoe to my cart please."]', '["  "]'),
            ),
            "{p}: case checkout-001-cart-seen: turns: Value error, turns.0: an empty user turn; "
            "write what the user says",
        ),
        (
            "full-width digits in an id",
            write(
                tmp / "wide.yaml",
                MINI_CASE.replace("checkout-001-", "checkout-\uff10\uff10\uff11-"),
            ),
            "{p}: case checkout-\uff10\uff10\uff11-cart-seen: (case): Value error, id "
            "'checkout-\uff10\uff10\uff11-cart-seen' does not match <flow>-<nnn>-<behavior>",
        ),
        (
            "an Inspect log given as a case file",
            write(tmp / "run.eval", b"PK\x03\x04"),
            "{p}: an Inspect log, not a case file; give case files (*.yaml, *.yml, *.json), and "
            "read logs with inspect view or commerce-evals gate, diff, compare",
        ),
    ]


@pytest.fixture(scope="module")
def reader_rows(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, Path, str]]:
    return _reader_rows(tmp_path_factory.mktemp("reader"))


READER_CLASSES = [
    "a case key written twice (YAML)",
    "cases: written twice",
    "a case key written twice (JSON)",
    "a NaN in a case's state",
    "a misspelt key beside cases:",
    "defaults that are not a mapping",
    "an empty user turn",
    "full-width digits in an id",
    "an Inspect log given as a case file",
]


@pytest.mark.parametrize("name", READER_CLASSES)
def test_a_case_file_the_person_did_not_mean(
    reader_rows: list[tuple[str, Path, str]], name: str
) -> None:
    path, line = _row(reader_rows, name)
    expect_error(lambda: checkout(dataset=str(path), fixtures=str(MINI_SHOP)), f"error: {line}")


def test_lint_given_a_log_says_it_is_a_log(reader_rows: list[tuple[str, Path, str]]) -> None:
    path, line = _row(reader_rows, "an Inspect log given as a case file")
    result = CliRunner().invoke(app, ["lint", str(path)])
    assert result.exit_code == 2, result.output
    assert result.output.splitlines()[0] == f"error: {line}"


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (
            "a: 1\nb: 2\na: 3\n",
            "{p}: line 3: key 'a' written twice (first on line 1); keep one of them",
        ),
        (
            "{a: 1, a: 2}\n",
            "{p}: line 1: key 'a' written twice (first on line 1); keep one of them",
        ),
        ("x: [1, .inf]\n", "{p}: line 1: .inf is not a finite number; write a finite number"),
        ("x: -.Inf\n", "{p}: line 1: x: -.Inf is not a finite number; write a finite number"),
    ],
)
def test_the_yaml_reader_refuses(tmp_path: Path, text: str, line: str) -> None:
    path = write(tmp_path / "f.yaml", text)
    expect_error(lambda: read_data(path), "error: " + line.format(p=path))


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (
            '{"a": 1, "a": 2}',
            "{p}: column 10: key 'a' written twice (first at column 2); keep one of them",
        ),
        ('{"a": {"k": 1}, "k": 2, "b": {"k": 3}}', None),
        (
            '{\n "price": NaN\n}',
            "{p}: line 2, column 11: price: NaN is not a finite number; write a finite number",
        ),
        (
            "[1, -Infinity]",
            "{p}: column 5: -Infinity is not a finite number; write a finite number",
        ),
        ('{"p": 1e999}', "{p}: column 7: p: 1e999 is not a finite number; write a finite number"),
        ('{"s": "NaN, \\"a\\": 1", "a": 2}', None),
    ],
)
def test_the_json_reader_refuses(tmp_path: Path, text: str, line: str | None) -> None:
    path = write(tmp_path / "f.json", text)
    if line is None:  # the same key in different objects, a NaN in a string: not a problem
        assert read_data(path) == json.loads(text)
        return
    expect_error(lambda: read_data(path), "error: " + line.format(p=path))


def test_a_merge_key_may_be_overridden() -> None:
    assert parse_yaml("b: &b {a: 1}\nc:\n  <<: *b\n  a: 2\n", "f") == {"b": {"a": 1}, "c": {"a": 2}}


def test_a_byte_order_mark_is_accepted_in_every_format(tmp_path: Path) -> None:
    bom = b"\xef\xbb\xbf"
    yaml_file = write(tmp_path / "cases.yaml", bom + MINI_CASE.encode())
    json_file = write(
        tmp_path / "cases.json",
        bom + _json_case_file().replace(',\n   "priority": "low"', "").encode(),
    )
    for path in (yaml_file, json_file):
        assert [c.id for c in load_cases([path])] == ["checkout-001-cart-seen"]
    traffic = write(tmp_path / "t.jsonl", bom + GOOD_LINE + b"\n")
    conversations, problems = load_traffic(traffic)
    assert len(conversations) == 1 and problems == []
    from commerce_evals.judging.labels import read_labels

    label = b'{"sample_id": "s", "dimension": "budget_respected", "verdict": "Pass", "labeller": "A", "time": "2026-11-29T18:02:11+00:00"}'
    assert len(read_labels(write(tmp_path / "l.jsonl", bom + label + b"\n"))) == 1


def test_duplicate_keys_in_sets_labels_and_prices(tmp_path: Path) -> None:
    from commerce_evals.judging.labels import read_labels
    from commerce_evals.reports.prices import load_prices

    sets = write(tmp_path / "sets.yaml", "sets:\n  a: {epochs: 1}\n  a: {epochs: 3}\n")
    expect_error(
        lambda: load_sets(sets),
        f"error: {sets}: line 3: key 'a' written twice (first on line 2); keep one of them",
    )
    labels = write(tmp_path / "l.yaml", "- {sample_id: a, sample_id: b}\n")
    expect_error(
        lambda: read_labels(labels),
        f"error: {labels}: line 1: key 'sample_id' written twice (first on line 1); keep one of them",
    )
    prices = write(tmp_path / "p.yaml", "models:\n  m: {input: 1, output: .nan}\n")
    expect_error(
        lambda: load_prices(prices),
        f"error: {prices}: line 2: output: .nan is not a finite number; write a finite number",
    )


# ---- round 2: the dataset walk ---------------------------------------------------------------------


def test_a_case_file_suffix_in_capitals_is_read(tmp_path: Path) -> None:
    write(tmp_path / "b.YAML", MINI_CASE)
    write(tmp_path / "README.md", "notes\n")
    task = checkout(dataset=str(tmp_path), fixtures=str(MINI_SHOP))
    assert [s.id for s in task.dataset] == ["checkout-001-cart-seen"]
    assert (task.metadata or {})["skipped_files"] == [
        f"{tmp_path / 'README.md'}: skipped: not a case file (its name does not end in .yaml, "
        ".yml, .json)"
    ]
    result = CliRunner().invoke(app, ["lint", str(tmp_path), "--rule", "skip-reason"])
    shown = os.path.relpath(tmp_path / "README.md")
    assert f"skipped {shown}: not a case file (its name does not end in" in result.output


def test_a_dangling_link_in_a_dataset_folder_is_an_error(tmp_path: Path) -> None:
    write(tmp_path / "cases.yaml", MINI_CASE)
    (tmp_path / "gone.yaml").symlink_to(tmp_path / "nowhere.yaml")
    expect_error(
        lambda: checkout(dataset=str(tmp_path), fixtures=str(MINI_SHOP)),
        f"error: {tmp_path / 'gone.yaml'}: a symbolic link to {tmp_path / 'nowhere.yaml'}, "
        "which does not exist; fix or remove it",
    )


# ---- round 2: cases, variants and flows ------------------------------------------------------------


def test_a_case_of_another_flow_is_refused() -> None:
    expect_error(
        lambda: discovery(dataset=str(MINI_CASES)),
        f"error: {MINI_CASES}: case checkout-001-cart-seen: a checkout case under task "
        "discovery; run it with inspect eval commerce_evals/checkout",
    )


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            {"alternatives": True},
            "error: -T alternatives=true: none of the 3 case(s) of flow 'checkout' has "
            "alternatives; drop -T alternatives=true to run the cases themselves",
        ),
        (
            {"counterexamples": True, "dataset": "{one}"},
            "error: -T counterexamples=true: none of the 1 case(s) of flow 'checkout' has "
            "counterexamples; drop -T counterexamples=true to run the cases themselves",
        ),
    ],
)
def test_variants_that_no_case_has(tmp_path: Path, args: dict[str, Any], line: str) -> None:
    one = write(
        tmp_path / "one.yaml",
        MINI_TEXT.split("  - id: checkout-001-cart-seen")[0]
        + "  - id: checkout-003-suggest"
        + MINI_TEXT.split("  - id: checkout-003-suggest")[1],
    )
    given = {
        "dataset": str(MINI_CASES),
        **{k: str(one) if v == "{one}" else v for k, v in args.items()},
    }
    expect_error(lambda: checkout(fixtures=str(MINI_SHOP), **given), line)


def test_dimensions_given_as_inspect_hands_them() -> None:
    # `-T dimensions=a,b` reaches the task as a list
    task = production(dimensions=["budget_respected", "tradeoff_stated"])
    assert (task.metadata or {})["dimensions"] == ["budget_respected", "tradeoff_stated"]
    expect_error(
        lambda: production(dimensions=["budget_respected", "politness"]),
        "error: -T dimensions=budget_respected,politness: politness not shared judge "
        "dimensions; choose from " + ", ".join(sorted(shared_dimensions())),
    )


# ---- round 2: values a store cannot have -----------------------------------------------------------

STORE_TEXT = json.dumps(json.loads((MINI_SHOP / "store.json").read_text(encoding="utf-8")))
CATALOG = (MINI_SHOP / "catalog.json").read_text(encoding="utf-8")
NAN_STORE = STORE_TEXT.replace('"max_cart_total": 2000.0', '"max_cart_total": NaN')
INF_CATALOG = CATALOG.replace('"price": 120.0', '"price": Infinity', 1)


def _column(text: str, token: str) -> int:
    at = text.index(token)
    return at - (text.rfind("\n", 0, at) + 1) + 1


FIXTURE_VALUES: list[tuple[str, str, str, str]] = [
    (
        "a NaN cap",
        "store.json",
        NAN_STORE,
        f"{{f}}/store.json: column {_column(NAN_STORE, 'NaN')}: max_cart_total: NaN is not a "
        "finite number; write a finite number",
    ),
    (
        "a zero cap",
        "store.json",
        STORE_TEXT.replace('"max_cart_total": 2000.0', '"max_cart_total": 0'),
        "{f}/store.json: caps.max_cart_total: Input should be greater than 0 (1 problem)",
    ),
    (
        "a negative quantity cap",
        "store.json",
        STORE_TEXT.replace('"max_quantity_per_line": 10', '"max_quantity_per_line": -1'),
        "{f}/store.json: caps.max_quantity_per_line: Input should be greater than 0 (1 problem)",
    ),
    (
        "an infinite price",
        "catalog.json",
        INF_CATALOG,
        f"{{f}}/catalog.json: line 2, column {_column(INF_CATALOG, 'Infinity')}: price: Infinity "
        "is not a finite number; write a finite number",
    ),
    (
        "stock that is not a count",
        "catalog.json",
        CATALOG.replace('"stock": 5', '"stock": true', 1),
        "{f}/catalog.json: products.0.stock: Input should be a valid integer (1 problem)",
    ),
]


@pytest.mark.parametrize(
    ("name", "file", "content", "line"), FIXTURE_VALUES, ids=[r[0] for r in FIXTURE_VALUES]
)
def test_a_fixture_value_a_store_cannot_have(
    tmp_path: Path, name: str, file: str, content: str, line: str
) -> None:
    folder = _fixture_copy(tmp_path, "fx", file, content)
    expect_error(
        lambda: checkout(dataset=str(MINI_CASES), fixtures=str(folder)),
        "error: " + line.format(f=folder),
    )


def test_a_staged_price_that_is_not_a_price() -> None:
    from pydantic import ValidationError

    from commerce_evals.domains.shop.models import Caps, StagedChangeState

    for value in (float("nan"), float("inf"), -1, True, "12"):
        with pytest.raises(ValidationError, match="a price change's new_value is a price"):
            StagedChangeState(change_id="CH-1", kind="price", product_id="P-1", new_value=value)
    with pytest.raises(ValidationError, match="a stock change's new_value is a whole number"):
        StagedChangeState(change_id="CH-1", kind="stock", product_id="P-1", new_value=2.5)
    with pytest.raises(ValidationError, match="finite number"):
        Caps(max_price_change_pct=float("nan"))


# ---- round 2: sets and reports --------------------------------------------------------------------

TYPO_SET = (
    "sets:\n  mine:\n    select: {flows: [checkout], ids: [checkout-001-cart-seen-prodcut]}\n"
)
TYPO_LINE = (
    "error: {p}: sets.mine.select.ids: checkout-001-cart-seen-prodcut names no case of the "
    "flows checkout; did you mean checkout-001-cart-seen-product?"
)


def test_a_set_id_that_names_no_case_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path / "sets.yaml", TYPO_SET)
    expect_error(lambda: case_set(set="mine", sets_file=str(path)), TYPO_LINE.format(p=path))
    expect_error(
        lambda: case_set_flow(flow="checkout", set="mine", sets_file=str(path)),
        TYPO_LINE.format(p=path),
    )


def test_gate_refuses_a_set_id_that_names_no_case(tmp_path: Path, good_log: Path) -> None:
    path = write(tmp_path / "sets.yaml", TYPO_SET)
    result = CliRunner().invoke(
        app, ["gate", str(good_log), "--set", "mine", "--sets-file", str(path)]
    )
    assert result.exit_code == 2, result.output
    assert result.output.splitlines()[0] == TYPO_LINE.format(p=path)


@pytest.fixture(scope="module")
def foreign_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A log of a task that is not this project's: its scorer is Inspect's match."""
    from inspect_ai import Task
    from inspect_ai.dataset import Sample
    from inspect_ai.scorer import match

    task = Task(
        dataset=[Sample(input="hi", target="hi", id="checkout-001-cart-seen")],
        scorer=match(),
        name="other",
    )
    [log] = eval(
        task, model="mockllm/model", log_dir=str(tmp_path_factory.mktemp("foreign")), display="none"
    )
    return Path(log.location)


@pytest.mark.parametrize("command", ["diff", "compare", "gate", "trends"])
def test_reports_refuse_a_log_with_no_verdict_of_ours(
    tmp_path: Path, good_log: Path, foreign_log: Path, command: str
) -> None:
    args = {
        "diff": ["diff", str(good_log), str(foreign_log)],
        "compare": ["compare", str(foreign_log), "--out", str(tmp_path / "out")],
        "gate": ["gate", str(foreign_log), "--set", "regression"],
        "trends": ["trends", str(foreign_log), "--out", str(tmp_path / "t.png")],
    }[command]
    scorers = (
        "commerce_case" if command in {"diff", "gate"} else "commerce_case or production_judges"
    )
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert result.output.splitlines()[0] == (
        f"error: {foreign_log}: a log of task 'other' (scored by match) holds no commerce-evals "
        f"verdict; give logs of the tasks scored by {scorers}"
    )


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ["--alpha", "7"],
            "error: --alpha 7: a significance level is between 0 and 1 (0.05 is usual)",
        ),
        (
            ["--alpha", "0"],
            "error: --alpha 0: a significance level is between 0 and 1 (0.05 is usual)",
        ),
        ([], "error: BASE and NEW are the same file ({log}); give the logs of two runs"),
    ],
)
def test_diff_refuses_what_cannot_be_meant(good_log: Path, args: list[str], line: str) -> None:
    other = [str(good_log)] if args else [os.path.relpath(good_log)]
    result = CliRunner().invoke(app, ["diff", *args, str(good_log), *other])
    assert result.exit_code == 2, result.output
    assert result.output.splitlines()[0] == line.format(log=good_log)


def test_a_label_file_problem_is_an_error_line(tmp_path: Path, good_log: Path) -> None:
    labels = write(tmp_path / "l.jsonl", '{"x": 1}\n')
    result = CliRunner().invoke(app, ["calibrate", str(good_log), "--labels", str(labels)])
    assert result.exit_code == 2, result.output
    assert result.output.splitlines()[0] == f"error: {labels}:1: sample_id: Field required"


# ---- round 2: the same, through Inspect's CLI -----------------------------------------------------


@pytest.mark.slow  # every round-two input through a real `inspect eval`; the in-process rows check them
def test_round_two_through_inspect_eval(tmp_path: Path) -> None:
    twice = write(
        tmp_path / "twice.yaml",
        MINI_CASE.replace("    priority: high", "    priority: high\n    priority: low", 1),
    )
    rows = [
        (
            [
                *INSPECT,
                "--model",
                "commerce/reference",
                "-T",
                f"dataset={twice}",
                "-T",
                f"fixtures={MINI_SHOP}",
            ],
            f"error: {twice}: line {PRIORITY_LINE + 1}: key 'priority' written twice (first on "
            f"line {PRIORITY_LINE}); keep one of them",
        ),
        (
            [
                *INSPECT,
                "--model",
                "commerce/reference",
                "-T",
                "alternatives=true",
                "-T",
                f"dataset={MINI_CASES}",
                "-T",
                f"fixtures={MINI_SHOP}",
            ],
            "error: -T alternatives=true: none of the 3 case(s) of flow 'checkout' has "
            "alternatives; drop -T alternatives=true to run the cases themselves",
        ),
    ]
    eval_set = [sys.executable, "-m", "inspect_ai._cli.main", "eval-set", "commerce_evals/case_set"]
    rows.append(
        (
            [*eval_set, "--model", "commerce/reference", "-T", "set=regression"],
            "error: inspect eval-set cannot run commerce_evals/case_set (a set's tasks are made "
            "as it runs, and eval-set resumes a fixed list); run it with inspect eval "
            "commerce_evals/case_set -T set=NAME, or give eval-set the flow tasks "
            "(docs/run-pattern.md)",
        )
    )
    for command, line in rows:
        result = _run(
            [*command, "--display", "none", "--log-dir", str(tmp_path / "logs")], tmp_path
        )
        assert result.returncode == 2, result.stderr
        assert result.stderr.splitlines()[0] == line
        assert "Traceback" not in result.stderr + result.stdout
    production_cli = [
        sys.executable,
        "-m",
        "inspect_ai._cli.main",
        "eval",
        "commerce_evals/production",
    ]
    result = _run(
        [
            *production_cli,
            "--model",
            "none",
            "--model-role",
            "grader=commerce/judge-pass",
            "-T",
            "dimensions=budget_respected,tradeoff_stated",
            "--display",
            "none",
            "--log-dir",
            str(tmp_path / "logs"),
        ],
        tmp_path,
    )
    assert result.returncode == 0, result.stderr


def _reordered(line: bytes, change: Callable[[list[dict[str, Any]]], None]) -> bytes:
    data = json.loads(line)
    change(data["turns"][0]["events"])
    return json.dumps(data).encode()


def _result_first(events: list[dict[str, Any]]) -> None:
    events[0], events[1] = events[1], events[0]


def _result_of_no_call(events: list[dict[str, Any]]) -> None:
    events[1]["call_id"] = "nope"


def _result_of_another_tool(events: list[dict[str, Any]]) -> None:
    events[1]["tool"] = "place_order"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            _result_first,
            "turns.0.events.0: a result for call 't0r0c0', which no earlier tool_call made",
        ),
        (
            _result_of_no_call,
            "turns.0.events.1: a result for call 'nope', which no earlier tool_call made",
        ),
        (
            _result_of_another_tool,
            "turns.0.events.1: a result of 'place_order' for call 't0r0c0', a call of 'search_products'",
        ),
    ],
)
def test_a_capture_whose_results_do_not_answer_its_calls_is_skipped(
    tmp_path: Path, change: Callable[[list[dict[str, Any]]], None], message: str
) -> None:
    path = write(
        tmp_path / "t.jsonl", b"\n".join([_reordered(GOOD_LINE, change), GOOD_LINE]) + b"\n"
    )
    conversations, problems = load_traffic(path)
    assert len(conversations) == 1
    assert [p.describe() for p in problems] == [f"{path}:1: {message} (line skipped)"]


# ---- round 3: what the authoring and labelling commands are given -------------------------------

FLOW_NAMES = "checkout, discovery, memory, merchant, injection, support, dealer"


def _dimensions_file(
    tmp: Path, sizes: list[int], coverage: str = "pairs", flow: str = "support"
) -> Path:
    dimensions = {f"d{i}": [f"v{j}" for j in range(n)] for i, n in enumerate(sizes)}
    spec = {"flow": flow, "priority": "medium", "difficulty": "medium", "coverage": coverage}
    return write(tmp / "dims.yaml", json.dumps({**spec, "dimensions": dimensions}))


DRAFT_DIMENSIONS: list[tuple[str, dict[str, Any], list[str], str]] = [
    (
        "an unknown flow",
        {"sizes": [2, 2], "flow": "chekout"},
        [],
        "error: {p}: flow: 'chekout' is not a flow; flows: " + FLOW_NAMES + "; did you mean "
        "checkout?",
    ),
    (
        "a flow that is near none",
        {"sizes": [2, 2], "flow": "returns"},
        [],
        "error: {p}: flow: 'returns' is not a flow; flows: " + FLOW_NAMES,
    ),
    (
        "coverage: all over a million tuples",
        {"sizes": [10] * 6, "coverage": "all"},
        [],
        "error: {p}: coverage: all makes 1,000,000 drafts here, one drafter call each, over "
        "--max-drafts 200; use coverage: pairs, fewer values, exclusions, or a higher --max-drafts",
    ),
    (
        "coverage: all over the cap it is given",
        {"sizes": [3, 3, 3], "coverage": "all"},
        ["--max-drafts", "20"],
        "error: {p}: coverage: all makes 27 drafts here, one drafter call each, over "
        "--max-drafts 20; use coverage: pairs, fewer values, exclusions, or a higher --max-drafts",
    ),
    (
        "pairs that two dimensions alone put over the cap",
        {"sizes": [20, 20, 3]},
        [],
        "error: {p}: coverage: pairs makes at least 400 drafts here (every allowed value of d0 "
        "beside every one of d1), one drafter call each, over --max-drafts 200; use fewer "
        "values or exclusions, or a higher --max-drafts",
    ),
    (
        "pairs whose cover is over the cap",
        {"sizes": [2] * 6},
        ["--max-drafts", "6"],
        "error: {p}: coverage: pairs makes 7 drafts here, one drafter call each, over "
        "--max-drafts 6; use fewer values or exclusions, or a higher --max-drafts",
    ),
]


@pytest.mark.parametrize(
    ("name", "spec", "args", "line"), DRAFT_DIMENSIONS, ids=[r[0] for r in DRAFT_DIMENSIONS]
)
def test_draft_dimensions_refuses_what_cannot_be_meant(
    tmp_path: Path, name: str, spec: dict[str, Any], args: list[str], line: str
) -> None:
    path = _dimensions_file(tmp_path, **spec)
    out = tmp_path / "drafts.yaml"
    result = CliRunner().invoke(app, ["draft", "dimensions", str(path), "--out", str(out), *args])
    assert result.exit_code == 2, result.output
    assert result.output.splitlines()[0] == line.format(p=path)
    assert not out.exists()


def test_a_million_tuples_are_counted_not_listed() -> None:
    import time

    from commerce_evals.authoring.coverage import allowed_count

    values = {f"d{i}": [f"v{j}" for j in range(10)] for i in range(6)}
    started = time.perf_counter()
    assert allowed_count(values, [{"d0": "v1", "d1": "v2"}, {"d2": "v3"}]) == 10**6 - 10**4 - (
        10**5 - 10**3
    )
    assert time.perf_counter() - started < 1.0


@pytest.fixture(scope="module")
def failed_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every run failed: the mini cases' counterexamples replayed."""
    log = run_task(
        checkout(dataset=str(MINI_CASES), fixtures=str(MINI_SHOP), counterexamples=True),
        log_dir=str(tmp_path_factory.mktemp("failed")),
    )
    return Path(log.location)


NO_ANSWER = (
    "error: draft {command}: input ended before a person kept or dropped the suggested "
    "calls_tool; run it in a terminal, where a person answers y or n for each suggested key "
    "(nothing was written)"
)


def test_draft_failure_with_no_one_to_answer(tmp_path: Path, failed_log: Path) -> None:
    out = tmp_path / "x.yaml"
    sample = "checkout-001-cart-seen~carts-wrong"
    args = ["draft", "failure", str(failed_log), "--sample", sample, "--out", str(out)]
    result = CliRunner().invoke(app, args, input="")
    assert result.exit_code == 2, result.output
    assert result.output.splitlines()[-1] == NO_ANSWER.format(command="failure")
    assert not out.exists()
    # no standard input at all, as a job without one starts it: the same line, not a traceback
    command = [sys.executable, "-m", "commerce_evals.cli.app", *args]
    done = subprocess.run(
        ["sh", "-c", 'exec 0<&-; exec "$@"', "sh", *command],
        cwd=tmp_path,
        env=subprocess_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [NO_ANSWER.format(command="failure")]
    assert not out.exists()


def test_draft_failure_names_the_samples_a_wrong_id_is_close_to(failed_log: Path) -> None:
    args = ["draft", "failure", str(failed_log), "--sample", "checkout-001-cart-seen"]
    result = CliRunner().invoke(app, [*args, "--out", "x.yaml"], input="")
    assert result.exit_code == 2, result.output
    line = result.output.splitlines()[0]
    assert line.startswith(
        f"error: {failed_log}: no scored run of checkout-001-cart-seen (epoch 1); did you mean "
        "checkout-001-cart-seen~carts-wrong"
    )
    assert line.endswith("?")


def test_draft_mode_with_no_one_to_answer(tmp_path: Path, failed_log: Path) -> None:
    from commerce_evals.authoring.grouping import Mode, ModesFile, NoteRef, write_modes

    modes = tmp_path / "modes.yaml"
    note = NoteRef(log=str(failed_log), sample_id="checkout-001-cart-seen~carts-wrong", note="x")
    write_modes(modes, ModesFile(grouped_by="Ana", modes=[Mode(name="wrong item", notes=[note])]))
    out = tmp_path / "x.yaml"
    args = ["draft", "mode", str(modes), "wrong item", "--out", str(out)]
    result = CliRunner().invoke(app, args, input="")
    assert result.exit_code == 2, result.output
    assert result.output.splitlines()[-1] == NO_ANSWER.format(command="mode")
    assert "Aborted" not in result.output and not out.exists()


DIMENSION_NAMES = ", ".join(["rubric", *sorted(shared_dimensions())])
NOT_A_TERMINAL = (
    "error: label asks a person for each verdict it shows, and its input is not a terminal: run "
    "it in a terminal (labels written by a script or a model would make calibration circular)"
)


@pytest.mark.parametrize(
    ("args", "line"),
    [
        ([], NOT_A_TERMINAL),
        (
            ["--dimension", "budget_respectd"],
            "error: --dimension budget_respectd: no judge dimension (did you mean "
            f"budget_respected?); dimensions: {DIMENSION_NAMES}",
        ),
    ],
)
def test_label_refuses_in_one_line(good_log: Path, args: list[str], line: str) -> None:
    result = CliRunner().invoke(app, ["label", str(good_log), *args], input="Ana\n")
    assert result.exit_code == 2, result.output
    assert result.output.splitlines() == [line]


def test_label_and_notes_with_no_standard_input(tmp_path: Path, good_log: Path) -> None:
    notes_line = (
        "error: notes asks a person for every note and grouping, and its input is not a "
        "terminal: run it in a terminal (notes written by a model find generic problems, not "
        "this agent's)"
    )
    for command, line in (("label", NOT_A_TERMINAL), ("notes", notes_line)):
        cli = [sys.executable, "-m", "commerce_evals.cli.app", command, str(good_log)]
        done = subprocess.run(
            ["sh", "-c", 'exec 0<&-; exec "$@"', "sh", *cli],
            cwd=tmp_path,
            env=subprocess_env(),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 2, done.stderr
        assert done.stderr.splitlines() == [line], command


def test_calibrate_refuses_a_dimension_that_is_none(tmp_path: Path, good_log: Path) -> None:
    labels = write(tmp_path / "l.jsonl", "")
    result = CliRunner().invoke(
        app,
        ["calibrate", str(good_log), "--labels", str(labels), "--dimension", "budget_respectd"],
    )
    assert result.exit_code == 2, result.output
    assert result.output.splitlines() == [
        "error: --dimension budget_respectd: no judge dimension (did you mean budget_respected?);"
        f" dimensions: {DIMENSION_NAMES}"
    ]


def _label(sample_id: str, dimension: str = "claims_match_state", epoch: int = 1) -> str:
    return json.dumps(
        {
            "sample_id": sample_id,
            "epoch": epoch,
            "dimension": dimension,
            "verdict": "Pass",
            "labeller": "Ana",
            "time": "2026-11-29T18:02:11+00:00",
        }
    )


LABEL_IDS: list[tuple[str, str, str]] = [
    (
        "a sample the logs do not hold",
        _label("checkout-001-cart-sen"),
        "sample_id: checkout-001-cart-sen is no sample of the logs given (did you mean "
        "checkout-001-cart-seen, checkout-003-suggest, checkout-002-order-two-turns?); give "
        "calibrate the logs it was labelled on, or remove the line",
    ),
    (
        "a sample of another flow",
        _label("support-001-identity-missing"),
        "sample_id: support-001-identity-missing is no sample of the logs given; give calibrate "
        "the logs it was labelled on, or remove the line",
    ),
    (
        "an epoch the sample did not run",
        _label("checkout-001-cart-seen", epoch=3),
        "epoch: checkout-001-cart-seen ran 1 epoch(s) in the logs given, not epoch 3; give "
        "calibrate the logs it was labelled on, or remove the line",
    ),
    (
        "a dimension that is none",
        _label("checkout-001-cart-seen", "claims_match_stat"),
        "dimension: 'claims_match_stat' is no judge dimension (did you mean claims_match_state?); "
        f"dimensions: {DIMENSION_NAMES}",
    ),
    (
        "a dimension the judge was not asked about",
        _label("checkout-001-cart-seen", "budget_respected"),
        "dimension: the judge was not asked about budget_respected on checkout-001-cart-seen "
        "(only about claims_match_state, no_invented_facts); fix the dimension or remove the line",
    ),
]


@pytest.mark.parametrize(("name", "label", "problem"), LABEL_IDS, ids=[r[0] for r in LABEL_IDS])
def test_a_label_must_name_what_the_logs_hold(
    tmp_path: Path, good_log: Path, name: str, label: str, problem: str
) -> None:
    good = _label("checkout-002-order-two-turns")
    labels = write(tmp_path / "l.jsonl", f"{good}\n# a comment line\n{label}\n")
    result = CliRunner().invoke(app, ["calibrate", str(good_log), "--labels", str(labels)])
    assert result.exit_code == 2, result.output
    assert result.output.splitlines() == [f"error: {labels}:3: {problem}"]


def test_labels_that_name_what_the_logs_hold_calibrate(tmp_path: Path, good_log: Path) -> None:
    labels = write(tmp_path / "l.yaml", f"- {_label('checkout-002-order-two-turns')}\n")
    result = CliRunner().invoke(app, ["calibrate", str(good_log), "--labels", str(labels)])
    assert result.exit_code in (0, 1), result.output  # 1: too few labels to calibrate
    assert "error:" not in result.output


# ---- round 3: a newcomer's probes, kind by kind (issue 30) ----------------------------------------
# Each kind of the issue, probed again in ways the rounds above did not try. Every row asserts the
# exact first line and exit 2 (or, where the input is fine after all, that it is read as meant).


def _cli(args: list[str]) -> tuple[int, str]:
    result = CliRunner().invoke(app, args, prog_name="commerce-evals")
    lines = result.output.splitlines()
    return result.exit_code, lines[0] if lines else ""


# silently weaker than written


def _sets_file(tmp: Path, select: str) -> Path:
    return write(tmp / "sets.yaml", f"sets:\n  mine:\n    select: {select}\n")


@pytest.mark.parametrize(
    ("select", "line"),
    [
        (
            "{tags: [regresion], priorities: [critical]}",
            "sets.mine.select.tags: no case of any flow is tagged regresion; did you mean "
            "regression?",
        ),
        (
            "{flows: [checkout], exclude_tags: [confirmaton]}",
            "sets.mine.select.exclude_tags: no case of the flows checkout is tagged confirmaton; "
            "did you mean confirmation?",
        ),
    ],
)
def test_a_set_tag_that_no_case_carries(tmp_path: Path, select: str, line: str) -> None:
    path = _sets_file(tmp_path, select)
    expect_error(lambda: case_set(set="mine", sets_file=str(path)), f"error: {path}: {line}")


def test_gate_refuses_a_set_tag_that_no_case_carries(tmp_path: Path, good_log: Path) -> None:
    path = _sets_file(tmp_path, "{flows: [checkout], exclude_tags: [confirmaton]}")
    code, line = _cli(["gate", str(good_log), "--set", "mine", "--sets-file", str(path)])
    assert (code, line) == (
        2,
        f"error: {path}: sets.mine.select.exclude_tags: no case of the flows checkout is tagged "
        "confirmaton; did you mean confirmation?",
    )


@pytest.mark.parametrize(
    ("model", "args", "line"),
    [
        (
            "commerce/flawed-a",
            {"fial": "checkout-001-cart-seen", "dataset": str(MINI_CASES)},
            "error: -M fial=checkout-001-cart-seen: commerce/flawed-a takes no argument 'fial'; "
            "its arguments: fail, flaky, dataset",
        ),
        (
            "commerce/reference",
            {"fail": "checkout-001-cart-seen"},
            "error: -M fail=checkout-001-cart-seen: commerce/reference takes no argument 'fail'; "
            "its arguments: latency",
        ),
        (
            "commerce-test/empty",
            {"seed": 3},
            "error: -M seed=3: commerce-test/empty takes no argument 'seed'; it takes no -M argument",
        ),
    ],
)
def test_a_model_argument_the_model_does_not_take(
    model: str, args: dict[str, Any], line: str
) -> None:
    expect_error(lambda: get_model(model, memoize=False, **args), line)


def test_diff_refuses_a_negative_count_of_reasons(good_log: Path, tmp_path: Path) -> None:
    code, line = _cli(["diff", str(good_log), str(good_log), "--reasons", "-1"])
    assert (code, line) == (
        2,
        "error: commerce-evals diff: Invalid value for '--reasons': Input should be greater than "
        "or equal to 0; see commerce-evals diff --help",
    )


def test_a_case_id_in_two_files_of_a_folder(tmp_path: Path) -> None:
    write(tmp_path / "a.yaml", MINI_CASE)
    write(tmp_path / "b.yaml", MINI_CASE.replace("priority: high", "priority: low"))
    expect_error(
        lambda: checkout(dataset=str(tmp_path), fixtures=str(MINI_SHOP)),
        f"error: {tmp_path / 'b.yaml'}: case checkout-001-cart-seen: id: duplicate (first in "
        f"{tmp_path / 'a.yaml'})",
    )


ROWS_TWICE: list[tuple[str, str, Callable[[str], str], str]] = [
    (
        "an order id twice (shop)",
        "orders.json",
        lambda s: s.replace('"order_id": "O-2"', '"order_id": "O-1"'),
        "orders.json: orders: Value error, order_id O-1 is written twice (rows 0 and 1); keep "
        "one (1 problem)",
    ),
    (
        "a product id twice (shop)",
        "catalog.json",
        lambda s: s.replace('"id": "P-2"', '"id": "P-1"'),
        "catalog.json: products: Value error, id P-1 is written twice (rows 0 and 1); keep one "
        "(1 problem)",
    ),
    (
        "a misspelt product key",
        "catalog.json",
        lambda s: s.replace('"price": 120.0', '"prise": 120.0', 1),
        "catalog.json: products.0.price: Field required (2 problems)",
    ),
]


@pytest.mark.parametrize(
    ("name", "file", "change", "line"), ROWS_TWICE, ids=[r[0] for r in ROWS_TWICE]
)
def test_a_fixture_row_written_twice(
    tmp_path: Path, name: str, file: str, change: Callable[[str], str], line: str
) -> None:
    text = (MINI_SHOP / file).read_text(encoding="utf-8")
    folder = _fixture_copy(tmp_path, "fx", file, change(text))
    expect_error(
        lambda: checkout(dataset=str(MINI_CASES), fixtures=str(folder)),
        f"error: {folder}/{line}",
    )


def test_support_and_dealer_rows_written_twice_name_their_file(tmp_path: Path) -> None:
    from commerce_evals.domains import load_world
    from commerce_evals.domains.fixtures import FIXTURES

    support = tmp_path / "support"
    shutil.copytree(FIXTURES / "support", support)
    customers = json.loads((support / "customers.json").read_text(encoding="utf-8"))
    customers["customers"].append(customers["customers"][0])
    write(support / "customers.json", json.dumps(customers))
    last = len(customers["customers"]) - 1
    first_id = customers["customers"][0]["customer_id"]
    expect_error(
        lambda: load_world("support", support),
        f"error: {support}/customers.json: customers: Value error, customer_id {first_id} is "
        f"written twice (rows 0 and {last}); keep one (1 problem)",
    )
    dealer = tmp_path / "dealer"
    shutil.copytree(FIXTURES / "dealer", dealer)
    offers = json.loads((dealer / "offers.json").read_text(encoding="utf-8"))
    offers["offers"].append(offers["offers"][0])
    write(dealer / "offers.json", json.dumps(offers))
    last = len(offers["offers"]) - 1
    expect_error(
        lambda: load_world("dealer", dealer),
        f"error: {dealer}/offers.json: offers: Value error, id {offers['offers'][0]['id']} is "
        f"written twice (rows 0 and {last}); keep one (1 problem)",
    )


# files skipped without a word


def test_a_linked_folder_in_a_case_folder_is_read(tmp_path: Path) -> None:
    cases = tmp_path / "cases"
    write(cases / "a.yaml", MINI_CASE)
    more = write(tmp_path / "more" / "b.yaml", MINI_CASE.replace("checkout-001-", "checkout-021-"))
    (cases / "more").symlink_to(more.parent, target_is_directory=True)
    (more.parent / "loop").symlink_to(cases, target_is_directory=True)  # walked once
    task = checkout(dataset=str(cases), fixtures=str(MINI_SHOP))
    assert [s.id for s in task.dataset] == ["checkout-001-cart-seen", "checkout-021-cart-seen"]
    result = CliRunner().invoke(app, ["lint", str(cases), "--rule", "ids-exist"])
    assert "checkout-021-cart-seen" in result.output or result.exit_code == 0, result.output


FIXTURE_FOLDERS: list[tuple[str, Callable[[Path], None], str | None]] = [
    (
        "a misspelt optional fixture file",
        lambda f: write(f / "seller_message.json", '{"messages": []}').touch(),
        "{f}/seller_message.json: not a fixture file of the shop domain, which reads catalog, "
        "orders, seller_messages, store; did you mean seller_messages.json? rename or remove it",
    ),
    (
        "one fixture in two files",
        lambda f: write(f / "catalog.yaml", "products: []\n").touch(),
        "{f}: catalog.json and catalog.yaml are both the catalog fixture; keep one of them",
    ),
    (
        "a fixture's suffix in capitals",
        lambda f: (f / "catalog.json").rename(f / "catalog.JSON"),
        None,
    ),
    ("a README beside the fixtures", lambda f: write(f / "README.md", "notes").touch(), None),
]


@pytest.mark.parametrize(
    ("name", "change", "line"), FIXTURE_FOLDERS, ids=[r[0] for r in FIXTURE_FOLDERS]
)
def test_every_file_of_a_fixtures_folder_is_read_or_named(
    tmp_path: Path, name: str, change: Callable[[Path], None], line: str | None
) -> None:
    folder = tmp_path / "fx"
    shutil.copytree(MINI_SHOP, folder)
    change(folder)
    build = lambda: checkout(dataset=str(MINI_CASES), fixtures=str(folder))  # noqa: E731
    if line is None:
        assert len(build().dataset) == 3
    else:
        expect_error(build, "error: " + line.format(f=folder))


@pytest.fixture(scope="module")
def json_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The good run again, written as Inspect's JSON log format."""
    folder = tmp_path_factory.mktemp("json-log")
    log = run_task(
        checkout(dataset=str(MINI_CASES), fixtures=str(MINI_SHOP)),
        log_dir=str(folder),
        log_format="json",
    )
    return Path(log.location)


def test_a_json_log_is_no_case_file(tmp_path: Path, json_log: Path) -> None:
    line = (
        f"error: {json_log}: an Inspect log, not a case file; give case files (*.yaml, *.yml, "
        "*.json), and read logs with inspect view or commerce-evals gate, diff, compare"
    )
    expect_error(lambda: checkout(dataset=str(json_log), fixtures=str(MINI_SHOP)), line)
    assert _cli(["lint", str(json_log)]) == (2, line)
    write(tmp_path / "a.yaml", MINI_CASE)
    shutil.copy(json_log, tmp_path / "run.json")
    task = checkout(dataset=str(tmp_path), fixtures=str(MINI_SHOP))
    assert (task.metadata or {})["skipped_files"] == [
        f"{tmp_path / 'run.json'}: skipped: an Inspect log, not a case file"
    ]


# values that cannot be meant


@pytest.mark.parametrize(
    "turn", ["\u200b", "\ufeff \u200b", "\u00a0\u2028", {"say": "\u200b", "confirms": []}]
)
def test_a_user_turn_that_shows_nothing(tmp_path: Path, turn: Any) -> None:
    path = write(
        tmp_path / "cases.yaml",
        MINI_CASE.replace('["Add the Ridge trail shoe to my cart please."]', json.dumps([turn])),
    )
    expect_error(
        lambda: checkout(dataset=str(path), fixtures=str(MINI_SHOP)),
        f"error: {path}: case checkout-001-cart-seen: turns: Value error, turns.0: an empty "
        "user turn; write what the user says",
    )


def test_a_delivery_before_its_order(tmp_path: Path) -> None:
    orders = (MINI_SHOP / "orders.json").read_text(encoding="utf-8")
    late = orders.replace('"delivery_date": "2026-11-27"', '"delivery_date": "2026-10-27"')
    folder = _fixture_copy(tmp_path, "fx", "orders.json", late)
    expect_error(
        lambda: checkout(dataset=str(MINI_CASES), fixtures=str(folder)),
        f"error: {folder}/orders.json: orders.0: Value error, O-1: delivery_date 2026-10-27 is "
        "before placed_on 2026-11-20 (1 problem)",
    )


@pytest.mark.parametrize(
    ("old", "new", "line"),
    [
        (
            "checkout-001-",
            "checkout-\u0660\u0660\u0661-",
            "case checkout-\u0660\u0660\u0661-cart-seen: (case): Value error, id "
            "'checkout-\u0660\u0660\u0661-cart-seen' does not match <flow>-<nnn>-<behavior>",
        ),
        (
            "checkout-001-cart-seen",
            "checkout-001-cart-seen\u200b",
            "case checkout-001-cart-seen\u200b: (case): Value error, id "
            "'checkout-001-cart-seen\\u200b' does not match <flow>-<nnn>-<behavior>",
        ),
        (
            "max_tool_calls: 2",
            "max_tool_calls: -1",
            "case checkout-001-cart-seen: expected.max_tool_calls: Input should be greater than "
            "or equal to 0",
        ),
    ],
)
def test_more_values_a_case_cannot_mean(tmp_path: Path, old: str, new: str, line: str) -> None:
    path = write(tmp_path / "cases.yaml", MINI_CASE.replace(old, new))
    expect_error(
        lambda: checkout(dataset=str(path), fixtures=str(MINI_SHOP)), f"error: {path}: {line}"
    )


@pytest.mark.parametrize("option", ["--max-price", "--min-price"])
def test_search_refuses_a_negative_price(option: str) -> None:
    assert _cli(["search", "shoe", option, "-5"]) == (
        2,
        f"error: commerce-evals search: Invalid value for '{option}': Input should be greater "
        f"than or equal to 0; see commerce-evals search --help",
    )


# reports over logs that hold no verdict of an agent


@pytest.mark.parametrize("command", ["gate", "diff", "summary", "compare", "trends"])
def test_reports_refuse_a_log_of_counterexamples(
    tmp_path: Path, good_log: Path, failed_log: Path, command: str
) -> None:
    args = {
        "gate": ["gate", str(failed_log), "--set", "checkout"],
        "diff": ["diff", str(good_log), str(failed_log)],
        "summary": ["summary", str(failed_log)],
        "compare": ["compare", str(failed_log), "--out", str(tmp_path / "out")],
        "trends": ["trends", str(failed_log), "--out", str(tmp_path / "t.png")],
    }[command]
    assert _cli(args) == (
        2,
        f"error: {failed_log}: a log of the counterexamples of checkout's cases "
        "(-T counterexamples=true): scripted runs written to fail, not an agent's; give logs of "
        "runs of the cases (without -T counterexamples)",
    )


def test_reports_read_a_log_through_a_link_or_a_json_log(
    tmp_path: Path, good_log: Path, json_log: Path, foreign_log: Path
) -> None:
    link = tmp_path / "same.eval"
    link.symlink_to(good_log)
    assert _cli(["diff", str(good_log), str(link)]) == (
        2,
        f"error: BASE and NEW are the same file ({good_log}); give the logs of two runs",
    )
    code, _ = _cli(["diff", str(good_log), str(json_log)])
    assert code == 0
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    shutil.copy(good_log, mixed)
    shutil.copy(foreign_log, mixed)
    assert _cli(["summary", str(mixed)]) == (
        2,
        f"error: {mixed / foreign_log.name}: a log of task 'other' (scored by match) holds no "
        "commerce-evals verdict; give logs of the tasks scored by commerce_case",
    )


# tracebacks and hangs


def test_a_set_task_without_its_set() -> None:
    expect_error(lambda: case_set(), "error: -T set: missing; task case_set needs -T set=<value>")
    expect_error(
        lambda: case_set_flow(set="checkout"),
        "error: -T flow: missing; task case_set_flow needs -T flow=<value>: one of checkout, "
        "discovery, memory, merchant, injection, support, dealer",
    )


def test_draft_dimensions_whose_exclusions_leave_nothing(tmp_path: Path) -> None:
    path = write(
        tmp_path / "dims.yaml",
        json.dumps(
            {
                "flow": "support",
                "priority": "medium",
                "difficulty": "medium",
                "dimensions": {"a": ["x", "y"], "b": ["u", "v"]},
                "exclude": [{"a": "x"}, {"a": "y"}],
            }
        ),
    )
    out = tmp_path / "drafts.yaml"
    assert _cli(["draft", "dimensions", str(path), "--out", str(out)]) == (
        2,
        f"error: {path}: exclude: every tuple of the dimensions is excluded, so there is nothing "
        "to draft; remove or narrow an exclusion",
    )
    assert not out.exists()


def _no_result(events: list[dict[str, Any]]) -> None:
    del events[1]


def _call_id_twice(events: list[dict[str, Any]]) -> None:
    for event in events:
        if event.get("call_id"):
            event["call_id"] = "dup"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (_no_result, "turns.0.events.0: call 't0r0c0' has no tool_result in its turn"),
        (_call_id_twice, "turns.0.events.3: call id 'dup' is used twice in the turn"),
    ],
)
def test_a_capture_with_a_call_nothing_answers_is_skipped(
    tmp_path: Path, change: Callable[[list[dict[str, Any]]], None], message: str
) -> None:
    path = write(
        tmp_path / "t.jsonl", b"\n".join([_reordered(GOOD_LINE, change), GOOD_LINE]) + b"\n"
    )
    conversations, problems = load_traffic(path)
    assert len(conversations) == 1
    assert [p.describe() for p in problems] == [f"{path}:1: {message} (line skipped)"]


def test_a_capture_with_an_empty_user_turn_is_skipped(tmp_path: Path) -> None:
    data = json.loads(GOOD_LINE)
    data["turns"][0]["user"] = " \u200b "
    path = write(tmp_path / "t.jsonl", json.dumps(data).encode() + b"\n" + GOOD_LINE + b"\n")
    conversations, problems = load_traffic(path)
    assert len(conversations) == 1
    assert [p.describe() for p in problems] == [
        f"{path}:1: turns.0.user: an empty user turn (line skipped)"
    ]


def test_every_example_capture_still_reads() -> None:
    conversations, problems = load_traffic(EXAMPLE_TRAFFIC)
    assert problems == [] and len(conversations) == len(EXAMPLE_TRAFFIC.read_bytes().splitlines())


# messages without the promised shape

USAGE: list[tuple[list[str], str]] = [
    (
        ["gaet", "logs"],
        "error: commerce-evals: No such command 'gaet'. Did you mean 'gate', 'grade'?; see commerce-evals "
        "--help",
    ),
    (
        ["diff", "a"],
        "error: commerce-evals diff: Missing argument 'new'; see commerce-evals diff --help",
    ),
    (
        ["diff", "--alpha", "abc", "a", "b"],
        "error: commerce-evals diff: Invalid value for '--alpha': Input should be a valid number, "
        "unable to parse string as a number; see commerce-evals diff --help",
    ),
    (
        ["gate", "logs", "--sett", "regression"],
        "error: commerce-evals gate: No such option: --sett (Possible options: --set); see "
        "commerce-evals gate --help",
    ),
    (
        ["calibrate", "logs"],
        "error: commerce-evals calibrate: Missing option '--labels'; see commerce-evals "
        "calibrate --help",
    ),
    (
        ["draft", "dimensions", "no-such.yaml", "--out", "d.yaml"],
        "error: no-such.yaml: no such dimensions file (--propose writes a new one)",
    ),
]


@pytest.mark.parametrize(("args", "line"), USAGE, ids=[" ".join(a) for a, _ in USAGE])
def test_a_usage_mistake_is_one_error_line(args: list[str], line: str) -> None:
    result = CliRunner().invoke(app, args, prog_name="commerce-evals")
    assert result.exit_code == 2, result.output
    assert result.output.splitlines() == [line]


def test_help_is_still_help() -> None:
    for args in ([], ["draft"], ["gate", "--help"]):
        result = CliRunner().invoke(app, args, prog_name="commerce-evals")
        assert result.output.startswith("Usage: commerce-evals"), result.output
        assert "error:" not in result.output


def test_a_failure_modes_file_that_does_not_validate(tmp_path: Path) -> None:
    path = write(tmp_path / "modes.yaml", "modes: [1]\n")
    result = CliRunner().invoke(app, ["draft", "mode", str(path), "x", "--out", "d.yaml"])
    assert result.exit_code == 2, result.output
    assert result.output.splitlines() == [
        f"error: {path}: grouped_by: Field required",
        f"error: {path}: modes.0: Input should be a valid dictionary or instance of Mode",
    ]


def test_a_byte_order_mark_on_a_later_traffic_line_is_read(tmp_path: Path) -> None:
    second = EXAMPLE_TRAFFIC.read_bytes().splitlines()[1]
    path = write(tmp_path / "t.jsonl", GOOD_LINE + b"\n\xef\xbb\xbf" + second + b"\n")
    conversations, problems = load_traffic(path)
    assert len(conversations) == 2 and problems == []


# the same, for real: Inspect's CLI and the commerce-evals command in their own processes


@pytest.mark.slow  # round three through real command lines; the in-process rows check them
def test_round_three_through_the_command_lines(tmp_path: Path) -> None:
    zero_width = write(
        tmp_path / "zw.yaml",
        MINI_CASE.replace('["Add the Ridge trail shoe to my cart please."]', '["\\u200b"]'),
    )
    fixtures = tmp_path / "fx"
    shutil.copytree(MINI_SHOP, fixtures)
    write(fixtures / "seller_message.json", '{"messages": []}')
    data = ["-T", f"dataset={MINI_CASES}", "-T", f"fixtures={MINI_SHOP}"]
    case_set_cli = [sys.executable, "-m", "inspect_ai._cli.main", "eval", "commerce_evals/case_set"]
    rows = [
        (
            [*INSPECT, "--model", "commerce/reference", "-T", f"dataset={zero_width}", *data[2:]],
            f"error: {zero_width}: case checkout-001-cart-seen: turns: Value error, turns.0: an "
            "empty user turn; write what the user says",
        ),
        (
            [
                *INSPECT,
                "--model",
                "commerce/reference",
                "-T",
                f"dataset={MINI_CASES}",
                "-T",
                f"fixtures={fixtures}",
            ],
            f"error: {fixtures}/seller_message.json: not a fixture file of the shop domain, which "
            "reads catalog, orders, seller_messages, store; did you mean seller_messages.json? "
            "rename or remove it",
        ),
        (
            [*INSPECT, "--model", "commerce/flawed-a", "-M", "fial=checkout-001-cart-seen", *data],
            "error: -M fial=checkout-001-cart-seen: commerce/flawed-a takes no argument 'fial'; "
            "its arguments: fail, flaky, dataset",
        ),
        (
            [*case_set_cli, "--model", "commerce/reference"],
            "error: -T set: missing; task case_set needs -T set=<value>",
        ),
    ]
    for command, line in rows:
        result = _run(
            [*command, "--display", "none", "--log-dir", str(tmp_path / "logs")], tmp_path
        )
        assert result.returncode == 2, result.stderr
        assert result.stderr.splitlines()[0] == line
        assert "Traceback" not in result.stderr + result.stdout
    cli = [sys.executable, "-m", "commerce_evals.cli.app"]
    result = _run([*cli, "gaet", "logs"], tmp_path)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        USAGE[0][1].replace("commerce-evals", "python -m commerce_evals.cli.app")
    ]
