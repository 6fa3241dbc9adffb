"""The streaming conformance functions beyond ``deltas.run``: ``deltas.record`` and
``deltas.llm`` (``spec/deltas.md`` §3a.10); ``deltas.replay`` needs the kernel and lives in
:mod:`loom_ref.kernel.vectors`.

- ``deltas.record`` builds one :class:`EffectDelta` from its JSON form and answers the JSON
  form back (``deltas.record``, ``deltas.json``).
- ``deltas.llm`` runs :func:`create_llm_effect` over a :class:`ScriptedAdapter` whose calls
  stream the given wire chunks, through a governed runtime (or, with ``"runtime": false``,
  with no runtime at all), and reports what each sink saw, the usage each attempt reported,
  the returned message or the error, and how many chunks the adapter produced.

Everything is a pure function of the input: a manual clock, an in-memory journal, no
randomness.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from loom_ref.effects.call import EffectCall, Mode
from loom_ref.effects.clock import ManualClock
from loom_ref.effects.context import EffectContext
from loom_ref.effects.deltas import EffectDelta, delta_to_json
from loom_ref.effects.llm_effect import create_llm_effect
from loom_ref.effects.metering import BudgetMeter
from loom_ref.effects.middleware.base import Middleware
from loom_ref.effects.middleware.retry import RetryMiddleware
from loom_ref.effects.middleware.safety import safety_middleware, stream_budget_middleware
from loom_ref.effects.runtime import STREAMING_DISABLED, EffectRuntime
from loom_ref.effects.vector_input import boolean, error_json, integer, items, obj, string
from loom_ref.errors import EffectError, InvalidArgument, LoomError
from loom_ref.governance.taint import taint
from loom_ref.governance.vectors import decode_validator
from loom_ref.signals import Signal
from loom_ref.stream.adapter import LlmAdapter, LlmRequest
from loom_ref.stream.chunks import StreamChunk
from loom_ref.stream.errors import WireError
from loom_ref.stream.scripted import Script, ScriptedAdapter
from loom_ref.stream.wire import chunks_from_json, usage_from_json

__all__ = [
    "REPLAY_FIELDS",
    "SINK_FAILURE",
    "RecordingSink",
    "ScriptedSinkFailure",
    "vector_deltas_llm",
    "vector_deltas_record",
    "warning_code",
]

#: The code of the error a ``"raise"`` sink of ``deltas.llm`` raises.
SINK_FAILURE = "effect.scripted-sink-failure"

_RECORD = frozenset({"delta", "origin", "done", "reset", "attempt", "usage"})
_LLM = frozenset(
    {"toolId", "model", "input", "scripts", "retry", "validators", "maxStreamTokens",
     "perCall", "deltaSink", "onReset", "runtime", "abortOn", "feedBack"}
)
_SCRIPT = frozenset({"chunks", "raiseAfter", "honorSignal"})
#: the input fields of ``deltas.replay`` (run by ``loom_ref.kernel.vectors``)
REPLAY_FIELDS = frozenset({"deltas", "configured", "host"})
_SINKS = ("collect", "raise", "none")


class ScriptedSinkFailure(EffectError):
    """What a ``"raise"`` sink of ``deltas.llm`` raises after recording the chunk."""

    code = SINK_FAILURE


def _usage(value: object, path: str) -> Any:
    try:
        return usage_from_json(value, path)
    except WireError as error:
        raise InvalidArgument(f"malformed usage: {error.message}") from None


def vector_deltas_record(data: object) -> dict[str, Any]:
    """``deltas.record``: ``{"delta": text, "origin", "done"?, "reset"?, "attempt"?, "usage"?}``
    -> the chunk's JSON form, or ``argument.invalid`` for a combination the record refuses
    (spec: deltas.record, deltas.json)."""
    data = obj(data, "input", _RECORD)
    text, origin = data.get("delta"), data.get("origin")
    if not isinstance(text, str):
        raise InvalidArgument('"delta" must be a string (it is tainted with "origin")')
    origin = string(data, "origin")
    for key in ("done", "reset", "attempt", "usage"):
        if key in data and data[key] is None:  # spec: errors.vector-null
            raise InvalidArgument(f'"{key}" is null: give a value or leave the member out')
    usage = None if "usage" not in data else _usage(data["usage"], "$.usage")
    chunk = EffectDelta(
        delta=taint(text, origin),
        done=data.get("done", False),
        reset=data.get("reset", False),
        attempt=data.get("attempt"),
        usage=usage,
    )
    return delta_to_json(chunk)  # the record refused any other attempt (spec: deltas.record)


class _CountingAdapter(LlmAdapter):
    """A scripted adapter that counts the chunks it produced (``pulled``)."""

    def __init__(self, inner: ScriptedAdapter) -> None:
        self.inner = inner
        self.pulled = 0

    def stream(self, request: LlmRequest, signal: Signal) -> Iterator[StreamChunk]:
        for chunk in self.inner.stream(request, signal):
            self.pulled += 1
            yield chunk


def _script(value: object, i: int) -> Script:
    data = obj(value, f"scripts[{i}]", _SCRIPT)
    try:
        chunks = chunks_from_json(data.get("chunks"), f"$.scripts[{i}].chunks")
    except WireError as error:
        raise InvalidArgument(f"malformed chunk: {error.message}") from None
    return Script(chunks=chunks, raise_after=integer(data, "raiseAfter", None, 0),
                  honor_signal=boolean(data, "honorSignal", True))


class RecordingSink:
    """A recording sink; ``"raise"`` raises after recording; it may abort a signal on a
    given text."""

    def __init__(self, mode: object, what: str) -> None:
        if mode not in _SINKS:
            raise InvalidArgument(f"{what} is one of {_SINKS}")
        self.mode = mode
        self.seen: list[dict[str, Any]] = []
        self.chunks: list[EffectDelta] = []
        self.abort_on: tuple[str, Signal] | None = None

    def __call__(self, chunk: EffectDelta) -> None:
        self.chunks.append(chunk)
        self.seen.append(delta_to_json(chunk))
        if self.abort_on is not None and chunk.delta.value == self.abort_on[0]:
            self.abort_on[1].abort(f"stop at {self.abort_on[0]!r}")
        if self.mode == "raise":
            raise ScriptedSinkFailure("the sink failed")

    def json(self) -> list[dict[str, Any]] | None:
        return None if self.mode == "none" else list(self.seen)  # what it had seen so far


def _outcome(run: Callable[[], Any]) -> dict[str, Any]:
    try:
        return {"ok": True, "output": run()}
    except LoomError as error:
        return {"ok": False, **error_json(error)}


def warning_code(text: str) -> str:
    """The code a conformance result reports for a warning of the runtime, which warns of
    two things only: streaming refused (spec: deltas.fail-closed) and a sink that raised
    (spec: deltas.sink-isolated)."""
    return "deltas.streaming-disabled" if text == STREAMING_DISABLED else "deltas.sink-raised"


def vector_deltas_llm(data: object) -> dict[str, Any]:
    """``deltas.llm``: see ``spec/deltas.md`` §3a.10 for the input and the result, and what
    is malformed (spec: deltas.vector-llm)."""
    data = obj(data, "input", _LLM)
    # the effect's own arguments: create_llm_effect refuses a bad one (spec: deltas.llm-input)
    tool_id = data.get("toolId", "planner")
    model = data.get("model", "m1")
    if model is None:  # null is no model here, but a value of the wrong type (errors.vector-null)
        raise InvalidArgument('"model" must be a non-empty string')
    scripts = [_script(s, i) for i, s in enumerate(items(data, "scripts", "input"))]
    if not scripts:
        raise InvalidArgument('"scripts" must be a non-empty list')
    adapter = _CountingAdapter(ScriptedAdapter(scripts))
    per_call = RecordingSink(data.get("perCall", "collect"), '"perCall"')
    delta_sink = RecordingSink(data.get("deltaSink", "none"), '"deltaSink"')
    resets: list[int] = []
    on_reset = resets.append if boolean(data, "onReset", False) else None
    effect = create_llm_effect(
        adapter, tool_id=tool_id, model=model,
        on_delta=None if delta_sink.mode == "none" else delta_sink, on_reset=on_reset,
    )
    signal = Signal()
    if "abortOn" in data:
        per_call.abort_on = (string(data, "abortOn"), signal)
    warnings: list[str] = []
    usage: list[dict[str, int]] = []
    chain: list[Middleware] = []
    retry = integer(data, "retry", 1, 1)
    if retry > 1:
        chain.append(RetryMiddleware(retry, base_delay=0.0))
    validators = items(data, "validators", "input")
    if "validators" in data:  # present, even empty: configured (spec: deltas.vector-run)
        chain.append(safety_middleware([decode_validator(v) for v in validators]))
    budget = integer(data, "maxStreamTokens", None, 0)
    if budget is not None:
        chain.append(stream_budget_middleware(budget))
    use_runtime = boolean(data, "runtime", True)
    if not use_runtime and chain:
        raise InvalidArgument("middleware needs a runtime")
    meter = BudgetMeter(2**62)
    runtime = EffectRuntime([effect], middleware=chain, meter=meter, clock=ManualClock(),
                            on_warn=warnings.append)
    sink = None if per_call.mode == "none" else per_call

    def call(input: Any) -> Any:
        if use_runtime:
            return runtime.invoke_transient(tool_id, input, principal="x1", signal=signal,
                                           on_delta=sink)
        # spec: deltas.no-runtime -- the effect runs with ctx.on_delta None
        ctx = EffectContext(
            EffectCall(tool_id=tool_id, input=input, mode=Mode.TRANSIENT, principal="x1",
                       signal=signal, on_delta=sink),
            signal, ManualClock(),
        )
        try:
            return effect.execute(ctx, input)
        finally:
            usage.append(ctx.usage)

    outcome = _outcome(lambda: call(data.get("input")))
    if use_runtime:
        usage = [dict(r.usage) for r in meter.records]
    result: dict[str, Any] = {
        "perCall": per_call.json(),
        "deltaSink": delta_sink.json(),
        "resets": None if on_reset is None else resets,
        "warnings": [warning_code(w) for w in warnings],
        "usage": list(usage),  # the first call's: feedBack's call appends to ``usage`` later
        "adapter": {"calls": len(adapter.inner.calls), "pulled": adapter.pulled,
                    "models": [request.model for request in adapter.inner.calls]},
        "outcome": outcome,
    }
    if boolean(data, "feedBack", False):
        texts = [c.delta for c in per_call.chunks if not (c.done or c.reset)]
        if not texts:
            # nothing to feed back: the input cannot run as written (spec: deltas.vector-llm)
            raise InvalidArgument('"feedBack" needs a text chunk on the per-call sink')
        calls_before = len(adapter.inner.calls)
        prompt = {"messages": [{"role": "user",
                                "content": [{"type": "text", "text": texts[0]}]}]}
        result["feedBack"] = {
            "outcome": _outcome(lambda: call(prompt)),
            "adapterCalls": len(adapter.inner.calls) - calls_before,
        }
    return result


VECTOR_FUNCTIONS_LLM: Mapping[str, Callable[[Any], Any]] = {
    "deltas.record": vector_deltas_record,
    "deltas.llm": vector_deltas_llm,
}
