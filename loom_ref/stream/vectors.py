"""The pure functions that the ``stream.*`` conformance vector groups call, JSON in, JSON out.

Rules (``spec/stream.md`` § Conformance vectors, spec: stream.vectors):

- ``stream.check``: input ``{"chunks": [wire chunks]}`` → result
  ``{"violations": [{"rule": <rule id>, "index": <chunk position>}, ...]}`` in chunk order.
- ``stream.assemble``: input ``{"chunks": [wire chunks], "strict"?: bool}`` → result
  ``{"message": <Message>, "finish": <FinishReason>, "usage": <TokenUsage> | null,
  "interrupted": [<blocks>]}``.

Either raises a ``StreamError`` whose ``code`` is the case's expected error code (a
``stream.wire.*`` code for malformed input; a rule code for a stream the assembler cannot
fold, or, strict, for the first contract violation).

- ``stream.decode``: ``{"chunks": [wire chunks]}`` → ``{"chunks": [the decoded chunks, encoded
  again]}``; malformed wire JSON raises its ``stream.wire.*`` code (spec: stream.wire.malformed).
- ``stream.enforce``: ``{"chunks"}`` → ``{"yielded": <chunks enforce passed on>, "raised":
  {"code": <rule id>, "index": <chunk index>} | null}`` (spec: stream.errors.rule-codes).
- ``stream.consume``: ``{"scripts": [{"chunks", "raiseAfter"?}...], "calls"?, "abortAfter"?}``
  → ``{"calls": [[the chunks consume yielded]...]}``: a :class:`ScriptedAdapter` behind the
  consumer wrapper (spec: stream.adapter.consumer-wrapper, stream.scripted).
- ``stream.openai_map``: ``{"sse": <text> | [<text piece>...]}`` → ``{"chunks": [...]}``: a
  chat-completions response body through :func:`map_event_stream` (spec: stream.openai).
- ``stream.openai_fold``: ``{"sse"}`` → ``{"message", "finish", "usage"}``: the same body's
  chunks read behind the consumer wrapper (a raise becomes a terminal ``finish``) and folded by
  the tolerant assembler: the mapping observed without its representation (spec:
  stream.vectors.openai-fold).
- ``stream.sse_data``: ``{"sse"}`` → ``{"data": [<each dispatched event's data>]}``: the
  server-sent events of the same body, before any mapping reads them (spec:
  stream.vectors.sse-data).
- ``stream.openai_request``: ``{"request"}`` → ``{"body"}``: the JSON body the OpenAI-compatible
  adapter posts for a request (spec: stream.openai.request).
- ``stream.anthropic_map``, ``stream.anthropic_request``: :mod:`loom_ref.stream.vectors_anthropic`.
- ``stream.attribution_headers``: ``{"identity": {"product", "version", "url"}}`` →
  ``{"headers": {...}}``, header names in lowercase; a bad identity is ``argument.invalid``
  (spec: stream.attribution, stream.vectors.header-names).
- ``stream.usage_billed``: ``{"usage": <TokenUsage>}`` → ``{"billedInputTokens",
  "billedOutputTokens"}``: what a call is billed for (spec: stream.usage.disjoint,
  stream.usage.reasoning-breakdown).

Inputs with unknown or missing members are ``stream.wire.*`` errors, like malformed chunks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from loom_ref.signals import Signal
from loom_ref.stream.adapter import LlmRequest, consume, guard_stream
from loom_ref.stream.assembler import assemble
from loom_ref.stream.contract import check, enforce
from loom_ref.stream.errors import ContractViolationError, WireError
from loom_ref.stream.identity import AppIdentity, attribution_headers
from loom_ref.stream.openai_compat import build_chat_body
from loom_ref.stream.openai_mapping import map_event_stream
from loom_ref.stream.scripted import Script, ScriptedAdapter
from loom_ref.stream.sse import SseDecoder
from loom_ref.stream.vector_input import input_count, input_fields, lowercase_names
from loom_ref.stream.vectors_anthropic import (
    anthropic_map_vector,
    anthropic_request_vector,
    request_from_json,
)
from loom_ref.stream.wire import (
    assemble_input_from_json,
    block_to_json,
    chunk_list_input_from_json,
    chunks_from_json,
    chunks_to_json,
    finish_reason_to_json,
    message_to_json,
    usage_from_json,
    usage_to_json,
)

__all__ = [
    "VECTOR_FUNCTIONS",
    "assemble_vector",
    "attribution_vector",
    "check_vector",
    "consume_vector",
    "decode_vector",
    "enforce_vector",
    "openai_fold_vector",
    "openai_map_vector",
    "openai_request_vector",
    "sse_data_vector",
    "usage_billed_vector",
]


def _chunks_of(payload: object) -> Any:
    """The ``{"chunks": [...]}`` input, every chunk decoded before anything judges them."""
    return chunk_list_input_from_json(payload)


def check_vector(payload: object) -> dict[str, Any]:
    """``stream.check``: the contract checker over wire chunks."""
    violations = check(_chunks_of(payload))
    return {"violations": [v.to_json() for v in violations]}


def assemble_vector(payload: object) -> dict[str, Any]:
    """``stream.assemble``: the assembler over wire chunks, ``strict`` with the contract
    checker in front (spec: stream.assembler.strict)."""
    chunks, strict = assemble_input_from_json(payload)
    result = assemble(chunks, strict=strict)
    return {
        "message": message_to_json(result.message),
        "finish": finish_reason_to_json(result.finish),
        "usage": None if result.usage is None else usage_to_json(result.usage),
        "interrupted": [block_to_json(b) for b in result.interrupted],
    }


def decode_vector(payload: object) -> dict[str, Any]:
    """``stream.decode``: wire chunks decoded into the closed union and encoded again.

    spec: stream.wire.malformed, stream.wire.camel-case, stream.wire.checker-owned-values
    """
    return {"chunks": chunks_to_json(_chunks_of(payload))}


def enforce_vector(payload: object) -> dict[str, Any]:
    """``stream.enforce``: how many chunks :func:`enforce` passed on, and the
    ``ContractViolationError`` it raised (code and chunk index), if any.

    spec: stream.errors.rule-codes
    """
    yielded = 0
    raised: dict[str, Any] | None = None
    try:
        for _ in enforce(_chunks_of(payload)):
            yielded += 1
    except ContractViolationError as error:
        raised = {"code": error.code, "index": error.details["index"]}
    return {"yielded": yielded, "raised": raised}


def consume_vector(payload: object) -> dict[str, Any]:
    """``stream.consume``: a :class:`ScriptedAdapter` called ``calls`` times through
    :func:`consume`, each call with a fresh signal that aborts once the consumer has taken
    ``abortAfter`` chunks of that call (``0``: aborted before the call).

    spec: stream.adapter.consumer-wrapper, stream.adapter.two-error-paths, stream.scripted
    """
    data = input_fields(payload, {"scripts"}, {"calls", "abortAfter"})
    raw = data["scripts"]
    if not isinstance(raw, list) or not raw:
        raise WireError(
            "scripts must be a non-empty array", code="stream.wire.not-a-list", path="$.scripts"
        )
    scripts = []
    for i, item in enumerate(raw):
        where = f"$.scripts[{i}]"
        script = input_fields(item, {"chunks"}, {"raiseAfter"})
        raise_after = script.get("raiseAfter")
        scripts.append(Script(
            chunks=list(chunks_from_json(script["chunks"], f"{where}.chunks")),
            raise_after=(None if raise_after is None
                         else input_count(raise_after, f"{where}.raiseAfter")),
        ))
    calls = input_count(data.get("calls", len(scripts)), "$.calls")
    abort_after = data.get("abortAfter")
    if abort_after is not None:
        abort_after = input_count(abort_after, "$.abortAfter")
    adapter = ScriptedAdapter(scripts)
    request = LlmRequest(model="scripted", messages=[])
    out = []
    for _ in range(calls):
        signal = Signal()
        if abort_after == 0:
            signal.abort("cancelled")
        got: list[Any] = []
        for chunk in consume(adapter, request, signal):
            got.append(chunk)
            if len(got) == abort_after:
                signal.abort("cancelled")
        out.append(chunks_to_json(got))
    return {"calls": out}


def _sse_pieces(payload: object) -> list[str]:
    """The ``{"sse"}`` input: a text or text pieces (spec: stream.vectors.input-order)."""
    sse = input_fields(payload, {"sse"})["sse"]
    pieces = [sse] if isinstance(sse, str) else sse
    if not isinstance(pieces, list) or not all(isinstance(p, str) for p in pieces):
        raise WireError(
            "sse must be a string or an array of strings", code="stream.wire.field-type",
            path="$.sse",
        )
    return pieces


def openai_map_vector(payload: object) -> dict[str, Any]:
    """``stream.openai_map``: a chat-completions SSE body mapped onto protocol chunks.

    spec: stream.openai.sse, stream.openai.defer-usage-and-finish, stream.openai.disjoint-usage,
    stream.openai.no-finish-reason-is-error, stream.openai.tool-call-identity
    """
    return {"chunks": chunks_to_json(list(map_event_stream(_sse_pieces(payload))))}


def sse_data_vector(payload: object) -> dict[str, Any]:
    """``stream.sse_data``: the data of each event a body's server-sent events dispatch, in
    order, as the OpenAI-compatible mapping decodes them before it reads any (``[DONE]`` is
    data like any other here; a partial event at the end is discarded).

    spec: stream.openai.sse, stream.vectors.sse-data
    """
    decoder = SseDecoder()
    return {"data": [event.data for piece in _sse_pieces(payload)
                     for event in decoder.feed(piece)]}


def openai_fold_vector(payload: object) -> dict[str, Any]:
    """``stream.openai_fold``: the same body's chunks behind the consumer wrapper (a raise
    becomes a terminal ``finish``, as ``consume`` and dsh-llm's ``LlmRuntime.stream()`` make
    it), folded by the tolerant assembler: ``{message, finish, usage}``. What the mapping
    means, whichever of the chunk streams the contract allows it emits.

    spec: stream.vectors.openai-fold, stream.adapter.two-error-paths
    """
    pieces = _sse_pieces(payload)
    result = assemble(list(guard_stream(map_event_stream(pieces), Signal())))
    return {
        "message": message_to_json(result.message),
        "finish": finish_reason_to_json(result.finish),
        "usage": None if result.usage is None else usage_to_json(result.usage),
    }


def openai_request_vector(payload: object) -> dict[str, Any]:
    """``stream.openai_request``: the body the OpenAI-compatible adapter posts for a request,
    read as ``stream.anthropic_request`` reads it (spec: stream.openai.request,
    stream.vectors.input-order)."""
    request = request_from_json(input_fields(payload, {"request"})["request"])
    return {"body": build_chat_body(request)}


def attribution_vector(payload: object) -> dict[str, Any]:
    """``stream.attribution_headers``: the headers an identity puts on every provider request.

    spec: stream.attribution.user-agent, stream.attribution.static
    """
    identity = input_fields(payload, {"identity"})["identity"]
    fields = input_fields(identity, {"product", "version", "url"})
    return {"headers": lowercase_names(attribution_headers(AppIdentity(
        product=fields["product"], version=fields["version"], url=fields["url"]
    )))}


def usage_billed_vector(payload: object) -> dict[str, Any]:
    """``stream.usage_billed``: the billed counters of a usage. Billed input is uncached
    input plus cache reads plus cache writes (the counts are disjoint, seed 001); billed
    output is ``outputTokens``, reasoning included, never added again.

    spec: stream.usage.disjoint, stream.usage.reasoning-breakdown
    """
    usage = usage_from_json(input_fields(payload, {"usage"})["usage"], "$.usage")
    return {"billedInputTokens": usage.billed_input_tokens,
            "billedOutputTokens": usage.billed_output_tokens}


VECTOR_FUNCTIONS: dict[str, Callable[[object], dict[str, Any]]] = {
    "stream.check": check_vector,
    "stream.assemble": assemble_vector,
    "stream.decode": decode_vector,
    "stream.enforce": enforce_vector,
    "stream.consume": consume_vector,
    "stream.openai_map": openai_map_vector,
    "stream.openai_fold": openai_fold_vector,
    "stream.sse_data": sse_data_vector,
    "stream.openai_request": openai_request_vector,
    "stream.anthropic_map": anthropic_map_vector,
    "stream.anthropic_request": anthropic_request_vector,
    "stream.attribution_headers": attribution_vector,
    "stream.usage_billed": usage_billed_vector,
}
"""Conformance function name → implementation, for the conformance runner."""
