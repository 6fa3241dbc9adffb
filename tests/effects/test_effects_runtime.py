"""EffectRuntime: the host seam, registration, the context, emit, and misuse."""

from __future__ import annotations

from typing import Any

import pytest

from loom_ref.effects import (
    NEVER,
    SILENT,
    STREAMING_DISABLED,
    Effect,
    EffectCall,
    EffectContext,
    EffectRuntime,
    EnvelopeMiddleware,
    ManualClock,
    Mode,
    RetryMiddleware,
    Signal,
)
from loom_ref.effects.middleware import Next
from loom_ref.errors import InvalidArgument
from loom_ref.kernel.seam import EffectHost


def capture(seen: list[EffectContext], output: Any = "ok") -> Effect:
    def execute(ctx: EffectContext, input: Any) -> Any:
        seen.append(ctx)
        return output

    return Effect(tool_id="t", execute=execute)


def durable(**kw: Any) -> EffectCall:
    return EffectCall(**{"tool_id": "t", "input": 1, "mode": Mode.DURABLE, "principal": "p",
                         "execution_id": "e1", "step_id": "t#1",
                         "idempotency_key": "e1/t#1", **kw})


def transient(**kw: Any) -> EffectCall:
    return EffectCall(**{"tool_id": "t", "input": 1, "mode": Mode.TRANSIENT, "principal": "p",
                         **kw})


def test_runtime_satisfies_the_kernel_seam() -> None:
    # spec: effects.host-seam
    runtime = EffectRuntime()
    assert isinstance(runtime, EffectHost)


def test_durable_context_carries_the_call() -> None:
    # spec: effects.context
    seen: list[EffectContext] = []
    clock = ManualClock(5.0)
    runtime = EffectRuntime([capture(seen)], clock=clock)
    call = durable()
    assert runtime.invoke(call) == "ok"
    (ctx,) = seen
    assert ctx.call is call
    assert (ctx.tool_id, ctx.mode, ctx.principal, ctx.execution_id) == (
        "t", Mode.DURABLE, "p", "e1")
    assert ctx.idempotency_key == "e1/t#1"
    assert ctx.attempt == 1
    assert ctx.clock is clock
    # ADR 0119 #12: under a runtime the channel is always present (silent: nothing to deliver)
    assert ctx.on_delta is SILENT
    assert ctx.signal is NEVER


def test_transient_context_has_no_idempotency_key() -> None:
    # spec: effects.context -- the key is durable-only, even if a caller sets one
    seen: list[EffectContext] = []
    runtime = EffectRuntime([capture(seen)])
    runtime.invoke_transient_call(transient(idempotency_key="leaked"))
    assert seen[0].idempotency_key is None
    assert seen[0].mode is Mode.TRANSIENT


def test_call_signal_reaches_the_context() -> None:
    seen: list[EffectContext] = []
    runtime = EffectRuntime([capture(seen)])
    signal = Signal()
    runtime.invoke_transient("t", 1, principal="p", signal=signal)
    assert seen[0].signal is signal


def test_invoke_transient_builds_a_transient_call() -> None:
    # spec: effects.host-seam -- the keyword API takes the same route
    seen: list[EffectContext] = []
    runtime = EffectRuntime([capture(seen)])
    sink: list[Any] = []
    assert runtime.invoke_transient("t", {"q": 1}, principal="exec-7", on_delta=sink.append) == "ok"
    call = seen[0].call
    assert (call.mode, call.principal, call.input, call.on_delta) == (
        Mode.TRANSIENT, "exec-7", {"q": 1}, sink.append)


@pytest.mark.parametrize(
    ("method", "call"),
    [("invoke", transient()), ("invoke_transient_call", durable()), ("invoke", "t"),
     ("invoke_transient_call", None)],
)
def test_wrong_door_is_invalid_argument(method: str, call: Any) -> None:
    # spec: effects.host-seam
    seen: list[EffectContext] = []
    runtime = EffectRuntime([capture(seen)])
    with pytest.raises(InvalidArgument):
        getattr(runtime, method)(call)
    assert seen == []


@pytest.mark.parametrize(
    "kwargs",
    [{"tool_id": "", "principal": "p"}, {"tool_id": "t", "principal": ""},
     {"tool_id": "t", "principal": "p", "signal": "no"},
     {"tool_id": "t", "principal": "p", "on_delta": 3}],
)
def test_invoke_transient_rejects_bad_arguments(kwargs: dict[str, Any]) -> None:
    runtime = EffectRuntime([capture([])])
    tool_id = kwargs.pop("tool_id")
    with pytest.raises(InvalidArgument):
        runtime.invoke_transient(tool_id, 1, **kwargs)


