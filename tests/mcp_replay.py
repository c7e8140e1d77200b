"""A scripted agent that speaks MCP: it replays one of a case's scripted runs (its reference, a
counterexample, an alternative) against a served case through the `mcp` client library, as the
built-in loop plays it under commerce/reference: each round's calls, and the turn's reply once
the rounds are done or a turn-ending tool answered ok (a reply said with a turn-ending call is
sent after it: an MCP agent speaks to the person through send_reply only)."""

from __future__ import annotations

import json
from typing import Any

from mcp import Client

from commerce_evals.cases.model import Case


def _ok(result: Any) -> bool:
    if result.is_error:
        return False
    try:
        return json.loads(result.content[0].text).get("status") == "ok"
    except (ValueError, AttributeError, IndexError):
        return False


async def replay(
    client: Client, case: Case, turn_ending: frozenset[str], variant: str | None = None
) -> list[str]:
    """Play the script; the person's messages the server sent, in order."""
    heard = [(await client.call_tool("read_message", {})).content[0].text]
    for turn in case.script(variant):
        rounds = turn.rounds()
        said = turn.reply
        for index, step in enumerate(rounds):
            ended = False
            for call in step:
                result = await client.call_tool(call.tool, dict(call.args))
                ended = ended or (call.tool in turn_ending and _ok(result))
            if ended:
                # the built-in loop's model says the reply with the last round's calls only
                said = turn.reply if index == len(rounds) - 1 else ""
                break
        answer = (await client.call_tool("send_reply", {"text": said})).content[0].text
        heard.append(answer)
    return heard
