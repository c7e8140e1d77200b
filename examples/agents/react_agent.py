"""Inspect's react() agent as the agent under test.

    inspect eval commerce_evals/checkout -T agent=examples/agents/react_agent.py@shop_assistant \
        --model anthropic/claude-sonnet-4-6 --model-role grader=anthropic/claude-haiku-4-5

The harness calls the factory once per case with the sandbox's tools and the case's instructions
(the injected state included), and runs the agent once per user turn.
"""

from inspect_ai.agent import Agent, AgentPrompt, agent, react
from inspect_ai.tool import Tool, ToolDef


@agent
def shop_assistant(tools: list[Tool | ToolDef], instructions: str) -> Agent:
    return react(
        # the case's instructions as the whole system prompt (react's default prompt would add
        # its own text about a submit tool)
        prompt=AgentPrompt(instructions=instructions, assistant_prompt=None),
        tools=tools,
        # a turn ends when the model answers without calling a tool: there is no submit tool, as
        # the person reads the answer and may write again
        submit=False,
    )
