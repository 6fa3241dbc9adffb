"""The effect layer's conformance functions: JSON in, JSON out. ``deltas.run`` is specified in
``spec/deltas.md`` § Conformance function (spec: deltas.vector-run); ``effects.backoff`` in
``spec/effects.md`` §3.7 (spec: effects.retry-backoff).

``deltas.run`` runs ONE call of a scripted streaming effect through a real
:class:`~loom_ref.effects.runtime.EffectRuntime` configured from the input (retry, safety,
token budget, an uncovered output inspector, redaction; per-call and configured sinks) and
reports what each sink saw, the warnings by code, how many times the effect was executed, and
the outcome. Everything it does is a pure function of the input: no clock (a ``ManualClock``),
no randomness, no environment.

Input (every key but ``attempts`` optional)::

    {"toolId": "llm", "mode": "transient" | "durable",
     "attempts": [{"deltas": [<str> | {"abort": <reason>}], "end": true, "usage": <usage>,
                   "outcome": "return" | "raise", "output": <json>, "catchSever": false}],
     "retry": <max attempts, default len(attempts)>,
     "validators": [<validator>], "deltaWindow": 4096, "holdBack": false,
     "maxStreamTokens": <n>, "inspectsOutput": false, "redact": [<validator>],
     "perCall": "collect" | "raise" | "none", "configured": "collect" | "raise" | "none",
     "late": [<str>], "kill": <reason>}

``kill`` engages the runtime's kill switch for the tool before the call (a refused call).

Result::

    {"perCall": [<delta json>] | null, "configured": [<delta json>] | null,
     "warnings": [<code>], "executions": <n>,
     "outcome": {"ok": true, "output": <json>} | {"ok": false, "code": <code>}}

``<validator>`` is the governance encoding (``loom_ref.governance.vectors.decode_validator``);
``<usage>`` the stream wire form of ``TokenUsage``; a ``<delta json>`` is
:func:`~loom_ref.effects.deltas.delta_to_json`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from loom_ref.effects.call import EffectCall, Mode
from loom_ref.effects.clock import ManualClock
from loom_ref.effects.context import EffectContext
from loom_ref.effects.deltas import SINK_RAISED, EffectDelta, delta_origin, delta_to_json
from loom_ref.effects.effect import Effect
from loom_ref.effects.kill_switch import KillSwitch
from loom_ref.effects.middleware.base import Middleware, Next
from loom_ref.effects.middleware.redaction import pattern_redactor, redaction_middleware
from loom_ref.effects.middleware.retry import RetryMiddleware, backoff_delay
from loom_ref.effects.middleware.safety import safety_middleware, stream_budget_middleware
from loom_ref.effects.runtime import STREAMING_DISABLED, EffectRuntime
from loom_ref.errors import EffectError, InvalidArgument, LoomError
from loom_ref.governance.guards import DEFAULT_WINDOW
from loom_ref.governance.vectors import decode_validator
from loom_ref.signals import Signal
from loom_ref.stream.wire import usage_from_json

__all__ = [
    "SCRIPTED_FAILURE",
    "VECTOR_FUNCTIONS",
    "WARNING_CODES",
    "ScriptedEffectFailure",
    "vector_backoff",
    "vector_deltas_run",
]

SCRIPTED_FAILURE = "effect.scripted-failure"

#: Warning text (prefix) -> the code ``deltas.run`` reports (spec: deltas.vector-run).
WARNING_CODES: Mapping[str, str] = {
    STREAMING_DISABLED: "deltas.streaming-disabled",
    SINK_RAISED: "deltas.sink-raised",
}

_TOP = frozenset(
    {
        "toolId", "mode", "attempts", "retry", "validators", "deltaWindow", "holdBack",
        "maxStreamTokens", "inspectsOutput", "redact", "perCall", "configured", "late",
        "kill",
    }
)
_ATTEMPT = frozenset({"deltas", "end", "usage", "outcome", "output", "catchSever"})
_SINK_MODES = ("collect", "raise", "none")


class ScriptedEffectFailure(EffectError):
    """The failure a scripted attempt with ``"outcome": "raise"`` raises."""

    code = SCRIPTED_FAILURE


class _Inspector:
    """An output-inspecting middleware with no delta form (spec: deltas.fail-closed)."""

    inspects_output = True
    delta_guard = None

    def handle(self, ctx: EffectContext, input: Any, next: Next) -> Any:
        return next(ctx, input)


def _obj(value: object, what: str, allowed: frozenset[str]) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise InvalidArgument(f"{what} must be a JSON object")
    unknown = sorted(set(value) - allowed)
    if unknown:
        raise InvalidArgument(f"{what}: unknown key(s) {unknown}")
    return value


def _bool(data: Mapping[str, Any], key: str, default: bool) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise InvalidArgument(f'"{key}" must be a boolean')
    return value


def _int(data: Mapping[str, Any], key: str, default: int | None, minimum: int) -> int | None:
    value = data.get(key, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InvalidArgument(f'"{key}" must be an integer >= {minimum}')
    return value


def _attempt(value: object, i: int) -> dict[str, Any]:
    data = _obj(value, f"attempts[{i}]", _ATTEMPT)
    deltas = data.get("deltas", [])
    if not isinstance(deltas, list):
        raise InvalidArgument(f"attempts[{i}].deltas must be a list")
    for item in deltas:
        abort = isinstance(item, Mapping) and set(item) == {"abort"}
        if not (isinstance(item, str) or abort):
            raise InvalidArgument(f'attempts[{i}].deltas holds a string or {{"abort": reason}}')
    outcome = data.get("outcome", "return")
    if outcome not in ("return", "raise"):
        raise InvalidArgument(f'attempts[{i}].outcome must be "return" or "raise"')
    usage = data.get("usage")
    return {
        "deltas": deltas,
        "end": _bool(data, "end", True),
        "usage": None if usage is None else usage_from_json(usage, f"$.attempts[{i}].usage"),
        "outcome": outcome,
        "output": data.get(
            "output", "".join(d for d in deltas if isinstance(d, str))
        ),
        "catchSever": _bool(data, "catchSever", False),
    }


def _sink(mode: object, seen: list[dict[str, Any]]) -> Callable[[EffectDelta], None] | None:
    if mode not in _SINK_MODES:
        raise InvalidArgument(f"a sink mode is one of {_SINK_MODES}, got {mode!r}")
    if mode == "none":
        return None

    def sink(chunk: EffectDelta) -> None:
        seen.append(delta_to_json(chunk))
        if mode == "raise":
            raise RuntimeError("sink failure")

    return sink


def _middleware(data: Mapping[str, Any], retry: int) -> list[Middleware]:
    chain: list[Middleware] = []
    if retry > 1:
        chain.append(RetryMiddleware(retry, base_delay=0.0))
    redact = data.get("redact")
    if redact is not None:
        if not isinstance(redact, list):
            raise InvalidArgument('"redact" must be a list of validators')
        chain.append(
            redaction_middleware(redact_output=pattern_redactor(map(decode_validator, redact)))
        )
    validators = data.get("validators", [])
    if not isinstance(validators, list):
        raise InvalidArgument('"validators" must be a list')
    if validators:
        chain.append(
            safety_middleware(
                [decode_validator(v) for v in validators],
                delta_window=_int(data, "deltaWindow", DEFAULT_WINDOW, 1) or DEFAULT_WINDOW,
                hold_back=_bool(data, "holdBack", False),
            )
        )
    budget = _int(data, "maxStreamTokens", None, 0)
    if budget is not None:
        chain.append(stream_budget_middleware(budget))
    if _bool(data, "inspectsOutput", False):
        chain.append(_Inspector())
    return chain


def _warning_code(text: str) -> str:
    for prefix, code in WARNING_CODES.items():
        if text.startswith(prefix):
            return code
    return "deltas.warning"


def vector_deltas_run(data: object) -> dict[str, Any]:
    """``deltas.run``: one scripted streamed call through the governed runtime (see the
    module docstring for the input and result shapes)."""
    data = _obj(data, "input", _TOP)
    raw_attempts = data.get("attempts")
    if not isinstance(raw_attempts, list) or not raw_attempts:
        raise InvalidArgument('"attempts" must be a non-empty list')
    attempts = [_attempt(a, i) for i, a in enumerate(raw_attempts)]
    tool_id = data.get("toolId", "llm")
    if not isinstance(tool_id, str) or not tool_id:
        raise InvalidArgument('"toolId" must be a non-empty string')
    mode = data.get("mode", "transient")
    if mode not in ("transient", "durable"):
        raise InvalidArgument('"mode" must be "transient" or "durable"')
    retry = _int(data, "retry", len(attempts), 1) or 1
    if retry > len(attempts):
        raise InvalidArgument('"retry" cannot exceed the number of scripted attempts')
    late = data.get("late", [])
    if not isinstance(late, list) or not all(isinstance(d, str) for d in late):
        raise InvalidArgument('"late" must be a list of strings')
    per_call_mode = data.get("perCall", "collect" if mode == "transient" else "none")
    if mode == "durable" and per_call_mode != "none":
        raise InvalidArgument('a durable call has no per-call sink: "perCall" must be "none"')
    per_call_seen: list[dict[str, Any]] = []
    configured_seen: list[dict[str, Any]] = []
    per_call = _sink(per_call_mode, per_call_seen)
    configured = _sink(data.get("configured", "none"), configured_seen)
    signal = Signal()
    channels: list[Any] = []
    origin = delta_origin(tool_id)

    def execute(ctx: EffectContext, input: Any) -> Any:
        script = attempts[ctx.attempt - 1]
        write = ctx.on_delta
        assert write is not None
        channels.append(write)
        for item in script["deltas"]:
            if isinstance(item, Mapping):
                signal.abort(item["abort"])  # the caller stops; the effect ignores it
                continue
            try:
                write(item)
            except Exception:
                if not script["catchSever"]:
                    raise
        if script["end"]:
            write(EffectDelta.end(origin, script["usage"]))
        if script["outcome"] == "raise":
            raise ScriptedEffectFailure(f"attempt {ctx.attempt} failed")
        return script["output"]

    warnings: list[str] = []
    kill_switch = None
    if "kill" in data:
        if not isinstance(data["kill"], str):
            raise InvalidArgument('"kill" must be a string (the kill reason)')
        kill_switch = KillSwitch()
        kill_switch.kill(data["kill"], tool_id=tool_id)
    runtime = EffectRuntime(
        [Effect(tool_id=tool_id, execute=execute, delta_sink=configured)],
        middleware=_middleware(data, retry),
        clock=ManualClock(),
        on_warn=warnings.append,
        kill_switch=kill_switch,
    )
    outcome: dict[str, Any]
    try:
        if mode == "durable":
            call = EffectCall(
                tool_id=tool_id, input=None, mode=Mode.DURABLE, principal="x1",
                execution_id="x1", step_id=f"{tool_id}#1", idempotency_key=f"x1/{tool_id}#1",
                signal=signal,
            )
            output = runtime.invoke(call)
        else:
            output = runtime.call_transient(
                tool_id, None, principal="x1", signal=signal, on_delta=per_call
            )
        outcome = {"ok": True, "output": output}
    except LoomError as error:
        outcome = {"ok": False, "code": error.code}
    for text in late:  # spec: deltas.live-window -- a write after settlement reaches nobody
        for write in channels:
            write(text)
    return {
        "perCall": None if per_call is None else per_call_seen,
        "configured": None if configured is None else configured_seen,
        "warnings": [_warning_code(w) for w in warnings],
        "executions": len(channels),
        "outcome": outcome,
    }


_BACKOFF = frozenset({"attempt", "base_delay", "multiplier", "max_delay", "jitter", "key"})


def vector_backoff(data: object) -> float:
    """``effects.backoff`` (``spec/effects.md`` §3.7): ``backoff_delay(**input)``; every key
    is required (spec: effects.retry-backoff)."""
    data = _obj(data, "input", _BACKOFF)
    if set(data) != _BACKOFF:
        raise InvalidArgument(f"input needs exactly the keys {sorted(_BACKOFF)}")
    return backoff_delay(**data)


VECTOR_FUNCTIONS: Mapping[str, Callable[[Any], Any]] = {
    "deltas.run": vector_deltas_run,
    "effects.backoff": vector_backoff,
}
"""Case ``function`` name -> the function that computes its ``result``."""
