"""The contract checker: accepts every grammar stream; names the rule of each broken one."""

from __future__ import annotations

import attrs
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from loom_ref.errors import InvalidArgument, StreamError
from loom_ref.stream import (
    BlockEnd,
    BlockStart,
    BlockType,
    ContractChecker,
    ContractViolationError,
    FinishChunk,
    FinishReason,
    ReasoningBlock,
    ReasoningDelta,
    Rule,
    StreamChunk,
    TextBlock,
    TextDelta,
    TokenUsage,
    ToolCallBlock,
    ToolCallDelta,
    ToolResultBlock,
    UsageChunk,
    check,
    check_strict,
    enforce,
)
from loom_ref.testing.strategies import GeneratedStream, valid_streams

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
USAGE = UsageChunk(usage=TokenUsage(input_tokens=1, output_tokens=1))
STOP = FinishChunk(reason=FinishReason.stop())


def rules_at(chunks: list[StreamChunk] | tuple[StreamChunk, ...]) -> set[tuple[str, int]]:
    return {(v.rule.value, v.index) for v in check(chunks)}


def finish_at(stream: GeneratedStream) -> int:
    return len(stream.chunks) - 1


# --- acceptance ------------------------------------------------------------------------------


@SETTINGS
@given(valid_streams())
def test_every_grammar_stream_is_accepted(stream: GeneratedStream) -> None:
    assert check(stream.chunks) == ()
    check_strict(stream.chunks)
    assert list(enforce(stream.chunks)) == list(stream.chunks)


def test_a_lone_finish_is_a_valid_stream() -> None:
    assert check([STOP]) == ()


def test_integral_float_index_counts_as_an_integer() -> None:
    chunks = [BlockStart(index=1.0, block_type=BlockType.TEXT), TextDelta(index=1, text="x")]
    chunks += [BlockEnd(index=1, block=TextBlock(text="x")), STOP]
    assert check(chunks) == ()


def test_blocks_may_follow_usage_before_finish() -> None:
    chunks = [USAGE, BlockStart(index=0, block_type=BlockType.TEXT)]
    chunks += [BlockEnd(index=0, block=TextBlock(text="")), STOP]
    assert check(chunks) == ()


# --- one mutation per rule -------------------------------------------------------------------


@SETTINGS
@given(valid_streams())
def test_usage_after_finish_names_usage_before_finish(stream: GeneratedStream) -> None:
    mutated = [*stream.chunks, USAGE]
    assert (Rule.USAGE_BEFORE_FINISH.value, len(stream.chunks)) in rules_at(mutated)


@SETTINGS
@given(valid_streams(with_usage=True), st.data())
def test_second_usage_names_single_usage(stream: GeneratedStream, data: st.DataObject) -> None:
    first = next(i for i, c in enumerate(stream.chunks) if isinstance(c, UsageChunk))
    at = data.draw(st.integers(min_value=first + 1, max_value=finish_at(stream)))
    mutated = list(stream.chunks)
    mutated.insert(at, USAGE)
    assert (Rule.SINGLE_USAGE.value, at) in rules_at(mutated)


@SETTINGS
@given(valid_streams())
def test_missing_finish_names_single_finish_at_the_end(stream: GeneratedStream) -> None:
    mutated = stream.chunks[:-1]
    assert rules_at(mutated) >= {(Rule.SINGLE_FINISH.value, len(mutated))}


@SETTINGS
@given(valid_streams(), st.sampled_from([FinishReason.stop(), FinishReason.error("x")]))
def test_second_finish_names_single_finish(stream: GeneratedStream, reason: FinishReason) -> None:
    mutated = [*stream.chunks, FinishChunk(reason=reason)]
    assert rules_at(mutated) == {(Rule.SINGLE_FINISH.value, len(stream.chunks))}


BLOCK_CHUNKS = st.sampled_from(
    [
        BlockStart(index=99, block_type=BlockType.TEXT),
        TextDelta(index=0, text="late"),
        ReasoningDelta(index=3, text="late"),
        ToolCallDelta(index=1, id="c", arguments_delta="{}"),
        BlockEnd(index=0, block=TextBlock(text="late")),
    ]
)


