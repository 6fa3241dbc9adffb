"""Strategies for stream chunk sequences: valid by the protocol grammar, and single-rule
violations of the adapter contract.

Rules (``spec/stream.md`` § The contract checker, § The assembler):

- The grammar: each block index has the life ``block-start  delta*  block-end`` (tool-result
  blocks have no deltas); the lives of several blocks interleave; one optional usage comes
  anywhere before the single finish, which is last. Under an ``error`` or ``aborted`` finish a
  block's life may be cut short (no block-end, fewer deltas); under ``max-tokens`` the model
  folds to no tool call at all. :func:`valid_streams` draws such a
  stream together with the model of what it assembles to (:class:`GeneratedStream`), so an
  adapter or assembler can be checked against the model, not against itself.
- :func:`violating_streams` breaks exactly one rule of a valid stream, at a known chunk index,
  and nothing else: ``check(v.chunks)`` is ``[(v.rule, v.index)]``. Each rule has one mutation
  (see :data:`MUTATIONS`), chosen so that the broken chunk leaves both state machines where the
  valid prefix left them (spec: "A chunk that breaks a rule does not move either machine").
- :func:`split_deltas` re-splits every text, reasoning and argument delta; :func:`strip_blocks`
  makes the delta-only form the assembler must tolerate (spec: stream.assembler.delta-only).
"""

from __future__ import annotations

import itertools
from typing import Any

import attrs

from loom_ref.testing._deps import require_hypothesis

require_hypothesis()

from hypothesis import strategies as st  # noqa: E402

