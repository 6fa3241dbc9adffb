"""Maps OpenAI-compatible ``chat.completion.chunk`` payloads onto the chunk protocol.

Rules (``spec/stream.md`` § The OpenAI-compatible adapter):

- Usage and finish are deferred to the end of the provider's stream, so a usage-only chunk that
  arrives after the one carrying ``finish_reason`` is still emitted before ``finish`` (seed 001:
  "Defer both to the provider's end-of-stream marker"). (spec: stream.openai.defer-usage-and-finish)
- Usage the provider never sent is absent — no usage chunk — never zeros.
  (spec: stream.usage.absent-not-zero)
- ``prompt_tokens_details.cached_tokens`` (or DeepSeek's ``prompt_cache_hit_tokens``) is
  subtracted out of ``inputTokens`` and reported as ``cacheReadTokens``; ``outputTokens`` is
  ``completion_tokens`` whole, ``completion_tokens_details.reasoning_tokens`` a breakdown of it
  (spec: stream.openai.disjoint-usage, stream.usage.reasoning-breakdown).
- A stream that ends without a ``finish_reason`` ends in ``finish error``, never ``stop``; its
  blocks are left open (an interrupted reply). (spec: stream.openai.no-finish-reason-is-error)
- ``finish_reason`` maps as dsh-llm maps it (spec: stream.openai.finish-reason), and
  ``function_call`` to tool-calls (spec: stream.openai.function-call); an in-band ``error``
  payload ends the stream in ``finish error`` (spec: stream.openai.in-band-error).
- A usage report is checked before it is mapped: a missing or inconsistent one is ignored
  (spec: stream.openai.usage-checked).
- Each provider tool-call index gets its own protocol index, so parallel calls never mix; the
  call's id and name are taken once — a resent id or name is not concatenated.
  (spec: stream.openai.tool-call-identity); a call without an id keeps ``call-<protocol index>``
  (spec: stream.openai.call-id).
- Text and reasoning fold in the order sent, reasoning first within a delta (spec:
  stream.openai.text-and-reasoning). They open a block on their first non-empty fragment; a
  change of kind, or a call's first fragment, closes the current text or reasoning block.
  Tool-call blocks stay open until the end. On a normal finish every open block is closed with
  its assembled block (spec: stream.openai.block-layout).
- Arguments a provider hands back as a parsed object are re-stringified
  (spec: stream.openai.parsed-arguments), as ``JSON.stringify`` writes them
  (spec: stream.openai.restringify-form).
- A stream that ends ``stop`` (or with no ``finish_reason``) without having opened a block ends
  in ``finish error`` (``stream.provider.empty-response``), as dsh-llm's ``EMPTY_RESPONSE``:
  an empty message would end the turn with nothing to act on (spec: stream.openai.empty-response).
- :func:`map_event_stream` is the whole pure path from the response body's text to chunks:
  server-sent events decoded per WHATWG (spec: stream.openai.sse), ``data: [DONE]`` as the
  end-of-stream marker (ASCII whitespace around it stripped, spec: stream.openai.done-whitespace;
  the body's end ends the stream too, spec: stream.openai.end-of-body), each other event's data
  parsed as JSON (spec: stream.openai.json-payload) that must be an object (spec:
  stream.openai.object-payload), and mapped.
"""

from __future__ import annotations

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
from loom_ref.stream.finish import FinishKind, FinishReason
from loom_ref.stream.json_text import compact, loads
from loom_ref.stream.sse import SseDecoder
from loom_ref.stream.usage import TokenUsage

__all__ = [
    "CONTENT_FILTER",
    "EMPTY_RESPONSE",
    "IN_BAND_ERROR",
    "MALFORMED_EVENT",
    "NO_FINISH_REASON",
    "UNKNOWN_FINISH_REASON",
    "ChatCompletionsMapper",
    "map_event_stream",
    "map_finish_reason",
    "map_usage",
]

MALFORMED_EVENT = "stream.provider.malformed-event"
NO_FINISH_REASON = "stream.provider.no-finish-reason"
IN_BAND_ERROR = "stream.provider.in-band-error"
CONTENT_FILTER = "stream.provider.content-filter"
UNKNOWN_FINISH_REASON = "stream.provider.unknown-finish-reason"
EMPTY_RESPONSE = "stream.provider.empty-response"


def map_finish_reason(value: str) -> FinishReason:
    """``stop``→stop, ``tool_calls``/``function_call``→tool-calls, ``length``→max-tokens;
    ``content_filter`` and anything unknown → error (fail closed)."""
    match value:
        case "stop":
            return FinishReason.stop()
        case "tool_calls" | "function_call":
            return FinishReason.tool_calls()
        case "length":
            return FinishReason.max_tokens()
        case "content_filter":
            return FinishReason.error(
                "the provider's content filter stopped the reply", CONTENT_FILTER
            )
        case _:
            return FinishReason.error(f"unknown finish_reason {value!r}", UNKNOWN_FINISH_REASON)


