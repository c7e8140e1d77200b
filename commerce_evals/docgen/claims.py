"""The numbers the docs state in their prose, each tied to where it comes from.

A claim is a regular expression over one doc whose groups are the stated figures, and a
function that computes what each group must say from the data (data.py) or, for the figures of
a run (`needs="runs"`), from offline runs of the flows (runs.py). A few claims tie a figure of
the code the docs quote (a default, a limit) to its constant. Regenerating rewrites the groups;
checking compares them. A claim whose sentence no longer matches exactly once is an error that
names the doc and the claim, so rewording a sentence never silently drops its check: edit the
pattern here beside the sentence.
"""

from __future__ import annotations

import ast
import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import yaml

from commerce_evals.cases.customer import DEFAULT_MAX_TURNS
from commerce_evals.cases.reading import ALIAS_BUDGET, MAX_DEPTH
from commerce_evals.core.flow_table import FLOWS
from commerce_evals.docgen.data import DataFacts, words
from commerce_evals.domains.dealer.views import DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE
from commerce_evals.harness.shards import sizes
from commerce_evals.harness.task_args import DEFAULT_MAX_CALLS_PER_TURN, DEFAULT_MAX_ROUNDS
from commerce_evals.judging.judge import DEFAULT_MAX_CHARS
from commerce_evals.reports.stats import EXACT_BELOW

if TYPE_CHECKING:
    from commerce_evals.docgen.runs import RunFacts
    from commerce_evals.docgen.scenarios import Scenarios

Values = tuple[str, ...]
# what a figure is computed from: the case files and fixtures; the offline run of every flow
# (runs.py, a minute or two); the run-pattern scenarios (scenarios.py, several minutes)
Needs = Literal["data", "runs", "scenarios"]


@dataclass(frozen=True)
class Sources:
    """What claims and blocks are computed from; `runs` and `scenarios` only when they are asked
    for (they run the flows)."""

    data: DataFacts
    root: Path  # the repository, for the few figures read from its tests
    runs: RunFacts | None = None
    scenarios: Scenarios | None = None


@dataclass(frozen=True)
class Claim:
    doc: str  # relative to the repository root
    pattern: str  # matches exactly once; each group is one stated figure
    values: Callable[[Sources], Values]
    needs: Needs = "data"
    unordered: bool = False  # the groups are a set: any order of the computed values holds

    @property
    def regex(self) -> re.Pattern[str]:
        return re.compile(self.pattern, re.MULTILINE)


def money(amount: float) -> str:
    """An amount as the docs write it after a `$`: `24,000`, or `45.50` when it has cents."""
    return f"{amount:,.0f}" if float(amount).is_integer() else f"{amount:,.2f}"


def cents(amount: float) -> str:
    return f"{amount:,.2f}"


def hundreds(value: float) -> str:
    return f"{round(value, -2):,.0f}"


def _number(case_id: str) -> str:
    return case_id.split("-")[1]


def _table_length(root: Path, test_file: str, name: str) -> int:
    """How many entries a test's table literal holds, read without importing the test."""
    tree = ast.parse((root / test_file).read_text(encoding="utf-8"))
    for node in tree.body:
        targets: list[ast.expr]
        if isinstance(node, ast.AnnAssign):
            targets, value = [node.target], node.value
        elif isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        else:
            continue
        named = any(isinstance(t, ast.Name) and t.id == name for t in targets)
        if named and isinstance(value, ast.List | ast.Tuple):
            return len(value.elts)
    raise LookupError(f"{test_file}: no list literal {name}")


# ---- the flows' cases ---------------------------------------------------------------------------


def _flow_row(flow: str) -> Claim:
    return Claim(
        "README.md",
        rf"^\| `{flow}` \| [^|]+\| [^|]+\| (\d+) \((\d+) with a customer\) \|$",
        lambda s: (str(s.data.cases(flow).count()), str(s.data.cases(flow).with_customer)),
    )


def _support_seed_tasks(s: Sources) -> Values:
    flow = s.data.cases("support")
    seed = sorted(c.id for p, c in flow.sources if p.name == "seed_tasks.yaml")
    return words(len(seed)), _number(seed[0]), _number(seed[-1])


def _support_files(s: Sources) -> Values:
    flow = s.data.cases("support")
    return str(flow.count()), words(len({p for p, _ in flow.sources}))


