"""The governed-route conformance vectors (``effects.route``, and ``deltas.run`` cases that pin
rules of ``spec/effects.md``): defined here, checked against loom_ref, written as files under
``conformance/cases/effects.*/``.

The 35 rows of the former plain-data route table are the core of ``effects.route``: each
case states its ``intent``, one entry per step, written by hand from the rule it pins. An
intent entry checks any of: ``outcome`` (exact), ``trace`` (exact, in order), or projections
of the trace: ``attempts`` (the ``ctx.attempt`` of each ``execute``), ``sleeps``, ``records``
(meter records), ``emitted``; plus ``signalAtEnd`` and ``idempotent``. An empty intent entry
means the step observes nothing (``{}``). The ``expect`` written to the file is loom_ref's full
answer, and generation fails if it contradicts the intent, so a bug cannot silently become a
vector. ``test_vectors.py`` keeps files and loom_ref in step.

Rewrite the files: ``python -m tests.effects.gen_vectors --write`` (or ``LOOM_REGEN=1`` with
pytest). Check only: run without ``--write``.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path
from typing import Any

from loom_ref.conformance.match import is_pattern

from .. import vectorkit

GROUPS = (
    "effects.route",
    "effects.host",
    "effects.refusals",
    "effects.retry",
    "effects.middleware",
    "effects.metering",
    "effects.context",
    "effects.signals",
    "effects.scope",
    "effects.streaming",
)

Case = dict[str, Any]
CASES: list[Case] = []


def case(group: str, name: str, *, anchor: str, description: str, input: dict[str, Any],
         intent: Any, tier: str = "must", function: str = "effects.route",
         requires: tuple[str, ...] = ()) -> None:
    """Register one case. ``intent``: ``{"error": code}`` for a refused input; for
    ``effects.route`` a list with one entry per step; for ``deltas.run`` a subset of the
    result."""
    CASES.append({"group": group, "name": name, "anchor": anchor, "tier": tier,
                  "description": description, "function": function, "input": input,
                  "intent": intent, "requires": requires})


# -- building blocks --------------------------------------------------------------------------

OK = {"return": "ok"}
FLAKY = {"raise": {"code": "test.flaky", "message": "flaky"}}
FATAL = {"raise": {"code": "test.fatal", "message": "fatal"}}


def eff(*script: dict[str, Any], tool: str = "t", **kw: Any) -> dict[str, Any]:
    return {"toolId": tool, "script": list(script), **kw}


def T(**kw: Any) -> dict[str, Any]:
    """A transient call of ``t`` by principal ``p`` (the defaults), input 1."""
    return {"call": {"tool": "t", "input": 1, **kw}}


def D(**kw: Any) -> dict[str, Any]:
    """A durable call of ``t`` with idempotency key ``k1``, input 1."""
    return {"call": {"tool": "t", "mode": "durable", "input": 1, "idempotencyKey": "k1", **kw}}


def S(scope: str = "s1", **kw: Any) -> dict[str, Any]:
    """A call of ``t`` through the decide scope ``scope``."""
    return {"call": {"tool": "t", "input": 1, "scope": scope, **kw}}


def RETRY(n: int = 3, **kw: Any) -> dict[str, Any]:
    return {"kind": "retry", "maxAttempts": n, **kw}


def RL(capacity: float, rate: float, **kw: Any) -> dict[str, Any]:
    return {"kind": "rateLimit", "capacity": capacity, "rate": rate, **kw}


def PROBE(name: str, **kw: Any) -> dict[str, Any]:
    return {"kind": "probe", "name": name, **kw}


def out(value: Any) -> dict[str, Any]:
    return {"output": value}


def err(code: str, **extra: Any) -> dict[str, Any]:
    return {"error": {"code": code, **extra}}


def denied(principal: str, mode: str, tool: str = "t") -> dict[str, Any]:
    return err("effect.denied", toolId=tool, principal=principal, mode=mode)


RATE_LIMITED = err("effect.rate-limited", retryAfter=None)  # rate 0: no token ever comes
#: A seed case's refusal by loom-ref's rate limiter or grants authorizer: the code alone (its
#: details, ``retryAfter`` and ``toolId``/``principal``/``mode``, are loom-ref's:
#: ``effects.rate-limit``, ``effects.denied-details``).
RATE_LIMITED_CODE = {"error": {"$partial": {"code": "effect.rate-limited"}}}
DENIED_CODE = {"error": {"$partial": {"code": "effect.denied"}}}


def X(attempt: int, mode: str = "transient", *, key: str | None = None, principal: str = "p",
      execution: str | None = None, input: Any = 1, now: float = 0.0, tool: str = "t"
      ) -> dict[str, Any]:
    """A trace entry: the effect executed, with this context."""
    return {"execute": {"attempt": attempt, "toolId": tool, "mode": mode,
                        "principal": principal, "executionId": execution,
                        "idempotencyKey": key, "input": input, "now": now}}


def unslept(*entries: dict[str, Any]) -> dict[str, Any]:
    """A trace pattern for a seed rule seen through a retry: the trace holds each entry (an
    ``execute`` entry at any clock time), and may hold more. What a retry does between two
    attempts (its sleeps, so the clock's time) is loom-ref's RetryMiddleware
    (``effects.retry-backoff``), which a faithful port's retry need not share."""
    return {"$includes": [
        {"execute": {**e["execute"], "now": {"$any": None}}} if "execute" in e else e
        for e in entries]}


def REC(usage: dict[str, int], mode: str, *, principal: str = "p", tool: str = "t"
        ) -> dict[str, Any]:
    """A meter record as the route reports it (charged = the sum of the usage)."""
    return {"toolId": tool, "principal": principal, "mode": mode, "usage": usage,
            "charged": sum(usage.values()), "advisory": mode == "transient"}


def route(effects: list[dict[str, Any]], steps: list[dict[str, Any]], **config: Any
          ) -> dict[str, Any]:
    return {"effects": effects, "steps": steps, **config}


def jittered(n: int, *, base: float, mult: float, cap: float, jitter: float, key: str) -> float:
    """The backoff of spec ``effects.retry-backoff`` recomputed here from its formula."""
    d = base
    for _ in range(n - 1):
        if d >= cap or d == 0.0 or mult == 1.0:
            break
        d *= mult
    d = min(cap, d)
    digest = hashlib.blake2b(f"{key}#{n}".encode(), digest_size=8).digest()
    u = int.from_bytes(digest, "big") / 2.0**64
    return round(d * (1 - jitter + jitter * u), 6)


# -- effects.route: the order of the stages (effects.route-order) -----------------------------

case("effects.route", "plain-transient", anchor="effects.route-order",
     description="An allowed transient call runs the effect once, as attempt 1.",
     input=route([eff({"return": {"answer": 42}})], [T()]),
     intent=[{"outcome": out({"answer": 42}), "trace": [X(1)]}])
case("effects.route", "plain-durable", anchor="effects.route-order",
     description="The durable door takes the same route; the effect sees the idempotency key.",
     input=route([eff(OK)], [D()]),
     intent=[{"outcome": out("ok"), "trace": [X(1, "durable", key="k1")]}])
case("effects.route", "unknown-tool", anchor="effects.unknown-tool",
     description="An unregistered tool id fails before any stage runs: no middleware, no "
     "meter.",
     input=route([eff(OK)], [T(tool="nope")], meter={"budget": 10},
                 middleware=[PROBE("outer")]),
     intent=[{"outcome": err("effect.unknown-tool"), "trace": []}])
case("effects.route", "denied-before-chain", anchor="effects.route-order",
     description="The authorizer runs before the chain: a denied call takes no rate-limit "
     "token, so the next allowed call still finds one.",
     input=route([eff(OK)], [T(principal="mallory"), T(principal="alice"), T(principal="alice")],
                 grants=[{"principal": "alice", "toolId": "t", "modes": ["transient"]}],
                 middleware=[RL(1, 0)]),
     intent=[{"outcome": DENIED_CODE, "trace": []},
             {"outcome": out("ok"), "attempts": [1]},
             {"outcome": RATE_LIMITED_CODE, "trace": []}])
case("effects.route", "mode-refused", anchor="effects.route-order",
     description="An effect that allows durable calls only refuses a transient one.",
     input=route([eff(OK, modes=["durable"])], [T(), D()]),
     intent=[{"outcome": err("effect.mode-refused"), "trace": []},
             {"outcome": out("ok"), "attempts": [1]}])
case("effects.route", "mode-before-metering", anchor="effects.route-order",
     description="The mode check comes before metering admission.",
     input=route([eff(OK, modes=["durable"])], [T()], meter={"budget": 0}),
     intent=[{"outcome": err("effect.mode-refused"), "trace": []}])
case("effects.route", "mode-after-chain", anchor="effects.route-order",
     description="The mode check runs inside the chain: the rate limiter counted the "
     "refused call.",
     input=route([eff(OK, modes=["durable"])], [T(), D()], middleware=[RL(1, 0)]),
     intent=[{"outcome": err("effect.mode-refused")}, {"outcome": RATE_LIMITED_CODE}])
case("effects.route", "metering-before-kill", anchor="effects.route-order",
     description="Metering admission comes before the kill switch.",
     input=route([eff(OK)], [{"kill": {"reason": "maintenance"}}, T()], meter={"budget": 0}),
     intent=[{}, {"outcome": err("effect.over-budget"), "trace": []}])
case("effects.route", "kill-before-signal", anchor="effects.route-order",
     description="The kill switch comes before the signal check.",
     input=route([eff(OK)], [{"kill": {"reason": "broken", "toolId": "t"}},
                             T(aborted="user cancelled")]),
     intent=[{}, {"outcome": err("effect.killed", message="broken"), "trace": []}])
case("effects.route", "chain-then-inner", anchor="effects.route-order",
     description="The chain runs outermost first and its innermost next enters the inner "
     "route; a middleware reads attempt 0 before the effect runs, the number of the last "
     "attempt after.",
     input=route([eff(OK)], [T()], middleware=[PROBE("outer"), PROBE("inner")]),
     intent=[{"outcome": out("ok"), "trace": [
         {"enter": "outer", "attempt": 0, "input": 1},
         {"enter": "inner", "attempt": 0, "input": 1},
         X(1),
         {"leave": "inner", "attempt": 1, "output": "ok"},
         {"leave": "outer", "attempt": 1, "output": "ok"},
     ]}])

# -- effects.host: registration and the kernel's seam ----------------------------------------

case("effects.host", "invoke-refuses-transient", anchor="effects.host-seam",
     description="invoke accepts only a durable call record.",
     input=route([eff(OK)], [T(door="invoke")]),
     intent=[{"outcome": err("argument.invalid"), "trace": []}])
case("effects.host", "invoke-transient-refuses-durable", anchor="effects.host-seam",
     description="invoke_transient accepts only a transient call record.",
     input=route([eff(OK)], [D(door="invokeTransient")]),
     intent=[{"outcome": err("argument.invalid"), "trace": []}])
case("effects.host", "call-transient", anchor="effects.host-seam",
     description="The keyword door (ADR 0119's invokeTransient(toolId, input, {signal})) "
     "builds a transient record and takes the same route.",
     input=route([eff(OK)], [{"call": {"tool": "t", "input": 1, "door": "callTransient",
                                        "principal": "q"}}],
                 grants=[{"principal": "q", "toolId": "t", "modes": ["transient"]}]),
     intent=[{"outcome": out("ok"), "trace": [X(1, principal="q")]}])
case("effects.host", "is-idempotent", anchor="effects.host-seam",
     description="is_idempotent answers the effect's declaration; an unknown tool id is "
     "not idempotent.",
     input=route([eff(OK, idempotent=True), eff(OK, tool="u")],
                 [{"isIdempotent": "t"}, {"isIdempotent": "u"}, {"isIdempotent": "nope"}]),
     intent=[{"idempotent": True}, {"idempotent": False}, {"idempotent": False}])
case("effects.host", "registration-defaults", anchor="effects.registration",
     description="An effect registered without modes allows both doors and is not "
     "idempotent.",
     input=route([eff(OK)], [T(), D(), {"isIdempotent": "t"}]),
     intent=[{"outcome": out("ok")}, {"outcome": out("ok")}, {"idempotent": False}])
case("effects.host", "registration-once", anchor="effects.registration",
     description="A tool id is registered at most once: a second registration is "
     "argument.invalid.",
     input=route([eff(OK), eff({"return": "other"})], [T()]),
     intent={"error": "argument.invalid"})

# -- effects.refusals ---------------------------------------------------------------------------

case("effects.refusals", "denied-untouched", anchor="effects.refusal-untouched",
     description="A denied call never reaches the chain, the meter or the effect.",
     input=route([eff(OK)], [T(principal="mallory")], meter={"budget": 10},
                 grants=[{"principal": "alice", "toolId": "*", "modes": ["transient"]}],
                 middleware=[PROBE("outer"), RETRY()]),
     intent=[{"outcome": DENIED_CODE, "trace": []}])
case("effects.refusals", "denied-details", anchor="effects.denied-details",
     description="A denied call's error carries the tool id, principal and mode in its "
     "details.",
     input=route([eff(OK)], [T(principal="mallory")],
                 grants=[{"principal": "alice", "toolId": "*", "modes": ["transient"]}]),
     intent=[{"outcome": denied("mallory", "transient"), "trace": []}])
case("effects.refusals", "killed-untouched", anchor="effects.refusal-untouched",
     description="A call refused inside the chain (kill switch) is not executed or "
     "recorded; the middleware around saw the refusal pass through.",
     input=route([eff(OK)], [{"kill": {"reason": "ops"}}, T()], meter={"budget": 10},
                 middleware=[PROBE("outer")]),
     intent=[{}, {"outcome": err("effect.killed", message="ops"), "trace": [
         {"enter": "outer", "attempt": 0, "input": 1},
         {"leave": "outer", "attempt": 0, "error": "effect.killed"},
     ]}])
case("effects.refusals", "denied-by-mode", anchor="effects.authorizer",
     description="The authorizer sees the mode: a transient-only grant denies the durable "
     "call, and the refusal names the triple.",
     input=route([eff(OK)], [T(), D()],
                 grants=[{"principal": "p", "toolId": "t", "modes": ["transient"]}]),
     intent=[{"outcome": out("ok")}, {"outcome": denied("p", "durable"), "trace": []}])
case("effects.refusals", "wildcard-grant", anchor="effects.authorizer",
     description="\"*\" matches any principal; a grant without modes covers both; a tool no "
     "grant names is denied.",
     input=route([eff(OK), eff(OK, tool="u")],
                 [T(principal="anyone"), D(principal="anyone"), T(tool="u")],
                 grants=[{"principal": "*", "toolId": "t"}]),
     intent=[{"outcome": out("ok")}, {"outcome": out("ok")},
             {"outcome": denied("p", "transient", tool="u")}])
case("effects.refusals", "no-grants-deny-all", anchor="effects.authorizer",
     description="An empty grant list allows nothing.",
     input=route([eff(OK)], [T()], grants=[]),
     intent=[{"outcome": denied("p", "transient"), "trace": []}])
case("effects.refusals", "kill-message", anchor="effects.refusal-codes",
     description="A refusal's message is the stage's reason: the kill reason.",
     input=route([eff(OK)], [{"kill": {"reason": "rollout paused", "toolId": "t"}}, T()]),
     intent=[{}, {"outcome": err("effect.killed", message="rollout paused")}])
case("effects.refusals", "rate-limited-retry-after", anchor="effects.refusal-codes",
     description="effect.rate-limited carries retry_after: the seconds until a token "
     "(1 token at 2 per second: 0.5).",
     input=route([eff(OK)], [T(), T()], middleware=[RL(1, 2)]),
     intent=[{"outcome": out("ok")},
             {"outcome": err("effect.rate-limited", retryAfter=0.5), "trace": []}])
case("effects.refusals", "mode-refused-not-retried", anchor="effects.refusal-never-retried",
     description="A mode refusal is never retried: no sleep, no attempt.",
     input=route([eff(OK, modes=["transient"])], [D()], middleware=[RETRY()]),
     intent=[{"outcome": err("effect.mode-refused"), "trace": []}])
case("effects.refusals", "over-budget", anchor="effects.metering-admission",
     description="A call the budget cannot cover is refused before the effect: nothing "
     "executes. (No retry here: that a refusal is never retried is loom-ref's rule, "
     "effects.refusals/over-budget-not-retried.)",
     input=route([eff(OK)], [T()], meter={"budget": 0}),
     intent=[{"outcome": err("effect.over-budget"), "trace": []}])
case("effects.refusals", "over-budget-not-retried", anchor="effects.refusal-never-retried",
     description="A call the budget cannot cover is refused before the effect, and a retry "
     "around it does not retry the refusal: no sleep, no attempt.",
     input=route([eff(OK)], [T()], meter={"budget": 0}, middleware=[RETRY()]),
     intent=[{"outcome": err("effect.over-budget"), "trace": []}])
case("effects.refusals", "killed-global", anchor="effects.kill-switch",
     description="A global kill refuses every tool, and is not retried.",
     input=route([eff(OK), eff(OK, tool="u")],
                 [{"kill": {"reason": "maintenance"}}, T(), T(tool="u")],
                 meter={"budget": 10}, middleware=[RETRY()]),
     intent=[{}, {"outcome": err("effect.killed", message="maintenance"), "trace": []},
             {"outcome": err("effect.killed", message="maintenance"), "trace": []}])
case("effects.refusals", "killed-other-tool", anchor="effects.kill-switch",
     description="A per-tool kill leaves other tools running.",
     input=route([eff(OK)], [{"kill": {"reason": "broken", "toolId": "other"}}, T()]),
     intent=[{}, {"outcome": out("ok"), "attempts": [1]}])
case("effects.refusals", "kill-revive", anchor="effects.kill-switch",
     description="revive releases the switch; a per-tool kill outlives a global revive.",
     input=route([eff(OK)], [{"kill": {"reason": "broken", "toolId": "t"}}, T(),
                             {"revive": {}}, T(), {"revive": {"toolId": "t"}}, T()]),
     intent=[{}, {"outcome": err("effect.killed", message="broken")}, {},
             {"outcome": err("effect.killed", message="broken")}, {},
             {"outcome": out("ok")}])
case("effects.refusals", "killed-between-retries", anchor="effects.refusal-never-retried",
     description="A kill engaged during attempt 1 refuses attempt 2, which is not retried.",
     input=route([eff({"kill": {"reason": "ops"}, **FLAKY}, OK)], [T()], middleware=[RETRY()]),
     intent=[{"outcome": err("effect.killed", message="ops"), "trace": [X(1), {"sleep": 0.1}]}])
case("effects.refusals", "argument-invalid-not-retried", anchor="effects.refusal-never-retried",
     description="argument.invalid is never retried either.",
     input=route([eff({"raise": {"code": "argument.invalid", "message": "bad input"}}, OK)],
                 [T()], middleware=[RETRY()]),
     intent=[{"outcome": err("argument.invalid", message="bad input"), "attempts": [1],
              "sleeps": []}])

# -- effects.retry ------------------------------------------------------------------------------

case("effects.retry", "re-enters-with-attempts", anchor="effects.retry-attempts",
     description="Each retry re-enters the inner route: attempt n sees ctx.attempt == n, "
     "after a backoff on the injected clock.",
     input=route([eff(FLAKY, FLAKY, OK)], [T()], middleware=[RETRY(3, baseDelay=0.5)]),
     intent=[{"outcome": out("ok"), "trace": unslept(X(1), X(2), X(3))}])
case("effects.retry", "re-enters-after-backoff", anchor="effects.retry-backoff",
     description="Each retry re-enters the inner route after its backoff on the injected "
     "clock: attempt n sees ctx.attempt == n and the clock's time after the sleeps before "
     "it; no sleep follows the last attempt.",
     input=route([eff(FLAKY, FLAKY, OK)], [T()], middleware=[RETRY(3, baseDelay=0.5)]),
     intent=[{"outcome": out("ok"), "trace": [X(1), {"sleep": 0.5}, X(2, now=0.5),
                                              {"sleep": 1.0}, X(3, now=1.5)]}])
case("effects.retry", "exhausted", anchor="effects.retry-attempts",
     description="After max_attempts the last failure propagates unchanged.",
     input=route([eff(FLAKY)], [T()],
                 middleware=[RETRY(2, baseDelay=1.0, multiplier=3.0)]),
     intent=[{"outcome": err("test.flaky", message="flaky"), "attempts": [1, 2],
              "sleeps": [1.0]}])
case("effects.retry", "capped-backoff", anchor="effects.retry-backoff",
     description="The backoff doubles up to max_delay.",
     input=route([eff(FLAKY)], [T()], middleware=[RETRY(5, baseDelay=1.0, maxDelay=3.0)]),
     intent=[{"outcome": err("test.flaky", message="flaky"), "attempts": [1, 2, 3, 4, 5],
              "sleeps": [1.0, 2.0, 3.0, 3.0]}])
case("effects.retry", "jitter-keyed", anchor="effects.retry-backoff",
     description="Jitter is keyed by the seed and the idempotency key: the schedule is a "
     "pure function of the call.",
     input=route([eff(FLAKY, FLAKY, OK)], [D(idempotencyKey="x1/t#1")],
                 middleware=[RETRY(3, baseDelay=1.0, jitter=1.0, seed="s")]),
     intent=[{"outcome": out("ok"), "attempts": [1, 2, 3], "sleeps": [
         jittered(n, base=1.0, mult=2.0, cap=10.0, jitter=1.0, key="s:x1/t#1") for n in (1, 2)
     ]}])
case("effects.retry", "lone-surrogate-seed", anchor="effects.retry-backoff",
     description="A retry seed holding a lone surrogate cannot be hashed as UTF-8: the input "
     "is malformed.",
     input=route([eff(FLAKY, OK)], [D(idempotencyKey="x1/t#1")],
                 middleware=[RETRY(2, baseDelay=1.0, jitter=1.0, seed="s\udc00")]),
     intent={"error": "argument.invalid"}, requires=("text.lone-surrogates",))
case("effects.retry", "lone-surrogate-idempotency-key", anchor="effects.retry-backoff",
     description="A call whose idempotencyKey holds a lone surrogate is refused where it is "
     "built (its key would be hashed and journaled): the input is malformed.",
     input=route([eff(FLAKY, OK)], [D(idempotencyKey="x1/\ud800")],
                 middleware=[RETRY(2, baseDelay=1.0, jitter=1.0, seed="s")]),
     intent={"error": "argument.invalid"}, requires=("text.lone-surrogates",))
case("effects.retry", "transient-jitter-key", anchor="effects.retry-backoff",
     description="A transient call has no idempotency key: its jitter key is \"<seed>:\".",
     input=route([eff(FLAKY, OK)], [T(idempotencyKey="ignored")],
                 middleware=[RETRY(2, baseDelay=1.0, jitter=0.5, seed="s")]),
     intent=[{"outcome": out("ok"), "sleeps": [
         jittered(1, base=1.0, mult=2.0, cap=10.0, jitter=0.5, key="s:")]}])
case("effects.retry", "not-retryable", anchor="effects.retry-attempts",
     description="An error outside retry_on propagates at once.",
     input=route([eff(FATAL, OK)], [T()], middleware=[RETRY(3, retryOn=["test.flaky"])]),
     intent=[{"outcome": err("test.fatal", message="fatal"), "attempts": [1], "sleeps": []}])
case("effects.retry", "retry-on-match", anchor="effects.retry-attempts",
     description="An error retry_on names is retried.",
     input=route([eff(FLAKY, OK)], [T()], middleware=[RETRY(3, retryOn=["test.flaky"])]),
     intent=[{"outcome": out("ok"), "attempts": [1, 2], "sleeps": [0.1]}])
case("effects.retry", "crash-not-caught", anchor="effects.retry-attempts",
     description="A crash (not an Exception) is never caught by a retry.",
     input=route([eff({"crash": True}, OK)], [T()], middleware=[RETRY(3)]),
     intent=[{"outcome": {"crashed": True}, "trace": [X(1)]}])
case("effects.retry", "rate-limited-inside", anchor="effects.refusal-never-retried",
     description="A limiter inside the retry takes a token per attempt; its refusal is final.",
     input=route([eff(FLAKY, FLAKY, OK)], [T()], middleware=[RETRY(3), RL(2, 0)]),
     intent=[{"outcome": RATE_LIMITED, "attempts": [1, 2], "sleeps": [0.1, 0.2]}])
case("effects.retry", "attempts-seen-by-middleware", anchor="effects.retry-attempts",
     description="Outside the retry a middleware reads 0 before the first attempt; inside, "
     "each pass reads the attempts run so far.",
     input=route([eff(FLAKY, OK)], [T()],
                 middleware=[PROBE("outer"), RETRY(3), PROBE("inner")]),
     intent=[{"outcome": out("ok"), "trace": unslept(
         {"enter": "outer", "attempt": 0, "input": 1},
         {"enter": "inner", "attempt": 0, "input": 1},
         X(1),
         {"leave": "inner", "attempt": 1, "error": "test.flaky"},
         {"enter": "inner", "attempt": 1, "input": 1},
         X(2),
         {"leave": "inner", "attempt": 2, "output": "ok"},
         {"leave": "outer", "attempt": 2, "output": "ok"},
     )}])

# -- effects.middleware ---------------------------------------------------------------------------

case("effects.middleware", "rate-limit-refill", anchor="effects.rate-limit",
     description="The bucket refills from the injected clock at rate tokens per second.",
     input=route([eff(OK)], [T(), T(), {"advance": 0.25}, T(), {"advance": 0.25}, T()],
                 middleware=[RL(1, 2)]),
     intent=[{"outcome": out("ok")},
             {"outcome": err("effect.rate-limited", retryAfter=0.5), "trace": []}, {},
             {"outcome": err("effect.rate-limited", retryAfter=0.25), "trace": []}, {},
             {"outcome": out("ok"), "attempts": [1]}])
case("effects.middleware", "rate-limit-refill-capped", anchor="effects.rate-limit",
     description="The bucket never holds more than its capacity: idle for 10 s at rate 1, a "
     "bucket of capacity 1 holds 1 token, not 10, so the second call after the pause is "
     "refused (retryAfter 1).",
     input=route([eff(OK)], [T(), {"advance": 10}, T(), T()], middleware=[RL(1, 1)]),
     intent=[{"outcome": out("ok")}, {}, {"outcome": out("ok")},
             {"outcome": err("effect.rate-limited", retryAfter=1.0), "trace": []}])
case("effects.middleware", "rate-limit-per-tool", anchor="effects.rate-limit",
     description="By default the bucket is the tool's: another principal shares it.",
     input=route([eff(OK)], [T(principal="a"), T(principal="b")], middleware=[RL(1, 0)]),
     intent=[{"outcome": out("ok")}, {"outcome": RATE_LIMITED}])
case("effects.middleware", "rate-limit-per-principal", anchor="effects.rate-limit",
     description="per=\"principal\": one bucket per principal.",
     input=route([eff(OK)], [T(principal="a"), T(principal="b"), T(principal="a")],
                 middleware=[RL(1, 0, per="principal")]),
     intent=[{"outcome": out("ok")}, {"outcome": out("ok")}, {"outcome": RATE_LIMITED}])
case("effects.middleware", "rate-limit-per-principal-across-tools", anchor="effects.rate-limit",
     description="per=\"principal\": the bucket is the principal's whatever the tool, so a "
     "principal's call of another tool takes from the same bucket (per=\"call\" would not).",
     input=route([eff(OK), eff(OK, tool="u")], [T(principal="a"), T(principal="a", tool="u")],
                 middleware=[RL(1, 0, per="principal")]),
     intent=[{"outcome": out("ok")}, {"outcome": err("effect.rate-limited", retryAfter=None),
                                      "trace": []}])
case("effects.middleware", "rate-limit-per-call", anchor="effects.rate-limit",
     description="per=\"call\": one bucket per (principal, tool id).",
     input=route([eff(OK), eff(OK, tool="u")],
                 [T(principal="a"), T(principal="a", tool="u"), T(principal="b"),
                  T(principal="a")],
                 middleware=[RL(1, 0, per="call")]),
     intent=[{"outcome": out("ok")}, {"outcome": out("ok")}, {"outcome": out("ok")},
             {"outcome": RATE_LIMITED}])
case("effects.middleware", "limit-outside-retry", anchor="effects.middleware-order",
     description="A limiter outside the retry takes one token per call, whatever the "
     "attempts.",
     input=route([eff(FLAKY, OK, OK)], [T(), T()], middleware=[RL(1, 0), RETRY(3)]),
     intent=[{"outcome": out("ok"), "attempts": [1, 2], "sleeps": [0.1]},
             {"outcome": RATE_LIMITED, "trace": []}])
case("effects.middleware", "envelope-wraps", anchor="effects.envelope",
     description="The envelope returns {tool, result}.",
     input=route([eff({"return": [1, 2]})], [T()], middleware=[{"kind": "envelope"}]),
     intent=[{"outcome": out({"tool": "t", "result": [1, 2]})}])
case("effects.middleware", "envelope-failure-unwrapped", anchor="effects.envelope",
     description="A failure passes through the envelope unwrapped.",
     input=route([eff(FATAL)], [T()], middleware=[{"kind": "envelope"}]),
     intent=[{"outcome": err("test.fatal", message="fatal")}])
case("effects.middleware", "envelope-outside-retry", anchor="effects.middleware-order",
     description="Outermost first: an envelope outside a retry wraps the final output once.",
     input=route([eff(FLAKY, OK)], [T()], middleware=[{"kind": "envelope"}, RETRY(2)]),
     intent=[{"outcome": out({"tool": "t", "result": "ok"}), "attempts": [1, 2],
              "sleeps": [0.1]}])
case("effects.middleware", "short-circuit", anchor="effects.middleware-order",
     description="A middleware that calls next zero times answers for the call: the effect "
     "never runs.",
     input=route([eff(OK)], [T()],
                 middleware=[PROBE("outer"), PROBE("cache", **{"return": "cached"})]),
     intent=[{"outcome": out("cached"), "trace": [
         {"enter": "outer", "attempt": 0, "input": 1},
         {"enter": "cache", "attempt": 0, "input": 1},
         {"leave": "cache", "attempt": 0, "output": "cached"},
         {"leave": "outer", "attempt": 0, "output": "cached"},
     ]}])
case("effects.middleware", "next-takes-ctx", anchor="effects.middleware-ctx",
     description="next(ctx, input): a middleware may change the input; the context it passes "
     "on is the call's (principal, mode, idempotency key, attempt count).",
     input=route([eff({"echo": True})], [D()],
                 middleware=[PROBE("rewrite", setInput={"q": 2}), PROBE("inner")]),
     intent=[{"outcome": out({"q": 2}), "trace": [
         {"enter": "rewrite", "attempt": 0, "input": 1},
         {"enter": "inner", "attempt": 0, "input": {"q": 2}},
         X(1, "durable", key="k1", input={"q": 2}),
         {"leave": "inner", "attempt": 1, "output": {"q": 2}},
         {"leave": "rewrite", "attempt": 1, "output": {"q": 2}},
     ]}])

# -- effects.metering ---------------------------------------------------------------------------

case("effects.metering", "durable-record", anchor="effects.metering-record",
     description="A durable attempt is recorded with its usage, not advisory.",
     input=route([eff({"usage": {"inputTokens": 3, "outputTokens": 4}, **OK})], [D()],
                 meter={"budget": 100}),
     intent=[{"outcome": out("ok"), "trace": [
         X(1, "durable", key="k1"),
         {"record": REC({"inputTokens": 3, "outputTokens": 4}, "durable")}]}])
case("effects.metering", "zero-count-recorded", anchor="effects.usage",
     description="A usage count of 0 is an integer >= 0: it is recorded, not refused.",
     input=route([eff({"usage": {"inputTokens": 0, "outputTokens": 4}, **OK})], [D()],
                 meter={"budget": 100}),
     intent=[{"outcome": out("ok"), "trace": [
         X(1, "durable", key="k1"),
         {"record": REC({"inputTokens": 0, "outputTokens": 4}, "durable")}]}])
case("effects.metering", "transient-advisory", anchor="effects.metering-record",
     description="A transient attempt's record is advisory (and still charged).",
     input=route([eff({"usage": {"outputTokens": 2}, **OK})], [T()], meter={"budget": 100}),
     intent=[{"outcome": out("ok"), "records": [REC({"outputTokens": 2}, "transient")]}])
case("effects.metering", "no-usage", anchor="effects.metering-record",
     description="An attempt that reported nothing is recorded with empty usage.",
     input=route([eff(OK)], [T()], meter={"budget": 100}),
     intent=[{"outcome": out("ok"), "records": [REC({}, "transient")]}])
case("effects.metering", "failed-attempts-recorded", anchor="effects.metering-record",
     description="Every attempt that reached the effect is recorded once, failed or not, "
     "before the retry sleeps.",
     input=route([eff({"usage": {"units": 2}, **FLAKY}, {"usage": {"units": 1}, **OK})],
                 [D()], meter={"budget": 100}, middleware=[RETRY(2)]),
     intent=[{"outcome": out("ok"), "trace": [
         X(1, "durable", key="k1"), {"record": REC({"units": 2}, "durable")}, {"sleep": 0.1},
         X(2, "durable", key="k1", now=0.1), {"record": REC({"units": 1}, "durable")}]}])
case("effects.metering", "budget-exhausted", anchor="effects.metering-admission",
     description="Spend recorded by one call refuses the next.",
     input=route([eff({"usage": {"units": 5}, **OK})], [T(), T()], meter={"budget": 5}),
     intent=[{"outcome": out("ok"), "records": [REC({"units": 5}, "transient")]},
             {"outcome": err("effect.over-budget"), "trace": []}])
case("effects.metering", "estimate", anchor="effects.metering-admission",
     description="Admission asks spent + estimate <= budget: 0 + 3 <= 5 admits, 3 + 3 does "
     "not.",
     input=route([eff({"usage": {"units": 3}, **OK})], [T(), T()],
                 meter={"budget": 5, "estimate": 3}),
     intent=[{"outcome": out("ok")}, {"outcome": err("effect.over-budget")}])
case("effects.metering", "budget-last-unit", anchor="effects.metering-admission",
     description="The last unit of the budget is admitted: spent + estimate equal to the "
     "budget (0 + 1 <= 1) admits the call; the next (1 + 1) is refused.",
     input=route([eff({"usage": {"units": 1}, **OK})], [T(), T()], meter={"budget": 1}),
     intent=[{"outcome": out("ok")}, {"outcome": err("effect.over-budget"), "trace": []}])
case("effects.metering", "over-budget-between-retries", anchor="effects.metering-admission",
     description="Admission runs per attempt: a failed attempt's spend refuses the next.",
     input=route([eff({"usage": {"units": 3}, **FLAKY}, OK)], [D()], meter={"budget": 3},
                 middleware=[RETRY(3)]),
     intent=[{"outcome": err("effect.over-budget"), "attempts": [1], "sleeps": [0.1],
              "records": [REC({"units": 3}, "durable")]}])

# -- effects.context ------------------------------------------------------------------------------

case("effects.context", "fields", anchor="effects.context",
     description="The context carries the call's tool id, mode, principal, execution id, "
     "and the idempotency key on the durable path only.",
     input=route([eff(OK)], [D(executionId="x1", stepId="t#1", idempotencyKey="x1/t#1"),
                             T(executionId="x1", idempotencyKey="k9")]),
     intent=[{"trace": [X(1, "durable", key="x1/t#1", execution="x1")]},
             {"trace": [X(1, execution="x1")]}])
case("effects.context", "usage-per-attempt", anchor="effects.usage",
     description="report_usage adds counters within an attempt; each attempt starts empty.",
     input=route([eff({"usage": [{"a": 1}, {"a": 2, "b": 1}], **FLAKY},
                      {"usage": {"a": 5}, **OK})],
                 [T()], meter={"budget": 100}, middleware=[RETRY(2)]),
     intent=[{"outcome": out("ok"), "records": [REC({"a": 3, "b": 1}, "transient"),
                                                REC({"a": 5}, "transient")]}])
case("effects.context", "emit-durable", anchor="effects.emit",
     description="On the durable path emit forwards each event to the call's on_emit, in "
     "order.",
     input=route([eff({"emit": [{"kind": "progress"}, {"kind": "half"}], **OK})], [D()]),
     intent=[{"outcome": out("ok"), "trace": [X(1, "durable", key="k1"),
                                              {"emit": {"kind": "progress"}},
                                              {"emit": {"kind": "half"}}]}])
case("effects.context", "emit-transient-noop", anchor="effects.emit",
     description="On the transient path emit is a no-op.",
     input=route([eff({"emit": [{"kind": "progress"}], **OK})], [T()]),
     intent=[{"outcome": out("ok"), "trace": [X(1)]}])
case("effects.context", "injected-clock", anchor="effects.injected-clock",
     description="The effect's ctx.clock is the runtime's injected clock: retry sleeps "
     "advance it, and so do the scenario's advances.",
     input=route([eff(FLAKY, FLAKY, OK)], [T(), {"advance": 10}, T()], clock=100,
                 middleware=[RETRY(3, baseDelay=0.5)]),
     intent=[{"outcome": out("ok"), "trace": [X(1, now=100), {"sleep": 0.5}, X(2, now=100.5),
                                              {"sleep": 1.0}, X(3, now=101.5)]},
             {}, {"outcome": out("ok"), "trace": [X(1, now=111.5), {"sleep": 0.5},
                                                  X(2, now=112.0), {"sleep": 1.0},
                                                  X(3, now=113.0)]}])

# -- effects.signals ----------------------------------------------------------------------------

case("effects.signals", "aborted-before", anchor="effects.signal-abort",
     description="An aborted signal refuses the call with its reason; the effect and the "
     "meter are untouched. (No retry here: that the refusal is never retried is loom-ref's "
     "rule, effects.signals/aborted-before-not-retried.)",
     input=route([eff(OK)], [T(aborted="user cancelled")], meter={"budget": 10}),
     intent=[{"outcome": err("effect.aborted", reason="user cancelled"), "trace": []}])
case("effects.signals", "aborted-before-not-retried", anchor="effects.refusal-never-retried",
     description="An aborted signal refuses the call with its reason; the effect, the meter "
     "and the retry are untouched: the retry around it does not retry the refusal.",
     input=route([eff(OK)], [T(aborted="user cancelled")], meter={"budget": 10},
                 middleware=[RETRY()]),
     intent=[{"outcome": err("effect.aborted", reason="user cancelled"), "trace": []}])
case("effects.signals", "aborted-not-counted", anchor="effects.retry-attempts",
     description="An attempt refused by the signal (stage 7) invokes nothing and is not "
     "counted: the middleware around reads attempt 0 after it.",
     input=route([eff(OK)], [T(aborted="user cancelled")], middleware=[PROBE("outer")]),
     intent=[{"outcome": err("effect.aborted", reason="user cancelled"), "trace": [
         {"enter": "outer", "attempt": 0, "input": 1},
         {"leave": "outer", "attempt": 0, "error": "effect.aborted"},
     ]}])
case("effects.signals", "aborted-during-success", anchor="effects.signal-abort",
     description="An abort while the effect ran rejects even a returned value; the attempt "
     "that ran is recorded.",
     input=route([eff({"abort": "stop", "return": "late"})], [T()], meter={"budget": 10}),
     intent=[{"outcome": err("effect.aborted", reason="stop"),
              "trace": [X(1), {"record": REC({}, "transient")}]}])
case("effects.signals", "aborted-during-failure", anchor="effects.signal-abort",
     description="An abort wins over the effect's own error: the call is rejected with "
     "effect.aborted and the abort reason. Whether that error is chained as its cause "
     "(effects.signal-abort-cause) and whether the retry middleware around it retries "
     "(effects.refusal-never-retried) are loom-ref's choices, pinned by "
     "effects.signals/abort-chains-cause and left open here (the outcome's other members, "
     "the trace).",
     input=route([eff({"abort": "stop", **FLAKY}, OK)], [T()], middleware=[RETRY()]),
     intent=[{"outcome": {"error": {"$partial": {"code": "effect.aborted", "reason": "stop"}}},
              "trace": {"$any": None}}])
case("effects.signals", "abort-chains-cause", anchor="effects.signal-abort-cause",
     description="When an abort wins over the effect's own error, that error is chained as "
     "its cause: the outcome's cause is the effect's code; and the abort, the route's "
     "refusal, is not retried (effects.refusal-never-retried). Both are loom-ref's choices.",
     input=route([eff({"abort": "stop", **FLAKY}, OK)], [T()], middleware=[RETRY()]),
     intent=[{"outcome": err("effect.aborted", reason="stop", cause="test.flaky"),
              "attempts": [1], "sleeps": []}])
case("effects.signals", "compose-execution", anchor="effects.signal-compose",
     description="The execution's cancel reaches the call through the scope's composition, "
     "with its reason.",
     input=route([eff({"abort": {"source": "execution", "reason": "execution cancelled"},
                       "return": "late"})],
                 [{"scope": {"name": "s1", "executionId": "x1"}}, S()]),
     intent=[{}, {"outcome": err("effect.aborted", reason="execution cancelled"),
                  "attempts": [1]}])
case("effects.signals", "compose-caller", anchor="effects.signal-compose",
     description="The decider's own signal reaches the call through the composition.",
     input=route([eff({"abort": {"source": "call", "reason": "decider stop"},
                       "return": "late"})],
                 [{"scope": {"name": "s1", "executionId": "x1"}}, S()]),
     intent=[{}, {"outcome": err("effect.aborted", reason="decider stop")}])
case("effects.signals", "compose-first-aborted", anchor="effects.signal-compose",
     description="Composing already-aborted inputs gives the first one's reason (execution, "
     "then caller, then lifetime).",
     input=route([eff(OK)], [{"scope": {"name": "s1", "executionId": "x1",
                                         "executionAborted": "execution gone"}},
                             S(aborted="caller gone"),
                             {"scope": {"name": "s2", "executionId": "x1"}},
                             S("s2", aborted="caller gone")]),
     intent=[{}, {"outcome": err("effect.aborted", reason="execution gone"), "trace": []},
             {}, {"outcome": err("effect.aborted", reason="caller gone"), "trace": []}])
case("effects.signals", "detach", anchor="effects.signal-detach", tier="should",
     description="The scope detaches a call's composite once the call settles: a later "
     "cancel of the execution leaves the settled call's signal alone, and refuses the next "
     "call.",
     input=route([eff(OK)], [{"scope": {"name": "s1", "executionId": "x1"}},
                             S(watchSignal=True),
                             {"cancelExecution": {"scope": "s1", "reason": "later"}},
                             S()]),
     intent=[{}, {"outcome": out("ok"), "signalAtEnd": {"aborted": False}}, {},
             {"outcome": err("effect.aborted", reason="later"), "trace": []}])
case("effects.signals", "undetached-plain-call", anchor="effects.signal-detach",
     tier="should",
     description="Contrast: a call's own signal, aborted after the call settled, shows "
     "aborted (what the detached composite of a scope call does not).",
     input=route([eff({"abort": "after", "return": "x"})], [T(watchSignal=True)]),
     intent=[{"outcome": err("effect.aborted", reason="after"),
              "signalAtEnd": {"aborted": True, "reason": "after"}}])

# -- effects.scope --------------------------------------------------------------------------------

case("effects.scope", "runs-as-execution", anchor="effects.scope-principal",
     description="A decide scope's call is transient and runs AS the deciding execution: "
     "principal and execution id are its id, and grants are written against it.",
     input=route([eff(OK)], [{"scope": {"name": "s1", "executionId": "exec-7"}}, S(), T()],
                 grants=[{"principal": "exec-7", "toolId": "t", "modes": ["transient"]}]),
     intent=[{}, {"outcome": out("ok"), "trace": [X(1, principal="exec-7",
                                                      execution="exec-7")]},
             {"outcome": DENIED_CODE}])
case("effects.scope", "full-route", anchor="effects.scope-principal",
     description="A scope call takes the whole governed route: a durable-only effect "
     "refuses it.",
     input=route([eff(OK, modes=["durable"])],
                 [{"scope": {"name": "s1", "executionId": "x1"}}, S()]),
     intent=[{}, {"outcome": err("effect.mode-refused"), "trace": []}])
#: A call through a scope closed before it, with a probe middleware that would trace the chain.
CALL_THROUGH_CLOSED_SCOPE = route([eff(OK)], [{"scope": {"name": "s1", "executionId": "x1"}},
                                              {"close": "s1"}, S()],
                                  middleware=[PROBE("outer")])
case("effects.scope", "closed", anchor="effects.scope-closed",
     description="A call through a closed scope is rejected with effect.aborted and reason "
     "\"scope closed\"; where the refusal happens (and so what is traced) is loom-ref's "
     "choice (effects.scope/closed-refused-before-chain), which this case leaves open.",
     input=CALL_THROUGH_CLOSED_SCOPE,
     intent=[{}, {}, {"outcome": err("effect.aborted", reason="scope closed"),
                      "trace": {"$any": None}}])
case("effects.scope", "closed-refused-before-chain", anchor="effects.scope-closed-early",
     description="A call through a closed scope is refused before it reaches the host: no "
     "middleware runs and nothing is traced (loom-ref's choice).",
     input=CALL_THROUGH_CLOSED_SCOPE,
     intent=[{}, {}, {"outcome": err("effect.aborted", reason="scope closed"), "trace": []}])
case("effects.scope", "closed-mid-call", anchor="effects.scope-closed",
     description="Closing the scope while a call runs aborts it with \"scope closed\"; later "
     "calls are refused.",
     input=route([eff({"abort": {"source": "scope"}, "return": "late"})],
                 [{"scope": {"name": "s1", "executionId": "x1"}}, S(), S()]),
     intent=[{}, {"outcome": err("effect.aborted", reason="scope closed"), "attempts": [1]},
             {"outcome": err("effect.aborted", reason="scope closed"), "trace": []}])

# -- rules an implementation written from the spec alone found unstated (Node adapter wave) --

case("effects.retry", "scripted-refusal-code-retried", anchor="effects.refusal-never-retried",
     description="What is never retried goes by the error's kind, not its code: the effect's "
     "own failure carrying a refusal's code is retried, and reports that code's members.",
     input=route([eff({"raise": {"code": "effect.killed", "message": "first"}},
                      {"raise": {"code": "effect.killed", "message": "second"}})],
                 [T()], middleware=[RETRY(2)]),
     intent=[{"outcome": err("effect.killed", message="second"), "attempts": [1, 2],
              "sleeps": [0.1]}])
case("effects.metering", "crash-not-recorded", anchor="effects.metering-record",
     description="A simulated crash is not recorded and no middleware code runs after it: "
     "the trace stops at the crash.",
     input=route([eff({"usage": {"units": 2}, "crash": True})], [T()], meter={"budget": 10},
                 middleware=[PROBE("outer")]),
     intent=[{"outcome": {"crashed": True},
              "trace": [{"enter": "outer", "attempt": 0, "input": 1}, X(1)]}])
case("effects.metering", "record-before-probe-leave", anchor="effects.route-vector",
     description="The meter records an attempt when it returns from the effect, inside every "
     "middleware: the record entry comes after execute and before the probe's leave.",
     input=route([eff({"usage": {"units": 2}, "return": "ok"})], [T()], meter={"budget": 10},
                 middleware=[PROBE("outer")]),
     intent=[{"outcome": {"output": "ok"},
              "trace": [{"enter": "outer", "attempt": 0, "input": 1}, X(1),
                        {"record": {"toolId": "t", "principal": "p", "mode": "transient",
                                    "usage": {"units": 2}, "charged": 2, "advisory": True}},
                        {"leave": "outer", "attempt": 1, "output": "ok"}]}])
case("effects.refusals", "kill-global-and-tool", anchor="effects.kill-switch",
     description="While a global and a per-tool kill are both engaged the refusal carries "
     "the global reason; after a global revive, the tool's.",
     input=route([eff(OK)], [{"kill": {"reason": "broken", "toolId": "t"}},
                             {"kill": {"reason": "maintenance"}}, T(), {"revive": {}}, T()]),
     intent=[{}, {}, {"outcome": err("effect.killed", message="maintenance"), "trace": []}, {},
             {"outcome": err("effect.killed", message="broken"), "trace": []}])
case("effects.context", "clock-never-back", anchor="effects.injected-clock",
     description="The manual clock never moves back: an effect advancing it by a negative "
     "amount fails with argument.invalid.",
     input=route([eff({"advance": -1})], [T()]),
     intent=[{"outcome": err("argument.invalid"), "trace": [X(1)]}])
case("effects.context", "clock-start-negative", anchor="effects.injected-clock",
     description="A manual clock starts at a time >= 0.",
     input=route([eff(OK)], [T()], clock=-1),
     intent={"error": "argument.invalid"})
case("effects.host", "registration-empty-modes", anchor="effects.registration",
     description="An effect allows a non-empty set of modes.",
     input=route([eff(OK, modes=[])], [T()]),
     intent={"error": "argument.invalid"})
case("effects.middleware", "rate-limit-capacity-below-one", anchor="effects.rate-limit",
     description="A capacity below 1 is refused, not raised to 1.",
     input=route([eff(OK)], [T()], middleware=[RL(0.5, 1)]),
     intent={"error": "argument.invalid"})
case("effects.route", "scripted-message-default", anchor="effects.route-vector",
     description="A scripted raise without a message fails with the message "
     "\"scripted failure\".",
     input=route([eff({"raise": {"code": "test.fatal"}})], [T()]),
     intent=[{"outcome": err("test.fatal", message="scripted failure"), "trace": [X(1)]}])
case("effects.route", "error-members-by-code", anchor="effects.route-vector",
     description="An error reports the members its code fixes, whoever raised it: a "
     "scripted effect.denied has no triple to report.",
     input=route([eff({"raise": {"code": "effect.denied", "message": "m"}})], [T()]),
     intent=[{"outcome": err("effect.denied", toolId=None, principal=None, mode=None),
              "trace": [X(1)]}])
case("effects.route", "durable-without-key", anchor="effects.route-vector",
     description="A durable call may omit its idempotency key: the effect sees none and the "
     "retry's jitter key is \"<seed>:\".",
     input=route([eff(FLAKY, OK)],
                 [{"call": {"tool": "t", "mode": "durable", "input": 1}}],
                 middleware=[RETRY(2, baseDelay=1.0, jitter=1.0, seed="s")]),
     intent=[{"outcome": out("ok"), "attempts": [1, 2],
              "sleeps": [jittered(1, base=1.0, mult=2.0, cap=10.0, jitter=1.0, key="s:")]}])
case("effects.route", "malformed-grant-modes", anchor="effects.route-vector",
     description="A grant's modes, when given, are a non-empty list.",
     input=route([eff(OK)], [T()], grants=[{"principal": "p", "toolId": "t", "modes": []}]),
     intent={"error": "argument.invalid"})
case("effects.route", "malformed-grant-principal-empty", anchor="effects.route-vector",
     description="A grant's principal is a non-empty string: \"\" is malformed input, not a "
     "grant that matches no caller.",
     input=route([eff(OK)], [T()], grants=[{"principal": "", "toolId": "t"}]),
     intent={"error": "argument.invalid"})
case("effects.route", "malformed-effect-tool-id-empty", anchor="effects.route-vector",
     description="An effect's tool id is a non-empty string: an effect registered as \"\" is "
     "malformed input, not an effect no call can name.",
     input=route([eff(OK), {"script": [{"return": "no"}], "toolId": ""}], [T()]),
     intent={"error": "argument.invalid"})
case("effects.route", "malformed-meter-estimate", anchor="effects.route-vector",
     description="A meter's estimate is an integer >= 0.",
     input=route([eff(OK)], [T()], meter={"budget": 5, "estimate": -1}),
     intent={"error": "argument.invalid"})
case("effects.route", "malformed-empty-reason", anchor="effects.route-vector",
     description="A reason is a non-empty string.",
     input=route([eff(OK)], [{"kill": {"reason": ""}}, T()]),
     intent={"error": "argument.invalid"})
case("effects.route", "malformed-call-transient-ids", anchor="effects.route-vector",
     description="The keyword door takes no mode and no execution's ids: a transient mode "
     "or an executionId given to it is malformed, not ignored.",
     input=route([eff(OK)], [{"call": {"tool": "t", "door": "callTransient",
                                        "mode": "transient"}}]),
     intent={"error": "argument.invalid"})
case("effects.route", "malformed-call-transient-key", anchor="effects.route-vector",
     description="An idempotencyKey given to the keyword door is malformed, not ignored.",
     input=route([eff(OK)], [{"call": {"tool": "t", "door": "callTransient",
                                        "idempotencyKey": "k"}}]),
     intent={"error": "argument.invalid"})
case("effects.route", "malformed-revive-tool", anchor="effects.route-vector",
     description="A revive's toolId, when given, is a non-empty string, as a kill's is.",
     input=route([eff(OK)], [{"revive": {"toolId": 5}}]),
     intent={"error": "argument.invalid"})
case("effects.route", "malformed-meter-no-budget", anchor="effects.route-vector",
     description="A meter needs its budget: a meter without one is malformed.",
     input=route([eff(OK)], [T()], meter={}),
     intent={"error": "argument.invalid"})
case("effects.route", "malformed-retry-no-max-attempts", anchor="effects.route-vector",
     description="A retry middleware needs maxAttempts: one without it is malformed.",
     input=route([eff(OK)], [T()], middleware=[{"kind": "retry"}]),
     intent={"error": "argument.invalid"})
case("effects.route", "malformed-rate-limit-no-rate", anchor="effects.route-vector",
     description="A rate limit needs capacity and rate: one without rate is malformed.",
     input=route([eff(OK)], [T()], middleware=[{"kind": "rateLimit", "capacity": 1}]),
     intent={"error": "argument.invalid"})
case("effects.route", "malformed-middleware-kind-list", anchor="effects.route-vector",
     description="A middleware kind that is not a string (a list) is malformed.",
     input=route([eff(OK)], [T()], middleware=[{"kind": []}]),
     intent={"error": "argument.invalid"})
case("effects.route", "malformed-call-scope-object", anchor="effects.route-vector",
     description="A call's scope name that is not a string (an object) is malformed.",
     input=route([eff(OK)], [{"scope": {"name": "s1", "executionId": "x1"}},
                             {"call": {"tool": "t", "scope": {}}}]),
     intent={"error": "argument.invalid"})
case("effects.route", "malformed-revive-tool-null", anchor="effects.route-vector",
     description="A revive's toolId null is malformed, not global: only an absent toolId "
     "means global.",
     input=route([eff(OK)], [{"kill": {"reason": "broken"}}, {"revive": {"toolId": None}}]),
     intent={"error": "argument.invalid"})
case("effects.route", "malformed-kill-tool-null", anchor="effects.route-vector",
     description="A kill's toolId null is malformed, not global.",
     input=route([eff(OK)], [{"kill": {"reason": "broken", "toolId": None}}, T()]),
     intent={"error": "argument.invalid"})
case("effects.route", "malformed-call-mode-null", anchor="effects.route-vector",
     description="A call's mode null is a value of the wrong type, not an absent mode.",
     input=route([eff(OK)], [{"call": {"tool": "t", "mode": None}}]),
     intent={"error": "argument.invalid"})
case("effects.route", "malformed-rate-limit-per-null", anchor="effects.route-vector",
     description="A rate limit's per null is a value of the wrong type, not an absent per.",
     input=route([eff(OK)], [T()], middleware=[RL(1, 1, per=None)]),
     intent={"error": "argument.invalid"})
case("effects.metering", "refused-report-records-nothing", anchor="effects.usage",
     description="A usage report is checked whole before anything is added: the refused "
     "second report adds none of its counters (not even the valid one before the bad one); "
     "the first report stays recorded.",
     input=route([eff({"usage": [{"a": 2}, {"b": 1, "c": -1}]})], [T()], meter={"budget": 100}),
     intent=[{"outcome": err("argument.invalid"), "records": [REC({"a": 2}, "transient")]}])
case("effects.scope", "name-reused", anchor="effects.route-vector",
     description="A scope step whose name is in use replaces that scope for the later steps.",
     input=route([eff(OK)], [{"scope": {"name": "s1", "executionId": "x1"}}, {"close": "s1"},
                             {"scope": {"name": "s1", "executionId": "y1"}}, S()]),
     intent=[{}, {}, {}, {"outcome": out("ok"),
                          "trace": [X(1, principal="y1", execution="y1")]}])

# -- issue 29: points a blind implementation found open, decided in the text --------------------

case("effects.signals", "abort-object-default-source", anchor="effects.route-vector",
     description="An abort object without source aborts the caller's signal: source "
     "defaults to call, as the bare reason does.",
     input=route([eff({"abort": {"reason": "stop"}, "return": "late"})], [T(watchSignal=True)]),
     intent=[{"outcome": err("effect.aborted", reason="stop"), "attempts": [1],
              "signalAtEnd": {"aborted": True, "reason": "stop"}}])
case("effects.route", "malformed-abort-scope-reason", anchor="effects.route-vector",
     description="Closing the scope takes no reason (its reason is \"scope closed\"): an "
     "abort of source scope with a reason is malformed.",
     input=route([eff({"abort": {"source": "scope", "reason": "r"}})],
                 [{"scope": {"name": "s1", "executionId": "x1"}}, S()]),
     intent={"error": "argument.invalid"})
case("effects.route", "malformed-abort-no-reason", anchor="effects.route-vector",
     description="An abort of the caller's signal (or the execution's) needs its reason.",
     input=route([eff({"abort": {"source": "call"}})], [T()]),
     intent={"error": "argument.invalid"})
case("effects.route", "raise-empty-message", anchor="effects.route-vector",
     description="A scripted raise's message is any string, the empty one included; the "
     "error reports it as given.",
     input=route([eff({"raise": {"code": "test.fatal", "message": ""}})], [T()]),
     intent=[{"outcome": err("test.fatal", message=""), "attempts": [1]}])
case("effects.retry", "retry-on-empty-list", anchor="effects.route-vector",
     description="retryOn retries exactly the codes it lists: an empty list retries nothing.",
     input=route([eff(FLAKY, OK)], [T()], middleware=[RETRY(3, retryOn=[])]),
     intent=[{"outcome": err("test.flaky", message="flaky"), "attempts": [1], "sleeps": []}])
case("effects.route", "malformed-retry-on-empty-code", anchor="effects.route-vector",
     description="An empty string is no error code: a retryOn entry \"\" is malformed.",
     input=route([eff(OK)], [T()], middleware=[RETRY(2, retryOn=[""])]),
     intent={"error": "argument.invalid"})
case("effects.route", "malformed-retry-jitter", anchor="effects.route-vector",
     description="A retry's parameters have backoff_delay's ranges: a jitter above 1 is "
     "refused when the middleware is built.",
     input=route([eff(OK)], [T()], middleware=[RETRY(2, jitter=1.5)]),
     intent={"error": "argument.invalid"})
case("effects.route", "malformed-retry-multiplier", anchor="effects.route-vector",
     description="A retry's multiplier below 1 is refused when the middleware is built.",
     input=route([eff(OK)], [T()], middleware=[RETRY(2, multiplier=0.5)]),
     intent={"error": "argument.invalid"})
case("effects.route", "call-ids-empty", anchor="effects.route-vector",
     description="A call's executionId, stepId and idempotencyKey are any strings, the empty "
     "one included; the effect sees them as given.",
     input=route([eff(OK)], [{"call": {"tool": "t", "mode": "durable", "input": 1,
                                        "executionId": "", "stepId": "",
                                        "idempotencyKey": ""}}]),
     intent=[{"outcome": out("ok"), "trace": [X(1, "durable", key="", execution="")]}])
case("effects.route", "malformed-scope-execution-id-empty", anchor="effects.route-vector",
     description="A scope's execution id (the deciding execution) is a non-empty string.",
     input=route([eff(OK)], [{"scope": {"name": "s1", "executionId": ""}}]),
     intent={"error": "argument.invalid"})
case("effects.route", "malformed-is-idempotent-empty", anchor="effects.route-vector",
     description="An isIdempotent step names a tool id, and an empty string is none.",
     input=route([eff(OK)], [{"isIdempotent": ""}]),
     intent={"error": "argument.invalid"})
case("effects.host", "door-before-lookup", anchor="effects.route-vector",
     description="A door that does not take the call's mode refuses it as the call's "
     "outcome, before the tool id is looked up: an unknown tool through the wrong door is "
     "argument.invalid, not effect.unknown-tool.",
     input=route([eff(OK)], [T(tool="nope", door="invoke")]),
     intent=[{"outcome": err("argument.invalid"), "trace": []}])
case("effects.route", "watch-signal-false", anchor="effects.route-vector",
     description="watchSignal false is the default: the step has no signalAtEnd member.",
     input=route([eff(OK)], [T(watchSignal=False)]),
     intent=[{"outcome": out("ok"), "signalAtEnd": "<absent>"}])
case("effects.route", "scripted-codes-carry-message", anchor="effects.route-vector",
     description="A scripted raise carries its message whatever its code, except the codes "
     "whose members go by the code alone (aborted: a null reason; rate-limited: a null "
     "retryAfter); the same codes raised by the runtime carry the code alone.",
     input=route([eff({"raise": {"code": "effect.mode-refused", "message": "m1"}}),
                  eff({"raise": {"code": "effect.unknown-tool", "message": "m2"}}, tool="u"),
                  eff({"raise": {"code": "effect.over-budget", "message": "m3"}}, tool="v"),
                  eff({"raise": {"code": "effect.aborted", "message": "m4"}}, tool="w"),
                  eff({"raise": {"code": "effect.rate-limited", "message": "m5"}}, tool="x"),
                  eff(OK, tool="d", modes=["durable"])],
                 [T(), T(tool="u"), T(tool="v"), T(tool="w"), T(tool="x"), T(tool="d"),
                  T(tool="nope")]),
     intent=[{"outcome": err("effect.mode-refused", message="m1")},
             {"outcome": err("effect.unknown-tool", message="m2")},
             {"outcome": err("effect.over-budget", message="m3")},
             {"outcome": err("effect.aborted", reason=None)},
             {"outcome": err("effect.rate-limited", retryAfter=None)},
             {"outcome": err("effect.mode-refused"), "trace": []},
             {"outcome": err("effect.unknown-tool"), "trace": []}])
case("effects.retry", "sleep-zero", anchor="effects.retry-backoff",
     description="A retry sleeps between two attempts whatever the delay: a sleep of 0 is "
     "traced.",
     input=route([eff(FLAKY, OK)], [T()], middleware=[RETRY(2, baseDelay=0)]),
     intent=[{"outcome": out("ok"), "trace": [X(1), {"sleep": 0.0}, X(2)]}])
case("effects.retry", "nested-own-count", anchor="effects.retry-backoff",
     description="Each retry backs off by its own count of next calls, not by ctx.attempt: "
     "the inner retry sleeps its first backoff (0.01) again after the outer one re-enters it.",
     input=route([eff(FLAKY)], [T()],
                 middleware=[RETRY(2, baseDelay=1.0), RETRY(2, baseDelay=0.01)]),
     intent=[{"outcome": err("test.flaky", message="flaky"), "attempts": [1, 2, 3, 4],
              "sleeps": [0.01, 1.0, 0.01]}])
case("effects.middleware", "rate-limit-fractional", anchor="effects.rate-limit",
     description="The bucket's arithmetic with a fractional capacity and rate: full at 1.5, "
     "0.5 after a pass, refused with retryAfter (1 - 0.5) / 0.3; after 0.7 s it holds 0.71, "
     "still refused; a refused pass takes nothing.",
     input=route([eff(OK)], [T(), T(), {"advance": 0.7}, T()],
                 middleware=[RL(1.5, 0.3)]),
     intent=[{"outcome": out("ok")},
             {"outcome": err("effect.rate-limited", retryAfter=1.666667), "trace": []},
             {},
             {"outcome": err("effect.rate-limited", retryAfter=0.966667), "trace": []}])
# issue 30: the survivors of sample 713662 -- a refused pass keeps the refill so far
case("effects.middleware", "rate-limit-refused-pass-rebases", anchor="effects.rate-limit",
     description="A refused pass still sets tokens and last, in doubles: at rate 0.1 the "
     "bucket emptied at 0 gains 0.1 at each of nine refused passes a second apart, and at "
     "the tenth second it holds 0.1 added ten times, 0.9999999999999999, not 10 * 0.1 = 1: "
     "refused, with a retryAfter of about 1e-15 s (0 to six places).",
     input=route([eff(OK)], [T(), *[x for _ in range(10) for x in ({"advance": 1}, T())]],
                 middleware=[RL(1, 0.1)]),
     intent=[{"outcome": out("ok")},
             *[x for n in range(1, 11) for x in (
                 {}, {"outcome": err("effect.rate-limited",
                                     retryAfter=round((1 - 0.1 * n) / 0.1, 6) if n < 10
                                     else 0.0), "trace": []})]])
case("effects.metering", "step-after-crash", anchor="effects.route-vector",
     description="A crash ends its own call only: the steps after it run.",
     input=route([eff({"crash": True}), eff({"return": 2}, tool="u")], [T(), T(tool="u")],
                 meter={"budget": 5}),
     intent=[{"outcome": {"crashed": True}, "records": []},
             {"outcome": out(2), "records": [REC({}, "transient", tool="u")]}])
case("effects.signals", "abort-execution-direct-call", anchor="effects.route-vector",
     description="An attempt that aborts the execution needs a call through a scope; run by "
     "a direct call it cannot run as written, and the whole input is malformed.",
     input=route([eff({"abort": {"source": "execution", "reason": "r"}})], [T()]),
     intent={"error": "argument.invalid"})
case("effects.signals", "abort-then-crash", anchor="effects.route-vector",
     description="A crash after the signal aborted is still a crash: nothing after it runs, "
     "no record and no abort check.",
     input=route([eff({"abort": "stop", "crash": True})], [T(watchSignal=True)],
                 meter={"budget": 5}),
     intent=[{"outcome": {"crashed": True}, "records": [],
              "signalAtEnd": {"aborted": True, "reason": "stop"}}])
case("effects.signals", "detached-keeps-reason", anchor="effects.signal-detach",
     tier="should",
     description="The caller aborts mid-call through a scope; once detached the composite "
     "keeps the caller's reason, and a later cancel of the execution does not change it.",
     input=route([eff({"abort": "caller"})],
                 [{"scope": {"name": "s1", "executionId": "x1"}}, S(watchSignal=True),
                  {"cancelExecution": {"scope": "s1", "reason": "later"}}]),
     intent=[{}, {"outcome": err("effect.aborted", reason="caller"),
                  "signalAtEnd": {"aborted": True, "reason": "caller"}}, {}])
case("effects.metering", "budget-at-2-53", anchor="effects.route-vector",
     description="A budget is any integer >= 0 a case can hold, 2**53 included "
     "(INTERPRETING.md section 7: integers within +-2**53).",
     input=route([eff({"usage": {"units": 5}, "return": "ok"})], [T(), T()],
                 meter={"budget": 2**53}),
     intent=[{"outcome": out("ok"), "records": [REC({"units": 5}, "transient")]},
             {"outcome": out("ok"), "records": [REC({"units": 5}, "transient")]}])
case("effects.metering", "usage-boolean-refused", anchor="effects.usage",
     description="A usage value is an integer >= 0 and a boolean is none: the report is "
     "refused when the attempt makes it, the earlier report stays recorded.",
     input=route([eff({"usage": [{"a": 1}, {"b": True}]})], [T()], meter={"budget": 9}),
     intent=[{"outcome": err("argument.invalid"), "records": [REC({"a": 1}, "transient")]}])
case("effects.refusals", "kill-reason-replaced", anchor="effects.kill-switch",
     description="A kill of a form already engaged replaces its reason.",
     input=route([eff(OK)], [{"kill": {"reason": "first"}}, {"kill": {"reason": "second"}},
                             T()]),
     intent=[{}, {}, {"outcome": err("effect.killed", message="second"), "trace": []}])
case("effects.middleware", "probe-set-input-null", anchor="effects.route-vector",
     description="A probe's setInput is any JSON value: null passes null on.",
     input=route([eff({"echo": True})], [T()], middleware=[PROBE("p", setInput=None)]),
     intent=[{"outcome": out(None), "trace": [
         {"enter": "p", "attempt": 0, "input": 1}, X(1, input=None),
         {"leave": "p", "attempt": 1, "output": None}]}])
# issue 29, fresh blind reading 32: a present "return": null short-circuits
case("effects.middleware", "probe-return-null", anchor="effects.route-vector",
     description="A probe's return is any JSON value: a present null answers null without "
     "calling next, so the effect never runs.",
     input=route([eff({"echo": True})], [T()], middleware=[PROBE("p", **{"return": None})]),
     intent=[{"outcome": out(None), "trace": [
         {"enter": "p", "attempt": 0, "input": 1},
         {"leave": "p", "attempt": 0, "output": None}]}])

# -- issue 30: what the coverage of the suite found unpinned -------------------------------------

def malformed(name: str, description: str, input: dict[str, Any]) -> None:
    """An effects.route input the reader refuses (spec: effects.route-vector)."""
    case("effects.route", name, anchor="effects.route-vector", description=description,
         input=input, intent={"error": "argument.invalid"})


malformed("malformed-attempt-two-endings",
          "An attempt ends in at most one of return, echo, raise, crash: return and raise "
          "together are malformed.",
          route([eff({"return": "a", "raise": {"code": "test.fatal"}})], [T()]))
malformed("malformed-attempt-usage-number",
          "An attempt's usage is an object or a list of objects: a number is malformed.",
          route([eff({"usage": 5})], [T()]))
malformed("malformed-attempt-usage-list-of-number",
          "An attempt's usage list holds objects only: a number in it is malformed, even after "
          "a good report.",
          route([eff({"usage": [{"a": 1}, 5]})], [T()]))
malformed("malformed-attempt-emit-object",
          "An attempt's emit is a list of events: an object is malformed.",
          route([eff({"emit": {"kind": "x"}})], [T()]))
malformed("malformed-abort-source",
          "An abort's source is call, execution or scope: another is malformed.",
          route([eff({"abort": {"reason": "r", "source": "caller"}})], [T()]))
malformed("malformed-raise-message-number",
          "A scripted raise's message is a string: a number is malformed.",
          route([eff({"raise": {"code": "test.fatal", "message": 5}})], [T()]))
malformed("malformed-echo-false",
          "echo is true or absent: false is malformed, not an attempt that returns.",
          route([eff({"echo": False})], [T()]))
malformed("malformed-crash-string",
          "crash is true or absent: a string is malformed.",
          route([eff({"crash": "yes"})], [T()]))
malformed("malformed-retry-seed-number",
          "A retry's seed is a string: a number is malformed.",
          route([eff(OK)], [T()], middleware=[RETRY(2, seed=5)]))
malformed("malformed-script-empty",
          "An effect's script is a non-empty list: an empty script is malformed.",
          route([{"toolId": "t", "script": []}], [T()]))
malformed("malformed-script-object",
          "An effect's script is a list: an object is malformed.",
          route([{"toolId": "t", "script": {"return": "ok"}}], [T()]))
malformed("malformed-call-door",
          "A call's door is one of the listed doors: another name is malformed.",
          route([eff(OK)], [T(door="invokeLater")]))
malformed("malformed-call-execution-id-number",
          "A call's executionId, when given, is a string: a number is malformed.",
          route([eff(OK)], [T(executionId=5)]))
malformed("malformed-call-step-id-number",
          "A call's stepId, when given, is a string: a number is malformed.",
          route([eff(OK)], [D(stepId=5)]))
malformed("malformed-grants-object",
          "grants, when given, is a list: an object is malformed, not a grant.",
          route([eff(OK)], [T()], grants={"principal": "p", "toolId": "t"}))
malformed("malformed-effects-empty",
          "effects is a non-empty list: an input registering nothing is malformed.",
          route([], [T()]))
malformed("malformed-effect-not-object",
          "An effect is a JSON object: a string is malformed.",
          route([eff(OK), "t"], [T()]))
malformed("malformed-middleware-object",
          "middleware is a list: a single middleware object not in a list is malformed.",
          route([eff(OK)], [T()], middleware=RETRY(2)))
malformed("malformed-steps-empty",
          "steps is a non-empty list: an input with nothing to run is malformed.",
          route([eff(OK)], []))
malformed("malformed-step-two-keys",
          "A step has exactly one key: a call and a kill in one step are malformed.",
          route([eff(OK)], [{"call": {"tool": "t"}, "kill": {"reason": "r"}}]))
malformed("malformed-step-unknown-kind",
          "A step's key is one of the step kinds: another is malformed.",
          route([eff(OK)], [{"sleep": 1}]))
malformed("malformed-cancel-execution-unknown-scope",
          "cancelExecution names a scope opened by an earlier step: another name is malformed.",
          route([eff(OK)], [{"scope": {"name": "s1", "executionId": "x1"}},
                            {"cancelExecution": {"scope": "s2", "reason": "r"}}]))
malformed("malformed-close-unknown-scope",
          "close names a scope opened by an earlier step: another name is malformed.",
          route([eff(OK)], [{"scope": {"name": "s1", "executionId": "x1"}}, {"close": "s2"}]))
malformed("malformed-rate-limit-negative-rate",
          "A rate limit's rate is >= 0: a negative rate is refused when the middleware is built.",
          route([eff(OK)], [T()], middleware=[RL(1, -1)]))
case("effects.signals", "signal-at-end-never-ran", anchor="effects.route-vector",
     description="signalAtEnd is null when the effect never ran (the call was refused before "
     "the effect: here denied).",
     input=route([eff(OK)], [T(watchSignal=True)], grants=[]),
     intent=[{"outcome": denied("p", "transient"), "trace": [], "signalAtEnd": None}])

# -- effects.streaming: deltas.run cases that pin effects.md rules ------------------------------

ORIGIN = "llm:llm"


def txt(text: str) -> dict[str, Any]:
    return {"delta": text, "origin": ORIGIN}


DONE = {"delta": "", "origin": ORIGIN, "done": True}

case("effects.streaming", "refused-durable", anchor="effects.streaming-refused",
     function="deltas.run",
     description="A durable call whose effect has a configured sink, under an inspects_output "
     "middleware without a delta form: the sink receives nothing, the call completes, and "
     "the runtime warns.",
     input={"mode": "durable", "attempts": [{"deltas": ["a", "b"]}], "inspectsOutput": True,
            "configured": "collect"},
     intent={"configured": [], "warnings": ["deltas.streaming-disabled"],
             "outcome": {"ok": True, "output": "ab"}})
case("effects.streaming", "marked-rewriter", anchor="effects.inspects-output",
     function="deltas.run",
     description="A middleware that rewrites the output and says so (inspects_output) "
     "refuses streaming; its rewrite applies to the result.",
     input={"attempts": [{"deltas": ["the ", "secret"]}],
            "rewrite": {"replace": ["secret", "[x]"], "inspectsOutput": True}},
     intent={"perCall": [], "warnings": ["deltas.streaming-disabled"],
             "outcome": {"ok": True, "output": "the [x]"}})
case("effects.streaming", "rate-limit-streams", anchor="effects.rate-limit",
     function="deltas.run",
     description="A rate limit refuses calls before next, never output: it does not set "
     "inspects_output, so a call through it streams with no warning.",
     input={"attempts": [{"deltas": ["a", "b"]}], "rateLimit": {"capacity": 1, "rate": 0}},
     intent={"perCall": [txt("a"), txt("b"), DONE], "warnings": [],
             "outcome": {"ok": True, "output": "ab"}})
case("effects.streaming", "delta-guard-covers", anchor="effects.inspects-output",
     function="deltas.run",
     description="An output-inspecting middleware that provides a delta_guard (the safety "
     "middleware) does not refuse streaming.",
     input={"attempts": [{"deltas": ["all ", "clear"]}],
            "validators": [{"kind": "deny", "patterns": {"secret": "s3cr3t"}}]},
     intent={"perCall": [txt("all "), txt("clear"), DONE], "warnings": []})


# -- issue 29, the fresh blind reading (spec/blind/effects-deltas.md, *Fresh blind reading*) ----

SCOPE1 = {"scope": {"name": "s1", "executionId": "x1"}}

case("effects.route", "malformed-scoped-call-door", anchor="effects.route-vector",
     description="A call through a scope takes only tool, input, aborted and watchSignal: a "
     "door is malformed input, not ignored.",
     input=route([eff(OK)], [SCOPE1, S(door="invokeTransient")]),
     intent={"error": "argument.invalid"})
case("effects.route", "malformed-scoped-call-principal", anchor="effects.route-vector",
     description="A call through a scope runs as the deciding execution: a principal given "
     "to it is malformed input, not ignored.",
     input=route([eff(OK)], [SCOPE1, S(principal="q")]),
     intent={"error": "argument.invalid"})
case("effects.route", "malformed-close-before-scope", anchor="effects.route-vector",
     description="Steps are read in order: a close naming a scope that only a later step "
     "opens names no scope opened so far, and the input is malformed.",
     input=route([eff(OK)], [{"close": "s1"}, SCOPE1]),
     intent={"error": "argument.invalid"})
case("effects.retry", "retry-on-lists-refusal", anchor="effects.refusal-never-retried",
     description="What is never retried goes by the error's kind: a rate-limit refusal of "
     "the second attempt is final although retryOn lists effect.rate-limited.",
     input=route([eff({"raise": {"code": "x.fail"}})], [T()],
                 middleware=[RETRY(3, retryOn=["x.fail", "effect.rate-limited"]),
                             RL(1, 0)]),
     intent=[{"outcome": RATE_LIMITED, "attempts": [1]}])
case("effects.signals", "abort-scope-direct-call", anchor="effects.route-vector",
     description="An attempt that closes its scope needs a call through a scope; run by a "
     "direct call it cannot run as written, and the whole input is malformed.",
     input=route([eff({"abort": {"source": "scope"}})], [T()]),
     intent={"error": "argument.invalid"})
case("effects.signals", "abort-never-run", anchor="effects.route-vector",
     description="An execution abort in a direct call is malformed only when the attempt "
     "runs: here the mode check refuses the call first, and the input is not malformed.",
     input=route([eff({"abort": {"source": "execution", "reason": "r"}}, modes=["durable"])],
                 [T()]),
     intent=[{"outcome": err("effect.mode-refused"), "trace": []}])


# -- issue 29, the second fresh blind reading (spec/blind/effects-deltas.md) ---------------------

case("effects.route", "malformed-effect-modes-null", anchor="effects.route-vector",
     description="An effect's modes may be absent (both modes), not null: a null optional "
     "member is a value of the wrong type (errors.vector-null), so the input is malformed.",
     input=route([eff(OK, modes=None)], [T()]),
     intent={"error": "argument.invalid"})
case("effects.route", "malformed-grant-modes-null", anchor="effects.route-vector",
     description="A grant's modes may be absent (both modes), not null: a null modes is "
     "malformed input.",
     input=route([eff(OK)], [T()], grants=[{"principal": "p", "toolId": "t", "modes": None}]),
     intent={"error": "argument.invalid"})
case("effects.context", "attempt-advance-not-slept", anchor="effects.route-vector",
     description="An attempt's advance moves the clock without sleeping: it traces no sleep "
     "entry, and the next call's effect reads the later time.",
     input=route([eff({"advance": 5, "return": "ok"})], [T(), T()]),
     intent=[{"outcome": out("ok"), "trace": [X(1)]},
             {"outcome": out("ok"), "trace": [X(1, now=5.0)]}])
case("effects.retry", "middleware-refusal-not-retried", anchor="effects.refusal-never-retried",
     function="deltas.run",
     description="A middleware's refusal (deltas.run's refuse, an EffectRefusal) inside a "
     "retry of three attempts is final: the rate limit between them lets the first attempt "
     "through, and a retried second attempt would have been rate-limited instead.",
     input={"attempts": [{"deltas": ["a"]}] * 3, "rateLimit": {"capacity": 1, "rate": 0},
            "refuse": "not now"},
     intent={"executions": 0, "perCall": [], "outcome": {"ok": False, "code": "effect.refused"}})

# -- the fourth fresh blind reading (spec/blind/effects-deltas.md) -------------------------------

case("effects.metering", "negative-advance-still-recorded", anchor="effects.route-vector",
     description="An attempt whose negative advance the clock refuses ends there, after its "
     "execute entry and its emits: it reached the effect, so its usage is recorded.",
     input=route([eff({"usage": {"inputTokens": 2}, "emit": ["e"], "advance": -1,
                       "return": "ok"})], [D()], meter={"budget": 10}),
     intent=[{"outcome": err("argument.invalid"),
              "trace": [X(1, "durable", key="k1"), {"emit": "e"},
                        {"record": REC({"inputTokens": 2}, "durable")}]}])
case("effects.signals", "signal-at-end-closed-scope", anchor="effects.route-vector",
     description="A call through a closed scope is refused before the effect runs, so "
     "signalAtEnd is null.",
     input=route([eff(OK)], [{"scope": {"name": "s1", "executionId": "x1"}}, {"close": "s1"},
                             S(watchSignal=True)]),
     intent=[{}, {}, {"outcome": err("effect.aborted", reason="scope closed"), "trace": [],
                      "signalAtEnd": None}])
case("effects.signals", "cancel-aborted-execution-keeps-reason",
     anchor="effects.signal-abort-once",
     description="Cancelling an execution that is already cancelled changes nothing: a call "
     "through its scope is refused with the first reason.",
     input=route([eff(OK)], [{"scope": {"name": "s1", "executionId": "x1",
                                         "executionAborted": "first"}},
                             {"cancelExecution": {"scope": "s1", "reason": "second"}}, S()]),
     intent=[{}, {}, {"outcome": err("effect.aborted", reason="first"), "trace": []}])
case("effects.signals", "execution-aborted-inside-chain", anchor="effects.route-order",
     description="A scope whose execution is already cancelled refuses the call at the signal "
     "stage, inside the middleware chain: the probe enters and leaves with effect.aborted.",
     input=route([eff(OK)], [{"scope": {"name": "s1", "executionId": "x1",
                                         "executionAborted": "gone"}}, S()],
                 middleware=[PROBE("a")]),
     intent=[{}, {"outcome": err("effect.aborted", reason="gone"),
                  "trace": [{"enter": "a", "attempt": 0, "input": 1},
                            {"leave": "a", "attempt": 0, "error": "effect.aborted"}]}])

# -- issue 29, fresh blind reading 28: what a case alone had decided -------------------------------

case("effects.retry", "exhausted-last-error", anchor="effects.retry-attempts",
     description="A retry that gives up lets the last attempt's error propagate unchanged: "
     "not the first failure (here of another code and message), not a wrapper; no sleep "
     "follows the last attempt.",
     input=route([eff({"raise": {"code": "test.first", "message": "one"}},
                      {"raise": {"code": "test.last", "message": "two"}})],
                 [T()], middleware=[RETRY(2, baseDelay=1.0)]),
     intent=[{"outcome": err("test.last", message="two"), "attempts": [1, 2],
              "sleeps": [1.0]}])
case("effects.scope", "closed-before-lookup", anchor="effects.scope-closed-early",
     description="A closed scope refuses a call before every stage of the route, the tool "
     "lookup included: an unknown tool through a closed scope is effect.aborted with "
     "\"scope closed\", not effect.unknown-tool, and nothing is traced.",
     input=route([eff(OK)], [{"scope": {"name": "s1", "executionId": "x1"}}, {"close": "s1"},
                             S(tool="nope")], middleware=[PROBE("outer")]),
     intent=[{}, {}, {"outcome": err("effect.aborted", reason="scope closed"), "trace": []}])

# -- issue 30, samples 473986/321483/238680 (s6e): both sides of maxAttempts >= 1 ------------------

case("effects.retry", "max-attempts-one", anchor="effects.retry-attempts",
     description="maxAttempts 1, the least a retry takes, is accepted: the retry calls next "
     "once, and the failure of that one attempt propagates unchanged, with no sleep and no "
     "second attempt, though a later attempt of the script would have succeeded.",
     input=route([eff(FLAKY, OK)], [T()], middleware=[RETRY(1, baseDelay=1.0)]),
     intent=[{"outcome": err("test.flaky", message="flaky"), "attempts": [1], "sleeps": []}])
malformed("malformed-retry-max-attempts-zero",
          "A retry's maxAttempts is an integer >= 1: 0, one below the least, is malformed "
          "(not a retry of one attempt, nor a route with no retry).",
          route([eff(OK)], [T()], middleware=[RETRY(0)]))

# -- issue 30: the survivors of samples 252125, 13564 and 97256 (effects, s10e) ---------------

case("effects.refusals", "tool-revive-keeps-global", anchor="effects.kill-switch",
     description="Reviving one tool leaves the global kill engaged: with no per-tool kill "
     "left, the switch still refuses every tool with the global reason; the global revive "
     "then releases it.",
     input=route([eff(OK)], [{"kill": {"reason": "maintenance"}}, {"revive": {"toolId": "t"}},
                             T(), {"revive": {}}, T()]),
     intent=[{}, {}, {"outcome": err("effect.killed", message="maintenance"), "trace": []},
             {}, {"outcome": out("ok"), "attempts": [1]}])

# -- machinery ------------------------------------------------------------------------------------

def _project(step: dict[str, Any], key: str) -> Any:
    trace = step.get("trace", [])
    if key == "attempts":
        return [e["execute"]["attempt"] for e in trace if "execute" in e]
    if key == "sleeps":
        return [e["sleep"] for e in trace if "sleep" in e]
    if key == "records":
        return [e["record"] for e in trace if "record" in e]
    if key == "emitted":
        return [e["emit"] for e in trace if "emit" in e]
    return step.get(key, "<absent>")


def check_intent(c: Case, expect: dict[str, Any]) -> None:
    intent, where = c["intent"], f"{c['group']}/{c['name']}"
    if isinstance(intent, dict) and "error" in intent:
        assert expect == {"error": {"code": intent["error"]}}, (where, expect)
        return
    assert "result" in expect, (where, expect)
    result = expect["result"]
    if c["function"] != "effects.route":
        for key, value in intent.items():
            assert result.get(key) == value, (where, key, result.get(key), value)
        return
    steps = result["steps"]
    assert len(intent) == len(steps) == len(c["input"]["steps"]), where
    for i, (want, got) in enumerate(zip(intent, steps, strict=True)):
        if not want:
            assert got == {}, (where, i, got)
        for key, value in want.items():
            if is_pattern(value):  # vectorkit.with_patterns matched it and wrote it in
                assert got[key] == value, (where, i, key, got.get(key), value)
                continue
            assert _project(got, key) == value, (where, i, key, _project(got, key), value)


def case_file(c: Case) -> tuple[Path, dict[str, Any]]:
    return vectorkit.case_file(c, check_intent)


def write_all() -> int:
    """Rewrite every case file of our groups (stale files of our groups are removed)."""
    return vectorkit.write_all(CASES, GROUPS, check_intent)


if __name__ == "__main__":
    sys.exit(vectorkit.main(sys.argv[1:], CASES, GROUPS, check_intent))
