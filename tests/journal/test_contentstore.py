"""The content-resolving store (spec: journal.content-refs, journal.content-resolve,
journal.content-errors, journal.frozen-values): references in, resolved values out, each
item once per journal, linear growth, errors naming the line and the reference, and the
whole conformance suite passing with the store in place (over memory and over files)."""

from __future__ import annotations

import itertools
import json
import os
import tempfile
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

from loom_ref import InvalidArgument
from loom_ref.agent import AgentLoopConfig, AgentTool, agent_loop
from loom_ref.conformance.impl import InProcessImplementation
from loom_ref.conformance.inprocess import LoomRefAdapter
from loom_ref.conformance.runner import CaseStatus
from loom_ref.effects import Effect
from loom_ref.journal import (
    CorruptJournalError,
    Crash,
    EventKind,
    FaultInjectingStore,
    FileStore,
    FsyncPolicy,
    Invariant,
    LogStore,
    MemoryStore,
    PayloadError,
    Status,
    fold,
    parse_journal,
)
from loom_ref.journal.codec import decode_line, encode_header, encode_line
from loom_ref.journal.contentstore import CONTENT, ContentResolvingStore
from loom_ref.journal.frozen import FrozenDict, FrozenList, FrozenValueError, frozen_json
from loom_ref.kernel import EffectRegistry, ExecutionContext, Runtime, Workflow, replay

from ..conformance.helpers import failures, run
from .test_sqlitestore import ConformanceFileStore

K = EventKind


def _messages(n: int) -> list[dict[str, Any]]:
    return [{"role": "user" if i % 2 else "assistant", "content": [
        {"type": "text", "text": f"message {i} " + "é" * 40}]} for i in range(n)]


def _started(messages: Any, step: int = 1) -> dict[str, Any]:
    return {"stepId": f"llm#{step}", "toolId": "llm", "input": {"messages": messages, "n": 1},
            "idempotencyKey": f"e1/llm#{step}"}


def _lines(store: MemoryStore, eid: str = "e1") -> list[dict[str, Any]]:
    return [decode_line(line) for line in bytes(store.data[eid]).split(b"\n")[1:-1]]


# -- references in, resolved values out ----------------------------------------------------

def test_each_item_is_journaled_once_and_referenced_by_runs() -> None:
    inner = MemoryStore()
    journal = ContentResolvingStore(inner).create("e1")
    journal.append(K.EXECUTION_STARTED, {"executionId": "e1", "workflow": "w", "input": 1})
    history = _messages(6)
    for turn in (2, 4, 6):  # each turn re-sends the transcript, two messages longer
        event = journal.append(K.STEP_STARTED, _started(history[:turn], turn))
        assert event.payload["input"]["messages"] == history[:turn]  # resolved
        assert event.payload["input"]["n"] == 1
    stored = [line["payload"]["input"]["messages"] for line in _lines(inner)[1:]]
    # spec: journal.content-refs -- the new items, and runs of item numbers
    assert stored[0] == {CONTENT: {"items": [[0, 2]], "new": history[:2]}}
    assert stored[1] == {CONTENT: {"items": [[0, 4]], "new": history[2:4]}}
    assert stored[2] == {CONTENT: {"items": [[0, 6]], "new": history[4:6]}}
    # spec: journal.content-resolve -- the store reads back what was appended
    back = ContentResolvingStore(inner).read("e1").events
    assert [e.payload for e in back] == [e.payload for e in journal.events]


def test_a_repeated_or_reordered_item_is_a_reference_to_the_same_item() -> None:
    inner = MemoryStore()
    journal = ContentResolvingStore(inner).create("e1")
    a, b = _messages(2)
    journal.append(K.EXECUTION_STARTED, {"executionId": "e1", "workflow": "w", "input": 1})
    journal.append(K.STEP_STARTED, _started([a, b, a], 1))
    journal.append(K.STEP_STARTED, _started([json.loads(json.dumps(b)), a, a, b], 2))
    first, second = (line["payload"]["input"]["messages"][CONTENT] for line in _lines(inner)[1:])
    assert first == {"items": [[0, 2], [0, 1]], "new": [a, b]}
    assert second == {"items": [[1, 1], [0, 1], [0, 2]]}  # equal content, another object
    assert ContentResolvingStore(inner).read("e1").events[2].payload["input"]["messages"] == [
        b, a, a, b]


