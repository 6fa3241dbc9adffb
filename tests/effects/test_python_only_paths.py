"""Paths of the effect layer only a Python caller reaches (issue 30): each is a region of
``tools/coverage/python-only.toml`` that names this file, and each test shows the behaviour
the region's reason describes, with the objects only Python can hand over."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from loom_ref.effects import (
    AbortedError,
    DirectWriter,
    Effect,
    EffectCall,
    EffectContext,
    EffectRuntime,
    Grant,
    GrantAuthorizer,
    ManualClock,
    Mode,
    RetryMiddleware,
    SafetyMiddleware,
    Signal,
    collect_stream,
    create_llm_effect,
    safety_middleware,
)
from loom_ref.effects.deltas import DeltaChannel, EffectDelta
from loom_ref.effects.recorder import DeltaRecorder
from loom_ref.errors import InvalidArgument, LoomError
from loom_ref.governance import pii_validator
from loom_ref.governance.deny import deny_patterns
from loom_ref.stream import ScriptedAdapter
from tests.deltas.helpers import Sink, text_stream


def test_collect_stream_checks_the_signal_after_a_source_without_finish() -> None:
    # spec: deltas.collect-signal -- a raw source that ends right after the write that
    # aborted: the abort is found after the loop, not folded into a missing finish
    signal = Signal()

    def on_delta(text: object) -> None:
        signal.abort("enough")

    ctx = EffectContext(EffectCall(tool_id="t", input=None, mode=Mode.TRANSIENT,
                                   principal="p"), signal, ManualClock())
    ctx.on_delta = on_delta
    start_and_text = text_stream(["a"])[:2]  # block-start and the text delta: nothing more
    with pytest.raises(AbortedError) as info:
        collect_stream(start_and_text, ctx)
    assert info.value.reason == "enough"


def _runtime(execute: Any, middleware: list[Any]) -> EffectRuntime:
    return EffectRuntime([Effect(tool_id="t", execute=execute)], middleware=middleware,
                         clock=ManualClock(), on_warn=lambda text: None)


def test_a_str_subclass_is_delivered_as_a_plain_str() -> None:
    # spec: deltas.writer -- the text of a delta is a str; a subclass is taken as its text
    class Text(str):
        pass

    def execute(ctx: EffectContext, input: Any) -> str:
        assert ctx.on_delta is not None
        ctx.on_delta(Text("hi"))
        return "hi"

    sink = Sink()
    assert _runtime(execute, []).invoke_transient("t", None, principal="p",
                                                  on_delta=sink) == "hi"
    text = sink.chunks[0].delta.value
    assert type(text) is str and text == "hi"


class _Swallow:
    """A Python middleware that turns any LoomError of the rest of the route into a value."""

    def handle(self, ctx: EffectContext, input: Any, next: Any) -> Any:
        try:
            return next(ctx, input)
        except LoomError as error:
            return f"swallowed {error.code}"


def test_a_swallowed_sever_sends_no_terminal_chunk() -> None:
    # spec: deltas.terminal, deltas.sever-sticky -- the route returned, but the attempt was
    # severed: the channel settles and sends nothing more, no end chunk
    def execute(ctx: EffectContext, input: Any) -> str:
        assert ctx.on_delta is not None
        ctx.on_delta("fine ")
        ctx.on_delta("s3cr3t")
        return "never"

    sink = Sink()
    runtime = _runtime(execute, [_Swallow(),
                                 safety_middleware([deny_patterns({"secret": "s3cr3t"})])])
    out = runtime.invoke_transient("t", None, principal="p", on_delta=sink)
    assert out == "swallowed governance.delta-severed"
    assert sink.seen == [{"delta": "fine ", "origin": "llm:t"}]


def test_the_end_chunk_after_a_swallowed_sever_raises_the_sever_again() -> None:
    # spec: deltas.sever-sticky -- every later write of the attempt, the end chunk included,
    # raises the sever again; only a Python effect can catch the writes' sever and not the
    # end's (the protocol's scripted effect catches both, spec: deltas.vector-run)
    seen: list[Any] = []

    def execute(ctx: EffectContext, input: Any) -> str:
        write = ctx.on_delta
        assert write is not None
        try:
            write("s3cr3t")
        except LoomError as sever:
            seen.append(sever)
        try:
            write.end()
        except LoomError as again:
            seen.append(again)
        return "never"

    sink = Sink()
    runtime = _runtime(execute, [safety_middleware([deny_patterns({"secret": "s3cr3t"})])])
    with pytest.raises(LoomError) as info:
        runtime.invoke_transient("t", None, principal="p", on_delta=sink)
    assert info.value.code == "governance.delta-severed"
    assert len(seen) == 2 and seen[1] is seen[0] is info.value
    assert sink.chunks == []


def test_a_text_chunk_equals_the_record_the_constructor_builds() -> None:
    # spec: effects.lean-route -- the channel builds its text chunks without the record's
    # validators; a Python sink sees the same record EffectDelta.text builds, attempt None
    def execute(ctx: EffectContext, input: Any) -> str:
        assert ctx.on_delta is not None
        ctx.on_delta("hi")
        return "hi"

    sink = Sink()
    _runtime(execute, []).invoke_transient("t", None, principal="p", on_delta=sink)
    chunk = sink.chunks[0]
    assert chunk.attempt is None and chunk.usage is None
    assert chunk == EffectDelta.text("hi", "llm:t")


class _PlainGuard:
    """A middleware whose delta guard factory returns a plain callable (no reset)."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def delta_guard(self, ctx: EffectContext) -> Any:
        return self.seen.append

    def handle(self, ctx: EffectContext, input: Any, next: Any) -> Any:
        return next(ctx, input)


