"""The model effect, a thin wrapper over create_llm_effect, and the loop's turn error
(spec: agent.model-input, agent.model-output, agent.turn-error, agent.model-deltas,
agent.effect-forms, agent.summarizer; ADR 0087 D3, ADR 0119 #3/#4/#12, seed 001 adapter
contract)."""

from __future__ import annotations

from typing import Any

import pytest

from loom_ref.agent import (
    AgentLoopConfig,
    Compaction,
    ModelTurnError,
    ReasoningRouter,
    agent_loop,
    agent_step,
    create_agent_model_effect,
    create_agent_step_effect,
    create_summarizer_effect,
)
from loom_ref.effects import (
    Effect,
    EffectContext,
    EffectRuntime,
    LlmStreamFailed,
    ManualClock,
    Signal,
)
from loom_ref.effects.call import EffectCall, Mode
from loom_ref.effects.errors import AbortedError
from loom_ref.errors import InvalidArgument
from loom_ref.journal import MemoryStore, Status
from loom_ref.kernel import ExecutionContext, Runtime, StepFailedError, Workflow
from loom_ref.stream import FinishReason, Role, ScriptedAdapter, TokenUsage, ToolSpec

from .helpers import Host, TurnScripted, journal, loop_workflow, reply, runtime

USER = {"role": "user", "content": [{"type": "text", "text": "hi"}]}
INPUT = {"messages": [USER], "system": "Be kind.",
         "tools": [{"name": "lookup", "description": "d", "parameters": {"type": "object"}}]}
USAGE = TokenUsage(input_tokens=10, output_tokens=5)


def call(input: Any = INPUT, **kw: Any) -> EffectCall:
    return EffectCall(tool_id="llm", input=input, mode=Mode.DURABLE, principal="a1", **kw)


def governed(adapter: Any, **kw: Any) -> EffectRuntime:
    return EffectRuntime([create_agent_model_effect(adapter, tool_id="llm", model="m", **kw)])


FAILURES = [
    (lambda: ScriptedAdapter(reply("partial", finish=FinishReason.error(
        "overloaded", code="provider.529"))), "effect.llm-error", "agent.turn-error",
     "provider.529"),
    (lambda: ScriptedAdapter(reply("never"), raise_after=1), "effect.llm-error",
     "agent.turn-error", "stream.scripted.failure"),
    (lambda: ScriptedAdapter(reply("x", finish=FinishReason.aborted("user stop"))),
     "effect.llm-aborted", "agent.turn-aborted", None),
]
FAILURE_IDS = ["finish-error", "adapter-raised", "finish-aborted"]


def test_is_an_effect_that_returns_the_assembled_message_and_sends_system_and_tools() -> None:
    # spec: agent.effect-forms -- an Effect record for the governed runtime
    adapter = TurnScripted([reply("Hello there.", [("lookup", {"q": 1})])])
    effect = create_agent_model_effect(adapter, tool_id="llm", model="m", max_tokens=64,
                                       temperature=0.5, idempotent=True)
    assert isinstance(effect, Effect) and effect.tool_id == "llm" and effect.idempotent
    rt = EffectRuntime([effect])
    out = rt.invoke(call())
    assert out == {"role": "assistant", "content": [
        {"type": "text", "text": "Hello there."},
        {"type": "tool-call", "id": "t0_call_0", "name": "lookup", "arguments": '{"q": 1}'}]}
    sent = adapter.requests[0]
    assert [m.role for m in sent.messages] == [Role.SYSTEM, Role.USER]
    assert sent.tools == (ToolSpec(name="lookup", description="d",
                                   parameters={"type": "object"}),)
    assert (sent.model, sent.max_tokens, sent.temperature) == ("m", 64, 0.5)
    # the input's own request fields win over the effect's defaults (deltas.llm-input)
    rt.invoke(call({**INPUT, "maxTokens": 7, "model": "other"}))
    assert (adapter.requests[1].model, adapter.requests[1].max_tokens) == ("other", 7)
    # without defaults it IS create_llm_effect's effect: no wrapper of its own
    plain = create_agent_model_effect(adapter, tool_id="llm", model="m")
    assert plain.execute.__qualname__.startswith("create_llm_effect")


