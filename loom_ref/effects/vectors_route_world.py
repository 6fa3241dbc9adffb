"""The scripted world an ``effects.route`` input describes (spec: ``spec/effects.md`` §3.8,
``effects.route-vector``): effects whose attempts follow a script, grants, middleware (retry,
rate limit, envelope, tracing probes), a metered budget and an injected clock, each traced
into the call's trace. :mod:`loom_ref.effects.vectors_route` builds a runtime from these and
runs the input's steps; the input format is in its docstring.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from loom_ref.effects.authorizer import Grant
from loom_ref.effects.call import EffectCall
from loom_ref.effects.clock import ManualClock
from loom_ref.effects.context import EffectContext
from loom_ref.effects.decision import Decision
from loom_ref.effects.effect import Effect
from loom_ref.effects.kill_switch import KillSwitch
from loom_ref.effects.metering import BudgetMeter
from loom_ref.effects.middleware.base import Middleware, Next
from loom_ref.effects.middleware.envelope import EnvelopeMiddleware
from loom_ref.effects.middleware.rate_limit import RateLimitMiddleware
from loom_ref.effects.middleware.retry import RetryMiddleware
from loom_ref.effects.scope import DecideScope
from loom_ref.effects.vector_input import (
    boolean,
    modes,
    number,
    obj,
    string,
)
from loom_ref.errors import EffectError, InvalidArgument, LoomError
from loom_ref.signals import Signal

__all__ = ["CALL", "DOORS", "SCOPE_CALL", "STEPS", "TOP", "BadScript", "ScriptedCrash",
           "ScriptedEffectError", "TracedClock", "TracedMeter", "World", "build_effect",
           "build_grant", "build_middleware", "kill_order", "reason_of", "tool_id_of"]

TOP = frozenset({"effects", "grants", "middleware", "meter", "clock", "steps"})
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
STEPS = frozenset(
    {"call", "advance", "kill", "revive", "scope", "close", "cancelExecution", "isIdempotent"}
)
CALL = frozenset(
    {"tool", "input", "mode", "door", "principal", "executionId", "stepId", "idempotencyKey",
     "aborted", "scope", "watchSignal"}
)
SCOPE_CALL = frozenset({"tool", "input", "aborted", "scope", "watchSignal"})
DOORS = ("invoke", "invokeTransient", "callTransient")
_SOURCES = ("call", "execution", "scope")


class ScriptedEffectError(EffectError):
    """What a scripted attempt with ``"raise": {"code", "message"}`` raises: the effect's own
    failure, with the scripted code (it is no refusal, so a retry may retry it)."""

    code = "effect.scripted-failure"


class ScriptedCrash(BaseException):
    """A simulated crash (``"crash": true``): a ``BaseException``, which no retry catches."""


class BadScript(BaseException):
    """A script that cannot run as written (found while running); it passes through every
    middleware untouched and becomes ``argument.invalid`` for the whole input."""


def reason_of(value: object, what: str) -> str:
    if not isinstance(value, str) or not value:
        raise InvalidArgument(f"{what} must be a non-empty string (a reason)")
    return value


def kill_order(value: object, what: str) -> tuple[str, str | None]:
    data = obj(value, what, frozenset({"reason", "toolId"}))
    return reason_of(data.get("reason"), f"{what}.reason"), tool_id_of(data, what)


def tool_id_of(data: Mapping[str, Any], what: str) -> str | None:
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
        step["kill"] = kill_order(data["kill"], f"{what}.kill")
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
            step["abort"] = (source, reason_of(abort.get("reason"), f"{what}.abort.reason"))
    if "raise" in data:
        spec = obj(data["raise"], f"{what}.raise", frozenset({"code", "message"}))
        step["raise"] = (string(spec, "code"), spec.get("message", "scripted failure"))
        if not isinstance(step["raise"][1], str):
            raise InvalidArgument(f"{what}.raise.message must be a string")
    for flag in ("echo", "crash"):
        if flag in data and data[flag] is not True:
            raise InvalidArgument(f'{what}.{flag} must be true')
    return step


class World:
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
            raise BadScript(f'an abort of source "{source}" needs a call through a scope')
        if source == "execution":
            assert self.scope.execution_signal is not None
            self.scope.execution_signal.abort(reason)
        else:
            self.scope.close()


class TracedClock(ManualClock):
    """A manual clock whose sleeps go into the running call's trace
    (spec: effects.injected-clock)."""

    __slots__ = ("world",)

    def __init__(self, start: float) -> None:
        super().__init__(start)
        self.world: World | None = None

    def sleep(self, seconds: float) -> None:
        super().sleep(seconds)
        assert self.world is not None
        self.world.trace.append({"sleep": self.sleeps[-1]})


class TracedMeter:
    """A :class:`BudgetMeter` whose records go into the running call's trace."""

    def __init__(self, inner: BudgetMeter, world: World) -> None:
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
    """A middleware that traces what it sees; may replace the input or short-circuit. It
    declares neither ``inspects_output`` nor ``delta_guard``: the runtime reads both through
    their defaults (False, None), and the route world gives no call a delta sink anyway."""

    def __init__(self, spec: Mapping[str, Any], world: World) -> None:
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
    if not isinstance(codes, list) or not all(isinstance(c, str) and c for c in codes):
        # an empty string is no error code (spec: effects.route-vector)
        raise InvalidArgument("retryOn must be a list of error codes (non-empty strings)")
    wanted = frozenset(codes)
    return lambda error: isinstance(error, LoomError) and error.code in wanted