def test_other_values_and_other_kinds_are_journaled_as_they_are() -> None:
    inner = MemoryStore()
    journal = ContentResolvingStore(inner).create("e1")
    journal.append(K.EXECUTION_STARTED, {"executionId": "e1", "workflow": "w",
                                         "input": {"messages": _messages(2)}})
    journal.append(K.STEP_STARTED, _started("not an array"))
    journal.append(K.STEP_STARTED, {"stepId": "x#1", "toolId": "x", "input": [1, 2],
                                    "idempotencyKey": "e1/x#1"})
    lines = _lines(inner)
    assert lines[0]["payload"]["input"] == {"messages": _messages(2)}  # not a configured kind
    assert lines[1]["payload"]["input"]["messages"] == "not an array"
    assert lines[2]["payload"]["input"] == [1, 2]  # the path is not there


def test_a_value_that_looks_like_a_reference_is_refused() -> None:
    journal = ContentResolvingStore(MemoryStore()).create("e1")
    with pytest.raises(PayloadError) as info:
        journal.append(K.STEP_STARTED, _started({CONTENT: {"items": []}}))
    assert info.value.code == "journal.bad-payload"
    assert journal.events == []  # nothing written


@pytest.mark.parametrize("item", [float("nan"), float("inf"), {"when": object()}, {1, 2}])
def test_an_externalized_item_that_is_no_json_value_is_refused_as_a_bad_payload(
        item: Any) -> None:
    # spec: journal.json-values -- the item's address is its JSON text, so the content
    # store meets it first; it refuses it as the journal underneath would, with nothing written
    store = MemoryStore()
    journal = ContentResolvingStore(store).create("e1")
    with pytest.raises(PayloadError) as info:
        journal.append(K.STEP_STARTED, _started([{"role": "user", "content": "hi"}, item]))
    assert info.value.code == "journal.bad-payload"
    assert "not made of JSON values" in str(info.value)
    assert journal.events == []
    assert _lines(store) == []


def test_the_kernel_and_the_fold_see_the_inline_values() -> None:
    """An agent loop on the store: the same outcome, fold and replay as inline."""
    def run_loop(store: Any) -> tuple[Any, Any, list[Any]]:
        calls: list[Any] = []

        def model(ctx: Any, input: Any) -> Any:
            calls.append(input["messages"])
            if len(calls) >= 4:
                return {"role": "assistant", "content": [{"type": "text", "text": "done"}]}
            return {"role": "assistant", "content": [
                {"type": "tool-call", "id": f"c{len(calls)}", "name": "fetch",
                 "arguments": "{}"}]}

        config = AgentLoopConfig(model_tool_id="llm", tools=[AgentTool(name="fetch")])

        def body(ctx: ExecutionContext, x: Any) -> Generator[Any, Any, Any]:
            return (yield from agent_loop(ctx, config, x))

        wf = Workflow(name="agent", body=body)
        effects = EffectRegistry([
            Effect(tool_id="llm", execute=model),
            Effect(tool_id="fetch", execute=lambda ctx, input: {"page": "x" * 50})])
        result = Runtime(store=store, effects=effects, workflows=[wf]).start(
            "agent", "read it all", execution_id="a")
        events = store.read("a").events
        assert replay(wf, events).output == result.output
        return result.output, fold(events).frames, calls

    inline, resolved = run_loop(MemoryStore()), run_loop(ContentResolvingStore(MemoryStore()))
    assert json.dumps(inline[0]) == json.dumps(resolved[0])
    assert inline[1] == resolved[1] and inline[2] == resolved[2]


def test_recovery_rebuilds_the_table_and_carries_on() -> None:
    inner = MemoryStore()
    history = _messages(4)
    crashing = FaultInjectingStore(ContentResolvingStore(inner), crash_after=3)
    journal = crashing.create("e1")
    journal.append(K.EXECUTION_STARTED, {"executionId": "e1", "workflow": "w", "input": 1})
    journal.append(K.STEP_STARTED, _started(history[:2], 1))
    with pytest.raises(Crash):  # after the third append was written
        journal.append(K.STEP_STARTED, _started(history[:3], 2))
    journal.close()  # the dead process's lock goes with it
    reopened = ContentResolvingStore(inner).open("e1")  # a fresh process
    assert reopened.events[2].payload["input"]["messages"] == history[:3]
    reopened.append(K.STEP_STARTED, _started(history, 3))
    last = _lines(inner)[-1]["payload"]["input"]["messages"][CONTENT]
    assert last == {"items": [[0, 4]], "new": history[3:]}  # nothing journaled twice
    reopened.close()


