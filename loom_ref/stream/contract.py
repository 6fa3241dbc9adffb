"""The adapter-contract checker: names every rule a chunk sequence breaks, and where.

Rules (``spec/stream.md`` § The contract checker). Each rule id is its spec anchor:

- ``stream.usage-before-finish``: a usage chunk MUST come before the finish chunk.
- ``stream.single-usage``: at most one usage chunk.
- ``stream.single-finish``: exactly one finish chunk; a missing one is reported at index
  ``len(chunks)`` (the end of the stream).
- ``stream.nothing-after-finish``: no chunk after finish (a usage or a second finish after it is
  reported under the two rules above instead, as the more specific rule).
- ``stream.index-non-negative-integer``: a block index is a non-negative integer.
- ``stream.block-start-unique``: a block index is not started again while it is open.
- ``stream.block-start-after-end``: nor after its block-end (loom-ref's choice).
- ``stream.delta-targets-open-block``: a delta targets an open block of its own type.
- ``stream.block-end-closes-open-block``: a block-end closes an open block of the same type.
- ``stream.open-blocks-at-finish``: blocks may be open at finish only for error or aborted.
- ``stream.tool-arguments-raw-json``: ``argumentsDelta`` and a tool-call block's ``arguments``
  are strings.
- ``stream.tool-call-identity-stable``: a tool-call block keeps one id and one name.

Every violation is reported, not only the first, and the checker goes on after one (spec:
stream.checker.every-violation, loom-ref's choice: dsh-llm's validator stops at the first).

Theory of operation (h11 style): the life of one block index and of the stream as a whole are
two tables, :data:`BLOCK_TRANSITIONS` and :data:`STREAM_TRANSITIONS`. A chunk is an event; a
lookup miss IS the violation, and the miss tables name its rule. A chunk that breaks a rule
does not move its state machine, so later chunks are judged against the state the valid prefix
left. Per-chunk shape rules (index, raw JSON) are checked on every chunk; the block machine
sees no chunk after finish, since the stream is over.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import assert_never

import attrs

from loom_ref.enums import TableEnum
from loom_ref.errors import InvalidArgument
from loom_ref.stream.blocks import BlockType, ToolCallBlock
from loom_ref.stream.chunks import (
    DELTA_BLOCK_TYPE,
    BlockEnd,
    BlockStart,
    FinishChunk,
    ReasoningDelta,
    StreamChunk,
    TextDelta,
    ToolCallDelta,
    UsageChunk,
    is_chunk,
)
from loom_ref.stream.errors import ContractViolationError
from loom_ref.stream.rules import Rule

__all__ = [
    "BLOCK_TRANSITIONS",
    "STREAM_TRANSITIONS",
    "ContractChecker",
    "Violation",
    "check",
    "check_strict",
    "enforce",
    "is_valid_index",
    "violation_error",
]


class BlockState(TableEnum):
    """Where one block index is in its life."""

    UNSEEN = "unseen"
    OPEN = "open"
    CLOSED = "closed"


class BlockEvent(TableEnum):
    """What a block chunk does to its index."""

    START = "start"
    DELTA = "delta"
    END = "end"


BLOCK_TRANSITIONS: dict[tuple[BlockState, BlockEvent], BlockState] = {
    (BlockState.UNSEEN, BlockEvent.START): BlockState.OPEN,
    (BlockState.OPEN, BlockEvent.DELTA): BlockState.OPEN,
    (BlockState.OPEN, BlockEvent.END): BlockState.CLOSED,
}
"""Legal block moves; any other (state, event) pair is a violation of :data:`BLOCK_MISS_RULE`."""

BLOCK_MISS_RULE: dict[BlockEvent, Rule] = {
    BlockEvent.START: Rule.BLOCK_START_UNIQUE,  # spec: stream.block-start-unique
    BlockEvent.DELTA: Rule.DELTA_TARGETS_OPEN_BLOCK,  # spec: stream.delta-targets-open-block
    BlockEvent.END: Rule.BLOCK_END_CLOSES_OPEN_BLOCK,  # spec: stream.block-end-closes-open-block
}

BLOCK_MISS_OVERRIDES: dict[tuple[BlockState, BlockEvent], Rule] = {
    # spec: stream.block-start-after-end — "nor after its block-end" (loom-ref's choice)
    (BlockState.CLOSED, BlockEvent.START): Rule.BLOCK_START_AFTER_END,
}
"""Misses whose rule depends on the state too; every other miss is :data:`BLOCK_MISS_RULE`'s."""


