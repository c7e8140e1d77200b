"""The pydantic model of the task arguments: one declaration per argument, read once."""

from __future__ import annotations

import typing

from commerce_evals.harness.task_args import ARGUMENTS, FlowArguments, flow_arguments


def test_every_flow_argument_has_the_type_its_declaration_gives() -> None:
    written = typing.get_type_hints(FlowArguments, include_extras=True)
    for name in FlowArguments.model_fields:
        declared = ARGUMENTS[name][0]
        assert written[name] in (declared, declared | None), name


def test_judge_is_read_once_to_a_bool() -> None:
    received = flow_arguments(lambda **arguments: arguments)
    assert received(judge="off")["judge"] is False
    assert received(judge=" on ")["judge"] is True
    assert received()["judge"] is True