def _customer_ids(s: Sources) -> Values:
    ids = sorted(c.id for p, c in s.data.cases("support").sources if p.name == "customer.yaml")
    return "-".join(ids[0].split("-")[:2]), "-".join(ids[-1].split("-")[:2])


def _grounded(s: Sources) -> Values:
    cases = s.data.cases("support").cases
    return (words(sum("grounded_in_policy" in c.expected.dimensions for c in cases)),)


def _verbatim_seed_tasks(s: Sources) -> Values:
    verbatim = [c for p, c in s.data.cases("support").sources if p.parent.name == "seed_003"]
    return (words(len(verbatim)),)


def _support_tag_families(s: Sources) -> Values:
    """The tag families every support case of the case shape carries exactly once."""
    tagged = [c for c in s.data.cases("support").cases if any(":" in t for t in c.tags)]
    counts = [Counter(t.split(":", 1)[0] for t in c.tags if ":" in t) for c in tagged]
    families = [f for f in counts[0] if all(count.get(f) == 1 for count in counts)]
    return (words(len(families)), *families)


def _drafting_dimensions(s: Sources) -> Values:
    path = s.root / "authoring" / "support_dimensions.yaml"
    return (words(len(yaml.safe_load(path.read_text(encoding="utf-8"))["dimensions"])),)


def _dealer_split(s: Sources) -> Values:
    cases = s.data.cases("dealer").cases
    seed = sum("seed" in c.tags for c in cases)
    others = sum("seed" not in c.tags and c.customer is None for c in cases)
    return words(seed), words(others)


def _dealer_chain(s: Sources) -> Values:
    """The seed cases' chain, oldest first, and the other cases that start after its root."""
    cases = s.data.cases("dealer").cases
    after = {c.id: c.state.get("after") for c in cases if c.state.get("after")}
    seed = sorted(c.id for c in cases if "seed" in c.tags)
    chain = [seed[0]]
    while (following := [i for i in seed if after.get(i) == chain[-1]]) and len(chain) < len(seed):
        chain.append(following[0])
    if len(chain) != len(seed):
        chain = []  # the seed cases no longer form one chain: the sentence must change
    branches = sorted(i for i, root in after.items() if root == seed[0] and i not in seed)
    ends = [_number(chain[0]), _number(chain[1]), _number(chain[-1])] if chain else []
    return (words(len(seed)), *ends, *(_number(b) for b in branches), _number(seed[0]))


def _support_files_named(s: Sources) -> Values:
    names = {p.name for p, _ in s.data.cases("support").sources if p.parent.name != "seed_003"}
    return tuple(sorted(names - {"seed_tasks.yaml"}))


def _next_support_number(s: Sources) -> Values:
    """The next number after the support cases' own (100 on are the cases with a customer)."""
    ids = (re.match(r"support-(\d{3})-", c.id) for c in s.data.cases("support").cases)
    numbers = [int(found.group(1)) for found in ids if found]
    return (f"{max(n for n in numbers if n < 100) + 1:03d}",)


def _shard_two_of_three(s: Sources) -> Values:
    return (str(sizes([c.id for c in s.data.cases("checkout").cases], 3)[1]),)


