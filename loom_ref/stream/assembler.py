"""``BlockAssembler``: folds a chunk stream back into content blocks and a final ``Message``.

Rules (``spec/stream.md`` § The assembler):

- Delta-only streams are tolerated: a delta for an index never started opens it (spec:
  stream.assembler.delta-only), and a block-end alone is a whole block.
- The first block-end of an index wins; deltas, block-starts and block-ends for that index after
  it are stragglers and are ignored (spec: stream.assembler.first-block-end-wins). The block the
  block-end carries is the block (seed 001: "``block-end`` carries the fully-assembled
  ``ContentBlock``").
- Blocks come out in first-seen index order, not in index order (spec:
  stream.assembler.first-seen-order).
- A tool-call block without a block-end is dropped when the finish is ``max-tokens`` (its
  arguments never completed), and likewise for ``error`` and ``aborted`` (spec:
  stream.assembler.incomplete-tool-calls-dropped). Interrupted text and reasoning blocks are kept
  with the text received (spec: stream.assembler.interrupted-kept). A tool-result block without
  a block-end has no content and is dropped.
- Tool arguments are concatenated, never parsed (spec: stream.assembler.arguments-unparsed).
- Linear in the number of chunks: text is accumulated as a list of parts and joined once
  (spec: stream.assembler.linear).
- Fail closed on what cannot be folded without guessing (spec: stream.assembler.fail-closed):
  anything after finish, a second usage or finish, an invalid index, a type conflict at an
  index, a changed tool-call identity, non-string arguments. The error's code is the broken
  contract rule's id, or ``stream.assembler.type-conflict``.
- Several broken rules: the first failing check wins, chunk by chunk and, within a chunk, from
  the outside in — after-finish, second usage, index, the block at the index (unseen: open it;
  ended: a straggler, ignored unjudged; open with another type: type conflict), then what the
  chunk carries (raw-JSON arguments, then id, then name) (spec: stream.assembler.check-order).
- Failed stays failed: once a chunk raised, every later ``feed`` and every read (``blocks``,
  ``message``, ``result``) raises an ``AssemblerError`` with the same code, so a caller that
  catches the error cannot read a half-folded message as if it were whole (spec:
  stream.assembler.failed-stays-failed).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import assert_never

import attrs

from loom_ref.errors import InvalidArgument
from loom_ref.stream.blocks import (
    BlockType,
    ContentBlock,
    Message,
    ReasoningBlock,
    Role,
    TextBlock,
    ToolCallBlock,
)
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
from loom_ref.stream.contract import is_valid_index
from loom_ref.stream.errors import AssemblerError
from loom_ref.stream.finish import FinishKind, FinishReason
from loom_ref.stream.rules import Rule
from loom_ref.stream.usage import TokenUsage

__all__ = ["TYPE_CONFLICT", "UNFINISHED", "AssembledStream", "BlockAssembler", "assemble"]

TYPE_CONFLICT = "stream.assembler.type-conflict"
"""Error code: two chunks for one index disagree about the block's type."""

UNFINISHED = "stream.assembler.unfinished"
"""Error code: a final message was asked for before the finish chunk."""

DROPS_INCOMPLETE_TOOL_CALLS = frozenset(
    {FinishKind.MAX_TOKENS, FinishKind.ERROR, FinishKind.ABORTED}
)
"""Finish kinds under which a tool-call block without block-end is dropped
(spec: stream.assembler.incomplete-tool-calls-dropped)."""


@attrs.frozen(kw_only=True)
class AssembledStream:
    """The fold of a finished stream: the assistant ``message``, the ``finish`` reason and the
    ``usage`` (``None`` when the stream carried none — absent, never zero)."""

    message: Message
    finish: FinishReason
    usage: TokenUsage | None


@attrs.define
class _Slot:
    block_type: BlockType
    parts: list[str] = attrs.field(factory=list)
    call_id: str | None = None
    name: str | None = None
    ended: ContentBlock | None = None


