"""``effects.route``: scripted calls through a governed :class:`EffectRuntime`, as data.

Spec: ``spec/effects.md`` §3.8. The function builds a real
runtime from the input (registered effects with per-attempt scripts, a grant authorizer, the
middleware list, a budget meter, a kill switch, an injected manual clock), runs the input's
steps in order (calls, clock advances, kill / revive, decide scopes) and returns, per step,
what could be observed: each call's outcome and its *trace*, the ordered list of what the
call did (middleware probes entering and leaving, each ``execute`` with the context the
effect saw, events forwarded by ``emit``, meter records, clock sleeps). Everything is a pure
function of the input: no wall clock, no randomness.

Input (only ``effects`` and ``steps`` are required)::

    {"effects": [{"toolId", "modes"?: ["durable", "transient"], "idempotent"?: false,
                  "script": [<attempt>]}],
     "grants"?: [{"principal", "toolId", "modes"?}],
     "middleware"?: [<middleware>], "meter"?: {"budget", "estimate"?: 1}, "clock"?: 0,
     "steps": [<step>]}

    <attempt>: {"usage"?: {..} | [{..}], "emit"?: [json], "advance"?: s,
                "kill"?: {"reason", "toolId"?},
                "abort"?: reason | {"reason", "source"} | {"source": "scope"},
                and at most one of "return": json | "echo": true | "raise": {"code",
                "message"} | "crash": true}          (none: return null)
    <middleware>: {"kind": "retry", "maxAttempts", "baseDelay"?, "multiplier"?, "maxDelay"?,
                   "jitter"?, "seed"?, "retryOn"?: [code]}
                | {"kind": "rateLimit", "capacity", "rate", "per"?}
                | {"kind": "envelope"}
                | {"kind": "probe", "name", "setInput"?: json, "return"?: json}
    <step>: {"call": {"tool", "input"?, "mode"?, "door"?, "principal"?, "executionId"?,
                      "stepId"?, "idempotencyKey"?, "aborted"?, "scope"?, "watchSignal"?}}
          | {"advance": s} | {"kill": {"reason", "toolId"?}} | {"revive": {"toolId"?}}
          | {"scope": {"name", "executionId", "executionAborted"?}} | {"close": name}
          | {"cancelExecution": {"scope": name, "reason"}}
          | {"isIdempotent": toolId}

Result: ``{"steps": [...]}``, one entry per step: a call gives ``{"outcome": {"output": v} |
{"error": <error>} | {"crashed": true}, "trace": [<entry>], "signalAtEnd"?}``; an
``isIdempotent`` step ``{"idempotent": bool}``; any other step ``{}``. Trace entries:
``{"enter": name, "attempt", "input"}``, ``{"leave": name, "attempt", "output" | "error"}``,
``{"execute": {"attempt", "toolId", "mode", "principal", "executionId", "idempotencyKey",
"input", "now"}}``, ``{"emit": event}``, ``{"record": {"toolId", "principal", "mode",
"usage", "charged", "advisory"}}``, ``{"sleep": s}``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from loom_ref.effects.authorizer import Grant, GrantAuthorizer
from loom_ref.effects.call import EffectCall, Mode
from loom_ref.effects.clock import ManualClock
from loom_ref.effects.context import EffectContext
from loom_ref.effects.decision import Decision
from loom_ref.effects.effect import ALL_MODES, Effect
from loom_ref.effects.kill_switch import KillSwitch
from loom_ref.effects.metering import BudgetMeter
from loom_ref.effects.middleware.base import Middleware, Next
from loom_ref.effects.middleware.envelope import EnvelopeMiddleware
from loom_ref.effects.middleware.rate_limit import RateLimitMiddleware
from loom_ref.effects.middleware.retry import RetryMiddleware
from loom_ref.effects.runtime import EffectRuntime
from loom_ref.effects.scope import DecideScope
from loom_ref.effects.vector_input import (
    boolean,
    error_json,
    integer,
    items,
    number,
    obj,
    string,
)
from loom_ref.errors import EffectError, InvalidArgument, LoomError
from loom_ref.signals import Signal

__all__ = ["ScriptedCrash", "ScriptedEffectError", "vector_effects_route"]

_TOP = frozenset({"effects", "grants", "middleware", "meter", "clock", "steps"})
_EFFECT = frozenset({"toolId", "modes", "idempotent", "script"})
_ATTEMPT = frozenset(
    {"usage", "emit", "advance", "kill", "abort", "return", "echo", "raise", "crash"}
)
_ENDINGS = ("return", "echo", "raise", "crash")
_MIDDLEWARE: Mapping[str, frozenset[str]] = {
    "retry": frozenset(
        {"kind", "maxAttempts", "baseDelay", "multiplier", "maxDelay", "jitter", "seed",
         "retryOn"}
    ),
    "rateLimit": frozenset({"kind", "capacity", "rate", "per"}),
    "envelope": frozenset({"kind"}),
    "probe": frozenset({"kind", "name", "setInput", "return"}),
}
_STEPS = frozenset(
    {"call", "advance", "kill", "revive", "scope", "close", "cancelExecution", "isIdempotent"}
)
_CALL = frozenset(
    {"tool", "input", "mode", "door", "principal", "executionId", "stepId", "idempotencyKey",
     "aborted", "scope", "watchSignal"}
)
_SCOPE_CALL = frozenset({"tool", "input", "aborted", "scope", "watchSignal"})
_DOORS = ("invoke", "invokeTransient", "callTransient")
_SOURCES = ("call", "execution", "scope")


class ScriptedEffectError(EffectError):
    """What a scripted attempt with ``"raise": {"code", "message"}`` raises: the effect's own
    failure, with the scripted code (it is no refusal, so a retry may retry it)."""

    code = "effect.scripted-failure"


class ScriptedCrash(BaseException):
    """A simulated crash (``"crash": true``): a ``BaseException``, which no retry catches."""


class _BadScript(BaseException):
    """A script that cannot run as written (found while running); it passes through every
    middleware untouched and becomes ``argument.invalid`` for the whole input."""


def _modes(value: object, what: str) -> frozenset[Mode]:
    if value is None:
        return ALL_MODES
    if not isinstance(value, list) or not value or any(m not in ("durable", "transient")
                                                        for m in value):
        raise InvalidArgument(f'{what} must be a non-empty list of "durable" / "transient"')
    return frozenset(Mode(m) for m in value)


def _reason(value: object, what: str) -> str:
    if not isinstance(value, str) or not value:
        raise InvalidArgument(f"{what} must be a non-empty string (a reason)")
    return value


def _kill(value: object, what: str) -> tuple[str, str | None]:
    data = obj(value, what, frozenset({"reason", "toolId"}))
    return _reason(data.get("reason"), f"{what}.reason"), _tool_id(data, what)


def _tool_id(data: Mapping[str, Any], what: str) -> str | None:
    """A kill's or revive's ``toolId``: absent means global; anything but a non-empty string
    (null included) is malformed. spec: effects.route-vector"""
    if "toolId" not in data:
        return None
    tool = data["toolId"]
    if not isinstance(tool, str) or not tool:
        raise InvalidArgument(f"{what}.toolId must be a non-empty string")
    return tool


def _attempt(value: object, what: str) -> dict[str, Any]:
    data = obj(value, what, _ATTEMPT)
    endings = [k for k in _ENDINGS if k in data]
    if len(endings) > 1:
        raise InvalidArgument(f"{what} ends in at most one of {_ENDINGS}")
    usage = data.get("usage", [])
    usages = usage if isinstance(usage, list) else [usage]
    for u in usages:
        if not isinstance(u, Mapping):
            raise InvalidArgument(f"{what}.usage must be an object or a list of objects")
    if "emit" in data and not isinstance(data["emit"], list):
        raise InvalidArgument(f"{what}.emit must be a list of events")
    step: dict[str, Any] = {"usage": usages, "emit": data.get("emit", []),
                            "ending": endings[0] if endings else "return",
                            "value": data.get("return")}
    if "advance" in data:
        step["advance"] = number(data, "advance", 0.0)
    if "kill" in data:
        step["kill"] = _kill(data["kill"], f"{what}.kill")
    if "abort" in data:
        abort = data["abort"]
        if isinstance(abort, str):
            abort = {"reason": abort}
        abort = obj(abort, f"{what}.abort", frozenset({"reason", "source"}))
        source = abort.get("source", "call")
        if source not in _SOURCES:
            raise InvalidArgument(f"{what}.abort.source is one of {_SOURCES}")
        if source == "scope":  # the scope closes mid-attempt: its reason is "scope closed"
            if "reason" in abort:
                raise InvalidArgument(f"{what}.abort: closing the scope takes no reason")
            step["abort"] = (source, "")
        else:
            step["abort"] = (source, _reason(abort.get("reason"), f"{what}.abort.reason"))
    if "raise" in data:
        spec = obj(data["raise"], f"{what}.raise", frozenset({"code", "message"}))
        step["raise"] = (string(spec, "code"), spec.get("message", "scripted failure"))
        if not isinstance(step["raise"][1], str):
            raise InvalidArgument(f"{what}.raise.message must be a string")
    for flag in ("echo", "crash"):
        if flag in data and data[flag] is not True:
            raise InvalidArgument(f'{what}.{flag} must be true')
    return step


class _World:
    """The mutable state of one run: the trace of the running call, its signals, the scopes."""

    def __init__(self, clock: ManualClock) -> None:
        self.clock = clock
        self.trace: list[dict[str, Any]] = []
        self.call_signal: Signal | None = None
        self.scope: DecideScope | None = None
        self.seen_signal: Signal | None = None
        self.scopes: dict[str, DecideScope] = {}
        self.kill_switch = KillSwitch()

    def abort(self, source: str, reason: str) -> None:
        if source == "call":
            assert self.call_signal is not None
            self.call_signal.abort(reason)
            return
        if self.scope is None:
            raise _BadScript(f'an abort of source "{source}" needs a call through a scope')
        if source == "execution":
            assert self.scope.execution_signal is not None
            self.scope.execution_signal.abort(reason)
        else:
            self.scope.close()


class _TracedClock(ManualClock):
    """A manual clock whose sleeps go into the running call's trace
    (spec: effects.injected-clock)."""

    __slots__ = ("world",)

    def __init__(self, start: float) -> None:
        super().__init__(start)
        self.world: _World | None = None

    def sleep(self, seconds: float) -> None:
        super().sleep(seconds)
        assert self.world is not None
        self.world.trace.append({"sleep": self.sleeps[-1]})


class _TracedMeter:
    """A :class:`BudgetMeter` whose records go into the running call's trace."""

    def __init__(self, inner: BudgetMeter, world: _World) -> None:
        self.inner = inner
        self.world = world

    def admit(self, call: EffectCall) -> Decision:
        return self.inner.admit(call)

    def record(self, call: EffectCall, usage: Mapping[str, int], advisory: bool) -> None:
        self.inner.record(call, usage, advisory)
        rec = self.inner.records[-1]
        self.world.trace.append({"record": {
            "toolId": rec.tool_id, "principal": rec.principal, "mode": rec.mode.value,
            "usage": dict(rec.usage), "charged": rec.charged, "advisory": rec.advisory,
        }})