@SETTINGS
@given(valid_streams(), BLOCK_CHUNKS)
def test_block_chunk_after_finish_names_nothing_after_finish(
    stream: GeneratedStream, chunk: StreamChunk
) -> None:
    mutated = [*stream.chunks, chunk]
    assert rules_at(mutated) == {(Rule.NOTHING_AFTER_FINISH.value, len(stream.chunks))}


@SETTINGS
@given(valid_streams(min_blocks=1), st.data())
def test_bad_index_names_index_rule(stream: GeneratedStream, data: st.DataObject) -> None:
    positions = [i for i, c in enumerate(stream.chunks) if hasattr(c, "index")]
    assume(positions)
    at = data.draw(st.sampled_from(positions))
    bad = data.draw(
        st.integers(max_value=-1) | st.floats(allow_nan=False).filter(lambda f: not f.is_integer())
    )
    mutated = list(stream.chunks)
    mutated[at] = attrs.evolve(mutated[at], index=bad)  # type: ignore[misc]
    assert (Rule.INDEX_NON_NEGATIVE_INTEGER.value, at) in rules_at(mutated)


@SETTINGS
@given(valid_streams(min_blocks=1), st.data())
def test_repeated_block_start_names_block_start_unique(
    stream: GeneratedStream, data: st.DataObject
) -> None:
    starts = [i for i, c in enumerate(stream.chunks) if isinstance(c, BlockStart)]
    assume(starts)
    start = data.draw(st.sampled_from(starts))
    at = data.draw(st.integers(min_value=start + 1, max_value=finish_at(stream)))
    mutated = list(stream.chunks)
    mutated.insert(at, stream.chunks[start])
    index = stream.chunks[start].index
    ended = any(isinstance(c, BlockEnd) and c.index == index for c in stream.chunks[start:at])
    # spec: stream.block-start-unique (while open), stream.block-start-after-end (after its end)
    rule = Rule.BLOCK_START_AFTER_END if ended else Rule.BLOCK_START_UNIQUE
    assert (rule.value, at) in rules_at(mutated)


def _delta_for(index: int, block_type: BlockType) -> StreamChunk:
    if block_type is BlockType.TEXT:
        return TextDelta(index=index, text="x")
    if block_type is BlockType.REASONING:
        return ReasoningDelta(index=index, text="x")
    return ToolCallDelta(index=index, id="zz", arguments_delta="x")


@SETTINGS
@given(valid_streams(), st.data())
def test_stray_delta_names_delta_targets_open_block(
    stream: GeneratedStream, data: st.DataObject
) -> None:
    at = data.draw(st.integers(min_value=0, max_value=finish_at(stream)))
    starts = {c.index: c.block_type for c in stream.chunks if isinstance(c, BlockStart)}
    if starts and data.draw(st.booleans()):
        # a delta of the wrong type for an existing block (open, unseen or closed: all wrong)
        index = data.draw(st.sampled_from(sorted(starts)))
        wrong = [t for t in BlockType if t is not starts[index] and t is not BlockType.TOOL_RESULT]
        delta = _delta_for(index, data.draw(st.sampled_from(wrong)))
    else:
        delta = _delta_for(1000, data.draw(st.sampled_from([BlockType.TEXT, BlockType.TOOL_CALL])))
    mutated = list(stream.chunks)
    mutated.insert(at, delta)
    assert (Rule.DELTA_TARGETS_OPEN_BLOCK.value, at) in rules_at(mutated)


@SETTINGS
@given(valid_streams(min_blocks=1), st.data())
def test_delta_after_block_end_names_delta_targets_open_block(
    stream: GeneratedStream, data: st.DataObject
) -> None:
    ends = [
        i
        for i, c in enumerate(stream.chunks)
        if isinstance(c, BlockEnd) and c.block.type is not BlockType.TOOL_RESULT
    ]
    assume(ends)
    end = data.draw(st.sampled_from(ends))
    chunk = stream.chunks[end]
    assert isinstance(chunk, BlockEnd)
    at = data.draw(st.integers(min_value=end + 1, max_value=finish_at(stream)))
    mutated = list(stream.chunks)
    mutated.insert(at, _delta_for(chunk.index, chunk.block.type))
    assert (Rule.DELTA_TARGETS_OPEN_BLOCK.value, at) in rules_at(mutated)


