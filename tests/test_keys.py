"""The key declarations are the one source: the case model, the graders, the lint, the injection
metrics and the docs all agree with them."""

from __future__ import annotations

from pathlib import Path

from commerce_evals.cases.key_values import DOMAIN_STATUSES, status_names
from commerce_evals.cases.model import Case, Expected
from commerce_evals.domains import WORLDS
from commerce_evals.domains.shop.poison import NEGATIVES_BY_KIND
from commerce_evals.grading import keys
from commerce_evals.grading.graders import GRADERS
from commerce_evals.grading.keys import COMMAND, EXPECTED_MODULE, KEYS, expected_source, key_block
from commerce_evals.grading.statuses import table as status_table
from commerce_evals.lint import runner as lint
from commerce_evals.lint.model import NEGATIVE_KEYS
from commerce_evals.scoring import injection_metrics as injection_scorer

ROOT = Path(__file__).parents[1]


def test_the_case_model_has_exactly_the_registry_keys_in_order() -> None:
    assert list(Expected.model_fields) == [spec.name for spec in KEYS]


def test_every_code_graded_key_has_its_grader_and_part() -> None:
    graded = {spec.name: spec.part for spec in KEYS if spec.part != "rubric"}
    assert {name: part for name, (part, _) in GRADERS.items()} == graded
    assert all(fn.__name__ == name for name, (_, fn) in GRADERS.items())


def test_lint_and_injection_key_lists_come_from_the_registry() -> None:
    assert {s.name for s in KEYS if s.negative} == NEGATIVE_KEYS
    assert {s.name for s in KEYS if s.attack} == injection_scorer.ATTACK_KEYS
    assert injection_scorer.ATTACK_KEYS <= NEGATIVE_KEYS
    assert {"max_tool_calls", "at_most"} == injection_scorer.BUDGET_KEYS
    named = {key for wanted in NEGATIVES_BY_KIND.values() for key in wanted}
    assert named <= {s.name for s in KEYS}


def test_the_docs_key_tables_are_the_generated_one() -> None:
    block = key_block()
    for doc in ("README.md", "docs/authoring.md"):
        assert block in (ROOT / doc).read_text(), f"{doc}: regenerate with {COMMAND}"


def test_the_checked_in_case_model_is_the_one_the_declarations_generate() -> None:
    written = (ROOT / EXPECTED_MODULE).read_text(encoding="utf-8")
    assert written == expected_source(), (
        f"{EXPECTED_MODULE} disagrees with the keys' declarations: regenerate with {COMMAND}"
    )


def test_each_key_is_declared_once_on_its_grader() -> None:
    graded = [spec for spec in KEYS if spec.part != "rubric"]
    assert all(spec.grader is not None and spec.grader.__name__ == spec.name for spec in graded)
    assert len({spec.name for spec in KEYS}) == len(KEYS)
    assert not (set(keys.ALIASES) & {spec.name for spec in KEYS})


def test_the_case_layer_names_the_statuses_the_grading_reads() -> None:
    for domain in (None, *DOMAIN_STATUSES):
        assert [s.name for s in status_table(domain)] == list(status_names(domain)), domain


def test_the_docs_list_every_invariant() -> None:
    text = (ROOT / "docs/authoring.md").read_text()
    for domain in ("shop", "support", "dealer"):
        for rule in WORLDS[domain].invariants:
            assert f"| {domain} | `{rule.name}` |" in text, rule.name


def test_an_alias_in_breaks_names_its_key() -> None:
    case = Case.model_validate(
        {
            "id": "support-900-alias",
            "priority": "medium",
            "difficulty": "medium",
            "turns": ["hi"],
            "expected": {"before": [{"first": "find_customer", "then": "get_order"}]},
            "reference": [{"reply": "hi"}],
            "counterexamples": [{"name": "x", "breaks": ["before"], "turns": [{"reply": "x"}]}],
        }
    )
    assert case.counterexamples[0].breaks == ["call_order"]
    assert keys.canonical("max_calls_per_tool") == "at_most"


def test_a_turn_declares_what_it_confirms() -> None:
    case = Case.model_validate(
        {
            "id": "checkout-900-consent",
            "priority": "medium",
            "difficulty": "medium",
            "turns": ["Check me out.", {"say": "Yes, place it.", "confirms": ["place_order"]}],
            "expected": {},
            "reference": [{"reply": "Ok?"}, {"reply": "Placed."}],
        }
    )
    assert case.turns == ["Check me out.", "Yes, place it."]
    assert case.confirmed(0) == frozenset() and case.confirmed(1) == {"place_order"}
    again = Case.model_validate(case.model_dump(mode="json", exclude_defaults=True))
    assert again.confirmed(1) == {"place_order"}


def test_breaks_and_waivers_name_keys_or_invariants_of_the_domain(tmp_path: Path) -> None:
    from commerce_evals.domains.worlds import cached_world

    world = cached_world("shop", None, True)
    case = Case.model_validate(
        {
            "id": "checkout-901-names",
            "priority": "medium",
            "difficulty": "medium",
            "state": {"seen_products": ["P-1145"]},
            "turns": ["add it"],
            "expected": {"changes": {"any": ["memory"], "reason": "a note may be saved or not"}},
            "waive": {"dry_run_first": "a dealer rule", "caps_combined": "the case orders twice"},
            "reference": [{"reply": "ok"}],
            "counterexamples": [
                {"name": "a", "breaks": ["chnages"], "turns": [{"reply": "x"}]},
                {"name": "b", "breaks": ["caps_combined"], "turns": [{"reply": "x"}]},
            ],
        }
    )
    problems = world.check_case(case, world.agents["shopper"])
    assert any("'dry_run_first' is no invariant of shop" in p for p in problems)
    assert any("'chnages' is neither a key nor an invariant" in p for p in problems)
    assert any("'caps_combined' is waived" in p for p in problems)

    path = tmp_path / "checkout.yaml"
    path.write_text(
        "- id: checkout-902-waives\n"
        "  priority: medium\n"
        "  difficulty: medium\n"
        "  turns: [hi]\n"
        "  expected: {changes: {any: [cart], reason: the cart may be tidied}}\n"
        "  waive: {caps_combined: the case orders twice on purpose}\n"
        "  reference: [{reply: hi}]\n"
    )
    listed = lint.waivers(lint.load([path]))
    assert any("changes not compared for ['cart']: the cart may be tidied" in w for w in listed)
    assert any("invariant caps_combined waived: the case orders twice" in w for w in listed)
