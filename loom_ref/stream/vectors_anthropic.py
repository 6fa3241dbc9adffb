"""The Anthropic adapter's vector functions, JSON in, JSON out (``spec/stream.md``
§ Conformance vectors, spec: stream.vectors):

- ``stream.anthropic_map``: ``{"sse": <text>, "cuts"?: [byte offsets]}`` → ``{"chunks",
  "message", "finish", "usage"}``: a Messages streaming body, its UTF-8 bytes cut at ``cuts``,
  through :func:`map_messages_stream`, then assembled (spec: stream.anthropic).
- ``stream.anthropic_request``: ``{"request", "apiKey", "identity", "defaultMaxTokens"?,
  "version"?}`` → ``{"method", "path", "headers", "body"}``: what the adapter sends for a
  request, header names in lowercase (spec: stream.anthropic.headers, stream.anthropic.request,
  stream.vectors.header-names).
"""

from __future__ import annotations

import itertools
from typing import Any

from loom_ref.stream.adapter import LlmRequest, ToolSpec
from loom_ref.stream.anthropic import PATH, AnthropicAdapter, build_messages_body
from loom_ref.stream.anthropic_mapping import map_messages_stream
from loom_ref.stream.assembler import assemble
from loom_ref.stream.errors import WireError
from loom_ref.stream.identity import AppIdentity
from loom_ref.stream.vector_input import input_fields, lowercase_names
from loom_ref.stream.wire import (
    chunks_to_json,
    finish_reason_to_json,
    message_from_json,
    message_to_json,
    usage_to_json,
)

__all__ = ["anthropic_map_vector", "anthropic_request_vector", "request_from_json"]


def _body_pieces(payload: object) -> list[bytes]:
    """The ``{"sse", "cuts"?}`` input: the text's UTF-8 bytes cut at the given byte offsets
    (spec: stream.vectors.input-order)."""
    data = input_fields(payload, {"sse"}, {"cuts"})
    sse = data["sse"]
    if not isinstance(sse, str):
        raise WireError("sse must be a string", code="stream.wire.field-type", path="$.sse")
    try:
        body = sse.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (JSON can write one) has no UTF-8
        raise WireError("sse holds a lone surrogate, which UTF-8 cannot encode",
                        code="stream.wire.bad-value", path="$.sse") from None
    cuts = data.get("cuts", [])
    if not isinstance(cuts, list):
        raise WireError("cuts must be an array", code="stream.wire.not-a-list", path="$.cuts")
    bounds = [0]
    for i, cut in enumerate(cuts):
        where = f"$.cuts[{i}]"
        if isinstance(cut, bool) or not isinstance(cut, int):
            raise WireError("a cut is an integer", code="stream.wire.field-type", path=where)
        if not bounds[-1] < cut < len(body):
            raise WireError("cuts are increasing byte offsets inside the body",
                            code="stream.wire.bad-value", path=where)
        bounds.append(cut)
    bounds.append(len(body))
    return [body[a:b] for a, b in itertools.pairwise(bounds)]


def anthropic_map_vector(payload: object) -> dict[str, Any]:
    """``stream.anthropic_map`` (spec: stream.anthropic.sse, stream.anthropic.events,
    stream.anthropic.blocks, stream.anthropic.stop-reason, stream.anthropic.usage)."""
    chunks = list(map_messages_stream(_body_pieces(payload)))
    result = assemble(chunks)
    return {
        "chunks": chunks_to_json(chunks),
        "message": message_to_json(result.message),
        "finish": finish_reason_to_json(result.finish),
        "usage": None if result.usage is None else usage_to_json(result.usage),
    }


def _list(value: object, path: str) -> list[Any]:
    if not isinstance(value, list):
        raise WireError("expected an array", code="stream.wire.not-a-list", path=path)
    return value


def request_from_json(value: object) -> LlmRequest:
    """The ``request`` member of ``stream.anthropic_request`` and ``stream.openai_request``
    (spec: stream.vectors.input-order): its members, its wire messages and tools, then its
    values as ``LlmRequest`` and ``ToolSpec`` judge them."""
    data = input_fields(value, {"model", "messages"}, {"tools", "maxTokens", "temperature"})
    messages = [message_from_json(m, f"$.request.messages[{i}]")
                for i, m in enumerate(_list(data["messages"], "$.request.messages"))]
    tools = []
    for item in _list(data.get("tools", []), "$.request.tools"):
        tool = input_fields(item, {"name"}, {"description", "parameters"})
        tools.append(ToolSpec(name=tool["name"], description=tool.get("description", ""),
                              parameters=tool.get("parameters", {})))
    return LlmRequest(model=data["model"], messages=messages, tools=tools,
                      max_tokens=data.get("maxTokens"), temperature=data.get("temperature"))


def anthropic_request_vector(payload: object) -> dict[str, Any]:
    """``stream.anthropic_request``: the request the adapter sends (spec:
    stream.anthropic.headers, stream.anthropic.request). Values are judged by the adapter's
    own constructors (``argument.invalid``)."""
    data = input_fields(payload, {"request", "apiKey", "identity"},
                        {"defaultMaxTokens", "version"})
    request = request_from_json(data["request"])
    who = input_fields(data["identity"], {"product", "version", "url"})
    identity = AppIdentity(product=who["product"], version=who["version"], url=who["url"])
    options: dict[str, Any] = {}
    if "version" in data:
        options["version"] = data["version"]
    default_max = data.get("defaultMaxTokens", 4096)
    adapter = AnthropicAdapter(api_key=data["apiKey"], identity=identity,
                               default_max_tokens=default_max, **options)
    return {"method": "POST", "path": PATH, "headers": lowercase_names(adapter.request_headers()),
            "body": build_messages_body(request, default_max_tokens=default_max)}
