"""A real adapter for Anthropic's Messages API, streamed (stdlib ``http.client`` only).

Rules (``spec/stream.md`` § The Anthropic Messages adapter):

- Every request carries the attribution ``User-Agent`` (spec: stream.attribution.user-agent)
  and the API's required headers: ``x-api-key``, ``anthropic-version`` and ``content-type``
  (spec: stream.anthropic.headers); a wire-level test proves both against a loopback server.
- Configuration is injected (base URL, key, version, identity, timeout, the default
  ``max_tokens`` the API requires); only :meth:`AnthropicAdapter.from_env` reads the
  environment (spec: stream.anthropic.injected-config).
- The request body (spec: stream.anthropic.request): system messages become the top-level
  ``system``; tool messages become user messages of ``tool_result`` blocks; tool calls become
  ``tool_use`` blocks whose ``input`` is the parsed arguments object; reasoning blocks are not
  sent back; consecutive messages of one role are merged.
- Transport failures and non-200 answers RAISE; the in-band ``error`` event ENDS the stream
  with ``finish error`` (the second sanctioned error path, spec: stream.adapter.two-error-paths).
  The body is mapped by :func:`~loom_ref.stream.anthropic_mapping.map_messages_stream`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from loom_ref.errors import InvalidArgument
from loom_ref.stream import json_text
from loom_ref.stream.adapter import LlmAdapter, LlmRequest, check_signal
from loom_ref.stream.anthropic_mapping import map_messages_stream
from loom_ref.stream.blocks import (
    Message,
    ReasoningBlock,
    Role,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from loom_ref.stream.chunks import StreamChunk
from loom_ref.stream.http import Endpoint, env_value, json_body, read_pieces, streaming_post
from loom_ref.stream.identity import APP_IDENTITY, AppIdentity, attribution_headers

if TYPE_CHECKING:
    from loom_ref.signals import Signal

__all__ = ["API_VERSION", "DEFAULT_BASE_URL", "ENV_API_KEY", "ENV_BASE_URL", "PATH",
           "AnthropicAdapter", "build_messages_body"]

API_VERSION = "2023-06-01"
"""The ``anthropic-version`` header value the adapter sends by default."""

DEFAULT_BASE_URL = "https://api.anthropic.com"
PATH = "/v1/messages"
ENV_BASE_URL = ("LOOM_ANTHROPIC_BASE_URL", "ANTHROPIC_BASE_URL")
ENV_API_KEY = ("LOOM_ANTHROPIC_API_KEY", "ANTHROPIC_API_KEY")


def _tool_input(call: ToolCallBlock) -> Any:
    """A tool call's raw JSON arguments as the object ``tool_use.input`` must be: JSON text
    holding no number beyond a double's range (``1e400`` would be written ``Infinity``, which
    is not JSON; spec: stream.openai.number-range, stream.vectors.input-order)."""
    raw = call.arguments
    if not isinstance(raw, str):
        raise InvalidArgument(f"tool call {call.id!r}: arguments must be a raw JSON string")
    if not raw.strip(" \t\n\r"):
        return {}
    try:
        value = json_text.loads(raw)
    except ValueError:
        value = None
    if not isinstance(value, dict):
        shown = raw if len(raw) <= 80 else raw[:77] + "..."
        raise InvalidArgument(f"tool call {call.id!r}: the Messages API needs its arguments as "
                              f"a JSON object, got {shown!r}")
    return value


def _blocks(message: Message) -> list[dict[str, Any]]:
    """One protocol message's content as Messages API content blocks; a block its role cannot
    hold is refused (spec: stream.anthropic.roles: user text and tool results; assistant text,
    reasoning and tool calls; tool, tool results)."""
    out: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextBlock):
            if message.role is Role.TOOL:
                raise InvalidArgument("a tool message holds tool results only")
            if block.text:  # the API refuses empty text blocks
                out.append({"type": "text", "text": block.text})
        elif isinstance(block, ToolCallBlock):
            if message.role is not Role.ASSISTANT:
                raise InvalidArgument(f"a {message.role.value} message cannot hold a tool call")
            out.append({"type": "tool_use", "id": block.id, "name": block.name,
                        "input": _tool_input(block)})
        elif isinstance(block, ToolResultBlock):
            if message.role is Role.ASSISTANT:
                raise InvalidArgument("an assistant message cannot hold a tool result")
            result: dict[str, Any] = {"type": "tool_result", "tool_use_id": block.call_id,
                                      "content": block.content}
            if block.is_error:
                result["is_error"] = True
            out.append(result)
        elif isinstance(block, ReasoningBlock) and message.role is not Role.ASSISTANT:
            raise InvalidArgument(f"a {message.role.value} message cannot hold reasoning")
            # not sent back: the protocol's reasoning block has no signature to send with it
    return out


def build_messages_body(request: LlmRequest, *, default_max_tokens: int) -> dict[str, Any]:
    """The JSON body of a streaming ``POST /v1/messages`` for ``request``
    (spec: stream.anthropic.request)."""
    if not isinstance(request, LlmRequest):
        raise InvalidArgument(f"request must be an LlmRequest, got {type(request).__name__}")
    system: list[str] = []
    messages: list[dict[str, Any]] = []
    for message in request.messages:
        if message.role is Role.SYSTEM:  # spec: stream.anthropic.roles -- text blocks only
            if any(not isinstance(b, TextBlock) for b in message.content):
                raise InvalidArgument("a system message holds text blocks only")
            system.extend(b.text for b in message.content if isinstance(b, TextBlock) and b.text)
            continue
        role = "assistant" if message.role is Role.ASSISTANT else "user"
        content = _blocks(message)
        if not content:
            continue  # an empty message is refused by the API
        if messages and messages[-1]["role"] == role:
            messages[-1]["content"].extend(content)  # one turn per role, in order
        else:
            messages.append({"role": role, "content": content})
    max_tokens = request.max_tokens if request.max_tokens is not None else default_max_tokens
    if max_tokens < 1:  # spec: stream.anthropic.request -- the least max_tokens the API takes
        raise InvalidArgument(f"max_tokens must be at least 1, got {max_tokens}")
    body: dict[str, Any] = {"model": request.model, "max_tokens": max_tokens,
                            "messages": messages, "stream": True}
    if system:
        body["system"] = "\n\n".join(system)
    if request.tools:
        body["tools"] = [{"name": t.name, "description": t.description,
                          "input_schema": dict(t.parameters) or {"type": "object"}}
                         for t in request.tools]
    if request.temperature is not None:
        body["temperature"] = request.temperature
    return body


def _header_value(name: str, value: object) -> str:
    if (not isinstance(value, str) or not value or not value.isprintable()
            or not value.isascii()):
        raise InvalidArgument(f"{name} must be a non-empty single-line printable ASCII str")
    return value


class AnthropicAdapter(LlmAdapter):
    """Streams ``POST {base_url}/v1/messages`` and maps its events onto the protocol
    (spec: stream.anthropic.injected-config)."""

    def __init__(
        self,
        *,
        api_key: str,
        base_url: str = DEFAULT_BASE_URL,
        version: str = API_VERSION,
        identity: AppIdentity = APP_IDENTITY,
        timeout: float = 600.0,
        default_max_tokens: int = 4096,
    ) -> None:
        self._endpoint = Endpoint.parse(base_url, timeout)
        self._api_key = _header_value("api_key", api_key)
        self._version = _header_value("version", version)
        if not isinstance(identity, AppIdentity):
            raise InvalidArgument("identity must be an AppIdentity")
        if (isinstance(default_max_tokens, bool) or not isinstance(default_max_tokens, int)
                or default_max_tokens < 1):
            raise InvalidArgument(f"default_max_tokens must be an int >= 1, got "
                                  f"{default_max_tokens!r}")
        self._identity = identity
        self._default_max_tokens = default_max_tokens

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ, *,
                 identity: AppIdentity = APP_IDENTITY, timeout: float = 600.0
                 ) -> AnthropicAdapter:
        """Build from ``LOOM_ANTHROPIC_API_KEY``/``ANTHROPIC_API_KEY`` and, when set,
        ``LOOM_ANTHROPIC_BASE_URL``/``ANTHROPIC_BASE_URL`` in ``environ`` (the only place
        that reads it)."""
        api_key = env_value(environ, ENV_API_KEY)
        if api_key is None:
            raise InvalidArgument(f"set one of {', '.join(ENV_API_KEY)}")
        base_url = env_value(environ, ENV_BASE_URL) or DEFAULT_BASE_URL
        return cls(api_key=api_key, base_url=base_url, identity=identity, timeout=timeout)

    @property
    def url(self) -> str:
        """The endpoint this adapter posts to."""
        return self._endpoint.url(PATH)

    def request_headers(self) -> dict[str, str]:
        """Headers of every request: the attribution ``User-Agent`` first, then the API's
        required ones (spec: stream.anthropic.headers)."""
        headers = attribution_headers(self._identity)  # spec: stream.attribution.user-agent
        headers["x-api-key"] = self._api_key
        headers["anthropic-version"] = self._version
        headers["content-type"] = "application/json"
        headers["accept"] = "text/event-stream"
        return headers

    def stream(self, request: LlmRequest, signal: Signal) -> Iterator[StreamChunk]:
        """Stream one message (spec: stream.adapter.seam)."""
        body = build_messages_body(request, default_max_tokens=self._default_max_tokens)
        return self._stream(json_body(body), check_signal(signal))

    def _stream(self, body: bytes, signal: Signal) -> Iterator[StreamChunk]:
        with streaming_post(self._endpoint, PATH, body, self.request_headers(),
                            signal) as response:
            yield from map_messages_stream(read_pieces(response, signal))
