"""A local stand-in for Anthropic's Messages API that answers from the cases' reference runs.

It checks what the real API would refuse (tool names and input schemas, tool_result blocks that
answer every tool_use of the previous turn, alternating roles) and records every tool result it
is sent, so a test can see blocked results and errors arrive as the real API delivers them.
"""

from __future__ import annotations

import json
from typing import Any

from commerce_evals.scripted.providers import scripted_step
from tests.api_stub import TOOL_NAME, ApiError, StubLog, StubServer


def _blocks(content: Any) -> list[dict[str, Any]]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def _system_text(system: Any) -> str:
    if system is None:
        return ""
    return system if isinstance(system, str) else "".join(b.get("text", "") for b in system)


def check_tools(tools: list[dict[str, Any]]) -> None:
    names = set()
    for tool in tools:
        name = tool.get("name", "")
        if not TOOL_NAME.match(name) or name in names:
            raise ApiError(
                400, "invalid_request_error", f"tools: invalid or repeated name {name!r}"
            )
        names.add(name)
        schema = tool.get("input_schema")
        if not isinstance(schema, dict) or schema.get("type") != "object":
            raise ApiError(
                400, "invalid_request_error", f"tools.{name}.input_schema: type must be object"
            )
        if not isinstance(schema.get("properties", {}), dict):
            raise ApiError(400, "invalid_request_error", f"tools.{name}.input_schema.properties")
        for required in schema.get("required", []):
            if required not in schema.get("properties", {}):
                raise ApiError(
                    400,
                    "invalid_request_error",
                    f"tools.{name}: required {required!r} not in properties",
                )


def check_messages(messages: list[dict[str, Any]], log: StubLog) -> None:
    pending: set[str] = set()
    for index, message in enumerate(messages):
        role = message["role"]
        if index and messages[index - 1]["role"] == role:
            raise ApiError(
                400, "invalid_request_error", "roles must alternate between user and assistant"
            )
        blocks = _blocks(message["content"])
        if role == "assistant":
            pending = {b["id"] for b in blocks if b.get("type") == "tool_use"}
            continue
        answered = {b["tool_use_id"] for b in blocks if b.get("type") == "tool_result"}
        if pending - answered:
            raise ApiError(
                400,
                "invalid_request_error",
                f"tool_use ids without tool_result: {sorted(pending - answered)}",
            )
        pending = set()


def sse(message: dict[str, Any]) -> str:
    """The message as the streaming API sends it: start, a block at a time, delta, stop."""
    events: list[tuple[str, dict[str, Any]]] = [
        (
            "message_start",
            {"type": "message_start", "message": {**message, "content": [], "stop_reason": None}},
        ),
    ]
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            start = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events += [
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": start},
            ),
            (
                "content_block_delta",
                {"type": "content_block_delta", "index": index, "delta": delta},
            ),
            ("content_block_stop", {"type": "content_block_stop", "index": index}),
        ]
    events += [
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": message["usage"]["output_tokens"]},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events)


class AnthropicStub(StubServer):
    def respond(self, path: str, body: dict[str, Any], case_id: str | None) -> tuple[bytes, str]:
        if not path.rstrip("/").endswith("/v1/messages"):
            raise ApiError(404, "not_found_error", path)
        payload = self.answer(body, case_id)
        if body.get("stream"):
            return sse(payload).encode(), "text/event-stream"
        return json.dumps(payload).encode(), "application/json"

    def error_body(self, err: ApiError) -> dict[str, Any]:
        return {"type": "error", "error": {"type": err.kind, "message": err.message}}

    def answer(self, request: dict[str, Any], case_id: str | None = None) -> dict[str, Any]:
        self.log.requests += 1
        check_tools(request.get("tools", []))
        messages = request["messages"]
        check_messages(messages, self.log)
        user_texts: list[str] = []
        rounds = 0
        for message in messages:
            blocks = _blocks(message["content"])
            if message["role"] == "user":
                for block in blocks:
                    if block.get("type") == "tool_result":
                        self.log.tool_results.append(block)
                texts = [b["text"] for b in blocks if b.get("type") == "text" and b["text"].strip()]
                if texts:
                    user_texts.append(texts[-1])
                    rounds = 0
            else:
                rounds += 1
        case = self.case(case_id, _system_text(request.get("system")), user_texts)
        step = scripted_step(case.script, len(user_texts) - 1, rounds)
        content: list[dict[str, Any]] = []
        if step.text:
            content.append({"type": "text", "text": step.text})
        for call in step.tool_calls or []:
            content.append(
                {
                    "type": "tool_use",
                    "id": f"toolu_{call.id}",
                    "name": call.function,
                    "input": call.arguments,
                }
            )
        return {
            "id": f"msg_{self.log.requests}",
            "type": "message",
            "role": "assistant",
            "model": request["model"],
            "content": content or [{"type": "text", "text": ""}],
            "stop_reason": "tool_use" if step.tool_calls else "end_turn",
            "stop_sequence": None,
            "usage": self.usage or {"input_tokens": 10, "output_tokens": 5},
        }
