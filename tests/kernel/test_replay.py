"""Replay: serving from the log, divergence diffs, drifting deciders (spec 2.3)."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from loom_ref.effects import Effect, EffectContext
from loom_ref.journal import EventKind, MemoryStore, Status
from loom_ref.kernel import (
    EffectRegistry,
    ExecutionContext,
    NondeterminismError,
    Runtime,
    StepFailedError,
    Workflow,
    replay,
)

from .helpers import Counting, make_runtime, order_body, run_to_end


def forbidden() -> EffectRegistry:
    def boom(ctx: EffectContext, input: Any) -> Any:
        raise AssertionError(f"effect {ctx.tool_id} called during replay")

    return EffectRegistry([Effect(tool_id="lookup", execute=boom),
                           Effect(tool_id="charge", execute=boom)])


def test_replay_serves_everything_and_calls_nothing() -> None:
    # spec: kernel.replay-serve, kernel.replay-readonly
    store, effects = MemoryStore(), Counting()
    run_to_end(make_runtime(store, effects), "o1")
    events = list(store.read("o1").events)
    again = Counting()
    again.decider = lambda scope: (_ for _ in ()).throw(AssertionError("decider ran"))  # type: ignore[method-assign]
    result = replay(order_body(again), events, effects=forbidden())
    assert result.status is Status.COMPLETED
    assert result.output == {"status": "paid", "receipt": "r-30"}
    assert result.ran == ()
    assert result.served == ("lookup#1", "method", "stream#1", "approval", "charge#1")
    assert store.read("o1").events == events  # nothing written


def test_replay_of_a_suspended_execution_stops_at_the_gate() -> None:
    store, effects = MemoryStore(), Counting()
    make_runtime(store, effects).start("order", {"qty": 1}, execution_id="o1")
    result = replay(order_body(Counting()), store.read("o1").events, effects=forbidden())
    assert result.status is Status.SUSPENDED and result.waiting_on == "approval"


def test_drifting_decider_is_served_from_the_log() -> None:
    answers = iter(["cheap", "strong", "strong"])
    calls: list[str] = []

    def body(ctx: ExecutionContext, _: Any) -> Generator[Any, Any, Any]:
        route = yield ctx.decide("route", lambda scope: next(answers))
        yield ctx.suspend("go")
        out = yield ctx.execute("model", {"route": route})
        return out

    reg = EffectRegistry([Effect(tool_id="model", execute=lambda ctx, input: calls.append(
        input["route"]) or input)])
    store = MemoryStore()
    rt = Runtime(store=store, effects=reg, workflows=[Workflow(name="w", body=body)])
    rt.start("w", None, execution_id="x")
    result = rt.resume("x", "go", None)  # the body is driven again from the start
    assert result.output == {"route": "cheap"}
    assert calls == ["cheap"]
    assert next(answers) == "strong"  # the decider ran exactly once


def changed_body(kind: str) -> Workflow:
    def body(ctx: ExecutionContext, order: Any) -> Generator[Any, Any, Any]:
        if kind == "tool":
            yield ctx.execute("charge", {"qty": order["qty"]}, step_id="lookup#1")
        elif kind == "id":
            yield ctx.execute("lookup", {"qty": order["qty"]}, step_id="quote")
        elif kind == "order":
            yield ctx.decide("method", lambda s: "card")
        elif kind == "early-return":
            return "done"
        yield ctx.suspend("approval")
        return None

    return Workflow(name="order", body=body)


@pytest.mark.parametrize("kind, expected, actual", [
    ("tool", {"seq": 2, "command": "execute", "id": "lookup#1", "toolId": "lookup"},
     {"command": "execute", "id": "lookup#1", "toolId": "charge"}),
    ("id", {"seq": 2, "command": "execute", "id": "lookup#1", "toolId": "lookup"},
     {"command": "execute", "id": "quote", "toolId": "lookup"}),
    ("order", {"seq": 2, "command": "execute", "id": "lookup#1", "toolId": "lookup"},
     {"command": "decide", "id": "method"}),
    ("early-return", {"seq": 2, "command": "execute", "id": "lookup#1", "toolId": "lookup"},
     {"command": "return"}),
])
def test_changed_body_raises_nondeterminism_with_diff(kind: str, expected: dict[str, Any],
                                                      actual: dict[str, Any]) -> None:
    # spec: kernel.replay-compare
    store, effects = MemoryStore(), Counting()
    make_runtime(store, effects).start("order", {"qty": 1}, execution_id="o1")
    rt = Runtime(store=store, effects=Counting().registry, workflows=[changed_body(kind)])
    with pytest.raises(NondeterminismError) as info:
        rt.resume("o1", "approval", {"approved": True})
    assert info.value.code == "kernel.nondeterminism"
    assert info.value.expected == expected
    assert info.value.actual == actual
    state = rt.state("o1")
    assert state.status is Status.FAILED  # never left looking like it is running
    assert state.error["code"] == "kernel.nondeterminism"
    assert state.error["expected"] == expected
    # read-only replay reports the same divergence without writing
    before = store.read("o1").events
    with pytest.raises(NondeterminismError):
        replay(changed_body(kind), before[:6])
    assert store.read("o1").events == before


def test_step_failure_is_raised_identically_live_and_on_replay() -> None:
    # spec: kernel.step-failure
    seen: list[tuple[str, str, str]] = []

    def flaky(ctx: EffectContext, input: Any) -> Any:
        raise ConnectionError("provider down")

    def body(ctx: ExecutionContext, _: Any) -> Generator[Any, Any, Any]:
        try:
            yield ctx.execute("flaky", 1)
        except StepFailedError as err:
            seen.append((err.code, err.message, err.step_id))
        yield ctx.suspend("g")
        return "carried on"

    store = MemoryStore()
    rt = Runtime(store=store, effects=EffectRegistry([Effect(tool_id="flaky", execute=flaky)]),
                 workflows=[Workflow(name="w", body=body)])
    rt.start("w", None, execution_id="x")
    assert rt.resume("x", "g").output == "carried on"
    assert seen == [("effect.failed", "ConnectionError: provider down", "flaky#1")] * 2
    failed = [e for e in store.read("x").events if e.kind is EventKind.STEP_FAILED]
    assert failed[0].payload["error"] == {"code": "effect.failed",
                                          "message": "ConnectionError: provider down"}


def test_uncaught_step_failure_fails_the_execution_with_the_step_error() -> None:
    from loom_ref.errors import EffectError

    def refused(ctx: EffectContext, input: Any) -> Any:
        raise EffectError("no", code="effect.denied")

    def body(ctx: ExecutionContext, _: Any) -> Generator[Any, Any, Any]:
        return (yield ctx.execute("t"))

    rt = Runtime(store=MemoryStore(),
                 effects=EffectRegistry([Effect(tool_id="t", execute=refused)]),
                 workflows=[Workflow(name="w", body=body)])
    result = rt.start("w", execution_id="x")
    assert result.status is Status.FAILED
    assert result.error == {"code": "effect.denied", "message": "no"}


def test_values_are_json_round_tripped_live_as_on_replay() -> None:
    # spec: kernel.json-roundtrip
    got: list[Any] = []

    def body(ctx: ExecutionContext, inp: Any) -> Generator[Any, Any, Any]:
        got.append(inp)
        got.append((yield ctx.execute("t")))
        return None

    rt = Runtime(store=MemoryStore(),
                 effects=EffectRegistry([Effect(tool_id="t",
                                                execute=lambda ctx, input: (1, {2: 3}))]),
                 workflows=[Workflow(name="w", body=body)])
    rt.start("w", (1, 2), execution_id="x")
    assert got == [[1, 2], [1, {"2": 3}]]


def test_non_json_output_fails_the_step() -> None:
    def body(ctx: ExecutionContext, _: Any) -> Generator[Any, Any, Any]:
        return (yield ctx.execute("t"))

    rt = Runtime(store=MemoryStore(),
                 effects=EffectRegistry([Effect(tool_id="t", execute=lambda ctx, input: {1, 2})]),
                 workflows=[Workflow(name="w", body=body)])
    result = rt.start("w", execution_id="x")
    assert result.status is Status.FAILED and result.error["code"] == "journal.bad-payload"


@pytest.mark.parametrize("text", ["a\ud800", "\udfff", "\ud800\ud800"])
def test_a_lone_surrogate_is_not_json_either(text: str) -> None:
    """spec: journal.json-values -- a string UTF-8 cannot carry fails the step like any
    other non-JSON output (it raised UnicodeEncodeError out of start before)."""
    def body(ctx: ExecutionContext, _: Any) -> Generator[Any, Any, Any]:
        return (yield ctx.execute("t"))

    rt = Runtime(store=MemoryStore(),
                 effects=EffectRegistry([Effect(tool_id="t",
                                                execute=lambda ctx, input: {"s": text})]),
                 workflows=[Workflow(name="w", body=body)])
    result = rt.start("w", execution_id="x")
    assert result.status is Status.FAILED and result.error["code"] == "journal.bad-payload"


def test_decider_that_throws_records_nothing() -> None:
    # spec: kernel.decider-throws
    attempts: list[int] = []

    def decider(scope: Any) -> Any:
        attempts.append(1)
        raise TimeoutError("model slow")

    def body(ctx: ExecutionContext, _: Any) -> Generator[Any, Any, Any]:
        try:
            yield ctx.decide("d", decider)
        except TimeoutError:
            pass
        yield ctx.suspend("g")
        return "ok"

    store = MemoryStore()
    rt = Runtime(store=store, effects=EffectRegistry(), workflows=[Workflow(name="w", body=body)])
    rt.start("w", execution_id="x")
    assert EventKind.DECISION_RECORDED not in [e.kind for e in store.read("x").events]
    assert rt.resume("x", "g").output == "ok"
    assert len(attempts) == 2  # the hole was re-run on replay and threw again


ILLEGAL_HISTORIES = [
    [("STEP_COMPLETED", {"stepId": "add#1", "output": 1})],  # an outcome of a step never started
    [("EXECUTION_COMPLETED", {"output": 1}),
     ("STEP_STARTED", {"stepId": "add#1", "toolId": "add", "input": 1,
                       "idempotencyKey": "e/add#1"})],  # an event after the end
    [("STEP_IN_DOUBT", {"stepId": "add#1"})],  # in doubt, a step never started
    [("EXECUTION_SUSPENDED", {"gateId": "g", "on": "x", "correlationKey": "k"}),
     ("RESUME_RECEIVED", {"gateId": "other", "payload": 1})],  # a gate that is not waiting
    [("EXECUTION_SUSPENDED", {"gateId": "g", "on": "x", "correlationKey": "k"}),
     ("RESUME_RECEIVED", {"gateId": "g", "payload": 1}),
     ("RESUME_RECEIVED", {"gateId": "g", "payload": 2})],  # resumed twice
]


def _history(events: list[tuple[str, Any]]) -> list[Any]:
    from loom_ref.journal import Event

    start = Event(seq=1, kind=EventKind.EXECUTION_STARTED,
                  payload={"executionId": "e", "workflow": "w", "input": 1})
    return [start, *(Event(seq=i, kind=EventKind(k), payload=p)
                     for i, (k, p) in enumerate(events, 2))]


@pytest.mark.parametrize("events", ILLEGAL_HISTORIES)
def test_the_history_index_itself_checks_the_transition_table(
        events: list[tuple[str, Any]]) -> None:
    # spec: journal.transitions -- every drive indexes its history through the one table, so
    # no drive (replay, recover, resume) can index events the table forbids
    from loom_ref.journal import IllegalTransitionError
    from loom_ref.kernel.history import index_history

    with pytest.raises(IllegalTransitionError):
        index_history(_history(events))


@pytest.mark.parametrize("events", ILLEGAL_HISTORIES)
def test_replay_refuses_events_that_break_the_transition_table(
        events: list[tuple[str, Any]]) -> None:
    # spec: journal.transitions -- replay(workflow, events) is public: a clear error, not a
    # KeyError from deep inside the driver or a made-up status
    from loom_ref.journal import IllegalTransitionError

    def body(ctx: ExecutionContext, x: Any) -> Generator[Any, Any, Any]:
        return (yield ctx.execute("add", x))

    with pytest.raises(IllegalTransitionError) as info:
        replay(Workflow(name="w", body=body), _history(events))
    assert info.value.code == "journal.illegal-transition"
