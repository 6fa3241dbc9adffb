"""``BlockAssembler``: folds a chunk stream back into content blocks and a final ``Message``.

It folds as dsh-llm's ``BlockAssembler`` does (``spec/stream.md`` § The assembler): tolerant by
design, because it runs on live streams and on replays of logged chunks alike. Rules:

- Every chunk folds, wherever it comes: a later ``usage`` replaces an earlier one, a later
  ``finish`` replaces an earlier one, a block chunk after the finish folds like any other
  (spec: stream.assembler.folds-everything). The ordering rules are the contract checker's.
- A stream that ends without a finish folds with finish ``stop`` (spec:
  stream.assembler.missing-finish-is-stop).
- Delta-only streams are tolerated: any block chunk for an index never seen opens it with the
  chunk's block type (spec: stream.assembler.delta-only); a ``block-start`` for a seen index
  changes nothing.
- The first block-end of an index wins: the block it carries is the block, whatever the
  index's type was, and every later chunk for that index is a straggler, ignored unjudged
  (spec: stream.assembler.first-block-end-wins).
- Blocks come out in first-seen index order (spec: stream.assembler.first-seen-order).
- ``text-delta`` and ``reasoning-delta`` both append to an open text or reasoning block,
  whichever of the two it is; a ``tool-call-delta`` into an open tool-call block sets its id (the
  last delta's), its name (the last non-empty one) and appends its arguments; any other delta
  changes nothing (spec: stream.assembler.deltas-by-block-type).
- An open tool-call block assembles from its deltas; one that received none is named
  ``call-<index>`` (spec: stream.assembler.unnamed-call). An open tool-result block has no
  content and is dropped (spec: stream.assembler.open-tool-result).
- A ``max-tokens`` finish removes every tool-call block, ended or not: its arguments may be cut
  mid-JSON (spec: stream.assembler.max-tokens-drops-tool-calls).
- :meth:`BlockAssembler.interrupted_blocks` is the prefix safe to keep after a cancellation:
  text and reasoning blocks whose text is not blank (spec: stream.assembler.interrupted).
- Tool arguments are concatenated, never parsed (spec: stream.assembler.arguments-unparsed);
  parts are joined once (spec: stream.assembler.linear).
- What no fold can take (an index that is not a non-negative integer, arguments that are not a
  string) raises :class:`AssemblerError` with the rule's id (spec: stream.assembler.type-errors),
  and a failed assembler stays failed (spec: stream.assembler.failed-stays-failed).
- ``strict=True`` puts the contract checker in front of the same fold: the first violation
  raises :class:`ContractViolationError`, as ``enforce`` would (spec: stream.assembler.strict).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import assert_never

import attrs

from loom_ref.errors import InvalidArgument, StreamError
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
from loom_ref.stream.contract import ContractChecker, is_valid_index, violation_error
from loom_ref.stream.errors import AssemblerError
from loom_ref.stream.finish import FinishKind, FinishReason
from loom_ref.stream.rules import Rule
from loom_ref.stream.usage import TokenUsage

__all__ = ["BLANK", "AssembledStream", "BlockAssembler", "assemble", "is_blank"]

BLANK = frozenset(
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
"""The whitespace of ``stream.assembler.interrupted``: ECMAScript's WhiteSpace and
LineTerminator, what dsh-llm's ``text.trim()`` removes. Not Python's ``str.isspace`` (which adds
U+001C-U+001F and U+0085 and leaves out U+FEFF)."""


def is_blank(text: str) -> bool:
    """``text`` holds nothing but :data:`BLANK` characters (spec: stream.assembler.interrupted)."""
    return all(c in BLANK for c in text)


@attrs.frozen(kw_only=True)
class AssembledStream:
    """The fold of a stream: the assistant ``message``, the ``finish`` reason (``stop`` when the
    stream had none), the ``usage`` (``None`` when it carried none: absent, never zero) and the
    ``interrupted`` prefix (:meth:`BlockAssembler.interrupted_blocks`) (spec: stream.assembler)."""

    message: Message
    finish: FinishReason
    usage: TokenUsage | None
    interrupted: tuple[ContentBlock, ...] = ()


_TEXT, _REASONING, _TOOL_CALL = BlockType.TEXT, BlockType.REASONING, BlockType.TOOL_CALL


@attrs.define
class _Slot:
    index: int
    block_type: BlockType
    parts: list[str] = attrs.field(factory=list)  # text, or a tool call's arguments
    call_id: str | None = None
    name: str | None = None
    ended: ContentBlock | None = None

    def block(self) -> ContentBlock | None:
        """The block this slot assembles to (``None``: an open tool-result, dropped)."""
        if self.ended is not None:
            return self.ended
        match self.block_type:
            case BlockType.TEXT:
                return TextBlock(text="".join(self.parts))
            case BlockType.REASONING:
                return ReasoningBlock(text="".join(self.parts))
            case BlockType.TOOL_CALL:  # spec: stream.assembler.unnamed-call
                call_id = self.call_id if self.call_id is not None else f"call-{self.index}"
                return ToolCallBlock(id=call_id, name=self.name or "",
                                     arguments="".join(self.parts))
            case BlockType.TOOL_RESULT:
                # spec: stream.assembler.open-tool-result -- no content arrives but by block-end
                return None
            case _:
                assert_never(self.block_type)


class BlockAssembler:
    """Feed chunks in order; read :meth:`blocks`, :meth:`message`, :meth:`result` and
    :meth:`interrupted_blocks` at any time. ``strict=True`` checks the contract first.
    (spec: stream.assembler)"""

    def __init__(self, *, strict: bool = False) -> None:
        if not isinstance(strict, bool):
            raise InvalidArgument(f"strict must be a bool, got {strict!r}")
        self._slots: dict[int, _Slot] = {}  # insertion order = first-seen order
        self._usage: TokenUsage | None = None
        self._finish: FinishReason | None = None
        self._checker = ContractChecker() if strict else None
        #: The error a chunk raised, once one has (spec: stream.assembler.failed-stays-failed).
        self._failed: StreamError | None = None

    @property
    def strict(self) -> bool:
        """True when the contract checker judges each chunk first (spec:
        stream.assembler.strict)."""
        return self._checker is not None

    @property
    def finished(self) -> bool:
        """True once a finish chunk has been fed."""
        return self._finish is not None

    @property
    def finish_reason(self) -> FinishReason:
        """The last finish fed, or ``stop`` when none was (spec:
        stream.assembler.missing-finish-is-stop)."""
        return self._finish if self._finish is not None else FinishReason.stop()

    @property
    def usage(self) -> TokenUsage | None:
        """The last usage fed, or ``None``."""
        return self._usage

    def feed_all(self, chunks: Iterable[StreamChunk]) -> BlockAssembler:
        """Feed every chunk of ``chunks``; returns ``self``."""
        if isinstance(chunks, (str, bytes)) or not isinstance(chunks, Iterable):
            raise InvalidArgument(f"chunks must be an iterable, got {type(chunks).__name__}")
        for chunk in chunks:
            self.feed(chunk)
        return self

    def feed(self, chunk: StreamChunk) -> None:
        """Fold one chunk (after the contract check, in strict mode)."""
        self._check_not_failed()
        if not is_chunk(chunk):
            raise InvalidArgument(f"expected a StreamChunk, got {type(chunk).__name__}")
        try:
            if self._checker is not None:  # spec: stream.assembler.strict
                found = self._checker.feed(chunk)
                if found:
                    raise violation_error(found[0])
            self._fold(chunk)
        except StreamError as exc:
            self._failed = exc
            raise

    def _check_not_failed(self) -> None:
        """spec: stream.assembler.failed-stays-failed"""
        if self._failed is not None:
            raise type(self._failed)(f"the assembler failed earlier: {self._failed.message}",
                                     code=self._failed.code, **self._failed.details)

    def _fold(self, chunk: StreamChunk) -> None:
        match chunk:
            case UsageChunk():  # spec: stream.assembler.folds-everything -- the last wins
                self._usage = chunk.usage
            case FinishChunk():
                self._finish = chunk.reason
            case BlockStart():
                self._slot(chunk.index, chunk.block_type)
            case TextDelta() | ReasoningDelta():
                slot = self._slot(chunk.index, _TEXT if type(chunk) is TextDelta else _REASONING)
                # spec: stream.assembler.deltas-by-block-type (module constants and identity
                # tests: an enum's attribute and hash are Python calls, on the fold's hot path)
                if slot is not None and (slot.block_type is _TEXT
                                         or slot.block_type is _REASONING):
                    slot.parts.append(chunk.text)
            case ToolCallDelta():
                slot = self._slot(chunk.index, _TOOL_CALL)
                if slot is None:
                    return
                _raw_json(chunk.arguments_delta, "argumentsDelta")
                if slot.block_type is _TOOL_CALL:
                    slot.call_id = chunk.id  # the last delta's id
                    if chunk.name:  # the last non-empty name
                        slot.name = chunk.name
                    slot.parts.append(chunk.arguments_delta)  # never parsed
            case BlockEnd():
                slot = self._slot(chunk.index, chunk.block.type)
                if slot is None:
                    return
                if isinstance(chunk.block, ToolCallBlock):
                    _raw_json(chunk.block.arguments, "block-end tool-call arguments")
                slot.ended = chunk.block  # spec: stream.assembler.first-block-end-wins
                slot.parts = []
            case _:
                assert_never(chunk)

    def _slot(self, index: float, block_type: BlockType) -> _Slot | None:
        """The open slot at ``index`` (opened if unseen), or ``None`` for a straggler."""
        if not is_valid_index(index):  # spec: stream.assembler.type-errors
            raise AssemblerError(f"index {index!r} is not a non-negative integer",
                                 code=Rule.INDEX_NON_NEGATIVE_INTEGER.value)
        key = int(index)
        slot = self._slots.get(key)
        if slot is None:  # spec: stream.assembler.delta-only
            slot = self._slots[key] = _Slot(index=key, block_type=block_type)
        return None if slot.ended is not None else slot

    def open_block_type(self, index: int) -> BlockType | None:
        """The type of the open block at ``index`` (seen and not yet ended), or ``None`` when
        the index was never seen or its block has ended. Right after a ``text-delta`` was fed,
        ``BlockType.TEXT`` here means the delta's text was appended to a text block: what the
        stream collector may deliver (spec: deltas.collect-text)."""
        if not is_valid_index(index):  # spec: errors.invalid-argument
            raise InvalidArgument(f"index {index!r} is not a non-negative integer")
        slot = self._slots.get(int(index))
        return None if slot is None or slot.ended is not None else slot.block_type

    def blocks(self) -> tuple[ContentBlock, ...]:
        """The blocks so far, in first-seen index order, without the tool calls of a
        ``max-tokens`` finish (spec: stream.assembler.max-tokens-drops-tool-calls)."""
        self._check_not_failed()
        drop_calls = self._finish is not None and self._finish.kind is FinishKind.MAX_TOKENS
        out = []
        for slot in self._slots.values():  # spec: stream.assembler.first-seen-order
            block = slot.block()
            if block is None or (drop_calls and isinstance(block, ToolCallBlock)):
                continue
            out.append(block)
        return tuple(out)

    def interrupted_blocks(self) -> tuple[ContentBlock, ...]:
        """The prefix safe to keep after a cancellation: the text and reasoning blocks, ended or
        open, whose text is not blank, in first-seen order; never a tool call, which would need
        a fabricated result (spec: stream.assembler.interrupted)."""
        self._check_not_failed()
        out = []
        for slot in self._slots.values():
            block = slot.block()
            if isinstance(block, (TextBlock, ReasoningBlock)) and not is_blank(block.text):
                out.append(block)
        return tuple(out)

    def message(self) -> Message:
        """The assistant message over :meth:`blocks`. In strict mode a stream without its
        finish raises ``stream.single-finish``, as ``enforce`` would at its end."""
        self._check_not_failed()
        if self._checker is not None and not self._checker.finished:
            found = self._checker.close()
            raise violation_error(found[0])
        return Message(role=Role.ASSISTANT, content=self.blocks())

    def result(self) -> AssembledStream:
        """Message, finish reason, usage and the interrupted prefix."""
        message = self.message()
        return AssembledStream(message=message, finish=self.finish_reason, usage=self._usage,
                               interrupted=self.interrupted_blocks())


def _raw_json(value: object, what: str) -> None:
    """spec: stream.assembler.type-errors -- arguments no fold can concatenate."""
    if not isinstance(value, str):
        raise AssemblerError(f"{what} is a {type(value).__name__}, not a string",
                             code=Rule.TOOL_ARGUMENTS_RAW_JSON.value)


def assemble(chunks: Iterable[StreamChunk], *, strict: bool = False) -> AssembledStream:
    """Fold a whole stream (spec: stream.assembler); ``strict`` checks the contract first."""
    return BlockAssembler(strict=strict).feed_all(chunks).result()
