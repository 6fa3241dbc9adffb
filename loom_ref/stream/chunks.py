"""The ``StreamChunk`` union: the raw wire vocabulary of a streaming model response.

Rules (``spec/stream.md`` § Chunks):

- The union is **closed** (seed 001: "a ``switch`` over ``type`` ends with ``assertNever``").
  Seven variants: block-start, text-delta, reasoning-delta, tool-call-delta, block-end, usage,
  finish (spec: stream.chunks.closed). Code that dispatches on a chunk matches every variant
  and ends with ``typing.assert_never``.
- ``index`` ties each delta to its block (spec: stream.chunks.index). It is checked to be a
  number here; whether it is a *non-negative integer* is the contract checker's rule
  ``stream.index-non-negative-integer``, so a chunk that breaks it can still be built and named.
- ``argumentsDelta`` is a raw JSON fragment, never parsed (spec: stream.tool-arguments-raw-json);
  like ``ToolCallBlock.arguments`` it is left unvalidated so the checker can name the rule.
"""

from __future__ import annotations

from typing import Any, ClassVar

import attrs

from loom_ref.enums import LoomEnum
from loom_ref.errors import InvalidArgument
from loom_ref.stream.blocks import (
    BlockType,
    ContentBlock,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from loom_ref.stream.finish import FinishReason
from loom_ref.stream.usage import TokenUsage

__all__ = [
    "BlockEnd",
    "BlockStart",
    "ChunkType",
    "FinishChunk",
    "ReasoningDelta",
    "StreamChunk",
    "TextDelta",
    "ToolCallDelta",
    "UsageChunk",
    "is_chunk",
]


class ChunkType(LoomEnum):
    """The ``type`` discriminator of each chunk variant (its wire spelling).
    (spec: stream.chunks.closed)
    """

    BLOCK_START = "block-start"
    TEXT_DELTA = "text-delta"
    REASONING_DELTA = "reasoning-delta"
    TOOL_CALL_DELTA = "tool-call-delta"
    BLOCK_END = "block-end"
    USAGE = "usage"
    FINISH = "finish"


def _index(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidArgument(
            f"{type(instance).__name__}.index must be a number, got {type(value).__name__}"
        )


def _str(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    if not isinstance(value, str):
        raise InvalidArgument(
            f"{type(instance).__name__}.{attribute.name} must be a str, got {type(value).__name__}"
        )


def _optional_str(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is not None:
        _str(instance, attribute, value)


def _instance_of(*classes: type) -> Any:
    def check(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
        if not isinstance(value, classes):
            names = " or ".join(c.__name__ for c in classes)
            raise InvalidArgument(
                f"{type(instance).__name__}.{attribute.name} must be {names}, "
                f"got {type(value).__name__}"
            )

    return check


@attrs.frozen(kw_only=True)
class BlockStart:
    """Opens block ``index`` of type ``block_type`` (spec: stream.chunks.closed)."""

    type: ClassVar[ChunkType] = ChunkType.BLOCK_START
    index: int = attrs.field(validator=_index)
    block_type: BlockType = attrs.field(validator=_instance_of(BlockType))


@attrs.frozen(kw_only=True)
class TextDelta:
    """Appends ``text`` to text block ``index`` (spec: stream.chunks.closed)."""

    type: ClassVar[ChunkType] = ChunkType.TEXT_DELTA
    index: int = attrs.field(validator=_index)
    text: str = attrs.field(validator=_str)


@attrs.frozen(kw_only=True)
class ReasoningDelta:
    """Appends ``text`` to reasoning block ``index`` (spec: stream.chunks.closed)."""

    type: ClassVar[ChunkType] = ChunkType.REASONING_DELTA
    index: int = attrs.field(validator=_index)
    text: str = attrs.field(validator=_str)


@attrs.frozen(kw_only=True)
class ToolCallDelta:
    """Appends ``arguments_delta`` (a raw JSON fragment) to tool-call block ``index``.

    ``id`` names the call on every delta; ``name`` may come on any one of them.
    (spec: stream.chunks.closed)
    """

    type: ClassVar[ChunkType] = ChunkType.TOOL_CALL_DELTA
    index: int = attrs.field(validator=_index)
    id: str = attrs.field(validator=_str)
    arguments_delta: str
    name: str | None = attrs.field(default=None, validator=_optional_str)


@attrs.frozen(kw_only=True)
class BlockEnd:
    """Closes block ``index`` and carries the fully assembled ``block``.
    (spec: stream.chunks.closed)
    """

    type: ClassVar[ChunkType] = ChunkType.BLOCK_END
    index: int = attrs.field(validator=_index)
    block: ContentBlock = attrs.field(
        validator=_instance_of(TextBlock, ReasoningBlock, ToolCallBlock, ToolResultBlock)
    )


@attrs.frozen(kw_only=True)
class UsageChunk:
    """The call's token usage; sent at most once, before ``finish``.
    (spec: stream.chunks.closed)
    """

    type: ClassVar[ChunkType] = ChunkType.USAGE
    usage: TokenUsage = attrs.field(validator=_instance_of(TokenUsage))


@attrs.frozen(kw_only=True)
class FinishChunk:
    """The terminal chunk: why the stream ended (spec: stream.chunks.closed)."""

    type: ClassVar[ChunkType] = ChunkType.FINISH
    reason: FinishReason = attrs.field(validator=_instance_of(FinishReason))


StreamChunk = (
    BlockStart | TextDelta | ReasoningDelta | ToolCallDelta | BlockEnd | UsageChunk | FinishChunk
)
"""The closed chunk union (seed 001 ``StreamChunk``)."""

CHUNK_CLASSES: tuple[type, ...] = (
    BlockStart,
    TextDelta,
    ReasoningDelta,
    ToolCallDelta,
    BlockEnd,
    UsageChunk,
    FinishChunk,
)

DELTA_BLOCK_TYPE: dict[ChunkType, BlockType] = {
    ChunkType.TEXT_DELTA: BlockType.TEXT,
    ChunkType.REASONING_DELTA: BlockType.REASONING,
    ChunkType.TOOL_CALL_DELTA: BlockType.TOOL_CALL,
}
"""The block type each delta variant targets (spec: stream.delta-targets-open-block)."""


def is_chunk(value: object) -> bool:
    """True if ``value`` is one of the seven chunk variants (spec: stream.chunks.closed)."""
    return isinstance(value, CHUNK_CLASSES)
