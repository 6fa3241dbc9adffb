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

from loom_ref.effects.authorizer import GrantAuthorizer
from loom_ref.effects.call import EffectCall, Mode
from loom_ref.effects.metering import BudgetMeter
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
from loom_ref.effects.vectors_route_world import (
    CALL,
    DOORS,
    SCOPE_CALL,
    STEPS,
    TOP,
    BadScript,
    ScriptedCrash,
    ScriptedEffectError,
    TracedClock,
    TracedMeter,
    World,
    build_effect,
    build_grant,
    build_middleware,
    kill_order,
    reason_of,
    tool_id_of,
)
from loom_ref.errors import InvalidArgument, LoomError
from loom_ref.signals import Signal

__all__ = ["ScriptedCrash", "ScriptedEffectError", "vector_effects_route"]


def _outcome(run: Callable[[], Any]) -> dict[str, Any]:
    try:
        return {"output": run()}
    except LoomError as error:
        return {"error": error_json(error)}
    except ScriptedCrash:
        return {"crashed": True}


def _call(spec_value: object, i: int, runtime: EffectRuntime, world: World) -> dict[str, Any]:
    what = f"steps[{i}].call"
    spec = obj(spec_value, what, CALL)
    tool = string(spec, "tool")
    input = spec.get("input")
    signal = Signal()
    if "aborted" in spec:
        signal.abort(reason_of(spec["aborted"], f"{what}.aborted"))
    world.call_signal, world.scope, world.seen_signal = signal, None, None
    run: Callable[[], Any]
    if "scope" in spec:
        obj(spec, what, SCOPE_CALL)
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
        if door not in DOORS:
            raise InvalidArgument(f"{what}.door is one of {DOORS}")
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
                return runtime.invoke_transient(tool, input, principal=principal, signal=signal)
        elif door == "invoke":
            def run() -> Any:
                return runtime.invoke(call)
        else:
            def run() -> Any:
                return runtime.invoke_transient_call(call)
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
    data = obj(data, "input", TOP)
    clock = TracedClock(number(data, "clock", 0.0))
    world = World(clock)
    clock.world = world
    meter: TracedMeter | None = None
    if "meter" in data:
        spec = obj(data["meter"], "meter", frozenset({"budget", "estimate"}))
        if "budget" not in spec:
            raise InvalidArgument('"meter" needs a budget')
        estimate = integer(spec, "estimate", 1, 0)
        budget = BudgetMeter(integer(spec, "budget", None, 0) or 0,
                             estimate=lambda _call: estimate)
        meter = TracedMeter(budget, world)
    authorizer = None
    if "grants" in data:
        grants = data["grants"]
        if not isinstance(grants, list):
            raise InvalidArgument('"grants" must be a list')
        authorizer = GrantAuthorizer(build_grant(g, i) for i, g in enumerate(grants))
    raw_effects = items(data, "effects", "input")
    if not raw_effects:
        raise InvalidArgument('"effects" must be a non-empty list')
    runtime = EffectRuntime(
        authorizer=authorizer,
        middleware=[build_middleware(m, i, world) for i, m in enumerate(items(data, "middleware",
                                                                           "input"))],
        meter=meter, kill_switch=world.kill_switch, clock=clock,
    )
    for i, e in enumerate(raw_effects):
        runtime.register(build_effect(e, i, world))  # spec: effects.registration -- at most once
    steps = items(data, "steps", "input")
    if not steps:
        raise InvalidArgument('"steps" must be a non-empty list')
    try:
        out = _run_steps(steps, runtime, world, clock)
    except BadScript as bad:
        raise InvalidArgument(str(bad)) from None
    for entry in out:
        if "signalAtEnd" in entry:
            entry["signalAtEnd"] = _signal_json(entry["signalAtEnd"])
    return {"steps": out}


def _run_steps(steps: list[Any], runtime: EffectRuntime, world: World, clock: TracedClock
               ) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i, raw in enumerate(steps):
        if not isinstance(raw, Mapping) or len(raw) != 1 or next(iter(raw)) not in STEPS:
            raise InvalidArgument(f"steps[{i}] has exactly one key of {sorted(STEPS)}")
        ((kind, value),) = raw.items()
        world.trace = []
        if kind == "call":
            out.append(_call(value, i, runtime, world))
            continue
        if kind == "advance":
            clock.advance(number(raw, "advance", 0.0))
        elif kind == "kill":
            reason, tool = kill_order(value, f"steps[{i}].kill")
            world.kill_switch.kill(reason, tool_id=tool)
        elif kind == "revive":
            revive = obj(value, f"steps[{i}].revive", frozenset({"toolId"}))
            world.kill_switch.revive(tool_id=tool_id_of(revive, f"steps[{i}].revive"))
        elif kind == "scope":
            spec = obj(value, f"steps[{i}].scope",
                       frozenset({"name", "executionId", "executionAborted"}))
            execution = Signal()
            if "executionAborted" in spec:
                execution.abort(reason_of(spec["executionAborted"], "executionAborted"))
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
            cancel.abort(reason_of(spec.get("reason"), "cancelExecution.reason"))
        elif kind == "close":
            if not isinstance(value, str) or value not in world.scopes:
                raise InvalidArgument(f"steps[{i}].close names no scope")
            world.scopes[value].close()
        else:
            if not isinstance(value, str) or not value:  # spec: effects.route-vector
                raise InvalidArgument(f"steps[{i}].isIdempotent takes a tool id (non-empty)")
            out.append({"idempotent": runtime.is_idempotent(value)})  # spec: effects.host-seam
            continue
        out.append({})
    return out
