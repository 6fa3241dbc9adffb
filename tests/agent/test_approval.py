"""Approval gates (spec: agent.approval-gate, agent.approval-payload, agent.tool-refusal;
ADR 0087 D4 Verification: "the gate parks before the effect (nothing destructive has run
while a human decides), an approval runs it, a refusal reaches the model and the run
settles")."""

from __future__ import annotations

import json
from typing import Any

import pytest

from loom_ref.agent import (
    APPROVAL_RESUME_SCHEMA,
    AgentLoopConfig,
    AgentTool,
    read_approval,
)
from loom_ref.journal import MemoryStore, Status
from loom_ref.kernel import GateNotWaitingError, InvalidResumeError
from loom_ref.stream import ToolCallBlock, ToolResultBlock

from .helpers import Host, journal, loop_workflow, reply, runtime, started

SCRIPTS = [
    reply("Checking first.", [("lookup", {"q": "db"}), ("delete", {"table": "users"})]),
    reply("Done."),
]
ASKED: list[tuple[str, int]] = []


def destructive(call: ToolCallBlock, turn: int) -> bool:
    ASKED.append((call.name, turn))
    return call.name == "delete"


def setup(*, schemas: bool = True) -> tuple[MemoryStore, Host, Any]:
    deleted: list[Any] = []
    def delete(args: Any) -> Any:
        deleted.append(args)
        return {"ok": True}

    host = Host(SCRIPTS, tools={"delete": delete})
    host.deleted = deleted  # type: ignore[attr-defined]
    config = AgentLoopConfig(model_tool_id="llm", needs_approval=destructive,
                             tools=[AgentTool(name="lookup"), AgentTool(name="delete")],
                             approval_resume_schema=APPROVAL_RESUME_SCHEMA if schemas else None)
    wf = loop_workflow(config)
    store = MemoryStore()
    return store, host, runtime(store, host, wf)


def test_the_gate_parks_before_the_effect() -> None:
    store, host, rt = setup()
    result = rt.start("agent", "clean up", execution_id="a1")
    assert result.status is Status.SUSPENDED
    assert result.waiting_on == "#turn:0:tool:1:approval"  # default: derived from the step id
    assert host.deleted == []  # type: ignore[attr-defined]
    # the lookup before it ran; the delete has no step at all
    assert host.steps() == ["#turn:0", "#turn:0:tool:0"]
    events = journal(store)
    suspended = events[-1]
    assert suspended["kind"] == "EXECUTION_SUSPENDED"
    assert suspended["payload"] == {"gateId": "#turn:0:tool:1:approval",
                                    "on": "AgentToolApproval",
                                    "correlationKey": "#turn:0:tool:1",
                                    "resumeSchema": APPROVAL_RESUME_SCHEMA}
    assert not any(p["stepId"] == "#turn:0:tool:1" for p in started(events))


def test_an_approval_runs_the_tool_and_the_run_completes() -> None:
    store, host, rt = setup()
    rt.start("agent", "clean up", execution_id="a1")
    result = rt.resume("a1", "#turn:0:tool:1:approval", {"approved": True})
    assert result.status is Status.COMPLETED
    assert host.deleted == [{"table": "users"}]  # type: ignore[attr-defined]
    assert result.output["text"] == "Done."
    tool_msg = started(journal(store))[-1]["input"]["messages"][2]
    assert json.loads(tool_msg["content"][1]["content"]) == {"tool": "delete",
                                                             "result": {"ok": True}}


@pytest.mark.parametrize("payload, reason", [
    ({"approved": False}, "declined by the approver"),
    ({"approved": False, "reason": "not on a Friday"}, "not on a Friday"),
])
def test_a_refusal_reaches_the_model_as_data_and_the_run_settles(payload: Any,
                                                                   reason: str) -> None:
    _store, host, rt = setup()
    rt.start("agent", "clean up", execution_id="a1")
    result = rt.resume("a1", "#turn:0:tool:1:approval", payload)
    assert result.status is Status.COMPLETED  # settles: not an error
    assert host.deleted == []  # type: ignore[attr-defined]
    assert "#turn:0:tool:1" not in host.steps()
    # the model's next turn sees the refusal as an ordinary tool result
    turn1 = host.adapter.requests[-1]
    block = turn1.messages[-1].content[1]
    assert isinstance(block, ToolResultBlock)
    assert block.is_error is False
    assert json.loads(block.content) == {"tool": "delete",
                                         "result": {"refused": True, "reason": reason}}