def test_a_guard_without_reset_is_built_again_for_the_next_attempt() -> None:
    # spec: deltas.reset -- a guard with no reset is simply a fresh one per attempt
    def execute(ctx: EffectContext, input: Any) -> str:
        assert ctx.on_delta is not None
        ctx.on_delta(f"try {ctx.attempt}")
        if ctx.attempt == 1:
            raise RuntimeError("flaky")
        return "ok"

    guard = _PlainGuard()
    sink = Sink()
    runtime = _runtime(execute, [RetryMiddleware(2, base_delay=0.0), guard])
    assert runtime.invoke_transient("t", None, principal="p", on_delta=sink) == "ok"
    assert guard.seen == ["try 1", "try 2"]
    assert sink.text == "try 2"


class _SharedGuard:
    """A middleware whose delta guard factory hands every attempt the SAME guard object,
    which keeps a running text and has a ``reset`` (only a Python middleware can do this: the
    protocol's guards are built fresh per attempt by the safety and budget middleware)."""

    def __init__(self) -> None:
        self.text = ""
        self.resets = 0

    def delta_guard(self, ctx: EffectContext) -> Any:
        return self

    def check(self, delta: str) -> None:
        self.text += delta
        if "s3cr3t" in self.text:
            raise AbortedError("secret")

    def reset(self) -> None:
        self.resets += 1
        self.text = ""

    def handle(self, ctx: EffectContext, input: Any, next: Any) -> Any:
        return next(ctx, input)


def test_a_reused_guard_is_reset_at_each_retry() -> None:
    # spec: deltas.reset -- the channel "calls reset() on any guard that has one" from
    # attempt 2 on: "s3c" of attempt 1 and "r3t" of attempt 2 never form one match
    def execute(ctx: EffectContext, input: Any) -> str:
        assert ctx.on_delta is not None
        ctx.on_delta("s3c" if ctx.attempt == 1 else "r3t")
        if ctx.attempt == 1:
            raise RuntimeError("flaky")
        return "ok"

    guard = _SharedGuard()
    sink = Sink()
    runtime = _runtime(execute, [RetryMiddleware(2, base_delay=0.0), guard])
    assert runtime.invoke_transient("t", None, principal="p", on_delta=sink) == "ok"
    assert guard.resets == 1
    assert guard.text == "r3t"
    assert sink.text == "r3t"


def test_a_channel_repr_says_where_it_stands() -> None:
    channel = DeltaChannel(tool_id="t", signal=Signal(), per_call=None, configured=None,
                           factories=(), on_warn=lambda text: None)
    assert repr(channel) == ("DeltaChannel(origin='llm:t', attempt=0, settled=False, "
                             "severed=False)")


def test_a_direct_writer_drops_an_empty_text() -> None:
    # spec: deltas.no-runtime -- an empty write is no delta
    sink = Sink()
    write = DirectWriter(tool_id="t", per_call=sink, configured=None)
    write("")
    assert sink.chunks == []
    write("a")
    assert sink.seen == [{"delta": "a", "origin": "llm:t"}]


def test_a_guard_factory_returning_no_guard_is_refused() -> None:
    class _Nothing:
        def delta_guard(self, ctx: EffectContext) -> Any:
            return 42  # neither a check, a hold-back guard nor a callable

        def handle(self, ctx: EffectContext, input: Any, next: Any) -> Any:
            return next(ctx, input)

    def execute(ctx: EffectContext, input: Any) -> str:
        return "never"

    with pytest.raises(InvalidArgument, match="cannot check text"):
        _runtime(execute, [_Nothing()]).invoke_transient("t", None, principal="p",
                                                         on_delta=Sink())


