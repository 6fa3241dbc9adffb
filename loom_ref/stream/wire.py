"""The JSON wire form of chunks, blocks, messages, usage and finish reasons.

Rules (``spec/stream.md`` § Wire form):

- Field names are camelCase exactly as the seed's TypeScript (``blockType``,
  ``argumentsDelta``, ``inputTokens`` ...); optional fields are omitted when absent, never
  ``null``. (spec: stream.wire.camel-case)
- Decoding is strict about *shape*: an unknown ``type``/``kind``/``role``, a missing or unknown
  field, or a value of the wrong JSON type raises :class:`~loom_ref.stream.errors.WireError`
  with a stable ``stream.wire.*`` code and the path of the bad value, never ``KeyError`` or
  ``TypeError``. (spec: stream.wire.malformed)
- Decoding is lenient about the two things the contract checker judges, so that a stream which
  breaks them still decodes and the checker can name the rule: ``index`` may be any JSON number
  (an integral float becomes an int) and ``argumentsDelta``/``arguments`` may be any JSON value.
  (spec: stream.wire.checker-owned-values)
- Every member of a chunk's form is required but a tool-call delta's ``name``: its ``id`` is
  always there. (spec: stream.chunks.required)
- Where a value breaks several rules, the first failing check wins, in a fixed order: members in
  the order the spec's tables list them (presence, JSON type, variant, value, nested objects
  decoded in place), then unknown members, then cross-member rules, then array items in order.
  (spec: stream.wire.check-order)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar, assert_never, cast

from loom_ref.errors import InvalidArgument
from loom_ref.stream.blocks import (
    BLOCK_CLASSES,
    BlockType,
    ContentBlock,
    Message,
    ReasoningBlock,
    Role,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from loom_ref.stream.chunks import (
    BlockEnd,
    BlockStart,
    ChunkType,
    FinishChunk,
    ReasoningDelta,
    StreamChunk,
    TextDelta,
    ToolCallDelta,
    UsageChunk,
    is_chunk,
)
from loom_ref.stream.errors import WireError
from loom_ref.stream.finish import FAILED_KINDS, Failure, FinishKind, FinishReason
from loom_ref.stream.usage import TokenUsage

__all__ = [
    "WIRE_CODES",
    "assemble_input_from_json",
    "block_from_json",
    "block_to_json",
    "chunk_from_json",
    "chunk_list_input_from_json",
    "chunk_to_json",
    "chunks_from_json",
    "chunks_to_json",
    "finish_reason_from_json",
    "finish_reason_to_json",
    "message_from_json",
    "message_to_json",
    "usage_from_json",
    "usage_to_json",
]

NOT_AN_OBJECT = "stream.wire.not-an-object"
NOT_A_LIST = "stream.wire.not-a-list"
MISSING_FIELD = "stream.wire.missing-field"
UNKNOWN_FIELD = "stream.wire.unknown-field"
FIELD_TYPE = "stream.wire.field-type"
UNKNOWN_VARIANT = "stream.wire.unknown-variant"
BAD_VALUE = "stream.wire.bad-value"

WIRE_CODES = (
    NOT_AN_OBJECT,
    NOT_A_LIST,
    MISSING_FIELD,
    UNKNOWN_FIELD,
    FIELD_TYPE,
    UNKNOWN_VARIANT,
    BAD_VALUE,
)
"""Every code the decoder raises (spec: stream.wire.malformed)."""

_T = TypeVar("_T")
_MISSING = object()


class _Object:
    """Reads the fields of one JSON object, remembering which were read.

    spec: stream.wire.check-order — a reader calls :meth:`get` for each member in the order the
    object's form lists them (discriminator first; a nested object is decoded completely inside
    its ``get``), then :meth:`done` for the unknown members, then its cross-member checks, and
    only then decodes the items of its array members.
    """

    def __init__(self, value: object, path: str) -> None:
        if not isinstance(value, Mapping):
            raise WireError(
                f"expected an object, got {_json_type(value)}", code=NOT_AN_OBJECT, path=path
            )
        self.value = value
        self.path = path
        self.read: set[str] = set()

    def get(self, name: str, check: Callable[[object, str], _T], *, optional: bool = False) -> Any:
        self.read.add(name)
        value = self.value.get(name, _MISSING)
        where = f"{self.path}.{name}"
        if value is _MISSING:
            if optional:
                return None
            raise WireError(f"missing field {name!r}", code=MISSING_FIELD, path=where)
        return check(value, where)

    def done(self) -> None:
        extra = sorted(str(k) for k in self.value if k not in self.read)
        if extra:
            raise WireError(
                f"unknown field(s) {', '.join(map(repr, extra))}",
                code=UNKNOWN_FIELD,
                path=self.path,
                fields=extra,
            )


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, (list, tuple)):
        return "array"
    return type(value).__name__


def _string(value: object, path: str) -> str:
    if not isinstance(value, str):
        raise WireError(f"expected a string, got {_json_type(value)}", code=FIELD_TYPE, path=path)
    return value


def _boolean(value: object, path: str) -> bool:
    if not isinstance(value, bool):
        raise WireError(f"expected a boolean, got {_json_type(value)}", code=FIELD_TYPE, path=path)
    return value


def _number(value: object, path: str) -> int:
    """spec: stream.wire.checker-owned-values — any JSON number; integral floats become ints."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise WireError(f"expected a number, got {_json_type(value)}", code=FIELD_TYPE, path=path)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return cast(int, value)  # a non-integral index is kept for the checker to name


