"""The offline runs behind the run-pattern doc's sample outputs, made by the very commands the
doc prints beside each output.

Each scenario is a list of commands run in a fresh folder of its own (relative `logs/...`
paths, a private Inspect cache), `inspect ...` and `commerce-evals ...` each in a process of its
own as a user would type them, against this checkout's package. What a `commerce-evals` command
printed is kept for the doc, piped (so tables are laid out as in a CI log, not squeezed to a
terminal's width).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from commerce_evals.cases.paths import checkout_root

TRAFFIC = "datasets/production/example.jsonl"
SWEEP_CASES = [
    "checkout-001-cart-seen-product",
    "checkout-003-unseen-name-searches-first",
    "checkout-012-remove-line",
    "checkout-017-summary-asks-for-yes",
    "checkout-028-order-status-updated-date",
    "checkout-029-order-status-corrects-stale-date",
]
FLAWED_A = "{model: commerce/flawed-a, model_args: {fail: 'checkout-017-summary-asks-for-yes,checkout-029-order-status-corrects-stale-date', flaky: checkout-003-unseen-name-searches-first}}"
FLAWED_B = "{model: commerce/flawed-b, model_args: {fail: 'checkout-001-cart-seen-product,checkout-017-summary-asks-for-yes'}}"

SCENARIOS: dict[str, list[str]] = {
    # the regression set, once passing (the base of the diff) and once with a case broken and
    # a case flaky
    "regression": [
        "inspect eval commerce_evals/case_set -T set=regression --model commerce/reference"
        " --model-role grader=commerce/judge --log-dir logs/regression-base",
        "inspect eval commerce_evals/case_set -T set=regression --model commerce/flawed-new"
        " -M fail=checkout-017-summary-asks-for-yes -M flaky=checkout-028-order-status-updated-date"
        " --model-role grader=commerce/judge --log-dir logs/regression",
        "commerce-evals gate logs/regression",
        "commerce-evals diff logs/regression-base logs/regression --reasons 2",
    ],
    # three scripted models over a few checkout cases, one at a time so the judge's cache hits
    # fall the same way on every run of the example
    "sweep": [
        "inspect eval-set commerce_evals/checkout --model-spec '{model: commerce/reference}'"
        f' --model-spec "{FLAWED_A}" --model-spec "{FLAWED_B}"'
        f" --sample-id {','.join(SWEEP_CASES)} --model-role grader=commerce/judge --epochs 2"
        " --max-tasks 1 --max-samples 1 --log-dir logs/sweep",
        "commerce-evals compare logs/sweep",
    ],
    # the example traffic judged twice, by a judge that passes everything and one that fails it
    "production": [
        f"inspect eval commerce_evals/production -T traffic={TRAFFIC} -T dimensions=budget_respected"
        " --model none --model-role grader=commerce/judge-pass --log-dir logs/production",
        f"inspect eval commerce_evals/production -T traffic={TRAFFIC} -T dimensions=budget_respected"
        " --model none --model-role grader=commerce/judge-fail --log-dir logs/production",
        "commerce-evals trends logs/production --out logs/production/trends.png",
    ],
}


@dataclass(frozen=True)
class Ran:
    command: str
    output: str  # stdout of a commerce-evals command; "" for an inspect run
    exit_code: int


class ScenarioError(RuntimeError):
    pass


def _argv(command: str) -> list[str]:
    words = shlex.split(command)
    if words[0] == "inspect":
        return [sys.executable, "-m", "inspect_ai", *words[1:], "--display", "none"]
    if words[0] == "commerce-evals":
        return [sys.executable, "-c", "from commerce_evals.cli.app import app; app()", *words[1:]]
    raise ScenarioError(f"not a command of a scenario: {command}")


def run_scenario(name: str) -> list[Ran]:
    """Every command of the scenario, in order, in a fresh folder; data paths are the checkout's."""
    root = checkout_root()
    if root is None:
        raise ScenarioError("the sample outputs are made in a clone of the repository")
    ran: list[Ran] = []
    with tempfile.TemporaryDirectory(prefix=f"commerce-docgen-{name}-") as folder:
        work = Path(folder)
        (work / "datasets").symlink_to(root / "datasets")  # the doc's relative traffic path
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]),
            "INSPECT_CACHE_DIR": str(work / "cache"),
            "INSPECT_LOG_DIR": str(work / "logs"),
        }
        for command in SCENARIOS[name]:
            done = subprocess.run(
                _argv(command), cwd=work, env=env, capture_output=True, text=True, check=False
            )
            inspect_run = command.startswith("inspect ")
            if done.returncode not in ((0,) if inspect_run else (0, 1)):
                raise ScenarioError(
                    f"{command}: exit {done.returncode}\n{done.stderr[-2000:] or done.stdout[-2000:]}"
                )
            ran.append(Ran(command, "" if inspect_run else done.stdout, done.returncode))
    return ran


class Scenarios:
    """Each scenario run once, when a block first asks for it."""

    def __init__(self) -> None:
        self._ran: dict[str, list[Ran]] = {}

    def ran(self, name: str) -> list[Ran]:
        if name not in self._ran:
            self._ran[name] = run_scenario(name)
        return self._ran[name]

    def output(self, name: str, command: str) -> str:
        for done in self.ran(name):
            if done.command == command:
                return done.output
        raise ScenarioError(f"scenario {name} has no command {command}")