class StreamState(TableEnum):
    """Where the stream as a whole is."""

    STREAMING = "streaming"
    USAGE_SEEN = "usage-seen"
    FINISHED = "finished"


class StreamEvent(TableEnum):
    """The stream-level meaning of a chunk."""

    BLOCK = "block"
    USAGE = "usage"
    FINISH = "finish"


STREAM_TRANSITIONS: dict[tuple[StreamState, StreamEvent], StreamState] = {
    (StreamState.STREAMING, StreamEvent.BLOCK): StreamState.STREAMING,
    (StreamState.STREAMING, StreamEvent.USAGE): StreamState.USAGE_SEEN,
    (StreamState.STREAMING, StreamEvent.FINISH): StreamState.FINISHED,
    (StreamState.USAGE_SEEN, StreamEvent.BLOCK): StreamState.USAGE_SEEN,
    (StreamState.USAGE_SEEN, StreamEvent.FINISH): StreamState.FINISHED,
}
"""Legal stream moves; a miss is a violation of the rule :data:`STREAM_MISS_RULE` names."""

STREAM_MISS_RULE: dict[tuple[StreamState, StreamEvent], Rule] = {
    # spec: stream.single-usage — "at most one usage chunk"
    (StreamState.USAGE_SEEN, StreamEvent.USAGE): Rule.SINGLE_USAGE,
    # spec: stream.usage-before-finish — "usage before finish"
    (StreamState.FINISHED, StreamEvent.USAGE): Rule.USAGE_BEFORE_FINISH,
    # spec: stream.single-finish — "exactly one finish"
    (StreamState.FINISHED, StreamEvent.FINISH): Rule.SINGLE_FINISH,
    # spec: stream.nothing-after-finish — "nothing after finish"
    (StreamState.FINISHED, StreamEvent.BLOCK): Rule.NOTHING_AFTER_FINISH,
}


_Report = Callable[[Rule, str], None]
"""The ``report(rule, message)`` callback the checker passes around."""


@attrs.frozen(kw_only=True)
class Violation:
    """One broken rule: which (``rule``), where (``index``, the chunk's position) and why.
    (spec: stream.errors.rule-codes)
    """

    rule: Rule
    index: int
    message: str

    @property
    def rule_id(self) -> str:
        """The rule's id, which is its spec anchor."""
        return self.rule.value

    def to_json(self) -> dict[str, object]:
        """The conformance form ``{"rule": <id>, "index": <position>}``."""
        return {"rule": self.rule.value, "index": self.index}


def is_valid_index(index: object) -> bool:
    """spec: stream.index-non-negative-integer — "a block index MUST be a non-negative integer".

    An integral float (``1.0``) counts as an integer: JSON does not tell them apart.
    """
    if isinstance(index, bool):
        return False
    if isinstance(index, int):
        return index >= 0
    return isinstance(index, float) and index.is_integer() and index >= 0


@attrs.define
class _Block:
    state: BlockState
    block_type: BlockType | None = None
    call_id: str | None = None
    name: str | None = None


