"""What only a Python caller can reach in the stream layer: the checks of Python objects that
the wire decoder never lets through (a non-chunk, a non-block, a ``str`` where bytes are
read, a field of the wrong class), a Python float as an index, a source that cannot be
iterated, the HTTP edge's read size and an error message's shown argument.

No conformance case can hold another implementation to these (the protocol carries JSON
text, and every JSON value is decoded before any of these functions sees it), so each is
named, with the test here that kills a change to it, by a Python-only region of
``tools/coverage/python-only.toml`` or, where another change of the same line is one the
protocol sees, by a ``beyond-protocol`` entry of ``tools/mutation/reviewed/stream.json``
(issue 30). Each refusal is asserted on its stable code (spec: errors.invalid-argument), never
on message text, except where the message is the point.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from loom_ref.errors import InvalidArgument
from loom_ref.signals import Signal
from loom_ref.stream import (
    BlockAssembler,
    BlockEnd,
    BlockStart,
    BlockType,
    FinishChunk,
    FinishKind,
    FinishReason,
    LlmRequest,
    Message,
    Role,
    Script,
    StreamChunk,
    TextBlock,
    TextDelta,
    ToolCallBlock,
    assemble,
    build_messages_body,
    check,
    guard_stream,
    map_messages_stream,
)
from loom_ref.stream.anthropic_mapping import MessagesStreamMapper
from loom_ref.stream.contract import is_valid_index
from loom_ref.stream.http import read_pieces
from loom_ref.stream.openai_mapping import ChatCompletionsMapper

STOP = FinishChunk(reason=FinishReason.stop())


def test_a_source_that_cannot_be_iterated_ends_in_one_error_finish() -> None:
    # spec: stream.adapter.consumer-wrapper -- a raise becomes a terminal finish: iter() of a
    # non-iterable raises TypeError, which carries no code of its own
    out = list(guard_stream(None, Signal()))  # type: ignore[arg-type]
    assert len(out) == 1 and isinstance(out[0], FinishChunk)
    reason = out[0].reason
    assert reason.kind is FinishKind.ERROR
    assert reason.failure is not None and reason.failure.code == "stream.adapter-raised"


def _refusal(arguments: str) -> str:
    request = LlmRequest(model="m", messages=[
        Message(role=Role.USER, content=[TextBlock(text="x")]),
        Message(role=Role.ASSISTANT, content=[ToolCallBlock(id="c", name="f",
                                                            arguments=arguments)])])
    with pytest.raises(InvalidArgument) as caught:
        build_messages_body(request, default_max_tokens=1)
    assert caught.value.code == "argument.invalid"
    return str(caught.value)


def test_refused_arguments_are_shown_whole_up_to_80_characters() -> None:
    # the message is informative (the protocol never compares one); it quotes arguments of
    # up to 80 characters whole and cuts longer ones to 77 and "..."
    exactly = "[" + "1," * 39 + "1"  # 80 characters, not an object
    assert len(exactly) == 80
    assert repr(exactly) in _refusal(exactly)
    longer = exactly + "]"
    assert repr(longer[:77] + "...") in _refusal(longer)


def test_the_messages_mapping_reads_bytes_only() -> None:
    with pytest.raises(InvalidArgument) as caught:
        list(map_messages_stream(["data: {}\n\n"]))  # type: ignore[list-item]
    assert caught.value.code == "argument.invalid"


@pytest.mark.parametrize("pieces", [b"", b"data: {}\n\n", "", 5, None])
def test_the_messages_mapping_refuses_a_body_that_is_not_a_list_of_pieces(
        pieces: object) -> None:
    # bytes or a str are one body, not pieces of it, and a non-iterable is no body at all:
    # refused before anything is read (an empty bytes body is no empty stream)
    with pytest.raises(InvalidArgument) as caught:
        list(map_messages_stream(pieces))  # type: ignore[arg-type]
    assert caught.value.code == "argument.invalid"
    assert "pieces must be an iterable of bytes" in str(caught.value)


def test_feed_all_refuses_what_cannot_be_iterated() -> None:
    with pytest.raises(InvalidArgument) as caught:
        BlockAssembler().feed_all(3)  # type: ignore[arg-type]
    assert caught.value.code == "argument.invalid"


@pytest.mark.parametrize("fed", [None, {"type": "finish", "reason": {"kind": "stop"}}, "x"])
def test_feed_refuses_what_is_not_a_chunk(fed: Any) -> None:
    # a chunk's JSON form is decoded first (stream.wire): only a Python object gets here
    with pytest.raises(InvalidArgument) as caught:
        BlockAssembler().feed(fed)
    assert caught.value.code == "argument.invalid"


def test_message_content_holds_content_blocks_only() -> None:
    with pytest.raises(InvalidArgument) as caught:
        Message(role=Role.USER, content=[TextBlock(text="a"), "b"])
    assert caught.value.code == "argument.invalid"


@pytest.mark.parametrize("build", [
    lambda: BlockStart(index=0, block_type="text"),  # type: ignore[arg-type]
    lambda: BlockEnd(index=0, block={"type": "text", "text": "a"}),  # type: ignore[arg-type]
    lambda: FinishChunk(reason="stop"),  # type: ignore[arg-type]
])
def test_chunk_fields_are_checked_by_class(build: Any) -> None:
    with pytest.raises(InvalidArgument) as caught:
        build()
    assert caught.value.code == "argument.invalid"


def test_an_integral_python_float_is_an_index() -> None:
    # spec: stream.index-non-negative-integer -- "an integral float (1.0) counts as an
    # integer"; the wire decoder turns a JSON 1.0 into 1, so only a Python caller sends one
    one: Any = 1.0
    chunks: list[StreamChunk] = [
        BlockStart(index=one, block_type=BlockType.TEXT), TextDelta(index=one, text="a"),
        BlockEnd(index=one, block=TextBlock(text="a")), STOP]
    assert check(chunks) == ()
    assert assemble(chunks).message.content == (TextBlock(text="a"),)
    assert [v.rule.value for v in check([BlockStart(index=one + 0.5, block_type=BlockType.TEXT),
                                         STOP])] == ["stream.index-non-negative-integer"]


class _Body:
    """A response whose ``read1(n)`` returns at most n bytes of ``data``, as a socket may."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def read1(self, size: int) -> bytes:
        piece, self.data = self.data[:size], self.data[size:]
        return piece


