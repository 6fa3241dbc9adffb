"""Hypothesis strategies for valid chunk streams, generated from the protocol grammar.

A later task moves these into ``loom_ref.testing``; hypothesis is a test-only dependency, so
they live under ``tests/`` for now.

The grammar (``spec/stream.md``): each block index has the life ``block-start  delta*
block-end`` (tool-result blocks have no deltas); the lives of several blocks interleave; one
optional usage comes anywhere before the single finish, which is last. Under an ``error`` or
``aborted`` finish a block's life may be cut short (no block-end, fewer deltas).
:class:`GeneratedStream` carries the chunks together with the model of what they assemble to.
"""

from __future__ import annotations

import itertools

import attrs
from hypothesis import strategies as st

from loom_ref.stream import (
    BlockEnd,
    BlockStart,
    BlockType,
    ContentBlock,
    FinishChunk,
    FinishReason,
    ReasoningBlock,
    ReasoningDelta,
    StreamChunk,
    TextBlock,
    TextDelta,
    TokenUsage,
    ToolCallBlock,
    ToolCallDelta,
    ToolResultBlock,
    UsageChunk,
)

__all__ = [
    "GeneratedStream",
    "finish_reasons",
    "split_deltas",
    "strip_blocks",
    "token_usages",
    "valid_streams",
]

_SHORT_TEXT = st.text(max_size=6)
_IDS = st.text(alphabet="abcdefghij0123456789_-", min_size=1, max_size=6)
_JSON_FRAGMENTS = st.sampled_from(['{"a":', "1", ",", '"b":"x"', "}", "[", "]", "null", ' "{'])


@attrs.frozen(kw_only=True)
class GeneratedStream:
    """A valid chunk stream and the model of its fold."""

    chunks: tuple[StreamChunk, ...]
    blocks: tuple[ContentBlock, ...]  # the expected assembled blocks, in first-seen order
    reason: FinishReason
    usage: TokenUsage | None


def token_usages() -> st.SearchStrategy[TokenUsage]:
    counts = st.integers(min_value=0, max_value=10_000)
    maybe = st.none() | counts
    return st.builds(
        TokenUsage,
        input_tokens=counts,
        output_tokens=counts,
        cache_read_tokens=maybe,
        cache_write_tokens=maybe,
        reasoning_tokens=maybe,
    )


def finish_reasons() -> st.SearchStrategy[FinishReason]:
    message = st.text(max_size=8)
    code = st.none() | st.sampled_from(["stream.x", "provider.y"])
    return st.one_of(
        st.just(FinishReason.stop()),
        st.just(FinishReason.tool_calls()),
        st.just(FinishReason.max_tokens()),
        st.builds(FinishReason.error, message, code),
        st.builds(FinishReason.aborted, message, code),
    )


@st.composite
def _block_life(
    draw: st.DrawFn, index: int, block_type: BlockType, may_cut: bool
) -> tuple[list[StreamChunk], ContentBlock | None]:
    """One block's chunks, and the block it assembles to (``None`` if dropped)."""
    chunks: list[StreamChunk] = [BlockStart(index=index, block_type=block_type)]
    deltas: list[StreamChunk] = []
    pieces: list[str] = []
    block: ContentBlock
    if block_type is BlockType.TOOL_RESULT:
        block = ToolResultBlock(
            call_id=draw(_IDS), content=draw(_SHORT_TEXT), is_error=draw(st.booleans())
        )
    elif block_type is BlockType.TOOL_CALL:
        call_id, name = draw(_IDS), draw(_IDS)
        pieces = draw(st.lists(_JSON_FRAGMENTS, max_size=4))
        name_on = draw(st.sampled_from(["first", "every", "only-at-end"]))
        deltas = [
            ToolCallDelta(
                index=index,
                id=call_id,
                name=name if name_on == "every" or (name_on == "first" and i == 0) else None,
                arguments_delta=piece,
            )
            for i, piece in enumerate(pieces)
        ]
        block = ToolCallBlock(id=call_id, name=name, arguments="".join(pieces))
    elif block_type is BlockType.TEXT:
        pieces = draw(st.lists(_SHORT_TEXT, max_size=4))
        deltas = [TextDelta(index=index, text=piece) for piece in pieces]
        block = TextBlock(text="".join(pieces))
    else:
        pieces = draw(st.lists(_SHORT_TEXT, max_size=4))
        deltas = [ReasoningDelta(index=index, text=piece) for piece in pieces]
        block = ReasoningBlock(text="".join(pieces))
    if may_cut and draw(st.booleans()):
        # an interrupted block: no block-end, possibly fewer deltas
        kept = draw(st.integers(min_value=0, max_value=len(deltas)))
        chunks.extend(deltas[:kept])
        interrupted: ContentBlock | None = None  # open tool calls and results are dropped
        if block_type is BlockType.TEXT:
            interrupted = TextBlock(text="".join(pieces[:kept]))
        elif block_type is BlockType.REASONING:
            interrupted = ReasoningBlock(text="".join(pieces[:kept]))
        return chunks, interrupted
    chunks.extend(deltas)
    chunks.append(BlockEnd(index=index, block=block))
    return chunks, block