class _Probe:
    """A middleware that traces what it sees; may replace the input or short-circuit."""

    inspects_output = False
    delta_guard = None

    def __init__(self, spec: Mapping[str, Any], world: _World) -> None:
        self.name = string(spec, "name")
        self.spec = spec
        self.world = world

    def handle(self, ctx: EffectContext, input: Any, next: Next) -> Any:
        trace = self.world.trace
        trace.append({"enter": self.name, "attempt": ctx.attempt, "input": input})
        if "return" in self.spec:  # calls next zero times (spec: effects.middleware-order)
            trace.append({"leave": self.name, "attempt": ctx.attempt,
                          "output": self.spec["return"]})
            return self.spec["return"]
        if "setInput" in self.spec:
            input = self.spec["setInput"]
        try:
            output = next(ctx, input)  # spec: effects.middleware-ctx -- the same ctx
        except LoomError as error:
            trace.append({"leave": self.name, "attempt": ctx.attempt, "error": error.code})
            raise
        trace.append({"leave": self.name, "attempt": ctx.attempt, "output": output})
        return output


def _retry_on(codes: object) -> Callable[[Exception], bool]:
    if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
        raise InvalidArgument("retryOn must be a list of error codes")
    wanted = frozenset(codes)
    return lambda error: isinstance(error, LoomError) and error.code in wanted