OTHER_BLOCK = {
    BlockType.TEXT: ReasoningBlock(text="r"),
    BlockType.REASONING: TextBlock(text="t"),
    BlockType.TOOL_CALL: TextBlock(text="t"),
    BlockType.TOOL_RESULT: ToolCallBlock(id="c", name="f", arguments="{}"),
}


@SETTINGS
@given(valid_streams(), st.data())
def test_bad_block_end_names_block_end_closes_open_block(
    stream: GeneratedStream, data: st.DataObject
) -> None:
    ends = [i for i, c in enumerate(stream.chunks) if isinstance(c, BlockEnd)]
    mutated = list(stream.chunks)
    if ends and data.draw(st.booleans()):
        at = data.draw(st.sampled_from(ends))
        chunk = mutated[at]
        assert isinstance(chunk, BlockEnd)
        mutated[at] = BlockEnd(index=chunk.index, block=OTHER_BLOCK[chunk.block.type])
    else:
        at = data.draw(st.integers(min_value=0, max_value=finish_at(stream)))
        mutated.insert(at, BlockEnd(index=1000, block=TextBlock(text="")))
    assert (Rule.BLOCK_END_CLOSES_OPEN_BLOCK.value, at) in rules_at(mutated)


NORMAL_REASONS = st.sampled_from(
    [FinishReason.stop(), FinishReason.tool_calls(), FinishReason.max_tokens()]
)


@SETTINGS
@given(valid_streams(min_blocks=1, reasons=NORMAL_REASONS), st.data())
def test_open_block_at_normal_finish_names_open_blocks_at_finish(
    stream: GeneratedStream, data: st.DataObject
) -> None:
    ends = [i for i, c in enumerate(stream.chunks) if isinstance(c, BlockEnd)]
    assume(ends)
    mutated = list(stream.chunks)
    del mutated[data.draw(st.sampled_from(ends))]
    assert rules_at(mutated) == {(Rule.OPEN_BLOCKS_AT_FINISH.value, len(mutated) - 1)}


TOOL_CALL_STREAMS = valid_streams(min_blocks=1, block_types=(BlockType.TOOL_CALL, BlockType.TEXT))


@SETTINGS
@given(TOOL_CALL_STREAMS, st.data())
def test_parsed_arguments_name_tool_arguments_raw_json(
    stream: GeneratedStream, data: st.DataObject
) -> None:
    targets = [
        i
        for i, c in enumerate(stream.chunks)
        if isinstance(c, ToolCallDelta)
        or (isinstance(c, BlockEnd) and isinstance(c.block, ToolCallBlock))
    ]
    assume(targets)
    at = data.draw(st.sampled_from(targets))
    parsed = data.draw(st.sampled_from([{"a": 1}, [1], 3, None]))
    mutated = list(stream.chunks)
    chunk = mutated[at]
    if isinstance(chunk, ToolCallDelta):
        mutated[at] = attrs.evolve(chunk, arguments_delta=parsed)
    else:
        assert isinstance(chunk, BlockEnd) and isinstance(chunk.block, ToolCallBlock)
        mutated[at] = attrs.evolve(chunk, block=attrs.evolve(chunk.block, arguments=parsed))
    assert rules_at(mutated) == {(Rule.TOOL_ARGUMENTS_RAW_JSON.value, at)}