from loom_ref.stream import (  # noqa: E402
    BlockEnd,
    BlockStart,
    BlockType,
    ContentBlock,
    FinishChunk,
    FinishKind,
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
from loom_ref.stream.rules import Rule  # noqa: E402

__all__ = [
    "MUTATIONS",
    "GeneratedStream",
    "ViolatingStream",
    "finish_reasons",
    "split_deltas",
    "strip_blocks",
    "token_usages",
    "valid_streams",
    "violating_streams",
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
    """Token usages, every optional count present or absent (spec: stream.usage)."""
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
    """Every finish kind; ``error`` and ``aborted`` with a failure (spec: stream.finish)."""
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
    call_id, name, name_on = "", "", "first"
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
        # an interrupted block: no block-end, possibly fewer deltas; it assembles from the
        # deltas received (spec: stream.assembler.unnamed-call), an open tool result is dropped
        kept = draw(st.integers(min_value=0, max_value=len(deltas)))
        chunks.extend(deltas[:kept])
        interrupted: ContentBlock | None = None
        if block_type is BlockType.TEXT:
            interrupted = TextBlock(text="".join(pieces[:kept]))
        elif block_type is BlockType.REASONING:
            interrupted = ReasoningBlock(text="".join(pieces[:kept]))
        elif block_type is BlockType.TOOL_CALL:
            named = kept > 0 and name_on != "only-at-end"
            interrupted = ToolCallBlock(id=call_id if kept else f"call-{index}",
                                        name=name if named else "",
                                        arguments="".join(pieces[:kept]))
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
    # spec: stream.assembler.max-tokens-drops-tool-calls -- every tool call, ended or not
    drop_calls = reason.kind is FinishKind.MAX_TOKENS
    blocks = tuple(b for b in (folded[i] for i in first_seen)
                   if b is not None and not (drop_calls and isinstance(b, ToolCallBlock)))
    return GeneratedStream(chunks=tuple(body), blocks=blocks, reason=reason, usage=usage)


def _pieces(draw: st.DrawFn, text: str, max_cuts: int = 3) -> list[str]:
    if len(text) < 2:
        return [text]
    cuts = sorted(
        draw(st.sets(st.integers(min_value=1, max_value=len(text) - 1), max_size=max_cuts))
    )
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


@st.composite
def split_deltas(
    draw: st.DrawFn, chunks: tuple[StreamChunk, ...], *, max_cuts: int = 3
) -> tuple[StreamChunk, ...]:
    """``chunks`` with each text, reasoning and argument delta split into up to ``max_cuts + 1``
    smaller deltas. A tool-call delta's ``name`` stays on the first piece.
    """
    out: list[StreamChunk] = []
    for chunk in chunks:
        if isinstance(chunk, (TextDelta, ReasoningDelta)):
            out.extend(
                attrs.evolve(chunk, text=piece) for piece in _pieces(draw, chunk.text, max_cuts)
            )
        elif isinstance(chunk, ToolCallDelta):
            pieces = _pieces(draw, chunk.arguments_delta, max_cuts)
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


# ---- single-rule violations -------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class ViolatingStream:
    """A stream that breaks exactly one contract rule, once: ``check(chunks)`` reports
    ``rule`` at chunk ``index`` and nothing else. ``base`` is the valid stream it was made from,
    ``mutation`` says what was done to it."""

    chunks: tuple[StreamChunk, ...]
    rule: Rule
    index: int
    base: GeneratedStream
    mutation: str


_NORMAL = st.sampled_from(
    [FinishReason.stop(), FinishReason.tool_calls(), FinishReason.max_tokens()]
)
_USAGE = UsageChunk(usage=TokenUsage(input_tokens=1, output_tokens=1))
# deliberately invalid values, typed Any: the chunk records accept them so that the checker
# can name the rule they break (spec: stream.wire.checker-owned-values)
_BAD_INDEXES: st.SearchStrategy[Any] = st.integers(max_value=-1) | st.sampled_from(
    [0.5, 1.25, -0.5, 2.75]
)


def _chunk_choice(*chunks: StreamChunk) -> st.SearchStrategy[StreamChunk]:
    return st.sampled_from(chunks)


def _fresh_index(chunks: tuple[StreamChunk, ...]) -> int:
    used = [i for c in chunks if isinstance(i := getattr(c, "index", None), int)]
    return max(used, default=-1) + 1


def _end_of(chunks: tuple[StreamChunk, ...], start: int, finish: int) -> int:
    """The position of the block-end closing the block started at ``start``, else ``finish``."""
    index = getattr(chunks[start], "index", None)
    for i in range(start + 1, finish):
        chunk = chunks[i]
        if isinstance(chunk, BlockEnd) and chunk.index == index:
            return i
    return finish


def _insert(
    chunks: tuple[StreamChunk, ...], at: int, new: list[StreamChunk]
) -> tuple[StreamChunk, ...]:
    return (*chunks[:at], *new, *chunks[at:])


@st.composite
def _violation(draw: st.DrawFn, rule: Rule) -> ViolatingStream:
    """One mutation per rule; each is checked by the kit's own tests to break only ``rule``."""
    base = draw(valid_streams(reasons=_NORMAL if rule is Rule.OPEN_BLOCKS_AT_FINISH else None))
    chunks = base.chunks
    finish = len(chunks) - 1
    at = draw(st.integers(0, finish), label="insert at")  # a position before the finish
    fresh = _fresh_index(chunks)
    new: list[StreamChunk]
    if rule is Rule.USAGE_BEFORE_FINISH:
        return ViolatingStream(
            chunks=(*chunks, _USAGE),
            rule=rule,
            index=len(chunks),
            base=base,
            mutation="a usage chunk appended after the finish",
        )
    if rule is Rule.SINGLE_USAGE:
        usages = [i for i, c in enumerate(chunks) if isinstance(c, UsageChunk)]
        first = usages[0] if usages else None
        if first is None:  # add a first usage, then a second one after it
            chunks = _insert(chunks, at, [_USAGE])
            first, finish = at, finish + 1
        second = draw(st.integers(first + 1, finish), label="second usage at")
        return ViolatingStream(
            chunks=_insert(chunks, second, [_USAGE]),
            rule=rule,
            index=second,
            base=base,
            mutation="a second usage chunk",
        )
    if rule is Rule.SINGLE_FINISH:
        reason = draw(st.sampled_from([FinishReason.stop(), FinishReason.error("again")]))
        return ViolatingStream(
            chunks=(*chunks, FinishChunk(reason=reason)),
            rule=rule,
            index=len(chunks),
            base=base,
            mutation="a second finish chunk",
        )
    if rule is Rule.NOTHING_AFTER_FINISH:
        late = draw(
            _chunk_choice(
                BlockStart(index=fresh, block_type=BlockType.TEXT),
                TextDelta(index=fresh, text="late"),
                ToolCallDelta(index=fresh, id="late", arguments_delta="{}"),
                BlockEnd(index=fresh, block=TextBlock(text="late")),
            )
        )
        return ViolatingStream(
            chunks=(*chunks, late),
            rule=rule,
            index=len(chunks),
            base=base,
            mutation="a block chunk appended after the finish",
        )
    if rule is Rule.INDEX_NON_NEGATIVE_INTEGER:
        bad = draw(_BAD_INDEXES, label="bad index")
        new = [
            draw(
                _chunk_choice(
                    BlockStart(index=bad, block_type=BlockType.TEXT),
                    TextDelta(index=bad, text="x"),
                    BlockEnd(index=bad, block=TextBlock(text="x")),
                )
            )
        ]
        mutation = f"a chunk with block index {bad!r} inserted"
    elif rule in (Rule.BLOCK_START_UNIQUE, Rule.BLOCK_START_AFTER_END):
        # unique: repeated while the block is open; after-end: repeated after its block-end
        open_now = rule is Rule.BLOCK_START_UNIQUE
        spans = [(i, _end_of(chunks, i, finish)) for i, c in enumerate(chunks)
                 if isinstance(c, BlockStart)]
        spans = [(i, end) for i, end in spans if open_now or end < finish]
        if spans:
            start, end = draw(st.sampled_from(spans), label="repeated block-start")
            low, high = (start + 1, end) if open_now else (end + 1, finish)
            at = draw(st.integers(low, high), label="insert at")
            new = [chunks[start]]
        else:
            opened = BlockStart(index=fresh, block_type=BlockType.TEXT)
            closed = BlockEnd(index=fresh, block=TextBlock(text=""))
            new = [opened, opened, closed] if open_now else [opened, closed, opened]
        repeated = at + (1 if open_now and not spans else len(new) - 1)
        return ViolatingStream(
            chunks=_insert(chunks, at, new),
            rule=rule,
            index=repeated,
            base=base,
            mutation="a block-start repeated " + ("while open" if open_now else "after its end"),
        )
    elif rule is Rule.DELTA_TARGETS_OPEN_BLOCK:
        new = [
            draw(
                _chunk_choice(
                    TextDelta(index=fresh, text="x"),
                    ReasoningDelta(index=fresh, text="x"),
                    ToolCallDelta(index=fresh, id="stray", arguments_delta="x"),
                )
            )
        ]
        mutation = "a delta for a block never started"
    elif rule is Rule.BLOCK_END_CLOSES_OPEN_BLOCK:
        new = [BlockEnd(index=fresh, block=TextBlock(text=""))]
        mutation = "a block-end for a block never started"
    elif rule is Rule.OPEN_BLOCKS_AT_FINISH:
        new = [BlockStart(index=fresh, block_type=draw(st.sampled_from(list(BlockType))))]
        return ViolatingStream(
            chunks=_insert(chunks, at, new),
            rule=rule,
            index=finish + 1,
            base=base,
            mutation="a block left open at a normal finish",
        )
    elif rule is Rule.TOOL_ARGUMENTS_RAW_JSON:
        parsed: Any = draw(st.sampled_from([{"a": 1}, [1], 3, None]), label="parsed arguments")
        new = [BlockStart(index=fresh, block_type=BlockType.TOOL_CALL)]
        if draw(st.booleans(), label="in a delta"):
            new += [
                ToolCallDelta(index=fresh, id="c", name="f", arguments_delta=parsed),
                BlockEnd(index=fresh, block=ToolCallBlock(id="c", name="f", arguments="{}")),
            ]
            return ViolatingStream(
                chunks=_insert(chunks, at, new),
                rule=rule,
                index=at + 1,
                base=base,
                mutation="parsed arguments in a tool-call delta",
            )
        new += [BlockEnd(index=fresh, block=ToolCallBlock(id="c", name="f", arguments=parsed))]
        mutation = "parsed arguments in a tool-call block-end"
    elif rule is Rule.TOOL_CALL_IDENTITY_STABLE:
        new = [
            BlockStart(index=fresh, block_type=BlockType.TOOL_CALL),
            ToolCallDelta(index=fresh, id="c1", name="f", arguments_delta="{"),
        ]
        if draw(st.booleans(), label="change the id"):
            new.append(ToolCallDelta(index=fresh, id="c2", arguments_delta="}"))
            mutation = "a tool-call delta with another id"
        else:
            new.append(ToolCallDelta(index=fresh, id="c1", name="g", arguments_delta="}"))
            mutation = "a tool-call delta with another name"
        new.append(BlockEnd(index=fresh, block=ToolCallBlock(id="c1", name="f", arguments="{}")))
        return ViolatingStream(
            chunks=_insert(chunks, at, new), rule=rule, index=at + 2, base=base, mutation=mutation
        )
    else:  # pragma: no cover - every rule is handled above
        raise AssertionError(f"no mutation for {rule}")
    return ViolatingStream(
        chunks=_insert(chunks, at, new),
        rule=rule,
        index=at + len(new) - 1,
        base=base,
        mutation=mutation,
    )


MUTATIONS: tuple[Rule, ...] = tuple(Rule)
"""The rules :func:`violating_streams` can break: every rule of the contract."""


def violating_streams(
    rules: Rule | tuple[Rule, ...] | None = None,
) -> st.SearchStrategy[ViolatingStream]:
    """Streams that break exactly one rule (one of ``rules``; default: any rule)."""
    chosen = (rules,) if isinstance(rules, Rule) else (rules or MUTATIONS)
    return st.sampled_from(list(chosen)).flatmap(_violation)
