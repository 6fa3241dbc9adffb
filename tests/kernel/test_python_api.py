"""The kernel's Python conveniences that no protocol input reaches (spec: kernel.effect-seam,
kernel.effect-forms, kernel.replay-readonly, kernel.resume-schema): what a Python caller
gets back from them, and how they refuse a bad Python argument (by code)."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from loom_ref.effects import Effect
from loom_ref.errors import InvalidArgument
from loom_ref.journal import MemoryStore, Status
from loom_ref.kernel import EffectRegistry, ExecutionContext, Runtime, Workflow, replay
from loom_ref.kernel.seam import check_effect_host


def body(ctx: ExecutionContext, inp: Any) -> Generator[Any, Any, Any]:
    out = yield ctx.execute("echo", inp)
    return out


WF = Workflow(name="wf", body=body)


def registry() -> EffectRegistry:
    return EffectRegistry([Effect(tool_id="echo", execute=lambda ctx, input: input)])


def test_check_effect_host_hands_the_host_back() -> None:
    host = registry()
    assert check_effect_host(host) is host


def test_registry_membership_is_by_registered_tool_id() -> None:
    host = registry()
    assert "echo" in host
    assert "other" not in host
    assert 3 not in host
    assert ("echo",) not in host


def test_module_replay_needs_no_on_warn() -> None:
    store = MemoryStore()
    Runtime(store=store, effects=registry(), workflows=[WF]).start("wf", 7, execution_id="e1")
    result = replay(WF, store.read("e1").events)
    assert result.status is Status.COMPLETED and result.output == 7


def test_module_replay_refuses_an_on_warn_that_is_not_callable() -> None:
    store = MemoryStore()
    Runtime(store=store, effects=registry(), workflows=[WF]).start("wf", 7, execution_id="e1")
    with pytest.raises(InvalidArgument) as info:
        replay(WF, store.read("e1").events, on_warn="log")  # type: ignore[arg-type]
    assert info.value.code == "argument.invalid"


@pytest.mark.parametrize("bad", [[], "approval", 3])
def test_resume_schemas_must_be_a_mapping(bad: Any) -> None:
    with pytest.raises(InvalidArgument) as info:
        Workflow(name="wf", body=body, resume_schemas=bad)
    assert info.value.code == "argument.invalid"
