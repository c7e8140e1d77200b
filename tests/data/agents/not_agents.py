"""Names that are not usable Inspect agents, for the tests of -T agent=."""

from inspect_ai.agent import Agent, AgentState, agent


def plain_function(tools: list) -> None:  # not an @agent
    return None


@agent
def no_tools(instructions: str) -> Agent:
    async def execute(state: AgentState) -> AgentState:
        return state

    return execute


@agent
def wants_more(tools: list, temperature: float) -> Agent:
    async def execute(state: AgentState) -> AgentState:
        return state

    return execute


@agent
def silent(tools: list) -> Agent:
    """Says nothing and calls nothing: every turn ends with an empty reply."""

    async def execute(state: AgentState) -> AgentState:
        return state

    return execute