def _count(value: object, path: str) -> int:
    number = _number(value, path)
    if not isinstance(number, int) or number < 0:
        raise WireError(
            f"expected a non-negative integer, got {value!r}", code=BAD_VALUE, path=path
        )
    return number


def _any(value: object, path: str) -> Any:
    return value


def _variant(enum_type: type[_T], label: str) -> Callable[[object, str], _T]:
    def read(value: object, path: str) -> _T:
        text = _string(value, path)
        try:
            return enum_type(text)  # type: ignore[call-arg]
        except ValueError:
            raise WireError(f"unknown {label} {text!r}", code=UNKNOWN_VARIANT, path=path) from None

    return read


_block_type = _variant(BlockType, "block type")
_chunk_type = _variant(ChunkType, "chunk type")
_finish_kind = _variant(FinishKind, "finish kind")
_role = _variant(Role, "role")


def _not_a(what: str, value: object) -> InvalidArgument:
    """spec: errors.invalid-argument -- an encoder given something that is not its record."""
    return InvalidArgument(f"expected a {what}, got {type(value).__name__}")


# --- usage -----------------------------------------------------------------------------------

_USAGE_OPTIONAL = (
    ("cacheReadTokens", "cache_read_tokens"),
    ("cacheWriteTokens", "cache_write_tokens"),
    ("reasoningTokens", "reasoning_tokens"),
)


def usage_to_json(usage: TokenUsage) -> dict[str, Any]:
    """``{"inputTokens", "outputTokens", "cacheReadTokens"?, "cacheWriteTokens"?,
    "reasoningTokens"?}``; absent counts are omitted, never written as 0 or null.
    (spec: stream.wire)"""
    if not isinstance(usage, TokenUsage):
        raise _not_a("TokenUsage", usage)
    out: dict[str, Any] = {"inputTokens": usage.input_tokens, "outputTokens": usage.output_tokens}
    for wire_name, attr in _USAGE_OPTIONAL:
        value = getattr(usage, attr)
        if value is not None:
            out[wire_name] = value
    return out


def usage_from_json(value: object, path: str = "$") -> TokenUsage:
    """The ``TokenUsage`` of a usage wire form; malformed JSON raises the ``stream.wire.*``
    :class:`WireError` naming ``path`` (spec: stream.wire, stream.wire.malformed)."""
    obj = _Object(value, path)
    fields = {
        "input_tokens": obj.get("inputTokens", _count),
        "output_tokens": obj.get("outputTokens", _count),
    }
    for wire_name, attr in _USAGE_OPTIONAL:
        fields[attr] = obj.get(wire_name, _count, optional=True)
    obj.done()
    return TokenUsage(**fields)


# --- finish reason ---------------------------------------------------------------------------


def finish_reason_to_json(reason: FinishReason) -> dict[str, Any]:
    """``{"kind": ...}`` plus ``"failure": {"message", "code"?}`` for error and aborted.
    (spec: stream.wire)
    """
    if not isinstance(reason, FinishReason):
        raise _not_a("FinishReason", reason)
    out: dict[str, Any] = {"kind": reason.kind.value}
    if reason.failure is not None:
        failure: dict[str, Any] = {"message": reason.failure.message}
        if reason.failure.code is not None:
            failure["code"] = reason.failure.code
        out["failure"] = failure
    return out


def _failure(value: object, path: str) -> Failure:
    obj = _Object(value, path)
    message = obj.get("message", _string)
    code = obj.get("code", _string, optional=True)
    obj.done()
    return Failure(message=message, code=code)