class BlockAssembler:
    """Feed chunks in order; read :meth:`blocks` at any time and :meth:`result` after finish."""

    def __init__(self) -> None:
        self._slots: dict[float, _Slot] = {}  # insertion order = first-seen order
        self._usage: TokenUsage | None = None
        self._finish: FinishReason | None = None
        self._final: tuple[ContentBlock, ...] | None = None
        #: The error a chunk raised, once one has (spec: stream.assembler.failed-stays-failed).
        self._failed: AssemblerError | None = None

    @property
    def finished(self) -> bool:
        return self._finish is not None

    @property
    def finish_reason(self) -> FinishReason | None:
        return self._finish

    @property
    def usage(self) -> TokenUsage | None:
        return self._usage

    def feed_all(self, chunks: Iterable[StreamChunk]) -> BlockAssembler:
        """Feed every chunk of ``chunks``; returns ``self``."""
        if isinstance(chunks, (str, bytes)) or not isinstance(chunks, Iterable):
            raise InvalidArgument(f"chunks must be an iterable, got {type(chunks).__name__}")
        for chunk in chunks:
            self.feed(chunk)
        return self

    def feed(self, chunk: StreamChunk) -> None:
        """Fold one chunk."""
        self._check_not_failed()
        if not is_chunk(chunk):
            raise InvalidArgument(f"expected a StreamChunk, got {type(chunk).__name__}")
        try:
            self._fold(chunk)
        except AssemblerError as exc:
            self._failed = exc
            raise

    def _check_not_failed(self) -> None:
        """spec: stream.assembler.failed-stays-failed"""
        if self._failed is not None:
            raise AssemblerError(f"the assembler failed earlier: {self._failed.message}",
                                 code=self._failed.code)

    def _fold(self, chunk: StreamChunk) -> None:
        # spec: stream.assembler.check-order — after-finish first, then the second usage, then
        # (in _slot) the index and the block, then (in the chunk's handler) what it carries
        if self._finish is not None:
            # spec: stream.usage-before-finish, stream.single-finish, stream.nothing-after-finish
            rule = (
                Rule.USAGE_BEFORE_FINISH
                if isinstance(chunk, UsageChunk)
                else Rule.SINGLE_FINISH
                if isinstance(chunk, FinishChunk)
                else Rule.NOTHING_AFTER_FINISH
            )
            raise AssemblerError(f"{chunk.type.value} chunk after finish", code=rule.value)
        match chunk:
            case UsageChunk():
                if self._usage is not None:
                    # spec: stream.single-usage
                    raise AssemblerError("a second usage chunk", code=Rule.SINGLE_USAGE.value)
                self._usage = chunk.usage
            case FinishChunk():
                self._finish = chunk.reason
            case BlockStart():
                self._slot(chunk.index, chunk.block_type)
            case TextDelta() | ReasoningDelta():
                slot = self._slot(chunk.index, DELTA_BLOCK_TYPE[chunk.type])
                if slot.ended is None:
                    slot.parts.append(chunk.text)
            case ToolCallDelta():
                self._tool_call_delta(chunk)
            case BlockEnd():
                self._block_end(chunk)
            case _:
                assert_never(chunk)

    def _slot(self, index: float, block_type: BlockType) -> _Slot:
        if not is_valid_index(index):
            # spec: stream.index-non-negative-integer
            raise AssemblerError(
                f"index {index!r} is not a non-negative integer",
                code=Rule.INDEX_NON_NEGATIVE_INTEGER.value,
            )
        try:
            key = float(index)
        except OverflowError:  # an int past the float range: a valid index no float equals
            key = index
        slot = self._slots.get(key)
        if slot is None:
            # spec: stream.assembler.delta-only — a delta or block-end may open its block
            slot = self._slots[key] = _Slot(block_type=block_type)
        elif slot.ended is None and slot.block_type is not block_type:
            raise AssemblerError(
                f"block {index} is {slot.block_type.value}, got a {block_type.value} chunk",
                code=TYPE_CONFLICT,
            )
        return slot

    def _tool_call_delta(self, chunk: ToolCallDelta) -> None:
        slot = self._slot(chunk.index, BlockType.TOOL_CALL)
        if slot.ended is not None:
            return  # spec: stream.assembler.first-block-end-wins — a straggler
        if not isinstance(chunk.arguments_delta, str):
            # spec: stream.tool-arguments-raw-json
            raise AssemblerError(
                "argumentsDelta is not a string", code=Rule.TOOL_ARGUMENTS_RAW_JSON.value
            )
        # spec: stream.tool-call-identity-stable
        if slot.call_id is None:
            slot.call_id = chunk.id
        elif chunk.id != slot.call_id:
            raise AssemblerError(
                f"tool-call id changed from {slot.call_id!r} to {chunk.id!r}",
                code=Rule.TOOL_CALL_IDENTITY_STABLE.value,
            )
        if chunk.name is not None:
            if slot.name is None:
                slot.name = chunk.name
            elif chunk.name != slot.name:
                raise AssemblerError(
                    f"tool-call name changed from {slot.name!r} to {chunk.name!r}",
                    code=Rule.TOOL_CALL_IDENTITY_STABLE.value,
                )
        # spec: stream.assembler.arguments-unparsed — concatenated, never parsed
        slot.parts.append(chunk.arguments_delta)

    def _block_end(self, chunk: BlockEnd) -> None:
        slot = self._slot(chunk.index, chunk.block.type)
        if slot.ended is not None:
            return  # spec: stream.assembler.first-block-end-wins
        block = chunk.block
        if isinstance(block, ToolCallBlock) and not isinstance(block.arguments, str):
            # spec: stream.tool-arguments-raw-json
            raise AssemblerError(
                "block-end tool-call arguments is not a string",
                code=Rule.TOOL_ARGUMENTS_RAW_JSON.value,
            )
        slot.ended = block
        slot.parts = []  # the carried block wins; free the parts

    def blocks(self) -> tuple[ContentBlock, ...]:
        """The blocks so far, in first-seen index order (final once finished)."""
        self._check_not_failed()
        if self._final is not None:
            return self._final
        drop_open_tool_calls = (
            self._finish is not None and self._finish.kind in DROPS_INCOMPLETE_TOOL_CALLS
        )
        out: list[ContentBlock] = []
        for slot in self._slots.values():  # spec: stream.assembler.first-seen-order
            if slot.ended is not None:
                out.append(slot.ended)
                continue
            # spec: stream.assembler.interrupted-kept — open text and reasoning are kept
            match slot.block_type:
                case BlockType.TEXT:
                    out.append(TextBlock(text="".join(slot.parts)))
                case BlockType.REASONING:
                    out.append(ReasoningBlock(text="".join(slot.parts)))
                case BlockType.TOOL_CALL:
                    # spec: stream.assembler.incomplete-tool-calls-dropped
                    if not drop_open_tool_calls:
                        out.append(
                            ToolCallBlock(
                                id=slot.call_id or "",
                                name=slot.name or "",
                                arguments="".join(slot.parts),
                            )
                        )
                case BlockType.TOOL_RESULT:
                    pass  # no content arrives except by block-end
                case _:
                    assert_never(slot.block_type)
        result = tuple(out)
        if self._finish is not None:
            self._final = result
        return result

    def message(self) -> Message:
        """The assistant message; raises ``stream.assembler.unfinished`` before finish."""
        self._check_not_failed()
        if self._finish is None:
            raise AssemblerError("the stream has not finished", code=UNFINISHED)
        return Message(role=Role.ASSISTANT, content=self.blocks())

    def result(self) -> AssembledStream:
        """Message, finish reason and usage; raises ``stream.assembler.unfinished`` before
        finish."""
        message = self.message()
        assert self._finish is not None
        return AssembledStream(message=message, finish=self._finish, usage=self._usage)


def assemble(chunks: Iterable[StreamChunk]) -> AssembledStream:
    """Fold a whole stream; raises ``stream.assembler.unfinished`` if it has no finish."""
    return BlockAssembler().feed_all(chunks).result()