def test_a_value_held_twice_is_referred_to_by_its_first_item_whatever_object() -> None:
    """journal.content-vector: a value another writer's journal put in the table twice is
    referred to by its first item, also when the writer is handed the very frozen object
    it read back as the second (the identity path the protocol cannot hand it)."""
    inner = MemoryStore()
    raw = inner.create("e1")
    raw.append(K.EXECUTION_STARTED, {"executionId": "e1", "workflow": "w", "input": 1})
    message = _messages(1)[0]
    raw.append(K.STEP_STARTED, _started({CONTENT: {"new": [message, message],
                                                   "items": [[1, 1]]}}))
    raw.close()
    reopened = ContentResolvingStore(inner).open("e1")
    second = reopened.events[1].payload["input"]["messages"][0]  # the table's item 1
    reopened.append(K.STEP_STARTED, _started([second, message], 2))
    assert _lines(inner)[-1]["payload"]["input"]["messages"][CONTENT] == {"items": [[0, 1],
                                                                                   [0, 1]]}
    reopened.close()


def test_a_torn_line_takes_its_items_with_it() -> None:
    inner = MemoryStore()
    crashing = FaultInjectingStore(ContentResolvingStore(inner), crash_after=2, torn_bytes=40)
    journal = crashing.create("e1")
    journal.append(K.EXECUTION_STARTED, {"executionId": "e1", "workflow": "w", "input": 1})
    with pytest.raises(Crash):
        journal.append(K.STEP_STARTED, _started(_messages(2), 1))
    journal.close()
    parsed = ContentResolvingStore(inner).read("e1")
    assert len(parsed.events) == 1 and parsed.torn is not None and parsed.torn.size == 40
    reopened = ContentResolvingStore(inner).open("e1")
    reopened.append(K.STEP_STARTED, _started(_messages(2), 1))
    assert _lines(inner)[-1]["payload"]["input"]["messages"][CONTENT]["items"] == [[0, 2]]


# -- errors name the line and the reference --------------------------------------------------

def _journal_with(reference: Any) -> MemoryStore:
    store = MemoryStore()
    store.data["e1"] = bytearray(b"".join([
        encode_header("e1"),
        encode_line(1, "EXECUTION_STARTED", {"executionId": "e1", "workflow": "w", "input": 1}),
        encode_line(2, "STEP_STARTED", _started({CONTENT: {"items": [[0, 1]],
                                                            "new": _messages(1)}}, 1)),
        encode_line(3, "STEP_STARTED", _started(reference, 2)),
    ]))
    return store


@pytest.mark.parametrize("reference, reason, ref", [
    ({CONTENT: {"items": [[0, 2]]}}, "journal.missing-content", 1),
    ({CONTENT: {"items": [[5, 1]], "new": []}}, "journal.missing-content", 5),
    ({CONTENT: {"items": [[0, 0]]}}, "journal.bad-content", [0, 0]),
    ({CONTENT: {"items": [[-1, 1]]}}, "journal.bad-content", [-1, 1]),
    ({CONTENT: {"items": "0-1"}}, "journal.bad-content", {"items": "0-1"}),
    ({CONTENT: {"new": []}}, "journal.bad-content", {"new": []}),
    ({CONTENT: [[0, 1]]}, "journal.bad-content", [[0, 1]]),
    ({CONTENT: {"items": [[0, 1]]}, "extra": 1}, "journal.bad-content",
     {CONTENT: {"items": [[0, 1]]}, "extra": 1}),
])
def test_a_bad_or_missing_reference_names_the_line(reference: Any, reason: str,
                                                    ref: Any) -> None:
    # spec: journal.content-errors
    store = _journal_with(reference)
    assert len(parse_journal(bytes(store.data["e1"])).events) == 3  # a good journal underneath
    for read in (ContentResolvingStore(store).read, ContentResolvingStore(store).open):
        with pytest.raises(CorruptJournalError) as info:
            read("e1")
        error = info.value
        assert error.code == "journal.corrupt"
        assert error.details["reason"] == reason
        assert error.details["line"] == 4 and error.details["path"] == "input.messages"
        assert error.details["ref"] == ref
        assert "line 4" in error.message
    store.open("e1").close()  # the failed open released the writer


