"""Logs the run-pattern tests read, each made once per test process by the scripted providers.

The sweep runs a fixed subset of checkout cases under three scripted "models" with two epochs
and the scripted judge bound to the grader role:
  commerce/reference   replays every case's reference: everything passes;
  commerce/flawed-a    fails A_FAIL every epoch and A_FLAKY every other attempt;
  commerce/flawed-b    fails B_FAIL every epoch.
Inspect's cache is off: a scripted model must not be served another model's cached answer.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from functools import cache
from pathlib import Path

from inspect_ai import eval, eval_set
from inspect_ai.log import list_eval_logs, read_eval_log, write_eval_log
from inspect_ai.model import get_model

from commerce_evals.checkout import checkout

REGRESSION = [
    "checkout-001-cart-seen-product",
    "checkout-002-unseen-id-refinds-first",
    "checkout-017-summary-asks-for-yes",
    "checkout-018-order-after-explicit-yes",
    "checkout-019-ambiguous-reply-no-order",
    "checkout-020-no-order-without-summary",
    "checkout-028-order-status-updated-date",
]
OTHERS = [
    "checkout-003-unseen-name-searches-first",
    "checkout-012-remove-line",
    "checkout-022-view-cart-no-skill",
    "checkout-029-order-status-corrects-stale-date",
]
SUBSET = REGRESSION + OTHERS
EPOCHS = 2
A_FAIL = ["checkout-017-summary-asks-for-yes", "checkout-029-order-status-corrects-stale-date"]
A_FLAKY = ["checkout-003-unseen-name-searches-first"]
B_FAIL = ["checkout-001-cart-seen-product", "checkout-017-summary-asks-for-yes"]
MODELS = ["commerce/flawed-a", "commerce/flawed-b", "commerce/reference"]
ROOT = Path(tempfile.mkdtemp(prefix="run-pattern-"))


@cache
def sweep_dir() -> Path:
    log_dir = ROOT / "sweep"
    models = [
        get_model("commerce/reference"),
        get_model("commerce/flawed-a", fail=",".join(A_FAIL), flaky=",".join(A_FLAKY)),
        get_model("commerce/flawed-b", fail=",".join(B_FAIL)),
    ]
    ok, logs = eval_set(
        [checkout()],
        model=models,
        model_roles={"grader": "commerce/judge"},
        log_dir=str(log_dir),
        epochs=EPOCHS,
        sample_id=SUBSET,
        cache=False,
        display="none",
        retry_attempts=0,
    )
    assert ok, [log.error for log in logs]
    return log_dir


def sweep_log(model: str) -> Path:
    """The sweep's log file of one model."""
    for info in list_eval_logs(str(sweep_dir())):
        path = Path(info.name.removeprefix("file://"))
        if read_eval_log(str(path), header_only=True).eval.model == model:
            return path
    raise LookupError(model)


@cache
def regression_dir() -> Path:
    """The regression set run the way the docs say: one task source, the set's own epochs, a
    judge bound (without one its rubric cases need review and the gate fails)."""
    from commerce_evals.case_set import case_set

    log_dir = ROOT / "regression"
    logs = eval(
        case_set(set="regression"),
        model="commerce/reference",
        model_roles={"grader": "commerce/judge"},
        log_dir=str(log_dir),
        cache=False,
        display="none",
    )
    assert all(log.status == "success" for log in logs), [log.error for log in logs]
    return log_dir


@cache
def production_dir(traffic: str, judge: str) -> Path:
    """A production task run over a traffic file, judged by a scripted judge; no agent model."""
    from commerce_evals.production import production

    log_dir = ROOT / f"production-{Path(traffic).stem}-{judge.split('/')[-1]}"
    [log] = eval(
        production(traffic=traffic),
        model="none",
        model_roles={"grader": judge},
        log_dir=str(log_dir),
        display="none",
    )
    assert log.status == "success", log.error
    return log_dir


@atexit.register
def _cleanup() -> None:
    shutil.rmtree(ROOT, ignore_errors=True)


RUBRIC_CASES = [
    "checkout-028-order-status-updated-date",
    "checkout-029-order-status-corrects-stale-date",
]


def judged_ids(grader: str | None) -> list[str]:
    """The SUBSET cases a judge rules on: with no grader bound only the cases that ask for a
    rubric or a dimension (they need review); with one bound, every case, since
    claims_match_state and no_invented_facts join every case then."""
    return sorted(RUBRIC_CASES if grader is None else SUBSET)


@cache
def judged_log(grader: str | None, judge: str = "on") -> Path:
    """SUBSET replayed from the references (one epoch) under `commerce/flawed-<label>`, a name of
    its own, judged by `grader` (None: no grader bound), with `-T judge=<judge>`."""
    label = f"{(grader or 'nograder').split('/')[-1]}-{judge}"
    log_dir = ROOT / f"judged-{label}"
    [log] = eval(
        checkout(judge=judge),
        model=get_model(f"commerce/flawed-{label}"),
        model_roles={"grader": grader} if grader else None,
        log_dir=str(log_dir),
        sample_id=SUBSET,
        cache=False,
        display="none",
    )
    assert log.status == "success", log.error
    return Path(log.location)


CANCELLED_KEEPS = REGRESSION[:4]  # 001 fails under flawed-b


@cache
def cancelled_log() -> Path:
    """flawed-b's sweep log as Inspect leaves a run cancelled part way: fewer samples, status
    cancelled. Named commerce/flawed-cancelled so a comparison can hold it beside the sweep."""
    log = read_eval_log(str(sweep_log("commerce/flawed-b")))
    log.samples = [s for s in log.samples or [] if s.id in CANCELLED_KEEPS]
    log.status = "cancelled"
    log.eval.model = "commerce/flawed-cancelled"
    log.eval.eval_id = f"cancelled-{log.eval.eval_id}"  # a run of its own, as a real one would be
    log.eval.run_id = f"cancelled-{log.eval.run_id}"
    for sample in log.samples:
        sample.uuid = f"cancelled-{sample.uuid}"
    path = ROOT / "cancelled" / "cancelled.eval"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_eval_log(log, str(path))
    return path


OTHER_FLOW = ["discovery-001-road-shoes-under-budget", "discovery-002-small-talk-no-ui"]


@cache
def other_flow_log() -> Path:
    """A run of another flow (discovery), under a model name of its own."""
    from commerce_evals.discovery import discovery

    [log] = eval(
        discovery(),
        model=get_model("commerce/flawed-discovery"),
        model_roles={"grader": "commerce/judge"},
        log_dir=str(ROOT / "discovery"),
        sample_id=OTHER_FLOW,
        cache=False,
        display="none",
    )
    assert log.status == "success", log.error
    return Path(log.location)