def test_under_the_governed_runtime_a_per_call_sink_gets_the_terminal_chunk_with_usage() -> None:
    """ADR 0119 #3: "the terminal chunk is { delta: "", done: true, usage? }, so a caller
    learns the spend"; #12: the configured sink gets text chunks, never the terminal one."""
    configured: list[Any] = []
    rt = governed(TurnScripted([reply("abcdef")]), on_delta=configured.append)
    for mode in (Mode.TRANSIENT, Mode.DURABLE):
        per_call: list[Any] = []
        configured.clear()
        if mode is Mode.DURABLE:
            out = rt.invoke(call(on_delta=per_call.append))
        else:
            out = rt.invoke_transient("llm", INPUT, principal="a1", on_delta=per_call.append)
        assert out["content"][0]["text"] == "abcdef"
        assert [(d.delta.value, d.delta.origin, d.done) for d in per_call] == [
            ("abc", "llm:llm", False), ("def", "llm:llm", False), ("", "llm:llm", True)]
        assert per_call[-1].usage == USAGE  # the end-of-stream chunk carries the usage
        assert [d.delta.value for d in configured] == ["abc", "def"]


def test_without_a_runtime_per_call_first_then_configured_and_the_end_to_per_call() -> None:
    seen: list[tuple[str, str, bool]] = []
    effect = create_agent_model_effect(
        TurnScripted([reply("abcdef")]), tool_id="llm", model="m",
        on_delta=lambda d: seen.append(("configured", d.delta.value, d.done)))
    ctx = EffectContext(call(on_delta=lambda d: seen.append(("per-call", d.delta.value,
                                                                d.done))),
                        Signal(), ManualClock())
    effect.execute(ctx, INPUT)
    assert seen == [("per-call", "abc", False), ("configured", "abc", False),
                    ("per-call", "def", False), ("configured", "def", False),
                    ("per-call", "", True)]
    assert ctx.usage == {"inputTokens": 10, "outputTokens": 5}


@pytest.mark.parametrize("make, effect_code, turn_code, failure", FAILURES, ids=FAILURE_IDS)
def test_a_failed_finish_fails_the_effect_with_the_llm_code(make: Any, effect_code: str,
                                                            turn_code: str,
                                                            failure: Any) -> None:
    with pytest.raises(LlmStreamFailed) as err:
        governed(make()).invoke(call())
    assert err.value.code == effect_code
    assert err.value.details["failure"]["code"] == failure


@pytest.mark.parametrize("make, effect_code, turn_code, failure", FAILURES, ids=FAILURE_IDS)
def test_the_loop_turns_a_failed_model_step_into_its_turn_error(make: Any, effect_code: str,
                                                                turn_code: str,
                                                                failure: Any) -> None:
    """Seed 001: "The agent loop translates a finish-error/aborted into a turn error -- it
    never logs a normal completed assistant message for a failed step"."""
    store = MemoryStore()
    rt = Runtime(store=store, effects=governed(make()), workflows=[
        loop_workflow(AgentLoopConfig(model_tool_id="llm"))])
    result = rt.start("agent", "hi", execution_id="a1")
    assert result.status is Status.FAILED
    assert result.error["code"] == turn_code
    assert effect_code in result.error["message"] and "#turn:0" in result.error["message"]
    events = journal(store)
    assert [e["kind"] for e in events] == [
        "EXECUTION_STARTED", "STEP_STARTED", "STEP_FAILED", "EXECUTION_FAILED"]
    step_failed = events[2]["payload"]
    assert step_failed["stepId"] == "#turn:0" and step_failed["error"]["code"] == effect_code
    if failure:
        assert f"({failure})" in step_failed["error"]["message"]
    # replay serves the same failure and the same turn error, without calling the adapter
    again = rt.recover("a1")
    assert again.status is Status.FAILED and again.error == result.error


def test_the_loop_raises_model_turn_error_with_the_cause() -> None:
    gen = agent_loop(ExecutionContext("a1"), AgentLoopConfig(model_tool_id="llm"), "hi")
    cmd = next(gen)
    cause = {"code": "effect.llm-error", "message": "the model stream ended with finish error"}
    with pytest.raises(ModelTurnError) as err:
        gen.throw(StepFailedError(step_id=cmd.step_id, error=cause))
    assert err.value.code == "agent.turn-error"
    assert err.value.details == {"step": "#turn:0", "cause": cause}
    assert isinstance(err.value.__cause__, StepFailedError)
    # any other step failure is not a turn error: it passes through unchanged
    gen = agent_loop(ExecutionContext("a1"), AgentLoopConfig(model_tool_id="llm"), "hi")
    cmd = next(gen)
    with pytest.raises(StepFailedError) as other:
        gen.throw(StepFailedError(step_id=cmd.step_id,
                                  error={"code": "effect.denied", "message": "no"}))
    assert other.value.code == "effect.denied"


