"""The route's stages and middleware, one by one."""

from __future__ import annotations

import math
from typing import Any

import pytest

from loom_ref.effects import (
    ALLOW,
    AllowAll,
    BudgetMeter,
    Decision,
    Effect,
    EffectCall,
    EffectContext,
    EffectDenied,
    EffectKilled,
    EffectRuntime,
    Grant,
    GrantAuthorizer,
    KillSwitch,
    ManualClock,
    Mode,
    OverBudget,
    RateLimited,
    RateLimitMiddleware,
    RetryMiddleware,
    Signal,
)
from loom_ref.effects.middleware import delta_guard_of, inspects_output
from loom_ref.errors import InvalidArgument


def call(tool_id: str = "t", principal: str = "p", mode: Mode = Mode.TRANSIENT) -> EffectCall:
    return EffectCall(tool_id=tool_id, input=None, mode=mode, principal=principal)


# -- authorizer ----------------------------------------------------------------------------


def test_grant_authorizer_matches_and_explains() -> None:
    # spec: effects.authorizer
    auth = GrantAuthorizer([
        Grant(principal="alice", tool_id="*"),
        Grant(principal="*", tool_id="search", modes=[Mode.TRANSIENT]),
    ])
    assert auth.authorize("alice", "anything", Mode.DURABLE) is ALLOW
    assert auth.authorize("bob", "search", Mode.TRANSIENT) is ALLOW
    denied = auth.authorize("bob", "search", Mode.DURABLE)
    assert not denied.allowed
    assert "'bob'" in denied.reason and "'search'" in denied.reason and "durable" in denied.reason
    assert AllowAll().authorize("x", "y", Mode.DURABLE) is ALLOW


def test_denial_reason_and_details_reach_the_caller() -> None:
    # spec: effects.refusal-codes
    class No:
        def authorize(self, principal: str, tool_id: str, mode: Mode) -> Decision:
            return Decision.deny(f"{principal} is suspended")

    runtime = EffectRuntime([Effect(tool_id="t", execute=lambda c, i: i)], authorizer=No())
    with pytest.raises(EffectDenied) as info:
        runtime.invoke_transient_call(call(principal="eve"))
    err = info.value
    assert err.code == "effect.denied" and err.message == "eve is suspended"
    assert err.details == {"tool_id": "t", "principal": "eve", "mode": "transient"}


def test_authorizer_records_validate() -> None:
    with pytest.raises(InvalidArgument):
        Grant(principal="", tool_id="t")
    with pytest.raises(InvalidArgument):
        Grant(principal="p", tool_id="t", modes=["durable"])
    with pytest.raises(InvalidArgument):
        GrantAuthorizer(["p"])  # type: ignore[list-item]
    with pytest.raises(InvalidArgument):
        Decision(allowed=1, reason="x")  # type: ignore[arg-type]


# -- kill switch ------------------------------------------------------------------------


def test_kill_switch_global_and_per_tool() -> None:
    # spec: effects.kill-switch
    switch = KillSwitch()
    assert switch.check("a") is None
    switch.kill("a broken", tool_id="a")
    assert (switch.check("a"), switch.check("b")) == ("a broken", None)
    switch.kill("maintenance")
    assert (switch.check("a"), switch.check("b")) == ("maintenance", "maintenance")
    switch.revive()
    assert (switch.check("a"), switch.check("b")) == ("a broken", None)
    switch.revive(tool_id="a")
    assert switch.check("a") is None
    with pytest.raises(InvalidArgument):
        switch.kill("")
    with pytest.raises(InvalidArgument):
        switch.kill("r", tool_id="")
    for bad in ("", 5, ["a"]):  # a list raised TypeError (unhashable) before
        with pytest.raises(InvalidArgument):
            switch.revive(tool_id=bad)  # type: ignore[arg-type]


