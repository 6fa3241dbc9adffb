"""The loop's configuration and its handling of tool calls and model output (spec:
agent.model-access, agent.max-iterations, agent.loop-input, agent.tool-*, agent.model-response,
agent.stream-text)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from loom_ref.agent import (
    AgentLoopConfig,
    AgentTool,
    ModelAccessError,
    ReasoningRouter,
    agent_loop,
    initial_messages,
)
from loom_ref.effects import Effect
from loom_ref.errors import InvalidArgument
from loom_ref.journal import MemoryStore, Status
from loom_ref.kernel import EffectRegistry, ExecutionContext, Runtime
from loom_ref.stream import ToolResultBlock

from .helpers import Host, journal, loop_workflow, reply, runtime, started

TOOLS = [AgentTool(name="lookup", description="find things",
                   parameters={"type": "object"}), AgentTool(name="fail")]


def boom(args: Any) -> Any:
    raise RuntimeError("disk full")


def run(scripts: Any, prompt: Any = "go", **config: Any) -> tuple[MemoryStore, Host, Any]:
    store, host = MemoryStore(), Host(scripts, tools={"fail": boom})
    cfg = AgentLoopConfig(model_tool_id="llm", tools=TOOLS, **config)
    result = runtime(store, host, loop_workflow(cfg)).start("agent", prompt, execution_id="a1")
    return store, host, result


def last_tool_results(host: Host) -> list[Any]:
    blocks = host.adapter.requests[-1].messages[-1].content
    return [(json.loads(b.content), b.is_error) for b in blocks
            if isinstance(b, ToolResultBlock)]


@pytest.mark.parametrize("kwargs", [{}, {"model_tool_id": "llm", "router": ReasoningRouter(
    routes=("a",), select=lambda s, r: "a")}], ids=["neither", "both"])
def test_model_access_is_refused_up_front(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ModelAccessError) as err:
        AgentLoopConfig(**kwargs)
    assert err.value.code == "argument.agent-model-access"
    assert isinstance(err.value, InvalidArgument)
    # the message names which mistake it was (only a Python caller reads it)
    which = "both" if kwargs else "neither"
    assert f"({which} given)" in str(err.value)


@pytest.mark.parametrize("bad", [
    {"model_tool_id": ""}, {"router": object()}, {"max_iterations": 0},
    {"max_tool_calls_per_turn": True}, {"warn_transcript_bytes": True},
    {"warn_transcript_bytes": 0}, {"tools": [AgentTool(name="a"), AgentTool(name="a")]},
    {"tools": ["a"]}, {"needs_approval": 3}, {"stream_min_chars": 0}, {"system": None},
    {"compaction": {"after_bytes": 1}},
])
def test_bad_config_values_are_refused_at_construction(bad: dict[str, Any]) -> None:
    base: dict[str, Any] = {"model_tool_id": "llm"}
    if "router" in bad:
        base = {}
    with pytest.raises(InvalidArgument):
        AgentLoopConfig(**{**base, **bad})


def test_max_iterations_ends_the_loop_with_a_clear_code() -> None:
    _store, host, result = run([reply("", [("lookup", {})])] * 3, max_iterations=3)
    assert result.status is Status.FAILED
    assert result.error["code"] == "agent.max-iterations"
    assert "max_iterations=3" in result.error["message"]
    assert host.steps("llm") == ["#turn:0", "#turn:1", "#turn:2"]


def test_tool_problems_reach_the_model_as_error_results_and_the_loop_carries_on() -> None:
    calls: list[tuple[str, Any]] = [("nope", {}), ("lookup", "{not json"), ("lookup", "[1]"),
                                    ("fail", {}), ("lookup", ""), ("lookup", {"q": 1})]
    store, host, result = run([reply("", calls), reply("Recovered.")],
                              max_tool_calls_per_turn=5)
    assert result.status is Status.COMPLETED and result.output["text"] == "Recovered."
    results = last_tool_results(host)
    codes = [r["error"]["code"] if err else None for r, err in results]
    assert codes == ["agent.unknown-tool", "agent.tool-arguments", "agent.tool-arguments",
                     "effect.failed", None, "agent.tool-call-limit"]
    assert results[3][0]["error"]["message"] == "RuntimeError: disk full"
    assert results[4] == ({"tool": "lookup", "result": {"echo": {}, "price": 10}}, False)
    # only calls that got to run have steps; indices stay the positions in the response
    assert [p["stepId"] for p in started(journal(store)) if p["toolId"] != "llm"] == [
        "#turn:0:tool:3", "#turn:0:tool:4"]


def test_the_tools_offered_and_the_final_answer_shape() -> None:
    store, _host, result = run([reply("Just text.")])
    first = started(journal(store))[0]["input"]
    assert first["tools"] == [
        {"name": "lookup", "description": "find things", "parameters": {"type": "object"}},
        {"name": "fail", "description": "", "parameters": {}}]
    assert result.output == {"text": "Just text.", "turns": 1, "message": {
        "role": "assistant", "content": [{"type": "text", "text": "Just text."}]}}


def test_messages_input_form_and_bad_inputs() -> None:
    msgs = [{"role": "user", "content": [{"type": "text", "text": "a"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "b"}]},
            {"role": "user", "content": [{"type": "text", "text": "c"}]}]
    store, _, result = run([reply("", [("lookup", {})]), reply("ok")], {"messages": msgs})
    assert result.status is Status.COMPLETED
    assert started(journal(store))[0]["input"]["messages"] == msgs
    bad: Any
    for bad in ({"messages": []}, {"messages": [{"role": "x"}]}, 42, {"prompt": "x"}):
        _, _, result = run([reply("ok")], bad)
        assert result.status is Status.FAILED and result.error["code"] == "argument.agent-input"


def test_a_malformed_input_message_is_named_in_the_refusal() -> None:
    """A message the wire reader refuses is reported as malformed, with the reader's words;
    an input of the wrong shape gets the generic refusal (only a Python caller reads either)."""
    with pytest.raises(InvalidArgument) as err:
        initial_messages({"messages": [{"role": "x", "content": []}]})
    assert err.value.code == "argument.agent-input"
    assert str(err.value).startswith("argument.agent-input: malformed agent input: ")
    assert "$.messages[0]" in str(err.value)
    with pytest.raises(InvalidArgument) as err:
        initial_messages({"messages": []})
    assert err.value.code == "argument.agent-input"
    assert "malformed" not in str(err.value)


@pytest.mark.parametrize("output", [
    {"role": "user", "content": [{"type": "text", "text": "x"}]}, "plain text", {"role": "x"},
])
def test_a_model_output_that_is_not_an_assistant_message_fails_the_run(output: Any) -> None:
    rt = Runtime(store=MemoryStore(),
                 effects=EffectRegistry([Effect(tool_id="llm", execute=lambda ctx, input: output)]),
                 workflows=[loop_workflow(AgentLoopConfig(model_tool_id="llm"))])
    result = rt.start("agent", "hi", execution_id="a1")
    assert result.status is Status.FAILED and result.error["code"] == "agent.model-response"


def test_stream_min_chars_appends_the_text_in_sentence_batches() -> None:
    store, _, _ = run([reply("First sentence here. Second one", [("lookup", {})]),
                       reply("Done. Really done.")], stream_min_chars=8)
    streamed = [e["payload"] for e in journal(store) if e["kind"] == "STREAM_APPENDED"]
    assert streamed == [
        {"streamId": "stream#1", "data": {"turn": 0, "text": "First sentence here. "}},
        {"streamId": "stream#2", "data": {"turn": 0, "text": "Second one"}},
        {"streamId": "stream#3", "data": {"turn": 1, "text": "Done. Really done."}}]


def test_agent_loop_refuses_a_config_that_is_not_one() -> None:
    gen = agent_loop(ExecutionContext("e"), {"model_tool_id": "llm"}, "hi")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument):
        next(gen)
