"""Crash matrix mid-loop (spec: agent.identity, agent.turn-step, kernel.recover; ADR 0087 D2
Verification: "recovery after a mid-loop crash re-runs ONLY the unfinished turn").

A 3-turn run with tools (two lookups in turn 0, a write in turn 1, the answer in turn 2), a
skills decision and a durable text stream crashes after every journal append; a fresh runtime
with FRESH effect instances recovers it, and makes only the calls the crashed prefix had not
completed.
"""

from __future__ import annotations

from typing import Any

import pytest

from loom_ref.agent import AgentLoopConfig, AgentTool, Skills
from loom_ref.journal import EventKind, MemoryStore, Status
from loom_ref.kernel import Runtime

from .helpers import Host, crash_then, journal, loop_workflow, reply, runtime, started

SCRIPTS = [
    reply("Let me look.", [("lookup", {"q": "a"}), ("lookup", {"q": "b"})]),
    reply("", [("write", {"x": 1})]),
    reply("All done. The price is 10 and it was written."),
]
SELECTIONS: list[int] = []


def select(scope: Any, query: str) -> list[str]:
    SELECTIONS.append(1)
    return ["pricing"]


def make(write_idempotent: bool = True) -> tuple[Host, Any]:
    idem = ("llm", "lookup", "write") if write_idempotent else ("llm", "lookup")
    host = Host(SCRIPTS, idempotent=idem)
    config = AgentLoopConfig(
        model_tool_id="llm", tools=[AgentTool(name="lookup"), AgentTool(name="write")],
        skills=Skills(library={"pricing": "Quote prices in EUR."}, select=select),
        stream_min_chars=5)
    return host, loop_workflow(config)


def run(rt: Runtime, *, recover: bool = False) -> Any:
    return rt.recover("a1") if recover else rt.start("agent", "What is the price?",
                                                     execution_id="a1")


def baseline() -> tuple[list[dict[str, Any]], Host]:
    store = MemoryStore()
    host, wf = make()
    result = run(runtime(store, host, wf))
    assert result.status is Status.COMPLETED
    return journal(store), host


BASE, BASE_HOST = baseline()


def test_the_run_answers_and_each_turn_and_tool_call_is_its_own_step() -> None:
    steps = [(p["stepId"], p["toolId"]) for p in started(BASE)]
    # spec: agent.identity -- #turn:<i> and #turn:<i>:tool:<j>
    assert steps == [("#turn:0", "llm"), ("#turn:0:tool:0", "lookup"),
                     ("#turn:0:tool:1", "lookup"), ("#turn:1", "llm"),
                     ("#turn:1:tool:0", "write"), ("#turn:2", "llm")]
    final = BASE[-1]
    assert final["kind"] == "EXECUTION_COMPLETED"
    assert final["payload"]["output"]["text"] == "All done. The price is 10 and it was written."
    assert final["payload"]["output"]["turns"] == 3
    kinds = [e["kind"] for e in BASE]
    assert kinds.count("DECISION_RECORDED") == 1
    assert kinds.count("STREAM_APPENDED") == 3  # "Let me look." + two sentences of the answer
    # the model saw the transcript grow: turn k's input holds 2k+1 messages
    sizes = [len(p["input"]["messages"]) for p in started(BASE) if p["toolId"] == "llm"]
    assert sizes == [1, 3, 5]
    tool_msg = started(BASE)[3]["input"]["messages"][2]
    assert tool_msg["role"] == "tool"
    assert [b["callId"] for b in tool_msg["content"]] == ["t0_call_0", "t0_call_1"]
    # spec: agent.tool-result -- {"tool": ..., "result": ...} JSON-stringified
    assert tool_msg["content"][0]["content"] == (
        '{"tool":"lookup","result":{"echo":{"q":"a"},"price":10}}')


@pytest.mark.parametrize("k", range(1, len(BASE) + 1))
def test_crash_after_every_event_recovers_with_only_the_remaining_calls(k: int) -> None:
    SELECTIONS.clear()
    store = crash_then(k, make, run)
    host, wf = make()
    result = run(runtime(store, host, wf), recover=True)
    assert result.status is Status.COMPLETED
    assert journal(store) == BASE  # spec: kernel.recover -- the same journal
    prefix = BASE[:k]
    completed = {e["payload"]["stepId"] for e in prefix if e["kind"] == "STEP_COMPLETED"}
    remaining = [c for c in BASE_HOST.calls if c[1] not in completed]
    assert host.calls == remaining
    # the selector ran exactly once across both processes (a served decision never re-runs)
    assert len(SELECTIONS) == 1


@pytest.mark.parametrize("k", range(1, len(BASE) + 1))
def test_a_non_idempotent_tool_in_flight_parks_in_doubt(k: int) -> None:
    store = crash_then(k, lambda: make(write_idempotent=False), run)
    host, wf = make(write_idempotent=False)
    result = run(runtime(store, host, wf), recover=True)
    crashed_on = BASE[k - 1]
    if crashed_on["kind"] == "STEP_STARTED" and crashed_on["payload"]["toolId"] == "write":
        # spec: kernel.in-doubt -- nothing destructive runs twice
        assert result.status is Status.IN_DOUBT
        assert result.in_doubt_step == "#turn:1:tool:0"
        assert ("write", "#turn:1:tool:0") not in host.calls
        assert journal(store)[k]["kind"] == EventKind.STEP_IN_DOUBT.value
    else:
        assert result.status is Status.COMPLETED
        assert journal(store) == BASE


def test_a_crash_mid_turn_two_re_runs_only_turn_two() -> None:
    # crash right after #turn:2's STEP_STARTED: everything before it is served
    k = next(i for i, e in enumerate(BASE, 1) if e["kind"] == "STEP_STARTED"
             and e["payload"]["stepId"] == "#turn:2")
    store = crash_then(k, make, run)
    host, wf = make()
    assert run(runtime(store, host, wf), recover=True).status is Status.COMPLETED
    assert host.calls == [("llm", "#turn:2")]


def test_read_only_replay_of_the_finished_run_calls_nothing() -> None:
    store = MemoryStore()
    host, wf = make()
    rt = runtime(store, host, wf)
    run(rt)
    fresh, wf2 = make()
    replayed = runtime(store, fresh, wf2).replay("a1")
    assert replayed.status is Status.COMPLETED
    assert fresh.calls == []
