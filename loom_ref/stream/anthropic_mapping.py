"""Maps an Anthropic Messages streaming body onto the chunk protocol.

Rules (``spec/stream.md`` § The Anthropic Messages adapter):

- The body is bytes cut anywhere: decoded as UTF-8 incrementally (a character split between
  two pieces is one character; an invalid sequence is U+FFFD), then read as server-sent events
  as the OpenAI mapping reads them (spec: stream.openai.sse), except that the end of the body
  also ends its last event when that event's lines all ended (spec: stream.anthropic.sse).
- Each event is dispatched on its data's ``type`` (spec: stream.anthropic.events):
  ``message_start`` (usage), ``content_block_start`` / ``_delta`` / ``_stop`` (blocks),
  ``message_delta`` (stop reason, usage), ``message_stop`` (the end: nothing after it is
  read), ``ping`` and unknown types (ignored), ``error`` (the in-band error: the stream ends in
  ``finish error``, never a raise: the second sanctioned error path).
- ``text`` blocks are text blocks, ``thinking`` blocks reasoning blocks, ``tool_use`` blocks
  tool-call blocks whose arguments are the raw ``partial_json`` fragments; other block types
  (``redacted_thinking``, server tools) and ``signature_delta`` have no protocol form and are
  dropped (spec: stream.anthropic.blocks). Each provider block gets its own protocol index,
  in the order the blocks start.
- Stop reasons map to finish kinds (spec: stream.anthropic.stop-reason); usage is disjoint
  already (``input_tokens`` excludes the cache) and is updated by each ``message_delta``
  (spec: stream.anthropic.usage). Usage and finish are deferred to the end of the stream.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import attrs

from loom_ref.errors import InvalidArgument
from loom_ref.stream.blocks import BlockType, ContentBlock, ReasoningBlock, TextBlock, ToolCallBlock
from loom_ref.stream.chunks import (
    BlockEnd,
    BlockStart,
    FinishChunk,
    ReasoningDelta,
    StreamChunk,
    TextDelta,
    ToolCallDelta,
    UsageChunk,
)
from loom_ref.stream.errors import ProviderError
from loom_ref.stream.finish import FinishReason
from loom_ref.stream.json_text import compact, loads
from loom_ref.stream.openai_mapping import (
    CONTENT_FILTER,
    IN_BAND_ERROR,
    MALFORMED_EVENT,
    NO_FINISH_REASON,
    UNKNOWN_FINISH_REASON,
)
from loom_ref.stream.sse import SseDecoder
from loom_ref.stream.usage import TokenUsage

__all__ = ["MessagesStreamMapper", "map_messages_stream", "map_stop_reason"]

#: Block types with a protocol form (spec: stream.anthropic.blocks).
_BLOCK_TYPES = {"text": BlockType.TEXT, "thinking": BlockType.REASONING,
                "tool_use": BlockType.TOOL_CALL}
#: The delta type each block takes, and the member holding its fragment.
_DELTAS = {BlockType.TEXT: ("text_delta", "text"),
           BlockType.REASONING: ("thinking_delta", "thinking"),
           BlockType.TOOL_CALL: ("input_json_delta", "partial_json")}
#: The usage members: the provider's name -> TokenUsage's field (spec: stream.anthropic.usage).
_USAGE = {"input_tokens": "input_tokens", "output_tokens": "output_tokens",
          "cache_read_input_tokens": "cache_read_tokens",
          "cache_creation_input_tokens": "cache_write_tokens"}


def map_stop_reason(value: str) -> FinishReason:
    """spec: stream.anthropic.stop-reason -- ``end_turn`` and ``stop_sequence`` -> stop,
    ``tool_use`` -> tool-calls, ``max_tokens`` and ``model_context_window_exceeded`` ->
    max-tokens, ``refusal`` -> error (content filter), anything else -> error (fail closed)."""
    match value:
        case "end_turn" | "stop_sequence":
            return FinishReason.stop()
        case "tool_use":
            return FinishReason.tool_calls()
        case "max_tokens" | "model_context_window_exceeded":
            return FinishReason.max_tokens()
        case "refusal":
            return FinishReason.error("the provider refused to continue the reply", CONTENT_FILTER)
        case _:
            return FinishReason.error(f"unknown stop_reason {value!r}", UNKNOWN_FINISH_REASON)


def _count(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


@attrs.define
class _Block:
    index: int
    block_type: BlockType
    parts: list[str] = attrs.field(factory=list)
    call_id: str = ""
    name: str = ""
    input_json: str = "{}"  # a tool_use's start ``input``, for a call no fragment completed

    def block(self) -> ContentBlock:
        text = "".join(self.parts)
        if self.block_type is BlockType.TEXT:
            return TextBlock(text=text)
        if self.block_type is BlockType.REASONING:
            return ReasoningBlock(text=text)
        return ToolCallBlock(id=self.call_id, name=self.name, arguments=text)


class MessagesStreamMapper:
    """Feed each event's payload to :meth:`feed` until :attr:`ended`; then :meth:`end`.
    (spec: stream.anthropic.events)
    """

    def __init__(self) -> None:
        self._next_index = 0
        self._blocks: dict[int, _Block | None] = {}  # provider index -> open block (None: done)
        self._usage: dict[str, int] = {}
        self._stop: FinishReason | None = None
        self._error: FinishReason | None = None
        self.ended = False  # message_stop or an error event: the provider's stream is over

    def feed(self, payload: object) -> list[StreamChunk]:
        """Map one event's data (a JSON object); spec: stream.anthropic.events."""
        if not isinstance(payload, Mapping):
            raise ProviderError("an event's data is not a JSON object", code=MALFORMED_EVENT)
        if self.ended:  # a Python caller feeding past the end: nothing after it is read
            return []
        out: list[StreamChunk] = []
        kind = payload.get("type")
        if kind == "message_start":
            message = payload.get("message")
            if isinstance(message, Mapping):
                self._update_usage(message.get("usage"))
        elif kind == "content_block_start":
            self._block_start(payload, out)
        elif kind == "content_block_delta":
            self._block_delta(payload, out)
        elif kind == "content_block_stop":
            self._block_stop(payload.get("index"), out)
        elif kind == "message_delta":
            delta = payload.get("delta")
            reason = delta.get("stop_reason") if isinstance(delta, Mapping) else None
            if isinstance(reason, str):
                self._stop = map_stop_reason(reason)  # the last one wins
            self._update_usage(payload.get("usage"))
        elif kind == "message_stop":
            self.ended = True
        elif kind == "error":
            error = payload.get("error")
            message = error.get("message") if isinstance(error, Mapping) else None
            self._error = FinishReason.error(
                message if isinstance(message, str) and message else "the provider reported "
                "an error in the stream", IN_BAND_ERROR)
            self.ended = True
        return out  # ping and unknown types: nothing

    def _update_usage(self, raw: object) -> None:
        """spec: stream.anthropic.usage -- each reported count replaces the one before."""
        if not isinstance(raw, Mapping):
            return
        for member in _USAGE:
            value = _count(raw.get(member))
            if value is not None:
                self._usage[member] = value

    def _block_start(self, payload: Mapping[str, Any], out: list[StreamChunk]) -> None:
        key, block = _count(payload.get("index")), payload.get("content_block")
        if key is None or key in self._blocks or not isinstance(block, Mapping):
            return  # the first start of an index wins
        block_type = _BLOCK_TYPES.get(str(block.get("type")))
        if block_type is None:
            self._blocks[key] = None  # no protocol form: its deltas and stop are dropped
            return
        opened = self._blocks[key] = _Block(index=self._next_index, block_type=block_type)
        self._next_index += 1
        out.append(BlockStart(index=opened.index, block_type=block_type))
        if block_type is BlockType.TOOL_CALL:
            call_id, name = block.get("id"), block.get("name")
            opened.call_id = call_id if isinstance(call_id, str) and call_id else (
                f"call-{opened.index}")
            opened.name = name if isinstance(name, str) else ""
            start_input = block.get("input")
            if isinstance(start_input, Mapping):  # spec: stream.anthropic.blocks -- an object
                opened.input_json = compact(start_input)  # as JSON.stringify writes it
            # the call's first delta carries its id and name, with an empty fragment
            out.append(ToolCallDelta(index=opened.index, id=opened.call_id,
                                     name=opened.name or None, arguments_delta=""))
        else:
            self._fragment(opened, block.get(_DELTAS[block_type][1]), out)

    def _block_delta(self, payload: Mapping[str, Any], out: list[StreamChunk]) -> None:
        key, delta = _count(payload.get("index")), payload.get("delta")
        opened = self._blocks.get(key) if key is not None else None
        if opened is None or not isinstance(delta, Mapping):
            return  # an unknown, dropped or stopped block
        kind, member = _DELTAS[opened.block_type]
        if delta.get("type") == kind:  # signature_delta and mismatched deltas: nothing
            self._fragment(opened, delta.get(member), out)

    @staticmethod
    def _fragment(opened: _Block, fragment: object, out: list[StreamChunk]) -> None:
        if not isinstance(fragment, str) or not fragment:
            return  # an empty fragment (input_json_delta's first) gives no delta
        opened.parts.append(fragment)
        if opened.block_type is BlockType.TEXT:
            out.append(TextDelta(index=opened.index, text=fragment))
        elif opened.block_type is BlockType.REASONING:
            out.append(ReasoningDelta(index=opened.index, text=fragment))
        else:
            out.append(ToolCallDelta(index=opened.index, id=opened.call_id,
                                     arguments_delta=fragment))

    def _block_stop(self, raw_index: object, out: list[StreamChunk]) -> None:
        key = _count(raw_index)
        if key is None:
            return
        opened = self._blocks.get(key)
        if opened is None:
            return
        self._blocks[key] = None
        if opened.block_type is BlockType.TOOL_CALL and not opened.parts:
            # no fragment: the arguments are the start's input (``{}`` for none)
            opened.parts.append(opened.input_json)
            out.append(ToolCallDelta(index=opened.index, id=opened.call_id,
                                     arguments_delta=opened.input_json))
        out.append(BlockEnd(index=opened.index, block=opened.block()))

    def end(self) -> list[StreamChunk]:
        """The end of the provider's stream: closing block-ends (a normal finish), usage,
        finish (spec: stream.anthropic.events)."""
        out: list[StreamChunk] = []
        reason = self._error or self._stop
        if reason is None:
            reason = FinishReason.error("the provider's stream ended without a stop_reason",
                                        NO_FINISH_REASON)
        if not reason.failed:  # a normal finish closes every open block, in index order
            still_open = sorted((b.index, k) for k, b in self._blocks.items() if b is not None)
            for _, key in still_open:
                self._block_stop(key, out)
        usage = self.usage()
        if usage is not None:
            out.append(UsageChunk(usage=usage))
        out.append(FinishChunk(reason=reason))
        return out

    def usage(self) -> TokenUsage | None:
        """The usage so far, or ``None`` until both totals were reported."""
        if "input_tokens" not in self._usage or "output_tokens" not in self._usage:
            return None
        return TokenUsage(**{_USAGE[k]: v for k, v in self._usage.items()})


