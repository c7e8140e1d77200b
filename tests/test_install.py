"""A non-editable install works the way users install: from a built wheel, in a fresh virtual
environment, run from a folder outside the repository.

One wheel is built per test session with the backend already installed (no network), installed
with `--no-deps` into a virtual environment that sees this environment's dependencies, and then
every flow, `case_set`, `production` and the `commerce-evals` commands run from a temporary folder.
"This environment" is whichever runs the tests: the system Python or a virtual environment.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log

from commerce_evals.cases.model import case_files, load_cases
from commerce_evals.core.flow_table import FLOWS
from tests.helpers import case_score

REPO = Path(__file__).resolve().parents[1]
SOURCE_ITEMS = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md")
SOURCE_FOLDERS = ("commerce_evals", "datasets", "fixtures", "poisoned")
DATA_FOLDERS = ("datasets", "fixtures", "poisoned")


def first_case_id(flow: str) -> str:
    folder = REPO / "datasets" / flow
    paths = case_files(folder) if folder.is_dir() else [REPO / "datasets" / f"{flow}.yaml"]
    return next(case.id for case in load_cases(paths) if not case.skip)


def run(
    args: list[str], cwd: Path, env: dict[str, str], timeout: int = 600
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{args} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done


def copy_source(target: Path, folders: tuple[str, ...] = SOURCE_FOLDERS) -> Path:
    """A copy of the repository's sources, so a build or a run leaves no litter in it."""
    target.mkdir(parents=True, exist_ok=True)
    for item in SOURCE_ITEMS:
        shutil.copy2(REPO / item, target / item)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build", "logs")
    for folder in folders:
        shutil.copytree(REPO / folder, target / folder, ignore=ignore)
    return target


@pytest.fixture(scope="module")
def built_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built from a copy of the repository."""
    source = copy_source(tmp_path_factory.mktemp("source"))
    dist = tmp_path_factory.mktemp("dist")
    pip_wheel = [sys.executable, "-m", "pip", "wheel", str(source), "-w", str(dist)]
    run([*pip_wheel, "--no-deps", "--no-build-isolation", "--no-index"], source, dict(os.environ))
    [wheel] = dist.glob("commerce_evals-*.whl")
    return wheel


def site_folders() -> list[str]:
    """The folders this interpreter's packages come from, in its search order. Inside a virtual
    environment they are that environment's, not the base interpreter's (which is all that
    `venv --system-site-packages` would see)."""
    return [p for p in sys.path if Path(p).name in {"site-packages", "dist-packages"}]


def see_these_packages(root: Path) -> Path:
    """Put this interpreter's package folders on the new environment's path, after its own.

    Plain folder lines in a .pth file: the .pth files inside those folders are not run, so an
    editable install of this repository there does not reach the new environment."""
    python = root / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    pth = Path(purelib) / "_running_environment.pth"
    pth.write_text("".join(f"{folder}\n" for folder in site_folders()), encoding="utf-8")
    return pth


@pytest.fixture(scope="module")
def venv(built_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment holding the wheel; the dependencies come from this one."""
    root = tmp_path_factory.mktemp("venv")
    run([sys.executable, "-m", "venv", str(root)], root, _env(None))
    see_these_packages(root)
    pip_install = [str(root / "bin" / "python"), "-m", "pip", "install", str(built_wheel)]
    run([*pip_install, "--no-deps", "--no-index", "--no-build-isolation"], root, _env(None))
    return root


@pytest.fixture(scope="module")
def elsewhere(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("elsewhere")


def _env(venv: Path | None) -> dict[str, str]:
    """This environment, minus anything that would import the repository's source instead."""
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "INSPECT_LOG_DIR"}}
    env["INSPECT_DISPLAY"] = "none"
    if venv is not None:
        env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        env["VIRTUAL_ENV"] = str(venv)
    return env


def test_wheel_carries_every_data_file(built_wheel: Path) -> None:
    names = set(zipfile.ZipFile(built_wheel).namelist())
    for folder in DATA_FOLDERS:
        files = [
            p for p in (REPO / folder).rglob("*") if p.is_file() and "__pycache__" not in p.parts
        ]
        assert files, folder
        missing = [
            str(p.relative_to(REPO))
            for p in files
            if f"commerce_evals/_data/{p.relative_to(REPO).as_posix()}" not in names
        ]
        assert missing == [], f"the wheel lacks {missing}"
    prompts = {
        n for n in names if n.startswith("commerce_evals/judging/prompts/") and n.endswith(".md")
    }
    instructions = {
        n for n in names if n.startswith("commerce_evals/domains/") and n.endswith(".md")
    }
    assert len(prompts) >= 4 and len(instructions) >= 4


SCRIPT = """
import json, sys
import commerce_evals
from inspect_ai import eval
from commerce_evals.cases.paths import data_dir

runs = json.loads(sys.argv[1])
report = {"package": commerce_evals.__file__, "datasets": str(data_dir("datasets")), "runs": {}}
report["inspect_ai"] = sys.modules["inspect_ai"].__file__
for name, (task, args, sample_id) in runs.items():
    [log] = eval(task, task_args=args, model="commerce/reference", sample_id=sample_id,
                 model_roles={"grader": "commerce/judge"}, display="none", log_dir="logs")
    scores = [s.scores for s in log.samples or []]
    passed = [next(iter(s.values())).value for s in scores]
    report["runs"][name] = {"status": log.status, "location": log.location, "values": passed}
print(json.dumps(report))
"""