def test_registration_rules() -> None:
    # spec: effects.registration
    runtime = EffectRuntime([capture([])])
    assert "t" in runtime and "u" not in runtime
    assert runtime.get_effect("t").tool_id == "t"
    with pytest.raises(InvalidArgument):
        runtime.register(capture([]))
    with pytest.raises(InvalidArgument):
        runtime.register("t")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument):
        Effect(tool_id="", execute=lambda ctx, i: i)
    with pytest.raises(InvalidArgument):
        Effect(tool_id="x", execute=3)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument):
        Effect(tool_id="x", execute=lambda ctx, i: i, modes=[])
    with pytest.raises(InvalidArgument):
        Effect(tool_id="x", execute=lambda ctx, i: i, modes="durable")
    with pytest.raises(InvalidArgument):
        Effect(tool_id="x", execute=lambda ctx, i: i, idempotent=1)  # type: ignore[arg-type]
    assert Effect(tool_id="x", execute=lambda ctx, i: i, modes=Mode.DURABLE).modes == {
        Mode.DURABLE}


def test_unknown_tool_code_and_lookup() -> None:
    # spec: effects.unknown-tool
    runtime = EffectRuntime()
    with pytest.raises(Exception) as info:
        runtime.get_effect("nope")
    assert getattr(info.value, "code", None) == "effect.unknown-tool"


def test_is_idempotent() -> None:
    # spec: effects.host-seam
    runtime = EffectRuntime([Effect(tool_id="a", execute=lambda c, i: i, idempotent=True),
                             Effect(tool_id="b", execute=lambda c, i: i)])
    assert runtime.is_idempotent("a") is True
    assert runtime.is_idempotent("b") is False
    assert runtime.is_idempotent("missing") is False


def test_emit_durable_records_and_forwards() -> None:
    # spec: effects.emit
    forwarded: list[Any] = []
    seen: list[EffectContext] = []

    def execute(ctx: EffectContext, input: Any) -> Any:
        seen.append(ctx)
        ctx.emit({"n": 1})
        ctx.emit({"n": 2})
        return None

    runtime = EffectRuntime([Effect(tool_id="t", execute=execute)])
    runtime.invoke(durable(on_emit=forwarded.append))
    assert forwarded == [{"n": 1}, {"n": 2}]
    assert seen[0].emitted == [{"n": 1}, {"n": 2}]
    runtime.invoke(durable())  # no on_emit: kept on the context only
    assert seen[1].emitted == [{"n": 1}, {"n": 2}]
    runtime.invoke_transient_call(transient(on_emit=forwarded.append))
    assert seen[2].emitted == []
    assert len(forwarded) == 2


def test_usage_resets_per_attempt_and_rejects_bad_values() -> None:
    # spec: effects.usage
    usages: list[dict[str, int]] = []

    def execute(ctx: EffectContext, input: Any) -> Any:
        ctx.report_usage({"a": 1})
        ctx.report_usage({"a": 2, "b": 1})
        usages.append(ctx.usage)
        for bad in ({"a": -1}, {"a": True}, {3: 1}, [("a", 1)]):
            with pytest.raises(InvalidArgument):
                ctx.report_usage(bad)  # type: ignore[arg-type]
        if ctx.attempt == 1:
            raise RuntimeError("again")
        return None

    runtime = EffectRuntime([Effect(tool_id="t", execute=execute)],
                            middleware=[RetryMiddleware(2)])
    runtime.invoke_transient("t", None, principal="p")
    assert usages == [{"a": 3, "b": 1}, {"a": 3, "b": 1}]


def test_middleware_sees_attempt_counts() -> None:
    # spec: effects.retry-attempts -- 0 before the first attempt, then executions so far
    observed: list[int] = []

    class Probe:
        def handle(self, ctx: EffectContext, input: Any, next: Next) -> Any:
            observed.append(ctx.attempt)
            try:
                return next(ctx, input)
            finally:
                observed.append(ctx.attempt)

    calls = iter([RuntimeError("x"), None])

    def execute(ctx: EffectContext, input: Any) -> Any:
        error = next(calls)
        if error is not None:
            raise error
        return "done"

    runtime = EffectRuntime([Effect(tool_id="t", execute=execute)],
                            middleware=[RetryMiddleware(3), Probe()])
    assert runtime.invoke_transient("t", None, principal="p") == "done"
    assert observed == [0, 1, 1, 2]