def test_a_direct_writer_needs_a_tool_id() -> None:
    with pytest.raises(InvalidArgument, match="DirectWriter"):
        DirectWriter(tool_id="", per_call=None, configured=None)


def _kinds(recorder: DeltaRecorder) -> list[tuple[str, Any]]:
    return [(r["kind"], r.get("verdict")) for r in recorder.to_json()]


def test_the_tape_shows_late_and_after_sever_writes_and_a_sink_that_raised() -> None:
    # deltas.recorder (extension): what the channel dropped, and why, is on the tape
    kept: list[Any] = []

    def late(ctx: EffectContext, input: Any) -> str:
        kept.append(ctx.on_delta)
        return "done"

    recorder = DeltaRecorder()
    runtime = EffectRuntime([Effect(tool_id="t", execute=late)], clock=ManualClock(),
                            on_warn=lambda text: None, recorder=recorder)
    runtime.invoke_transient("t", None, principal="p", on_delta=Sink(fail=True))
    kept[0]("after")
    kept[0].end()
    kinds = _kinds(recorder)
    assert ("write", "late") in kinds and ("end", "late") in kinds

    def swallow(ctx: EffectContext, input: Any) -> str:
        write = ctx.on_delta
        assert write is not None
        write("x")  # delivered to a sink that raises: taped with what it raised
        for text in ("s3cr3t", "more"):
            try:
                write(text)
            except LoomError:
                pass
        try:
            write.end()
        except LoomError:
            pass
        return "never"

    recorder = DeltaRecorder()
    runtime = EffectRuntime([Effect(tool_id="t", execute=swallow)], clock=ManualClock(),
                            on_warn=lambda text: None, recorder=recorder,
                            middleware=[safety_middleware([deny_patterns({"s": "s3cr3t"})])])
    with pytest.raises(LoomError):
        runtime.invoke_transient("t", None, principal="p", on_delta=Sink(fail=True))
    kinds = _kinds(recorder)
    assert ("write", "after-sever") in kinds and ("end", "after-sever") in kinds
    delivered = [r for r in recorder.to_json() if r["kind"] == "deliver"]
    assert delivered and delivered[0]["raised"].startswith("RuntimeError")


def test_a_refused_stream_that_fails_is_taped_with_its_python_error() -> None:
    # deltas.recorder (extension): a refused stream whose effect writes nothing, then raises
    # an error that is no LoomError; and a LoomError without details
    def fail(ctx: EffectContext, input: Any) -> str:
        assert ctx.on_delta is not None
        ctx.on_delta("")
        raise ValueError("boom")

    def refused(execute: Any) -> DeltaRecorder:
        recorder = DeltaRecorder()
        runtime = EffectRuntime(
            [Effect(tool_id="t", execute=execute)], clock=ManualClock(),
            on_warn=lambda text: None, recorder=recorder,
            middleware=[safety_middleware([pii_validator(delta=False)])])
        with pytest.raises((ValueError, LoomError)):
            runtime.invoke_transient("t", None, principal="p", on_delta=Sink())
        return recorder

    records = refused(fail).to_json()
    assert [r["kind"] for r in records] == ["open", "refused", "attempt", "settle"]
    assert records[-1]["error"] == {"code": None, "message": "ValueError: boom"}

    def plain(ctx: EffectContext, input: Any) -> str:
        raise InvalidArgument("bad")

    settle = refused(plain).to_json()[-1]
    assert settle["outcome"] == "failed" and settle["error"]["code"] == "argument.invalid"
    assert "details" not in settle["error"]


def test_the_stream_budget_middleware_checks_its_arguments_when_built() -> None:
    # issue 30 (sample 713662): refused at construction, before any call builds a guard
    # (the protocol reads maxStreamTokens as an integer >= 0 before it builds one)
    from loom_ref.effects import StreamBudgetMiddleware

    for bad in (-1, True, 1.5, "5"):
        with pytest.raises(InvalidArgument):
            StreamBudgetMiddleware(bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument):
        StreamBudgetMiddleware(5, "not a counter")  # type: ignore[arg-type]


def test_is_retryable_answers_a_bool_for_a_refusal() -> None:
    # spec: effects.refusal-never-retried -- the answer of the Python API is False, not
    # merely falsy (the route only asks `not is_retryable(...)`)
    retry = RetryMiddleware(2)
    assert retry.is_retryable(InvalidArgument("x")) is False
    assert retry.is_retryable(RuntimeError("x")) is True