def test_corruption_and_torn_tails_are_the_underlying_stores() -> None:
    inner = MemoryStore()
    journal = ContentResolvingStore(inner).create("e1")
    journal.append(K.EXECUTION_STARTED, {"executionId": "e1", "workflow": "w", "input": 1})
    journal.append(K.STEP_STARTED, _started(_messages(3), 1))
    journal.close()
    data = inner.data["e1"]
    data[-30] ^= 1  # a bit flipped inside the reference line
    with pytest.raises(CorruptJournalError) as info:
        ContentResolvingStore(inner).read("e1")
    assert info.value.details["line"] == 3
    assert info.value.details["reason"] in ("journal.bad-checksum", "journal.malformed-line")


# -- frozen values ----------------------------------------------------------------------------

def test_resolved_values_are_frozen_and_shared() -> None:
    journal = ContentResolvingStore(MemoryStore()).create("e1")
    history = _messages(3)
    one = journal.append(K.STEP_STARTED, _started(history[:2], 1))
    two = journal.append(K.STEP_STARTED, _started(history, 2))
    first, second = one.payload["input"]["messages"], two.payload["input"]["messages"]
    assert type(first) is FrozenList and first[0] is second[0]  # one object per item
    with pytest.raises(FrozenValueError) as info:
        second[0]["role"] = "system"
    assert info.value.code == "journal.frozen-value"
    with pytest.raises(FrozenValueError):
        second.append({})
    assert isinstance(second, list) and isinstance(second[0], dict)


def test_frozen_json() -> None:
    value = frozen_json({"a": [1, 2.5, None, True, ("t",)], "b": {"c": "d"}})
    assert value == {"a": [1, 2.5, None, True, ["t"]], "b": {"c": "d"}}
    assert type(value) is FrozenDict and type(value["a"][4]) is FrozenList
    assert frozen_json(value) is value
    assert json.loads(json.dumps(value)) == value
    for method, args in (("update", ({},)), ("pop", ("a",)), ("setdefault", ("z", 1)),
                         ("clear", ()), ("popitem", ()), ("__delitem__", ("a",))):
        with pytest.raises(FrozenValueError):
            getattr(value, method)(*args)
    for bad in ({"a": {1, 2}}, {1: "x"}, [float("nan")], [object()], {"a": MemoryStore}):
        with pytest.raises(InvalidArgument):
            frozen_json(bad)
    with pytest.raises(InvalidArgument):
        FrozenList([[1]])  # a frozen container holds frozen containers only


def test_bad_configuration_is_refused() -> None:
    for bad in ({}, {"NOT_A_KIND": ["input.messages"]}, {K.STEP_STARTED: "input.messages"},
                {K.STEP_STARTED: ["input..messages"]}, {K.STEP_STARTED: []}, None, {1: ["a"]}):
        with pytest.raises(InvalidArgument):
            ContentResolvingStore(MemoryStore(), externalize=bad)  # type: ignore[arg-type]
    # a kind's name is as good as the kind (the form the journal.content vector passes)
    by_name = ContentResolvingStore(MemoryStore(), externalize={"STEP_STARTED": ["input.m"]})
    assert by_name._paths == {K.STEP_STARTED: (("input", "m"),)}
    with pytest.raises(InvalidArgument):
        ContentResolvingStore(object())  # type: ignore[arg-type]


# -- growth: linear in turns -----------------------------------------------------------------

def _agent_journal_bytes(turns: int, store: Any) -> int:
    made = [0]

    def model(ctx: Any, input: Any) -> Any:
        made[0] += 1
        if made[0] >= turns:
            return {"role": "assistant", "content": [{"type": "text", "text": "Done."}]}
        return {"role": "assistant", "content": [
            {"type": "text", "text": "thinking " * 20},
            {"type": "tool-call", "id": f"c{made[0]}", "name": "fetch", "arguments": "{}"}]}

    config = AgentLoopConfig(model_tool_id="llm", tools=[AgentTool(name="fetch")],
                             max_iterations=turns + 1)

    def body(ctx: ExecutionContext, x: Any) -> Generator[Any, Any, Any]:
        return (yield from agent_loop(ctx, config, x))

    effects = EffectRegistry([
        Effect(tool_id="llm", execute=model),
        Effect(tool_id="fetch", execute=lambda ctx, input: {"body": "x" * 300})])
    result = Runtime(store=store, effects=effects,
                     workflows=[Workflow(name="agent", body=body)]).start(
        "agent", "go", execution_id="a")
    assert result.status is Status.COMPLETED and result.output["turns"] == turns
    return len(store.data["a"])


