"""agent_step, the opaque one-frame form (spec: agent.step-opaque; ADR 0087 D1: "one frame
instead of 2N ... Adopters choose the cost")."""

from __future__ import annotations

from typing import Any

import pytest

from loom_ref.agent import (
    AgentLoopConfig,
    AgentStepConfigError,
    AgentTool,
    Skills,
    agent_step,
    create_agent_step_effect,
)
from loom_ref.effects import Effect, EffectRuntime
from loom_ref.journal import Crash, MemoryStore, Status
from loom_ref.kernel import ExecutionContext, Runtime, Workflow
from loom_ref.stream import TextBlock, ToolResultBlock

from .helpers import Host, journal, reply

SCRIPTS = [reply("", [("lookup", {"q": 1}), ("fail", {})]), reply("", [("lookup", {"q": 2})]),
           reply("Answer.")]
CONFIG = AgentLoopConfig(model_tool_id="llm", tools=[AgentTool(name="lookup"),
                                                     AgentTool(name="fail")],
                         skills=Skills(library={"s": "Be brief."}, select=lambda sc, q: ["s"]))


def boom(args: Any) -> Any:
    raise RuntimeError("nope")


def make() -> tuple[Host, Workflow]:
    host = Host(SCRIPTS, tools={"fail": boom})
    host._add("agent_step", create_agent_step_effect(CONFIG, host.effects), ())

    def body(ctx: ExecutionContext, input: Any) -> Any:
        return (yield from agent_step(ctx, CONFIG, input))

    return host, Workflow(name="agent", body=body)


def test_the_whole_loop_is_one_frame() -> None:
    store = MemoryStore()
    host, wf = make()
    result = Runtime(store=store, effects=host.effects, workflows=[wf]).start(
        "agent", "go", execution_id="a1")
    assert result.status is Status.COMPLETED
    assert result.output["text"] == "Answer." and result.output["turns"] == 3
    assert [e["kind"] for e in journal(store)] == [
        "EXECUTION_STARTED", "STEP_STARTED", "STEP_COMPLETED", "EXECUTION_COMPLETED"]
    step = journal(store)[1]["payload"]
    assert (step["stepId"], step["toolId"], step["input"]) == ("agent_step#1", "agent_step",
                                                                {"input": "go"})
    # the inner calls were transient: no step ids, no idempotency keys
    assert host.calls == [("agent_step", "agent_step#1")] + [
        (t, None) for t in ("llm", "lookup", "fail", "llm", "lookup", "llm")]
    # the skill decision ran in a scope and reached the prompt; the tool error was fed back
    system = host.adapter.requests[0].messages[0].content[0]
    assert isinstance(system, TextBlock) and system.text.endswith("Be brief.")
    last = host.adapter.requests[1].messages[-1].content[1]
    assert isinstance(last, ToolResultBlock)
    assert last.is_error and "effect.failed" in last.content


def test_a_crash_mid_loop_re_runs_the_whole_loop() -> None:
    store = MemoryStore()
    host, wf = make()
    lookups: list[Any] = []

    def dies_on_turn_one(args: Any) -> Any:  # the process dies inside turn 1's tool call
        lookups.append(args)
        if len(lookups) == 2:
            raise Crash(0)
        return {"ok": True}

    host = Host(SCRIPTS, tools={"fail": boom, "lookup": dies_on_turn_one})
    host._add("agent_step", create_agent_step_effect(CONFIG, host.effects), ())
    with pytest.raises(Crash):
        Runtime(store=store, effects=host.effects, workflows=[wf]).start(
            "agent", "go", execution_id="a1")
    assert [t for t, _ in host.calls] == ["agent_step", "llm", "lookup", "fail", "llm",
                                          "lookup"]
    fresh, wf2 = make()
    rt = Runtime(store=store, effects=fresh.effects, workflows=[wf2], on_warn=lambda m: None)
    assert rt.recover("a1").status is Status.IN_DOUBT  # not idempotent: K9 parks the frame
    result = rt.resolve("a1", "agent_step#1", retry=True)
    assert result.status is Status.COMPLETED
    # the retry made EVERY model and tool call again, turn 0 included: one frame, no
    # per-turn durability (compare test_crash.py, where only the unfinished turn re-runs)
    assert [t for t, _ in fresh.calls] == ["agent_step", "llm", "lookup", "fail", "llm",
                                           "lookup", "llm"]


def test_configs_that_need_the_body_are_refused_and_the_governed_host_works() -> None:
    host = Host(SCRIPTS)
    with pytest.raises(AgentStepConfigError) as err:
        create_agent_step_effect(AgentLoopConfig(model_tool_id="llm",
                                                 needs_approval=lambda c, t: True),
                                 host.effects)
    assert err.value.code == "argument.agent-step"
    with pytest.raises(AgentStepConfigError):
        create_agent_step_effect(AgentLoopConfig(model_tool_id="llm", stream_min_chars=5),
                                 host.effects)
    # on the governed runtime the opaque effect's inner calls take the governed route
    effects = EffectRuntime([Effect(tool_id="llm", execute=lambda ctx, i: {
        "role": "assistant", "content": [{"type": "text", "text": "hi"}]})])
    effects.register(create_agent_step_effect(AgentLoopConfig(model_tool_id="llm"), effects))

    def body(ctx: ExecutionContext, input: Any) -> Any:
        return (yield from agent_step(ctx, AgentLoopConfig(model_tool_id="llm"), input))

    result = Runtime(store=MemoryStore(), effects=effects, workflows=[
        Workflow(name="agent", body=body)]).start("agent", "x", execution_id="a1")
    assert result.status is Status.COMPLETED and result.output["text"] == "hi"


def test_a_selector_that_throws_inside_the_frame_fails_the_loop_as_the_kernel_would() -> None:
    # spec: agent.step-opaque, kernel.decider-throws -- a decider's raise is raised into the
    # loop inside the one frame: the step fails with it, nothing is chosen
    def select(scope: Any, query: str) -> Any:
        raise RuntimeError("selector down")

    config = AgentLoopConfig(model_tool_id="llm",
                             skills=Skills(library={"s": "Be brief."}, select=select))
    host = Host([reply("unused")])
    host._add("agent_step", create_agent_step_effect(config, host.effects), ())

    def body(ctx: ExecutionContext, input: Any) -> Any:
        return (yield from agent_step(ctx, config, input))

    result = Runtime(store=MemoryStore(), effects=host.effects,
                     workflows=[Workflow(name="agent", body=body)]).start(
        "agent", "go", execution_id="a1")
    assert result.status is Status.FAILED
    assert "selector down" in result.error["message"]
    assert host.adapter.requests == []  # the model was never called