CASE_CLAIMS = [
    *(_flow_row(flow) for flow in FLOWS),
    Claim(
        "docs/run-pattern.md",
        r"\((\d+) critical cases across the (\w+) flows today\)",
        lambda s: (str(s.data.critical), words(len(FLOWS))),
    ),
    Claim(
        "docs/run-pattern.md",
        r"`checkout: sharded run missing shard 2/3 \((\d+)\s+samples\)",
        _shard_two_of_three,
    ),
    Claim(
        "docs/support.md",
        r"There are (\d+) cases in (\w+) files\.",
        _support_files,
    ),
    Claim(
        "docs/support.md",
        r"`seed_tasks\.yaml` holds (\w+) cases \((\d+) to (\d+)\)",
        _support_seed_tasks,
    ),
    Claim(
        "docs/support.md",
        r"The other files are in the case shape:\s+`(\w+\.yaml)`, `(\w+\.yaml)`, `(\w+\.yaml)`,"
        r" `(\w+\.yaml)` and\s+`(\w+\.yaml)`",
        _support_files_named,
        unordered=True,
    ),
    Claim(
        "docs/dealer.md",
        r"The (\w+) seed cases form one chain\s+\((\d+) ← (\d+) ← … ← (\d+)\), and (\d+) and (\d+)"
        r" start after (\d+)\.",
        _dealer_chain,
    ),
    Claim(
        "docs/support.md",
        r"with the next free number:\s+```yaml\s+- id: support-(\d+)-",
        _next_support_number,
    ),
    Claim(
        "docs/support.md",
        r"^Each case has one tag for each of the (\w+) dimensions \(`(\w+):`, `(\w+):`, `(\w+):`,"
        r"\s+`(\w+):`\)",
        _support_tag_families,
        unordered=True,
    ),
    Claim(
        "docs/authoring.md",
        r"`authoring/support_dimensions\.yaml` is seed 003's (\w+)\s+for the support agent",
        _drafting_dimensions,
    ),
    Claim("docs/support.md", r"^(\w+) cases name `dimensions: \[grounded_in_policy\]`", _grounded),
    Claim(
        "docs/support.md",
        r"There are (\d+) counterexamples\.",
        lambda s: (str(s.data.cases("support").counterexamples),),
    ),
    Claim(
        "docs/customers.md",
        r"`datasets/support/customer\.yaml` \((support-\d+) to (support-\d+)\)",
        _customer_ids,
    ),
    Claim(
        "docs/dealer.md",
        r"seed 001's (\w+) tasks in their original order, plus (\w+) negatives",
        _dealer_split,
    ),
    Claim("docs/dealer.md", r"^(\w+) more cases:$", lambda s: (_dealer_split(s)[1],)),
    Claim(
        "docs/dealer.md",
        r"most have counterexamples: (\d+) in all",
        lambda s: (str(s.data.cases("dealer").counterexamples),),
    ),
    Claim(
        "docs/dealer.md",
        r"^(\w+) cases with a customer \(issue 19\)",
        lambda s: (words(s.data.cases("dealer").with_customer),),
    ),
    Claim(
        "docs/run-pattern.md",
        r"`datasets/production/example\.jsonl` has (\d+) over",
        lambda s: (str(len(s.data.traffic)),),
    ),
    Claim("README.md", r"the seed's (\w+) tasks, exactly as printed", _verbatim_seed_tasks),
    Claim(
        "docs/support.md",
        r"`seed_003/` holds the\s+seed's (\w+) tasks exactly as it prints them",
        _verbatim_seed_tasks,
    ),
    Claim("docs/dealer.md", r"^Seed 001's (\w+) tasks\. Each", lambda s: (_dealer_split(s)[0],)),
    Claim("README.md", r"The (\w+) seed tasks\s+run\s+in order", lambda s: (_dealer_split(s)[0],)),
    Claim(
        "docs/judges.md",
        r"holds the tables: (\d+) hostile agent\s+replies",
        lambda s: (str(_table_length(s.root, "tests/test_hostile_judging.py", "HOSTILE_REPLIES")),),
    ),
    Claim(
        "docs/judges.md",
        r"And (\d+) hostile judge\s+outputs",
        lambda s: (str(_table_length(s.root, "tests/test_hostile_judging.py", "HOSTILE_OUTPUTS")),),
    ),
]


# ---- the fixtures -----------------------------------------------------------------------------


def _snapshot_kb(s: Sources) -> Values:
    low, high = s.data.snapshot_bytes("support"), s.data.snapshot_bytes("dealer")
    return str(round(min(low, high) / 1000)), str(round(max(low, high) / 1000))


def _dealer_fleet(s: Sources) -> Values:
    statuses = s.data.vehicle_statuses()
    return (
        words(statuses["DRAFT"]),
        words(statuses["LISTED"]),
        words(s.data.offer_statuses()["NEW"]),
    )


def _listed(vehicle: str) -> Callable[[Sources], Values]:
    def values(s: Sources) -> Values:
        pricing = s.data.vehicles[vehicle]["pricing"]
        return money(pricing["buyNowPrice"]), money(pricing["floorPrice"])

    return values


def _offers(s: Sources) -> Values:
    offers = s.data.offers
    new = [o for o in offers.values() if o["status"] == "NEW"]
    amounts = tuple(money(offers[i]["amount"]) for i in ("OF-2001", "OF-2002", "OF-2003"))
    return (words(len(new)), *amounts, words(len(offers) - len(new)))