def test_the_body_is_read_in_pieces_of_at_most_8192_bytes() -> None:
    body = b"x" * 8193
    pieces: Iterator[bytes] = read_pieces(_Body(body), Signal())  # type: ignore[arg-type]
    assert [len(p) for p in pieces] == [8192, 1]


def test_a_scripted_error_message_must_be_a_str() -> None:
    with pytest.raises(InvalidArgument) as caught:
        Script(chunks=[STOP], raise_after=0, error_message=1)  # type: ignore[arg-type]
    assert caught.value.code == "argument.invalid"


# --- issue 30: the Python-only regions of tools/coverage/python-only.toml, each reached --------


@pytest.mark.parametrize("strict", [1, "yes", None])
def test_an_assembler_s_strict_is_a_bool(strict: Any) -> None:
    with pytest.raises(InvalidArgument) as caught:
        BlockAssembler(strict=strict)
    assert caught.value.code == "argument.invalid"


def test_an_assembler_tells_whether_it_is_strict() -> None:
    assert BlockAssembler(strict=True).strict is True
    assert BlockAssembler().strict is False


@pytest.mark.parametrize("index", [True, -1, 1.5, "0"])
def test_open_block_type_takes_a_non_negative_integer(index: Any) -> None:
    assembler = BlockAssembler()
    assembler.feed(BlockStart(index=1, block_type=BlockType.TEXT))
    assert assembler.open_block_type(1) is BlockType.TEXT
    with pytest.raises(InvalidArgument) as caught:
        assembler.open_block_type(index)
    assert caught.value.code == "argument.invalid"


def test_a_boolean_is_no_index() -> None:
    assert is_valid_index(True) is False and is_valid_index(False) is False
    assert is_valid_index(1) is True and is_valid_index(0.0) is True


def test_a_chat_completions_mapper_ended_twice_gives_nothing_more() -> None:
    mapper = ChatCompletionsMapper()
    mapper.feed({"choices": [{"index": 0, "delta": {"content": "Hi"}, "finish_reason": "stop"}]})
    first = mapper.end()
    assert [c.type.value for c in first] == ["block-end", "finish"]
    assert mapper.end() == []


def test_a_messages_mapper_fed_past_its_end_reads_nothing() -> None:
    mapper = MessagesStreamMapper()
    assert mapper.feed({"type": "message_stop"}) == []
    assert mapper.ended
    late = {"type": "content_block_start", "index": 0,
            "content_block": {"type": "text", "text": "late"}}
    assert mapper.feed(late) == []


def test_a_wire_error_names_the_json_type_it_got() -> None:
    # issue 30 (sample 713662): the message names what the JSON held; the protocol compares
    # the code alone (stream.wire.field-type, INTERPRETING.md section 15), so only a Python
    # caller reading the message sees the type named
    from loom_ref.stream.wire import WireError, chunk_from_json

    for value, named in ((5, "number"), (1.5, "number"), (True, "boolean"), (None, "null"),
                         ([], "array"), ({}, "object")):
        with pytest.raises(WireError) as info:
            chunk_from_json({"type": "text-delta", "index": 0, "text": value})
        assert info.value.code == "stream.wire.field-type"
        assert info.value.message.endswith(f"expected a string, got {named}")
    with pytest.raises(WireError) as info:
        chunk_from_json({"type": "text-delta", "index": "0", "text": "a"})
    assert info.value.code == "stream.wire.field-type"
    assert info.value.message.endswith("expected a number, got string")
    with pytest.raises(WireError) as info:  # what no JSON holds is named by its Python class
        chunk_from_json({"type": "text-delta", "index": 0, "text": b"a"})
    assert info.value.message.endswith("expected a string, got bytes")


def test_a_request_and_a_chunk_list_refuse_values_of_the_wrong_class() -> None:
    # spec: errors.invalid-argument -- a Python caller's list holding no Message, or a str,
    # bytes, a dict, a set or an iterator given as the chunk list (no list or tuple), is
    # refused at the call
    from loom_ref.stream.adapter import LlmRequest
    from loom_ref.stream.wire import chunks_to_json

    with pytest.raises(InvalidArgument, match="messages"):
        LlmRequest(model="m", messages=[1])  # type: ignore[list-item]
    with pytest.raises(InvalidArgument, match="chunks"):
        chunks_to_json("")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="chunks"):
        chunks_to_json(b"")  # type: ignore[arg-type]
    for neither in ({}, set(), iter(())):  # iterable, but no list or tuple
        with pytest.raises(InvalidArgument, match="chunks"):
            chunks_to_json(neither)  # type: ignore[arg-type]
    assert chunks_to_json([]) == [] and LlmRequest(model="m", messages=[]).messages == ()