class ContractChecker:
    """An incremental checker: :meth:`feed` each chunk, then :meth:`close` at end of stream.

    Each call returns the violations found at that point (an empty tuple when none).
    (spec: stream.errors.rule-codes)
    """

    def __init__(self) -> None:
        self._position = 0
        self._state = StreamState.STREAMING
        self._blocks: dict[float, _Block] = {}

    @property
    def finished(self) -> bool:
        """True once a finish chunk has been seen."""
        return self._state is StreamState.FINISHED

    def feed(self, chunk: StreamChunk) -> tuple[Violation, ...]:
        """Judge the next chunk; return the violations it commits."""
        if not is_chunk(chunk):
            raise InvalidArgument(f"expected a StreamChunk, got {type(chunk).__name__}")
        position = self._position
        self._position += 1
        found: list[Violation] = []

        def report(rule: Rule, message: str) -> None:
            found.append(Violation(rule=rule, index=position, message=message))

        self._check_shape(chunk, report)
        event = (
            StreamEvent.USAGE
            if isinstance(chunk, UsageChunk)
            else StreamEvent.FINISH
            if isinstance(chunk, FinishChunk)
            else StreamEvent.BLOCK
        )
        was = self._state
        moved = STREAM_TRANSITIONS.get((was, event))
        if moved is None:
            rule = STREAM_MISS_RULE[(was, event)]
            report(rule, f"{chunk.type.value} chunk in stream state {was.value}")
            return tuple(found)
        if event is StreamEvent.FINISH:
            assert isinstance(chunk, FinishChunk)
            self._check_open_at_finish(chunk, report)
        elif event is StreamEvent.BLOCK:
            self._feed_block(chunk, report)
        self._state = moved
        return tuple(found)

    def close(self) -> tuple[Violation, ...]:
        """End of stream: a missing finish is a violation at index ``len(chunks)``."""
        if self._state is StreamState.FINISHED:
            return ()
        # spec: stream.single-finish — "a stream MUST end with exactly one finish chunk"
        return (
            Violation(
                rule=Rule.SINGLE_FINISH,
                index=self._position,
                message="the stream ended without a finish chunk",
            ),
        )

    # --- per-chunk shape rules -------------------------------------------------------------

    @staticmethod
    def _check_shape(chunk: StreamChunk, report: _Report) -> None:
        if isinstance(
            chunk, (BlockStart, TextDelta, ReasoningDelta, ToolCallDelta, BlockEnd)
        ) and not is_valid_index(chunk.index):
            # spec: stream.index-non-negative-integer
            report(Rule.INDEX_NON_NEGATIVE_INTEGER, f"index {chunk.index!r}")
        if isinstance(chunk, ToolCallDelta) and not isinstance(chunk.arguments_delta, str):
            # spec: stream.tool-arguments-raw-json — "arguments stay raw JSON strings"
            report(
                Rule.TOOL_ARGUMENTS_RAW_JSON,
                f"argumentsDelta is a {type(chunk.arguments_delta).__name__}, not a string",
            )
        if (
            isinstance(chunk, BlockEnd)
            and isinstance(chunk.block, ToolCallBlock)
            and not isinstance(chunk.block.arguments, str)
        ):
            # spec: stream.tool-arguments-raw-json — "re-stringifies at block-end"
            report(
                Rule.TOOL_ARGUMENTS_RAW_JSON,
                f"block-end arguments is a {type(chunk.block.arguments).__name__}, not a string",
            )

    # --- block rules -----------------------------------------------------------------------

    def _feed_block(self, chunk: StreamChunk, report: _Report) -> None:
        match chunk:
            case BlockStart():
                event, block_type = BlockEvent.START, chunk.block_type
            case TextDelta() | ReasoningDelta() | ToolCallDelta():
                event, block_type = BlockEvent.DELTA, DELTA_BLOCK_TYPE[chunk.type]
            case BlockEnd():
                event, block_type = BlockEvent.END, chunk.block.type
            case UsageChunk() | FinishChunk():  # pragma: no cover - routed by feed()
                raise AssertionError("not a block chunk")
            case _:
                assert_never(chunk)
        if not is_valid_index(chunk.index):
            return  # already reported; such a chunk addresses no block
        try:
            key = float(chunk.index)
        except OverflowError:  # an int past the float range: a valid index no float equals
            key = chunk.index
        block = self._blocks.get(key)
        state = BlockState.UNSEEN if block is None else block.state
        moved = BLOCK_TRANSITIONS.get((state, event))
        rule = BLOCK_MISS_OVERRIDES.get((state, event), BLOCK_MISS_RULE[event])
        if moved is None:
            report(rule, f"{chunk.type.value} for block {chunk.index} in state {state.value}")
            return
        if block is None:
            self._blocks[key] = _Block(state=moved, block_type=block_type)
            return
        if block.block_type is not block_type:
            # spec: stream.delta-targets-open-block / stream.block-end-closes-open-block —
            # "of its own type" / "of the same type"
            assert block.block_type is not None
            report(
                rule,
                f"{chunk.type.value} of type {block_type.value} for block {chunk.index} "
                f"of type {block.block_type.value}",
            )
            return
        if isinstance(chunk, ToolCallDelta):
            self._check_identity(block, chunk.id, chunk.name, report)
        elif isinstance(chunk, BlockEnd) and isinstance(chunk.block, ToolCallBlock):
            self._check_identity(block, chunk.block.id, chunk.block.name, report)
        block.state = moved

    @staticmethod
    def _check_identity(block: _Block, call_id: str, name: str | None, report: _Report) -> None:
        # spec: stream.tool-call-identity-stable — "a tool-call block's id and name MUST NOT
        # change"
        if block.call_id is None:
            block.call_id = call_id
        elif call_id != block.call_id:
            report(
                Rule.TOOL_CALL_IDENTITY_STABLE,
                f"tool-call id changed from {block.call_id!r} to {call_id!r}",
            )
        if name is None:
            return
        if block.name is None:
            block.name = name
        elif name != block.name:
            report(
                Rule.TOOL_CALL_IDENTITY_STABLE,
                f"tool-call name changed from {block.name!r} to {name!r}",
            )

    def _check_open_at_finish(self, chunk: FinishChunk, report: _Report) -> None:
        # spec: stream.open-blocks-at-finish — "blocks MAY be open at finish only for error
        # or aborted"
        if chunk.reason.failed:
            return
        still_open = [k for k, b in self._blocks.items() if b.state is BlockState.OPEN]
        if still_open:
            shown = ", ".join(str(int(k)) for k in still_open)
            report(
                Rule.OPEN_BLOCKS_AT_FINISH,
                f"finish {chunk.reason.kind.value} with open blocks {shown}",
            )


