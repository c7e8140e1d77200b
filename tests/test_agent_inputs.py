"""What `-T agent=` and `-T tools=` refuse, each in one `error:` line that names the file, the
place and the fix (exit 2), and what a good tools file changes: the words the model reads, the
fingerprint of the tools, and nothing else."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.event import ModelEvent

from commerce_evals.cases.errors import InputError, report
from commerce_evals.checkout import checkout
from commerce_evals.domains.worlds import cached_world
from commerce_evals.harness.tool_descriptions import ToolsFileError
from tests.agent_ways import same_verdicts
from tests.conftest import DATA
from tests.helpers import REPO_ROOT, SCRIPTED_JUDGE, subprocess_env

AGENTS = DATA / "agents"
TOOLS_FILE = AGENTS / "tools_checkout.yaml"
ONE_CASE = "checkout-001-cart-seen-product"


def first_line(build: object) -> str:
    with pytest.raises(InputError) as caught:
        build()  # type: ignore[operator]
    assert caught.value.exit_code == 2
    return report(caught.value).splitlines()[0]


NOT_AGENT = str(AGENTS / "not_agents.py")
BAD_AGENTS = [
    ("no-at", "examples/agents/react_agent.py", "write -T agent=FILE.py@NAME"),
    ("no-file", "agents/missing.py@shop", "no such file agents/missing.py"),
    ("not-python", "README.md@shop", "README.md is not a Python file"),
    (
        "misspelt-name",
        "examples/agents/react_agent.py@shop_asistant",
        "examples/agents/react_agent.py defines no 'shop_asistant'; its @agent factories: "
        "react, shop_assistant",
    ),
    (
        "not-an-agent",
        f"{NOT_AGENT}@plain_function",
        f"plain_function in {NOT_AGENT} is not an Inspect agent: decorate its factory with "
        "@agent (from inspect_ai.agent) (its @agent factories: no_tools, silent, wants_more)",
    ),
    ("no-tools-parameter", f"{NOT_AGENT}@no_tools", "no_tools takes no 'tools' argument"),
    ("more-arguments", f"{NOT_AGENT}@wants_more", "needs arguments the harness does not give"),
    (
        "import-fails",
        f"{AGENTS / 'broken.py'}@shop",
        "RuntimeError: the agent module failed on purpose",
    ),
    ("no-module", "no_such_package.agents@shop", "cannot import module no_such_package.agents"),
]


@pytest.mark.parametrize(
    ("value", "says"), [r[1:] for r in BAD_AGENTS], ids=[r[0] for r in BAD_AGENTS]
)
def test_a_bad_agent_is_one_error_line(value: str, says: str) -> None:
    line = first_line(lambda: checkout(agent=value))
    assert line.startswith(f"error: -T agent={value}: "), line
    assert says in line, line


def _tools(tmp_path: Path, text: str) -> str:
    path = tmp_path / "tools.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path)


BAD_TOOLS = [
    (
        "unknown-tool",
        "serch_products:\n  description: Find things.\n",
        "{path}: serch_products: the shopper agent has no tool 'serch_products'; did you mean "
        "search_products? its tools: add_to_cart,",
    ),
    (
        "unknown-argument",
        "search_products:\n  arguments:\n    qurey: What to find.\n",
        "{path}: search_products.arguments.qurey: search_products takes no argument 'qurey'; "
        "did you mean query? its arguments:",
    ),
    (
        "a-type-instead-of-words",
        "search_products:\n  arguments:\n    query: {type: integer}\n",
        "{path}: search_products.arguments.query: Input should be a valid string; only an "
        "argument's description can change, never its type",
    ),
    (
        "an-unknown-key",
        "search_products:\n  parameters: {}\n",
        "{path}: search_products.parameters: Extra inputs are not permitted; a tool takes "
        "`description` and `arguments`",
    ),
    ("empty", "", "{path}: (file): names no tool"),
    ("a-list", "- search_products\n", "{path}: (file): Input should be a valid dictionary"),
]


@pytest.mark.parametrize(
    ("text", "says"), [r[1:] for r in BAD_TOOLS], ids=[r[0] for r in BAD_TOOLS]
)
def test_a_bad_tools_file_is_one_error_line_naming_file_and_place(
    tmp_path: Path, text: str, says: str
) -> None:
    path = _tools(tmp_path, text)
    with pytest.raises(ToolsFileError) as caught:
        checkout(tools=path)
    assert report(caught.value).splitlines()[0].startswith("error: " + says.format(path=path))


def test_a_tools_file_changes_the_words_the_model_reads_and_the_fingerprint_only() -> None:
    plain = checkout(cases=ONE_CASE)
    described = checkout(cases=ONE_CASE, tools=str(TOOLS_FILE))
    assert plain.metadata and described.metadata
    assert plain.metadata["tools_sha"] != described.metadata["tools_sha"]
    assert described.metadata["tools_file"] == str(TOOLS_FILE)
    assert len(described.metadata["tools_file_sha"]) == 16
    [log] = eval(described, model="commerce/reference", model_roles=SCRIPTED_JUDGE, display="none")
    assert same_verdicts(log, "checkout") == {}
    [sample] = log.samples or []
    offered = {
        tool.name: tool
        for event in sample.events
        if isinstance(event, ModelEvent)
        for tool in event.tools
    }
    search = offered["search_products"]
    assert search.description.startswith("Look up products in the store's catalog")
    assert search.parameters.properties["query"].description == (
        "The shopper's words, cut to what matters."
    )
    # the types and required arguments are the domain's
    assert search.parameters.properties["query"].type == "string"
    # a tool the file leaves out keeps the domain's words
    shopper = {t.name: t for t in cached_world("shop", None, False).agents["shopper"].tools}
    assert offered["view_cart"].description == shopper["view_cart"].description


def test_the_cli_prints_one_error_line_and_exits_2(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable, "-m", "inspect_ai", "eval", "commerce_evals/checkout",
            "-T", "agent=examples/agents/react_agent.py@nobody", "--model", "commerce/reference",
        ],
        cwd=REPO_ROOT, env=subprocess_env(), capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(
        "error: -T agent=examples/agents/react_agent.py@nobody: examples/agents/react_agent.py "
        "defines no 'nobody'"
    ), done.stderr
    assert "Traceback" not in done.stderr


def test_a_set_run_takes_the_agent_to_every_flow() -> None:
    from commerce_evals.case_set import case_set_flow

    task = case_set_flow(
        flow="checkout", set="checkout", agent="examples/agents/react_agent.py@shop_assistant"
    )
    assert task.metadata is not None
    assert task.metadata["agent_under_test"] == "examples/agents/react_agent.py@shop_assistant"