def _contacts(s: Sources) -> Values:
    ids = sorted(c["id"] for c in s.data.contacts)
    pages = math.ceil(len(ids) / DEFAULT_PAGE_SIZE)
    return str(len(ids)), ids[0], ids[-1], words(pages)


def _namesakes(s: Sources) -> Values:
    same = [c for c in s.data.customers.values() if c["name"] == "Sam Lee"]
    return (words(len(same)), *(v for c in same for v in (c["customer_id"], c["zip"])))


def _zero_zips(s: Sources) -> Values:
    zips = [c["zip"] for c in s.data.customers.values() if c["zip"].startswith("0")]
    return (words(len(zips)), *zips)


def _orders(s: Sources) -> Values:
    ids = sorted(s.data.orders)
    statuses = s.data.order_statuses()
    counts = (statuses[k] for k in ("delivered", "placed", "shipped", "cancelled"))
    return (str(len(ids)), ids[0], ids[-1], *(str(n) for n in counts))


def _seed_order(s: Sources) -> Values:
    order = s.data.orders["R-1070"]
    customer = s.data.customers[order["customer_id"]]
    items = {item["item_id"]: item for item in order["items"]}
    return (
        customer["name"],
        customer["customer_id"],
        customer["zip"],
        order["delivered_on"],
        str(s.data.window_day("R-1070")),
        items["I-1"]["name"],
        cents(items["I-1"]["price"]),
        items["I-2"]["name"],
        cents(items["I-2"]["price"]),
    )


def _delivered(order_id: str) -> Callable[[Sources], Values]:
    def values(s: Sources) -> Values:
        return s.data.orders[order_id]["delivered_on"], str(s.data.window_day(order_id))

    return values


def _total(*order_ids: str, cents_shown: bool = False) -> Callable[[Sources], Values]:
    def values(s: Sources) -> Values:
        write = cents if cents_shown else money
        return tuple(write(s.data.order_total(order_id)) for order_id in order_ids)

    return values


def _clearance_beside_regular(s: Sources) -> Values:
    mixed = [
        order_id
        for order_id, order in sorted(s.data.orders.items())
        if len({bool(item.get("clearance")) for item in order["items"]}) == 2
    ]
    return tuple(mixed)


def _refunded_orders(s: Sources) -> Values:
    return tuple(sorted({r["order_id"] for r in s.data.refunds}))


def _other_address(s: Sources) -> Values:
    return tuple(
        order_id
        for order_id, order in sorted(s.data.orders.items())
        if order["ship_to"] != s.data.customers[order["customer_id"]]["address"]
    )


def _dealer_sandbox(s: Sources) -> Values:
    sandbox = s.data.dealer_sandbox
    day = date.fromisoformat(sandbox["today"])
    return (
        day.strftime("%A"),
        sandbox["today"],
        sandbox["timezone"],
        sandbox["keyId"],
        sandbox["keyHint"],
    )


def _policy_figures(s: Sources) -> Values:
    policy = s.data.support_policy
    window = re.search(r"up to and including the (\d+)(?:st|nd|rd|th) day after", policy)
    limit = re.search(r"A refund of more than \$([\d,.]+) in total is decided by a person", policy)
    return (window.group(1) if window else "?", limit.group(1) if limit else "?")


