"""Compaction as a recorded step (spec: agent.compaction-*, agent.kept-suffix-*,
agent.warn-transcript, agent.summarizer; ADR 0087 D6 and its amendments' Verification)."""

from __future__ import annotations

import warnings
from typing import Any

import attrs
import pytest

from loom_ref import LoomWarning
from loom_ref.agent import (
    SUMMARY_PREFIX,
    AgentLoopConfig,
    AgentTool,
    Compaction,
    CompactionConfigError,
    MemoryContentStore,
    claim_check_middleware,
    create_summarizer_effect,
    message_bytes,
    render_transcript,
)
from loom_ref.agent.compaction import compaction_plan
from loom_ref.effects import Effect, EffectRuntime
from loom_ref.errors import InvalidArgument
from loom_ref.journal import MemoryStore, Status
from loom_ref.stream import TextBlock, TokenUsage

from .helpers import Host, TurnScripted, crash_then, journal, loop_workflow, reply, runtime, started

TURNS = 12
LONG = [reply(f"Step {i}.", [("lookup", {"i": i})]) for i in range(TURNS - 1)] + [
    reply("Finished.")]
TOOLS = [AgentTool(name="lookup"), AgentTool(name="big")]
PLAIN = AgentLoopConfig(model_tool_id="llm", tools=TOOLS, max_iterations=40)
BY_COUNT = attrs.evolve(PLAIN, compaction=Compaction(tool_id="summarize", after_messages=6,
                                                     keep_recent=3))


def run(config: AgentLoopConfig, scripts: Any = LONG, prompt: Any = "go", **host_kw: Any
        ) -> tuple[MemoryStore, Host, Any]:
    store, host = MemoryStore(), Host(scripts, **host_kw)
    result = runtime(store, host, loop_workflow(config)).start("agent", prompt,
                                                               execution_id="a1")
    return store, host, result


def model_inputs(store: MemoryStore) -> list[list[Any]]:
    return [p["input"]["messages"] for p in started(journal(store)) if p["toolId"] == "llm"]


def texts(store: MemoryStore) -> list[str]:
    return [b.get("text", "") for m in model_inputs(store) for msg in m for b in msg["content"]]


def compacts(store: MemoryStore) -> list[dict[str, Any]]:
    return [p for p in started(journal(store)) if p["stepId"].endswith(":compact")]


def test_an_unconfigured_loop_still_grows() -> None:
    store, _, result = run(PLAIN)
    assert result.status is Status.COMPLETED
    assert [len(m) for m in model_inputs(store)] == [2 * k + 1 for k in range(TURNS)]
    assert compacts(store) == []


def test_the_transcript_folds_at_the_threshold_and_stops_tracking_conversation_length() -> None:
    store, host, result = run(BY_COUNT)
    assert result.status is Status.COMPLETED and result.output["text"] == "Finished."
    sizes = [len(m) for m in model_inputs(store)]
    assert max(sizes) <= 6  # never more than after_messages, however long the conversation
    assert sizes[-4:] == sizes[-8:-4]  # a steady cycle, not a function of the turn count
    # the summary is its own recorded :compact frame against compaction.tool_id
    frames = compacts(store)
    assert frames and all(p["toolId"] == "summarize" for p in frames)
    assert frames[0]["stepId"] == "#turn:3:compact"  # 7 messages > 6 before turn 3
    assert len(frames[0]["input"]["messages"]) == 7 - 3  # folds all but keep_recent
    after = model_inputs(store)[3]
    assert after[0]["content"][0]["text"] == SUMMARY_PREFIX + "4 messages folded"
    assert len(after) == 4  # the summary + keep_recent messages
    assert ("summarize", "#turn:3:compact") in host.calls


def test_after_bytes_folds_an_oversized_tool_result_with_after_messages_unmet() -> None:
    scripts = [reply("", [("big", {})]), reply("", [("lookup", {"i": 1})]),
               reply("", [("lookup", {"i": 2})]), reply("Done.")]
    config = attrs.evolve(PLAIN, compaction=Compaction(
        tool_id="summarize", after_messages=100, after_bytes=2000, keep_recent=4))
    store, _, result = run(config, scripts, tools={"big": lambda args: "x" * 5000})
    assert result.status is Status.COMPLETED
    inputs = model_inputs(store)
    frames = compacts(store)
    assert [f["stepId"] for f in frames] == ["#turn:1:compact", "#turn:2:compact"]
    # turn 1: the 5000-byte tool message alone is over after_bytes / 2 -> kept suffix is 1
    assert len(frames[0]["input"]["messages"]) == 2
    assert "x" * 5000 in str(inputs[1])
    # turn 2: the big result ages out on BYTES, though after_messages (100) is far away
    assert "x" * 5000 in str(frames[1]["input"]["messages"])
    assert all("x" * 5000 not in str(m) for m in inputs[2:])


