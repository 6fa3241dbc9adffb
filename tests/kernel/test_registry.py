"""The plain registry hosts what the governed runtime hosts (spec: kernel.effect-forms).

One effect shape, ``Effect(tool_id=..., execute=fn(ctx, input))``, registered unchanged with
either host; the registry adds no governance, and its ``ctx.on_delta`` is the direct writer
(spec: deltas.no-runtime).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from loom_ref.agent import create_agent_model_effect
from loom_ref.effects import (
    SILENT,
    DirectWriter,
    Effect,
    EffectCall,
    EffectContext,
    EffectDelta,
    EffectRuntime,
    ManualClock,
    Mode,
    ModeRefused,
    UnknownEffectError,
)
from loom_ref.errors import InvalidArgument
from loom_ref.governance import unwrap_tainted
from loom_ref.journal import MemoryStore, Status
from loom_ref.kernel import EffectRegistry, ExecutionContext, Runtime, Workflow
from loom_ref.stream import FinishChunk, FinishReason, ScriptedAdapter, TextDelta, TokenUsage

USAGE = TokenUsage(input_tokens=3, output_tokens=2)


def charge(ctx: EffectContext, input: Any) -> Any:
    return {"receipt": f"r-{input['amount']}", "key": ctx.idempotency_key,
            "attempt": ctx.attempt, "now": ctx.clock.now()}


def order(ctx: ExecutionContext, amount: Any) -> Generator[Any, Any, Any]:
    return (yield ctx.execute("charge", {"amount": amount}))


def test_one_effect_record_runs_unchanged_on_either_host() -> None:
    # spec: kernel.effect-forms, kernel.effect-seam
    effect = Effect(tool_id="charge", execute=charge, idempotent=True)
    outputs = []
    for host in (EffectRegistry([effect], clock=ManualClock(5.0)),
                 EffectRuntime([effect], clock=ManualClock(5.0))):
        assert "charge" in host and host.get_effect("charge") is effect
        assert host.is_idempotent("charge") and not host.is_idempotent("other")
        rt = Runtime(store=MemoryStore(), effects=host, workflows=[Workflow(name="o",
                                                                            body=order)])
        result = rt.start("o", 3, execution_id="x")
        assert result.status is Status.COMPLETED
        outputs.append(result.output)
    assert outputs[0] == outputs[1] == {"receipt": "r-3", "key": "x/charge#1", "attempt": 1,
                                        "now": 5.0}


def test_the_registry_refuses_what_the_effect_does_not_allow() -> None:
    registry = EffectRegistry([Effect(tool_id="d", execute=charge, modes=Mode.DURABLE)])
    with pytest.raises(ModeRefused) as info:
        registry.invoke_transient("d", {"amount": 1}, principal="p")
    assert info.value.code == "effect.mode-refused"
    with pytest.raises(UnknownEffectError):
        registry.invoke_transient("nope", None, principal="p")
    with pytest.raises(InvalidArgument):
        registry.register(Effect(tool_id="d", execute=charge))  # registered once
    durable = EffectCall(tool_id="d", input=None, mode=Mode.DURABLE, principal="p")
    with pytest.raises(InvalidArgument):
        registry.invoke_transient_call(durable)  # the doors keep their modes
    with pytest.raises(InvalidArgument):
        registry.invoke(EffectCall(tool_id="d", input=None, mode=Mode.TRANSIENT,
                                   principal="p"))


def test_under_the_registry_deltas_go_straight_to_the_sinks() -> None:
    # spec: deltas.no-runtime -- per-call first, then the configured sink; the end chunk to
    # the per-call sink only; and an effect writes exactly as it does under the runtime
    seen: list[tuple[str, EffectDelta]] = []

    def streams(ctx: EffectContext, input: Any) -> str:
        assert isinstance(ctx.on_delta, DirectWriter)
        ctx.on_delta("Hel")
        ctx.on_delta("")  # ignored
        ctx.on_delta("lo")
        ctx.on_delta.end(USAGE)
        return "Hello"

    registry = EffectRegistry([Effect(tool_id="llm", execute=streams,
                                      delta_sink=lambda c: seen.append(("configured", c)))])
    assert registry.invoke_transient("llm", None, principal="p",
                                     on_delta=lambda c: seen.append(("per-call", c))) == "Hello"
    assert [(who, unwrap_tainted(c.delta), c.done) for who, c in seen] == [
        ("per-call", "Hel", False), ("configured", "Hel", False),
        ("per-call", "lo", False), ("configured", "lo", False), ("per-call", "", True)]
    assert seen[-1][1].usage == USAGE and seen[0][1].delta.origin == "llm:llm"


def test_with_no_sink_the_registry_gives_the_silent_channel() -> None:
    got: list[Any] = []
    registry = EffectRegistry([Effect(tool_id="e", execute=lambda ctx, input: got.append(
        ctx.on_delta))])
    registry.invoke_transient("e", None, principal="p")
    assert got == [SILENT]


def test_the_model_effect_runs_on_the_registry_too() -> None:
    # spec: agent.effect-forms -- the model effect is an Effect record like any other
    adapter = ScriptedAdapter([TextDelta(index=0, text="hi"),
                               FinishChunk(reason=FinishReason.stop())])
    shown: list[EffectDelta] = []
    model = create_agent_model_effect(adapter, tool_id="llm", model="m", on_delta=shown.append)
    out = EffectRegistry([model]).invoke_transient("llm", {"messages": []}, principal="p")
    assert out == {"role": "assistant", "content": [{"type": "text", "text": "hi"}]}
    assert [unwrap_tainted(c.delta) for c in shown] == ["hi"]


@pytest.mark.parametrize("bad", ["x", 3, [object()], [lambda ctx, input: 1]])
def test_the_registry_takes_effect_records_only(bad: Any) -> None:
    with pytest.raises(InvalidArgument):
        EffectRegistry(bad)