def _middleware(value: object, i: int, world: _World) -> Middleware:
    kind = value.get("kind") if isinstance(value, Mapping) else None
    if not isinstance(kind, str) or kind not in _MIDDLEWARE:
        raise InvalidArgument(f"middleware[{i}].kind is one of {sorted(_MIDDLEWARE)}")
    assert isinstance(value, Mapping)
    spec = obj(value, f"middleware[{i}]", _MIDDLEWARE[kind])
    if kind == "retry":
        retry_on: Any = (Exception,) if "retryOn" not in spec else _retry_on(spec["retryOn"])
        seed = spec.get("seed", "")
        if not isinstance(seed, str):
            raise InvalidArgument("retry seed must be a string")
        if "maxAttempts" not in spec:
            raise InvalidArgument(f"middleware[{i}]: a retry needs maxAttempts")
        return RetryMiddleware(
            integer(spec, "maxAttempts", None, 1) or 1,
            base_delay=number(spec, "baseDelay", 0.1),
            multiplier=number(spec, "multiplier", 2.0),
            max_delay=number(spec, "maxDelay", 10.0),
            jitter=number(spec, "jitter", 0.0),
            retry_on=retry_on,
            seed=seed,
        )
    if kind == "rateLimit":
        return RateLimitMiddleware(
            capacity=number(spec, "capacity", 0.0), rate=number(spec, "rate", 0.0),
            per=spec.get("per", "tool"),
        )
    if kind == "envelope":
        return EnvelopeMiddleware()
    return _Probe(spec, world)


