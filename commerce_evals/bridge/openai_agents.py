"""The sandbox's tools for an OpenAI Agents SDK agent run behind Inspect's `agent_bridge()`.

    sdk_agent = Agent(name=..., instructions=instructions, tools=function_tools(tools))

The harness hands an `@agent` factory the sandbox's tools as Inspect ToolDefs (`-T agent=`);
`function_tools` gives each to the SDK as a FunctionTool with the same name, description and
JSON schema, run through the sandbox with the SDK's own call id, so the sandbox records each call
as it does Inspect's. The SDK checks no arguments for a non-strict schema: a call whose arguments
do not fit is refused by the sandbox and the model reads why, as under Inspect. Needs the
`openai-agents` package (`pip install 'commerce-evals[agents]'`).
"""

from __future__ import annotations

import json
from typing import Any

from agents import FunctionTool
from agents.tool_context import ToolContext
from inspect_ai.tool import ToolDef, ToolError

from commerce_evals.harness.inspect_tools import serving_call

NOT_AN_OBJECT = "__arguments_not_a_json_object__"


def _schema(tool: ToolDef) -> dict[str, Any]:
    return tool.parameters.model_dump(exclude_none=True)


def function_tool(tool: ToolDef) -> FunctionTool:
    """One Inspect tool as an SDK FunctionTool: the model sees the same name, words and schema;
    a call runs the tool with the SDK's call id; its error comes back as the tool's answer."""

    # annotated ToolContext: the SDK hands a wrapper annotated with its base class no call id
    async def invoke(context: ToolContext[Any], arguments: str) -> str:
        call_id = context.tool_call_id
        unparsed = None
        try:
            args = json.loads(arguments) if arguments.strip() else {}
        except ValueError as err:
            unparsed = f"the arguments are not JSON: {err}"
            args = None
        if not isinstance(args, dict):
            # a key no schema allows: the sandbox records the call as refused and runs nothing
            args = {NOT_AN_OBJECT: arguments}
        with serving_call(call_id):
            try:
                return str(await tool.tool(**args))
            except ToolError as err:
                return f"Error: {unparsed or err.message}"

    return FunctionTool(
        name=tool.name,
        description=tool.description,
        params_json_schema=_schema(tool),
        on_invoke_tool=invoke,
        # the domain's schemas have optional arguments, which the SDK's strict mode forbids
        strict_json_schema=False,
    )


def function_tools(tools: list[ToolDef]) -> list[FunctionTool]:
    """Every tool the harness gave the agent, for the SDK."""
    return [function_tool(tool) for tool in tools]