def finish_reason_from_json(value: object, path: str = "$") -> FinishReason:
    """The ``FinishReason`` of a finish wire form; malformed JSON raises the ``stream.wire.*``
    :class:`WireError` naming ``path`` (spec: stream.wire, stream.wire.malformed)."""
    obj = _Object(value, path)
    kind = obj.get("kind", _finish_kind)
    failure = obj.get("failure", _failure, optional=kind not in FAILED_KINDS)
    obj.done()
    # spec: stream.wire.check-order — the cross-member rule comes after the members and the
    # unknown-member check
    if kind not in FAILED_KINDS and failure is not None:
        raise WireError(
            f"a {kind.value} finish carries no failure", code=BAD_VALUE, path=f"{path}.failure"
        )
    return FinishReason(kind=kind, failure=failure)


# --- blocks and messages ---------------------------------------------------------------------


def block_to_json(block: ContentBlock) -> dict[str, Any]:
    """text/reasoning ``{type, text}``; tool-call ``{type, id, name, arguments}``;
    tool-result ``{type, callId, content, isError?}`` (``isError`` only when true).
    (spec: stream.wire)"""
    match block:
        case TextBlock() | ReasoningBlock():
            return {"type": block.type.value, "text": block.text}
        case ToolCallBlock():
            return {
                "type": block.type.value,
                "id": block.id,
                "name": block.name,
                "arguments": block.arguments,
            }
        case ToolResultBlock():
            out: dict[str, Any] = {
                "type": block.type.value,
                "callId": block.call_id,
                "content": block.content,
            }
            if block.is_error:
                out["isError"] = True
            return out
        case _:
            if not isinstance(block, BLOCK_CLASSES):
                raise _not_a("content block", block)
            assert_never(block)


def block_from_json(value: object, path: str = "$") -> ContentBlock:
    """The ``ContentBlock`` of a block wire form; malformed JSON raises the ``stream.wire.*``
    :class:`WireError` naming ``path`` (spec: stream.wire, stream.wire.malformed)."""
    obj = _Object(value, path)
    block_type: BlockType = obj.get("type", _block_type)
    block: ContentBlock
    match block_type:
        case BlockType.TEXT:
            block = TextBlock(text=obj.get("text", _string))
        case BlockType.REASONING:
            block = ReasoningBlock(text=obj.get("text", _string))
        case BlockType.TOOL_CALL:
            block = ToolCallBlock(
                id=obj.get("id", _string),
                name=obj.get("name", _string),
                arguments=obj.get("arguments", _any),  # spec: stream.wire.checker-owned-values
            )
        case BlockType.TOOL_RESULT:
            # spec: stream.wire.check-order — members in the table's order: callId, content,
            # isError
            call_id = obj.get("callId", _string)
            content = obj.get("content", _string)
            is_error = obj.get("isError", _boolean, optional=True)
            block = ToolResultBlock(call_id=call_id, content=content, is_error=bool(is_error))
        case _:
            assert_never(block_type)
    obj.done()
    return block


def message_to_json(message: Message) -> dict[str, Any]:
    """``{"role": ..., "content": [blocks]}`` (spec: stream.wire)."""
    if not isinstance(message, Message):
        raise _not_a("Message", message)
    return {"role": message.role.value, "content": [block_to_json(b) for b in message.content]}


def _list(value: object, path: str) -> Sequence[object]:
    if not isinstance(value, (list, tuple)):
        raise WireError(f"expected an array, got {_json_type(value)}", code=NOT_A_LIST, path=path)
    return value


def message_from_json(value: object, path: str = "$") -> Message:
    """The ``Message`` of a message wire form; malformed JSON raises the ``stream.wire.*``
    :class:`WireError` naming ``path`` (spec: stream.wire, stream.wire.malformed)."""
    obj = _Object(value, path)
    role = obj.get("role", _role)
    items = obj.get("content", _list)
    obj.done()
    # spec: stream.wire.check-order — an array member's items after the object's own checks
    content = [block_from_json(item, f"{path}.content[{i}]") for i, item in enumerate(items)]
    return Message(role=role, content=content)


# --- chunks ----------------------------------------------------------------------------------


