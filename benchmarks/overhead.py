"""Harness overhead, session set-up against catalog size, and search speed, measured side by side.

    python benchmarks/overhead.py [--flow checkout|all] [--epochs 5] [--products 100000] [--breakdown]

Prints ratios, never a pass/fail on absolute time:
- the flow under commerce/reference beside a bare Inspect task that sends the same messages: the
  same system prompt and user turns (a customer's answers included), the same replayed model
  answers through the same provider, and tools that return the results a reference run recorded,
  with no domain, events, snapshots or graders. Each repeat runs the two back to back and takes
  their ratio; the median over the pairs is the figure (target <= 1.1), the spread its noise;
- with --breakdown, two more tasks in each repeat split the flow's cost: its solver with the bare
  task's scorer (the domain, tools and events), then that and the Run kept in the log; what is
  left beyond them is scoring (graders, the score's logging, metrics and reducers);
- session set-up with the catalog at its demo size and at --products generated products: ratio;
- a search over the large catalog, in milliseconds per query (an index, not a scan).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from collections.abc import Callable
from typing import Any

from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import (
    ChatMessage,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    execute_tools,
    get_model,
)
from inspect_ai.scorer import Score, Target, accuracy, scorer
from inspect_ai.solver import Generate, TaskState, solver
from inspect_ai.tool import ToolDef, ToolParams

from commerce_evals.cases.sample_case import case_of
from commerce_evals.core.flow_table import FLOWS
from commerce_evals.domains.shop.models import Product
from commerce_evals.domains.shop.world import ShopWorld
from commerce_evals.domains.worlds import cached_world
from commerce_evals.harness.flow_task import flow_task

Recorded = dict[str, tuple[str, list[str], list[str]]]


def recorded_conversations(task: Task) -> Recorded:
    """Per case, from a reference run: the system prompt, the user messages (a customer case's
    later turns are the customer's answers) and the tool results, each in order."""
    [log] = eval(task, model="commerce/reference", display="none", log_dir="/tmp/bench-logs")
    recorded = {}
    for sample in log.samples or []:
        system = sample.messages[0].text if sample.messages else ""
        users = [m.text for m in sample.messages if isinstance(m, ChatMessageUser)]
        results = [m.text for m in sample.messages if isinstance(m, ChatMessageTool)]
        recorded[str(sample.id)] = (system, users, results)
    return recorded


def bare_task(
    flow_samples: list[Sample],
    turn_ending: frozenset[str],
    specs: list[Any],
    recorded: Recorded,
) -> Task:
    """The same conversations with nothing of ours in the loop: the same system prompt, the same
    replayed model answers, and tools that return the same results a reference run recorded."""

    # Built once, not per sample, and the case is read the way the solver reads it (parsed at
    # task load), so the bare task does no work the harness does not need either.
    params = {spec.name: ToolParams.model_validate(spec.parameters) for spec in specs}

    @solver
    def bare_agent():
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            case = case_of(state.metadata)
            system, users, results = recorded[case.id]
            outputs = iter(results)

            def make(spec: Any) -> ToolDef:
                async def replay(**_: Any) -> str:
                    return next(outputs, "{}")

                return ToolDef(
                    replay,
                    name=spec.name,
                    description=spec.description,
                    parameters=params[spec.name],
                )

            tools = [make(s) for s in specs]
            messages: list[ChatMessage] = [ChatMessageSystem(content=system)]
            # commerce/reference reads the script from the sample it serves, as under the solver
            model = get_model()
            for user in users:
                messages.append(ChatMessageUser(content=user))
                for _ in range(12):
                    output = await model.generate(messages, tools=tools, cache=False)
                    state.output = output  # as Inspect's own generate() and agents do
                    messages.append(output.message)
                    if not output.message.tool_calls:
                        break
                    result = await execute_tools(messages, tools)
                    messages.extend(result.messages)
                    if any(c.function in turn_ending for c in output.message.tool_calls):
                        break
            state.messages = messages
            return state

        return solve

    return Task(
        dataset=MemoryDataset(flow_samples), solver=bare_agent(), scorer=done(), name="bare"
    )


@scorer(metrics=[accuracy()])
def done():
    """The bare task's scorer: a constant, so nothing is graded, logged or reduced beyond it."""

    async def score(state: TaskState, target: Target) -> Score:
        return Score(value=1.0)

    return score


def flow_parts(flow: str) -> dict[str, Callable[[], Task]]:
    """The flow built up in steps, each beside the bare task: its solver alone, then with the Run
    kept in the log (the task's cleanup), then the whole flow."""
    spec = FLOWS[flow]

    def whole() -> Task:
        return flow_task(flow, domain=spec.domain, profile=spec.agent)

    def solver_only() -> Task:
        task = whole()
        return Task(dataset=task.dataset, solver=task.solver, scorer=done(), name=flow)

    def with_run() -> Task:
        task = whole()
        return Task(
            dataset=task.dataset, solver=task.solver, scorer=done(), cleanup=task.cleanup, name=flow
        )

    return {"solver": solver_only, "solver+run": with_run, "flow": whole}


def timed_eval(task: Task, epochs: int) -> tuple[float, float]:
    """Wall time and this process's CPU time of one eval. CPU time is what to compare on a shared
    machine: other users' load stretches the wall time of both tasks unevenly."""
    # A full garbage collection scans every object the process holds (half a million here) and
    # takes a tenth of a second or more; left to chance, it falls on whichever eval of a pair
    # happens to cross the threshold. Collected first, each eval pays only for its own garbage.
    gc.collect()
    started, cpu = time.perf_counter(), time.process_time()
    [log] = eval(
        task, model="commerce/reference", epochs=epochs, display="none", log_dir="/tmp/bench-logs"
    )
    assert log.status == "success", log.error
    return time.perf_counter() - started, time.process_time() - cpu


def harness_ratio(flow: str, epochs: int, repeats: int, breakdown: bool = False) -> None:
    spec = FLOWS[flow]
    task = flow_task(flow, domain=spec.domain, profile=spec.agent)
    world = cached_world(spec.domain, None, True)
    profile = world.agents[spec.agent]
    samples = list(task.dataset)
    recorded = recorded_conversations(task)
    bare = bare_task(samples, profile.brief().turn_ending, list(profile.tools), recorded)
    parts = flow_parts(flow)
    if not breakdown:
        parts = {"flow": parts["flow"]}
    runs: dict[str, list[tuple[tuple[float, float], tuple[float, float]]]] = {p: [] for p in parts}
    for _ in range(repeats):
        # Pair by pair, back to back: this machine's speed drifts by tens of percent from one
        # minute to the next, and a drift hits both runs of a pair alike, so the ratio of each
        # pair is steady where the times themselves are not.
        for part, build in parts.items():
            theirs = timed_eval(bare, epochs)
            runs[part].append((timed_eval(build(), epochs), theirs))
    print(f"harness overhead ({flow}, {len(samples) * epochs} samples, {repeats} pairs):")
    print_pairs(runs.pop("flow"))
    for part, pairs in runs.items():
        cpu = statistics.median(o[1] / t[1] for o, t in pairs)
        wall = statistics.median(o[0] / t[0] for o, t in pairs)
        print(f"  {part:<11} wall ratio median {wall:.3f}  cpu ratio median {cpu:.3f}")


def print_pairs(pairs: list[tuple[tuple[float, float], tuple[float, float]]]) -> None:
    wall = sorted(o[0] / t[0] for o, t in pairs)
    cpu = sorted(o[1] / t[1] for o, t in pairs)
    print(
        f"  wall ratio  median {statistics.median(wall):.3f}  (min {wall[0]:.3f}, max {wall[-1]:.3f})"
        "  target <= 1.1"
    )
    print(
        f"  cpu ratio   median {statistics.median(cpu):.3f}  (min {cpu[0]:.3f}, max {cpu[-1]:.3f})"
    )
    print(
        "  every pair, ours/bare wall seconds: "
        + ", ".join(f"{o[0]:.1f}/{t[0]:.1f}" for o, t in pairs)
    )


def big_world(size: int) -> ShopWorld:
    base = ShopWorld.load(poisoned=False)
    products = list(base.products.values())
    clones = [
        Product.model_validate({**p.model_dump(), "id": f"P-G{i:06d}", "name": f"{p.name} {i}"})
        for i, p in ((i, products[i % len(products)]) for i in range(size))
    ]
    return ShopWorld(
        clones, list(base.orders.values()), base.store, dict(base.skills), list(base.messages)
    )


def per_call(fn: Any, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def session_and_search(size: int) -> None:
    small = ShopWorld.load(poisoned=False)
    started = time.perf_counter()
    large = big_world(size)
    built = time.perf_counter() - started
    state = {
        "seen_products": ["P-1001", "P-1002"],
        "cart": [{"product_id": "P-1001", "quantity": 1}],
        "memory": ["Prefers vegan shoes"],
    }
    large_state = {
        **state,
        "seen_products": ["P-G000000", "P-G000001"],
        "cart": [{"product_id": "P-G000000", "quantity": 1}],
    }
    t_small = per_call(lambda: small.session(state).snapshot(), 2000)
    t_large = per_call(lambda: large.session(large_state).snapshot(), 2000)
    print(
        f"session set-up + snapshot ({len(small.products)} vs {len(large.products)} products; index built once in {built:.1f}s):"
    )
    print(
        f"  {t_small * 1e6:.1f}us vs {t_large * 1e6:.1f}us   ratio {t_large / t_small:.2f}  (target ~1)"
    )
    session = large.session({})
    for query in ("trail running shoe", "insulated water bottle", "noise cancelling headphones"):
        t = per_call(lambda q=query: session.tool_search_products(query=q), 20)
        print(f"  search {query!r} over {len(large.products)} products: {t * 1e3:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--flow", default="checkout", choices=[*sorted(FLOWS), "all"])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--products", type=int, default=100_000)
    parser.add_argument(
        "--breakdown",
        action="store_true",
        help="also time the flow's solver alone and with its Run logged, each beside the bare task",
    )
    args = parser.parse_args()
    for flow in sorted(FLOWS) if args.flow == "all" else [args.flow]:
        harness_ratio(flow, args.epochs, args.repeats, args.breakdown)
    if args.products > 0:  # 0 skips it
        session_and_search(args.products)


if __name__ == "__main__":
    main()
