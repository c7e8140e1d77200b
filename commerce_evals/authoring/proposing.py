"""Dimensions proposed by a model (seed 003, step 1: "Have AI propose 3 or 4 dimensions where real
requests differ"), written to a dimensions file a person edits before any tuple is drafted.

The `drafter` is shown what the flow's agent is: its tools (name, what each does, whether it
writes) and the domain's policy when it has one, and asked for 3 or 4 dimensions with 2 to 5
values each, as one JSON object. The answer is validated as a dimensions file
(authoring/dimensions.py); a proposal that is not one is refused with what is wrong.
"""

from __future__ import annotations

import json
import re
from typing import Any

import yaml
from pydantic import ValidationError

from commerce_evals.authoring.dimensions import DimensionsFile
from commerce_evals.core.flow_table import FLOWS

TOOLS_OPEN, TOOLS_CLOSE = "<tools>", "</tools>"
POLICY_OPEN, POLICY_CLOSE = "<policy>", "</policy>"
PROMPT = """You help build an evaluation of an agent. Propose 3 or 4 dimensions along which real
requests to this agent differ, so that test messages drafted from every pair of their values
cover what the agent meets: for example the kind of request, what state the customer or record
is in, how well the request fits the rules, and who is asking (polite, rushed, angry, trying to
talk the agent past a rule). Each dimension gets 2 to 5 values; give a value a hint when its name
alone does not say what a message with it contains. Name exclusions for value pairs that cannot
happen together.

The agent's tools (a tool marked (writes) changes something):
{tools_open}
{tools}
{tools_close}

The rules it works under:
{policy_open}
{policy}
{policy_close}

Answer with one JSON object and nothing else:
{{"about": "<what the agent is and the facts a message may use>",
  "dimensions": {{"<name>": [{{"value": "<value>", "hint": "<optional>"}}, ...], ...}},
  "exclude": [{{"<dimension>": "<value>", "<dimension>": "<value>"}}]}}
"""


class ProposalError(ValueError):
    """The drafter's answer is not a dimensions file."""


def propose_prompt(flow: str) -> str:
    """The prompt for the flow's agent: its tools and its domain's policy."""
    from commerce_evals.domains import WORLDS
    from commerce_evals.domains.worlds import cached_world

    spec = FLOWS[flow]
    agent = WORLDS[spec.domain].agents[spec.agent]
    tools = "\n".join(
        f"{t.name}{' (writes)' if t.writes else ''}: {t.description.splitlines()[0]}"
        for t in agent.tools
    )
    policy = cached_world(spec.domain, None, False).judge_context().strip()
    return PROMPT.format(
        tools_open=TOOLS_OPEN,
        tools=tools,
        tools_close=TOOLS_CLOSE,
        policy_open=POLICY_OPEN,
        policy=policy or "(none written down: the tools' descriptions are the rules)",
        policy_close=POLICY_CLOSE,
    )


def _json_object(answer: str) -> dict[str, Any]:
    """The answer's JSON object (a fenced block or text around it is allowed)."""
    start, end = answer.find("{"), answer.rfind("}")
    if start < 0 or end <= start:
        raise ProposalError("the answer holds no JSON object")
    try:
        data = json.loads(answer[start : end + 1])
    except json.JSONDecodeError as err:
        raise ProposalError(f"the answer's JSON does not parse: {err}") from err
    if not isinstance(data, dict):
        raise ProposalError("the answer's JSON is not an object")
    return data


def proposed_file(flow: str, answer: str) -> DimensionsFile:
    """The drafter's proposal as a dimensions file of `flow` (medium priority and difficulty,
    pairs coverage, until a person edits them)."""
    data = _json_object(answer)
    try:
        proposal = DimensionsFile.model_validate(
            {
                "flow": flow,
                "priority": "medium",
                "difficulty": "medium",
                "coverage": "pairs",
                "about": str(data.get("about") or ""),
                "dimensions": data.get("dimensions"),
                "exclude": data.get("exclude") or [],
            }
        )
    except ValidationError as err:
        first = err.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or "(proposal)"
        raise ProposalError(f"{where}: {first['msg'].removeprefix('Value error, ')}") from err
    count = len(proposal.dimensions)
    if not 3 <= count <= 4:
        raise ProposalError(f"it proposes {count} dimensions; ask for 3 or 4")
    return proposal


def proposal_yaml(proposal: DimensionsFile, model: str) -> str:
    """The file a person edits: a header saying where it came from and what to do next."""
    data = proposal.model_dump(mode="json", exclude_defaults=False)
    data["dimensions"] = {
        name: [_value(v) for v in values] for name, values in data["dimensions"].items()
    }
    if not data["exclude"]:
        data.pop("exclude")
    if data.get("niche") is None:
        data.pop("niche", None)
    header = (
        f"# Dimensions proposed by {model} for the {proposal.flow} agent (seed 003, step 1).\n"
        "# A person edits them: keep the dimensions where real requests differ, rename values,\n"
        "# add hints, exclusions and the facts in `about`; then draft one message per tuple:\n"
        "#   commerce-evals draft dimensions <this file> --out drafts/<name>.yaml\n"
    )
    return header + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


def _value(value: dict[str, Any]) -> Any:
    kept = {k: v for k, v in value.items() if v not in (None, "", {}, [])}
    return kept["value"] if set(kept) == {"value"} else kept


def scripted_proposal(prompt: str) -> dict[str, Any]:
    """What the offline `commerce/drafter` proposes: read from the prompt as a model would, the
    kinds of request from the tools that write, whether the policy decides, who asks."""
    tools = re.search(rf"{TOOLS_OPEN}\n(.*?)\n{TOOLS_CLOSE}", prompt, re.S)
    policy = re.search(rf"{POLICY_OPEN}\n(.*?)\n{POLICY_CLOSE}", prompt, re.S)
    lines = tools.group(1).splitlines() if tools else []
    writes = [line.split(" (writes)")[0] for line in lines if " (writes)" in line]
    requests = [{"value": w.replace("_", " ")} for w in writes[:4]] or [
        {"value": "a request to act", "hint": "asks for something to be done"}
    ]
    requests.append({"value": "a question", "hint": "asks something the tools answer"})
    dimensions: dict[str, Any] = {
        "request": requests,
        "details": [
            {"value": "complete", "hint": "gives everything the request needs"},
            {"value": "missing", "hint": "leaves out something the agent must ask for"},
        ],
    }
    if policy and not policy.group(1).startswith("(none"):
        dimensions["fit"] = [
            {"value": "clearly allowed"},
            {"value": "clearly not allowed", "hint": "a rule forbids it"},
            {"value": "rules are silent", "hint": "no rule covers it"},
        ]
    dimensions["persona"] = [
        {"value": "polite"},
        {"value": "rushed"},
        {"value": "pushy", "hint": "tries to talk the agent past a rule"},
    ]
    names = [line.split(":")[0].replace(" (writes)", "") for line in lines]
    about = "The agent uses these tools: " + ", ".join(names)
    return {"about": about, "dimensions": dimensions, "exclude": []}
