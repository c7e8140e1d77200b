"""A recorded Run as chat messages, for the transcript a person reads in `inspect view` (no model
reads them): a captured production conversation, or a run an agent made outside Inspect."""

from __future__ import annotations

import json

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageTool,
    ChatMessageUser,
)
from inspect_ai.tool import ToolCall

from commerce_evals.core.events import ReplyEvent, Run, ToolCallEvent, ToolResultEvent, UiEvent


def transcript_messages(run: Run) -> list[ChatMessage]:
    """The conversation as chat messages, for the transcript view (no model reads them)."""
    messages: list[ChatMessage] = []
    for turn in run.turns:
        messages.append(ChatMessageUser(content=turn.user))
        pending: list[ToolCall] = []
        for event in turn.events:
            if isinstance(event, ToolCallEvent):
                pending.append(
                    ToolCall(id=event.call_id, function=event.tool, arguments=event.args)
                )
                continue
            if pending:
                messages.append(ChatMessageAssistant(content="", tool_calls=pending))
                pending = []
            if isinstance(event, ToolResultEvent):
                body = (
                    event.data
                    if event.status == "ok"
                    else {"status": event.status, "reason": event.reason}
                )
                messages.append(
                    ChatMessageTool(
                        content=json.dumps(body, default=str),
                        tool_call_id=event.call_id,
                        function=event.tool,
                    )
                )
            elif isinstance(event, ReplyEvent):
                messages.append(ChatMessageAssistant(content=event.text))
            elif isinstance(event, UiEvent) and isinstance(event.payload.get("message"), str):
                messages.append(ChatMessageAssistant(content=event.payload["message"]))
        if pending:
            messages.append(ChatMessageAssistant(content="", tool_calls=pending))
    return messages