def test_kill_reason_is_the_refusal_message() -> None:
    switch = KillSwitch()
    switch.kill("provider outage", tool_id="t")
    runtime = EffectRuntime([Effect(tool_id="t", execute=lambda c, i: i)], kill_switch=switch)
    with pytest.raises(EffectKilled) as info:
        runtime.invoke_transient_call(call())
    assert info.value.message == "provider outage"
    switch.revive(tool_id="t")
    assert runtime.invoke_transient_call(call()) is None


# -- metering ---------------------------------------------------------------------------


def test_budget_meter_admission_and_charges() -> None:
    # spec: effects.metering-admission, effects.metering-record
    meter = BudgetMeter(10, estimate=lambda c: 4 if c.tool_id == "big" else 1)
    assert meter.admit(call("big")).allowed
    meter.record(call("big"), {"inputTokens": 5, "outputTokens": 2}, False)
    assert (meter.spent, meter.remaining) == (7, 3)
    refusal = meter.admit(call("big"))
    assert not refusal.allowed and "needs 4, 3 remaining" in refusal.reason
    assert meter.admit(call("small")).allowed
    meter.record(call("small"), {}, True)
    assert [(r.tool_id, r.charged, r.advisory) for r in meter.records] == [
        ("big", 7, False), ("small", 0, True)]
    with pytest.raises(InvalidArgument):
        BudgetMeter(-1)
    with pytest.raises(InvalidArgument):
        BudgetMeter(1, estimate=3)  # type: ignore[arg-type]


def test_over_budget_message_is_the_meter_reason() -> None:
    runtime = EffectRuntime([Effect(tool_id="t", execute=lambda c, i: i)], meter=BudgetMeter(0))
    with pytest.raises(OverBudget) as info:
        runtime.invoke_transient_call(call())
    assert "needs 1, 0 remaining" in info.value.message


# -- clock --------------------------------------------------------------------------------


def test_manual_clock() -> None:
    # spec: effects.injected-clock
    clock = ManualClock(1.0)
    clock.sleep(0.5)
    clock.advance(2)
    assert (clock.now(), clock.sleeps) == (3.5, [0.5])
    for bad in (-1, math.nan, math.inf, "1", True):
        with pytest.raises(InvalidArgument):
            clock.sleep(bad)  # type: ignore[arg-type]


# -- rate limit ------------------------------------------------------------------------


def _runtime_with(mw: Any, clock: ManualClock) -> EffectRuntime:
    return EffectRuntime([Effect(tool_id="t", execute=lambda c, i: "ok"),
                          Effect(tool_id="u", execute=lambda c, i: "ok")],
                         middleware=[mw], clock=clock)


def test_rate_limit_retry_after_and_keys() -> None:
    # spec: effects.rate-limit
    clock = ManualClock()
    runtime = _runtime_with(RateLimitMiddleware(capacity=2, rate=0.5, per="principal"), clock)
    runtime.invoke_transient_call(call("t", "a"))
    runtime.invoke_transient_call(call("u", "a"))  # same principal, other tool: same bucket
    with pytest.raises(RateLimited) as info:
        runtime.invoke_transient_call(call("t", "a"))
    assert info.value.code == "effect.rate-limited"
    assert info.value.details["retry_after"] == pytest.approx(2.0)
    assert runtime.invoke_transient_call(call("t", "b")) == "ok"  # another principal
    clock.advance(2.0)
    assert runtime.invoke_transient_call(call("t", "a")) == "ok"


def test_rate_limit_per_call_key_and_zero_rate() -> None:
    clock = ManualClock()
    runtime = _runtime_with(RateLimitMiddleware(capacity=1, rate=0, per="call"), clock)
    runtime.invoke_transient_call(call("t", "a"))
    runtime.invoke_transient_call(call("u", "a"))
    with pytest.raises(RateLimited) as info:
        runtime.invoke_transient_call(call("t", "a"))
    assert info.value.details["retry_after"] == math.inf


