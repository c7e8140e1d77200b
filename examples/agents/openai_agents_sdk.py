"""An OpenAI Agents SDK agent as the agent under test, through Inspect's agent bridge.

    pip install 'commerce-evals[agents]'
    inspect eval commerce_evals/support \
        -T agent=examples/agents/openai_agents_sdk.py@sdk_support_agent \
        --model openai/gpt-5 --model-role grader=anthropic/claude-haiku-4-5

The SDK calls the model "inspect": the bridge sends each call to the model under test (here
`--model`), so the SDK's client needs no key of its own (it is given a placeholder, as the
client refuses to start without one). Its tools are the sandbox's, so every call is
recorded and graded as the built-in agent's are. The harness calls the factory once per case and
the agent once per user turn, with the conversation so far.
"""

from agents import Agent as SdkAgent
from agents import ModelSettings, OpenAIResponsesModel, RunConfig, Runner
from inspect_ai.agent import Agent, AgentState, agent, agent_bridge
from inspect_ai.model import messages_to_openai_responses
from inspect_ai.tool import ToolDef
from openai import AsyncOpenAI

from commerce_evals.bridge.openai_agents import function_tools


@agent
def sdk_support_agent(tools: list[ToolDef], instructions: str) -> Agent:
    sdk_agent = SdkAgent(
        name="Store assistant",
        instructions=instructions,
        tools=function_tools(tools),
        model=OpenAIResponsesModel("inspect", AsyncOpenAI(api_key="routed-by-inspect")),
        # one tool call per model message keeps the order of calls the model chose
        model_settings=ModelSettings(parallel_tool_calls=False),
    )

    async def execute(state: AgentState) -> AgentState:
        async with agent_bridge(state) as bridge:
            await Runner.run(
                sdk_agent,
                # the conversation so far, the person's new message last
                input=await messages_to_openai_responses(state.messages),
                run_config=RunConfig(tracing_disabled=True),
                max_turns=12,
            )
            return bridge.state

    return execute