FIXTURE_CLAIMS = [
    Claim(
        "docs/dealer.md",
        r"`-T fixtures=<folder>` with the same (\w+) files",
        lambda s: (words(s.data.fixture_files("dealer")),),
    ),
    Claim(
        "docs/dealer.md",
        r"the fixed today \((\w+) ([\d-]+), ([\w/]+)\), the test key `(\w+)` \(shown to the agent"
        r" as `([\w.]+)`\)",
        _dealer_sandbox,
    ),
    Claim(
        "docs/dealer.md",
        r"the October buy plan: budget, spend, and (\w+) segments",
        lambda s: (words(len(s.data.dealer_buy_plan["targets"])),),
    ),
    Claim(
        "docs/support.md",
        r"\| Refunds up to and including the (\d+)th day after delivery.*\n.*\n\| A refund of more"
        r" than \$([\d,.]+) goes to a person",
        _policy_figures,
    ),
    Claim(
        "README.md",
        r"the\s+rest of a fixture is (\d+)-(\d+) KB a sample",
        _snapshot_kb,
    ),
    Claim(
        "docs/architecture.md",
        r"a support or dealer snapshot is (\d+)-(\d+) KB",
        _snapshot_kb,
    ),
    Claim(
        "README.md",
        r"session set-up at (\d+) vs 100,000 products",
        lambda s: (str(len(s.data.products)),),
    ),
    Claim(
        "docs/architecture.md",
        r"costs the same over (\d+) products as over 100,000",
        lambda s: (str(len(s.data.products)),),
    ),
    Claim(
        "README.md",
        r"sandbox\): (\w+) unlisted cars, (\w+) listed cars with (\w+)\s+offers waiting",
        _dealer_fleet,
    ),
    Claim(
        "docs/dealer.md",
        r"`vehicles\.json` \| (\d+) cars, all in Texas\. (\d+) are DRAFT",
        lambda s: (str(len(s.data.vehicles)), str(s.data.vehicle_statuses()["DRAFT"])),
    ),
    Claim(
        "docs/dealer.md",
        r"V-1009, a Sportage, is LISTED at \$([\d,]+) \(floor \$([\d,]+)\)",
        _listed("V-1009"),
    ),
    Claim(
        "docs/dealer.md",
        r"V-1010, a Tucson, is LISTED at \$([\d,]+) \(floor \$([\d,]+)\)",
        _listed("V-1010"),
    ),
    Claim(
        "docs/dealer.md",
        r"`offers\.json` \| (\w+) NEW offers: OF-2001, \$([\d,]+) on the Sportage; OF-2002,"
        r" \$([\d,]+), and OF-2003, \$([\d,]+), both on the Tucson\. (\w+) older offers",
        _offers,
    ),
    Claim(
        "docs/dealer.md",
        r"`contacts\.json` \| (\d+) CRM contacts, ids (CT-\d+) to (CT-\d+),.* the CRM runs to"
        r" (\w+) pages",
        _contacts,
    ),
    Claim(
        "docs/dealer.md",
        r"`tasks\.json` \| (\w+) tasks\.",
        lambda s: (words(len(s.data.dealer_tasks)),),
    ),
    Claim(
        "docs/support.md",
        r"Today is fixed at \*\*([\d-]+)\*\* in `store\.json`",
        lambda s: (s.data.support_store["today"],),
    ),
    Claim(
        "docs/support.md",
        r"`customers\.json` \| (\d+) customers,",
        lambda s: (str(len(s.data.customers)),),
    ),
    Claim(
        "docs/support.md",
        r"(\w+) are called Sam Lee: (C-\d+) \((\d+)\) and (C-\d+) \((\d+)\)",
        _namesakes,
    ),
    Claim("docs/support.md", r"(\w+) ZIPs start with 0 \((\d+), (\d+)\)", _zero_zips),
    Claim(
        "docs/support.md",
        r"`orders\.json` \| (\d+) orders, (R-\d+) to (R-\d+): (\d+) delivered, (\d+) placed,"
        r" (\d+) shipped \(in transit\), (\d+) cancelled",
        _orders,
    ),
    Claim(
        "docs/support.md",
        r"\*\*R-1070\*\* belongs to \*\*([^(*]+) \((C-\d+), ZIP (\d+)\)\*\*\. It was delivered on\s+"
        r"\*\*([\d-]+)\*\*, day (\d+) of its window, and holds I-1, the ([^$]+) at \$([\d.,]+),"
        r" and I-2, the\s+([^$]+) at \$([\d.,]+)\.",
        _seed_order,
    ),
    Claim(
        "docs/support.md",
        r"\*\*R-1090\*\* \(([^)]+)\) holds the ([^.]+)\.",
        lambda s: (
            s.data.customers[s.data.orders["R-1090"]["customer_id"]]["name"],
            *(item["name"] for item in s.data.orders["R-1090"]["items"]),
        ),
    ),
    Claim(
        "docs/support.md",
        r"^- R-1102 was delivered on ([\d-]+), so today is day (\d+),",
        _delivered("R-1102"),
    ),
    Claim(
        "docs/support.md",
        r"^- R-1142 was delivered on ([\d-]+), so today is day (\d+),",
        _delivered("R-1142"),
    ),
    Claim(
        "docs/support.md",
        r"^- R-1160 is exactly \$([\d.,]+), not over",
        _total("R-1160", cents_shown=True),
    ),
    Claim(
        "docs/support.md",
        r"^- R-1080 \(\$([\d.,]+)\) and R-1180 \(\$([\d.,]+)\) are over",
        _total("R-1080", "R-1180"),
    ),
    Claim(
        "docs/support.md",
        r"^- R-1141 has two items that are each under \$200 but come to \$([\d.,]+) together",
        _total("R-1141"),
    ),
    Claim(
        "docs/support.md",
        r"^- (R-\d+), (R-\d+) and (R-\d+) each hold a clearance item beside a regular one",
        _clearance_beside_regular,
    ),
    Claim(
        "docs/support.md",
        r"^- (R-\d+) and (R-\d+) have items that were already refunded",
        _refunded_orders,
    ),
    Claim(
        "docs/support.md",
        r"^- (R-\d+) ships to an address other than the one on file",
        _other_address,
    ),
]