def test_a_grant_may_list_no_modes_and_then_allows_nothing() -> None:
    # spec: effects.authorizer -- a Python Grant takes any set of modes, the empty one
    # included (it matches no call); the route vector's reader refuses an empty "modes" list
    # before any Grant is built (effects.route/malformed-grant-modes). An Effect's modes must
    # be non-empty (effects.registration).
    grant = Grant(principal="p", tool_id="t", modes=[])
    assert grant.modes == frozenset()
    assert not grant.matches("p", "t", Mode.DURABLE)
    assert not grant.matches("p", "t", Mode.TRANSIENT)
    decision = GrantAuthorizer([grant]).authorize("p", "t", Mode.DURABLE)
    assert not decision.allowed
    with pytest.raises(InvalidArgument):
        Effect(tool_id="t", execute=lambda ctx, i: i, modes=[])


class _CheckWithFeedOnly:
    """A middleware whose guard has ``check`` and a ``feed`` but no ``flush``: only a Python
    middleware builds one (the protocol's guards have both or neither)."""

    def __init__(self) -> None:
        self.checked: list[str] = []
        self.fed: list[str] = []

    def delta_guard(self, ctx: EffectContext) -> Any:
        return self

    def check(self, delta: str) -> None:
        self.checked.append(delta)

    def feed(self, delta: str) -> None:  # no flush: not a hold-back guard
        self.fed.append(delta)

    def handle(self, ctx: EffectContext, input: Any, next: Any) -> Any:
        return next(ctx, input)


def test_a_guard_needs_both_feed_and_flush_to_hold_back() -> None:
    # spec: deltas.hold-back -- a hold-back guard is one with feed AND flush; a guard with
    # only one of them checks through its check, and delivery is not held
    def execute(ctx: EffectContext, input: Any) -> str:
        assert ctx.on_delta is not None
        ctx.on_delta("ab")
        ctx.on_delta("cd")
        return "abcd"

    guard = _CheckWithFeedOnly()
    sink = Sink()
    assert _runtime(execute, [guard]).invoke_transient("t", None, principal="p",
                                                        on_delta=sink) == "abcd"
    assert guard.checked == ["ab", "cd"]
    assert guard.fed == []
    assert sink.text == "abcd"


def test_an_llm_effect_is_not_idempotent_unless_told() -> None:
    # spec: deltas.llm-input -- create_llm_effect(..., idempotent=False): a model call is
    # not declared idempotent by default (no vector asks is_idempotent of it)
    adapter = ScriptedAdapter([])
    assert create_llm_effect(adapter, tool_id="m").idempotent is False
    assert create_llm_effect(adapter, tool_id="m", idempotent=True).idempotent is True
    runtime = EffectRuntime([create_llm_effect(adapter, tool_id="m")], clock=ManualClock())
    assert runtime.is_idempotent("m") is False


def test_collect_stream_closes_its_source_when_it_stops_at_the_finish() -> None:
    # spec: deltas.collect-signal, stream.nothing-after-finish -- the collector stops at the
    # finish chunk and closes its source at once, though the caller still holds the source
    # (the protocol's source, consume's generator, is held by nobody else: a change here
    # shows only as the moment Python finalises it)
    closed: list[bool] = []
    pulled: list[int] = []

    def source() -> Iterator[Any]:
        try:
            for i, chunk in enumerate(text_stream(["a", "b"])):
                pulled.append(i)
                yield chunk
            pulled.append(-1)  # never: nothing is read after the finish
        finally:
            closed.append(True)

    ctx = EffectContext(EffectCall(tool_id="t", input=None, mode=Mode.TRANSIENT,
                                   principal="p"), Signal(), ManualClock())
    held = source()
    result = collect_stream(held, ctx)
    assert result.finish.kind.value == "stop"
    assert -1 not in pulled
    assert closed == [True]


def test_a_safety_middleware_built_directly_does_not_hold_back() -> None:
    # spec: deltas.hold-back -- the extension is opt-in, off by default, for the class as for
    # safety_middleware (which every vector calls with hold_back given)
    def execute(ctx: EffectContext, input: Any) -> str:
        assert ctx.on_delta is not None
        ctx.on_delta("hello ")
        ctx.on_delta("world")
        return "hello world"

    middleware = SafetyMiddleware([deny_patterns({"key": "KEY-[0-9]{1,4}"})])
    assert middleware.hold_back is False
    sink = Sink()
    assert _runtime(execute, [middleware]).invoke_transient(
        "t", None, principal="p", on_delta=sink) == "hello world"
    assert [c["delta"] for c in sink.seen[:2]] == ["hello ", "world"]
    # a validator without a delta form is refused only with hold-back on
    SafetyMiddleware([pii_validator(delta=False)])
    with pytest.raises(InvalidArgument):
        SafetyMiddleware([pii_validator(delta=False)], hold_back=True)
