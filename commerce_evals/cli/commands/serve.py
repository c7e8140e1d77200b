"""`commerce-evals serve FLOW --case ID`: one case's sandbox as an MCP server, for an agent that
runs outside Inspect (Claude Desktop, Claude Code, an MCP client of your own).

Over stdio by default (the client starts the command); `--http PORT` serves streamable HTTP on
127.0.0.1:PORT/mcp instead. The agent gets the domain's tools, the case's instructions with its
injected state, and the person's messages one at a time (commerce_evals/serving/). The run is
written to `--record` (default runs/<case id>.json) after every turn; grade it with
`commerce-evals grade`. Nothing but the protocol goes to stdout.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from commerce_evals.cases.errors import InputError
from commerce_evals.cli.commands._output import die
from commerce_evals.harness.task_args import DEFAULT_MAX_CALLS_PER_TURN


def serve_command(
    flow: Annotated[str, typer.Argument(help="The flow whose case to serve, e.g. support.")],
    case: Annotated[str, typer.Option("--case", help="The case's id.")],
    http: Annotated[
        int | None,
        typer.Option(help="Serve streamable HTTP on 127.0.0.1 at this port (default: stdio)."),
    ] = None,
    record: Annotated[
        Path | None, typer.Option(help="Where to write the run (default: runs/<case id>.json).")
    ] = None,
    agent: Annotated[
        str, typer.Option(help="Who runs the case, as the run file and the reports name it.")
    ] = "an MCP client",
    tools: Annotated[
        Path | None, typer.Option(help="A file of your own tool descriptions (as -T tools=).")
    ] = None,
    dataset: Annotated[
        Path | None, typer.Option(help="A case file or folder instead of datasets/<flow>.")
    ] = None,
    fixtures: Annotated[Path | None, typer.Option(help="A fixtures folder of your own.")] = None,
    instructions: Annotated[
        Path | None, typer.Option(help="Agent instructions instead of the domain's.")
    ] = None,
    max_calls_per_turn: Annotated[
        int, typer.Option(min=1, help="Tool calls run per user turn.")
    ] = DEFAULT_MAX_CALLS_PER_TURN,
) -> None:
    """Serve one case's sandbox as an MCP server and record the run for `grade`."""
    from commerce_evals.core.flow_table import FLOWS
    from commerce_evals.serving.served_case import serve_case

    if flow not in FLOWS:
        die(f"{flow}: no such flow; flows: {', '.join(FLOWS)}")
    for given, kind in ((tools, "file"), (dataset, "path"), (fixtures, "folder")):
        if given is not None and not given.exists():
            die(f"{given}: no such {kind}")
    if http is not None and not 1 <= http <= 65535:
        die(f"--http {http}: a port from 1 to 65535")
    try:
        import anyio

        from commerce_evals.serving.mcp_server import serve_http, serve_stdio
    except ImportError as err:
        die(f"serve needs the mcp package ({err}); pip install 'commerce-evals[mcp]'")
    try:
        served = serve_case(
            flow,
            case,
            record or Path("runs") / f"{case}.json",
            agent=agent,
            dataset=str(dataset) if dataset else None,
            fixtures=str(fixtures) if fixtures else None,
            instructions=str(instructions) if instructions else None,
            tools=str(tools) if tools else None,
            max_calls_per_turn=max_calls_per_turn,
        )
    except InputError as err:  # a case, tools or fixtures file that does not serve
        die(str(err))
    where = "stdio" if http is None else f"http://127.0.0.1:{http}/mcp"
    sys.stderr.write(
        f"serving {served.case.id} ({flow}) on {where}; the run goes to {served.record}\n"
    )
    if http is None:
        anyio.run(serve_stdio, served)
    else:
        anyio.run(serve_http, served, http)


def register(app: typer.Typer) -> None:
    app.command("serve")(serve_command)
