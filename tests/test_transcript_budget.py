"""The judge's transcript under its budget: a long reply is cut, never the change set the judge
checks claims against, the note names what was cut, and the cost is linear in the events."""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager

from commerce_evals.core.events import Event, Run, Snapshot
from commerce_evals.judging.judge import DEFAULT_MAX_CHARS
from commerce_evals.judging.transcript import quote, render
from tests.helpers import call, make_run, reply, result

CART_START: Snapshot = {"cart": [], "orders": []}
CART_END: Snapshot = {
    "cart": [{"product_id": "P-1", "quantity": 1}, {"product_id": "P-2", "quantity": 2}],
    "orders": [{"order_id": "O-1", "total": 120.0}],
}
CHANGE_LINES = [
    '[after the run] changes cart {"added": [{"product_id": "P-1", "quantity": 1}, '
    '{"product_id": "P-2", "quantity": 2}], "removed": []}',
    '[after the run] changes orders {"added": [{"order_id": "O-1", "total": 120.0}], '
    '"removed": []}',
]


def carted_run(final_reply: str, earlier_turns: int = 0) -> Run:
    earlier: list[tuple[str, list[Event]]] = [
        (f"question {i}", [reply(f"answer {i} " + "x" * 300)]) for i in range(earlier_turns)
    ]
    graded: list[Event] = [
        call("add_to_cart", product_id="P-1"),
        result("add_to_cart"),
        call("place_order"),
        result("place_order"),
        reply(final_reply),
    ]
    return make_run(*earlier, ("Add the shoe and order", graded), start=CART_START, end=CART_END)


def test_a_reply_over_the_budget_is_cut_and_the_change_set_stays_whole() -> None:
    long_reply = "I did it all. " * 400 + "Your order O-1 is placed."
    quoted = render(carted_run(long_reply, earlier_turns=3), 1_500)
    lines = quoted.text.splitlines()
    assert lines[-2:] == CHANGE_LINES  # whole, in order, at the end
    assert len(quoted.text) <= 1_500
    [agent] = [line for line in lines if " agent: " in line]
    assert agent.startswith("[turn 4 graded] agent: [first ") and "O-1 is placed." in agent
    assert quoted.cut.turns_dropped == 3 and quoted.cut.events_dropped == 4
    note = quoted.cut.note()
    assert "an agent reply of turn 4 (first " in note and "1 long value(s)" in note
    assert "change line" not in note  # nothing of the change set was cut


def test_a_reply_far_over_the_budget_still_leaves_the_change_set() -> None:
    quoted = render(carted_run("y" * 50_000), 600)
    assert quoted.text.splitlines()[-2:] == CHANGE_LINES
    assert len(quoted.text) <= 600


def test_a_change_set_alone_over_the_budget_is_clipped_last_and_named() -> None:
    run = carted_run("Done.")
    run.end["cart"] = [{"product_id": f"P-{i}", "quantity": 1} for i in range(200)]
    quoted = render(run, 1_000)
    lines = quoted.text.splitlines()
    assert lines[-1] == CHANGE_LINES[1]  # the shorter table's line stays whole
    assert lines[-2].startswith("[after the run] changes cart [first ")
    assert quote("Done.") in quoted.text  # the short reply was not touched
    assert "a change line of after the run (first " in quoted.cut.note()


def test_a_short_run_names_nothing_as_cut() -> None:
    quoted = render(carted_run("Done."), 100_000)
    assert not quoted.cut.happened and quoted.cut.clipped == ()
    assert quoted.text.splitlines()[-2:] == CHANGE_LINES


def many_calls(n_events: int) -> Run:
    """One graded turn of `n_events` events: search calls and their answers, then a reply."""
    events: list[Event] = []
    for i in range(n_events // 2):
        events += [call("search_products", query=f"shoe {i}"), result("search_products")]
    return make_run(
        ("find me shoes", [*events, reply("Here they are.")]), start=CART_START, end=CART_END
    )


class TooSlow(Exception):
    pass


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Stop the block after `seconds` (a quadratic render of 5,000 events takes many minutes)."""

    def stop(signum: int, frame: object) -> None:
        raise TooSlow(f"took more than {seconds:.2f} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def timed_render(run: Run) -> float:
    start = time.perf_counter()
    render(run, DEFAULT_MAX_CHARS)
    return time.perf_counter() - start


def test_rendering_is_linear_in_the_events() -> None:
    small, large = many_calls(500), many_calls(5_000)
    render(small, DEFAULT_MAX_CHARS)  # builds the escape table once
    base = min(timed_render(small) for _ in range(3))
    # Ten times the events: about ten times the time when linear, a hundred when quadratic.
    limit = 30 * base + 0.5
    with deadline(limit):
        took = timed_render(large)
    assert took < limit
    quoted = render(large, DEFAULT_MAX_CHARS)
    assert quoted.text.splitlines()[-2:] == CHANGE_LINES
    assert quote("Here they are.") in quoted.text
