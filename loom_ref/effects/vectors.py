"""The effect layer's conformance functions: JSON in, JSON out. ``deltas.run`` is specified in
``spec/deltas.md`` § Conformance function (spec: deltas.vector-run); ``effects.backoff`` in
``spec/effects.md`` §3.7 (spec: effects.retry-backoff). The table also serves ``effects.route``
(:mod:`loom_ref.effects.vectors_route`, ``spec/effects.md`` §3.8) and ``deltas.record``,
``deltas.llm`` (:mod:`loom_ref.effects.vectors_llm`, ``spec/deltas.md`` §3a.10);
``deltas.replay`` runs the kernel and is served by :mod:`loom_ref.kernel.vectors`.

``deltas.run`` runs ONE call of a scripted streaming effect through a real
:class:`~loom_ref.effects.runtime.EffectRuntime` configured from the input (retry, safety,
token budget, an uncovered output inspector, redaction; per-call and configured sinks) and
reports what each sink saw, the warnings by code, how many times the effect was executed, and
the outcome. Everything it does is a pure function of the input: no clock (a ``ManualClock``),
no randomness, no environment.

Input (every key but ``attempts`` optional)::

    {"toolId": "llm", "mode": "transient" | "durable",
     "attempts": [{"deltas": [<str> | {"abort": <reason>} | {"write": <non-string json>}],
                   "end": true, "usage": <usage>,
                   "outcome": "return" | "raise", "output": <json>, "catchSever": false}],
     "retry": <max attempts, default len(attempts)>,
     "validators": [<validator>], "deltaWindow": 4096, "holdBack": false,
     "secondSafety": [<validator>],
     "maxStreamTokens": <n>, "inspectsOutput": false, "redact": [<validator>] | false,
     "perCall": "collect" | "raise" | "none", "configured": "collect" | "raise" | "none",
     "late": [<str>], "lateEnd": false, "kill": <reason>, "input": <json>,
     "rewrite": {"replace": [<old>, <new>], "inspectsOutput": <bool>},
     "rateLimit": {"capacity": <n>, "rate": <n>, "per"?: "tool"},
     "order": [<middleware name>], "scope": false,
     "deny": <reason>, "refuse": <reason>, "modes": ["durable" | "transient"],
     "overBudget": <reason>, "aborted": <reason>, "sequence": false}

``kill`` engages the runtime's kill switch for the tool before the call (a refused call).
``rewrite`` adds a middleware that rewrites a ``str`` output after ``next``, marked
``inspects_output`` or not; ``order`` reorders the chain (names ``retry``, ``redact``,
``safety``, ``secondSafety``, ``budget``, ``inspector``, ``rewrite``, ``rateLimit``);
``rateLimit`` adds a ``RateLimitMiddleware``; ``secondSafety`` a second safety middleware over
its validators, with the same ``deltaWindow`` and ``holdBack``, right after ``safety`` (so
several hold-back guards compose); ``"redact": false`` a redaction middleware with no redactor; a
``{"write": v}`` entry has the effect write the non-string ``v`` to ``ctx.on_delta``; with
``scope`` the call goes through a ``DecideScope`` (execution ``x1``), and ``{"abort": reason,
"source": "execution"}`` aborts the execution's cancel signal instead of the caller's.

The stages of the route each refuse a call when asked (spec: deltas.refused-call): ``deny``
gives the runtime an authorizer that denies every call with that reason; ``refuse`` adds a
middleware (``refuse`` in ``order``) that raises ``effect.refused`` with that reason without
calling ``next``; ``modes`` are the modes the effect allows; ``overBudget`` gives the runtime a
meter that admits nothing (that reason); ``aborted`` aborts the caller's signal before the call.
With ``sequence`` the result also lists every delivery to either sink, in the order made
(spec: deltas.channel -- "Both sinks still fire, per-call first").

Result::

    {"perCall": [<delta json>] | null, "configured": [<delta json>] | null,
     "warnings": [<code>], "executions": <n>,
     "outcome": {"ok": true, "output": <json>}
                | {"ok": false, "code": <code>, "reason"?: <abort reason>},
     "sequence"?: [{"sink": "perCall" | "configured", "chunk": <delta json>}]}

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
from loom_ref.effects.decision import Decision
from loom_ref.effects.deltas import EffectDelta, delta_to_json
from loom_ref.effects.effect import Effect
from loom_ref.effects.errors import AbortedError, EffectRefusal
from loom_ref.effects.kill_switch import KillSwitch
from loom_ref.effects.middleware.base import Middleware, Next
from loom_ref.effects.middleware.rate_limit import RateLimitMiddleware
from loom_ref.effects.middleware.redaction import pattern_redactor, redaction_middleware
from loom_ref.effects.middleware.retry import RetryMiddleware, backoff_delay
from loom_ref.effects.middleware.safety import safety_middleware, stream_budget_middleware
from loom_ref.effects.runtime import EffectRuntime
from loom_ref.effects.scope import DecideScope
from loom_ref.effects.vector_input import boolean as _bool
from loom_ref.effects.vector_input import integer as _int
from loom_ref.effects.vector_input import modes
from loom_ref.effects.vector_input import number as _number
from loom_ref.effects.vector_input import obj as _obj
from loom_ref.effects.vectors_llm import VECTOR_FUNCTIONS_LLM, warning_code
from loom_ref.effects.vectors_route import vector_effects_route
from loom_ref.effects.vectors_route_world import reason_of
from loom_ref.errors import EffectError, InvalidArgument, LoomError
from loom_ref.governance.guards import DEFAULT_WINDOW
from loom_ref.governance.vectors import decode_validator
from loom_ref.signals import Signal
from loom_ref.stream.wire import usage_from_json

__all__ = [
    "SCRIPTED_FAILURE",
    "VECTOR_FUNCTIONS",
    "ScriptedEffectFailure",
    "vector_backoff",
    "vector_deltas_run",
]

SCRIPTED_FAILURE = "effect.scripted-failure"

#: Warning text (prefix) -> the code ``deltas.run`` reports (spec: deltas.vector-run).

_TOP = frozenset(
    {
        "toolId", "mode", "attempts", "retry", "validators", "deltaWindow", "holdBack",
        "secondSafety", "maxStreamTokens", "inspectsOutput", "redact", "perCall", "configured",
        "late", "lateEnd",
        "kill", "input", "rewrite", "order", "scope", "rateLimit", "deny", "refuse", "modes",
        "overBudget", "aborted", "sequence",
    }
)
_CHAIN = (
    "retry", "redact", "safety", "secondSafety", "budget", "inspector", "rewrite", "rateLimit",
    "refuse",
)
_SOURCES = ("call", "execution")
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


class _Rewriter:
    """A middleware that rewrites a ``str`` output after ``next`` (``str.replace``), marked
    ``inspects_output`` or not (spec: deltas.inspects-obligation)."""

    delta_guard = None

    def __init__(self, spec: object) -> None:
        data = _obj(spec, '"rewrite"', frozenset({"replace", "inspectsOutput"}))
        pair = data.get("replace")
        if not (isinstance(pair, list) and len(pair) == 2
                and all(isinstance(p, str) for p in pair) and pair[0]):
            raise InvalidArgument('"rewrite.replace" is [<non-empty old>, <new>]')
        self.old, self.new = pair
        self.inspects_output = _bool(data, "inspectsOutput", False)

    def handle(self, ctx: EffectContext, input: Any, next: Next) -> Any:
        output = next(ctx, input)
        return output.replace(self.old, self.new) if isinstance(output, str) else output


class _Refuser:
    """A middleware that refuses every call before ``next`` (spec: deltas.refused-call)."""

    inspects_output = False
    delta_guard = None

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def handle(self, ctx: EffectContext, input: Any, next: Next) -> Any:
        raise EffectRefusal(self.reason)


class _Denier:
    """An authorizer and a meter that refuse every call with ``reason``
    (spec: effects.authorizer, effects.metering-admission)."""

    def __init__(self, reason: str) -> None:
        self.decision = Decision.deny(reason)

    def authorize(self, principal: str, tool_id: str, mode: Mode) -> Decision:
        return self.decision

    def admit(self, call: EffectCall) -> Decision:
        return self.decision

    def record(self, call: EffectCall, usage: Mapping[str, int], advisory: bool) -> None:
        """Nothing to keep: a call this meter refused never reaches the effect, so it is
        never recorded (spec: effects.metering-record); the result shows whether it ran."""


def _is_write(item: object) -> bool:
    """``{"write": v}``: the effect writes ``v``, a JSON value that is not a string, to
    ``ctx.on_delta`` (spec: deltas.writer -- the channel refuses it)."""
    return isinstance(item, Mapping) and list(item) == ["write"] and not isinstance(
        item["write"], str)


def _attempt(value: object, i: int) -> dict[str, Any]:
    data = _obj(value, f"attempts[{i}]", _ATTEMPT)
    deltas = data.get("deltas", [])
    if not isinstance(deltas, list):
        raise InvalidArgument(f"attempts[{i}].deltas must be a list")
    for item in deltas:
        abort = (isinstance(item, Mapping) and "abort" in item and set(item) <= {"abort", "source"}
                 and item.get("source", "call") in _SOURCES)
        if not (isinstance(item, str) or abort or _is_write(item)):
            raise InvalidArgument(
                f'attempts[{i}].deltas holds a string, {{"abort": reason, "source"?}} or '
                f'{{"write": <a JSON value that is not a string>}}'
            )
        if abort and (not isinstance(item["abort"], str) or not item["abort"]):
            raise InvalidArgument(f"attempts[{i}]: an abort reason is a non-empty string")
    outcome = data.get("outcome", "return")
    if outcome not in ("return", "raise"):
        raise InvalidArgument(f'attempts[{i}].outcome must be "return" or "raise"')
    usage = None
    if "usage" in data:  # malformed input, whatever the wire reader calls it
        try:
            usage = usage_from_json(data["usage"], f"$.attempts[{i}].usage")
        except LoomError as error:
            raise InvalidArgument(f"attempts[{i}].usage: {error.message}") from None
    return {
        "deltas": deltas,
        "end": _bool(data, "end", True),
        "usage": usage,
        "outcome": outcome,
        "output": data.get(
            "output", "".join(d for d in deltas if isinstance(d, str))
        ),
        "catchSever": _bool(data, "catchSever", False),
    }


def _sink(mode: object, seen: list[dict[str, Any]], name: str,
          sequence: list[dict[str, Any]]) -> Callable[[EffectDelta], None] | None:
    if mode not in _SINK_MODES:
        raise InvalidArgument(f"a sink mode is one of {_SINK_MODES}, got {mode!r}")
    if mode == "none":
        return None

    def sink(chunk: EffectDelta) -> None:
        seen.append(delta_to_json(chunk))
        sequence.append({"sink": name, "chunk": seen[-1]})
        if mode == "raise":
            raise RuntimeError("sink failure")

    return sink


def _middleware(data: Mapping[str, Any], retry: int) -> list[Middleware]:
    chain: dict[str, Middleware] = {}
    if retry > 1:
        chain["retry"] = RetryMiddleware(retry, base_delay=0.0)
    if "redact" in data:
        redact = data["redact"]
        if redact is False:  # a redaction middleware with no redactor (deltas.redaction-inspects)
            chain["redact"] = redaction_middleware()
        elif not isinstance(redact, list):
            raise InvalidArgument('"redact" must be a list of validators or false')
        else:
            chain["redact"] = redaction_middleware(
                redact_output=pattern_redactor(map(decode_validator, redact))
            )
    validators = data.get("validators", [])
    if not isinstance(validators, list):
        raise InvalidArgument('"validators" must be a list')
    # read even with no validators: a malformed member is refused wherever it stands
    delta_window = _int(data, "deltaWindow", DEFAULT_WINDOW, 1)
    if "validators" in data:  # present, even empty: configured (spec: deltas.vector-run)
        chain["safety"] = safety_middleware(
            [decode_validator(v) for v in validators],
            delta_window=delta_window,
            hold_back=_bool(data, "holdBack", False),
        )
    if "secondSafety" in data:  # several hold-back guards compose (spec: deltas.hold-back)
        second = data["secondSafety"]
        if not isinstance(second, list):
            raise InvalidArgument('"secondSafety" must be a list of validators')
        chain["secondSafety"] = safety_middleware(
            [decode_validator(v) for v in second],
            delta_window=delta_window,
            hold_back=_bool(data, "holdBack", False),
        )
    budget = _int(data, "maxStreamTokens", None, 0)
    if budget is not None:
        chain["budget"] = stream_budget_middleware(budget)
    if _bool(data, "inspectsOutput", False):
        chain["inspector"] = _Inspector()
    if "rewrite" in data:
        chain["rewrite"] = _Rewriter(data["rewrite"])
    if "rateLimit" in data:
        limit = _obj(data["rateLimit"], '"rateLimit"', frozenset({"capacity", "rate", "per"}))
        chain["rateLimit"] = RateLimitMiddleware(
            capacity=_number(limit, "capacity", None), rate=_number(limit, "rate", None),
            per=limit.get("per", "tool"),
        )
    if "refuse" in data:
        chain["refuse"] = _Refuser(reason_of(data["refuse"], '"refuse"'))
    order = data.get("order", [name for name in _CHAIN if name in chain])
    if (not isinstance(order, list) or not all(isinstance(n, str) for n in order)
            or sorted(order) != sorted(chain)):
        raise InvalidArgument(f'"order" must list exactly the middleware {sorted(chain)}')
    return [chain[name] for name in order]


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
    _bool(data, "holdBack", False)  # checked even when no validator reads it
    retry = _int(data, "retry", len(attempts), 1)
    if retry > len(attempts):
        raise InvalidArgument('"retry" cannot exceed the number of scripted attempts')
    late = data.get("late", [])
    if not isinstance(late, list) or not all(isinstance(d, str) for d in late):
        raise InvalidArgument('"late" must be a list of strings')
    late_end = _bool(data, "lateEnd", False)
    per_call_mode = data.get("perCall", "collect" if mode == "transient" else "none")
    if mode == "durable" and per_call_mode != "none":
        raise InvalidArgument('a durable call has no per-call sink: "perCall" must be "none"')
    use_scope = _bool(data, "scope", False)
    if use_scope and mode != "transient":
        raise InvalidArgument('a call through a decide scope is transient')
    for script in attempts:
        for item in script["deltas"]:
            if isinstance(item, Mapping) and item.get("source") == "execution" and not use_scope:
                raise InvalidArgument('an abort of the execution needs "scope": true')
    call_input = data.get("input")
    per_call_seen: list[dict[str, Any]] = []
    configured_seen: list[dict[str, Any]] = []
    sequence: list[dict[str, Any]] = []
    per_call = _sink(per_call_mode, per_call_seen, "perCall", sequence)
    configured = _sink(data.get("configured", "none"), configured_seen, "configured", sequence)
    show_sequence = _bool(data, "sequence", False)
    effect_modes = modes(data, "modes", '"modes"')
    deny = None if "deny" not in data else _Denier(reason_of(data["deny"], '"deny"'))
    over_budget = (None if "overBudget" not in data
                   else _Denier(reason_of(data["overBudget"], '"overBudget"')))
    signal = Signal()
    if "aborted" in data:  # aborted before the call: the route's last stage refuses it
        signal.abort(reason_of(data["aborted"], '"aborted"'))
    execution = Signal()
    channels: list[Any] = []

    def execute(ctx: EffectContext, input: Any) -> Any:
        script = attempts[ctx.attempt - 1]
        write = ctx.on_delta
        assert write is not None
        channels.append(write)

        def guarded(send: Callable[[Any], None], what: Any) -> None:
            """spec: deltas.vector-run -- catchSever covers every write and the end chunk."""
            try:
                send(what)
            except Exception:
                if not script["catchSever"]:
                    raise

        for item in script["deltas"]:
            if _is_write(item):
                item = item["write"]  # not text: the channel refuses it (deltas.writer)
            elif isinstance(item, Mapping):  # the caller (or the execution) stops; the effect
                source = execution if item.get("source") == "execution" else signal
                source.abort(item["abort"])  # ignores it and carries on
                continue
            guarded(write, item)
        if script["end"]:
            guarded(write.end, script["usage"])
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
        [Effect(tool_id=tool_id, execute=execute, delta_sink=configured, modes=effect_modes)],
        authorizer=deny,
        middleware=_middleware(data, retry),
        meter=over_budget,
        clock=ManualClock(),
        on_warn=warnings.append,
        kill_switch=kill_switch,
    )
    outcome: dict[str, Any]
    try:
        if mode == "durable":
            call = EffectCall(
                tool_id=tool_id, input=call_input, mode=Mode.DURABLE, principal="x1",
                execution_id="x1", step_id=f"{tool_id}#1", idempotency_key=f"x1/{tool_id}#1",
                signal=signal,
            )
            output = runtime.invoke(call)
        elif use_scope:  # spec: deltas.cancellation -- the scope composes the signal
            scope = DecideScope(runtime, "x1", execution_signal=execution)
            output = scope.invoke_transient(tool_id, call_input, signal=signal, on_delta=per_call)
        else:
            output = runtime.invoke_transient(
                tool_id, call_input, principal="x1", signal=signal, on_delta=per_call
            )
        outcome = {"ok": True, "output": output}
    except LoomError as error:
        outcome = {"ok": False, "code": error.code}
        if isinstance(error, AbortedError):
            outcome["reason"] = error.reason
    for text in late:  # spec: deltas.live-window -- a write after settlement reaches nobody
        for write in channels:
            write(text)
    if late_end:  # spec: deltas.live-window -- so is a late end chunk (deltas.writer: steps 1-3)
        for write in channels:
            write.end(None)
    result: dict[str, Any] = {
        "perCall": None if per_call is None else per_call_seen,
        "configured": None if configured is None else configured_seen,
        "warnings": [warning_code(w) for w in warnings],
        "executions": len(channels),
        "outcome": outcome,
    }
    if show_sequence:  # spec: deltas.channel -- both sinks' deliveries, interleaved
        result["sequence"] = sequence
    return result


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
    "effects.route": vector_effects_route,
    **VECTOR_FUNCTIONS_LLM,
}
"""Case ``function`` name -> the function that computes its ``result``."""