def test_middleware_may_change_the_input() -> None:
    # spec: effects.middleware-ctx
    class Double:
        def handle(self, ctx: EffectContext, input: Any, next: Next) -> Any:
            return next(ctx, input * 2)

    runtime = EffectRuntime([Effect(tool_id="t", execute=lambda c, i: i + 1)],
                            middleware=[Double(), EnvelopeMiddleware()])
    assert runtime.invoke_transient("t", 5, principal="p") == {"tool": "t", "result": 11}


def test_base_exception_passes_through_retry_untouched() -> None:
    # spec: effects.refusal-never-retried -- a simulated crash is never caught
    class Crash(BaseException):
        pass

    attempts: list[int] = []

    def execute(ctx: EffectContext, input: Any) -> Any:
        attempts.append(ctx.attempt)
        raise Crash()

    runtime = EffectRuntime([Effect(tool_id="t", execute=execute)],
                            middleware=[RetryMiddleware(5)])
    with pytest.raises(Crash):
        runtime.invoke_transient("t", None, principal="p")
    assert attempts == [1]


class Inspector:
    inspects_output = True

    def handle(self, ctx: EffectContext, input: Any, next: Next) -> Any:
        return next(ctx, input)


class GuardedInspector(Inspector):
    @staticmethod
    def delta_guard(ctx: EffectContext) -> Any:
        return lambda text: None


def test_streaming_refused_warns_once_per_call_with_a_sink() -> None:
    # spec: effects.streaming-refused
    warnings: list[str] = []
    seen: list[EffectContext] = []
    inspector = Inspector()
    runtime = EffectRuntime([capture(seen)], middleware=[inspector], on_warn=warnings.append)
    assert runtime.streaming_blocked_by == (inspector,)
    runtime.invoke_transient("t", 1, principal="p")
    assert warnings == []
    sink: list[Any] = []
    assert runtime.invoke_transient("t", 1, principal="p", on_delta=sink.append) == "ok"
    assert warnings == [STREAMING_DISABLED]
    # ADR 0119 #12: the refused channel is a silent no-op, never None (spec: deltas.fail-closed)
    assert seen[1].on_delta is SILENT and sink == []


def test_a_delta_guard_covers_an_inspector() -> None:
    # spec: effects.inspects-output
    warnings: list[str] = []
    runtime = EffectRuntime([capture([])], middleware=[GuardedInspector(),
                                                       EnvelopeMiddleware()],
                            on_warn=warnings.append)
    assert runtime.streaming_blocked_by == ()
    runtime.invoke_transient("t", 1, principal="p", on_delta=lambda d: None)
    assert warnings == []


def test_default_on_warn_uses_python_warnings() -> None:
    runtime = EffectRuntime([capture([])], middleware=[Inspector()])
    with pytest.warns(UserWarning, match="streaming disabled"):
        runtime.invoke_transient("t", 1, principal="p", on_delta=lambda d: None)


@pytest.mark.parametrize(
    "kwargs",
    [{"authorizer": object()}, {"middleware": [object()]}, {"meter": object()},
     {"kill_switch": object()}, {"clock": object()}, {"on_warn": 3}],
)
def test_runtime_rejects_bad_configuration(kwargs: dict[str, Any]) -> None:
    with pytest.raises(InvalidArgument):
        EffectRuntime(**kwargs)


def test_the_chain_is_composed_once_at_registration() -> None:
    # spec: effects.lean-route -- the middleware's handle is bound when the effect is
    # registered: replacing it afterwards changes nothing, and every call reuses the route
    seen: list[str] = []

    class Probe:
        def handle(self, ctx: EffectContext, input: Any, next: Next) -> Any:
            seen.append("composed")
            return next(ctx, input)

    probe = Probe()
    runtime = EffectRuntime([Effect(tool_id="t", execute=lambda c, i: i)], middleware=[probe])

    def replaced(ctx: EffectContext, input: Any, next: Next) -> Any:
        seen.append("replaced")
        return next(ctx, input)

    probe.handle = replaced  # type: ignore[method-assign]
    assert [runtime.invoke_transient("t", n, principal="p") for n in (1, 2)] == [1, 2]
    assert seen == ["composed", "composed"]
