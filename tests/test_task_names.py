"""One task form, `commerce_evals/<flow>`, works in a clone's root as it does from an install, and
the README's run commands work as written, offline with the scripted models.

In a clone's root, `python -m inspect_ai` imports the clone's own `commerce_evals/` (the working
folder comes first on the path), and an install record there that is not an editable one (the
`.egg-info` a build leaves, or a wheel installed in the environment) makes Inspect register the
tasks without their package prefix, so the registered name read as a path found no task (exit 1,
silent under `--display none`). From elsewhere the registered name is the only form there is
(tests/test_install.py runs every flow so from a wheel).
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log

from tests.helpers import case_score
from tests.test_install import README, _env, copy_source


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the repository with the `.egg-info` a build in place leaves in its root."""
    root = copy_source(tmp_path_factory.mktemp("clone"))
    done = subprocess.run(
        [sys.executable, "setup.py", "-q", "egg_info"],
        cwd=root,
        env=_env(None),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert (root / "commerce_evals.egg-info" / "PKG-INFO").is_file()
    return root


def _eval(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "inspect_ai", "eval", *args, "--display", "none"]
    return subprocess.run(
        command, cwd=cwd, env=_env(None), capture_output=True, text=True, timeout=600
    )


@pytest.mark.slow  # a fresh interpreter in a copied clone
def test_the_registered_name_runs_in_a_clone_root_under_python_m(clone: Path) -> None:
    logs = clone / "logs"
    done = _eval(
        clone,
        "commerce_evals/checkout",
        *("--model", "commerce/reference", "--model-role", "grader=commerce/judge"),
        *("--sample-id", "checkout-001-cart-seen-product", "--log-dir", str(logs)),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    [log_file] = logs.glob("*.eval")
    log = read_eval_log(str(log_file))
    # the clone's own code ran, under the registered name
    assert log.eval.task_registry_name == "commerce_evals/checkout", log.eval.task_registry_name
    assert [case_score(s).value["passed"] for s in log.samples or []] == [1.0]


def _block_after(marker: str) -> list[str]:
    """The commands of the first ```bash block after `marker` in the README, one per command
    (continued lines joined, comments dropped)."""
    text = README.read_text(encoding="utf-8")
    assert marker in text, marker
    block = re.search(r"```bash\n(.*?)\n```", text.split(marker, 1)[1], re.S)
    assert block, marker
    joined = block.group(1).replace("\\\n", " ")
    return [line.split("  #")[0].strip() for line in joined.splitlines() if line.strip()]


def _run(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    words = shlex.split(command)
    program = {"inspect": [sys.executable, "-m", "inspect_ai"]}.get(words[0])
    program = program or [sys.executable, "-m", "commerce_evals.cli.app"]
    assert words[0] in ("inspect", "commerce-evals"), command
    args = [*program, *words[1:]]
    if words[0] == "inspect":
        args += ["--display", "none"]
    return subprocess.run(
        args, cwd=cwd, env=_env(None), capture_output=True, text=True, timeout=3600
    )


@pytest.mark.slow
def test_check_a_case_as_the_readme_writes_it(clone: Path, tmp_path: Path) -> None:
    reference, counterexamples = _block_after("### Check a case")
    assert "-T counterexamples=true" in counterexamples
    work = tmp_path / "work"
    work.mkdir()
    for command, want in ((reference, [1.0]), (counterexamples, None)):
        logs = work / ("cx" if want is None else "ref")
        done = _run(f"{command} --log-dir {logs}", clone)
        assert done.returncode == 0, done.stdout + done.stderr
        [log_file] = logs.glob("*.eval")
        samples = read_eval_log(str(log_file)).samples or []
        passed = [case_score(s).value["passed"] for s in samples]
        if want is not None:
            assert passed == want
        else:  # every counterexample of the case ran, and each failed
            assert len(passed) >= 2 and set(passed) == {0.0}, passed
            assert all("~" in str(s.id) for s in samples)


@pytest.mark.slow
def test_the_regression_gate_passes_as_the_readme_writes_it(clone: Path) -> None:
    run, gate = _block_after("the regression set passes its gate as written:")
    assert "--model-role grader=commerce/judge" in run and gate.startswith("commerce-evals gate")
    done = _run(run, clone)
    assert done.returncode == 0, done.stdout + done.stderr
    done = _run(gate, clone)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().splitlines()[-1] == "GATE PASSED"