def test_neither_threshold_crossed_compacts_nothing() -> None:
    config = attrs.evolve(PLAIN, compaction=Compaction(
        tool_id="summarize", after_messages=100, after_bytes=10**7))
    store, host, _ = run(config)
    assert compacts(store) == [] and "summarize" not in [t for t, _ in host.calls]
    assert [len(m) for m in model_inputs(store)] == [2 * k + 1 for k in range(TURNS)]


def test_a_single_oversized_message_skips_rather_than_summarizing() -> None:
    config = attrs.evolve(PLAIN, compaction=Compaction(tool_id="summarize", after_bytes=1000))
    store, host, result = run(config, [reply("Short answer.")], prompt="y" * 5000)
    assert result.status is Status.COMPLETED
    assert compacts(store) == [] and host.steps("summarize") == []


@pytest.mark.parametrize("config", [
    BY_COUNT,
    attrs.evolve(PLAIN, compaction=Compaction(tool_id="summarize", after_bytes=600,
                                              keep_recent=3)),
], ids=["after_messages", "after_bytes"])
def test_a_recovered_run_recomputes_the_identical_compact_payload(config: AgentLoopConfig
                                                                  ) -> None:
    base_store, base_host, _ = run(config)
    base = journal(base_store)
    assert compacts(base_store)
    for k in range(1, len(base) + 1):
        store = crash_then(k, lambda: (Host(LONG), loop_workflow(config)),
                           lambda rt: rt.start("agent", "go", execution_id="a1"))
        host = Host(LONG)
        assert runtime(store, host, loop_workflow(config)).recover("a1").status is (
            Status.COMPLETED)
        assert journal(store) == base  # every :compact input and id identical
        done = {e["payload"]["stepId"] for e in base[:k] if e["kind"] == "STEP_COMPLETED"}
        assert host.calls == [c for c in base_host.calls if c[1] not in done]


def test_the_constructor_guard() -> None:
    with pytest.raises(CompactionConfigError) as err:
        Compaction(tool_id="summarize")
    assert err.value.code == "argument.agent-compaction"
    assert Compaction(tool_id="summarize", after_bytes=4096).after_messages is None
    assert Compaction(tool_id="summarize", after_messages=5).keep_recent == 4
    assert Compaction(tool_id="summarize", after_messages=50).keep_recent == 8
    for bad in ({"after_messages": 4, "keep_recent": 4}, {"after_bytes": 10, "keep_recent": 0},
                {"after_bytes": 0}, {"after_messages": True}, {"after_messages": 1}):
        with pytest.raises(CompactionConfigError):
            Compaction(tool_id="summarize", **bad)
    with pytest.raises(CompactionConfigError):
        Compaction(tool_id="", after_bytes=10)


def test_the_warning_fires_once_for_an_uncompacted_transcript() -> None:
    seen: list[str] = []
    config = attrs.evolve(PLAIN, warn_transcript_bytes=500, on_warn=seen.append)
    run(config)
    assert len(seen) == 1 and seen[0].startswith("agent.transcript-bytes")
    assert "warn_transcript_bytes=500" in seen[0]
    seen.clear()
    run(attrs.evolve(config, warn_transcript_bytes=False))
    assert seen == []
    run(attrs.evolve(config, compaction=BY_COUNT.compaction))
    assert seen == []
    with pytest.warns(LoomWarning, match="agent.transcript-bytes"):
        run(attrs.evolve(PLAIN, warn_transcript_bytes=500))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run(PLAIN)  # the 256 KiB default is not reached by a small run


def test_a_claim_checked_compaction_tool_is_an_error_naming_the_config() -> None:
    mw = claim_check_middleware(MemoryContentStore(), ["summarize"])
    wrapped = mw.wrap(Effect(tool_id="summarize", execute=lambda ctx, input: {"summary": "s"}))
    _store, _, result = run(BY_COUNT, summarize=wrapped)
    assert result.status is Status.FAILED
    assert result.error["code"] == "agent.claim-checked-output"
    assert "claim_check_middleware(tool_ids=...)" in result.error["message"]


