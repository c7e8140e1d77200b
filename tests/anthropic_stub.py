"""A local stand-in for Anthropic's Messages API that answers from the cases' reference runs.

It checks what the real API would refuse (tool names and input schemas, tool_result blocks that
answer every tool_use of the previous turn, alternating roles) and records every tool result it
is sent, so a test can see blocked results and errors arrive as the real API delivers them.
The test names the case being served in a request header (see `tag_requests_with_case`); the stub
checks the request's system prompt and user turns against that case.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from commerce_evals.agent import ReplayScript
from commerce_evals.providers import scripted_step

TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")
CASE_HEADER = "x-commerce-case"


def tag_requests_with_case(monkeypatch: Any) -> None:
    """Test-only: every HTTP request a sample makes carries the id of the case it serves."""
    import httpx2 as httpx  # the anthropic SDK sends through httpx2

    from commerce_evals.agent import CURRENT_SCRIPT

    original = httpx.AsyncClient.send

    async def send(
        self: httpx.AsyncClient, request: httpx.Request, **kwargs: Any
    ) -> httpx.Response:
        script = CURRENT_SCRIPT.get()
        if script is not None:
            request.headers[CASE_HEADER] = script.case_id
        return await original(self, request, **kwargs)

    monkeypatch.setattr(httpx.AsyncClient, "send", send)


@dataclass
class StubCase:
    case_id: str
    system: str
    turns: list[str]
    script: ReplayScript


@dataclass
class StubLog:
    requests: int = 0
    tool_results: list[dict[str, Any]] = field(default_factory=list)
    refusals: list[str] = field(default_factory=list)


class ApiError(Exception):
    def __init__(self, status: int, kind: str, message: str):
        super().__init__(message)
        self.status, self.kind, self.message = status, kind, message


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


class AnthropicStub:
    def __init__(self, cases: list[StubCase]):
        self.cases = cases
        self.log = StubLog()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> AnthropicStub:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

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
        case = self._case(case_id, _system_text(request.get("system")), user_texts)
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
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }

    def _case(self, case_id: str | None, system: str, user_texts: list[str]) -> StubCase:
        """The case named by the test's header, checked against what the request carries."""
        case = next((c for c in self.cases if c.case_id == case_id), None)
        if case is None:
            raise ApiError(400, "invalid_request_error", f"stub: no case {case_id!r}")
        if case.system != system or case.turns[: len(user_texts)] != user_texts:
            raise ApiError(
                400, "invalid_request_error", f"stub: the conversation is not {case_id}'s"
            )
        return case

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                try:
                    if not self.path.rstrip("/").endswith("/v1/messages"):
                        raise ApiError(404, "not_found_error", self.path)
                    status, payload = 200, stub.answer(body, self.headers.get(CASE_HEADER))
                except ApiError as err:
                    stub.log.refusals.append(err.message)
                    status = err.status
                    payload = {"type": "error", "error": {"type": err.kind, "message": err.message}}
                if status == 200 and body.get("stream"):
                    data = sse(payload).encode()
                    content_type = "text/event-stream"
                else:
                    data = json.dumps(payload).encode()
                    content_type = "application/json"
                self.send_response(status)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler
