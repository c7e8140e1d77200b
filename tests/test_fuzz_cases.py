"""Fuzzed case files: each yields a clear error or a valid case, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from commerce_evals.cases.model import Case, CaseFileError, Expected, load_cases, parse_case

CASE_KEYS = list(Case.model_fields)
EXPECTED_KEYS = list(Expected.model_fields)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.sampled_from(["checkout-001-x", "P-1001", "*", "critical", "", "\u202e\u0000"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(
            st.one_of(st.sampled_from(EXPECTED_KEYS), st.text(max_size=8)), inner, max_size=4
        ),
    ),
    max_leaves=12,
)
expected = st.dictionaries(st.sampled_from(EXPECTED_KEYS), values, max_size=5)
entries = st.one_of(
    values,
    st.fixed_dictionaries(
        {
            "id": st.one_of(st.sampled_from(["checkout-001-ok", "bad id"]), st.text(max_size=20)),
            "turns": st.one_of(st.lists(st.text(max_size=30), max_size=3), values),
            "expected": st.one_of(expected, values),
        },
        optional={
            **{k: values for k in CASE_KEYS if k not in {"id", "turns", "expected"}},
            # seed 003's task format goes through its own adapter
            "user_turns": values,
            "graders": st.lists(
                st.dictionaries(st.sampled_from(["type", "expect", "forbidden", "before"]), values)
            ),
        },
    ),
)


@pytest.mark.slow  # hundreds of generated case files
@settings(max_examples=300, deadline=None)
@given(entries)
def test_any_entry_is_a_case_or_a_clear_error(entry) -> None:
    try:
        case = parse_case(entry, "fuzz.yaml", 0)
    except CaseFileError as err:
        assert err.problems and all(p.startswith("fuzz.yaml: ") for p in err.problems)
        return
    assert isinstance(case, Case)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.text(max_size=200))
def test_any_file_text_is_cases_or_a_clear_error(tmp_path: Path, text: str) -> None:
    path = tmp_path / "fuzz.yaml"
    path.write_text(text, encoding="utf-8")
    try:
        load_cases([path])
    except CaseFileError as err:
        assert all(str(path) in p for p in err.problems)


@pytest.mark.slow  # a hundred generated case files written and loaded
@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(entries, max_size=3))
def test_any_yaml_document_is_cases_or_a_clear_error(tmp_path: Path, docs) -> None:
    path = tmp_path / "fuzz.yaml"
    try:
        path.write_text(yaml.safe_dump(docs, allow_unicode=True), encoding="utf-8")
    except (yaml.YAMLError, UnicodeEncodeError):
        return  # not every generated value is representable as YAML
    try:
        load_cases([path])
    except CaseFileError as err:
        assert all(str(path) in p for p in err.problems)
