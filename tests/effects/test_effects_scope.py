"""DecideScope over the governed runtime and over the kernel's plain registry."""

from __future__ import annotations

from typing import Any

import pytest

from loom_ref.effects import (
    SCOPE_CLOSED,
    AbortedError,
    DecideScope,
    Effect,
    EffectCall,
    EffectContext,
    EffectRuntime,
    Grant,
    GrantAuthorizer,
    Mode,
    Signal,
)
from loom_ref.errors import InvalidArgument
from loom_ref.kernel.seam import EffectRegistry


def recording_runtime(seen: list[EffectContext], **kw: Any) -> EffectRuntime:
    def execute(ctx: EffectContext, input: Any) -> Any:
        seen.append(ctx)
        return {"echo": input}

    return EffectRuntime([Effect(tool_id="model", execute=execute)], **kw)


def test_scope_calls_run_as_the_deciding_execution() -> None:
    # spec: effects.scope-principal
    seen: list[EffectContext] = []
    runtime = recording_runtime(
        seen,
        authorizer=GrantAuthorizer([Grant(principal="exec-1", tool_id="model",
                                          modes=Mode.TRANSIENT)]),
    )
    scope = DecideScope(runtime, "exec-1")
    assert scope.invoke_transient("model", "hi") == {"echo": "hi"}
    ctx = seen[0]
    assert (ctx.principal, ctx.execution_id, ctx.mode) == ("exec-1", "exec-1", Mode.TRANSIENT)
    other = DecideScope(runtime, "exec-2")
    with pytest.raises(Exception) as info:
        other.invoke_transient("model", "hi")
    assert getattr(info.value, "code", None) == "effect.denied"
    assert len(seen) == 1


def test_scope_composes_execution_caller_and_lifetime() -> None:
    # spec: effects.signal-compose
    seen: list[EffectContext] = []
    execution = Signal()
    scope = DecideScope(recording_runtime(seen), "exec-1", execution_signal=execution)
    caller = Signal()
    scope.invoke_transient("model", 1, signal=caller)
    composed = seen[0].signal
    assert composed is not caller and not composed.aborted
    # detached after the call: inputs no longer hold it (spec: effects.signal-detach)
    assert execution._listeners == [] and caller._listeners == []
    assert scope.lifetime._listeners == []


@pytest.mark.parametrize("which", ["execution", "caller", "lifetime"])
def test_abort_from_any_input_during_the_call_rejects_it(which: str) -> None:
    # spec: effects.signal-compose, effects.signal-abort
    execution, caller = Signal(), Signal()
    holder: dict[str, DecideScope] = {}

    def execute(ctx: EffectContext, input: Any) -> Any:
        if which == "execution":
            execution.abort("execution cancelled")
        elif which == "caller":
            caller.abort("decider timeout")
        else:
            holder["scope"].close()
        return "too late"

    runtime = EffectRuntime([Effect(tool_id="model", execute=execute)])
    scope = DecideScope(runtime, "exec-1", execution_signal=execution)
    holder["scope"] = scope
    with pytest.raises(AbortedError) as info:
        scope.invoke_transient("model", 1, signal=caller)
    expected = {"execution": "execution cancelled", "caller": "decider timeout",
                "lifetime": SCOPE_CLOSED}[which]
    assert info.value.reason == expected


def test_aborted_caller_signal_refuses_before_the_effect() -> None:
    seen: list[EffectContext] = []
    scope = DecideScope(recording_runtime(seen), "exec-1")
    caller = Signal()
    caller.abort("never mind")
    with pytest.raises(AbortedError) as info:
        scope.invoke_transient("model", 1, signal=caller)
    assert info.value.reason == "never mind"
    assert seen == []


def test_closed_scope_refuses_without_reaching_the_host() -> None:
    # spec: effects.scope-closed
    seen: list[EffectContext] = []
    with DecideScope(recording_runtime(seen), "exec-1") as scope:
        scope.invoke_transient("model", 1)
        assert not scope.closed
    assert scope.closed and scope.lifetime.reason == SCOPE_CLOSED
    scope.close()
    with pytest.raises(AbortedError) as info:
        scope.invoke_transient("model", 2)
    assert info.value.reason == SCOPE_CLOSED
    assert len(seen) == 1


def test_one_name_one_signature_for_the_transient_call() -> None:
    """spec: effects.transient-door -- the scope's invoke_transient is the runtime's less
    principal; both hosts share it; the record door is invoke_transient_call."""
    import inspect

    def shape(fn: Any) -> list[tuple[str, Any, Any]]:
        return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]

    runtime, registry = recording_runtime([]), EffectRegistry()
    scope = shape(DecideScope.invoke_transient)[1:]  # less self
    for host in (runtime, registry):
        door = shape(host.invoke_transient)
        assert [p for p in door if p[0] != "principal"] == scope
        assert ("principal", inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.empty) in door
        assert [p[0] for p in shape(host.invoke_transient_call)] == ["call"]
    assert not hasattr(runtime, "call_transient")
    assert runtime.invoke_transient("model", "hi", principal="p") == {"echo": "hi"}


def test_scope_works_over_the_plain_registry() -> None:
    # spec: effects.scope-principal -- any host with invoke_transient_call(call)
    received: list[EffectCall] = []

    def fn(ctx: EffectContext, input: Any) -> Any:
        received.append(ctx.call)
        return input * 2

    registry = EffectRegistry([Effect(tool_id="double", execute=fn)])
    scope = DecideScope(registry, "exec-9")
    sink: list[Any] = []
    assert scope.invoke_transient("double", 21, on_delta=sink.append) == 42
    call = received[0]
    assert (call.mode, call.principal, call.execution_id, call.on_delta) == (
        Mode.TRANSIENT, "exec-9", "exec-9", sink.append)
    assert call.signal is not None and not call.signal.aborted
    scope.close()
    with pytest.raises(AbortedError):
        scope.invoke_transient("double", 1)
    assert len(received) == 1


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [((object(), "e"), {}), ((EffectRegistry(), ""), {}),
     ((EffectRegistry(), "e"), {"execution_signal": "x"})],
)
def test_scope_rejects_bad_construction(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    with pytest.raises(InvalidArgument):
        DecideScope(*args, **kwargs)


@pytest.mark.parametrize(
    ("tool_id", "kwargs"),
    [("", {}), ("model", {"signal": "x"}), ("model", {"on_delta": 1})],
)
def test_scope_rejects_bad_calls(tool_id: str, kwargs: dict[str, Any]) -> None:
    scope = DecideScope(recording_runtime([]), "exec-1")
    with pytest.raises(InvalidArgument):
        scope.invoke_transient(tool_id, 1, **kwargs)
