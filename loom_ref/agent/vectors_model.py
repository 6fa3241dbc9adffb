"""The agent's effects over a scripted provider, as conformance functions (JSON in, JSON out).

Spec: ``spec/agent.md`` § The model effect and § Compaction (the function list in § Conformance
vectors). The provider is a scripted ``LlmAdapter`` that streams the given wire chunks
(``spec/stream.md``) and records the request it was called with.

- ``agent.model_effect``: ``create_agent_model_effect`` (tool id ``llm``, model ``m1``, with
  ``maxTokens`` / ``temperature`` defaults when given) called once through a governed
  ``EffectRuntime`` with a recording per-call sink, its ``on_delta`` a second recording sink
  (``agent.model-input``, ``agent.model-output``, ``agent.model-deltas``).
- ``agent.summarize``: ``create_summarizer_effect`` (tool id ``summarize``, model ``m1``)
  called once on ``{"messages"}`` (``agent.summarizer``, ``agent.render-transcript``);
  ``agent.render_transcript`` is the rendering alone.

Values ``{"$tainted": {"value", "origin"}}`` in an ``input`` stand for tainted values
(``taint.vector-encoding``). Everything is a pure function of the input: a manual clock, no
randomness.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from loom_ref.agent.model_effect import create_agent_model_effect
from loom_ref.agent.summarizer import create_summarizer_effect, render_transcript
from loom_ref.effects.clock import ManualClock
from loom_ref.effects.deltas import EffectDelta, delta_to_json
from loom_ref.effects.runtime import EffectRuntime
from loom_ref.errors import InvalidArgument, LoomError
from loom_ref.governance.vectors import decode_request
from loom_ref.signals import Signal
from loom_ref.stream.adapter import LlmAdapter, LlmRequest
from loom_ref.stream.chunks import StreamChunk
from loom_ref.stream.errors import WireError
from loom_ref.stream.wire import chunks_from_json, message_to_json

__all__ = ["model_effect_vector", "render_transcript_vector", "summarize_vector"]


class _Provider(LlmAdapter):
    """Streams ``chunks`` on every call; records each request as JSON."""

    def __init__(self, chunks: Any) -> None:
        try:
            self.chunks = chunks_from_json(chunks, "$.chunks")
        except WireError as error:
            raise InvalidArgument(f"malformed chunk: {error.message}") from None
        self.requests: list[dict[str, Any]] = []

    def stream(self, request: LlmRequest, signal: Signal) -> Iterator[StreamChunk]:
        self.requests.append(_request_json(request))
        return iter(self.chunks)


def _request_json(request: LlmRequest) -> dict[str, Any]:
    return {"model": request.model,
            "messages": [message_to_json(m) for m in request.messages],
            "tools": [{"name": t.name, "description": t.description,
                       "parameters": dict(t.parameters)} for t in request.tools],
            "maxTokens": request.max_tokens, "temperature": request.temperature}


def _fields(payload: object, required: set[str], optional: set[str]) -> Mapping[str, Any]:
    if not isinstance(payload, Mapping) or not required <= set(payload) or not set(
            payload) <= required | optional:
        raise InvalidArgument(f"the input must have {sorted(required)} (optional "
                              f"{sorted(optional)})")
    return payload


def _outcome(run: Callable[[], Any]) -> dict[str, Any]:
    try:
        return {"output": run()}
    except LoomError as error:
        return {"error": {"code": error.code}}


class _Sink:
    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []

    def __call__(self, chunk: EffectDelta) -> None:
        self.seen.append(delta_to_json(chunk))


def model_effect_vector(payload: object) -> dict[str, Any]:
    """``agent.model_effect``: ``{"input", "chunks", "maxTokens"?, "temperature"?}`` ->
    ``{"requests": [what the provider received], "outcome": {"output"} | {"error": {code}},
    "perCall": [deltas], "onDelta": [deltas]}``. A ``maxTokens`` / ``temperature`` of null
    sets nothing, as ``max_tokens=None`` does (spec: agent.vector-input,
    errors.vector-null)."""
    data = _fields(payload, {"input", "chunks"}, {"maxTokens", "temperature"})
    provider = _Provider(data["chunks"])
    on_delta = _Sink()
    per_call = _Sink()
    effect = create_agent_model_effect(provider, tool_id="llm", model="m1", on_delta=on_delta,
                                       max_tokens=data.get("maxTokens"),
                                       temperature=data.get("temperature"))
    runtime = EffectRuntime([effect], clock=ManualClock())
    # a malformed "$tainted" is an error of the function, not of the call (taint.vector-encoding)
    model_input = decode_request(data["input"])
    outcome = _outcome(lambda: runtime.invoke_transient("llm", model_input, principal="x1",
                                                       on_delta=per_call))
    return {"requests": provider.requests, "outcome": outcome, "perCall": per_call.seen,
            "onDelta": on_delta.seen}


def summarize_vector(payload: object) -> dict[str, Any]:
    """``agent.summarize``: ``{"messages", "chunks", "instructions"?}`` -> ``{"requests",
    "outcome"}`` (as ``agent.model_effect``; the output is ``{"summary"}``). ``messages`` are
    the call's input, read by the effect: a malformed one is the outcome's
    ``argument.invalid``, not the function's (spec: agent.vector-input)."""
    data = _fields(payload, {"messages", "chunks"}, {"instructions"})
    provider = _Provider(data["chunks"])
    extra = {"instructions": data["instructions"]} if "instructions" in data else {}
    effect = create_summarizer_effect(provider, tool_id="summarize", model="m1", **extra)
    runtime = EffectRuntime([effect], clock=ManualClock())
    outcome = _outcome(lambda: runtime.invoke_transient(
        "summarize", {"messages": data["messages"]}, principal="x1"))
    return {"requests": provider.requests, "outcome": outcome}


def render_transcript_vector(payload: object) -> dict[str, Any]:
    """``agent.render_transcript``: ``{"messages"}`` -> ``{"text"}``."""
    data = _fields(payload, {"messages"}, set())
    if not isinstance(data["messages"], list):
        raise InvalidArgument("messages must be a list")
    return {"text": render_transcript(data["messages"])}