def map_messages_stream(pieces: Iterable[bytes]) -> Iterator[StreamChunk]:
    """Map a Messages streaming body, in pieces of bytes cut anywhere, onto chunks.

    spec: stream.anthropic.sse -- UTF-8 decoded incrementally, server-sent events read as the
    OpenAI mapping reads them, the body's end ending its last event. An event whose data is not
    a JSON object raises ``stream.provider.malformed-event``.
    """
    if isinstance(pieces, (str, bytes)) or not isinstance(pieces, Iterable):
        raise InvalidArgument(f"pieces must be an iterable of bytes, got {type(pieces).__name__}")
    utf8 = codecs.getincrementaldecoder("utf-8")("replace")
    decoder = SseDecoder()
    mapper = MessagesStreamMapper()

    def events(text: str, last: bool) -> Iterator[StreamChunk]:
        found = decoder.feed(text)
        if last:
            final = decoder.close()
            found += [final] if final is not None else []
        for event in found:
            try:  # spec: stream.openai.json-payload, as the OpenAI mapping reads it
                payload = loads(event.data)
            except ValueError as error:
                raise ProviderError(f"an event's data is not JSON: {error}",
                                    code=MALFORMED_EVENT) from error
            yield from mapper.feed(payload)
            if mapper.ended:
                return

    for piece in pieces:
        if not isinstance(piece, bytes | bytearray):
            raise InvalidArgument(f"a piece must be bytes, got {type(piece).__name__}")
        yield from events(utf8.decode(piece), last=False)
        if mapper.ended:
            break
    else:
        yield from events(utf8.decode(b"", final=True), last=True)
    yield from mapper.end()