@SETTINGS
@given(TOOL_CALL_STREAMS, st.data())
def test_changed_call_id_names_tool_call_identity_stable(
    stream: GeneratedStream, data: st.DataObject
) -> None:
    # a tool-call chunk that is not the first to carry the block's id
    seen: set[float] = set()
    targets: list[int] = []
    for i, c in enumerate(stream.chunks):
        if isinstance(c, ToolCallDelta) or (
            isinstance(c, BlockEnd) and isinstance(c.block, ToolCallBlock)
        ):
            if c.index in seen:
                targets.append(i)
            seen.add(c.index)
    assume(targets)
    at = data.draw(st.sampled_from(targets))
    mutated = list(stream.chunks)
    chunk = mutated[at]
    if isinstance(chunk, ToolCallDelta):
        mutated[at] = attrs.evolve(chunk, id=chunk.id + "-other")
    else:
        assert isinstance(chunk, BlockEnd) and isinstance(chunk.block, ToolCallBlock)
        mutated[at] = attrs.evolve(chunk, block=attrs.evolve(chunk.block, id=chunk.block.id + "!"))
    assert rules_at(mutated) == {(Rule.TOOL_CALL_IDENTITY_STABLE.value, at)}


# --- examples and the strict forms -----------------------------------------------------------


def test_changed_name_is_an_identity_violation() -> None:
    chunks = [
        BlockStart(index=0, block_type=BlockType.TOOL_CALL),
        ToolCallDelta(index=0, id="c1", name="f", arguments_delta="{"),
        ToolCallDelta(index=0, id="c1", name="g", arguments_delta="}"),
        BlockEnd(index=0, block=ToolCallBlock(id="c1", name="f", arguments="{}")),
        STOP,
    ]
    assert rules_at(chunks) == {(Rule.TOOL_CALL_IDENTITY_STABLE.value, 2)}


def test_every_violation_is_reported_in_order() -> None:
    chunks = [
        TextDelta(index=0, text="orphan"),
        BlockStart(index=-1, block_type=BlockType.TEXT),
        STOP,
        USAGE,
        STOP,
    ]
    assert [(v.rule, v.index) for v in check(chunks)] == [
        (Rule.DELTA_TARGETS_OPEN_BLOCK, 0),
        (Rule.INDEX_NON_NEGATIVE_INTEGER, 1),
        (Rule.USAGE_BEFORE_FINISH, 3),
        (Rule.SINGLE_FINISH, 4),
    ]


def test_tool_result_block_accepts_no_delta() -> None:
    chunks = [
        BlockStart(index=0, block_type=BlockType.TOOL_RESULT),
        TextDelta(index=0, text="x"),
        BlockEnd(index=0, block=ToolResultBlock(call_id="c", content="x")),
        STOP,
    ]
    assert rules_at(chunks) == {(Rule.DELTA_TARGETS_OPEN_BLOCK.value, 1)}


def test_strict_form_raises_with_the_rule_code_and_index() -> None:
    chunks = [STOP, USAGE]
    with pytest.raises(ContractViolationError) as caught:
        check_strict(chunks)
    assert isinstance(caught.value, StreamError)
    assert caught.value.code == "stream.usage-before-finish"
    assert caught.value.details["index"] == 1


def test_enforce_yields_the_valid_prefix_then_raises() -> None:
    chunks = [BlockStart(index=0, block_type=BlockType.TEXT), TextDelta(index=1, text="x"), STOP]
    passed: list[StreamChunk] = []
    with pytest.raises(ContractViolationError) as caught:
        passed.extend(enforce(chunks))
    assert passed == chunks[:1]
    assert caught.value.code == "stream.delta-targets-open-block"


def test_enforce_raises_at_the_end_without_finish() -> None:
    with pytest.raises(ContractViolationError) as caught:
        list(enforce([USAGE]))
    assert caught.value.code == "stream.single-finish"
    assert caught.value.details["index"] == 1


def test_incremental_checker_reports_per_chunk() -> None:
    checker = ContractChecker()
    assert checker.feed(BlockStart(index=0, block_type=BlockType.TEXT)) == ()
    assert not checker.finished
    assert (
        checker.feed(FinishChunk(reason=FinishReason.stop()))[0].rule is Rule.OPEN_BLOCKS_AT_FINISH
    )
    assert checker.finished
    assert checker.close() == ()


@pytest.mark.parametrize("bad", [None, "chunks", 5, [object()]])
def test_bad_arguments_raise_invalid_argument(bad: object) -> None:
    with pytest.raises(InvalidArgument):
        check(bad)  # type: ignore[arg-type]
