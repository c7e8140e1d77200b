"""The command: regenerate every figure, table and sample output of the docs, or check them."""

from __future__ import annotations

import argparse
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from commerce_evals.cases.paths import checkout_root
from commerce_evals.docgen.blocks import DATA_BLOCKS, Block
from commerce_evals.docgen.claims import CLAIMS, Claim, Needs, Sources
from commerce_evals.docgen.data import DataFacts
from commerce_evals.docgen.docs import Outcome, regenerate

if TYPE_CHECKING:
    from commerce_evals.docgen.runs import RunFacts

EXIT_OK, EXIT_DRIFT, EXIT_ERROR = 0, 1, 2
NEEDS: tuple[Needs, ...] = ("data", "runs", "scenarios")


def all_blocks() -> list[Block]:
    from commerce_evals.docgen.samples import SAMPLE_BLOCKS

    return [*DATA_BLOCKS, *SAMPLE_BLOCKS]


def outcome(
    needs: Collection[Needs] = NEEDS,
    claims: Sequence[Claim] = CLAIMS,
    blocks: Sequence[Block] | None = None,
    runs: RunFacts | None = None,
) -> Outcome:
    """What regenerating the figures computed from `needs` would change; the flows are run
    first when a figure needs their runs (unless `runs` are given)."""
    root = checkout_root()
    if root is None:
        raise LookupError("the docs are generated in a clone of the repository, not an install")
    if "runs" in needs and runs is None:
        from commerce_evals.docgen.runs import RunFacts

        runs = RunFacts.make()
    scenarios = None
    if "scenarios" in needs:
        from commerce_evals.docgen.scenarios import Scenarios

        scenarios = Scenarios()
    sources = Sources(DataFacts(), root, runs, scenarios)
    return regenerate(root, sources, claims, all_blocks() if blocks is None else blocks, needs)


def main(parser: argparse.ArgumentParser) -> int:
    parser.description = "Regenerate the figures, tables and sample outputs of README.md and docs/."
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 on a difference"
    )
    parser.add_argument(
        "--skip-runs",
        action="store_true",
        help="leave the figures of offline runs (costs, sample outputs) as they are: seconds, not minutes",
    )
    args = parser.parse_args()
    try:
        result = outcome(("data",) if args.skip_runs else NEEDS)
    except LookupError as err:
        print(f"error: {err}")
        return EXIT_ERROR
    for problem in result.problems:
        print(f"error: {problem}")
    for drift in result.drift:
        print(drift.describe())
    if result.problems:
        return EXIT_ERROR
    if args.check:
        if result.drift:
            print("regenerate with: python -m commerce_evals.docgen")
            return EXIT_DRIFT
        print("every figure the docs state matches the data")
        return EXIT_OK
    root = checkout_root()
    assert root is not None
    for doc, text in result.changed.items():
        (root / doc).write_text(text, encoding="utf-8")
        print(f"rewrote {doc}")
    if not result.changed:
        print("every figure the docs state matches the data")
    return EXIT_OK