def test_the_resume_schema_refuses_a_malformed_payload_and_writes_nothing() -> None:
    store, _host, rt = setup()
    rt.start("agent", "clean up", execution_id="a1")
    before = journal(store)
    with pytest.raises(InvalidResumeError):
        rt.resume("a1", "#turn:0:tool:1:approval", {"approved": "yes"})
    with pytest.raises(InvalidResumeError):
        rt.resume("a1", "#turn:0:tool:1:approval", {"approved": True, "extra": 1})
    assert journal(store) == before
    with pytest.raises(GateNotWaitingError):
        rt.resume("a1", "#turn:0:tool:0:approval", {"approved": True})


def test_without_a_schema_anything_but_approved_true_is_a_refusal() -> None:
    _store, host, rt = setup(schemas=False)
    rt.start("agent", "clean up", execution_id="a1")
    result = rt.resume("a1", "#turn:0:tool:1:approval", {"approved": "yes"})
    assert result.status is Status.COMPLETED
    assert host.deleted == []  # type: ignore[attr-defined]


def test_replay_asks_again_and_serves_the_resume() -> None:
    store, _host, rt = setup()
    rt.start("agent", "clean up", execution_id="a1")
    rt.resume("a1", "#turn:0:tool:1:approval", {"approved": True})
    _, fresh, rt2 = setup()
    rt2.store = store
    assert rt2.replay("a1").status is Status.COMPLETED
    assert fresh.calls == []


def test_read_approval() -> None:
    assert read_approval({"approved": True}) == (True, "")
    assert read_approval(None) == (False, "declined by the approver")
    assert read_approval({"approved": False, "reason": ""}) == (False,
                                                                "declined by the approver")


def test_a_typed_gate_journals_its_schema_and_any_gate_id_is_typed() -> None:
    """spec: agent.approval-payload -- the schema travels with each gate (kernel.resume-schema),
    so a custom approval_gate needs no list of ids in the workflow."""
    host = Host(SCRIPTS, tools={"delete": lambda args: {"ok": True}})
    config = AgentLoopConfig(model_tool_id="llm", needs_approval=destructive,
                             tools=[AgentTool(name="lookup"), AgentTool(name="delete")],
                             approval_gate=lambda step: f"ok?{step}",
                             approval_resume_schema=APPROVAL_RESUME_SCHEMA)
    store = MemoryStore()
    rt = runtime(store, host, loop_workflow(config))
    assert rt.start("agent", "clean up", execution_id="a1").waiting_on == "ok?#turn:0:tool:1"
    gate = journal(store)[-1]
    assert gate["kind"] == "EXECUTION_SUSPENDED"
    assert gate["payload"]["resumeSchema"] == APPROVAL_RESUME_SCHEMA
    with pytest.raises(InvalidResumeError):
        rt.resume("a1", "ok?#turn:0:tool:1", {"approved": "yes"})
    assert rt.resume("a1", "ok?#turn:0:tool:1", {"approved": True}).status is Status.COMPLETED


def test_an_approval_resume_schema_is_checked_when_the_config_is_built() -> None:
    from loom_ref import InvalidArgument

    with pytest.raises(InvalidArgument) as info:
        AgentLoopConfig(model_tool_id="llm", approval_resume_schema={"type": "nope"})
    assert info.value.code == "argument.schema"


def test_needs_approval_receives_the_call_and_the_turn() -> None:
    ASKED.clear()
    _, _, rt = setup()
    rt.start("agent", "clean up", execution_id="a1")
    assert ASKED == [("lookup", 0), ("delete", 0)]
