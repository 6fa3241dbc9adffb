"""The consumer wrapper handles both error paths; the scripted adapter plays its scripts."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from loom_ref.errors import InvalidArgument, StreamError
from loom_ref.signals import Signal
from loom_ref.stream import (
    BlockStart,
    BlockType,
    FinishChunk,
    FinishKind,
    FinishReason,
    LlmAdapter,
    LlmRequest,
    Message,
    Role,
    Script,
    ScriptedAdapter,
    ScriptedFailure,
    StreamChunk,
    TextBlock,
    TextDelta,
    assemble,
    check,
    consume,
    guard_stream,
)
from loom_ref.testing.strategies import GeneratedStream, valid_streams

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
REQUEST = LlmRequest(model="m", messages=[Message(role=Role.USER, content=[TextBlock(text="hi")])])
TEXT: list[StreamChunk] = [
    BlockStart(index=0, block_type=BlockType.TEXT),
    TextDelta(index=0, text="a"),
    TextDelta(index=0, text="b"),
    TextDelta(index=0, text="c"),
]
STOP = FinishChunk(reason=FinishReason.stop())


def finish_of(chunks: list[StreamChunk]) -> FinishReason:
    last = chunks[-1]
    assert isinstance(last, FinishChunk)
    return last.reason


@SETTINGS
@given(valid_streams())
def test_a_valid_stream_passes_through_unchanged(stream: GeneratedStream) -> None:
    adapter = ScriptedAdapter(list(stream.chunks))
    assert list(consume(adapter, REQUEST, Signal())) == list(stream.chunks)
    assert adapter.calls == [REQUEST]


@SETTINGS
@given(valid_streams(), st.data())
def test_a_raise_mid_stream_becomes_one_terminal_error_finish(
    stream: GeneratedStream, data: st.DataObject
) -> None:
    k = data.draw(st.integers(min_value=0, max_value=len(stream.chunks) - 1))
    out = list(consume(ScriptedAdapter(list(stream.chunks), raise_after=k), REQUEST, Signal()))
    assert out[:-1] == list(stream.chunks[:k])
    reason = finish_of(out)
    assert reason.kind is FinishKind.ERROR
    assert reason.failure is not None and reason.failure.code == "stream.scripted.failure"
    # the wrapped stream still satisfies the finish rules, and open blocks are allowed
    assert [v.rule_id for v in check(out) if "finish" in v.rule_id] == []


def test_a_raise_after_an_abort_becomes_aborted() -> None:
    signal = Signal()
    out: list[StreamChunk] = []
    for chunk in consume(ScriptedAdapter([*TEXT, STOP]), REQUEST, signal):
        out.append(chunk)
        if len(out) == 2:
            signal.abort("user cancelled")
    assert out[:2] == TEXT[:2]
    assert len(out) == 3
    reason = finish_of(out)
    assert reason.kind is FinishKind.ABORTED
    assert reason.failure is not None and "user cancelled" in reason.failure.message
    result = assemble(out)
    assert result.message.content == (TextBlock(text="a"),)  # interrupted text is kept


class IgnoresSignal(LlmAdapter):
    """Never looks at its signal; the wrapper must sever it."""

    def __init__(self) -> None:
        self.closed = False
        self.pulled = 0

    def stream(self, request: LlmRequest, signal: Signal) -> Iterator[StreamChunk]:
        try:
            for chunk in [*TEXT, STOP]:
                self.pulled += 1
                yield chunk
        finally:
            self.closed = True


def test_wrapper_severs_an_adapter_that_ignores_the_signal() -> None:
    signal = Signal()
    adapter = IgnoresSignal()
    out: list[StreamChunk] = []
    for chunk in consume(adapter, REQUEST, signal):
        out.append(chunk)
        if len(out) == 1:
            signal.abort("enough")
    assert out[0] == TEXT[0]
    assert finish_of(out).kind is FinishKind.ABORTED
    assert len(out) == 2
    assert adapter.pulled == 1 and adapter.closed


def test_already_aborted_signal_yields_only_aborted() -> None:
    signal = Signal()
    signal.abort("early")
    out = list(consume(ScriptedAdapter([*TEXT, STOP]), REQUEST, signal))
    assert len(out) == 1 and finish_of(out).kind is FinishKind.ABORTED


def test_in_band_error_finish_passes_through() -> None:
    failing = FinishChunk(reason=FinishReason.error("provider said no", "p.x"))
    out = list(consume(ScriptedAdapter([*TEXT, failing]), REQUEST, Signal()))
    assert out == [*TEXT, failing]


def test_missing_finish_ends_in_error() -> None:
    out = list(consume(ScriptedAdapter(TEXT), REQUEST, Signal()))
    reason = finish_of(out)
    assert reason.kind is FinishKind.ERROR
    assert reason.failure is not None and reason.failure.code == "stream.missing-finish"


def test_nothing_is_read_after_the_adapters_finish() -> None:
    after = TextDelta(index=0, text="late")
    out = list(consume(ScriptedAdapter([STOP, after]), REQUEST, Signal()))
    assert out == [STOP]


class RaisesEagerly(LlmAdapter):
    def stream(self, request: LlmRequest, signal: Signal) -> Iterator[StreamChunk]:
        raise ValueError("bad config")


class CrashesProcess(LlmAdapter):
    def stream(self, request: LlmRequest, signal: Signal) -> Iterator[StreamChunk]:
        yield STOP
        raise AssertionError("unreachable")


def test_eager_raise_becomes_error_finish_with_generic_code() -> None:
    out = list(consume(RaisesEagerly(), REQUEST, Signal()))
    reason = finish_of(out)
    assert reason.kind is FinishKind.ERROR
    assert reason.failure == reason.failure.__class__(
        message="bad config", code="stream.adapter-raised"
    )


class RaisesWithoutAMessage(LlmAdapter):
    def stream(self, request: LlmRequest, signal: Signal) -> Iterator[StreamChunk]:
        raise ValueError()


def test_an_error_without_a_message_is_named_by_its_type() -> None:
    # stream.finish.failure: the message is any string; an error with none is named by its
    # type (a Python caller's adapter; every error a protocol input raises has a message)
    reason = finish_of(list(consume(RaisesWithoutAMessage(), REQUEST, Signal())))
    assert reason.kind is FinishKind.ERROR
    assert reason.failure == reason.failure.__class__(
        message="ValueError", code="stream.adapter-raised"
    )


class SimulatedCrash(BaseException):
    pass


def test_base_exceptions_are_not_converted() -> None:
    def source() -> Iterator[StreamChunk]:
        yield TEXT[0]
        raise SimulatedCrash

    with pytest.raises(SimulatedCrash):
        list(guard_stream(source(), Signal()))


def test_per_call_scripts_and_exhaustion() -> None:
    adapter = ScriptedAdapter(
        [[*TEXT, STOP], Script(chunks=[*TEXT], raise_after=1, error_message="flaky")]
    )
    assert list(consume(adapter, REQUEST, Signal())) == [*TEXT, STOP]
    second = list(consume(adapter, REQUEST, Signal()))
    assert second[0] == TEXT[0] and finish_of(second).failure.message == "flaky"  # type: ignore[union-attr]
    with pytest.raises(ScriptedFailure) as caught:
        adapter.stream(REQUEST, Signal())
    assert caught.value.code == "stream.scripted.exhausted"
    third = list(consume(adapter, REQUEST, Signal()))
    assert finish_of(third).failure.code == "stream.scripted.exhausted"  # type: ignore[union-attr]
    assert len(adapter.calls) == 4


def test_raise_after_the_whole_script() -> None:
    adapter = ScriptedAdapter(TEXT, raise_after=len(TEXT))
    with pytest.raises(ScriptedFailure):
        list(adapter.stream(REQUEST, Signal()))


def test_scripted_adapter_honours_its_signal() -> None:
    signal = Signal()
    signal.abort("x")
    with pytest.raises(StreamError) as caught:
        list(ScriptedAdapter(TEXT).stream(REQUEST, signal))
    assert caught.value.code == "stream.aborted"
    assert list(ScriptedAdapter(TEXT, honor_signal=False).stream(REQUEST, signal)) == TEXT


@pytest.mark.parametrize(
    "build",
    [
        lambda: ScriptedAdapter("abc"),  # type: ignore[arg-type]
        lambda: ScriptedAdapter([TEXT[0], [TEXT[0]]]),  # type: ignore[list-item]
        lambda: ScriptedAdapter([[TEXT[0]]], raise_after=1),
        lambda: ScriptedAdapter(TEXT, raise_after=-1),
        lambda: Script(chunks=[1]),  # type: ignore[list-item]
        lambda: consume(object(), REQUEST, Signal()),  # type: ignore[arg-type]
        lambda: consume(ScriptedAdapter(TEXT), "req", Signal()),  # type: ignore[arg-type]
        lambda: consume(ScriptedAdapter(TEXT), REQUEST, None),  # type: ignore[arg-type]
        lambda: LlmRequest(model="", messages=[]),
        lambda: LlmRequest(model="m", messages=["hi"]),  # type: ignore[list-item]
    ],
)
def test_bad_arguments_raise_invalid_argument(build: object) -> None:
    with pytest.raises(InvalidArgument):
        build()  # type: ignore[operator]


@pytest.mark.parametrize("limits", [{"max_tokens": "x"}, {"max_tokens": 2.5},
                                    {"max_tokens": True}, {"temperature": "hot"},
                                    {"temperature": float("nan")}, {"temperature": False}])
def test_llm_request_refuses_sampling_limits_of_the_wrong_type(limits: dict[str, object]
                                                               ) -> None:
    # spec: deltas.llm-input -- maxTokens an int, temperature a finite number
    with pytest.raises(InvalidArgument):
        LlmRequest(model="m", messages=[], **limits)  # type: ignore[arg-type]
    ok = LlmRequest(model="m", messages=[], max_tokens=3, temperature=0.5)
    assert (ok.max_tokens, ok.temperature) == (3, 0.5)


class KeepsItsSource(LlmAdapter):
    """Holds on to the generator it hands out, so only the wrapper's close() can finish it."""

    def __init__(self) -> None:
        self.closed = False
        self.source: Iterator[StreamChunk] | None = None

    def stream(self, request: LlmRequest, signal: Signal) -> Iterator[StreamChunk]:
        def chunks() -> Iterator[StreamChunk]:
            try:
                yield from [*TEXT, STOP]
                yield STOP  # never read: the wrapper reads nothing after a finish
            finally:
                self.closed = True

        self.source = chunks()
        return self.source


def test_wrapper_closes_the_source_it_read() -> None:
    # spec: stream.nothing-after-finish -- the wrapper stops reading at the finish and closes
    # the source's iterator then (what lets a Python source release its connection), even
    # while the adapter still holds it
    adapter = KeepsItsSource()
    out = list(consume(adapter, REQUEST, Signal()))
    assert out == [*TEXT, STOP]
    assert adapter.source is not None and adapter.closed