def _effect(value: object, i: int, world: _World) -> Effect:
    data = obj(value, f"effects[{i}]", _EFFECT)
    tool_id = string(data, "toolId")
    raw = data.get("script")
    if not isinstance(raw, list) or not raw:
        raise InvalidArgument(f"effects[{i}].script must be a non-empty list")
    script = [_attempt(s, f"effects[{i}].script[{n}]") for n, s in enumerate(raw)]

    def execute(ctx: EffectContext, input: Any) -> Any:
        step = script[min(ctx.attempt, len(script)) - 1]
        world.seen_signal = ctx.signal
        world.trace.append({"execute": {
            "attempt": ctx.attempt, "toolId": ctx.tool_id, "mode": ctx.mode.value,
            "principal": ctx.principal, "executionId": ctx.execution_id,
            "idempotencyKey": ctx.idempotency_key, "input": input, "now": ctx.clock.now(),
        }})
        for usage in step["usage"]:
            ctx.report_usage(usage)
        for event in step["emit"]:
            ctx.emit(event)
        if "advance" in step:
            world.clock.advance(step["advance"])
        if "kill" in step:
            reason, tool = step["kill"]
            world.kill_switch.kill(reason, tool_id=tool)
        if "abort" in step:
            world.abort(*step["abort"])
        ending = step["ending"]
        if ending == "raise":
            code, message = step["raise"]
            if code == InvalidArgument.code:  # the effect rejects its input: never retried
                raise InvalidArgument(message, scripted=True)
            raise ScriptedEffectError(message, code=code, scripted=True)
        if ending == "crash":
            raise ScriptedCrash(f"attempt {ctx.attempt} crashed")
        return input if ending == "echo" else step["value"]

    return Effect(tool_id=tool_id, execute=execute, modes=_modes(data.get("modes"), "modes"),
                  idempotent=boolean(data, "idempotent", False))


