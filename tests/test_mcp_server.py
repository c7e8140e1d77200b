"""The sandbox as an MCP server, driven by the `mcp` client library as the agent (in-process; the
subprocess servers over stdio and HTTP are in the slow tier): every dealer case (chained cases
among them), a conversation of every other flow and a counterexample, replayed through MCP and
graded from their run files, get the built-in loop's verdicts; the client sees the domain's tools
exactly as a flow offers them and the case's injected state; `grade` prints the verdict and exits
by it."""

from __future__ import annotations

import asyncio
import json
from importlib import import_module
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog
from typer.testing import CliRunner

from commerce_evals.cli.app import app
from commerce_evals.harness.flow_inputs import flow_parts
from commerce_evals.harness.run_file import read_run_file
from tests.agent_ways import built_in_verdicts, conversation_case, same_verdicts
from tests.helpers import SCRIPTED_JUDGE
from tests.verdict_record import verdicts

pytest.importorskip("mcp")

from mcp import Client  # noqa: E402

from commerce_evals.serving.mcp_server import mcp_server  # noqa: E402
from commerce_evals.serving.served_case import serve_case  # noqa: E402
from tests.mcp_replay import replay  # noqa: E402

OTHER_FLOWS = ["checkout", "discovery", "memory", "merchant", "injection", "support"]


async def _serve_and_replay(flow: str, case_id: str, record: Path, variant: str | None) -> None:
    served = serve_case(flow, case_id, record, agent="mcp replay")
    turn_ending = frozenset(spec.name for spec in served.sandbox.tools if spec.ends_turn)
    async with Client(mcp_server(served)) as client:
        await replay(client, served.case, turn_ending, variant)


def replayed(flow: str, folder: Path, case_ids: list[str], variant: str | None = None) -> None:
    for case_id in case_ids:
        asyncio.run(_serve_and_replay(flow, case_id, folder / f"{case_id}.json", variant))


def graded(flow: str, folder: Path, **args: object) -> EvalLog:
    task = getattr(import_module(f"commerce_evals.{flow}"), flow)(recorded=str(folder), **args)
    [log] = eval(task, model="none", model_roles=SCRIPTED_JUDGE, display="none")
    assert log.status == "success", log.error
    return log


def test_every_dealer_case_over_mcp_gets_the_built_in_verdict(tmp_path: Path) -> None:
    cases = [case.id for _, case in flow_parts("dealer").sources if not case.skip]
    replayed("dealer", tmp_path, cases)
    log = graded("dealer", tmp_path)
    assert len(log.samples or []) == len(cases) == 39
    assert same_verdicts(log, "dealer") == {}
    assert log.eval.metadata and log.eval.metadata["agent_under_test"] == "recorded: mcp replay"


@pytest.mark.parametrize("flow", OTHER_FLOWS)
def test_a_conversation_over_mcp_gets_the_built_in_verdict(flow: str, tmp_path: Path) -> None:
    case = conversation_case(flow)
    replayed(flow, tmp_path, [case])
    record = read_run_file(tmp_path / f"{case}.json")
    assert record.complete and len(record.run.turns) >= 2
    assert same_verdicts(graded(flow, tmp_path), flow) == {}


def test_a_counterexample_over_mcp_fails_the_keys_it_names(tmp_path: Path) -> None:
    case, name = "support-033-address-placed-order", "changes-the-address-on-file-too"
    replayed("support", tmp_path, [case], name)
    [found] = verdicts(graded("support", tmp_path, judge="off")).values()
    # the built-in loop's verdict on the same counterexample, code-only as the record runs it
    assert found == built_in_verdicts("support", "counterexamples")[f"{case}~{name}@1"]
    assert found["failed_keys"] == ["changes", "state"]


def test_the_client_sees_the_flows_tools_and_the_injected_state(tmp_path: Path) -> None:
    case_id = "checkout-015-price-changed-since-seen"
    served = serve_case("checkout", case_id, tmp_path / "run.json")

    async def look() -> tuple[list, str, str, str]:
        async with Client(mcp_server(served)) as client:
            tools = (await client.list_tools()).tools
            state = (await client.read_resource("case://state")).contents[0].text
            prompt = (await client.get_prompt("start")).messages[0].content.text
            return tools, state, prompt, client.instructions or ""

    tools, state, prompt, instructions = asyncio.run(look())
    offered = {spec.name: spec for spec in served.parts.offered.tools}
    by_name = {tool.name: tool for tool in tools}
    assert set(by_name) == {*offered, "read_message", "send_reply"}
    for name, spec in offered.items():
        assert by_name[name].description == spec.description
        assert by_name[name].input_schema == spec.parameters
    seen = served.case.state["seen_products"]
    assert json.loads(state)["seen_products"] == seen
    # what the built-in agent is told at session start is in the instructions and the prompt
    for product in seen:
        product_id = product if isinstance(product, str) else product["product_id"]
        assert product_id in instructions and product_id in prompt
    assert prompt.endswith(served.case.turns[0])


def test_a_call_off_the_schema_is_refused_and_recorded(tmp_path: Path) -> None:
    served = serve_case("support", "support-033-address-placed-order", tmp_path / "run.json")

    async def call() -> tuple[bool, str]:
        async with Client(mcp_server(served)) as client:
            await client.call_tool("read_message", {})
            result = await client.call_tool("find_customer", {"name": "Leila Haddad"})
            await client.call_tool("send_reply", {"text": "Could you give me your ZIP code?"})
            return bool(result.is_error), result.content[0].text

    error, text = asyncio.run(call())
    assert error and "'zip' is a required property" in text
    [refused] = read_run_file(tmp_path / "run.json").run.turns[0].results()
    assert (refused.status, refused.tool) == ("refused", "find_customer")


def test_grade_prints_the_verdict_and_exits_by_it(tmp_path: Path) -> None:
    case = "support-033-address-placed-order"
    replayed("support", tmp_path / "good", [case])
    replayed("support", tmp_path / "bad", [case], "changes-the-address-on-file-too")
    runner = CliRunner()
    logs = ["--log-dir", str(tmp_path / "logs"), "--judge", "commerce/judge"]
    good = runner.invoke(
        app, ["grade", str(tmp_path / "good" / f"{case}.json"), "--case", case, *logs]
    )
    assert good.exit_code == 0, good.output
    assert "\nPASS\n" in good.output and "log: " in good.output
    bad = runner.invoke(app, ["grade", str(tmp_path / "bad" / f"{case}.json"), *logs])
    assert bad.exit_code == 1, bad.output
    assert "FAIL on outcome/changes, outcome/state" in bad.output
    other = runner.invoke(
        app, ["grade", str(tmp_path / "bad" / f"{case}.json"), "--case", "support-001-x"]
    )
    assert other.exit_code == 2
    assert f"a run of case {case}, not of --case support-001-x" in other.output


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["serve", "suport", "--case", "x"], "error: suport: no such flow; flows: checkout"),
        (
            ["serve", "support", "--case", "support-033-adress-placed-order"],
            "error: --case support-033-adress-placed-order: no case of flow 'support' has this "
            "id; did you mean support-033-address-placed-order",
        ),
        (
            ["serve", "support", "--case", "support-033-address-placed-order", "--tools", "x.yaml"],
            "error: x.yaml: no such file",
        ),
    ],
)
def test_serve_refuses_in_one_line(args: list[str], says: str) -> None:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert result.output.startswith(says), result.output