def chunk_to_json(chunk: StreamChunk) -> dict[str, Any]:
    """The seed's TypeScript shape, e.g. ``{"type":"block-start","index":0,"blockType":"text"}``.
    (spec: stream.wire)
    """
    match chunk:
        case BlockStart():
            return {
                "type": chunk.type.value,
                "index": chunk.index,
                "blockType": chunk.block_type.value,
            }
        case TextDelta() | ReasoningDelta():
            return {"type": chunk.type.value, "index": chunk.index, "text": chunk.text}
        case ToolCallDelta():
            out: dict[str, Any] = {"type": chunk.type.value, "index": chunk.index, "id": chunk.id}
            if chunk.name is not None:
                out["name"] = chunk.name
            out["argumentsDelta"] = chunk.arguments_delta
            return out
        case BlockEnd():
            return {
                "type": chunk.type.value,
                "index": chunk.index,
                "block": block_to_json(chunk.block),
            }
        case UsageChunk():
            return {"type": chunk.type.value, "usage": usage_to_json(chunk.usage)}
        case FinishChunk():
            return {"type": chunk.type.value, "reason": finish_reason_to_json(chunk.reason)}
        case _:
            if not is_chunk(chunk):
                raise _not_a("StreamChunk", chunk)
            assert_never(chunk)


def chunk_from_json(value: object, path: str = "$") -> StreamChunk:
    """Decode one wire chunk; raises :class:`WireError` (spec: stream.wire.malformed)."""
    obj = _Object(value, path)
    chunk_type: ChunkType = obj.get("type", _chunk_type)
    chunk: StreamChunk
    match chunk_type:
        case ChunkType.BLOCK_START:
            chunk = BlockStart(
                index=obj.get("index", _number), block_type=obj.get("blockType", _block_type)
            )
        case ChunkType.TEXT_DELTA:
            chunk = TextDelta(index=obj.get("index", _number), text=obj.get("text", _string))
        case ChunkType.REASONING_DELTA:
            chunk = ReasoningDelta(index=obj.get("index", _number), text=obj.get("text", _string))
        case ChunkType.TOOL_CALL_DELTA:
            chunk = ToolCallDelta(
                index=obj.get("index", _number),
                id=obj.get("id", _string),
                name=obj.get("name", _string, optional=True),
                arguments_delta=obj.get("argumentsDelta", _any),
            )
        case ChunkType.BLOCK_END:
            chunk = BlockEnd(
                index=obj.get("index", _number),
                block=obj.get("block", block_from_json),
            )
        case ChunkType.USAGE:
            chunk = UsageChunk(usage=obj.get("usage", usage_from_json))
        case ChunkType.FINISH:
            chunk = FinishChunk(reason=obj.get("reason", finish_reason_from_json))
        case _:
            assert_never(chunk_type)
    obj.done()
    return chunk


def chunks_to_json(chunks: Sequence[StreamChunk]) -> list[dict[str, Any]]:
    """Encode a chunk sequence as a JSON array (spec: stream.wire)."""
    if isinstance(chunks, (str, bytes)) or not isinstance(chunks, (list, tuple)):
        raise InvalidArgument(f"chunks must be a list or tuple, got {type(chunks).__name__}")
    return [chunk_to_json(c) for c in chunks]


def chunks_from_json(value: object, path: str = "$") -> tuple[StreamChunk, ...]:
    """Decode a JSON array of wire chunks; the first malformed one, in array order, is the error
    (spec: stream.wire.check-order)."""
    items = _list(value, path)
    return tuple(chunk_from_json(item, f"{path}[{i}]") for i, item in enumerate(items))


def chunk_list_input_from_json(value: object, path: str = "$") -> tuple[StreamChunk, ...]:
    """Decode the ``{"chunks": [...]}`` input of the stream vector functions, read like any
    wire object (spec: stream.wire.check-order): ``chunks`` present and an array, then no
    unknown member, then every chunk in order."""
    obj = _Object(value, path)
    items = obj.get("chunks", _list)
    obj.done()
    return chunks_from_json(items, f"{path}.chunks")


def assemble_input_from_json(value: object, path: str = "$"
                             ) -> tuple[tuple[StreamChunk, ...], bool]:
    """Decode the ``{"chunks": [...], "strict"?: bool}`` input of ``stream.assemble``: as
    :func:`chunk_list_input_from_json`, with ``strict`` (a boolean) read after ``chunks`` and
    before the unknown members (spec: stream.wire.check-order)."""
    obj = _Object(value, path)
    items = obj.get("chunks", _list)
    strict = obj.get("strict", _boolean, optional=True)
    obj.done()
    return chunks_from_json(items, f"{path}.chunks"), bool(strict)
