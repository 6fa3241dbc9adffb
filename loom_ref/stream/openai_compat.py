"""A real adapter for OpenAI-compatible chat-completions streaming endpoints (stdlib only).

Rules (``spec/stream.md`` § The OpenAI-compatible adapter):

- Every request carries the attribution ``User-Agent`` (spec: stream.attribution.user-agent),
  proven by a wire-level test against a local mock server.
- The class takes every value injected (base URL, key, identity, timeout); the environment is
  read only by the explicit factory :meth:`OpenAICompatAdapter.from_env`.
  (spec: stream.openai.injected-config)
- Transport failures and non-200 answers RAISE :class:`~loom_ref.stream.errors.ProviderError`
  (the first sanctioned error path); in-band provider errors and a stream that ends without a
  ``finish_reason`` END with ``finish error`` (the second). (spec: stream.adapter.two-error-paths)
- The request asks for ``stream_options.include_usage`` so that the provider reports usage.
- The signal is checked before the request and between SSE lines; a read blocked on the socket
  is bounded by ``timeout``.

The chunk mapping itself lives in :mod:`loom_ref.stream.openai_mapping`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from loom_ref.errors import InvalidArgument
from loom_ref.stream.adapter import LlmAdapter, LlmRequest, check_signal
from loom_ref.stream.blocks import (
    Message,
    Role,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from loom_ref.stream.chunks import StreamChunk
from loom_ref.stream.http import (
    HTTP_STATUS,
    TRANSPORT,
    Endpoint,
    env_value,
    json_body,
    read_lines,
    streaming_post,
)
from loom_ref.stream.identity import APP_IDENTITY, AppIdentity, attribution_headers
from loom_ref.stream.openai_mapping import map_event_stream

if TYPE_CHECKING:
    from loom_ref.signals import Signal

__all__ = [
    "ENV_API_KEY",
    "ENV_BASE_URL",
    "HTTP_STATUS",
    "TRANSPORT",
    "OpenAICompatAdapter",
    "build_chat_body",
]

PATH = "/chat/completions"
"""Where the adapter posts, under the base URL's path."""

ENV_BASE_URL = ("LOOM_LLM_BASE_URL", "OPENAI_BASE_URL")
ENV_API_KEY = ("LOOM_LLM_API_KEY", "OPENAI_API_KEY")


def _text_of(message: Message) -> str:
    return "".join(b.text for b in message.content if isinstance(b, TextBlock))


def _raw_arguments(call: ToolCallBlock) -> str:
    """A tool call's arguments as sent: its raw JSON text, as it is (spec:
    stream.openai.request, stream.tool-arguments-raw-json)."""
    if not isinstance(call.arguments, str):
        raise InvalidArgument(f"tool call {call.id!r}: arguments must be a raw JSON string")
    return call.arguments


def _message_json(message: Message) -> list[dict[str, Any]]:
    """One protocol message as one or more chat-completions messages (spec:
    stream.openai.request)."""
    role = message.role
    if role is Role.SYSTEM:
        if any(not isinstance(b, TextBlock) for b in message.content):
            raise InvalidArgument("a system message holds text blocks only")
        return [{"role": "system", "content": _text_of(message)}]
    if role is Role.ASSISTANT:
        if any(isinstance(b, ToolResultBlock) for b in message.content):
            raise InvalidArgument("an assistant message cannot hold a tool result")
        out: dict[str, Any] = {"role": "assistant", "content": _text_of(message) or None}
        calls = [
            {
                "id": b.id,
                "type": "function",
                "function": {"name": b.name, "arguments": _raw_arguments(b)},
            }
            for b in message.content
            if isinstance(b, ToolCallBlock)
        ]
        if calls:
            out["tool_calls"] = calls
        return [out]  # reasoning blocks are not sent back
    # user and tool messages: text runs become user messages, tool results tool messages
    result: list[dict[str, Any]] = []
    run: list[str] = []
    for block in message.content:
        if isinstance(block, TextBlock):
            if role is Role.TOOL:
                raise InvalidArgument("a tool message holds tool results only")
            run.append(block.text)
        elif isinstance(block, ToolResultBlock):
            if run:
                result.append({"role": "user", "content": "".join(run)})
                run = []
            result.append({"role": "tool", "tool_call_id": block.call_id, "content": block.content})
        else:  # reasoning or a tool call
            raise InvalidArgument(f"a {role.value} message cannot hold a {block.type.value} block")
    if run:
        result.append({"role": "user", "content": "".join(run)})
    return result


