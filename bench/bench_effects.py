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

Targets: at least 1.1 million governed calls/s with an empty chain (spec
``effects.lean-route``), and (issue 19) a governed transient call with an empty chain
(``invoke_transient_call(call)``, the kernel's and the decide scope's door) at most 15x a bare
call measured in the same run. Every row alternates its rounds with the bare call's and
keeps the best of each (a slow spell of a shared machine hits both alike); the ratio is of
those bests. Nothing here touches a journal: no fsync on any line (fsync policy: none, the
transient path is never journaled). This script measures and prints; it asserts nothing.
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


def _seconds(loop: Callable[[int], None]) -> float:
    start = time.perf_counter()  # the bench's own clock
    loop(N)
    return time.perf_counter() - start


def best_rates(loop: Callable[[int], None]) -> tuple[float, float]:
    """(calls/s of ``loop(N)``, calls/s of the bare loop): the best of REPEATS rounds each,
    the rounds of the two alternating."""
    best = bare = float("inf")
    for _ in range(REPEATS):
        bare = min(bare, _seconds(bare_loop))
        best = min(best, _seconds(loop))
    return N / best, N / bare


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

    rows: list[tuple[str, float, float]] = []
    for label, runtime, signal in (
        ("empty chain", empty, None),
        ("3-middleware chain", chain, None),
        ("empty chain + meter + kill switch + signal", staged, Signal()),
    ):
        prebuilt, keyword = runtime_loops(runtime, signal)
        rows.append((f"{label}, invoke_transient_call(call)", *best_rates(prebuilt)))
        rows.append((f"{label}, invoke_transient(...)", *best_rates(keyword)))

    print(f"(best of {REPEATS} rounds per line, each alternating with a bare call's round; "
          "fsync policy: none on every line, a transient call is never journaled)")
    for label, rate, bare in rows:
        print(f"{label} (fsync: none): {rate:,.0f} calls/s (bare call {bare:,.0f}/s in the "
              f"same rounds: {bare / rate:.1f}x slower)")
    target = 1_100_000
    first, second = rows[0], rows[1]
    slower = first[2] / first[1]
    print(f"target (fsync: none): >= {target:,} governed calls/s with an empty chain; measured "
          f"{first[1]:,.0f} (invoke_transient_call) / {second[1]:,.0f} (invoke_transient): "
          f"{'met' if first[1] >= target else 'NOT met'}")
    print("target (fsync: none): an empty-chain invoke_transient_call(call) at most 15x a bare "
          f"call: "
          f"{slower:.1f}x, {'met' if slower <= 15 else 'NOT met'} (invoke_transient, which "
          f"also builds and checks the EffectCall record: {second[2] / second[1]:.1f}x)")


if __name__ == "__main__":
    main()