def test_a_failed_summary_is_a_turn_error_and_its_step_failed_llm_error() -> None:
    failing = ScriptedAdapter(reply("", finish=FinishReason.error("down", code="p.500")))
    summarize = create_summarizer_effect(failing, tool_id="summarize", model="small")
    host = Host([reply(f"Step {i}.", [("lookup", {"i": i})]) for i in range(5)],
                summarize=summarize)
    config = AgentLoopConfig(model_tool_id="llm", tools=[], max_iterations=10,
                             compaction=Compaction(tool_id="summarize", after_messages=3,
                                                   keep_recent=1))
    store = MemoryStore()
    result = runtime(store, host, loop_workflow(config)).start("agent", "go",
                                                               execution_id="a1")
    assert result.status is Status.FAILED and result.error["code"] == "agent.turn-error"
    failed = [e["payload"] for e in journal(store) if e["kind"] == "STEP_FAILED"]
    assert [(p["stepId"], p["error"]["code"]) for p in failed] == [
        ("#turn:2:compact", "effect.llm-error")]


def test_a_routed_turn_whose_model_call_fails_is_a_turn_error_and_records_nothing() -> None:
    host = Host([reply("unused")])
    host._add("broken", create_agent_model_effect(
        ScriptedAdapter(reply("x", finish=FinishReason.aborted("stop"))), tool_id="broken",
        model="m"), ())
    config = AgentLoopConfig(router=ReasoningRouter(routes=["broken"],
                                                    select=lambda scope, req: "broken"))
    store = MemoryStore()
    result = runtime(store, host, loop_workflow(config)).start("agent", "hi",
                                                               execution_id="a1")
    assert result.status is Status.FAILED and result.error["code"] == "agent.turn-aborted"
    assert "effect.llm-aborted" in result.error["message"]
    recorded = [e["payload"]["decisionId"] for e in journal(store)
                if e["kind"] == "DECISION_RECORDED"]
    assert recorded == ["#turn:0:route"]  # the failed call decision recorded nothing


def test_inside_agent_step_a_failed_model_call_is_the_turn_error_of_the_step() -> None:
    config = AgentLoopConfig(model_tool_id="llm")
    effects = governed(ScriptedAdapter(reply("x", finish=FinishReason.error("boom"))))
    effects.register(create_agent_step_effect(config, effects))

    def body(ctx: ExecutionContext, input: Any) -> Any:
        return (yield from agent_step(ctx, config, input))

    store = MemoryStore()
    result = Runtime(store=store, effects=effects, workflows=[
        Workflow(name="agent", body=body)]).start("agent", "x", execution_id="a1")
    assert result.status is Status.FAILED and result.error["code"] == "agent.turn-error"
    failed = [e["payload"]["error"]["code"] for e in journal(store)
              if e["kind"] == "STEP_FAILED"]
    assert failed == ["agent.turn-error"]


def test_an_aborted_signal_is_the_routes_abort_not_a_turn_error() -> None:
    signal = Signal()
    signal.abort("cancelled")
    adapter = TurnScripted([reply("hello")])
    with pytest.raises(AbortedError) as err:
        governed(adapter).invoke(call(signal=signal))
    assert err.value.code == "effect.aborted"
    assert adapter.requests == []


@pytest.mark.parametrize("bad", [
    None, {"messages": "x"}, {"messages": [USER], "extra": 1},
    {"messages": [{"role": "robot", "content": []}]}, {"messages": [], "tools": [{"x": 1}]},
    {"messages": [], "system": 3},
])
def test_malformed_input_is_refused(bad: Any) -> None:
    adapter = TurnScripted([reply("x")])
    with pytest.raises(InvalidArgument):
        governed(adapter, max_tokens=5).invoke(call(bad))
    assert adapter.requests == []


def test_a_tainted_prompt_is_refused_before_the_adapter_is_called() -> None:
    from loom_ref.governance import TaintedRequestError, taint

    adapter = TurnScripted([reply("x")])
    tainted = {**INPUT, "messages": [{"role": "user", "content": [
        {"type": "text", "text": taint("delta fed back", "llm:planner")}]}]}
    for kw in ({}, {"temperature": 0.1}):
        with pytest.raises(TaintedRequestError) as err:
            governed(adapter, **kw).invoke(call(tainted))
        assert err.value.code == "governance.tainted-request"
    assert adapter.requests == []


@pytest.mark.parametrize("kw", [
    {"adapter": object()}, {"model": ""}, {"tool_id": ""}, {"max_tokens": "64"},
    {"max_tokens": True}, {"temperature": "hot"}, {"on_delta": 3}, {"on_reset": "x"},
    {"idempotent": "yes"},
])
def test_bad_construction_is_refused(kw: dict[str, Any]) -> None:
    args: dict[str, Any] = {"adapter": TurnScripted([]), "tool_id": "llm", "model": "m", **kw}
    with pytest.raises(InvalidArgument):
        create_agent_model_effect(args.pop("adapter"), **args)
