"""A served case as an MCP server (the official `mcp` package, its low-level Server), over stdio
or streamable HTTP on 127.0.0.1.

What a client sees:
- tools: the domain's tools with their schemas and descriptions exactly as a flow offers them
  (with a team's `--tools` descriptions), and two for the conversation: `read_message` (the
  person's message waiting for a reply) and `send_reply` (answer it; the answer to the call is
  the person's next message, or the end of the conversation);
- instructions: the case's rendered instructions, which carry its injected state (the server's
  `instructions`, a resource and the `start` prompt give the same text), and how to converse;
- resources: `case://instructions` and `case://state` (the injected state as JSON);
- prompts: `start`, the instructions and the person's first message, for a client where a person
  starts the conversation by picking a prompt (a Claude Desktop attachment, a Claude Code slash
  command).

A domain tool's answer is the session's JSON, as a flow's model reads it; a call that did not run
(arguments that do not fit the schema, an unknown tool, past the cap) is an error result saying
why, and recorded as a flow records it.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server

from commerce_evals.serving.served_case import CallNotRun, ConversationOver, ServedCase

READ = "read_message"
REPLY = "send_reply"
INSTRUCTIONS_URI = "case://instructions"
STATE_URI = "case://state"

HOW_TO_CONVERSE = (
    "You are talking with a person through this server. Call read_message to read their "
    "message, use the other tools as you need, and answer with send_reply: the person reads only "
    "what you send there, and its answer is their next message. Stop when it says the "
    "conversation is over."
)

CONVERSATION_TOOLS = [
    types.Tool(
        name=READ,
        description="The message of the person you are helping that waits for your reply. Call "
        "it first.",
        input_schema={"type": "object", "properties": {}, "additionalProperties": False},
    ),
    types.Tool(
        name=REPLY,
        description="Send your reply to the person. It ends your turn: the answer is the "
        "person's next message, or a note that the conversation is over.",
        input_schema={
            "type": "object",
            "properties": {"text": {"type": "string", "description": "Your reply, in full."}},
            "required": ["text"],
            "additionalProperties": False,
        },
    ),
]


def _text(text: str, error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=error)


def server_instructions(served: ServedCase) -> str:
    return f"{served.instructions}\n\n{HOW_TO_CONVERSE}"


def mcp_server(served: ServedCase) -> Server[Any]:
    """The MCP server of one served case."""
    domain_tools = [
        types.Tool(name=spec.name, description=spec.description, input_schema=spec.parameters)
        for spec in served.sandbox.tools
    ]
    clash = {t.name for t in domain_tools} & {READ, REPLY}
    assert not clash, f"domain tools named like the conversation's: {clash}"

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[*CONVERSATION_TOOLS, *domain_tools])

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        args = dict(params.arguments or {})
        if params.name == READ:
            return _text(await served.read_message())
        if params.name == REPLY:
            text = args.get("text")
            if not isinstance(text, str):
                return _text("send_reply needs your reply as `text`.", error=True)
            return _text(await served.send_reply(text))
        try:
            answer = await served.call(params.name, args)
        except (CallNotRun, ConversationOver) as not_run:
            return _text(str(not_run), error=True)
        return _text(json.dumps(answer, default=str))

    async def list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    name="instructions",
                    uri=INSTRUCTIONS_URI,
                    description="Your instructions for this conversation, with what you know "
                    "at its start.",
                    mime_type="text/plain",
                ),
                types.Resource(
                    name="state",
                    uri=STATE_URI,
                    description="The state this conversation starts from, as data.",
                    mime_type="application/json",
                ),
            ]
        )

    async def read_resource(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        if uri == INSTRUCTIONS_URI:
            text, mime = served.instructions, "text/plain"
        elif uri == STATE_URI:
            text, mime = json.dumps(served.injected_state, indent=1), "application/json"
        else:
            raise ValueError(f"no resource {uri}; resources: {INSTRUCTIONS_URI}, {STATE_URI}")
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type=mime, text=text)]
        )

    async def list_prompts(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        return types.ListPromptsResult(
            prompts=[
                types.Prompt(
                    name="start",
                    description=f"Start case {served.case.id}: your instructions and the "
                    "person's first message.",
                )
            ]
        )

    async def get_prompt(
        ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        if params.name != "start":
            raise ValueError(f"no prompt {params.name}; prompts: start")
        first = await served.read_message()
        text = (
            f"{server_instructions(served)}\n\nThe person's message:\n{first}"
            if not served.over
            else first
        )
        return types.GetPromptResult(
            messages=[
                types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))
            ]
        )

    return Server(
        "commerce-evals",
        instructions=server_instructions(served),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )


async def serve_stdio(served: ServedCase) -> None:
    """Serve over this process's stdin and stdout until the client closes them."""
    server = mcp_server(served)
    try:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    finally:
        served.close()


async def serve_http(served: ServedCase, port: int) -> None:
    """Serve streamable HTTP on 127.0.0.1:port (path /mcp) until the process is stopped."""
    import uvicorn

    app = mcp_server(served).streamable_http_app(host="127.0.0.1")
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    try:
        await uvicorn.Server(config).serve()
    finally:
        served.close()