def build_middleware(value: object, i: int, world: World) -> Middleware:
    kind = value.get("kind") if isinstance(value, Mapping) else None
    if not isinstance(kind, str) or kind not in _MIDDLEWARE:
        raise InvalidArgument(f"middleware[{i}].kind is one of {sorted(_MIDDLEWARE)}")
    assert isinstance(value, Mapping)
    spec = obj(value, f"middleware[{i}]", _MIDDLEWARE[kind])
    if kind == "retry":
        retry_on: Any = (Exception,) if "retryOn" not in spec else _retry_on(spec["retryOn"])
        if "maxAttempts" not in spec:
            raise InvalidArgument(f"middleware[{i}]: a retry needs maxAttempts")
        return RetryMiddleware(
            spec["maxAttempts"],  # RetryMiddleware refuses all but an integer >= 1 (§3.5)
            base_delay=number(spec, "baseDelay", 0.1),
            multiplier=number(spec, "multiplier", 2.0),
            max_delay=number(spec, "maxDelay", 10.0),
            jitter=number(spec, "jitter", 0.0),
            retry_on=retry_on,
            seed=spec.get("seed", ""),  # RetryMiddleware refuses all but a string (§3.5)
        )
    if kind == "rateLimit":
        return RateLimitMiddleware(
            capacity=number(spec, "capacity", None), rate=number(spec, "rate", None),
            per=spec.get("per", "tool"),
        )
    if kind == "envelope":
        return EnvelopeMiddleware()
    return _Probe(spec, world)


def build_effect(value: object, i: int, world: World) -> Effect:
    data = obj(value, f"effects[{i}]", _EFFECT)
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

    # Effect refuses a tool id that is not a non-empty string (effects.route-vector)
    tool_id: Any = data.get("toolId")
    return Effect(tool_id=tool_id, execute=execute, modes=modes(data, "modes", "modes"),
                  idempotent=boolean(data, "idempotent", False))


def build_grant(value: object, i: int) -> Grant:
    data = obj(value, f"grants[{i}]", frozenset({"principal", "toolId", "modes"}))
    # Grant refuses a principal or tool id that is not a non-empty string (effects.route-vector)
    principal: Any = data.get("principal")
    tool_id: Any = data.get("toolId")
    return Grant(principal=principal, tool_id=tool_id,
                 modes=modes(data, "modes", f"grants[{i}].modes"))