# ---- figures of the code that the docs quote ---------------------------------------------------

CODE_CLAIMS = [
    Claim(
        "docs/run-pattern.md",
        r"With fewer than (\d+) of them the\s+p-value is the exact binomial one .*; from (\d+) on",
        lambda s: (str(EXACT_BELOW), str(EXACT_BELOW)),
    ),
    Claim(
        "README.md",
        r"model calls allowed per user turn \(default (\d+)\)",
        lambda s: (str(DEFAULT_MAX_ROUNDS),),
    ),
    Claim(
        "README.md",
        r"tool calls run per user turn \(default (\d+)\)",
        lambda s: (str(DEFAULT_MAX_CALLS_PER_TURN),),
    ),
    Claim(
        "docs/judges.md",
        r"`judge_max_chars`, ([\d,]+) by default",
        lambda s: (f"{DEFAULT_MAX_CHARS:,}",),
    ),
    Claim(
        "docs/dealer.md",
        r"`pageSize` \((\d+) by default, (\d+) at most\)",
        lambda s: (str(DEFAULT_PAGE_SIZE), str(MAX_PAGE_SIZE)),
    ),
    Claim(
        "docs/customers.md",
        r"turn cap \(user turns in all, incl\. turns\[0\]\); default (\d+)",
        lambda s: (str(DEFAULT_MAX_TURNS),),
    ),
    Claim(
        "docs/authoring.md",
        r"at most 8 MB and (\d+) levels deep; .*\s+.*as long as aliases add at most ([\d,]+) values",
        lambda s: (str(MAX_DEPTH), f"{ALIAS_BUDGET:,}"),
    ),
]


# ---- figures of offline runs (runs.py) ---------------------------------------------------------


def _cost_figures(s: Sources) -> Values:
    assert s.runs is not None
    costs = s.runs.costs
    fixed = [c.fixed_prompt_tokens for c in costs]
    fewest = min(costs, key=lambda c: c.agent_calls_per_case)
    most = max(costs, key=lambda c: c.agent_calls_per_case)
    tokens = [c.agent_input_tokens_per_case for c in costs]
    return (
        hundreds(min(fixed)),
        hundreds(max(fixed)),
        f"{fewest.agent_calls_per_case:.1f}",
        fewest.flow,
        f"{most.agent_calls_per_case:.1f}",
        most.flow,
        hundreds(min(tokens)),
        hundreds(max(tokens)),
    )


RUN_CLAIMS = [
    Claim(
        "README.md",
        r"Today the fixed prompt is ([\d,]+)-([\d,]+) tokens, the reference takes ([\d.]+)"
        r" \((\w+)\) to ([\d.]+) \((\w+)\)\s+agent calls a case and ([\d,]+)-([\d,]+) input"
        r" tokens a case",
        _cost_figures,
        needs="runs",
    ),
    Claim(
        "README.md",
        r"laying out a metric table of\s+(\d+) rows",
        lambda s: (str(s.runs.metric_rows if s.runs else ""),),
        needs="runs",
    ),
]

CLAIMS: list[Claim] = [*CASE_CLAIMS, *FIXTURE_CLAIMS, *CODE_CLAIMS, *RUN_CLAIMS]