def _grant(value: object, i: int) -> Grant:
    data = obj(value, f"grants[{i}]", frozenset({"principal", "toolId", "modes"}))
    return Grant(principal=string(data, "principal"), tool_id=string(data, "toolId"),
                 modes=_modes(data.get("modes"), f"grants[{i}].modes"))


def _outcome(run: Callable[[], Any]) -> dict[str, Any]:
    try:
        return {"output": run()}
    except LoomError as error:
        return {"error": error_json(error)}
    except ScriptedCrash:
        return {"crashed": True}


def _call(spec_value: object, i: int, runtime: EffectRuntime, world: _World) -> dict[str, Any]:
    what = f"steps[{i}].call"
    spec = obj(spec_value, what, _CALL)
    tool = string(spec, "tool")
    input = spec.get("input")
    signal = Signal()
    if "aborted" in spec:
        signal.abort(_reason(spec["aborted"], f"{what}.aborted"))
    world.call_signal, world.scope, world.seen_signal = signal, None, None
    run: Callable[[], Any]
    if "scope" in spec:
        obj(spec, what, _SCOPE_CALL)
        name = spec["scope"]
        if not isinstance(name, str) or name not in world.scopes:
            raise InvalidArgument(f"{what}.scope names no open scope")
        scope = world.scopes[name]
        world.scope = scope

        def run() -> Any:
            return scope.invoke_transient(tool, input, signal=signal)
    else:
        mode = spec.get("mode", "transient")
        if mode not in ("durable", "transient"):
            raise InvalidArgument(f'{what}.mode is "durable" or "transient"')
        door = spec.get("door", "invoke" if mode == "durable" else "invokeTransient")
        if door not in _DOORS:
            raise InvalidArgument(f"{what}.door is one of {_DOORS}")
        principal = string(spec, "principal", "p")
        optional: dict[str, str | None] = {}
        for key in ("executionId", "stepId", "idempotencyKey"):
            value = spec.get(key)
            if value is not None and not isinstance(value, str):
                raise InvalidArgument(f"{what}.{key} must be a string")
            optional[key] = value
        trace = world.trace
        call = EffectCall(
            tool_id=tool, input=input, mode=Mode(mode), principal=principal,
            execution_id=optional["executionId"], step_id=optional["stepId"],
            idempotency_key=optional["idempotencyKey"], signal=signal,
            on_emit=lambda event: trace.append({"emit": event}),
        )
        if door == "callTransient":  # the keyword door: no mode, no execution's ids
            extra = sorted({"mode", "executionId", "stepId", "idempotencyKey"} & set(spec))
            if extra:
                raise InvalidArgument(f"{what}: the callTransient door takes no {extra}")

            def run() -> Any:
                return runtime.call_transient(tool, input, principal=principal, signal=signal)
        elif door == "invoke":
            def run() -> Any:
                return runtime.invoke(call)
        else:
            def run() -> Any:
                return runtime.invoke_transient(call)
    result: dict[str, Any] = {"outcome": _outcome(run), "trace": world.trace}
    if boolean(spec, "watchSignal", False):
        result["signalAtEnd"] = world.seen_signal  # resolved when every step has run
    return result


def _signal_json(signal: object) -> dict[str, Any] | None:
    if not isinstance(signal, Signal):
        return None
    if not signal.aborted:
        return {"aborted": False}
    return {"aborted": True, "reason": signal.reason}


