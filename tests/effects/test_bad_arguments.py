"""Every public entry point of the effect runtime answers a bad argument with a loom_ref error
carrying a stable code, never an internal exception (spec: errors.invalid-argument).

Each entry point is called with one argument replaced by each value of ``BAD`` (every other
argument good). The call may accept the value (some are valid for some parameters: ``None``
for an optional one, anything for an effect's input); if it raises, the error MUST be a
:class:`~loom_ref.errors.LoomError` whose ``code`` is a non-empty string. A ``TypeError``,
``KeyError`` or ``AttributeError`` from inside loom_ref fails the test. A callback the entry
point is given (an effect, a sink, an estimate) is only checked for being callable: what it
does when called later is its own business, so the callbacks here are well behaved.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from loom_ref.effects import (
    ALLOW,
    NEVER,
    SILENT,
    VECTOR_FUNCTIONS,
    AbortedError,
    AllowAll,
    BudgetMeter,
    CompositeSignal,
    DecideScope,
    Decision,
    DeltaChannel,
    Effect,
    EffectCall,
    EffectContext,
    EffectDelta,
    EffectDenied,
    EffectKilled,
    EffectRefusal,
    EffectRuntime,
    EnvelopeMiddleware,
    Grant,
    GrantAuthorizer,
    KillSwitch,
    LlmStreamFailed,
    ManualClock,
    Mode,
    ModeRefused,
    OverBudget,
    RateLimited,
    RateLimitMiddleware,
    RedactionMiddleware,
    RetryMiddleware,
    SafetyMiddleware,
    Signal,
    SilentChannel,
    StreamBudgetMiddleware,
    UnknownEffectError,
    any_of,
    backoff_delay,
    collect_stream,
    create_llm_effect,
    delta_origin,
    delta_to_json,
    jitter_fraction,
    llm_request,
    output_texts,
    pattern_redactor,
    redaction_middleware,
    safety_middleware,
    stream_budget_middleware,
)
from loom_ref.errors import InvalidArgument
from loom_ref.governance import pii_validator, taint
from loom_ref.stream import (
    BlockEnd,
    BlockStart,
    BlockType,
    FinishChunk,
    FinishReason,
    ScriptedAdapter,
    TextBlock,
    TextDelta,
)

from ..badargs import leaks


def echo(ctx: EffectContext, inp: Any) -> Any:
    return inp


def quiet(message: str) -> None:
    pass


def sink(chunk: Any) -> None:
    pass


def rt(**override: Any) -> EffectRuntime:
    args: dict[str, Any] = {"effects": [Effect(tool_id="echo", execute=echo)], "on_warn": quiet}
    args.update(override)
    return EffectRuntime(**args)


def call(**override: Any) -> EffectCall:
    args: dict[str, Any] = {"tool_id": "echo", "input": 1, "mode": Mode.TRANSIENT,
                            "principal": "p"}
    args.update(override)
    return EffectCall(**args)


def durable(**override: Any) -> EffectCall:
    return call(mode=Mode.DURABLE, **override)


def ctx(**override: Any) -> EffectContext:
    args: dict[str, Any] = {"call": call(), "signal": Signal(), "clock": ManualClock()}
    args.update(override)
    return EffectContext(**args)


def chunks() -> list[Any]:
    return [BlockStart(index=0, block_type=BlockType.TEXT), TextDelta(index=0, text="hi"),
            BlockEnd(index=0, block=TextBlock(text="hi")), FinishChunk(reason=FinishReason.stop())]


def channel(**override: Any) -> DeltaChannel:
    args: dict[str, Any] = {"tool_id": "echo", "signal": Signal(), "per_call": sink,
                            "configured": sink, "factories": (), "on_warn": quiet}
    args.update(override)
    return DeltaChannel(**args)


def drive(ch: DeltaChannel) -> None:
    """Run one attempt of a channel the way the runtime does."""
    c = ctx()
    c.attempt = 1
    ch.begin_attempt(c)
    ch("text")
    ch.end()
    ch.succeed()


def llm(**override: Any) -> Effect:
    args: dict[str, Any] = {"tool_id": "llm", "model": "m"}
    args.update(override)
    adapter = args.pop("adapter", ScriptedAdapter(chunks()))
    return create_llm_effect(adapter, **args)


def streaming(mw: Any) -> Any:
    """A streamed call through a runtime whose only middleware is ``mw``."""
    def write(c: EffectContext, inp: Any) -> Any:
        assert c.on_delta is not None
        c.on_delta("some text")
        return "some text"
    runtime = EffectRuntime([Effect(tool_id="w", execute=write)], middleware=[mw], on_warn=quiet)
    return runtime.invoke_transient("w", 1, principal="p", on_delta=sink)


def attempt_of(mw: Any) -> Any:
    """``mw.handle`` the way the runtime calls it (good context, good next)."""
    return mw.handle(ctx(), 1, echo)


ERRORS = [AbortedError, EffectDenied, EffectKilled, EffectRefusal, LlmStreamFailed, ModeRefused,
          OverBudget, RateLimited, UnknownEffectError]

#: entry point name -> a function of the bad value that calls it with that value in one place
ENTRY_POINTS: dict[str, Callable[[Any], Any]] = {
    # signals
    "Signal.abort": lambda v: Signal().abort(v),
    "Signal.add_listener": lambda v: Signal().add_listener(v),
    "Signal.remove_listener": lambda v: Signal().remove_listener(v),
    "NEVER.add_listener": lambda v: NEVER.add_listener(v),
    "any_of": lambda v: any_of(Signal(), v).detach(),
    "CompositeSignal(sources)": lambda v: CompositeSignal(v).detach(),
    "CompositeSignal(sources[i])": lambda v: CompositeSignal((Signal(), v)).detach(),
    # records and enums
    "Mode": lambda v: Mode(v),
    "Decision(allowed)": lambda v: Decision(allowed=v, reason="r"),
    "Decision(reason)": lambda v: Decision(allowed=True, reason=v),
    "Decision.deny": lambda v: Decision.deny(v),
    "Effect(tool_id)": lambda v: Effect(tool_id=v, execute=echo),
    "Effect(execute)": lambda v: Effect(tool_id="t", execute=v),
    "Effect(modes)": lambda v: Effect(tool_id="t", execute=echo, modes=v),
    "Effect(idempotent)": lambda v: Effect(tool_id="t", execute=echo, idempotent=v),
    "Effect(delta_sink)": lambda v: Effect(tool_id="t", execute=echo, delta_sink=v),
    "EffectCall(tool_id)": lambda v: rt().invoke_transient_call(call(tool_id=v)),
    "EffectCall(mode)": lambda v: rt().invoke_transient_call(call(mode=v)),
    "EffectCall(principal)": lambda v: rt().invoke_transient_call(call(principal=v)),
    "EffectCall(execution_id)": lambda v: rt().invoke(durable(execution_id=v)),
    "EffectCall(step_id)": lambda v: rt().invoke(durable(step_id=v)),
    "EffectCall(idempotency_key)": lambda v: rt().invoke(durable(idempotency_key=v)),
    "EffectCall(signal)": lambda v: rt().invoke_transient_call(call(signal=v)),
    "EffectCall(on_delta)": lambda v: rt().invoke_transient_call(call(on_delta=v)),
    "EffectCall(on_emit)": lambda v: rt().invoke(durable(on_emit=v)),
    "EffectDelta(delta)": lambda v: EffectDelta(delta=v),
    "EffectDelta(done)": lambda v: EffectDelta(delta=taint("", "o"), done=v),
    "EffectDelta(reset)": lambda v: EffectDelta(delta=taint("", "o"), reset=v, attempt=2),
    "EffectDelta(attempt)": lambda v: EffectDelta(delta=taint("", "o"), reset=True, attempt=v),
    "EffectDelta(usage)": lambda v: EffectDelta(delta=taint("", "o"), done=True, usage=v),
    "EffectDelta.text(text)": lambda v: EffectDelta.text(v, "o"),
    "EffectDelta.text(origin)": lambda v: EffectDelta.text("t", v),
    "EffectDelta.end(origin)": lambda v: EffectDelta.end(v),
    "EffectDelta.end(usage)": lambda v: EffectDelta.end("o", v),
    "EffectDelta.restart(attempt)": lambda v: EffectDelta.restart(v, "o"),
    "EffectDelta.restart(origin)": lambda v: EffectDelta.restart(2, v),
    "delta_to_json": lambda v: delta_to_json(v),
    "delta_origin": lambda v: delta_origin(v),
    "errors(message)": lambda v: [error(v) for error in ERRORS],
    # authorizers
    "AllowAll.authorize(principal)": lambda v: AllowAll().authorize(v, "t", Mode.DURABLE),
    "AllowAll.authorize(mode)": lambda v: AllowAll().authorize("p", "t", v),
    "Grant(principal)": lambda v: Grant(principal=v, tool_id="t"),
    "Grant(tool_id)": lambda v: Grant(principal="p", tool_id=v),
    "Grant(modes)": lambda v: Grant(principal="p", tool_id="t", modes=v),
    "Grant.matches(principal)": lambda v: Grant(principal="*", tool_id="*").matches(
        v, "t", Mode.DURABLE),
    "Grant.matches(tool_id)": lambda v: Grant(principal="*", tool_id="*").matches(
        "p", v, Mode.DURABLE),
    "Grant.matches(mode)": lambda v: Grant(principal="*", tool_id="*").matches("p", "t", v),
    "GrantAuthorizer(grants)": lambda v: GrantAuthorizer(v),
    "GrantAuthorizer(grants[i])": lambda v: GrantAuthorizer([Grant(principal="p", tool_id="t"), v]),
    "GrantAuthorizer.authorize(principal)": lambda v: GrantAuthorizer(
        [Grant(principal="p", tool_id="t")]).authorize(v, "t", Mode.DURABLE),
    "GrantAuthorizer.authorize(tool_id)": lambda v: GrantAuthorizer(
        [Grant(principal="p", tool_id="t")]).authorize("p", v, Mode.DURABLE),
    "GrantAuthorizer.authorize(mode)": lambda v: GrantAuthorizer(
        [Grant(principal="p", tool_id="t")]).authorize("p", "t", v),
    # clock, kill switch, meter
    "ManualClock(start)": lambda v: ManualClock(v),
    "ManualClock.sleep": lambda v: ManualClock().sleep(v),
    "ManualClock.advance": lambda v: ManualClock().advance(v),
    "KillSwitch.kill(reason)": lambda v: KillSwitch().kill(v),
    "KillSwitch.kill(tool_id)": lambda v: KillSwitch().kill("r", tool_id=v),
    "KillSwitch.revive(tool_id)": lambda v: KillSwitch().revive(tool_id=v),
    "KillSwitch.check": lambda v: _killed("t").check(v),
    "KillSwitch.check idle": lambda v: KillSwitch().check(v),
    "BudgetMeter(budget)": lambda v: BudgetMeter(v),
    "BudgetMeter(estimate)": lambda v: BudgetMeter(5, estimate=v).admit(call()),
    "BudgetMeter.admit": lambda v: BudgetMeter(0).admit(v),
    "BudgetMeter.record(call)": lambda v: BudgetMeter(5).record(v, {"n": 1}, False),
    "BudgetMeter.record(usage)": lambda v: BudgetMeter(5).record(call(), v, False),
    "BudgetMeter.record(advisory)": lambda v: BudgetMeter(5).record(call(), {"n": 1}, v),
    # the context
    "EffectContext(call)": lambda v: ctx(call=v).idempotency_key,
    "EffectContext(signal)": lambda v: collect_stream(chunks(), ctx(signal=v)),
    "EffectContext(clock)": lambda v: RetryMiddleware(2, base_delay=0).handle(
        ctx(clock=v), 1, _fail_once()),
    "EffectContext.emit": lambda v: ctx(call=durable(on_emit=sink)).emit(v),
    "EffectContext.report_usage": lambda v: ctx().report_usage(v),
    # the runtime
    "EffectRuntime(effects)": lambda v: rt(effects=v),
    "EffectRuntime(effects[i])": lambda v: rt(effects=[v]),
    "EffectRuntime(authorizer)": lambda v: rt(authorizer=v).invoke_transient("echo", 1,
                                                                            principal="p"),
    "EffectRuntime(middleware)": lambda v: rt(middleware=v).invoke_transient("echo", 1,
                                                                            principal="p"),
    "EffectRuntime(middleware[i])": lambda v: rt(middleware=[v]).invoke_transient("echo", 1,
                                                                                principal="p"),
    "EffectRuntime(meter)": lambda v: rt(meter=v).invoke_transient("echo", 1, principal="p"),
    "EffectRuntime(kill_switch)": lambda v: rt(kill_switch=v).invoke_transient("echo", 1,
                                                                              principal="p"),
    "EffectRuntime(clock)": lambda v: _retrying(v),
    "EffectRuntime(on_warn)": lambda v: rt(on_warn=v),
    "EffectRuntime.register": lambda v: rt().register(v),
    "EffectRuntime.get_effect": lambda v: rt().get_effect(v),
    "EffectRuntime.__contains__": lambda v: v in rt(),
    "EffectRuntime.is_idempotent": lambda v: rt().is_idempotent(v),
    "EffectRuntime.invoke": lambda v: rt().invoke(v),
    "EffectRuntime.invoke(input)": lambda v: rt().invoke(durable(input=v)),
    "EffectRuntime.invoke_transient": lambda v: rt().invoke_transient_call(v),
    "EffectRuntime.invoke_transient(tool_id)": lambda v: rt().invoke_transient(v, 1, principal="p"),
    "EffectRuntime.invoke_transient(input)": lambda v: rt().invoke_transient("echo", v,
                                                                          principal="p"),
    "EffectRuntime.invoke_transient(principal)": lambda v: rt().invoke_transient("echo", 1,
                                                                              principal=v),
    "EffectRuntime.invoke_transient(signal)": lambda v: rt().invoke_transient("echo", 1,
                                                                           principal="p",
                                                                           signal=v),
    "EffectRuntime.invoke_transient(on_delta)": lambda v: rt().invoke_transient("echo", 1,
                                                                             principal="p",
                                                                             on_delta=v),
    # the decide scope
    "DecideScope(host)": lambda v: DecideScope(v, "e1").invoke_transient("echo", 1),
    "DecideScope(execution_id)": lambda v: DecideScope(rt(), v).invoke_transient("echo", 1),
    "DecideScope(execution_signal)": lambda v: DecideScope(
        rt(), "e1", execution_signal=v).invoke_transient("echo", 1),
    "DecideScope.invoke_transient(tool_id)": lambda v: DecideScope(rt(), "e1").invoke_transient(
        v, 1),
    "DecideScope.invoke_transient(input)": lambda v: DecideScope(rt(), "e1").invoke_transient(
        "echo", v),
    "DecideScope.invoke_transient(signal)": lambda v: DecideScope(rt(), "e1").invoke_transient(
        "echo", 1, signal=v),
    "DecideScope.invoke_transient(on_delta)": lambda v: DecideScope(
        rt(), "e1").invoke_transient("echo", 1, on_delta=v),
    # deltas
    "SILENT": lambda v: SILENT(v),
    "SilentChannel": lambda v: SilentChannel()(v),
    "DeltaChannel(tool_id)": lambda v: drive(channel(tool_id=v)),
    "DeltaChannel(signal)": lambda v: drive(channel(signal=v)),
    "DeltaChannel(per_call)": lambda v: drive(channel(per_call=v)),
    "DeltaChannel(configured)": lambda v: drive(channel(configured=v)),
    "DeltaChannel(factories)": lambda v: drive(channel(factories=v)),
    "DeltaChannel(factories[i])": lambda v: drive(channel(factories=(v,))),
    "DeltaChannel(on_warn)": lambda v: drive(channel(on_warn=v,
                                                     per_call=_raising_sink)),
    "DeltaChannel.begin_attempt": lambda v: channel().begin_attempt(v),
    "DeltaChannel.__call__": lambda v: channel()(v),
    "collect_stream(chunks)": lambda v: collect_stream(v, ctx()),
    "collect_stream(chunks[i])": lambda v: collect_stream([*chunks()[:2], v], ctx()),
    "collect_stream(ctx)": lambda v: collect_stream(chunks(), v),
    "collect_stream(configured)": lambda v: collect_stream(chunks(), ctx(), configured=v),
    # the LLM effect
    "create_llm_effect(adapter)": lambda v: llm(adapter=v),
    "create_llm_effect(tool_id)": lambda v: llm(tool_id=v),
    "create_llm_effect(model)": lambda v: llm(model=v),
    "create_llm_effect(on_delta)": lambda v: llm(on_delta=v),
    "create_llm_effect(on_reset)": lambda v: llm(on_reset=v),
    "create_llm_effect(modes)": lambda v: llm(modes=v),
    "create_llm_effect(idempotent)": lambda v: llm(idempotent=v),
    "llm effect input": lambda v: EffectRuntime([llm()]).invoke_transient("llm", v, principal="p"),
    "llm_request(input)": lambda v: llm_request(v, model="m"),
    "llm_request(model)": lambda v: llm_request({"messages": []}, model=v),
    "llm_request(input.messages)": lambda v: llm_request({"messages": v}, model="m"),
    "llm_request(input.messages[i])": lambda v: llm_request({"messages": [v]}, model="m"),
    "llm_request(input.system)": lambda v: llm_request({"messages": [], "system": v}, model="m"),
    "llm_request(input.tools)": lambda v: llm_request({"messages": [], "tools": v}, model="m"),
    "llm_request(input.tools[i])": lambda v: llm_request({"messages": [], "tools": [v]},
                                                         model="m"),
    "llm_request(input.model)": lambda v: llm_request({"messages": [], "model": v}, model="m"),
    "llm_request(input.maxTokens)": lambda v: llm_request({"messages": [], "maxTokens": v},
                                                          model="m"),
    "llm_request(input.temperature)": lambda v: llm_request({"messages": [], "temperature": v},
                                                            model="m"),
    # middleware: handle(ctx, input, next) is the hook the runtime calls with its own context
    # and next (composed once, at registration); its input is the caller's
    **{f"{type(mw).__name__}.handle(input)": (lambda m: lambda v: m.handle(ctx(), v, echo))(mw)
       for mw in (EnvelopeMiddleware(), RateLimitMiddleware(capacity=99, rate=1),
                  RedactionMiddleware(redact_output=repr), RetryMiddleware(2),
                  SafetyMiddleware([pii_validator()]), StreamBudgetMiddleware(5))},
    "RateLimitMiddleware(capacity)": lambda v: RateLimitMiddleware(capacity=v, rate=1),
    "RateLimitMiddleware(rate)": lambda v: RateLimitMiddleware(capacity=1, rate=v),
    "RateLimitMiddleware(per)": lambda v: RateLimitMiddleware(capacity=1, rate=1, per=v),
    "RateLimitMiddleware.tokens(key)": lambda v: _limited().tokens(v, 0.0),
    "RateLimitMiddleware.tokens(now)": lambda v: _limited().tokens("echo", v),
    "RedactionMiddleware(redact_output)": lambda v: attempt_of(RedactionMiddleware(
        redact_output=v)),
    "redaction_middleware": lambda v: attempt_of(redaction_middleware(redact_output=v)),
    "pattern_redactor(validators)": lambda v: pattern_redactor(v),
    "pattern_redactor(validators[i])": lambda v: pattern_redactor([pii_validator(), v]),
    "pattern_redactor(mask)": lambda v: pattern_redactor([pii_validator()], v),
    "pattern_redactor()(output)": lambda v: pattern_redactor([pii_validator()])(v),
    "RetryMiddleware(max_attempts)": lambda v: RetryMiddleware(v),
    "RetryMiddleware(base_delay)": lambda v: RetryMiddleware(2, base_delay=v),
    "RetryMiddleware(multiplier)": lambda v: RetryMiddleware(2, multiplier=v),
    "RetryMiddleware(max_delay)": lambda v: RetryMiddleware(2, max_delay=v),
    "RetryMiddleware(jitter)": lambda v: RetryMiddleware(2, jitter=v),
    "RetryMiddleware(retry_on)": lambda v: RetryMiddleware(2, retry_on=v),
    "RetryMiddleware(seed)": lambda v: RetryMiddleware(2, seed=v).delay(ctx(), 1),
    "RetryMiddleware.is_retryable": lambda v: RetryMiddleware(2).is_retryable(v),
    "RetryMiddleware.delay(ctx)": lambda v: RetryMiddleware(2).delay(v, 1),
    "RetryMiddleware.delay(attempt)": lambda v: RetryMiddleware(2).delay(ctx(), v),
    "backoff_delay(attempt)": lambda v: backoff_delay(v, **_BACKOFF),
    "backoff_delay(base_delay)": lambda v: backoff_delay(1, **{**_BACKOFF, "base_delay": v}),
    "backoff_delay(multiplier)": lambda v: backoff_delay(1, **{**_BACKOFF, "multiplier": v}),
    "backoff_delay(max_delay)": lambda v: backoff_delay(1, **{**_BACKOFF, "max_delay": v}),
    "backoff_delay(jitter)": lambda v: backoff_delay(1, **{**_BACKOFF, "jitter": v}),
    "backoff_delay(key)": lambda v: backoff_delay(1, **{**_BACKOFF, "key": v}),
    "jitter_fraction(key)": lambda v: jitter_fraction(v, 1),
    "jitter_fraction(attempt)": lambda v: jitter_fraction("k", v),
    "SafetyMiddleware(validators)": lambda v: SafetyMiddleware(v),
    "SafetyMiddleware(validators[i])": lambda v: SafetyMiddleware([pii_validator(), v]),
    "SafetyMiddleware(delta_window)": lambda v: streaming(SafetyMiddleware(
        [pii_validator()], delta_window=v)),
    "SafetyMiddleware(hold_back)": lambda v: streaming(SafetyMiddleware(
        [pii_validator()], hold_back=v)),
    "safety_middleware(validators)": lambda v: safety_middleware(v),
    "safety_middleware(delta_window)": lambda v: streaming(safety_middleware(
        [pii_validator(delta=False)], delta_window=v)),
    "safety_middleware(hold_back)": lambda v: safety_middleware([pii_validator()], hold_back=v),
    "output_texts": lambda v: list(output_texts(v)),
    "StreamBudgetMiddleware(max_tokens)": lambda v: streaming(StreamBudgetMiddleware(v)),
    "StreamBudgetMiddleware(count)": lambda v: streaming(StreamBudgetMiddleware(5, v)),
    "stream_budget_middleware(max_tokens)": lambda v: streaming(stream_budget_middleware(v)),
    "stream_budget_middleware(count)": lambda v: streaming(stream_budget_middleware(5, v)),
    **{f"VECTOR_FUNCTIONS[{name!r}]": function for name, function in VECTOR_FUNCTIONS.items()},
}

_BACKOFF: dict[str, Any] = {"base_delay": 0.1, "multiplier": 2.0, "max_delay": 1.0,
                            "jitter": 0.5, "key": "k"}


def _killed(tool_id: str) -> KillSwitch:
    switch = KillSwitch()
    switch.kill("r", tool_id=tool_id)
    return switch


def _limited() -> RateLimitMiddleware:
    mw = RateLimitMiddleware(capacity=1, rate=1)
    mw.handle(ctx(), 1, echo)  # the bucket exists now
    return mw


def _fail_once() -> Callable[[EffectContext, Any], Any]:
    failed: list[bool] = []

    def effect(c: EffectContext, inp: Any) -> Any:
        if not failed:
            failed.append(True)
            raise RuntimeError("first attempt fails")
        return inp
    return effect


def _retrying(clock: Any) -> Any:
    runtime = rt(clock=clock, middleware=[RetryMiddleware(2, base_delay=0)])
    runtime.register(Effect(tool_id="f", execute=_fail_once()))
    return runtime.invoke_transient("f", 1, principal="p")


def _raising_sink(chunk: Any) -> None:
    raise RuntimeError("sink fails")


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_a_bad_argument_is_a_loom_error_with_a_code(entry: str, capsys: pytest.CaptureFixture[str]
                                                    ) -> None:
    leaked = leaks(entry, ENTRY_POINTS[entry])
    assert not leaked, f"{entry} leaked internal exceptions:\n" + "\n".join(leaked)


def test_the_good_arguments_of_the_table_work() -> None:
    # the table's defaults are good: with them each helper runs to completion
    assert rt().invoke(durable(input=2)) == 2
    assert rt().invoke_transient_call(call(input=3)) == 3
    drive(channel())
    assert collect_stream(chunks(), ctx()).message.content == (TextBlock(text="hi"),)
    assert streaming(safety_middleware([pii_validator()])) == "some text"
    assert attempt_of(EnvelopeMiddleware()) == {"tool": "echo", "result": 1}
    assert RetryMiddleware(2, base_delay=0).handle(ctx(), 1, _fail_once()) == 1
    assert BudgetMeter(5).admit(call()) is ALLOW
    assert isinstance(llm(), Effect)
    with pytest.raises(InvalidArgument):
        llm_request({"messages": 1}, model="m")


def test_a_lone_surrogate_in_a_jitter_key_is_refused() -> None:
    # spec: effects.retry-backoff -- utf8(key) is undefined for a lone surrogate: the key's
    # parts (the seed, a call's idempotency key) and the key itself are refused where given
    with pytest.raises(InvalidArgument):
        VECTOR_FUNCTIONS["effects.backoff"]({"attempt": 1, "base_delay": 0.1, "multiplier": 2.0,
                                             "max_delay": 1.0, "jitter": 0.5, "key": "\ud800"})
    with pytest.raises(InvalidArgument):
        RetryMiddleware(2, seed="a\udfffb")
    with pytest.raises(InvalidArgument):
        call(idempotency_key="x/\ud83d")
    assert call(idempotency_key="x/\U0001f600").idempotency_key == "x/\U0001f600"  # a pair


def test_the_runtime_builds_the_context_the_constructor_builds() -> None:
    # route_context skips the constructor's checks (spec: effects.lean-route); it must not
    # skip anything else: every slot gets the constructor's value
    from loom_ref.effects.context import route_context

    c, signal, clock = call(), Signal(), ManualClock()
    built, routed = EffectContext(c, signal, clock), route_context(c, signal, clock)
    assert EffectContext.__slots__
    for name in EffectContext.__slots__:
        assert getattr(routed, name) is getattr(built, name) or (
            getattr(routed, name) == getattr(built, name)), name
    with pytest.raises(InvalidArgument):
        EffectContext(c, None, clock)  # type: ignore[arg-type]


class _HalfMeter:
    """A meter with ``admit`` but no ``record``."""

    def admit(self, call: EffectCall) -> Decision:
        return ALLOW


class _RecordOnlyMeter:
    """A meter with ``record`` but no ``admit``."""

    def record(self, call: EffectCall, usage: Any, advisory: bool) -> None:
        pass


@pytest.mark.parametrize("meter", [_HalfMeter(), _RecordOnlyMeter()])
def test_a_meter_needs_both_admit_and_record(meter: object) -> None:
    # spec: errors.invalid-argument -- a meter missing either half is refused at construction,
    # not when the first call reaches the missing method
    with pytest.raises(InvalidArgument) as caught:
        rt(meter=meter)
    assert caught.value.code == "argument.invalid"


def test_a_decide_scope_needs_a_host_with_invoke_transient_call() -> None:
    # spec: effects.scope-principal -- the scope calls through its host's record door
    for host in (object(), KillSwitch()):
        with pytest.raises(InvalidArgument) as caught:
            DecideScope(host, "x1")  # type: ignore[arg-type]
        assert caught.value.code == "argument.invalid"
    assert DecideScope(rt(), "x1").execution_id == "x1"


def test_a_bad_signal_is_named_in_the_diagnostic() -> None:
    # spec: errors.invalid-argument -- the refusal of a call names the member at fault: a
    # signal that is not a Signal is reported as the signal, not as a sink
    with pytest.raises(InvalidArgument) as caught:
        call(signal="stop")
    assert caught.value.code == "argument.invalid"
    assert "signal" in str(caught.value) and "on_emit" not in str(caught.value)


def test_a_new_delta_channel_has_run_no_attempt() -> None:
    # spec: deltas.reset -- attempt n is the n-th begin_attempt; before the first none has run
    ch = channel()
    assert ch.attempt == 0
    first = ctx()
    first.attempt = 1  # as the runtime numbers it before the attempt begins
    ch.begin_attempt(first)
    assert ch.attempt == 1