def test_a_malformed_compaction_output_fails_with_a_stable_code() -> None:
    _, _, result = run(BY_COUNT, summarize=lambda ctx, input: {"text": "nope"})
    assert result.status is Status.FAILED
    assert result.error["code"] == "agent.compaction-output"
    store, _, result = run(BY_COUNT, summarize=lambda ctx, input: "a bare string summary")
    assert result.status is Status.COMPLETED
    assert SUMMARY_PREFIX + "a bare string summary" in texts(store)


def test_the_summarizer_effect_over_a_callable_and_an_adapter() -> None:
    messages = [{"role": "user", "content": [{"type": "text", "text": "hi"}]},
                {"role": "assistant", "content": [
                    {"type": "reasoning", "text": "hidden"},
                    {"type": "tool-call", "id": "c", "name": "lookup", "arguments": "{}"}]},
                {"role": "tool", "content": [
                    {"type": "tool-result", "callId": "c", "content": "42", "isError": True}]}]
    text = render_transcript(messages)
    assert text == "user: hi\n\nassistant called lookup({})\n\ntool error: 42"
    seen: list[str] = []
    def provider(text: str) -> str:
        seen.append(text)
        return "short"

    adapter = TurnScripted([reply("The user said hi.")])
    deltas: list[Any] = []
    effects = EffectRuntime([
        create_summarizer_effect(provider, tool_id="plain"),
        create_summarizer_effect(adapter, tool_id="llm-summary", model="small",
                                 instructions="Be short.")])
    assert effects.invoke_transient("plain", {"messages": messages}, principal="a1") == {
        "summary": "short"} and seen == [text]
    out = effects.invoke_transient("llm-summary", {"messages": messages}, principal="a1",
                                 on_delta=deltas.append)
    assert out == {"summary": "The user said hi."}
    sent = adapter.requests[0]
    assert [m.role.value for m in sent.messages] == ["system", "user"]
    assert [b.text for m in sent.messages for b in m.content if isinstance(b, TextBlock)] == [
        "Be short.", text]
    assert sent.model == "small"
    # the same machinery as a model turn: streamed deltas, then the terminal chunk with usage
    assert "".join(d.delta.value for d in deltas) == "The user said hi."
    assert deltas[-1].done and deltas[-1].usage == TokenUsage(input_tokens=10, output_tokens=5)
    with pytest.raises(InvalidArgument):
        effects.invoke_transient("plain", {"nope": []}, principal="a1")
    with pytest.raises(InvalidArgument):
        create_summarizer_effect(adapter, tool_id="s")  # an adapter needs model=
    with pytest.raises(InvalidArgument):
        create_summarizer_effect(lambda t: "S", tool_id="s", instructions="")
    # as the compaction tool of a loop
    store, _, result = run(BY_COUNT, summarize=create_summarizer_effect(lambda t: "S",
                                                                        tool_id="summarize"))
    assert result.status is Status.COMPLETED
    assert SUMMARY_PREFIX + "S" in texts(store)


def test_summary_message_size_is_counted() -> None:
    from loom_ref.agent import Transcript, summary_message

    t = Transcript([{"role": "user", "content": []}] * 5)
    before = t.bytes
    folded = t.fold(3, summary_message("s"))
    assert len(folded) == 3 and len(t) == 3
    assert t.bytes == before - 3 * message_bytes(folded[0]) + message_bytes(summary_message("s"))


def test_compaction_plan_takes_thresholds_from_one_and_refuses_zero() -> None:
    # compaction_plan's own argument checks (errors.invalid-argument): thresholds are ints >= 1.
    # Through the protocol a Compaction config refuses 0 first, and after_messages=1 always
    # (keep_recent >= 1 must be below it), so only a Python caller reaches these values here.
    plan = compaction_plan([1, 1], 2, after_messages=1, after_bytes=None, keep_recent=1)
    assert (plan.compact, plan.reason, plan.keep, plan.fold) == (True, "messages", 1, 1)
    plan = compaction_plan([1, 1], 2, after_messages=None, after_bytes=1, keep_recent=1)
    assert (plan.compact, plan.reason) == (True, "bytes")
    for after_messages, after_bytes in ((0, None), (None, 0)):
        for sizes in ([1, 1], []):  # refused before anything is read, an empty transcript too
            with pytest.raises(InvalidArgument):
                compaction_plan(sizes, sum(sizes), after_messages=after_messages,
                                after_bytes=after_bytes, keep_recent=1)