def test_journal_bytes_grow_linearly_in_turns() -> None:
    """ADR 0087's O(n^2), made O(n): four times the turns, about four times the bytes."""
    plain = [_agent_journal_bytes(n, MemoryStore()) for n in (20, 80)]
    content = [_agent_journal_bytes(n, ContentResolvingStore(MemoryStore())) for n in (20, 80)]
    assert plain[1] / plain[0] > 10  # the quadratic, inline
    assert content[1] / content[0] < 4.5  # linear: 4x the turns
    assert content[1] < plain[1] / 10


# -- the whole conformance suite, with the store in place ------------------------------------

class ConformanceContentStore(ContentResolvingStore):
    """The store for the conformance interpreter, which edits raw journal bytes through
    ``data`` (tear, corrupt): the underlying store's."""


@pytest.fixture
def scratch() -> Iterator[str]:
    base = "/dev/shm" if os.path.isdir("/dev/shm") else None
    with tempfile.TemporaryDirectory(dir=base) as d:
        yield d


@pytest.mark.parametrize("kind", ["memory", "file"])
def test_the_conformance_suite_passes_with_the_store_in_place(kind: str, scratch: str) -> None:
    counter = itertools.count()

    def factory() -> Any:
        n = next(counter)
        if kind == "memory":
            return ConformanceContentStore(MemoryStore())
        os.mkdir(os.path.join(scratch, f"c{n}"))
        return ConformanceContentStore(ConformanceFileStore(os.path.join(scratch, f"c{n}"),
                                                            fsync=FsyncPolicy.NEVER))

    suite = run(InProcessImplementation(LoomRefAdapter(store_factory=factory)))
    bad = [f"{r.id} [{r.mode}]: {r.message} {list(r.diff[:2])}" for r in failures(suite)]
    assert bad == []
    assert suite.count(CaseStatus.PASS) > 3000 and next(counter) > 1000


def test_over_a_store_log(tmp_path: Path) -> None:
    path = tmp_path / "s.log"
    with ContentResolvingStore(LogStore(path, fsync=FsyncPolicy.NEVER)) as store:
        journal = store.create("e1")
        journal.append(K.STEP_STARTED, _started(_messages(3), 1))
        journal.append(K.STEP_STARTED, _started(_messages(4), 2))
        journal.close()
    with ContentResolvingStore(LogStore(path, fsync=FsyncPolicy.NEVER)) as store:
        events = store.read("e1").events
    assert [len(e.payload["input"]["messages"]) for e in events] == [3, 4]


# -- power loss: the underlying store's promises hold with references in its lines ------------

@pytest.mark.parametrize("policy", [FsyncPolicy.WRITE_AHEAD, FsyncPolicy.NEVER],
                         ids=lambda p: p.value)
def test_the_power_loss_matrix_with_the_store_in_place(policy: FsyncPolicy) -> None:
    """journal.power-loss over the content-resolving store on a file store: every cut of the
    agent scenarios and the kit's keeps what the table promises (an item is in the same
    file as, and before, every line that refers to it, so no cut leaves a line without its
    items: `readable` holds even under `never`)."""
    from loom_ref.testing import KIT_SCENARIOS, check_policy, run_power_loss

    from .powerloss_cases import case_scenarios

    scenarios = [s for s in case_scenarios() if s.case.group.startswith("agent.")]
    assert len(scenarios) >= 40
    make = lambda fs, p: ContentResolvingStore(FileStore("/disk", fsync=p, fs=fs))  # noqa: E731
    reports = [run_power_loss(s, make, policy) for s in [*scenarios, *KIT_SCENARIOS]]
    if policy is FsyncPolicy.NEVER:  # it may lose the rest, and must stay readable
        broken = {v.invariant for r in reports for v in r.violations}
        assert Invariant.READABLE not in broken
        return
    assert check_policy(reports, policy) == []
    assert sum(r.recoveries for r in reports) > 1000
