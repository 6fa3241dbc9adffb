"""The BlockAssembler: folds grammar streams to their model; splitting deltas changes nothing;
it folds as dsh-llm's does (tolerant), and strict mode is the contract checker in front."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from loom_ref.errors import InvalidArgument, StreamError
from loom_ref.stream import (
    AssemblerError,
    BlockAssembler,
    BlockEnd,
    BlockStart,
    BlockType,
    ContentBlock,
    ContractViolationError,
    FinishChunk,
    FinishKind,
    FinishReason,
    Message,
    ReasoningBlock,
    ReasoningDelta,
    Role,
    StreamChunk,
    TextBlock,
    TextDelta,
    TokenUsage,
    ToolCallBlock,
    ToolCallDelta,
    ToolResultBlock,
    UsageChunk,
    assemble,
    check,
    check_strict,
)
from loom_ref.testing.strategies import GeneratedStream, split_deltas, strip_blocks, valid_streams

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
STOP = FinishChunk(reason=FinishReason.stop())


@SETTINGS
@given(valid_streams())
def test_assembles_to_the_grammar_model(stream: GeneratedStream) -> None:
    result = assemble(stream.chunks)
    assert result.message == Message(role=Role.ASSISTANT, content=stream.blocks)
    assert result.finish == stream.reason
    assert result.usage == stream.usage


@SETTINGS
@given(valid_streams(), st.data())
def test_splitting_deltas_never_changes_the_message(
    stream: GeneratedStream, data: st.DataObject
) -> None:
    split = data.draw(split_deltas(stream.chunks))
    assert check(split) == ()
    assert assemble(split) == assemble(stream.chunks)


def _delta_only_model(chunks: tuple[StreamChunk, ...], reason: FinishReason) -> list[ContentBlock]:
    """What a delta-only stream folds to, computed independently of the assembler."""
    order: list[float] = []
    kinds: dict[float, type] = {}
    text: dict[float, str] = {}
    ids: dict[float, str] = {}
    names: dict[float, str] = {}
    for c in chunks:
        if isinstance(c, (TextDelta, ReasoningDelta, ToolCallDelta)):
            if c.index not in kinds:
                order.append(c.index)
                kinds[c.index] = type(c)
                text[c.index] = ""
            if isinstance(c, ToolCallDelta):
                text[c.index] += c.arguments_delta
                ids[c.index] = c.id  # the last delta's id
                if c.name:
                    names[c.index] = c.name  # the last non-empty name
            else:
                text[c.index] += c.text
    out: list[ContentBlock] = []
    for i in order:
        if kinds[i] is TextDelta:
            out.append(TextBlock(text=text[i]))
        elif kinds[i] is ReasoningDelta:
            out.append(ReasoningBlock(text=text[i]))
        elif reason.kind is not FinishKind.MAX_TOKENS:
            out.append(ToolCallBlock(id=ids[i], name=names.get(i, ""), arguments=text[i]))
    return out


@SETTINGS
@given(valid_streams(), st.data())
def test_delta_only_streams_are_tolerated_and_split_invariant(
    stream: GeneratedStream, data: st.DataObject
) -> None:
    bare = strip_blocks(stream.chunks)
    expected = _delta_only_model(bare, stream.reason)
    assert list(assemble(bare).message.content) == expected
    split = data.draw(split_deltas(bare))
    assert assemble(split) == assemble(bare)


@SETTINGS
@given(valid_streams(), st.data())
def test_stragglers_after_block_end_are_ignored(
    stream: GeneratedStream, data: st.DataObject
) -> None:
    ends = [i for i, c in enumerate(stream.chunks) if isinstance(c, BlockEnd)]
    if not ends:
        return
    end = data.draw(st.sampled_from(ends))
    chunk = stream.chunks[end]
    assert isinstance(chunk, BlockEnd)
    stragglers: list[StreamChunk] = [
        TextDelta(index=chunk.index, text="late"),
        ReasoningDelta(index=chunk.index, text="late"),
        ToolCallDelta(index=chunk.index, id="other", name="other", arguments_delta="late"),
        BlockStart(index=chunk.index, block_type=BlockType.TEXT),
        BlockEnd(index=chunk.index, block=TextBlock(text="second end")),
    ]
    extra = data.draw(st.lists(st.sampled_from(stragglers), min_size=1, max_size=3))
    at = data.draw(st.integers(min_value=end + 1, max_value=len(stream.chunks) - 1))
    mutated = [*stream.chunks[:at], *extra, *stream.chunks[at:]]
    assert assemble(mutated) == assemble(stream.chunks)


def test_block_end_carries_the_block() -> None:
    chunks = [
        BlockStart(index=0, block_type=BlockType.TEXT),
        TextDelta(index=0, text="draft"),
        BlockEnd(index=0, block=TextBlock(text="final")),
        STOP,
    ]
    assert assemble(chunks).message.content == (TextBlock(text="final"),)


def test_first_seen_order_not_index_order() -> None:
    chunks = [
        TextDelta(index=7, text="a"),
        ReasoningDelta(index=2, text="b"),
        TextDelta(index=7, text="c"),
        STOP,
    ]
    assert assemble(chunks).message.content == (TextBlock(text="ac"), ReasoningBlock(text="b"))


@pytest.mark.parametrize(
    ("reason", "kept"),
    [
        (FinishReason.stop(), True),
        (FinishReason.tool_calls(), True),
        (FinishReason.max_tokens(), False),
        (FinishReason.error("boom"), True),
        (FinishReason.aborted("stop"), True),
    ],
)
def test_max_tokens_drops_every_tool_call(reason: FinishReason, kept: bool) -> None:
    # spec: stream.assembler.max-tokens-drops-tool-calls -- ended or not; under error and
    # aborted the message keeps them (interrupted_blocks is the safe prefix there)
    chunks = [
        TextDelta(index=0, text="partial"),
        BlockStart(index=1, block_type=BlockType.TOOL_CALL),
        ToolCallDelta(index=1, id="c1", name="f", arguments_delta='{"a":'),
        BlockStart(index=2, block_type=BlockType.TOOL_CALL),
        ToolCallDelta(index=2, id="c2", name="g", arguments_delta="{}"),
        BlockEnd(index=2, block=ToolCallBlock(id="c2", name="g", arguments="{}")),
        FinishChunk(reason=reason),
    ]
    result = assemble(chunks)
    calls = [ToolCallBlock(id="c1", name="f", arguments='{"a":'),
             ToolCallBlock(id="c2", name="g", arguments="{}")]
    assert result.message.content == (TextBlock(text="partial"), *(calls if kept else []))
    assert result.interrupted == (TextBlock(text="partial"),)


def test_arguments_are_never_parsed() -> None:
    raw = '{"a": 1,, nonsense'
    chunks = [ToolCallDelta(index=0, id="c", name="f", arguments_delta=raw), STOP]
    assert assemble(chunks).message.content == (ToolCallBlock(id="c", name="f", arguments=raw),)


def test_unended_tool_result_has_no_content_and_is_dropped() -> None:
    chunks = [
        BlockStart(index=0, block_type=BlockType.TOOL_RESULT),
        FinishChunk(reason=FinishReason.error("x")),
    ]
    assert assemble(chunks).message.content == ()
    ended = [
        BlockEnd(index=0, block=ToolResultBlock(call_id="c", content="ok", is_error=True)),
        STOP,
    ]
    assert assemble(ended).message.content == (
        ToolResultBlock(call_id="c", content="ok", is_error=True),
    )


def test_blocks_snapshot_before_finish_and_a_missing_finish_is_stop() -> None:
    # spec: stream.assembler.missing-finish-is-stop
    assembler = BlockAssembler()
    assembler.feed(TextDelta(index=0, text="he"))
    assembler.feed(ToolCallDelta(index=1, id="c", arguments_delta="{"))
    assert assembler.blocks() == (
        TextBlock(text="he"),
        ToolCallBlock(id="c", name="", arguments="{"),
    )
    assert not assembler.finished
    assert assembler.finish_reason == FinishReason.stop()
    assert assembler.result().finish == FinishReason.stop()
    assembler.feed(UsageChunk(usage=TokenUsage(input_tokens=3, output_tokens=4)))
    assembler.feed(FinishChunk(reason=FinishReason.max_tokens()))
    assert assembler.message().content == (TextBlock(text="he"),)
    assert assembler.usage == TokenUsage(input_tokens=3, output_tokens=4)
    assert assembler.finish_reason == FinishReason.max_tokens()


USAGE = UsageChunk(usage=TokenUsage(input_tokens=1, output_tokens=1))
USAGE2 = UsageChunk(usage=TokenUsage(input_tokens=2, output_tokens=2))


def test_every_chunk_folds_the_last_usage_and_finish_win() -> None:
    # spec: stream.assembler.folds-everything -- what the checker refuses, the fold takes
    chunks: list[StreamChunk] = [USAGE, TextDelta(index=0, text="a"), USAGE2,
                                 FinishChunk(reason=FinishReason.max_tokens()),
                                 TextDelta(index=0, text="b"), STOP]
    result = assemble(chunks)
    assert result.message.content == (TextBlock(text="ab"),)
    assert result.usage == USAGE2.usage and result.finish == FinishReason.stop()
    assert [v.rule.value for v in check(chunks)] == [
        "stream.delta-targets-open-block", "stream.single-usage",
        "stream.nothing-after-finish", "stream.single-finish"]


def test_deltas_by_block_type() -> None:
    # spec: stream.assembler.deltas-by-block-type
    chunks: list[StreamChunk] = [
        ReasoningDelta(index=0, text="r"), TextDelta(index=0, text="t"),  # text into reasoning
        BlockStart(index=1, block_type=BlockType.TOOL_CALL), TextDelta(index=1, text="lost"),
        ToolCallDelta(index=1, id="a", name="f", arguments_delta="{"),
        ToolCallDelta(index=1, id="b", name="", arguments_delta="}"),  # last id, last name
        TextDelta(index=2, text="x"), ToolCallDelta(index=2, id="c", arguments_delta="lost"),
        BlockStart(index=2, block_type=BlockType.REASONING),  # a seen index: nothing
        BlockStart(index=3, block_type=BlockType.TOOL_CALL),  # no delta: call-3
        BlockStart(index=4, block_type=BlockType.TEXT),
        BlockEnd(index=4, block=ReasoningBlock(text="end wins")),  # of another type
        STOP,
    ]
    assert assemble(chunks).message.content == (
        ReasoningBlock(text="rt"), ToolCallBlock(id="b", name="f", arguments="{}"),
        TextBlock(text="x"), ToolCallBlock(id="call-3", name="", arguments=""),
        ReasoningBlock(text="end wins"))


def test_interrupted_blocks_keep_non_blank_text_and_reasoning_only() -> None:
    # spec: stream.assembler.interrupted -- blank is ECMAScript's trim set, not str.isspace
    chunks: list[StreamChunk] = [
        TextDelta(index=0, text=" \t\u3000\ufeff"), ReasoningDelta(index=1, text="\u0085"),
        BlockEnd(index=2, block=TextBlock(text="done")), TextDelta(index=3, text="\u001c"),
        ToolCallDelta(index=4, id="c", name="f", arguments_delta="{}"),
        BlockEnd(index=5, block=ReasoningBlock(text="\u2028 ")),
        FinishChunk(reason=FinishReason.aborted("user")),
    ]
    assert BlockAssembler().feed_all(chunks).interrupted_blocks() == (
        ReasoningBlock(text="\u0085"), TextBlock(text="done"), TextBlock(text="\u001c"))


TYPE_ERRORS: list[tuple[list[StreamChunk], str]] = [
    ([TextDelta(index=-1, text="x"), STOP], "stream.index-non-negative-integer"),
    ([TextDelta(index=0.5, text="x"), STOP], "stream.index-non-negative-integer"),
    (
        [ToolCallDelta(index=0, id="a", arguments_delta={"a": 1}), STOP],  # type: ignore[arg-type]
        "stream.tool-arguments-raw-json",
    ),
    (
        [BlockEnd(index=0, block=ToolCallBlock(id="a", name="f", arguments=[1])), STOP],  # type: ignore[arg-type]
        "stream.tool-arguments-raw-json",
    ),
]


@pytest.mark.parametrize(("chunks", "code"), TYPE_ERRORS)
def test_what_no_fold_can_take_raises_a_stable_code(chunks: list[StreamChunk], code: str
                                                    ) -> None:
    # spec: stream.assembler.type-errors
    with pytest.raises(AssemblerError) as caught:
        assemble(chunks)
    assert caught.value.code == code


STRICT: list[tuple[list[StreamChunk], str, int]] = [
    ([STOP, TextDelta(index=0, text="x")], "stream.nothing-after-finish", 1),
    ([STOP, USAGE], "stream.usage-before-finish", 1),
    ([USAGE, USAGE, STOP], "stream.single-usage", 1),
    ([TextDelta(index=0, text="x"), STOP], "stream.delta-targets-open-block", 0),
    ([BlockStart(index=0, block_type=BlockType.TEXT), STOP], "stream.open-blocks-at-finish", 1),
    ([BlockStart(index=0, block_type=BlockType.TOOL_CALL),
      ToolCallDelta(index=0, id="a", arguments_delta=""),
      ToolCallDelta(index=0, id="b", arguments_delta="")], "stream.tool-call-identity-stable", 2),
    ([BlockStart(index=0, block_type=BlockType.TEXT)], "stream.single-finish", 1),
]


@pytest.mark.parametrize(("chunks", "code", "index"), STRICT)
def test_strict_is_the_checker_in_front_of_the_same_fold(
        chunks: list[StreamChunk], code: str, index: int) -> None:
    # spec: stream.assembler.strict -- the code and index enforce would raise
    with pytest.raises(ContractViolationError) as caught:
        assemble(chunks, strict=True)
    assert (caught.value.code, caught.value.details["index"]) == (code, index)
    with pytest.raises(ContractViolationError) as enforced:
        check_strict(chunks)
    assert (enforced.value.code, enforced.value.details["index"]) == (code, index)


@SETTINGS
@given(valid_streams())
def test_strict_agrees_with_tolerant_on_valid_streams(stream: GeneratedStream) -> None:
    assert assemble(stream.chunks, strict=True) == assemble(stream.chunks)


FAILING_STREAMS = [(c, code, AssemblerError, False) for c, code in TYPE_ERRORS] + [
    (c, code, ContractViolationError, True) for c, code, _ in STRICT[:-1]]


@pytest.mark.parametrize(("chunks", "code", "error", "strict"), FAILING_STREAMS)
def test_a_failed_assembler_stays_failed(chunks: list[StreamChunk], code: str,
                                         error: type[StreamError], strict: bool) -> None:
    # spec: stream.assembler.failed-stays-failed
    assembler = BlockAssembler(strict=strict)
    with pytest.raises(error) as first:
        for chunk in chunks:
            assembler.feed(chunk)
    assert first.value.code == code
    later: list[object] = [
        lambda: assembler.feed(TextDelta(index=7, text="fine on its own")),
        lambda: assembler.feed(FinishChunk(reason=FinishReason.stop())),
        assembler.blocks, assembler.message, assembler.result, assembler.interrupted_blocks,
    ]
    for call in later:
        with pytest.raises(error) as again:
            call()  # type: ignore[operator]
        assert again.value.code == code
        assert first.value.message in again.value.message


def test_resent_same_name_is_fine() -> None:
    chunks = [
        ToolCallDelta(index=0, id="a", name="f", arguments_delta="{"),
        ToolCallDelta(index=0, id="a", name="f", arguments_delta="}"),
        STOP,
    ]
    assert assemble(chunks).message.content == (ToolCallBlock(id="a", name="f", arguments="{}"),)


@pytest.mark.parametrize("bad", [None, "abc", [1]])
def test_bad_arguments_raise_invalid_argument(bad: object) -> None:
    with pytest.raises(InvalidArgument):
        assemble(bad)  # type: ignore[arg-type]


class _NoConcat(str):
    """A delta text that fails the test if anything concatenates onto it or it onto anything."""

    def __add__(self, other: object) -> str:
        raise AssertionError("a delta was concatenated: the fold would be quadratic")

    def __radd__(self, other: object) -> str:
        raise AssertionError("a delta was concatenated: the fold would be quadratic")


def test_fold_collects_parts_and_joins_once() -> None:
    # spec: stream.assembler.linear -- parts are collected in lists and joined once, never
    # concatenated one by one (bench/bench_stream.py prints the time per chunk as it grows)
    n = 2_000
    chunks: list[StreamChunk] = [BlockStart(index=0, block_type=BlockType.TEXT)]
    chunks += [TextDelta(index=0, text=_NoConcat("ab")) for _ in range(n)]
    chunks += [ToolCallDelta(index=1, id="c", name="f", arguments_delta=_NoConcat("1"))
               for _ in range(n)]
    chunks += [BlockEnd(index=0, block=TextBlock(text="ab" * n)),
               FinishChunk(reason=FinishReason.stop())]
    result = assemble(chunks)
    assert result.message.content == (
        TextBlock(text="ab" * n), ToolCallBlock(id="c", name="f", arguments="1" * n))
