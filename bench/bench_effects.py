"""Throughput of the governed effect route, as a ratio to a bare Python function call.

Run: ``python bench/bench_effects.py``. Prints, in one run:

- bare: a plain ``f(ctx, input)`` call (the baseline every ratio divides by);
- governed transient calls with an EMPTY middleware chain (default AllowAll authorizer, no
  meter, no kill switch), through ``invoke_transient_call(call)`` with a prebuilt
  :class:`EffectCall` (the kernel's and the decide scope's door) and through
  ``invoke_transient(tool_id, input, principal=...)`` (which also builds the record);
- the same with a THREE-middleware chain (retry, rate limit with an ample bucket, envelope);
- the empty chain with every fixed stage configured (a counting meter, an idle kill switch, a
  live signal). The meter here admits everything and counts records without keeping them:
  the row measures the route's stages, not ``BudgetMeter``'s bookkeeping (which keeps one
  ``MeterRecord`` per attempt and would grow by millions of records in this loop).

Target (spec ``effects.lean-route``): at least 1.1 million governed calls/s with an empty
chain. This script measures and prints; it asserts nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from loom_ref.effects import (
    ALLOW,
    Decision,
    Effect,
    EffectCall,
    EffectRuntime,
    EnvelopeMiddleware,
    KillSwitch,
    ManualClock,
    Mode,
    RateLimitMiddleware,
    RetryMiddleware,
    Signal,
)

N = 300_000
REPEATS = 5


class CountingMeter:
    """Admits every call; counts records."""

    def __init__(self) -> None:
        self.records = 0

    def admit(self, call: EffectCall) -> Decision:
        return ALLOW

    def record(self, call: EffectCall, usage: Any, advisory: bool) -> None:
        self.records += 1


def echo(ctx: Any, input: Any) -> Any:
    return input


def best_rate(loop: Callable[[int], None]) -> float:
    """Calls per second of ``loop(N)``, best of REPEATS (perf_counter: the bench's own clock)."""
    best = float("inf")
    for _ in range(REPEATS):
        start = time.perf_counter()
        loop(N)
        best = min(best, time.perf_counter() - start)
    return N / best


def bare_loop(n: int) -> None:
    f = echo
    for i in range(n):
        f(None, i)


def runtime_loops(runtime: EffectRuntime, signal: Signal | None = None) -> tuple[
    Callable[[int], None], Callable[[int], None]
]:
    call = EffectCall(tool_id="echo", input=1, mode=Mode.TRANSIENT, principal="p", signal=signal)

    def prebuilt(n: int) -> None:
        invoke = runtime.invoke_transient_call
        for _ in range(n):
            invoke(call)

    def keyword(n: int) -> None:
        invoke_transient = runtime.invoke_transient
        for i in range(n):
            invoke_transient("echo", i, principal="p", signal=signal)

    return prebuilt, keyword


def main() -> None:
    effect = Effect(tool_id="echo", execute=echo)
    empty = EffectRuntime([effect])
    chain = EffectRuntime(
        [effect],
        middleware=[
            RetryMiddleware(3),
            RateLimitMiddleware(capacity=1e12, rate=1e12),
            EnvelopeMiddleware(),
        ],
        clock=ManualClock(),
    )
    staged = EffectRuntime([effect], meter=CountingMeter(), kill_switch=KillSwitch())

    bare = best_rate(bare_loop)
    rows: list[tuple[str, float]] = []
    for label, runtime, signal in (
        ("empty chain", empty, None),
        ("3-middleware chain", chain, None),
        ("empty chain + meter + kill switch + signal", staged, Signal()),
    ):
        prebuilt, keyword = runtime_loops(runtime, signal)
        rows.append((f"{label}, invoke_transient_call(call)", best_rate(prebuilt)))
        rows.append((f"{label}, invoke_transient(...)", best_rate(keyword)))

    print(f"bare function call: {bare:,.0f} calls/s (ratio 1.00)")
    for label, rate in rows:
        print(f"{label}: {rate:,.0f} calls/s (ratio to bare {rate / bare:.3f}, "
              f"{bare / rate:.1f}x slower)")
    target = 1_100_000
    print(f"target: >= {target:,} governed calls/s with an empty chain; "
          f"measured {rows[0][1]:,.0f} (invoke_transient_call) / {rows[1][1]:,.0f} "
          "(invoke_transient)")


if __name__ == "__main__":
    main()
