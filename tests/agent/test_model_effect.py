"""The model effect (spec: agent.model-input, agent.model-output, agent.turn-error,
agent.model-deltas, agent.effect-forms; ADR 0087 D3, seed 001 adapter contract)."""

from __future__ import annotations

from typing import Any

import pytest

from loom_ref.agent import AgentLoopConfig, ModelTurnError, create_agent_model_effect
from loom_ref.effects import Effect, EffectContext, EffectRuntime, ManualClock, Signal
from loom_ref.effects.call import EffectCall, Mode
from loom_ref.errors import InvalidArgument
from loom_ref.journal import MemoryStore, Status
from loom_ref.kernel import EffectRegistry, Runtime
from loom_ref.stream import FinishReason, Role, ScriptedAdapter, ToolSpec

from .helpers import TurnScripted, journal, loop_workflow, reply

USER = {"role": "user", "content": [{"type": "text", "text": "hi"}]}
INPUT = {"messages": [USER], "system": "Be kind.",
         "tools": [{"name": "lookup", "description": "d", "parameters": {"type": "object"}}]}


def call(input: Any = INPUT, **kw: Any) -> EffectCall:
    return EffectCall(tool_id="llm", input=input, mode=Mode.DURABLE, principal="a1", **kw)


def test_returns_the_assembled_message_and_sends_system_and_tools() -> None:
    adapter = TurnScripted([reply("Hello there.", [("lookup", {"q": 1})])])
    fn = create_agent_model_effect(adapter, model="m", max_tokens=64, temperature=0.5)
    out = fn(call())
    assert out == {"role": "assistant", "content": [
        {"type": "text", "text": "Hello there."},
        {"type": "tool-call", "id": "t0_call_0", "name": "lookup", "arguments": '{"q": 1}'}]}
    sent = adapter.requests[0]
    assert [m.role for m in sent.messages] == [Role.SYSTEM, Role.USER]
    assert sent.tools == (ToolSpec(name="lookup", description="d",
                                   parameters={"type": "object"}),)
    assert (sent.model, sent.max_tokens, sent.temperature) == ("m", 64, 0.5)
    # the governed host form: Effect(execute=fn)
    rt = EffectRuntime([Effect(tool_id="llm", execute=fn)])
    assert rt.invoke(call()) == out


@pytest.mark.parametrize("adapter, code, failure", [
    (ScriptedAdapter(reply("partial", finish=FinishReason.error("overloaded",
                                                                code="provider.529"))),
     "agent.turn-error", "provider.529"),
    (ScriptedAdapter(reply("never"), raise_after=1), "agent.turn-error",
     "stream.scripted.failure"),
    (ScriptedAdapter(reply("x", finish=FinishReason.aborted("user stop"))),
     "agent.turn-aborted", None),
], ids=["finish-error", "adapter-raised", "finish-aborted"])
def test_a_failed_finish_is_a_turn_error_never_a_message(adapter: Any, code: str,
                                                          failure: Any) -> None:
    fn = create_agent_model_effect(adapter, model="m")
    with pytest.raises(ModelTurnError) as err:
        fn(call())
    assert err.value.code == code
    assert err.value.details["failure"]["code"] == failure
    if failure:
        assert f"({failure})" in err.value.message
    # in a loop: the step fails, the execution fails, no assistant message is journaled
    store = MemoryStore()
    rt = Runtime(store=store, effects=EffectRegistry().add("llm", fn), workflows=[
        loop_workflow(AgentLoopConfig(model_tool_id="llm"))])
    result = rt.start("agent", "hi", execution_id="a1")
    assert result.status is Status.FAILED and result.error["code"] == code
    kinds = [e["kind"] for e in journal(store)]
    assert kinds == ["EXECUTION_STARTED", "STEP_STARTED", "STEP_FAILED", "EXECUTION_FAILED"]


def test_an_aborted_signal_severs_the_stream_as_a_turn_abort() -> None:
    signal = Signal()
    signal.abort("cancelled")
    fn = create_agent_model_effect(ScriptedAdapter(reply("hello")), model="m")
    with pytest.raises(ModelTurnError) as err:
        fn(call(signal=signal))
    assert err.value.code == "agent.turn-aborted"


def test_deltas_per_call_first_then_configured_without_a_runtime_channel() -> None:
    seen: list[tuple[str, str]] = []
    fn = create_agent_model_effect(TurnScripted([reply("abcdef")]), model="m",
                                   on_delta=lambda t: seen.append(("configured", t)))
    fn(call(on_delta=lambda t: seen.append(("per-call", t))))
    assert seen == [("per-call", "abc"), ("configured", "abc"),
                    ("per-call", "def"), ("configured", "def")]


def test_with_the_runtime_channel_only_the_channel_receives_and_usage_is_reported() -> None:
    configured: list[str] = []
    channel: list[str] = []
    fn = create_agent_model_effect(TurnScripted([reply("abcdef")]), model="m",
                                   on_delta=configured.append)
    ctx = EffectContext(call(), Signal(), ManualClock())
    ctx.on_delta = channel.append  # what the governed-streaming layer installs
    out = fn(ctx, INPUT)
    assert out["content"][0]["text"] == "abcdef"
    assert channel == ["abc", "def"] and configured == []
    assert ctx.usage == {"inputTokens": 10, "outputTokens": 5}


@pytest.mark.parametrize("bad", [
    None, {"messages": "x"}, {"messages": [USER], "extra": 1},
    {"messages": [{"role": "robot", "content": []}]}, {"messages": [], "tools": [{"x": 1}]},
    {"messages": [], "system": 3},
])
def test_malformed_input_is_refused(bad: Any) -> None:
    fn = create_agent_model_effect(TurnScripted([reply("x")]), model="m")
    with pytest.raises(InvalidArgument):
        fn(call(bad))


def test_a_tainted_prompt_is_refused_before_the_adapter_is_called() -> None:
    from loom_ref.governance import TaintedRequestError, taint

    adapter = TurnScripted([reply("x")])
    fn = create_agent_model_effect(adapter, model="m")
    tainted = {**INPUT, "messages": [{"role": "user", "content": [
        {"type": "text", "text": taint("delta fed back", "llm:planner")}]}]}
    with pytest.raises(TaintedRequestError) as err:
        fn(call(tainted))
    assert err.value.code == "governance.tainted-request"
    assert adapter.requests == []


def test_bad_construction_and_bad_call_forms_are_refused() -> None:
    with pytest.raises(InvalidArgument):
        create_agent_model_effect(object(), model="m")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument):
        create_agent_model_effect(TurnScripted([]), model="")
    fn = create_agent_model_effect(TurnScripted([reply("x")]), model="m")
    with pytest.raises(InvalidArgument):
        fn(call(), INPUT)
    with pytest.raises(InvalidArgument):
        fn("call")  # type: ignore[arg-type]
