"""Properties of the governed delta channel, checked with hypothesis.

spec: deltas.guard-before-delivery, deltas.reset, deltas.live-window, deltas.sever-sticky,
deltas.hold-back (ADR 0119 #6, #10, #11)
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from loom_ref.effects import (
    EffectContext,
    EffectDelta,
    RetryMiddleware,
    Signal,
    safety_middleware,
)
from loom_ref.errors import LoomError
from loom_ref.governance import SafetyViolation, deny_patterns

from .helpers import Sink
from .test_decisions import call, runtime

PATTERNS = ["abba", "bab", "cc", "acb"]
DENY = deny_patterns({f"p{i}": p for i, p in enumerate(PATTERNS)})
TEXT = st.text(alphabet="abc ", max_size=40)


def splits(text: str) -> st.SearchStrategy[list[str]]:
    """Any split of ``text`` into non-empty deltas."""
    if len(text) < 2:
        return st.just([text] if text else [])
    cuts = st.sets(st.integers(min_value=1, max_value=len(text) - 1), max_size=len(text))
    return cuts.map(lambda cs: [text[a:b] for a, b in zip([0, *sorted(cs)],
                                                           [*sorted(cs), len(text)],
                                                           strict=True)])


@st.composite
def split_text(draw: st.DrawFn) -> tuple[str, list[str]]:
    text = draw(TEXT)
    return text, draw(splits(text))


def output_rejects(text: str) -> bool:
    try:
        DENY.check_output(text)
    except SafetyViolation:
        return True
    return False


def writer(attempts: list[list[str]], fail: list[bool], log: list[str] | None = None,
           aborts: dict[tuple[int, int], Signal] | None = None,
           channels: list[Any] | None = None) -> Any:
    def execute(ctx: EffectContext, _: Any) -> str:
        assert ctx.on_delta is not None
        if channels is not None:
            channels.append(ctx.on_delta)
        script = attempts[ctx.attempt - 1]
        for i, piece in enumerate(script):
            signal = (aborts or {}).get((ctx.attempt, i))
            if signal is not None:
                signal.abort("stop")
                if log is not None:
                    log.append("abort")
            try:
                ctx.on_delta(piece)
            except LoomError:
                if log is not None:
                    log.append("sever")
                raise
        ctx.on_delta.end()
        if fail[ctx.attempt - 1]:
            raise ConnectionError("retry me")
        return "".join(script)

    return execute


@settings(max_examples=200, deadline=None)
@given(split_text())
def test_the_guard_severs_iff_the_output_form_rejects(case: tuple[str, list[str]]) -> None:
    # spec: deltas.guard-before-delivery -- patterns narrower than the window
    text, deltas = case
    sink = Sink()
    rt = runtime(writer([deltas], [False]), middleware=[safety_middleware([DENY])])
    try:
        result: Any = call(rt, sink)
        code = None
    except LoomError as error:
        result, code = None, error.code
    if output_rejects(text):
        assert code == "governance.delta-severed"
        first = min(m.end() for p in PATTERNS for m in [re.search(p, text)] if m)
        assert len(sink.text) < first  # the delta completing the first match never arrived
    else:
        assert code is None and result == text == sink.text


@st.composite
def retried(draw: st.DrawFn) -> tuple[list[list[str]], list[bool]]:
    n = draw(st.integers(min_value=1, max_value=4))
    attempts = [draw(split_text())[1] for _ in range(n)]
    fail = [draw(st.booleans()) for _ in range(n)]
    return attempts, fail


@settings(max_examples=150, deadline=None)
@given(retried(), st.booleans())
def test_what_a_sink_saw_is_a_prefix_of_the_final_text(
        case: tuple[list[list[str]], list[bool]], guarded: bool) -> None:
    # spec: deltas.reset -- "the reconstruction equals the recorded decision"
    attempts, fail = case
    per_call, configured = Sink(), Sink()
    middleware: list[Any] = [RetryMiddleware(len(attempts), base_delay=0)]
    if guarded:
        middleware.append(safety_middleware([DENY]))
    rt = runtime(writer(attempts, fail), sink=configured, middleware=middleware)
    try:
        result: Any = call(rt, per_call)
    except (LoomError, ConnectionError):
        result = None
    executed = sum(1 for c in per_call.chunks if c.reset) + 1
    final = "".join(attempts[executed - 1])
    for sink in (per_call, configured):
        assert final.startswith(sink.text)
    assert [c.attempt for c in per_call.chunks if c.reset] == list(range(2, executed + 1))
    if result is not None:
        assert result == per_call.text == configured.text == final
        assert per_call.chunks[-1].done and not any(c.done for c in configured.chunks)
    else:
        assert not any(c.done for c in per_call.chunks)


@settings(max_examples=150, deadline=None)
@given(retried(), st.data())
def test_nothing_reaches_a_sink_after_a_sever_an_abort_or_settlement(
        case: tuple[list[list[str]], list[bool]], data: st.DataObject) -> None:
    # spec: deltas.live-window, deltas.sever-sticky
    attempts, fail = case
    signal = Signal()
    aborts: dict[tuple[int, int], Signal] = {}
    spots = [(a + 1, i) for a, script in enumerate(attempts) for i in range(len(script))]
    use_abort: bool = data.draw(st.booleans())
    if spots and use_abort:
        aborts[data.draw(st.sampled_from(spots))] = signal
    log: list[str] = []
    channels: list[Any] = []

    class Logged(Sink):
        def __call__(self, chunk: EffectDelta) -> None:
            log.append("reset" if chunk.reset else "done" if chunk.done else "text")
            super().__call__(chunk)

    rt = runtime(writer(attempts, fail, log, aborts, channels), sink=Logged(),
                 middleware=[RetryMiddleware(len(attempts), base_delay=0),
                             safety_middleware([DENY])])
    try:
        call(rt, Logged(), signal)
    except (LoomError, ConnectionError):
        pass
    log.append("settled")
    for channel in channels:  # an effect writing late, through every attempt's channel
        channel("late text")
        channel.end()
    assert log[-1] == "settled"
    if "abort" in log:
        assert set(log[log.index("abort"):]) <= {"abort", "sever", "settled"}
    for i, event in enumerate(log):
        if event == "sever":  # nothing until the next attempt's reset (or ever)
            after = [e for e in log[i + 1:] if e in ("text", "done", "reset")]
            assert after[:1] in ([], ["reset"])


@st.composite
def secret_text(draw: st.DrawFn) -> tuple[str, list[str]]:
    parts = draw(st.lists(st.one_of(st.text(alphabet="abc ", max_size=8),
                                    st.sampled_from(["KEY-1234", "KEY-9"])), max_size=6))
    text = "".join(parts)
    return text, draw(splits(text))


HOLD = deny_patterns({"key": r"KEY-[0-9]{1,4}"})


@settings(max_examples=200, deadline=None)
@given(secret_text())
def test_with_hold_back_no_sink_sees_the_first_character_of_a_match(
        case: tuple[str, list[str]]) -> None:
    # spec: deltas.hold-back (extension) -- flushed on success, dropped on sever
    text, deltas = case
    per_call, configured = Sink(), Sink()
    rt = runtime(writer([deltas], [False]), sink=configured,
                 middleware=[safety_middleware([HOLD], hold_back=True)])
    try:
        result: Any = call(rt, per_call)
    except LoomError as error:
        assert error.code == "governance.delta-severed"
        result = None
    match = re.search(r"KEY-[0-9]", text)
    for sink in (per_call, configured):
        if match is not None:
            assert len(sink.text) <= match.start()
        assert text.startswith(sink.text)
    if match is None:
        assert result == text == per_call.text == configured.text
    else:
        assert result is None