@pytest.mark.parametrize(
    "kwargs",
    [{"capacity": 0.5, "rate": 1}, {"capacity": 1, "rate": -1}, {"capacity": 1, "rate": 1,
                                                                 "per": "nobody"},
     {"capacity": True, "rate": 1}, {"capacity": 1, "rate": math.nan}],
)
def test_rate_limit_rejects_bad_configuration(kwargs: dict[str, Any]) -> None:
    with pytest.raises(InvalidArgument):
        RateLimitMiddleware(**kwargs)


# -- retry ---------------------------------------------------------------------------------


def test_retry_predicate_and_refusals() -> None:
    # spec: effects.refusal-never-retried
    retry = RetryMiddleware(3, retry_on=lambda e: "transient" in str(e))
    assert retry.is_retryable(RuntimeError("transient glitch"))
    assert not retry.is_retryable(RuntimeError("permanent"))
    assert not retry.is_retryable(EffectKilled("x"))
    assert not retry.is_retryable(InvalidArgument("x"))
    typed = RetryMiddleware(3, retry_on=(TimeoutError,))
    assert typed.is_retryable(TimeoutError()) and not typed.is_retryable(KeyError())


@pytest.mark.parametrize(
    "kwargs",
    [{"max_attempts": 0}, {"max_attempts": True}, {"max_attempts": 2, "jitter": 2},
     {"max_attempts": 2, "multiplier": 0.5}, {"max_attempts": 2, "base_delay": -1},
     {"max_attempts": 2, "retry_on": (int,)}, {"max_attempts": 2, "retry_on": 3},
     {"max_attempts": 2, "seed": 1}],
)
def test_retry_rejects_bad_configuration(kwargs: dict[str, Any]) -> None:
    with pytest.raises(InvalidArgument):
        RetryMiddleware(**kwargs)


def test_retry_backoff_uses_the_idempotency_key_and_seed() -> None:
    # spec: effects.retry-backoff
    def run(key: str, seed: str) -> list[float]:
        clock = ManualClock()

        def execute(ctx: EffectContext, input: Any) -> Any:
            raise RuntimeError("flaky")

        runtime = EffectRuntime(
            [Effect(tool_id="t", execute=execute)],
            middleware=[RetryMiddleware(3, base_delay=1.0, jitter=1.0, seed=seed)],
            clock=clock,
        )
        with pytest.raises(RuntimeError):
            runtime.invoke(EffectCall(tool_id="t", input=None, mode=Mode.DURABLE,
                                      principal="p", idempotency_key=key))
        return clock.sleeps

    first = run("e1/t#1", "")
    assert first == run("e1/t#1", "")  # deterministic
    assert first != run("e2/t#1", "")  # keyed
    assert first != run("e1/t#1", "svc")  # seeded
    assert 0.0 <= first[0] <= 1.0 and 0.0 <= first[1] <= 2.0


def test_retry_stops_at_an_abort_between_attempts() -> None:
    # spec: effects.signal-abort -- the next attempt is refused at the signal stage
    signal = Signal()
    attempts: list[int] = []

    def execute(ctx: EffectContext, input: Any) -> Any:
        attempts.append(ctx.attempt)
        raise RuntimeError("flaky")

    class AbortingClock(ManualClock):
        def sleep(self, seconds: float) -> None:
            super().sleep(seconds)
            signal.abort("deadline")

    runtime = EffectRuntime([Effect(tool_id="t", execute=execute)],
                            middleware=[RetryMiddleware(5)], clock=AbortingClock())
    with pytest.raises(Exception) as info:
        runtime.invoke_transient("t", None, principal="p", signal=signal)
    assert getattr(info.value, "code", None) == "effect.aborted"
    assert attempts == [1]


def test_markers_default_off() -> None:
    # spec: effects.inspects-output
    class Plain:
        def handle(self, ctx: Any, input: Any, next: Any) -> Any:
            return next(ctx, input)

    assert inspects_output(Plain()) is False and delta_guard_of(Plain()) is None
    assert inspects_output(RetryMiddleware(1)) is False
    assert delta_guard_of(RetryMiddleware(1)) is None
