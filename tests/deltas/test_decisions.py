"""ADR 0119, decision by decision: each test names the decision (and the spec anchor) it pins.

spec: spec/deltas.md (chapter 3a)
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from loom_ref.effects import (
    SILENT,
    STREAMING_DISABLED,
    AbortedError,
    BudgetMeter,
    DecideScope,
    DeltaChannel,
    Effect,
    EffectCall,
    EffectContext,
    EffectDelta,
    EffectRuntime,
    GrantAuthorizer,
    KillSwitch,
    ManualClock,
    Mode,
    RetryMiddleware,
    Signal,
    delta_to_json,
    pattern_redactor,
    redaction_middleware,
    safety_middleware,
    stream_budget_middleware,
)
from loom_ref.effects.middleware import Next
from loom_ref.errors import InvalidArgument
from loom_ref.governance import (
    TaintedValue,
    deny_patterns,
    pii_validator,
    taint,
    unwrap_tainted,
)
from loom_ref.journal import MemoryStore, Status
from loom_ref.kernel import ExecutionContext, Runtime, Workflow
from loom_ref.stream import TokenUsage

from .helpers import Sink, streaming

USAGE = TokenUsage(input_tokens=7, output_tokens=3)
ORIGIN = "llm:llm"


def runtime(execute: Any = None, *, sink: Any = None, warnings: list[str] | None = None,
            **kw: Any) -> EffectRuntime:
    effect = Effect(tool_id="llm", execute=execute or streaming([["Hel", "lo"]], usage=USAGE),
                    delta_sink=sink)
    return EffectRuntime([effect], clock=ManualClock(),
                         on_warn=(warnings.append if warnings is not None else None), **kw)


def call(rt: EffectRuntime, sink: Any = None, signal: Signal | None = None) -> Any:
    return rt.invoke_transient("llm", None, principal="x1", signal=signal, on_delta=sink)


def text(t: str) -> dict[str, Any]:
    return {"delta": t, "origin": ORIGIN}


DONE = {"delta": "", "origin": ORIGIN, "done": True,
        "usage": {"inputTokens": 7, "outputTokens": 3}}


# -- Decision 1: a per-call sink ----------------------------------------------------------

def test_d1_per_call_sink_on_the_runtime() -> None:
    # spec: deltas.per-call-sink
    sink = Sink()
    assert call(runtime(), sink) == "Hello"
    assert sink.seen == [text("Hel"), text("lo"), DONE]


def test_d1_the_scope_only_forwards_the_sink() -> None:
    # spec: deltas.per-call-sink -- the scope forwards; deliveries equal the runtime's
    direct, scoped = Sink(), Sink()
    call(runtime(), direct)
    with DecideScope(runtime(), "x1") as scope:
        assert scope.invoke_transient("llm", None, on_delta=scoped) == "Hello"
    assert scoped.seen == direct.seen


# -- Decision 2: it travels in the context; a refused call never reaches the sink ----------

def test_d2_the_channel_is_on_the_context() -> None:
    # spec: deltas.channel
    seen: list[Any] = []

    def execute(ctx: EffectContext, _: Any) -> str:
        seen.append(ctx.on_delta)
        return "x"

    sink = Sink()
    call(runtime(execute), sink)
    (channel,) = seen
    assert isinstance(channel, DeltaChannel) and channel.per_call is sink


@pytest.mark.parametrize(
    "config, signal, code",
    [
        ({"authorizer": GrantAuthorizer([])}, None, "effect.denied"),
        ({"meter": BudgetMeter(0)}, None, "effect.over-budget"),
        ({"kill_switch": KillSwitch()}, None, "effect.killed"),
        ({}, "aborted", "effect.aborted"),
    ],
)
def test_d2_a_refused_call_never_calls_its_sinks(config: dict[str, Any], signal: str | None,
                                                 code: str) -> None:
    # spec: deltas.refused-call
    if "kill_switch" in config:
        config["kill_switch"].kill("maintenance")
    sig = Signal()
    if signal:
        sig.abort(signal)
    per_call, configured = Sink(), Sink()
    rt = runtime(sink=configured, middleware=[RetryMiddleware(3, base_delay=0)], **config)
    with pytest.raises(Exception) as info:
        call(rt, per_call, sig)
    assert getattr(info.value, "code", None) == code
    assert per_call.chunks == [] and configured.chunks == []


def test_d2_mode_refused_never_calls_its_sinks() -> None:
    # spec: deltas.refused-call
    per_call = Sink()
    effect = Effect(tool_id="llm", execute=streaming([["x"]]), modes=Mode.DURABLE)
    rt = EffectRuntime([effect])
    with pytest.raises(Exception, match="transient"):
        call(rt, per_call)
    assert per_call.chunks == []


# -- Decision 3: the payload -------------------------------------------------------------

def test_d3_payload_shapes() -> None:
    # spec: deltas.record, deltas.json
    assert delta_to_json(EffectDelta.text("a", ORIGIN)) == text("a")
    assert delta_to_json(EffectDelta.restart(2, ORIGIN)) == {
        "delta": "", "origin": ORIGIN, "reset": True, "attempt": 2}
    assert EffectDelta.end(ORIGIN, USAGE).to_json() == DONE
    assert EffectDelta.end(ORIGIN).to_json() == {"delta": "", "origin": ORIGIN, "done": True}


@pytest.mark.parametrize(
    "fields",
    [
        {"delta": taint("", ORIGIN)},  # a text chunk is non-empty
        {"delta": "plain", },  # not tainted
        {"delta": taint(3, ORIGIN)},  # not a string
        {"delta": taint("x", ORIGIN), "done": True},  # terminal has an empty delta
        {"delta": taint("", ORIGIN), "reset": True, "attempt": 1},  # reset precedes n > 1
        {"delta": taint("", ORIGIN), "reset": True},  # reset carries its attempt
        {"delta": taint("", ORIGIN), "reset": True, "attempt": 2, "done": True},
        {"delta": taint("x", ORIGIN), "attempt": 2},  # only resets carry attempt
        {"delta": taint("x", ORIGIN), "usage": USAGE},  # usage is the terminal's
        {"delta": taint("", ORIGIN), "done": True, "usage": {"inputTokens": 1}},
        {"delta": taint("", ORIGIN), "done": 1},
    ],
)
def test_d3_malformed_chunks_are_refused(fields: dict[str, Any]) -> None:
    # spec: deltas.record
    with pytest.raises(InvalidArgument):
        EffectDelta(**fields)


# -- Decision 4 (as amended by 12): both sinks, per-call first; no terminal on fallback -----

def test_d4_both_sinks_fire_per_call_first() -> None:
    # spec: deltas.channel
    log: list[str] = []
    per_call, configured = Sink("call", log), Sink("configured", log)
    call(runtime(sink=configured), per_call)
    assert log == ["call", "configured", "call", "configured", "call"]
    assert configured.seen == [text("Hel"), text("lo")]  # never the terminal (decision 12)


def test_d4_a_complete_fallback_sends_no_terminal() -> None:
    # spec: deltas.terminal -- "a complete fallback produced no deltas to terminate"
    per_call = Sink()
    assert call(runtime(streaming([[]], end=False)), per_call) == ""
    assert per_call.chunks == []


def test_d4_an_end_chunk_alone_is_a_streamed_path() -> None:
    # spec: deltas.terminal -- the effect said it streamed (e.g. a tool-call-only reply)
    per_call = Sink()
    call(runtime(streaming([[]], usage=USAGE)), per_call)
    assert per_call.seen == [DONE]


# -- Decision 5: live-only ---------------------------------------------------------------

def test_d5_deltas_are_never_journaled_nor_delivered_on_replay() -> None:
    # spec: deltas.live-only
    per_call, configured = Sink(), Sink()
    host = runtime(sink=configured)
    runs: list[int] = []

    def decider(scope: DecideScope) -> Any:
        runs.append(1)
        return scope.invoke_transient("llm", None, on_delta=per_call)

    def body(ctx: ExecutionContext, _: Any) -> Generator[Any, Any, Any]:
        step = yield ctx.execute("llm")
        plan = yield ctx.decide("plan", decider)
        gate = yield ctx.suspend("approve")
        return [step, plan, gate]

    store = MemoryStore()
    rt = Runtime(store=store, effects=host, workflows=[Workflow(name="w", body=body)])
    assert rt.start("w", execution_id="x1").status is Status.SUSPENDED
    first = (list(per_call.chunks), list(configured.chunks))
    assert [c.to_json() for c in first[0]] == [text("Hel"), text("lo"), DONE]
    assert len(first[1]) == 4  # the durable step's two deltas, then the decider's
    journal = [e.payload for e in store.read("x1").events]
    # only the returned value "Hello" is journaled: no delta, no origin, no terminal
    assert "'Hel'" not in repr(journal) and "'lo'" not in repr(journal)
    assert "llm:llm" not in repr(journal) and "done" not in repr(journal)
    result = rt.resume("x1", "approve", "ok")
    assert result.status is Status.COMPLETED and result.output == ["Hello", "Hello", "ok"]
    assert runs == [1]  # the recorded decision was served; the decider never ran again
    assert (per_call.chunks, configured.chunks) == first  # nothing delivered on replay


# -- Decision 6: a sink cannot hurt the call, and is silent once it should be ---------------

def test_d6_a_raising_sink_is_reported_and_the_call_carries_on() -> None:
    # spec: deltas.sink-isolated
    warnings: list[str] = []
    per_call, configured = Sink("call", fail=True), Sink()
    assert call(runtime(sink=configured, warnings=warnings), per_call) == "Hello"
    assert configured.seen == [text("Hel"), text("lo")]
    assert len(per_call.chunks) == 3
    assert warnings == ["delta sink raised: RuntimeError: call is broken"] * 3


def test_d6_nothing_after_settlement() -> None:
    # spec: deltas.live-window -- an effect writing late reaches nobody
    kept: list[Any] = []

    def execute(ctx: EffectContext, _: Any) -> str:
        kept.append(ctx.on_delta)
        return "done"

    per_call, configured = Sink(), Sink()
    call(runtime(execute, sink=configured), per_call)
    kept[0]("late")
    kept[0].end()
    assert per_call.chunks == [] and configured.chunks == []
    assert kept[0].dropped == 2


def test_d6_nothing_after_an_abort_from_an_effect_that_ignores_it() -> None:
    # spec: deltas.live-window, effects.signal-abort
    signal = Signal()

    def execute(ctx: EffectContext, _: Any) -> str:
        assert ctx.on_delta is not None
        ctx.on_delta("before")
        signal.abort("user stopped")
        ctx.on_delta("after")  # ignores the signal
        ctx.on_delta.end()
        return "before after"

    per_call, configured = Sink(), Sink()
    with pytest.raises(AbortedError) as info:
        call(runtime(execute, sink=configured), per_call, signal)
    assert info.value.reason == "user stopped"
    assert per_call.seen == [text("before")] and configured.seen == [text("before")]


def test_d6_a_sink_that_aborts_stops_the_next_sink() -> None:
    # spec: deltas.live-window -- nothing is delivered once the signal has aborted
    signal = Signal()
    per_call, configured = Sink(), Sink()

    def stopper(chunk: EffectDelta) -> None:
        per_call(chunk)
        signal.abort("enough")

    with pytest.raises(AbortedError):
        call(runtime(sink=configured), stopper, signal)
    assert per_call.seen == [text("Hel")] and configured.chunks == []


def test_d6_no_terminal_when_the_output_phase_fails() -> None:
    # spec: deltas.terminal -- "only after the call has succeeded (middleware output phase and
    # parse included)"; the effect's end chunk was held and is never forwarded
    per_call = Sink()
    secret = deny_patterns({"secret": r"s3cr3t"})
    rt = runtime(streaming([["ok"]], usage=USAGE, output=lambda t: t + " s3cr3t"),
                 middleware=[safety_middleware([secret])])
    with pytest.raises(Exception) as info:
        call(rt, per_call)
    assert getattr(info.value, "code", None) == "governance.safety-violation"
    assert per_call.seen == [text("ok")]


def test_d6_no_terminal_when_the_effect_fails_after_its_end_chunk() -> None:
    # spec: deltas.terminal -- "never forwarded on failure"
    per_call = Sink()
    with pytest.raises(ConnectionError):
        call(runtime(streaming([["a"]], usage=USAGE, fail_until=1)), per_call)
    assert per_call.seen == [text("a")]


# -- Decision 7: bounding is the effect's (the budget severs before delivery) --------------

def test_d7_stream_token_budget_severs_before_the_breaching_delta() -> None:
    # spec: deltas.token-budget
    per_call = Sink()
    rt = runtime(streaming([["abcd", "efgh", "ij"]]), middleware=[stream_budget_middleware(2)])
    with pytest.raises(Exception) as info:
        call(rt, per_call)
    assert getattr(info.value, "code", None) == "governance.stream-token-budget"
    assert per_call.seen == [text("abcd"), text("efgh")]


# -- Decision 8: cancellation composes ---------------------------------------------------

def test_d8_an_execution_cancel_mid_stream_rejects_with_its_reason() -> None:
    # spec: deltas.cancellation
    cancel = Signal()

    def execute(ctx: EffectContext, _: Any) -> str:
        assert ctx.on_delta is not None
        ctx.on_delta("one")
        cancel.abort("execution cancelled")
        ctx.on_delta("two")
        return "one two"

    per_call = Sink()
    scope = DecideScope(runtime(execute), "x1", execution_signal=cancel)
    with pytest.raises(AbortedError) as info:
        scope.invoke_transient("llm", None, on_delta=per_call)
    assert info.value.reason == "execution cancelled"
    assert per_call.seen == [text("one")]


# -- Decision 9: deltas are tainted values -------------------------------------------------

def test_d9_deltas_are_tainted_with_the_tool_origin() -> None:
    # spec: deltas.taint
    per_call = Sink()
    call(runtime(), per_call)
    assert all(isinstance(c.delta, TaintedValue) for c in per_call.chunks)
    assert {c.delta.origin for c in per_call.chunks} == {"llm:llm"}
    assert "".join(unwrap_tainted(c.delta) for c in per_call.chunks) == "Hello"


# -- Decision 10: validators, fail-closed ------------------------------------------------

def test_d10_input_phase_runs_before_next() -> None:
    # spec: deltas.safety-phases
    ran: list[int] = []

    def execute(ctx: EffectContext, _: Any) -> str:
        ran.append(1)
        return "x"

    rt = runtime(execute, middleware=[safety_middleware([pii_validator()])])
    with pytest.raises(Exception) as info:
        rt.invoke_transient("llm", {"q": "mail me at a.b@example.com"}, principal="x1")
    assert getattr(info.value, "code", None) == "governance.safety-violation"
    assert ran == []


def test_d10_the_delta_guard_severs_before_the_offending_delta() -> None:
    # spec: deltas.guard-before-delivery -- a card split across deltas; both sinks severed
    per_call, configured = Sink(), Sink()
    rt = runtime(streaming([["card: 4111 1111 ", "1111 1111", " thanks"]]), sink=configured,
                 middleware=[safety_middleware([pii_validator()])])
    with pytest.raises(Exception) as info:
        call(rt, per_call)
    assert getattr(info.value, "code", None) == "governance.delta-severed"
    assert per_call.seen == [text("card: 4111 1111 ")] == configured.seen


@pytest.mark.parametrize("with_sink", [True, False])
def test_d10_fail_closed_output_validator_without_a_delta_form(with_sink: bool) -> None:
    # spec: deltas.fail-closed
    warnings: list[str] = []
    configured = Sink()
    middleware = safety_middleware([pii_validator(delta=False)])
    assert middleware.inspects_output and middleware.delta_guard is None
    rt = runtime(sink=configured if with_sink else None, warnings=warnings,
                 middleware=[middleware])
    per_call = Sink()
    assert call(rt, per_call) == "Hello"  # completes, non-streamed
    assert per_call.chunks == [] and configured.chunks == []
    assert warnings == [STREAMING_DISABLED]


def test_d10_a_delta_guard_covers_the_output_validators() -> None:
    # spec: deltas.safety-delta-guard
    both = safety_middleware([pii_validator(), deny_patterns(["x{3}"])])
    assert both.inspects_output and both.delta_guard is not None
    mixed = safety_middleware([pii_validator(), deny_patterns(["x{3}"], delta=False)])
    assert mixed.delta_guard is None
    input_only = safety_middleware([])
    assert not input_only.inspects_output and input_only.delta_guard is None


# -- Decision 11: reset on retry -----------------------------------------------------------

def test_d11_reset_is_eager_and_the_reconstruction_equals_the_result() -> None:
    # spec: deltas.reset
    per_call, configured = Sink(), Sink()
    execute = streaming([["par", "tial"], [], ["fin", "al"]], fail_until=2)
    rt = runtime(execute, sink=configured, middleware=[RetryMiddleware(3, base_delay=0)])
    assert call(rt, per_call) == "final"
    reset2 = {"delta": "", "origin": ORIGIN, "reset": True, "attempt": 2}
    reset3 = {**reset2, "attempt": 3}
    assert per_call.seen == [text("par"), text("tial"), reset2, reset3, text("fin"),
                             text("al"), {"delta": "", "origin": ORIGIN, "done": True}]
    assert configured.seen == per_call.seen[:-1]
    assert per_call.text == configured.text == "final"


def test_d11_the_guards_running_text_is_reset_per_attempt() -> None:
    # spec: deltas.reset -- "resets the delta guards' running text": "s3c" from attempt 1
    # and "r3t" from attempt 2 never form one match
    per_call = Sink()
    execute = streaming([["s3c"], ["r3t"]], fail_until=1)
    rt = runtime(execute, middleware=[RetryMiddleware(2, base_delay=0),
                                      safety_middleware([deny_patterns(["s3cr3t"])])])
    assert call(rt, per_call) == "r3t"
    assert per_call.text == "r3t"


def test_d11_a_sever_fails_the_attempt_and_a_retry_streams_afresh() -> None:
    # spec: deltas.reset, deltas.sever-sticky
    per_call = Sink()
    execute = streaming([["call 555-12-3456"], ["call the office"]])
    rt = runtime(execute, middleware=[RetryMiddleware(2, base_delay=0),
                                      safety_middleware([pii_validator()])])
    assert call(rt, per_call) == "call the office"
    assert per_call.seen[0] == {"delta": "", "origin": ORIGIN, "reset": True, "attempt": 2}


# -- Decision 12: the configured sink is guarded on every path -----------------------------

def test_d12_durable_path_feeds_the_configured_sink_through_the_guards() -> None:
    # spec: deltas.channel -- a durable ctx.execute; the PII severs before the leak
    configured = Sink()
    rt = runtime(streaming([["ssn ", "078-05-", "1120", " ok"]]), sink=configured,
                 middleware=[safety_middleware([pii_validator()])])
    durable = EffectCall(tool_id="llm", input=None, mode=Mode.DURABLE, principal="x1",
                         execution_id="x1", step_id="llm#1", idempotency_key="x1/llm#1")
    with pytest.raises(Exception) as info:
        rt.invoke(durable)
    assert getattr(info.value, "code", None) == "governance.delta-severed"
    assert configured.text == "ssn 078-05-"


def test_d12_transient_without_a_per_call_sink_still_feeds_the_configured_sink() -> None:
    # spec: deltas.channel
    configured = Sink()
    assert call(runtime(sink=configured)) == "Hello"
    assert configured.seen == [text("Hel"), text("lo")]


def test_d12_no_sink_no_guard_is_the_shared_silent_channel() -> None:
    # spec: effects.lean-route
    seen: list[Any] = []

    def execute(ctx: EffectContext, _: Any) -> str:
        seen.append(ctx.on_delta)
        assert ctx.on_delta is not None
        ctx.on_delta("dropped")
        return "x"

    call(runtime(execute))
    assert seen == [SILENT]
    with pytest.raises(InvalidArgument):
        SILENT(42)


def test_d12_a_guard_runs_even_without_sinks() -> None:
    # spec: deltas.guard-before-delivery -- the sever does not depend on who listens
    rt = runtime(streaming([["abcdefgh"]]), middleware=[stream_budget_middleware(1)])
    with pytest.raises(Exception) as info:
        call(rt)
    assert getattr(info.value, "code", None) == "governance.stream-token-budget"


def test_d12_an_effect_that_swallows_the_sever_still_fails_and_delivers_nothing_more() -> None:
    # spec: deltas.sever-sticky
    per_call = Sink()
    again: list[str] = []

    def execute(ctx: EffectContext, _: Any) -> str:
        assert ctx.on_delta is not None
        for piece in ("fine ", "s3cr3t", " more"):
            try:
                ctx.on_delta(piece)
            except Exception as error:  # a misbehaving effect
                again.append(getattr(error, "code", ""))
        return "fine"

    rt = runtime(execute, middleware=[safety_middleware([deny_patterns(["s3cr3t"])])])
    with pytest.raises(Exception) as info:
        call(rt, per_call)
    assert getattr(info.value, "code", None) == "governance.delta-severed"
    assert again == ["governance.delta-severed"] * 2
    assert per_call.seen == [text("fine ")]


def test_d12_effects_may_not_send_resets() -> None:
    # spec: deltas.reset -- resets are the runtime's
    def execute(ctx: EffectContext, _: Any) -> str:
        assert ctx.on_delta is not None
        ctx.on_delta(EffectDelta.restart(2, ORIGIN))
        return "x"

    with pytest.raises(InvalidArgument):
        call(runtime(execute), Sink())


@pytest.mark.parametrize("write", [
    lambda w: w(EffectDelta.text("a", ORIGIN)),  # a record: the channel builds those
    lambda w: w(EffectDelta.end(ORIGIN)),
    lambda w: w(3),
    lambda w: w.end({"inputTokens": 1}),  # usage is a TokenUsage
])
def test_an_effect_writes_text_and_its_end_chunk_in_one_shape(write: Any) -> None:
    """spec: deltas.writer -- ctx.on_delta(text) and ctx.on_delta.end(usage); the channel
    stamps the origin. Anything else is argument.invalid, on every channel."""
    def execute(ctx: EffectContext, _: Any) -> str:
        assert ctx.on_delta is not None
        ctx.on_delta("ok")
        ctx.on_delta.end(USAGE)
        return "ok"

    per_call = Sink()
    assert call(runtime(execute), per_call) == "ok"
    assert [c.to_json() for c in per_call.chunks] == [text("ok"), DONE]

    def bad(ctx: EffectContext, _: Any) -> str:
        assert ctx.on_delta is not None
        write(ctx.on_delta)
        return "x"

    for sink in (Sink(), None):  # the guarded channel and the silent one
        with pytest.raises(InvalidArgument):
            call(runtime(bad), sink)


# -- Decision 13: inspects_output stays opt-in ---------------------------------------------

def test_d13_redaction_sets_inspects_output_only_with_redact_output() -> None:
    # spec: deltas.redaction-inspects
    warnings: list[str] = []
    redact = redaction_middleware(redact_output=pattern_redactor([pii_validator()]))
    assert redact.inspects_output and redact.delta_guard is None
    assert not redaction_middleware().inspects_output
    per_call = Sink()
    rt = runtime(streaming([["mail a@b.co now"]]), warnings=warnings, middleware=[redact])
    assert call(rt, per_call) == "mail [redacted] now"
    assert per_call.chunks == [] and warnings == [STREAMING_DISABLED]


def test_d13_an_unmarked_rewriting_middleware_is_bypassed_by_deltas() -> None:
    # spec: deltas.inspects-obligation -- the documented obligation, shown by its breach
    class Upper:
        def handle(self, ctx: EffectContext, input: Any, next: Next) -> Any:
            return str(next(ctx, input)).upper()

    per_call = Sink()
    assert call(runtime(middleware=[Upper()]), per_call) == "HELLO"
    assert per_call.text == "Hello"  # streamed text bypassed the rewrite


def test_d12_the_channel_itself_is_sticky_for_a_plain_guard() -> None:
    # spec: deltas.sever-sticky -- a plain callable guard that would accept later text
    class Blocker:
        inspects_output = False

        @staticmethod
        def delta_guard(ctx: EffectContext) -> Any:
            def guard(text: str) -> None:
                if text == "bad":
                    raise ValueError("blocked")

            return guard

        def handle(self, ctx: EffectContext, input: Any, next: Next) -> Any:
            return next(ctx, input)

    def execute(ctx: EffectContext, _: Any) -> str:
        assert ctx.on_delta is not None
        for piece in ("good", "bad", "fine"):
            try:
                ctx.on_delta(piece)
            except ValueError:
                pass
        return "goodfine"

    per_call = Sink()
    with pytest.raises(ValueError, match="blocked"):
        call(runtime(execute, middleware=[Blocker()]), per_call)
    assert per_call.seen == [text("good")]


def test_d2_an_attempt_refused_between_retries_sends_no_reset() -> None:
    # spec: deltas.refused-call, deltas.reset -- attempt 2 never begins, so no reset
    switch = KillSwitch()

    def execute(ctx: EffectContext, _: Any) -> str:
        assert ctx.on_delta is not None
        ctx.on_delta("first try")
        switch.kill("operator stop", tool_id="llm")
        raise ConnectionError("flaky")

    per_call = Sink()
    rt = runtime(execute, kill_switch=switch, middleware=[RetryMiddleware(3, base_delay=0)])
    with pytest.raises(Exception) as info:
        call(rt, per_call)
    assert getattr(info.value, "code", None) == "effect.killed"
    assert per_call.seen == [text("first try")]


def test_hold_back_needs_the_delta_form_of_every_validator() -> None:
    # spec: deltas.hold-back -- a validator without a delta form cannot hold text back (an
    # input-only one included); no validators is no guard, and nothing is held
    from loom_ref.governance import SafetyValidator

    input_only = SafetyValidator(name="in", input_form=lambda value: None)
    secret = deny_patterns({"secret": r"s3cr3t"})
    with pytest.raises(InvalidArgument) as info:
        safety_middleware([secret, input_only], hold_back=True)
    assert "every validator" in info.value.message
    assert safety_middleware([secret, input_only]).delta_guard is not None  # without hold-back
    assert safety_middleware([], hold_back=True).delta_guard is None
    assert safety_middleware([secret], hold_back=True).delta_guard is not None
