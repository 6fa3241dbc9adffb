"""The kernel's Python conveniences that no protocol input reaches (spec: kernel.effect-seam,
kernel.effect-forms, kernel.replay-readonly, kernel.resume-schema): what a Python caller
gets back from them, and how they refuse a bad Python argument (by code)."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from loom_ref.effects import Effect
from loom_ref.errors import InvalidArgument, LoomError
from loom_ref.journal import MemoryStore, Status
from loom_ref.kernel import EffectRegistry, ExecutionContext, Runtime, Workflow, replay
from loom_ref.kernel.errors import StepFailedError
from loom_ref.kernel.seam import check_effect_host


def body(ctx: ExecutionContext, inp: Any) -> Generator[Any, Any, Any]:
    out = yield ctx.execute("echo", inp)
    return out


WF = Workflow(name="wf", body=body)


def registry() -> EffectRegistry:
    return EffectRegistry([Effect(tool_id="echo", execute=lambda ctx, input: input)])


def test_check_effect_host_hands_the_host_back() -> None:
    host = registry()
    assert check_effect_host(host) is host


def test_registry_membership_is_by_registered_tool_id() -> None:
    host = registry()
    assert "echo" in host
    assert "other" not in host
    assert 3 not in host
    assert ("echo",) not in host


def test_module_replay_needs_no_on_warn() -> None:
    store = MemoryStore()
    Runtime(store=store, effects=registry(), workflows=[WF]).start("wf", 7, execution_id="e1")
    result = replay(WF, store.read("e1").events)
    assert result.status is Status.COMPLETED and result.output == 7


def test_module_replay_refuses_an_on_warn_that_is_not_callable() -> None:
    store = MemoryStore()
    Runtime(store=store, effects=registry(), workflows=[WF]).start("wf", 7, execution_id="e1")
    with pytest.raises(InvalidArgument) as info:
        replay(WF, store.read("e1").events, on_warn="log")  # type: ignore[arg-type]
    assert info.value.code == "argument.invalid"


@pytest.mark.parametrize("bad", [[], "approval", 3])
def test_resume_schemas_must_be_a_mapping(bad: Any) -> None:
    with pytest.raises(InvalidArgument) as info:
        Workflow(name="wf", body=body, resume_schemas=bad)
    assert info.value.code == "argument.invalid"


@pytest.mark.parametrize("bad", ["", 3])
def test_a_resume_schemas_key_is_a_gate_id(bad: Any) -> None:
    # spec: kernel.ids -- the keys are gate ids, refused as a gate id is
    with pytest.raises(InvalidArgument) as info:
        Workflow(name="wf", body=body, resume_schemas={bad: {"type": "object"}})
    assert info.value.code == "argument.id"


def test_a_hand_built_gate_the_writer_refuses_is_refused_again_on_replay() -> None:
    # spec: kernel.unwritable-event -- a Suspend built without ctx.suspend's check, whose
    # schema the writer refuses: raised into the body live, and again by a later drive that
    # meets the hole where the journal holds the next gate
    from loom_ref.kernel.commands import Suspend

    def gated(ctx: ExecutionContext, inp: Any) -> Generator[Any, Any, Any]:
        try:
            yield Suspend(gate_id="bad", resume_schema={"format": "email"})
        except LoomError as exc:
            refused = exc.code
        payload = yield ctx.suspend("go")
        return {"refused": refused, "payload": payload}

    store = MemoryStore()
    wf = Workflow(name="gated", body=gated)
    rt = Runtime(store=store, effects=registry(), workflows=[wf])
    assert rt.start("gated", None, execution_id="e1").waiting_on == "go"
    done = rt.resume("e1", "go", 1)
    assert done.status is Status.COMPLETED
    assert done.output == {"refused": "journal.bad-payload", "payload": 1}
    assert [e.kind.value for e in store.read("e1").events].count("EXECUTION_SUSPENDED") == 1


def test_a_choice_with_two_members_of_one_name_is_refused_again_on_replay() -> None:
    # spec: kernel.unwritable-event, journal.duplicate-names -- a Python body's choice whose
    # keys 1 and "1" JSON spells alike: the writer refuses it live, and a later drive that
    # meets the hole where the journal holds the next gate refuses it again (from_written_text
    # in _refusal), never taking it for a diverging command
    def chooser(ctx: ExecutionContext, inp: Any) -> Generator[Any, Any, Any]:
        try:
            yield ctx.decide("twice", lambda scope: {1: "a", "1": "b"})
        except LoomError as exc:
            refused = exc.code
        payload = yield ctx.suspend("go")
        return {"refused": refused, "payload": payload}

    store = MemoryStore()
    rt = Runtime(store=store, effects=registry(), workflows=[Workflow(name="c", body=chooser)])
    assert rt.start("c", None, execution_id="e1").waiting_on == "go"
    done = rt.resume("e1", "go", 1)
    assert done.status is Status.COMPLETED
    assert done.output == {"refused": "journal.bad-payload", "payload": 1}
    assert "DECISION_RECORDED" not in [e.kind.value for e in store.read("e1").events]


def test_an_output_the_writer_refuses_fails_the_step() -> None:
    # spec: kernel.unwritable-event -- an effect's output past the nesting limit makes the
    # step fail with journal.bad-payload (STEP_FAILED), raised into the body
    deep: Any = 1
    for _ in range(200):
        deep = [deep]
    effects = EffectRegistry([Effect(tool_id="deep", execute=lambda ctx, input: deep)])

    def calls(ctx: ExecutionContext, inp: Any) -> Generator[Any, Any, Any]:
        try:
            yield ctx.execute("deep", None)
        except StepFailedError as exc:
            return exc.error["code"]
        return "written"

    store = MemoryStore()
    rt = Runtime(store=store, effects=effects, workflows=[Workflow(name="calls", body=calls)])
    result = rt.start("calls", None, execution_id="e1")
    assert result.status is Status.COMPLETED and result.output == "journal.bad-payload"
    kinds = [e.kind.value for e in store.read("e1").events]
    assert kinds == ["EXECUTION_STARTED", "STEP_STARTED", "STEP_FAILED", "EXECUTION_COMPLETED"]


def test_a_body_signal_reaches_the_call_composed_and_is_detached_after_it() -> None:
    # spec: effects.signal-compose, effects.signal-detach -- a step given its own signal runs
    # with the execution's cancel composed with it; the composite stops listening after the call
    from loom_ref.signals import Signal

    own = Signal()
    seen: list[Any] = []

    def watch(ctx: Any, input: Any) -> Any:
        seen.append(ctx.signal)
        return input

    effects = EffectRegistry([Effect(tool_id="watch", execute=watch)])

    def signalled(ctx: ExecutionContext, inp: Any) -> Generator[Any, Any, Any]:
        return (yield ctx.execute("watch", 1, signal=own))

    rt = Runtime(store=MemoryStore(), effects=effects,
                 workflows=[Workflow(name="signalled", body=signalled)])
    assert rt.start("signalled", None, execution_id="e1").output == 1
    composed = seen[0]
    assert composed is not own and not composed.aborted
    own.abort("mine")  # detached: the call's composite no longer follows the body's signal
    assert not composed.aborted


def test_register_hands_the_effect_back() -> None:
    # the Python convenience: register returns what it registered, so it can wrap a definition
    effect = Effect(tool_id="late", execute=lambda ctx, input: input)
    host = registry()
    assert host.register(effect) is effect
    assert host.get_effect("late") is effect


def test_without_on_warn_a_warning_goes_to_python_warnings() -> None:
    # spec: errors.warning-category -- a runtime given no on_warn warns through warnings
    from loom_ref.errors import LoomWarning
    from loom_ref.journal import Crash, FaultInjectingStore

    store = MemoryStore()
    crashing = FaultInjectingStore(store, crash_after=2)
    with pytest.raises(Crash):
        Runtime(store=crashing, effects=registry(), workflows=[WF]).start(
            "wf", 7, execution_id="e1")
    with pytest.warns(LoomWarning, match="kernel.in-doubt"):
        result = Runtime(store=store, effects=registry(), workflows=[WF]).recover("e1")
    assert result.status is Status.IN_DOUBT


def test_a_replay_without_effects_gives_a_decider_no_host() -> None:
    # a decision the journal does not hold (its decider threw live) where the journal holds a
    # later command: replay(workflow, events) with no effect host runs the decider again,
    # whose transient call is refused (effect.no-host) and raised into the body as a throw
    seen: list[str] = []

    def decides(ctx: ExecutionContext, inp: Any) -> Generator[Any, Any, Any]:
        try:
            yield ctx.decide("d", lambda scope: scope.invoke_transient("missing", 1))
        except LoomError as exc:
            seen.append(exc.code)
        return (yield ctx.execute("echo", 5))

    wf = Workflow(name="decides", body=decides)
    store = MemoryStore()
    live = Runtime(store=store, effects=registry(), workflows=[wf]).start(
        "decides", None, execution_id="e1")
    assert live.output == 5
    result = replay(wf, store.read("e1").events)
    assert result.status is Status.COMPLETED and result.output == 5
    assert seen == ["effect.unknown-tool", "effect.no-host"]


def test_get_effect_refuses_a_tool_id_that_is_not_a_string() -> None:
    with pytest.raises(InvalidArgument) as info:
        registry().get_effect(3)  # type: ignore[arg-type]
    assert info.value.code == "argument.invalid"


def test_a_body_owns_the_values_it_receives() -> None:
    # spec: kernel.json-roundtrip, journal.frozen-values -- the body gets a fresh copy of a
    # journaled value: changing it changes neither the journal nor what replay serves
    def grows(ctx: ExecutionContext, inp: Any) -> Generator[Any, Any, Any]:
        out = yield ctx.execute("echo", {"a": [1]})
        out["b"] = 2
        out["a"].append(3)
        return out

    store = MemoryStore()
    rt = Runtime(store=store, effects=registry(), workflows=[Workflow(name="grows", body=grows)])
    assert rt.start("grows", None, execution_id="e1").output == {"a": [1, 3], "b": 2}
    completed = [e for e in store.read("e1").events if e.kind.value == "STEP_COMPLETED"]
    assert completed[0].payload["output"] == {"a": [1]}
    assert rt.replay("e1").output == {"a": [1, 3], "b": 2}


def test_a_read_only_replay_reports_the_output_as_json() -> None:
    # spec: kernel.replay-end, kernel.json-roundtrip -- a replayed body's output is compared
    # and reported as the JSON value it journals (a tuple is an array), as start reports it
    def tupled(ctx: ExecutionContext, inp: Any) -> Generator[Any, Any, Any]:
        yield ctx.execute("echo", 1)
        return (1, {"a": (2,)})

    rt = Runtime(store=MemoryStore(), effects=registry(),
                 workflows=[Workflow(name="tupled", body=tupled)])
    assert rt.start("tupled", None, execution_id="e1").output == [1, {"a": [2]}]
    replayed = rt.replay("e1")
    assert replayed.status is Status.COMPLETED
    assert replayed.output == [1, {"a": [2]}] and isinstance(replayed.output, list)


def test_start_checks_the_execution_id_before_the_workflow_name() -> None:
    # spec: kernel.start -- where a bad execution id falls against the workflow's name is
    # implementation-defined and no case holds such an id; loom-ref checks the id first
    store = MemoryStore()
    rt = Runtime(store=store, effects=registry(), workflows=[WF])
    with pytest.raises(InvalidArgument) as info:
        rt.start("nobody", 1, execution_id="a/b")
    assert info.value.code == "argument.execution-id"
    assert store.data == {}


def test_the_plain_registry_hands_an_effect_the_call_s_signal_or_never() -> None:
    # spec: effects.host-seam, effects.lean-route -- the registry runs an effect with the
    # call's signal, or NEVER when the call has none (an effect may always read ctx.signal);
    # no vector lets a registry-hosted effect read its signal, so this test holds the line
    from loom_ref.effects import EffectContext
    from loom_ref.signals import NEVER, Signal

    seen: list[Any] = []

    def execute(ctx: EffectContext, _input: Any) -> bool:
        seen.append(ctx.signal)
        return ctx.signal.aborted

    registry = EffectRegistry([Effect(tool_id="t", execute=execute)])
    caller = Signal()
    caller.abort("stop")
    assert registry.invoke_transient("t", None, principal="p", signal=caller) is True
    assert registry.invoke_transient("t", None, principal="p") is False
    assert seen == [caller, NEVER]


def test_a_step_given_its_own_signal_runs_under_it() -> None:
    # spec: effects.signal-compose -- the call's signal aborts when the step's own signal does
    # (only a Python body can hand a step a signal: the protocol's workflows give none)
    from loom_ref.signals import Signal

    own = Signal()
    seen: list[tuple[bool, Any]] = []

    def watch(ctx: Any, input: Any) -> Any:
        seen.append((ctx.signal.aborted, ctx.signal.reason))
        own.abort("mine")
        seen.append((ctx.signal.aborted, ctx.signal.reason))
        return input

    effects = EffectRegistry([Effect(tool_id="watch", execute=watch)])

    def signalled(ctx: ExecutionContext, inp: Any) -> Generator[Any, Any, Any]:
        return (yield ctx.execute("watch", 1, signal=own))

    rt = Runtime(store=MemoryStore(), effects=effects,
                 workflows=[Workflow(name="signalled", body=signalled)])
    assert rt.start("signalled", None, execution_id="e1").output == 1
    assert seen == [(False, None), (True, "mine")]