@pytest.mark.slow
def test_every_flow_runs_by_registry_name_from_elsewhere(venv: Path, elsewhere: Path) -> None:
    runs = {flow: [f"commerce_evals/{flow}", {}, first_case_id(flow)] for flow in sorted(FLOWS)}
    checkout_case = runs["checkout"][2]
    runs["case_set"] = ["commerce_evals/case_set", {"set": "checkout"}, checkout_case]
    done = run(
        [str(venv / "bin" / "python"), "-c", SCRIPT, json.dumps(runs)], elsewhere, _env(venv)
    )
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["package"].startswith(str(venv)), report["package"]
    assert report["datasets"].startswith(str(venv)), report["datasets"]
    # the dependencies are this environment's (a virtual one's, not its base interpreter's)
    assert any(report["inspect_ai"].startswith(f) for f in site_folders()), report["inspect_ai"]
    for name, outcome in report["runs"].items():
        assert outcome["status"] == "success", (name, outcome)
        assert outcome["location"].startswith(str(elsewhere / "logs")), (name, outcome)
        assert outcome["values"], (name, outcome)
        for value in outcome["values"]:  # a set may run several epochs
            assert value["passed"] == 1.0, (name, value)


@pytest.mark.slow
def test_inspect_cli_and_commands_work_from_elsewhere(venv: Path, elsewhere: Path) -> None:
    python = str(venv / "bin" / "python")
    log_dir = elsewhere / "cli-logs"
    support_case = first_case_id("support")
    run(
        [
            *(python, "-m", "inspect_ai._cli.main", "eval", "commerce_evals/support"),
            *("--model", "commerce/reference", "--sample-id", support_case),
            *("--model-role", "grader=commerce/judge"),
            *("--log-dir", str(log_dir)),
        ],
        elsewhere,
        _env(venv),
    )
    production = [python, "-m", "inspect_ai._cli.main", "eval", "commerce_evals/production"]
    run(
        [*production, "--model", "none", "--model-role", "grader=commerce/judge-pass"]
        + ["--log-dir", str(elsewhere / "prod")],
        elsewhere,
        _env(venv),
    )
    [log] = log_dir.glob("*.eval")
    cli = str(venv / "bin" / "commerce-evals")
    lint = run([cli, "lint"], elsewhere, _env(venv))
    assert "0 problems" in lint.stdout or "no problems" in lint.stdout.lower(), lint.stdout
    found = run([cli, "search", "yoga mat", "--limit", "3"], elsewhere, _env(venv))
    assert "P-" in found.stdout
    again = elsewhere / "cli-logs-again" / log.name  # diff refuses a log against itself
    again.parent.mkdir()
    shutil.copy2(log, again)
    run([cli, "diff", str(log), str(again)], elsewhere, _env(venv))
    chart = elsewhere / "charts" / "trends.png"
    chart.parent.mkdir()
    trends = run(
        [cli, "trends", str(elsewhere / "prod"), "--out", str(chart)], elsewhere, _env(venv)
    )
    assert chart.is_file(), trends.stdout


README = REPO / "README.md"
# The README's test command runs in the new environment on the files that build environments of
# their own and run the installed commands, slow tier included (`-m ""`), but not this test again.
# The rest of the suite has just run in the environment running this test. Of the tests that build
# an environment from the running one, one is enough to show a virtual environment's packages
# reach it; the commands' own test is left to the outer run (a minute less).
README_TEST_FILES = ("tests/test_install.py", "tests/test_cli_basics.py")
# (the clone has no .ci/, so the test that reads .ci/run is left to the outer run as well)
README_TEST_OPTIONS = (
    "-m",
    "''",
    "-k",
    "'not test_readme_commands_pass and not test_ci_runs_the_readme_test_command"
    " and not test_inspect_cli_and_commands_work_from_elsewhere'",
)


def readme_commands() -> list[str]:
    """The shell blocks of the README's "Two commands": make a virtual environment, run a flow,
    run the tests."""
    section = README.read_text(encoding="utf-8").split("\n## Two commands\n", 1)[1]
    return re.findall(r"```bash\n(.*?)\n```", section.split("\n## ", 1)[0], re.S)


def test_ci_runs_the_readme_test_command_then_the_slow_tier() -> None:
    lines = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    pytest_lines = [line.strip() for line in lines if "pytest" in line and not line.startswith("#")]
    assert pytest_lines[:2] == [readme_commands()[2], "python -m pytest -m slow"], pytest_lines


@pytest.mark.slow
def test_readme_commands_pass_in_a_fresh_virtual_environment(tmp_path: Path) -> None:
    """A clone, a virtual environment made as the README says, and its two commands in it.

    The installs come from the package index (the network), as they would for a newcomer."""
    make_venv, run_flow, run_tests = readme_commands()
    assert make_venv.startswith("python -m venv .venv"), make_venv
    assert run_tests.endswith("python -m pytest"), run_tests
    clone = copy_source(tmp_path / "clone", (*SOURCE_FOLDERS, "tests"))
    env = _env(None)
    env.pop("VIRTUAL_ENV", None)
    env.pop("PYTHONNOUSERSITE", None)
    run(["bash", "-c", f"{make_venv} && {run_flow}"], clone, env, timeout=3600)
    [log_file] = (clone / "logs").glob("*.eval")
    log = read_eval_log(str(log_file))
    assert log.status == "success" and log.samples, log.status
    failed = [s.id for s in log.samples if case_score(s).value["passed"] != 1.0]
    assert failed == [], failed
    tests = f"{make_venv} && {run_tests} {' '.join(README_TEST_FILES + README_TEST_OPTIONS)}"
    done = run(["bash", "-c", tests], clone, env, timeout=3600)
    assert " passed" in done.stdout and " failed" not in done.stdout, done.stdout
