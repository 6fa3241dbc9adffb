"""JSON wire form: seed spellings, round trips, and stable codes for malformed input."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from loom_ref.errors import StreamError
from loom_ref.stream import (
    BlockEnd,
    BlockStart,
    BlockType,
    FinishChunk,
    FinishReason,
    Message,
    ReasoningBlock,
    Role,
    TextBlock,
    TokenUsage,
    ToolCallBlock,
    ToolCallDelta,
    ToolResultBlock,
    UsageChunk,
    WireError,
    check,
    chunk_from_json,
    chunk_to_json,
    chunks_from_json,
    chunks_to_json,
    message_from_json,
    message_to_json,
)
from loom_ref.stream.wire import WIRE_CODES
from loom_ref.testing.strategies import GeneratedStream, valid_streams

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def test_seed_spellings() -> None:
    assert chunk_to_json(BlockStart(index=0, block_type=BlockType.TEXT)) == {
        "type": "block-start",
        "index": 0,
        "blockType": "text",
    }
    assert chunk_to_json(ToolCallDelta(index=1, id="c1", name="f", arguments_delta='{"a"')) == {
        "type": "tool-call-delta",
        "index": 1,
        "id": "c1",
        "name": "f",
        "argumentsDelta": '{"a"',
    }
    assert chunk_to_json(UsageChunk(usage=TokenUsage(input_tokens=1, output_tokens=2))) == {
        "type": "usage",
        "usage": {"inputTokens": 1, "outputTokens": 2},
    }
    assert chunk_to_json(FinishChunk(reason=FinishReason.stop())) == {
        "type": "finish",
        "reason": {"kind": "stop"},
    }
    assert chunk_to_json(FinishChunk(reason=FinishReason.error("boom"))) == {
        "type": "finish",
        "reason": {"kind": "error", "failure": {"message": "boom"}},
    }
    assert chunk_to_json(
        BlockEnd(index=2, block=ToolResultBlock(call_id="c1", content="ok", is_error=True))
    ) == {
        "type": "block-end",
        "index": 2,
        "block": {"type": "tool-result", "callId": "c1", "content": "ok", "isError": True},
    }


def test_message_shape_round_trips() -> None:
    message = Message(
        role=Role.ASSISTANT,
        content=[
            ReasoningBlock(text="hm"),
            TextBlock(text="hi"),
            ToolCallBlock(id="c", name="f", arguments='{"x":1}'),
            ToolResultBlock(call_id="c", content="done"),
        ],
    )
    encoded = message_to_json(message)
    assert encoded["role"] == "assistant"
    assert encoded["content"][2] == {
        "type": "tool-call",
        "id": "c",
        "name": "f",
        "arguments": '{"x":1}',
    }
    assert encoded["content"][3] == {"type": "tool-result", "callId": "c", "content": "done"}
    assert message_from_json(json.loads(json.dumps(encoded))) == message


@SETTINGS
@given(valid_streams())
def test_chunks_round_trip_through_json_text(stream: GeneratedStream) -> None:
    text = json.dumps(chunks_to_json(list(stream.chunks)))
    assert chunks_from_json(json.loads(text)) == stream.chunks


def test_checker_owned_values_survive_decoding() -> None:
    chunks = chunks_from_json(
        [
            {"type": "block-start", "index": -1, "blockType": "text"},
            {"type": "text-delta", "index": 0.5, "text": "x"},
            {"type": "tool-call-delta", "index": 2.0, "id": "c", "argumentsDelta": {"a": 1}},
            {"type": "finish", "reason": {"kind": "stop"}},
        ]
    )
    assert isinstance(chunks[2].index, int) and chunks[2].index == 2  # type: ignore[union-attr]
    rules = [v.rule_id for v in check(chunks)]
    assert "stream.index-non-negative-integer" in rules
    assert "stream.tool-arguments-raw-json" in rules


@pytest.mark.parametrize(
    ("value", "code", "path"),
    [
        ("x", "stream.wire.not-an-object", "$"),
        ({"index": 0}, "stream.wire.missing-field", "$.type"),
        ({"type": "bogus"}, "stream.wire.unknown-variant", "$.type"),
        ({"type": 3}, "stream.wire.field-type", "$.type"),
        ({"type": "text-delta", "text": "x"}, "stream.wire.missing-field", "$.index"),
        ({"type": "text-delta", "index": "0", "text": "x"}, "stream.wire.field-type", "$.index"),
        ({"type": "text-delta", "index": True, "text": "x"}, "stream.wire.field-type", "$.index"),
        ({"type": "text-delta", "index": 0, "text": None}, "stream.wire.field-type", "$.text"),
        (
            {"type": "text-delta", "index": 0, "text": "x", "extra": 1},
            "stream.wire.unknown-field",
            "$",
        ),
        (
            {"type": "block-start", "index": 0, "blockType": "image"},
            "stream.wire.unknown-variant",
            "$.blockType",
        ),
        (
            {"type": "tool-call-delta", "index": 0, "argumentsDelta": ""},
            "stream.wire.missing-field",
            "$.id",
        ),
        (
            {"type": "tool-call-delta", "index": 0, "id": "c"},
            "stream.wire.missing-field",
            "$.argumentsDelta",
        ),
        (
            {"type": "usage", "usage": {"inputTokens": -1, "outputTokens": 0}},
            "stream.wire.bad-value",
            "$.usage.inputTokens",
        ),
        (
            {"type": "usage", "usage": {"inputTokens": 1.5, "outputTokens": 0}},
            "stream.wire.bad-value",
            "$.usage.inputTokens",
        ),
        (
            {
                "type": "usage",
                "usage": {"inputTokens": 1, "outputTokens": 0, "cacheReadTokens": None},
            },
            "stream.wire.field-type",
            "$.usage.cacheReadTokens",
        ),
        (
            {"type": "finish", "reason": {"kind": "error"}},
            "stream.wire.missing-field",
            "$.reason.failure",
        ),
        (
            {"type": "finish", "reason": {"kind": "stop", "failure": {"message": "x"}}},
            "stream.wire.bad-value",
            "$.reason.failure",
        ),
        (
            {"type": "finish", "reason": {"kind": "error", "failure": {"msg": "x"}}},
            "stream.wire.missing-field",
            "$.reason.failure.message",
        ),
        (
            {"type": "finish", "reason": {"kind": "done"}},
            "stream.wire.unknown-variant",
            "$.reason.kind",
        ),
        (
            {"type": "block-end", "index": 0, "block": {"type": "tool-result", "callId": "c"}},
            "stream.wire.missing-field",
            "$.block.content",
        ),
        (
            {
                "type": "block-end",
                "index": 0,
                "block": {"type": "tool-result", "callId": "c", "content": "", "isError": 1},
            },
            "stream.wire.field-type",
            "$.block.isError",
        ),
    ],
)
def test_malformed_wire_raises_a_stable_code(value: Any, code: str, path: str) -> None:
    with pytest.raises(WireError) as caught:
        chunk_from_json(value)
    assert caught.value.code == code
    assert caught.value.path == path
    assert code in WIRE_CODES


def test_message_errors() -> None:
    with pytest.raises(WireError) as caught:
        message_from_json({"role": "robot", "content": []})
    assert caught.value.code == "stream.wire.unknown-variant"
    with pytest.raises(WireError) as caught:
        message_from_json({"role": "user", "content": {}})
    assert caught.value.code == "stream.wire.not-a-list"
    with pytest.raises(WireError) as caught:
        chunks_from_json({"type": "finish"})
    assert caught.value.code == "stream.wire.not-a-list"


def test_message_items_are_read_after_the_message_object() -> None:
    """spec: stream.wire.check-order — members in order (role, content), then unknown members,
    then the items of ``content`` in order; no stream vector decodes a message, so it is here."""
    cases: list[tuple[Any, str, str]] = [
        ({"content": 5, "extra": 1}, "stream.wire.missing-field", "$.role"),
        ({"role": "robot", "content": 5}, "stream.wire.unknown-variant", "$.role"),
        ({"role": "user", "content": 5, "extra": 1}, "stream.wire.not-a-list", "$.content"),
        ({"role": "user", "content": [{"type": "x"}], "extra": 1}, "stream.wire.unknown-field",
         "$"),
        ({"role": "user", "content": [{"type": "text"}, {"type": "x"}]},
         "stream.wire.missing-field", "$.content[0].text"),
    ]
    for value, code, path in cases:
        with pytest.raises(WireError) as caught:
            message_from_json(value)
        assert (caught.value.code, caught.value.path) == (code, path), value


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=10,
)
CHUNKISH = st.fixed_dictionaries(
    {
        "type": st.sampled_from(
            ["block-start", "text-delta", "tool-call-delta", "block-end", "usage", "finish"]
        )
    },
    optional={
        k: JSON
        for k in [
            "index",
            "blockType",
            "text",
            "id",
            "name",
            "argumentsDelta",
            "block",
            "usage",
            "reason",
        ]
    },
)


@SETTINGS
@given(JSON | CHUNKISH)
def test_arbitrary_json_decodes_or_raises_stream_error(value: Any) -> None:
    try:
        chunk_from_json(value)
    except StreamError as error:
        assert error.code in WIRE_CODES