def _iterate(chunks: Iterable[StreamChunk]) -> Iterator[StreamChunk]:
    if isinstance(chunks, (str, bytes)) or not isinstance(chunks, Iterable):
        raise InvalidArgument(f"chunks must be an iterable of chunks, got {type(chunks).__name__}")
    return iter(chunks)


def check(chunks: Iterable[StreamChunk]) -> tuple[Violation, ...]:
    """Every contract violation in ``chunks``, in chunk order (empty when the stream is valid).
    (spec: stream.errors.rule-codes)
    """
    checker = ContractChecker()
    found: list[Violation] = []
    for chunk in _iterate(chunks):
        found.extend(checker.feed(chunk))
    found.extend(checker.close())
    return tuple(found)


def violation_error(violation: Violation) -> ContractViolationError:
    """The :class:`ContractViolationError` of ``violation`` (spec: stream.errors.rule-codes):
    its code the rule's id, ``details["index"]`` the chunk index and ``details["rule"]``
    the rule's id again (a string: spec: errors.details-json)."""
    return ContractViolationError(
        f"chunk {violation.index}: {violation.message}",
        code=violation.rule.value,
        index=violation.index,
        rule=violation.rule.value,
    )


def check_strict(chunks: Iterable[StreamChunk]) -> None:
    """Raise :class:`ContractViolationError` (code = rule id) at the first violation.
    (spec: stream.assembler.strict)
    """
    for _ in enforce(chunks):
        pass


def enforce(chunks: Iterable[StreamChunk]) -> Iterator[StreamChunk]:
    """Pass ``chunks`` through, raising :class:`ContractViolationError` before yielding the
    first chunk that breaks a rule (or at the end, if the finish is missing).
    (spec: stream.errors.rule-codes)"""
    checker = ContractChecker()
    for chunk in _iterate(chunks):
        violations = checker.feed(chunk)
        if violations:
            raise violation_error(violations[0])
        yield chunk
    violations = checker.close()
    if violations:
        raise violation_error(violations[0])
