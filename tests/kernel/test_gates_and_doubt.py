"""Gates, resume schemas, in-doubt resolution, identity and argument checks (spec 2.2-2.5)."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from loom_ref import InvalidArgument
from loom_ref.effects import Effect
from loom_ref.journal import EventKind, MemoryStore, Status
from loom_ref.kernel import (
    DuplicateIdError,
    EffectRegistry,
    ExecutionContext,
    ExecutionExistsError,
    GateNotWaitingError,
    InvalidResumeError,
    NotInDoubtError,
    Runtime,
    UnknownWorkflowError,
    Workflow,
)

from .helpers import Counting, crash_run, make_runtime


def test_malformed_resume_payload_is_refused_and_nothing_written() -> None:
    # spec: kernel.resume-schema
    store, effects = MemoryStore(), Counting()
    rt = make_runtime(store, effects)
    rt.start("order", {"qty": 1}, execution_id="o1")
    before = bytes(store.data["o1"])
    for payload in [None, {"approved": "yes"}, {"approved": True, "extra": 1}]:
        with pytest.raises(InvalidResumeError) as info:
            rt.resume("o1", "approval", payload)
        assert info.value.code == "kernel.invalid-resume"
        assert info.value.details["problems"]
    assert bytes(store.data["o1"]) == before
    assert rt.resume("o1", "approval", {"approved": False}).output == {"status": "refused"}


def test_resume_of_a_gate_not_waiting_and_resume_twice() -> None:
    # spec: kernel.resume-gate
    store, effects = MemoryStore(), Counting()
    rt = make_runtime(store, effects)
    rt.start("order", {"qty": 1}, execution_id="o1")
    with pytest.raises(GateNotWaitingError) as info:
        rt.resume("o1", "other", {"approved": True})
    assert info.value.details["waiting_on"] == "approval"
    rt.resume("o1", "approval", {"approved": True})
    before = bytes(store.data["o1"])
    with pytest.raises(GateNotWaitingError):
        rt.resume("o1", "approval", {"approved": True})
    assert bytes(store.data["o1"]) == before


def test_crash_between_resume_events_is_continued_by_recover() -> None:
    store, _ = crash_run(7)  # RESUME_RECEIVED is event 7
    fresh = Counting()
    rt = make_runtime(store, fresh)
    assert rt.state("o1").pending_resume
    with pytest.raises(GateNotWaitingError):
        rt.resume("o1", "approval", {"approved": True})
    result = rt.recover("o1")
    assert result.status is Status.COMPLETED
    assert [c[0] for c in fresh.calls] == ["charge"]


@pytest.mark.parametrize("how, expected_output", [
    ({"output": {"receipt": "manual"}}, {"status": "paid", "receipt": "manual"}),
    ({"retry": True}, {"status": "paid", "receipt": "r-30"}),
])
def test_in_doubt_resolution(how: dict[str, Any], expected_output: Any) -> None:
    # spec: kernel.in-doubt, kernel.resolve
    store, _ = crash_run(9)  # STEP_STARTED of charge (not idempotent)
    fresh = Counting()
    rt = make_runtime(store, fresh)
    assert rt.recover("o1").status is Status.IN_DOUBT
    assert rt.recover("o1").status is Status.IN_DOUBT  # stays parked, marked once
    kinds = [e.kind for e in store.read("o1").events]
    assert kinds.count(EventKind.STEP_IN_DOUBT) == 1
    result = rt.resolve("o1", "charge#1", **how)
    assert result.status is Status.COMPLETED and result.output == expected_output
    assert [c[:2] for c in fresh.calls] == (
        [("charge", "o1/charge#1")] if "retry" in how else [])


def test_in_doubt_fail_resolution_raises_into_the_body() -> None:
    store, _ = crash_run(9)
    rt = make_runtime(store, Counting())
    rt.recover("o1")
    result = rt.resolve("o1", "charge#1", error={"code": "op.cancelled", "message": "refunded"})
    assert result.status is Status.FAILED
    assert result.error == {"code": "op.cancelled", "message": "refunded"}


def test_resolve_checks() -> None:
    store, _ = crash_run(9)
    rt = make_runtime(store, Counting())
    rt.recover("o1")
    with pytest.raises(InvalidArgument):
        rt.resolve("o1", "charge#1")
    with pytest.raises(InvalidArgument):
        rt.resolve("o1", "charge#1", output=1, retry=True)
    with pytest.raises(InvalidArgument):
        rt.resolve("o1", "charge#1", error={"code": 1})
    with pytest.raises(NotInDoubtError):
        rt.resolve("o1", "lookup#1", retry=True)


def test_derived_ids_and_duplicate_ids() -> None:
    # spec: kernel.step-identity, kernel.duplicate-id
    def body(ctx: ExecutionContext, _: Any) -> Generator[Any, Any, Any]:
        ids = [ctx.execute("a").step_id, ctx.execute("b").step_id, ctx.execute("a").step_id,
               ctx.stream(1).stream_id, ctx.stream(2).stream_id]
        yield ctx.execute("a", step_id="same")
        try:
            yield ctx.execute("b", step_id="same")
        except DuplicateIdError as err:
            return [ids, err.code]
        return None

    reg = EffectRegistry([Effect(tool_id="a", execute=lambda ctx, input: 1),
                          Effect(tool_id="b", execute=lambda ctx, input: 2)])
    rt = Runtime(store=MemoryStore(), effects=reg, workflows=[Workflow(name="w", body=body)])
    assert rt.start("w", execution_id="x").output == [
        ["a#1", "b#1", "a#2", "stream#1", "stream#2"], "kernel.duplicate-id"]


def test_yielding_a_non_command_is_refused_into_the_body() -> None:
    def body(ctx: ExecutionContext, _: Any) -> Generator[Any, Any, Any]:
        yield "execute please"

    rt = Runtime(store=MemoryStore(), effects=EffectRegistry(),
                 workflows=[Workflow(name="w", body=body)])
    result = rt.start("w", execution_id="x")
    assert result.status is Status.FAILED and result.error["code"] == "argument.command"


def test_runtime_argument_checks() -> None:
    with pytest.raises(InvalidArgument) as info:
        Workflow(name="w", body=lambda ctx, i: None)  # type: ignore[arg-type,return-value]
    assert info.value.code == "argument.body"
    with pytest.raises(InvalidArgument):
        Workflow(name="", body=test_runtime_argument_checks)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument) as info:
        Workflow(name="w", body=_gen, resume_schemas={"g": {"type": "object", "format": "x"}})
    assert info.value.code == "argument.schema"
    with pytest.raises(InvalidArgument):
        Runtime(store=MemoryStore(), effects=object(), workflows=[])  # type: ignore[arg-type]
    rt = Runtime(store=MemoryStore(), effects=EffectRegistry(),
                 workflows=[Workflow(name="w", body=_gen)])
    with pytest.raises(UnknownWorkflowError):
        rt.start("nope", execution_id="x")
    ctx = ExecutionContext("x")
    for bad in (lambda: ctx.execute(""), lambda: ctx.decide("d", 3),  # type: ignore[arg-type]
                lambda: ctx.suspend(""), lambda: ctx.execute("t", signal=1)):  # type: ignore[arg-type]
        with pytest.raises(InvalidArgument):
            bad()
    rt.start("w", execution_id="x")
    with pytest.raises(ExecutionExistsError):
        rt.start("w", execution_id="x")


def _gen(ctx: ExecutionContext, _: Any) -> Generator[Any, Any, Any]:
    yield ctx.stream("hi")
    return "done"


AMOUNT = {"type": "object", "required": ["amount"],
          "properties": {"amount": {"type": "integer", "minimum": 1}}}


def _gated(schema: Any) -> Any:
    def body(ctx: ExecutionContext, inp: Any) -> Generator[Any, Any, Any]:
        payload = yield ctx.suspend("pay", resume_schema=schema)
        return payload

    return body


def test_a_gate_schema_given_to_suspend_is_journaled_and_checks_the_resume() -> None:
    # spec: kernel.resume-schema -- the gate's own schema, journaled with EXECUTION_SUSPENDED,
    # and the workflow's declared one are both checked before anything is appended
    store = MemoryStore()
    note = {"type": "object", "properties": {"note": {"type": "string"}}}
    both = Workflow(name="both", body=_gated(AMOUNT), resume_schemas={"pay": note})
    rt = Runtime(store=store, effects=EffectRegistry(), workflows=[
        Workflow(name="own", body=_gated(AMOUNT)), both])
    rt.start("own", None, execution_id="a")
    gate = store.read("a").events[-1]
    assert gate.kind is EventKind.EXECUTION_SUSPENDED
    assert gate.payload["resumeSchema"] == AMOUNT
    before = bytes(store.data["a"])
    for bad in ({}, {"amount": 0}, {"amount": "7"}):
        with pytest.raises(InvalidResumeError) as info:
            rt.resume("a", "pay", bad)
        assert info.value.code == "kernel.invalid-resume"
    assert bytes(store.data["a"]) == before
    assert rt.resume("a", "pay", {"amount": 7}).output == {"amount": 7}
    assert rt.replay("a").output == {"amount": 7}  # replay serves the journaled payload
    rt.start("both", None, execution_id="b")
    with pytest.raises(InvalidResumeError):  # the gate's schema accepts it, the workflow's not
        rt.resume("b", "pay", {"amount": 7, "note": 3})
    assert rt.resume("b", "pay", {"amount": 7, "note": "ok"}).status is Status.COMPLETED


def test_a_gate_without_a_schema_journals_none_and_a_bad_schema_is_refused_at_the_call() -> None:
    store = MemoryStore()
    rt = Runtime(store=store, effects=EffectRegistry(),
                 workflows=[Workflow(name="w", body=_gated(None))])
    rt.start("w", None, execution_id="a")
    assert "resumeSchema" not in store.read("a").events[-1].payload
    ctx = ExecutionContext("x")
    for bad in ({"type": "decimal"}, {"minLength": -1}, {"pattern": "("}, {"required": "a"},
                {"properties": []}, {"format": "date"}, [], "object"):
        with pytest.raises(InvalidArgument) as info:
            ctx.suspend("g", resume_schema=bad)
        assert info.value.code == "argument.schema", bad