@st.composite
def valid_streams(
    draw: st.DrawFn,
    *,
    min_blocks: int = 0,
    max_blocks: int = 4,
    block_types: tuple[BlockType, ...] = tuple(BlockType),
    reasons: st.SearchStrategy[FinishReason] | None = None,
    with_usage: bool | None = None,
) -> GeneratedStream:
    """A stream the contract accepts, with the model of its fold."""
    reason = draw(reasons if reasons is not None else finish_reasons())
    indexes = draw(
        st.lists(
            st.integers(min_value=0, max_value=40),
            unique=True,
            min_size=min_blocks,
            max_size=max_blocks,
        )
    )
    lives: list[list[StreamChunk]] = []
    folded: list[ContentBlock | None] = []
    for index in indexes:
        block_type = draw(st.sampled_from(block_types))
        chunks, block = draw(_block_life(index, block_type, reason.failed))
        lives.append(chunks)
        folded.append(block)
    # interleave the lives, keeping each life's own order
    order: list[int] = draw(st.permutations([i for i, life in enumerate(lives) for _ in life]))
    cursors = [0] * len(lives)
    body: list[StreamChunk] = []
    first_seen: list[int] = []
    for which in order:
        if cursors[which] == 0:
            first_seen.append(which)
        body.append(lives[which][cursors[which]])
        cursors[which] += 1
    usage: TokenUsage | None = None
    if with_usage if with_usage is not None else draw(st.booleans()):
        usage = draw(token_usages())
        at = draw(st.integers(min_value=0, max_value=len(body)))
        body.insert(at, UsageChunk(usage=usage))
    body.append(FinishChunk(reason=reason))
    blocks = tuple(b for b in (folded[i] for i in first_seen) if b is not None)
    return GeneratedStream(chunks=tuple(body), blocks=blocks, reason=reason, usage=usage)


def _pieces(draw: st.DrawFn, text: str) -> list[str]:
    if len(text) < 2:
        return [text]
    cuts = sorted(draw(st.sets(st.integers(min_value=1, max_value=len(text) - 1), max_size=3)))
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


@st.composite
def split_deltas(draw: st.DrawFn, chunks: tuple[StreamChunk, ...]) -> tuple[StreamChunk, ...]:
    """``chunks`` with each text, reasoning and argument delta split into smaller deltas.

    A tool-call delta's ``name`` stays on the first piece.
    """
    out: list[StreamChunk] = []
    for chunk in chunks:
        if isinstance(chunk, (TextDelta, ReasoningDelta)):
            out.extend(attrs.evolve(chunk, text=piece) for piece in _pieces(draw, chunk.text))
        elif isinstance(chunk, ToolCallDelta):
            pieces = _pieces(draw, chunk.arguments_delta)
            out.extend(
                attrs.evolve(chunk, arguments_delta=piece, name=chunk.name if i == 0 else None)
                for i, piece in enumerate(pieces)
            )
        else:
            out.append(chunk)
    return tuple(out)


def strip_blocks(chunks: tuple[StreamChunk, ...]) -> tuple[StreamChunk, ...]:
    """The delta-only form of a stream: block-starts and block-ends removed."""
    return tuple(c for c in chunks if not isinstance(c, (BlockStart, BlockEnd)))