def _count(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def map_usage(raw: object) -> TokenUsage | None:
    """The provider's usage as disjoint counts, or ``None`` if it is absent or malformed.

    spec: stream.openai.disjoint-usage — "Adapters whose providers fold cache hits into a single
    prompt total ... subtract them back out"; reasoning stays inside ``outputTokens``
    (spec: stream.usage.reasoning-breakdown), as dsh-llm's DeepSeek adapter reports it.
    """
    if not isinstance(raw, Mapping):
        return None
    prompt = _count(raw.get("prompt_tokens"))
    completion = _count(raw.get("completion_tokens"))
    if prompt is None or completion is None:
        return None
    prompt_details = raw.get("prompt_tokens_details")
    cached = (
        _count(prompt_details.get("cached_tokens")) if isinstance(prompt_details, Mapping) else None
    )
    if cached is None:
        cached = _count(raw.get("prompt_cache_hit_tokens"))  # DeepSeek's spelling
    completion_details = raw.get("completion_tokens_details")
    reasoning = (
        _count(completion_details.get("reasoning_tokens"))
        if isinstance(completion_details, Mapping)
        else None
    )
    if (cached or 0) > prompt or (reasoning or 0) > completion:
        return None  # inconsistent: report nothing rather than a wrong count
    return TokenUsage(
        input_tokens=prompt - (cached or 0),
        output_tokens=completion,  # reasoning included: reasoning_tokens is a breakdown
        cache_read_tokens=cached,
        reasoning_tokens=reasoning,
    )


def _first_choice(choice: Mapping[str, Any]) -> bool:
    """spec: stream.openai.payload -- the choice whose ``index`` is the number 0 (absent is 0;
    a boolean is not a number, so ``false`` is not 0)."""
    index = choice.get("index", 0)
    return not isinstance(index, bool) and isinstance(index, int | float) and index == 0


@attrs.define
class _Open:
    index: int
    block_type: BlockType
    parts: list[str] = attrs.field(factory=list)
    call_id: str = ""
    name: str | None = None

    def block(self) -> ContentBlock:
        text = "".join(self.parts)
        if self.block_type is BlockType.TEXT:
            return TextBlock(text=text)
        if self.block_type is BlockType.REASONING:
            return ReasoningBlock(text=text)
        return ToolCallBlock(id=self.call_id, name=self.name or "", arguments=text)


class ChatCompletionsMapper:
    """Feed each decoded SSE payload to :meth:`feed`; call :meth:`end` at end of stream.
    (spec: stream.openai.sse)
    """

    def __init__(self) -> None:
        self._next_index = 0
        self._open: dict[int, _Open] = {}
        self._current: _Open | None = None  # the open text or reasoning block
        self._tools: dict[int, _Open] = {}
        self._finish: FinishReason | None = None
        self._error: FinishReason | None = None
        self._usage: TokenUsage | None = None
        self._ended = False

    def feed(self, payload: object) -> list[StreamChunk]:
        """Map one ``chat.completion.chunk`` payload; usage and finish are only recorded.

        spec: stream.openai.payload -- the order it reads a payload in (error, usage, the
        index-0 choice's delta: reasoning, content, tool calls; then its finish_reason)."""
        if not isinstance(payload, Mapping):
            raise ProviderError("an event's data is not a JSON object", code=MALFORMED_EVENT)
        out: list[StreamChunk] = []
        error = payload.get("error")
        if error:
            message = error.get("message") if isinstance(error, Mapping) else None
            if self._error is None:
                self._error = FinishReason.error(
                    message if isinstance(message, str) and message
                    else "the provider reported an error in the stream", IN_BAND_ERROR
                )
        if "usage" in payload:
            usage = map_usage(payload["usage"])
            if usage is not None:
                self._usage = usage  # the last report wins; emitted once, at the end
        choices = payload.get("choices")
        if not isinstance(choices, list):
            return out
        for choice in choices:
            if not isinstance(choice, Mapping) or not _first_choice(choice):
                continue
            delta = choice.get("delta")
            if isinstance(delta, Mapping):
                self._delta(delta, out)
            reason = choice.get("finish_reason")
            if isinstance(reason, str) and self._finish is None:
                self._finish = map_finish_reason(reason)
        return out

    def _start(self, block_type: BlockType, out: list[StreamChunk]) -> _Open:
        block = _Open(index=self._next_index, block_type=block_type)
        self._next_index += 1
        self._open[block.index] = block
        out.append(BlockStart(index=block.index, block_type=block_type))
        return block

    def _close_current(self, out: list[StreamChunk]) -> None:
        if self._current is not None:
            block = self._open.pop(self._current.index)
            out.append(BlockEnd(index=block.index, block=block.block()))
            self._current = None

    def _text_like(self, block_type: BlockType, text: str, out: list[StreamChunk]) -> None:
        if self._current is None or self._current.block_type is not block_type:
            self._close_current(out)
            self._current = self._start(block_type, out)
        self._current.parts.append(text)
        index = self._current.index
        if block_type is BlockType.TEXT:
            out.append(TextDelta(index=index, text=text))
        else:
            out.append(ReasoningDelta(index=index, text=text))

    def _delta(self, delta: Mapping[str, Any], out: list[StreamChunk]) -> None:
        reasoning = delta.get("reasoning_content")
        if not isinstance(reasoning, str) or not reasoning:
            reasoning = delta.get("reasoning")  # OpenRouter's spelling
        if isinstance(reasoning, str) and reasoning:
            self._text_like(BlockType.REASONING, reasoning, out)
        content = delta.get("content")
        if isinstance(content, str) and content:
            self._text_like(BlockType.TEXT, content, out)
        tool_calls = delta.get("tool_calls")
        if isinstance(tool_calls, list):
            for position, call in enumerate(tool_calls):
                if isinstance(call, Mapping):
                    self._tool_call(position, call, out)

    def _tool_call(self, position: int, call: Mapping[str, Any], out: list[StreamChunk]) -> None:
        # spec: stream.openai.tool-call-identity — one protocol index per provider index
        key = call.get("index")
        if isinstance(key, bool) or not isinstance(key, int):
            key = position
        function = call.get("function")
        function = function if isinstance(function, Mapping) else {}
        block = self._tools.get(key)
        first = block is None
        if block is None:
            self._close_current(out)
            block = self._tools[key] = self._start(BlockType.TOOL_CALL, out)
            call_id = call.get("id")
            # no id from the provider: a deterministic one, so replays agree
            block.call_id = (
                call_id if isinstance(call_id, str) and call_id else f"call-{block.index}"
            )
        # spec: stream.openai.tool-call-identity — a resent id or name is not concatenated
        new_name: str | None = None
        name = function.get("name")
        if block.name is None and isinstance(name, str) and name:
            block.name = new_name = name
        arguments = function.get("arguments")
        if arguments is not None and not isinstance(arguments, str):
            try:  # spec: stream.openai.restringify-form -- as JSON.stringify writes them
                arguments = compact(arguments)
            except (TypeError, ValueError) as exc:  # spec: errors.invalid-argument
                raise InvalidArgument(
                    f"a tool call's arguments are not JSON values: {exc}") from None
        fragment = arguments or ""
        if fragment or new_name is not None or first:
            block.parts.append(fragment)
            out.append(
                ToolCallDelta(
                    index=block.index, id=block.call_id, name=new_name, arguments_delta=fragment
                )
            )

    def end(self) -> list[StreamChunk]:
        """The end of the provider's stream: closing block-ends, then usage, then finish."""
        if self._ended:
            return []
        self._ended = True
        out: list[StreamChunk] = []
        reason = self._error or self._finish
        if self._error is None and self._next_index == 0 and (
                reason is None or reason.kind is FinishKind.STOP):
            # spec: stream.openai.empty-response -- dsh-llm's EMPTY_RESPONSE
            reason = FinishReason.error(
                "the provider completed a response with no content", EMPTY_RESPONSE)
        elif reason is None:
            # spec: stream.openai.no-finish-reason-is-error — "never stop"
            reason = FinishReason.error(
                "the provider's stream ended without a finish_reason", NO_FINISH_REASON
            )
        if not reason.failed:
            for block in list(self._open.values()):
                out.append(BlockEnd(index=block.index, block=block.block()))
            self._open.clear()
        # spec: stream.openai.defer-usage-and-finish — usage before finish
        if self._usage is not None:
            out.append(UsageChunk(usage=self._usage))
        out.append(FinishChunk(reason=reason))
        return out


#: What is stripped around ``[DONE]``: ASCII whitespace only (tab, LF, FF, CR, space), not
#: what ``str.strip`` or JavaScript's ``trim`` would add (U+0085, U+001C-U+001F, U+FEFF ...).
_SSE_WHITESPACE = " \t\n\f\r"


def map_event_stream(texts: Iterable[str]) -> Iterator[StreamChunk]:
    """Map a response body, given as text pieces of any size, onto protocol chunks.

    Events are decoded as server-sent events (spec: stream.openai.sse); ``data: [DONE]`` ends
    the stream, as does the end of ``texts`` (the connection closing); either way the deferred
    block-ends, usage and finish follow (spec: stream.openai.defer-usage-and-finish). An event
    whose data is not JSON raises ``stream.provider.malformed-event``.
    """
    if not isinstance(texts, Iterable):  # spec: errors.invalid-argument
        raise InvalidArgument(f"texts must be an iterable of str, got {type(texts).__name__}")
    decoder = SseDecoder()
    mapper = ChatCompletionsMapper()
    for text in texts:
        for event in decoder.feed(text):
            if event.data.strip(_SSE_WHITESPACE) == "[DONE]":  # spec: stream.openai.sse
                yield from mapper.end()  # the provider's end-of-stream marker
                return
            try:  # spec: stream.openai.json-payload
                payload = loads(event.data)
            except ValueError as error:
                raise ProviderError(
                    f"an event's data is not JSON: {error}", code=MALFORMED_EVENT
                ) from error
            yield from mapper.feed(payload)
    yield from mapper.end()  # the connection closed
