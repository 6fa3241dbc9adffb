"""The Anthropic adapter's entry points answer a bad argument with a LoomError and a code
(spec: errors.invalid-argument), never an internal exception; a provider payload with any
value anywhere is mapped or refused with a stable code."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from loom_ref.stream import (
    AnthropicAdapter,
    LlmRequest,
    Message,
    MessagesStreamMapper,
    Role,
    ToolCallBlock,
    ToolSpec,
    build_messages_body,
    map_messages_stream,
)
from loom_ref.stream.anthropic_mapping import map_stop_reason

from ..badargs import leaks, try_call, with_member
from .test_bad_arguments import REQUEST, USER, aborted


def adapter(**override: Any) -> AnthropicAdapter:
    return AnthropicAdapter(**{"api_key": "k", "base_url": "http://127.0.0.1:9", **override})


#: one good payload of each event type
PAYLOADS: list[dict[str, Any]] = [
    {"type": "message_start", "message": {"usage": {
        "input_tokens": 1, "output_tokens": 1, "cache_read_input_tokens": 0,
        "cache_creation_input_tokens": 0}}},
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": "a"}},
    {"type": "content_block_start", "index": 1, "content_block": {
        "type": "tool_use", "id": "t", "name": "f", "input": {"a": 1}}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "b"}},
    {"type": "content_block_delta", "index": 1, "delta": {
        "type": "input_json_delta", "partial_json": "{}"}},
    {"type": "content_block_stop", "index": 0},
    {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {
        "output_tokens": 2}},
    {"type": "error", "error": {"type": "overloaded_error", "message": "x"}},
    {"type": "message_stop"},
]


def _fed(payload: Any) -> None:
    mapper = MessagesStreamMapper()
    for good in PAYLOADS[:3]:
        mapper.feed(good)
    mapper.feed(payload)
    mapper.end()


def payload_mutations(value: Any) -> None:
    """Every member of every good payload (nested objects too) replaced by ``value``."""
    for payload in PAYLOADS:
        for name, member in payload.items():
            try_call(_fed, with_member(payload, name, value))
            for inner, nested in member.items() if isinstance(member, dict) else ():
                try_call(_fed, with_member(payload, name, with_member(member, inner, value)))
                for leaf in nested if isinstance(nested, dict) else ():
                    try_call(_fed, with_member(payload, name, with_member(
                        member, inner, with_member(nested, leaf, value))))


def body_with(message: Callable[[Any], Message]) -> Callable[[Any], Any]:
    return lambda v: build_messages_body(LlmRequest(model="m", messages=[message(v)]),
                                         default_max_tokens=1)


ENTRY_POINTS: dict[str, Callable[[Any], Any]] = {
    "AnthropicAdapter(api_key)": lambda v: adapter(api_key=v),
    "AnthropicAdapter(base_url)": lambda v: adapter(base_url=v),
    "AnthropicAdapter(version)": lambda v: adapter(version=v),
    "AnthropicAdapter(identity)": lambda v: adapter(identity=v),
    "AnthropicAdapter(timeout)": lambda v: adapter(timeout=v),
    "AnthropicAdapter(default_max_tokens)": lambda v: adapter(default_max_tokens=v),
    "AnthropicAdapter.from_env(environ)": lambda v: AnthropicAdapter.from_env(v),
    "AnthropicAdapter.from_env(environ values)": lambda v: AnthropicAdapter.from_env(
        {"ANTHROPIC_API_KEY": v, "ANTHROPIC_BASE_URL": v}),
    "AnthropicAdapter.stream(request)": lambda v: list(adapter().stream(v, aborted())),
    "AnthropicAdapter.stream(signal)": lambda v: list(adapter().stream(REQUEST, v)),
    "AnthropicAdapter.stream(ToolSpec(parameters) member)": lambda v: list(adapter().stream(
        LlmRequest(model="m", messages=[USER], tools=[ToolSpec(name="f", parameters={"a": v})]),
        aborted())),
    "build_messages_body(request)": lambda v: build_messages_body(v, default_max_tokens=1),
    "build_messages_body(ToolCallBlock(arguments))": body_with(lambda v: Message(
        role=Role.ASSISTANT, content=[ToolCallBlock(id="c", name="f", arguments=v)])),
    "map_stop_reason": lambda v: map_stop_reason(v),
    "map_messages_stream": lambda v: list(map_messages_stream(v)),
    "map_messages_stream([v])": lambda v: list(map_messages_stream([v])),
    "map_messages_stream(data)": lambda v: list(map_messages_stream(
        [f"data: {v!r}\n\n".encode("utf-8", "surrogatepass")])),
    "MessagesStreamMapper.feed": lambda v: MessagesStreamMapper().feed(v),
    "MessagesStreamMapper.feed members": payload_mutations,
}


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_a_bad_argument_is_a_loom_error_with_a_code(entry: str) -> None:
    leaked = leaks(entry, ENTRY_POINTS[entry])
    assert not leaked, f"{entry} leaked internal exceptions:\n" + "\n".join(leaked)