def vector_effects_route(data: object) -> dict[str, Any]:
    """``effects.route`` (see the module docstring and spec/effects.md §3.8; what counts as
    malformed input: spec: effects.route-vector)."""
    data = obj(data, "input", _TOP)
    clock = _TracedClock(number(data, "clock", 0.0))
    world = _World(clock)
    clock.world = world
    meter: _TracedMeter | None = None
    if "meter" in data:
        spec = obj(data["meter"], "meter", frozenset({"budget", "estimate"}))
        if "budget" not in spec:
            raise InvalidArgument('"meter" needs a budget')
        estimate = integer(spec, "estimate", 1, 0) or 0
        budget = BudgetMeter(integer(spec, "budget", None, 0) or 0,
                             estimate=lambda _call: estimate)
        meter = _TracedMeter(budget, world)
    authorizer = None
    if "grants" in data:
        grants = data["grants"]
        if not isinstance(grants, list):
            raise InvalidArgument('"grants" must be a list')
        authorizer = GrantAuthorizer(_grant(g, i) for i, g in enumerate(grants))
    raw_effects = items(data, "effects", "input")
    if not raw_effects:
        raise InvalidArgument('"effects" must be a non-empty list')
    runtime = EffectRuntime(
        authorizer=authorizer,
        middleware=[_middleware(m, i, world) for i, m in enumerate(items(data, "middleware",
                                                                           "input"))],
        meter=meter, kill_switch=world.kill_switch, clock=clock,
    )
    for i, e in enumerate(raw_effects):
        runtime.register(_effect(e, i, world))  # spec: effects.registration -- at most once
    steps = items(data, "steps", "input")
    if not steps:
        raise InvalidArgument('"steps" must be a non-empty list')
    try:
        out = _run_steps(steps, runtime, world, clock)
    except _BadScript as bad:
        raise InvalidArgument(str(bad)) from None
    for entry in out:
        if "signalAtEnd" in entry:
            entry["signalAtEnd"] = _signal_json(entry["signalAtEnd"])
    return {"steps": out}


def _run_steps(steps: list[Any], runtime: EffectRuntime, world: _World, clock: _TracedClock
               ) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i, raw in enumerate(steps):
        if not isinstance(raw, Mapping) or len(raw) != 1 or next(iter(raw)) not in _STEPS:
            raise InvalidArgument(f"steps[{i}] has exactly one key of {sorted(_STEPS)}")
        ((kind, value),) = raw.items()
        world.trace = []
        if kind == "call":
            out.append(_call(value, i, runtime, world))
            continue
        if kind == "advance":
            clock.advance(number(raw, "advance", 0.0))
        elif kind == "kill":
            reason, tool = _kill(value, f"steps[{i}].kill")
            world.kill_switch.kill(reason, tool_id=tool)
        elif kind == "revive":
            revive = obj(value, f"steps[{i}].revive", frozenset({"toolId"}))
            world.kill_switch.revive(tool_id=_tool_id(revive, f"steps[{i}].revive"))
        elif kind == "scope":
            spec = obj(value, f"steps[{i}].scope",
                       frozenset({"name", "executionId", "executionAborted"}))
            execution = Signal()
            if "executionAborted" in spec:
                execution.abort(_reason(spec["executionAborted"], "executionAborted"))
            world.scopes[string(spec, "name")] = DecideScope(
                runtime, string(spec, "executionId"), execution_signal=execution
            )
        elif kind == "cancelExecution":
            spec = obj(value, f"steps[{i}].cancelExecution", frozenset({"scope", "reason"}))
            named = spec.get("scope")
            if not isinstance(named, str) or named not in world.scopes:
                raise InvalidArgument(f"steps[{i}].cancelExecution names no scope")
            cancel = world.scopes[named].execution_signal
            assert cancel is not None
            cancel.abort(_reason(spec.get("reason"), "cancelExecution.reason"))
        elif kind == "close":
            if not isinstance(value, str) or value not in world.scopes:
                raise InvalidArgument(f"steps[{i}].close names no scope")
            world.scopes[value].close()
        else:
            if not isinstance(value, str):
                raise InvalidArgument(f"steps[{i}].isIdempotent takes a tool id")
            out.append({"idempotent": runtime.is_idempotent(value)})  # spec: effects.host-seam
            continue
        out.append({})
    return out
