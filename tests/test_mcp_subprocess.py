"""`commerce-evals serve` as a client starts it: a subprocess over stdio (as Claude Desktop and
Claude Code start a server) and over streamable HTTP on 127.0.0.1, each driven by the `mcp`
client library replaying a case's reference; the run file it writes is graded by
`commerce-evals grade` in a subprocess too, with the built-in loop's verdict."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from commerce_evals.domains.worlds import cached_world
from commerce_evals.harness.run_file import read_run_file
from tests.agent_ways import built_in_verdicts
from tests.helpers import REPO_ROOT, subprocess_env

pytest.importorskip("mcp")

from mcp import Client, StdioServerParameters  # noqa: E402

from commerce_evals.harness.flow_inputs import flow_parts  # noqa: E402
from tests.mcp_replay import replay  # noqa: E402

pytestmark = pytest.mark.slow

CASE = "support-101-ask-zip-before-verifying"
SERVE = [sys.executable, "-m", "commerce_evals.cli.app", "serve", "support", "--case", CASE]
TURN_ENDING = frozenset(
    spec.name
    for spec in cached_world("support", None, False).agents["support"].tools
    if spec.ends_turn
)


def _case():  # type: ignore[no-untyped-def]
    return flow_parts("support").case(CASE)


def _graded(record: Path, tmp_path: Path) -> None:
    assert read_run_file(record).complete
    done = subprocess.run(
        [sys.executable, "-m", "commerce_evals.cli.app", "grade", str(record), "--case", CASE,
         "--judge", "commerce/judge", "--log-dir", str(tmp_path / "logs")],
        cwd=REPO_ROOT, env=subprocess_env(), capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    built_in = built_in_verdicts("support")[f"{CASE}@1"]
    assert done.returncode == (0 if built_in["value"]["passed"] == 1.0 else 1), done.stderr
    assert "\nPASS\n" in done.stdout


def test_over_stdio(tmp_path: Path) -> None:
    record = tmp_path / "run.json"
    params = StdioServerParameters(
        command=SERVE[0],
        args=[*SERVE[1:], "--record", str(record)],
        env=subprocess_env(),
        cwd=str(REPO_ROOT),
    )

    async def drive() -> None:
        async with Client(params) as client:
            await replay(client, _case(), TURN_ENDING)

    asyncio.run(drive())
    _graded(record, tmp_path)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_over_streamable_http_on_localhost(tmp_path: Path) -> None:
    record, port = tmp_path / "run.json", _free_port()
    server = subprocess.Popen(
        [*SERVE, "--http", str(port), "--record", str(record)],
        cwd=REPO_ROOT, env=subprocess_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while True:
            assert server.poll() is None, server.stderr.read().decode() if server.stderr else ""
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the server never listened"
                time.sleep(0.5)

        async def drive() -> None:
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                await replay(client, _case(), TURN_ENDING)

        asyncio.run(drive())
    finally:
        server.terminate()
        server.wait(timeout=60)
    _graded(record, tmp_path)
