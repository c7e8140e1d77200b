"""A local stand-in for an OpenAI-compatible chat completions server (the API llama.cpp's server,
vLLM and Ollama expose) that answers from the cases' reference runs.

It checks what such a server refuses: function tools with an object schema and valid, unique
names; every assistant tool call answered by a `tool` message before the conversation goes on;
arguments sent back as a JSON string. It records every tool message it is sent.
"""

from __future__ import annotations

import json
import time
from typing import Any

from commerce_evals.scripted.providers import scripted_step
from tests.api_stub import TOOL_NAME, ApiError, StubServer


def _text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content if part.get("type") == "text")


def check_tools(tools: list[dict[str, Any]]) -> None:
    names: set[str] = set()
    for tool in tools:
        function = tool.get("function", {})
        name = function.get("name", "")
        if tool.get("type") != "function" or not TOOL_NAME.match(name) or name in names:
            raise ApiError(400, "invalid_request_error", f"tools: bad or repeated tool {name!r}")
        names.add(name)
        schema = function.get("parameters", {"type": "object"})
        if schema.get("type") != "object":
            raise ApiError(400, "invalid_request_error", f"tools.{name}.parameters: not an object")


def check_messages(messages: list[dict[str, Any]]) -> None:
    pending: set[str] = set()
    for message in messages:
        role = message["role"]
        if role == "tool":
            if message.get("tool_call_id") not in pending:
                raise ApiError(400, "invalid_request_error", "a tool message answers no tool call")
            pending.discard(message["tool_call_id"])
            continue
        if pending:
            raise ApiError(
                400, "invalid_request_error", f"tool calls unanswered: {sorted(pending)}"
            )
        if role == "assistant":
            for call in message.get("tool_calls") or []:
                json.loads(call["function"]["arguments"])  # must be a JSON string
                pending.add(call["id"])


def chunks(payload: dict[str, Any]) -> str:
    """The completion as a server streams it: one delta with everything, then the finish."""
    choice = payload["choices"][0]
    message = choice["message"]
    delta: dict[str, Any] = {"role": "assistant", "content": message["content"]}
    if message.get("tool_calls"):
        delta["tool_calls"] = [{"index": i, **c} for i, c in enumerate(message["tool_calls"])]
    base = {k: payload[k] for k in ("id", "object", "created", "model")}
    base["object"] = "chat.completion.chunk"
    events = [
        {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]},
        {**base, "choices": [], "usage": payload["usage"]},
    ]
    return "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"


class OpenAIStub(StubServer):
    def respond(self, path: str, body: dict[str, Any], case_id: str | None) -> tuple[bytes, str]:
        if not path.rstrip("/").endswith("/chat/completions"):
            raise ApiError(404, "not_found", path)
        payload = self.answer(body, case_id)
        if body.get("stream"):
            return chunks(payload).encode(), "text/event-stream"
        return json.dumps(payload).encode(), "application/json"

    def answer(self, request: dict[str, Any], case_id: str | None) -> dict[str, Any]:
        self.log.requests += 1
        check_tools(request.get("tools") or [])
        messages = request["messages"]
        check_messages(messages)
        system = "".join(
            _text(m["content"]) for m in messages if m["role"] in {"system", "developer"}
        )
        user_texts: list[str] = []
        rounds = 0
        for message in messages:
            if message["role"] == "user":
                user_texts.append(_text(message["content"]))
                rounds = 0
            elif message["role"] == "assistant":
                rounds += 1
            elif message["role"] == "tool":
                self.log.tool_results.append({"content": _text(message["content"])})
        case = self.case(case_id, system, user_texts)
        step = scripted_step(case.script, len(user_texts) - 1, rounds)
        calls = [
            {
                "id": f"call_{call.id}",
                "type": "function",
                "function": {"name": call.function, "arguments": json.dumps(call.arguments)},
            }
            for call in step.tool_calls or []
        ]
        return {
            "id": f"chatcmpl-{self.log.requests}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request["model"],
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": step.text or None,
                        **({"tool_calls": calls} if calls else {}),
                    },
                    "finish_reason": "tool_calls" if calls else "stop",
                }
            ],
            "usage": self.usage
            or {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }
