"""The governed route's key behaviours as a table of plain-data scenarios.

Each row is JSON-shaped data (so it can become a conformance *scenario* case once the harness
exists): a scripted effect, the runtime configuration, a sequence of calls, and the expected
observations. :func:`run_scenario` is the interpreter; it returns observations in the same
shape as ``expect`` and the test compares them for equality.

Row fields
----------
``id``, ``anchor`` (spec anchor in ``spec/effects.md``), ``description``;
``effect``: ``{"tool_id": str, "modes": ["durable"|"transient", ...], "script": [step, ...]}``
  -- attempt n runs ``script[n-1]`` (the last step repeats). A step may hold ``usage`` (report
  it), ``emit`` (emit it), ``kill`` (engage the global kill switch with that reason), ``abort``
  (abort the call's signal with that reason), then exactly one of ``return`` (a value) or
  ``raise`` (``"flaky"`` -> code ``test.flaky``, ``"fatal"`` -> code ``test.fatal``);
``config``: ``grants`` (list of ``{principal, tool_id, modes}``; absent = allow all),
  ``middleware`` (list of ``{"kind": "retry"|"rate_limit"|"envelope", ...params}``; a retry's
  ``retry_on`` is a list of ``"flaky"``/``"fatal"``), ``budget`` (int: a BudgetMeter),
  ``kill`` (``{"global": reason}`` or ``{"tool": [tool_id, reason]}``);
``calls``: list of ``{"mode", "principal", "input", "tool_id"?, "idempotency_key"?,
  "aborted"? (reason: the signal is aborted before the call), "advance"? (seconds to move the
  clock first)}``;
``expect``: ``calls`` (per call: ``attempts`` = ctx.attempt values the effect saw, and
  ``result`` or ``error`` code, plus ``reason`` for an abort), ``meter`` (records:
  ``{"usage", "advisory"}``), ``sleeps`` (clock sleeps), ``emitted`` (events the durable
  path forwarded to ``on_emit``). Absent lists are expected empty.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from loom_ref.effects import (
    BudgetMeter,
    Effect,
    EffectCall,
    EffectContext,
    EffectRuntime,
    EnvelopeMiddleware,
    Grant,
    GrantAuthorizer,
    KillSwitch,
    ManualClock,
    Mode,
    RateLimitMiddleware,
    RetryMiddleware,
    Signal,
)
from loom_ref.effects.middleware import Middleware
from loom_ref.errors import LoomError


class Flaky(LoomError):
    code = "test.flaky"


class Fatal(LoomError):
    code = "test.fatal"


ERRORS: dict[str, type[LoomError]] = {"flaky": Flaky, "fatal": Fatal}

SPEC = Path(__file__).resolve().parents[2] / "spec" / "effects.md"

OK = {"return": "ok"}
FLAKY = {"raise": "flaky"}
FATAL = {"raise": "fatal"}


def T(**kw: Any) -> dict[str, Any]:
    """A transient call for principal ``p`` (overridable)."""
    return {"mode": "transient", "principal": "p", "input": 1, **kw}


def D(**kw: Any) -> dict[str, Any]:
    """A durable call for principal ``p`` with idempotency key ``k1`` (overridable)."""
    return {"mode": "durable", "principal": "p", "input": 1, "idempotency_key": "k1", **kw}


def RETRY(max_attempts: int = 3, **kw: Any) -> dict[str, Any]:
    return {"kind": "retry", "max_attempts": max_attempts, **kw}


ROWS: list[dict[str, Any]] = [
    {
        "id": "route/plain-transient",
        "anchor": "effects.route-order",
        "description": "an allowed transient call runs the effect once, attempt 1",
        "effect": {"script": [{"return": {"answer": 42}}]},
        "calls": [T()],
        "expect": {"calls": [{"attempts": [1], "result": {"answer": 42}}]},
    },
    {
        "id": "route/plain-durable",
        "anchor": "effects.route-order",
        "description": "the durable door takes the same route",
        "effect": {"script": [OK]},
        "calls": [D()],
        "expect": {"calls": [{"attempts": [1], "result": "ok"}]},
    },
    {
        "id": "route/unknown-tool",
        "anchor": "effects.unknown-tool",
        "description": "an unregistered tool id fails before the route",
        "effect": {"script": [OK]},
        "config": {"budget": 10},
        "calls": [T(tool_id="nope")],
        "expect": {"calls": [{"attempts": [], "error": "effect.unknown-tool"}]},
    },
    {
        "id": "route/denied-untouched",
        "anchor": "effects.refusal-untouched",
        "description": "a denied call never reaches the effect, the meter or the retry",
        "effect": {"script": [OK]},
        "config": {
            "grants": [{"principal": "alice", "tool_id": "*", "modes": ["transient"]}],
            "middleware": [RETRY()],
            "budget": 10,
        },
        "calls": [T(principal="mallory")],
        "expect": {"calls": [{"attempts": [], "error": "effect.denied"}]},
    },
    {
        "id": "route/denied-before-rate-limit",
        "anchor": "effects.route-order",
        "description": "the authorizer runs before the chain: a denied call takes no token",
        "effect": {"script": [OK]},
        "config": {
            "grants": [{"principal": "alice", "tool_id": "t", "modes": ["transient"]}],
            "middleware": [{"kind": "rate_limit", "capacity": 1, "rate": 0}],
        },
        "calls": [T(principal="mallory"), T(principal="alice"), T(principal="alice")],
        "expect": {
            "calls": [
                {"attempts": [], "error": "effect.denied"},
                {"attempts": [1], "result": "ok"},
                {"attempts": [], "error": "effect.rate-limited"},
            ]
        },
    },
    {
        "id": "route/denied-by-mode-grant",
        "anchor": "effects.authorizer",
        "description": "the authorizer sees the mode: a transient-only grant denies durable",
        "effect": {"script": [OK]},
        "config": {"grants": [{"principal": "p", "tool_id": "t", "modes": ["transient"]}]},
        "calls": [T(), D()],
        "expect": {
            "calls": [
                {"attempts": [1], "result": "ok"},
                {"attempts": [], "error": "effect.denied"},
            ]
        },
    },
    {
        "id": "route/mode-refused",
        "anchor": "effects.route-order",
        "description": "an effect that allows durable only refuses a transient call",
        "effect": {"modes": ["durable"], "script": [OK]},
        "calls": [T(), D()],
        "expect": {
            "calls": [
                {"attempts": [], "error": "effect.mode-refused"},
                {"attempts": [1], "result": "ok"},
            ]
        },
    },
    {
        "id": "route/mode-before-metering",
        "anchor": "effects.route-order",
        "description": "the mode check comes before metering admission",
        "effect": {"modes": ["durable"], "script": [OK]},
        "config": {"budget": 0},
        "calls": [T()],
        "expect": {"calls": [{"attempts": [], "error": "effect.mode-refused"}]},
    },
    {
        "id": "route/mode-after-chain",
        "anchor": "effects.route-order",
        "description": "the mode check runs inside the chain: the rate limiter counted it",
        "effect": {"modes": ["durable"], "script": [OK]},
        "config": {"middleware": [{"kind": "rate_limit", "capacity": 1, "rate": 0}]},
        "calls": [T(), D()],
        "expect": {
            "calls": [
                {"attempts": [], "error": "effect.mode-refused"},
                {"attempts": [], "error": "effect.rate-limited"},
            ]
        },
    },
    {
        "id": "route/mode-refused-not-retried",
        "anchor": "effects.refusal-never-retried",
        "description": "a mode refusal is never retried",
        "effect": {"modes": ["transient"], "script": [OK]},
        "config": {"middleware": [RETRY()]},
        "calls": [D()],
        "expect": {"calls": [{"attempts": [], "error": "effect.mode-refused"}]},
    },
    {
        "id": "route/over-budget",
        "anchor": "effects.metering-admission",
        "description": "a call the budget cannot cover is refused before the effect",
        "effect": {"script": [OK]},
        "config": {"budget": 0, "middleware": [RETRY()]},
        "calls": [T()],
        "expect": {"calls": [{"attempts": [], "error": "effect.over-budget"}]},
    },
    {
        "id": "route/metering-before-kill",
        "anchor": "effects.route-order",
        "description": "metering admission comes before the kill switch",
        "effect": {"script": [OK]},
        "config": {"budget": 0, "kill": {"global": "maintenance"}},
        "calls": [T()],
        "expect": {"calls": [{"attempts": [], "error": "effect.over-budget"}]},
    },
    {
        "id": "route/killed-global",
        "anchor": "effects.kill-switch",
        "description": "a global kill refuses every tool and is not retried",
        "effect": {"script": [OK]},
        "config": {"kill": {"global": "maintenance"}, "middleware": [RETRY()], "budget": 10},
        "calls": [T()],
        "expect": {"calls": [{"attempts": [], "error": "effect.killed"}]},
    },
    {
        "id": "route/killed-other-tool",
        "anchor": "effects.kill-switch",
        "description": "a per-tool kill leaves other tools running",
        "effect": {"script": [OK]},
        "config": {"kill": {"tool": ["other", "broken"]}},
        "calls": [T()],
        "expect": {"calls": [{"attempts": [1], "result": "ok"}]},
    },
    {
        "id": "route/kill-before-signal",
        "anchor": "effects.route-order",
        "description": "the kill switch comes before the signal check",
        "effect": {"script": [OK]},
        "config": {"kill": {"tool": ["t", "broken"]}},
        "calls": [T(aborted="user cancelled")],
        "expect": {"calls": [{"attempts": [], "error": "effect.killed"}]},
    },
    {
        "id": "route/killed-between-retries",
        "anchor": "effects.refusal-never-retried",
        "description": "a kill engaged during attempt 1 refuses attempt 2; no attempt 3",
        "effect": {"script": [{"kill": "ops", "raise": "flaky"}, OK]},
        "config": {"middleware": [RETRY()]},
        "calls": [T()],
        "expect": {"calls": [{"attempts": [1], "error": "effect.killed"}], "sleeps": [0.1]},
    },
    {
        "id": "route/aborted-before",
        "anchor": "effects.signal-abort",
        "description": "an aborted signal refuses the call with its reason, effect untouched",
        "effect": {"script": [OK]},
        "config": {"budget": 10, "middleware": [RETRY()]},
        "calls": [T(aborted="user cancelled")],
        "expect": {
            "calls": [{"attempts": [], "error": "effect.aborted", "reason": "user cancelled"}]
        },
    },
    {
        "id": "route/aborted-during-success",
        "anchor": "effects.signal-abort",
        "description": "an abort while the effect runs rejects even a returned value",
        "effect": {"script": [{"abort": "stop", "return": "late"}]},
        "calls": [T()],
        "expect": {"calls": [{"attempts": [1], "error": "effect.aborted", "reason": "stop"}]},
    },
    {
        "id": "route/aborted-during-failure-not-retried",
        "anchor": "effects.refusal-never-retried",
        "description": "an abort while the effect fails wins over the failure; no retry",
        "effect": {"script": [{"abort": "stop", "raise": "flaky"}, OK]},
        "config": {"middleware": [RETRY()]},
        "calls": [T()],
        "expect": {"calls": [{"attempts": [1], "error": "effect.aborted", "reason": "stop"}]},
    },
    {
        "id": "retry/re-enters-with-attempts",
        "anchor": "effects.retry-attempts",
        "description": "each retry re-enters the effect with attempt + 1, after a backoff",
        "effect": {"script": [FLAKY, FLAKY, OK]},
        "config": {"middleware": [RETRY(3)]},
        "calls": [T()],
        "expect": {"calls": [{"attempts": [1, 2, 3], "result": "ok"}], "sleeps": [0.1, 0.2]},
    },
    {
        "id": "retry/exhausted",
        "anchor": "effects.retry-attempts",
        "description": "after max_attempts the last failure propagates",
        "effect": {"script": [FLAKY]},
        "config": {"middleware": [RETRY(2, base_delay=1.0, multiplier=3.0)]},
        "calls": [T()],
        "expect": {"calls": [{"attempts": [1, 2], "error": "test.flaky"}], "sleeps": [1.0]},
    },
    {
        "id": "retry/capped-backoff",
        "anchor": "effects.retry-backoff",
        "description": "the backoff doubles up to max_delay",
        "effect": {"script": [FLAKY]},
        "config": {"middleware": [RETRY(5, base_delay=1.0, max_delay=3.0)]},
        "calls": [T()],
        "expect": {
            "calls": [{"attempts": [1, 2, 3, 4, 5], "error": "test.flaky"}],
            "sleeps": [1.0, 2.0, 3.0, 3.0],
        },
    },
    {
        "id": "retry/not-retryable",
        "anchor": "effects.retry-attempts",
        "description": "an error outside retry_on propagates at once",
        "effect": {"script": [FATAL, OK]},
        "config": {"middleware": [RETRY(3, retry_on=["flaky"])]},
        "calls": [T()],
        "expect": {"calls": [{"attempts": [1], "error": "test.fatal"}]},
    },
    {
        "id": "retry/rate-limited-inside-not-retried",
        "anchor": "effects.refusal-never-retried",
        "description": "a limiter inside the retry counts attempts; its refusal is final",
        "effect": {"script": [FLAKY, FLAKY, OK]},
        "config": {
            "middleware": [RETRY(3), {"kind": "rate_limit", "capacity": 2, "rate": 0}]
        },
        "calls": [T()],
        "expect": {
            "calls": [{"attempts": [1, 2], "error": "effect.rate-limited"}],
            "sleeps": [0.1, 0.2],
        },
    },
    {
        "id": "retry/rate-limit-outside-counts-calls",
        "anchor": "effects.middleware-order",
        "description": "a limiter outside the retry takes one token per call",
        "effect": {"script": [FLAKY, OK]},
        "config": {
            "middleware": [{"kind": "rate_limit", "capacity": 1, "rate": 0}, RETRY(3)]
        },
        "calls": [T()],
        "expect": {"calls": [{"attempts": [1, 2], "result": "ok"}], "sleeps": [0.1]},
    },
    {
        "id": "rate-limit/refill",
        "anchor": "effects.rate-limit",
        "description": "the bucket refills from the injected clock",
        "effect": {"script": [OK]},
        "config": {"middleware": [{"kind": "rate_limit", "capacity": 1, "rate": 2}]},
        "calls": [T(), T(), T(advance=0.25), T(advance=0.25)],
        "expect": {
            "calls": [
                {"attempts": [1], "result": "ok"},
                {"attempts": [], "error": "effect.rate-limited"},
                {"attempts": [], "error": "effect.rate-limited"},
                {"attempts": [1], "result": "ok"},
            ]
        },
    },
    {
        "id": "envelope/wraps",
        "anchor": "effects.envelope",
        "description": "the envelope wraps the output as {tool, result}",
        "effect": {"script": [{"return": [1, 2]}]},
        "config": {"middleware": [{"kind": "envelope"}]},
        "calls": [T()],
        "expect": {"calls": [{"attempts": [1], "result": {"tool": "t", "result": [1, 2]}}]},
    },
    {
        "id": "envelope/outside-retry",
        "anchor": "effects.middleware-order",
        "description": "outermost first: an envelope outside a retry wraps the final output",
        "effect": {"script": [FLAKY, OK]},
        "config": {"middleware": [{"kind": "envelope"}, RETRY(2)]},
        "calls": [T()],
        "expect": {
            "calls": [{"attempts": [1, 2], "result": {"tool": "t", "result": "ok"}}],
            "sleeps": [0.1],
        },
    },
    {
        "id": "metering/durable-record",
        "anchor": "effects.metering-record",
        "description": "durable usage is recorded as authoritative",
        "effect": {"script": [{"usage": {"inputTokens": 3, "outputTokens": 4}, "return": "ok"}]},
        "config": {"budget": 100},
        "calls": [D()],
        "expect": {
            "calls": [{"attempts": [1], "result": "ok"}],
            "meter": [{"usage": {"inputTokens": 3, "outputTokens": 4}, "advisory": False}],
        },
    },
    {
        "id": "metering/transient-advisory",
        "anchor": "effects.metering-record",
        "description": "transient usage is recorded as advisory",
        "effect": {"script": [{"usage": {"outputTokens": 2}, "return": "ok"}]},
        "config": {"budget": 100},
        "calls": [T()],
        "expect": {
            "calls": [{"attempts": [1], "result": "ok"}],
            "meter": [{"usage": {"outputTokens": 2}, "advisory": True}],
        },
    },
    {
        "id": "metering/failed-attempts-recorded",
        "anchor": "effects.metering-record",
        "description": "every attempt that reached the effect is recorded, failed or not",
        "effect": {
            "script": [
                {"usage": {"units": 2}, "raise": "flaky"},
                {"usage": {"units": 1}, "return": "ok"},
            ]
        },
        "config": {"budget": 100, "middleware": [RETRY(2)]},
        "calls": [D()],
        "expect": {
            "calls": [{"attempts": [1, 2], "result": "ok"}],
            "meter": [
                {"usage": {"units": 2}, "advisory": False},
                {"usage": {"units": 1}, "advisory": False},
            ],
            "sleeps": [0.1],
        },
    },
    {
        "id": "metering/budget-exhausted",
        "anchor": "effects.metering-admission",
        "description": "spend recorded by one call refuses the next one",
        "effect": {"script": [{"usage": {"units": 5}, "return": "ok"}]},
        "config": {"budget": 5},
        "calls": [T(), T()],
        "expect": {
            "calls": [
                {"attempts": [1], "result": "ok"},
                {"attempts": [], "error": "effect.over-budget"},
            ],
            "meter": [{"usage": {"units": 5}, "advisory": True}],
        },
    },
    {
        "id": "metering/over-budget-between-retries",
        "anchor": "effects.metering-admission",
        "description": "admission runs per attempt: a failed attempt's spend can refuse the next",
        "effect": {"script": [{"usage": {"units": 3}, "raise": "flaky"}, OK]},
        "config": {"budget": 3, "middleware": [RETRY(3)]},
        "calls": [D()],
        "expect": {
            "calls": [{"attempts": [1], "error": "effect.over-budget"}],
            "meter": [{"usage": {"units": 3}, "advisory": False}],
            "sleeps": [0.1],
        },
    },
    {
        "id": "emit/durable-forwarded",
        "anchor": "effects.emit",
        "description": "durable emit reaches the kernel's on_emit",
        "effect": {"script": [{"emit": {"kind": "progress"}, "return": "ok"}]},
        "calls": [D()],
        "expect": {
            "calls": [{"attempts": [1], "result": "ok"}],
            "emitted": [{"kind": "progress"}],
        },
    },
    {
        "id": "emit/transient-noop",
        "anchor": "effects.emit",
        "description": "transient emit is a no-op",
        "effect": {"script": [{"emit": {"kind": "progress"}, "return": "ok"}]},
        "calls": [T()],
        "expect": {"calls": [{"attempts": [1], "result": "ok"}]},
    },
]


def _middleware(spec: dict[str, Any]) -> Middleware:
    params = {k: v for k, v in spec.items() if k != "kind"}
    kind = spec["kind"]
    if kind == "retry":
        if "retry_on" in params:
            params["retry_on"] = tuple(ERRORS[name] for name in params["retry_on"])
        return RetryMiddleware(**params)
    if kind == "rate_limit":
        return RateLimitMiddleware(**params)
    if kind == "envelope":
        return EnvelopeMiddleware()
    raise AssertionError(f"unknown middleware kind {kind!r}")


def run_scenario(row: dict[str, Any]) -> dict[str, Any]:
    """Run one row; return observations shaped like ``row["expect"]``."""
    config = row.get("config", {})
    clock = ManualClock()
    kill_switch = KillSwitch()
    meter = BudgetMeter(config["budget"]) if "budget" in config else None
    authorizer = None
    if "grants" in config:
        authorizer = GrantAuthorizer(
            Grant(
                principal=g["principal"],
                tool_id=g["tool_id"],
                modes=[Mode(m) for m in g["modes"]],
            )
            for g in config["grants"]
        )
    kill = config.get("kill", {})
    if "global" in kill:
        kill_switch.kill(kill["global"])
    if "tool" in kill:
        kill_switch.kill(kill["tool"][1], tool_id=kill["tool"][0])

    effect_spec = row["effect"]
    script = effect_spec["script"]
    seen: list[int] = []

    def execute(ctx: EffectContext, input: Any) -> Any:
        seen.append(ctx.attempt)
        step = script[min(ctx.attempt, len(script)) - 1]
        if "usage" in step:
            ctx.report_usage(step["usage"])
        if "emit" in step:
            ctx.emit(step["emit"])
        if "kill" in step:
            kill_switch.kill(step["kill"])
        if "abort" in step:
            ctx.signal.abort(step["abort"])
        if "raise" in step:
            raise ERRORS[step["raise"]](f"scripted {step['raise']}")
        return step["return"]

    modes = [Mode(m) for m in effect_spec.get("modes", ["durable", "transient"])]
    runtime = EffectRuntime(
        [Effect(tool_id=effect_spec.get("tool_id", "t"), execute=execute, modes=modes)],
        authorizer=authorizer,
        middleware=[_middleware(m) for m in config.get("middleware", [])],
        meter=meter,
        kill_switch=kill_switch,
        clock=clock,
    )
    emitted: list[Any] = []
    observed_calls: list[dict[str, Any]] = []
    for spec in row["calls"]:
        if "advance" in spec:
            clock.advance(spec["advance"])
        signal = Signal()
        if "aborted" in spec:
            signal.abort(spec["aborted"])
        mode = Mode(spec["mode"])
        call = EffectCall(
            tool_id=spec.get("tool_id", effect_spec.get("tool_id", "t")),
            input=spec["input"],
            mode=mode,
            principal=spec["principal"],
            idempotency_key=spec.get("idempotency_key"),
            signal=signal,
            on_emit=emitted.append,
        )
        seen.clear()
        observed: dict[str, Any] = {}
        try:
            if mode is Mode.DURABLE:
                observed["result"] = runtime.invoke(call)
            else:
                observed["result"] = runtime.invoke_transient(call)
        except LoomError as error:
            observed["error"] = error.code
            if error.code == "effect.aborted":
                observed["reason"] = error.details["reason"]
        observed_calls.append({"attempts": list(seen), **observed})
    return {
        "calls": observed_calls,
        "meter": [
            {"usage": dict(r.usage), "advisory": r.advisory}
            for r in (meter.records if meter is not None else [])
        ],
        "sleeps": clock.sleeps,
        "emitted": emitted,
    }


def _expected(row: dict[str, Any]) -> dict[str, Any]:
    expect = row["expect"]
    return {
        "calls": expect["calls"],
        "meter": expect.get("meter", []),
        "sleeps": expect.get("sleeps", []),
        "emitted": expect.get("emitted", []),
    }


def test_rows_are_well_formed() -> None:
    ids = [row["id"] for row in ROWS]
    assert len(ids) == len(set(ids))
    spec_text = SPEC.read_text(encoding="utf-8")
    for row in ROWS:
        assert set(row) <= {"id", "anchor", "description", "effect", "config", "calls", "expect"}
        assert "{#" + row["anchor"] + "}" in spec_text, row["anchor"]
        assert len(row["expect"]["calls"]) == len(row["calls"])


@pytest.mark.parametrize("row", ROWS, ids=[row["id"] for row in ROWS])
def test_route_scenario(row: dict[str, Any]) -> None:
    assert run_scenario(row) == _expected(row)
