"""The ``agent_loop`` body instruction (INTERPRETING.md section 5a): schema, capability and
the JSON config, beyond the generated cases that pin the loop's behaviour."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from loom_ref.conformance.expressions import ScenarioBug
from loom_ref.conformance.inprocess import LoomRefAdapter
from loom_ref.conformance.model import model_expectation

from .helpers import CASES, SCHEMAS


def _case(name: str = "agent.loop/runner-body") -> dict[str, Any]:
    group, file = name.split("/")
    with open(f"{CASES}/{group}/{file}.json", encoding="utf-8") as f:
        data: dict[str, Any] = json.load(f)
    return data


def test_the_case_schema_accepts_the_instruction_and_checks_its_config() -> None:
    case = _case()
    assert SCHEMAS.problems("case", case) == []
    bad = copy.deepcopy(case)
    bad["workflow"]["body"][0]["config"]["maxTurns"] = 3
    assert SCHEMAS.problems("case", bad)
    bad = copy.deepcopy(case)
    bad["workflow"]["body"][0]["config"]["needsApproval"] = "charge"
    assert SCHEMAS.problems("case", bad)


def test_loom_ref_declares_agent_and_an_implementation_without_it_skips() -> None:
    start = LoomRefAdapter().handle({"cmd": "start", "protocol": 1})
    assert "agent" in start["implementation"]["capabilities"]
    case = _case()
    case.pop("expect")
    reply = LoomRefAdapter(capabilities=("scenario",), functions={}).run(case)
    assert reply == {"skipped": {"reason": "loom-ref lacks capability 'agent'"}}


def test_a_case_mistake_in_the_config_is_reported_as_a_broken_case() -> None:
    case = _case()
    case.pop("expect")
    case["workflow"]["body"][0]["config"]["tools"] = [{"name": "lookup", "colour": "red"}]
    reply = LoomRefAdapter().run(case)
    assert "colour" in reply["errored"]["message"]
    assert reply["errored"]["message"].startswith("cannot interpret the case")


def test_the_linear_model_does_not_run_agent_loops() -> None:
    with pytest.raises(ScenarioBug):
        model_expectation(_case())