def build_chat_body(request: LlmRequest) -> dict[str, Any]:
    """The JSON body of a streaming ``/chat/completions`` request for ``request``.
    (spec: stream.openai.request)
    """
    if not isinstance(request, LlmRequest):
        raise InvalidArgument(f"request must be an LlmRequest, got {type(request).__name__}")
    body: dict[str, Any] = {
        "model": request.model,
        "messages": [m for message in request.messages for m in _message_json(message)],
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if request.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": dict(t.parameters),
                },
            }
            for t in request.tools
        ]
    if request.max_tokens is not None:
        body["max_tokens"] = request.max_tokens
    if request.temperature is not None:
        body["temperature"] = request.temperature
    return body


class OpenAICompatAdapter(LlmAdapter):
    """Streams ``POST {base_url}/chat/completions`` over ``http.client`` and maps its SSE
    chunks onto the protocol (spec: stream.openai.injected-config)."""

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str | None = None,
        identity: AppIdentity = APP_IDENTITY,
        timeout: float = 60.0,
    ) -> None:
        self._endpoint = Endpoint.parse(base_url, timeout)
        if api_key is not None and (not isinstance(api_key, str) or not api_key):
            raise InvalidArgument("api_key must be a non-empty str or None")
        if not isinstance(identity, AppIdentity):
            raise InvalidArgument("identity must be an AppIdentity")
        self._api_key = api_key
        self._identity = identity

    @classmethod
    def from_env(
        cls,
        environ: Mapping[str, str] = os.environ,
        *,
        identity: AppIdentity = APP_IDENTITY,
        timeout: float = 60.0,
    ) -> OpenAICompatAdapter:
        """Build from ``LOOM_LLM_BASE_URL``/``OPENAI_BASE_URL`` and
        ``LOOM_LLM_API_KEY``/``OPENAI_API_KEY`` in ``environ`` (the only place that reads it)."""
        base_url = env_value(environ, ENV_BASE_URL)
        if base_url is None:
            raise InvalidArgument(f"set one of {', '.join(ENV_BASE_URL)}")
        api_key = env_value(environ, ENV_API_KEY)
        return cls(base_url=base_url, api_key=api_key, identity=identity, timeout=timeout)

    @property
    def url(self) -> str:
        """The endpoint this adapter posts to."""
        return self._endpoint.url(PATH)

    def request_headers(self) -> dict[str, str]:
        """Headers of every request, the attribution ``User-Agent`` first."""
        headers = attribution_headers(self._identity)  # spec: stream.attribution.user-agent
        headers["Content-Type"] = "application/json"
        headers["Accept"] = "text/event-stream"
        if self._api_key is not None:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    def stream(self, request: LlmRequest, signal: Signal) -> Iterator[StreamChunk]:
        """Stream one chat completion (spec: stream.adapter.seam)."""
        return self._stream(json_body(build_chat_body(request)), check_signal(signal))

    def _stream(self, body: bytes, signal: Signal) -> Iterator[StreamChunk]:
        with streaming_post(self._endpoint, PATH, body, self.request_headers(),
                            signal) as response:
            # spec: stream.openai.defer-usage-and-finish -- at the end-of-stream marker
            yield from map_event_stream(read_lines(response, signal))
