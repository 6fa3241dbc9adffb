"""Records reject bad arguments with InvalidArgument; usage is disjoint; identity is static."""

from __future__ import annotations

from typing import Any

import pytest

from loom_ref import __version__
from loom_ref.errors import InvalidArgument
from loom_ref.stream import (
    APP_IDENTITY,
    AppIdentity,
    BlockEnd,
    BlockStart,
    ChunkType,
    Failure,
    FinishChunk,
    FinishKind,
    FinishReason,
    Message,
    Role,
    TextBlock,
    TextDelta,
    TokenUsage,
    ToolCallDelta,
    ToolResultBlock,
    UsageChunk,
    attribution_headers,
    is_chunk,
)


def test_usage_is_disjoint_and_reasoning_a_breakdown() -> None:
    # spec: stream.usage.disjoint, stream.usage.reasoning-breakdown
    usage = TokenUsage(
        input_tokens=10,
        output_tokens=12,
        cache_read_tokens=90,
        cache_write_tokens=3,
        reasoning_tokens=7,
    )
    assert usage.billed_input_tokens == 103
    assert usage.billed_output_tokens == 12  # the 7 reasoning tokens are inside the 12
    assert usage.billed_tokens == 115
    assert TokenUsage(input_tokens=1, output_tokens=0).cache_read_tokens is None


@pytest.mark.parametrize(
    "kwargs",
    [
        {"input_tokens": -1, "output_tokens": 0},
        {"input_tokens": 1.0, "output_tokens": 0},
        {"input_tokens": True, "output_tokens": 0},
        {"input_tokens": 0, "output_tokens": None},
        {"input_tokens": 0, "output_tokens": 0, "cache_read_tokens": -2},
    ],
)
def test_usage_rejects_bad_counts(kwargs: dict[str, Any]) -> None:
    with pytest.raises(InvalidArgument):
        TokenUsage(**kwargs)


def test_finish_reason_failure_pairing() -> None:
    assert FinishReason.error("x", "c").failure == Failure(message="x", code="c")
    assert FinishReason.aborted("y").failed
    assert not FinishReason.max_tokens().failed
    with pytest.raises(InvalidArgument):
        FinishReason(kind=FinishKind.ERROR)
    with pytest.raises(InvalidArgument):
        FinishReason(kind=FinishKind.STOP, failure=Failure(message="x"))
    with pytest.raises(InvalidArgument):
        FinishReason(kind="stop")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "build",
    [
        lambda: TextDelta(index="0", text="x"),
        lambda: TextDelta(index=True, text="x"),
        lambda: TextDelta(index=0, text=b"x"),
        lambda: BlockStart(index=0, block_type="text"),
        lambda: BlockEnd(index=0, block="text"),
        lambda: ToolCallDelta(index=0, id=None, arguments_delta=""),
        lambda: ToolCallDelta(index=0, id="c", name=3, arguments_delta=""),
        lambda: UsageChunk(usage={"inputTokens": 1}),
        lambda: FinishChunk(reason="stop"),
        lambda: Message(role="user", content=[]),
        lambda: Message(role=Role.USER, content=["hi"]),
        lambda: Message(role=Role.USER, content="hi"),
        lambda: ToolResultBlock(call_id="c", content="x", is_error=1),
        lambda: TextBlock(text=None),
    ],
)
def test_constructors_reject_bad_arguments(build: Any) -> None:
    with pytest.raises(InvalidArgument):
        build()


def test_chunk_types_are_the_closed_seven() -> None:
    assert [t.value for t in ChunkType] == [
        "block-start",
        "text-delta",
        "reasoning-delta",
        "tool-call-delta",
        "block-end",
        "usage",
        "finish",
    ]
    assert is_chunk(FinishChunk(reason=FinishReason.stop()))
    assert not is_chunk({"type": "finish"})


def test_attribution_headers_are_the_user_agent_only() -> None:
    headers = attribution_headers()
    assert list(headers) == ["User-Agent"]
    assert headers["User-Agent"].startswith(f"loom-ref/{__version__} (+")
    custom = AppIdentity(product="acme", version="1.2", url="https://acme.example")
    assert attribution_headers(custom) == {"User-Agent": "acme/1.2 (+https://acme.example)"}
    assert APP_IDENTITY.version == __version__


@pytest.mark.parametrize(
    "kwargs",
    [
        {"product": "", "version": "1", "url": "u"},
        {"product": "a b", "version": "1", "url": "u"},
        {"product": "a", "version": "1\r\nX-Evil: 1", "url": "u"},
        {"product": "a", "version": "1", "url": "http://x\n"},
        {"product": "a", "version": 1, "url": "u"},
    ],
)
def test_identity_rejects_header_injection_and_junk(kwargs: dict[str, Any]) -> None:
    with pytest.raises(InvalidArgument):
        AppIdentity(**kwargs)
    with pytest.raises(InvalidArgument):
        attribution_headers("acme")  # type: ignore[arg-type]
