"""What the local API stubs share: the case a request serves, the log of what they were sent,
the errors they answer with, and a threaded HTTP server on 127.0.0.1.

Each stub (anthropic_stub.py, openai_stub.py) answers from the cases' reference runs in its
provider's wire format and checks what the real API would refuse. The test names the case being
served in a request header (see `tag_requests_with_case`); the stub checks the request's system
prompt and user turns against that case.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from inspect_ai.log import EvalLog, EvalSample

from commerce_evals.cases.model import Case
from commerce_evals.core.flow_table import FLOWS
from commerce_evals.domains.worlds import cached_world
from commerce_evals.harness.chain import start_session
from commerce_evals.harness.flow_task import flow_task
from commerce_evals.harness.sample_run import render_instructions
from commerce_evals.scripted.sample import ReplayScript, served_sample

TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")
CASE_HEADER = "x-commerce-case"


def tag_requests_with_case(monkeypatch: Any) -> None:
    """Test-only: every HTTP request a sample makes carries the id of the case it serves."""
    import httpx2 as httpx  # the anthropic SDK sends through httpx2

    original = httpx.AsyncClient.send

    async def send(
        self: httpx.AsyncClient, request: httpx.Request, **kwargs: Any
    ) -> httpx.Response:
        sample = served_sample()
        if sample is not None and sample.metadata:
            request.headers[CASE_HEADER] = sample.metadata["case"]["id"]
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


def stub_cases(flow: str) -> list[StubCase]:
    """Each case's system prompt as the solver renders it (chained cases start where they start)."""
    spec = FLOWS[flow]
    world = cached_world(spec.domain, None, False)
    profile = world.agents[spec.agent]
    template = profile.instructions.read_text()
    cases = []
    for sample in flow_task(flow).dataset:
        case = Case.model_validate(sample.metadata["case"])
        if case.skip:
            continue
        session = start_session(world, profile.tools, case, sample.metadata.get("chain"))
        system = render_instructions(template, world.instruction_variables(), session)
        script = ReplayScript(case.id, case.script(), profile.brief().turn_ending)
        # the user turns the agent will see: a customer case's come from its scripted customer
        users = [text for text, _ in case.conversation(case.script()).turns]
        cases.append(StubCase(case.id, system, users, script))
    return cases


def assert_scored_as_under_reference(
    log: EvalLog, reference: dict[str, EvalSample], stub: StubServer
) -> None:
    """Every sample served through a provider and the stub scores exactly as under
    commerce/reference, and passes; the stub refused nothing."""
    assert log.status == "success", log.error
    assert not stub.log.refusals, stub.log.refusals[:3]
    through_api = {str(s.id): s for s in log.samples or []}
    assert set(through_api) == set(reference)
    for sample_id, sample in through_api.items():
        assert sample.error is None, (sample_id, sample.error)
        got = (sample.scores or {})["commerce_case"]
        want = (reference[sample_id].scores or {})["commerce_case"]
        assert json.dumps(got.value) == json.dumps(want.value), sample_id
        assert got.value["passed"] == 1.0, (sample_id, got.explanation)


class StubServer:
    """A threaded server on 127.0.0.1 that hands each POST to `respond(path, body, case_id)`."""

    def __init__(self, cases: list[StubCase], usage: dict[str, Any] | None = None):
        self.cases = cases
        # the usage every answer reports, in the provider's wire format (None: a small default);
        # a prompt cache's reads and writes go here
        self.usage = usage
        self.log = StubLog()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> StubServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def respond(self, path: str, body: dict[str, Any], case_id: str | None) -> tuple[bytes, str]:
        """The answer's bytes and content type; raise ApiError for what the API would refuse."""
        raise NotImplementedError

    def error_body(self, err: ApiError) -> dict[str, Any]:
        return {"error": {"type": err.kind, "message": err.message}}

    def case(self, case_id: str | None, system: str, user_texts: list[str]) -> StubCase:
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
        respond: Callable[[str, dict[str, Any], str | None], tuple[bytes, str]] = self.respond
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                try:
                    status = 200
                    data, content_type = respond(self.path, body, self.headers.get(CASE_HEADER))
                except ApiError as err:
                    stub.log.refusals.append(err.message)
                    status = err.status
                    data, content_type = (
                        json.dumps(stub.error_body(err)).encode(),
                        "application/json",
                    )
                self.send_response(status)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler
