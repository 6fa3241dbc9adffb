"""Guarded delta channel throughput: a 1 MB stream in 4-character deltas through the runtime.

Prints (never asserts), for one governed transient call whose effect writes the whole stream
to ``ctx.on_delta`` and whose per-call sink counts what it receives:

- unguarded: the runtime's channel with no delta guard (per-call sink only);
- guarded: the same with ``safety_middleware([pii_validator(), deny_patterns(...)])``, whose
  per-attempt ``RunningTextGuard`` checks every delta before delivery (spec:
  deltas.guard-before-delivery); printed as a ratio to unguarded;
- guarded + configured sink: both sinks fed (spec: deltas.channel);
- hold-back (extension): the same validators with ``hold_back=True``;
- the guarded cost per delta in each tenth of the stream (best of the runs per tenth), to show
  that it does not grow with the stream's length (the window bounds the running text; spec:
  guards.tail-scan).

Run: ``python bench/bench_deltas.py`` (about 30 s). ``--mb N`` changes the stream size.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

# the same prose and the same validators as bench_guard.py, so the two benches compare
from bench_guard import make_stream, validators

from loom_ref.effects import (
    Effect,
    EffectContext,
    EffectDelta,
    EffectRuntime,
    Middleware,
    safety_middleware,
)

REPEATS = 3


class Counter:
    """A sink that counts chunks and characters (what a UI tail does, minus the drawing)."""

    def __init__(self) -> None:
        self.chunks = 0
        self.chars = 0

    def __call__(self, chunk: EffectDelta) -> None:
        self.chunks += 1
        self.chars += len(chunk.delta.value)


def run(deltas: list[str], middleware: list[Middleware], configured: bool,
        marks: list[float]) -> tuple[float, Counter]:
    """One governed call streaming ``deltas``; returns (seconds, per-call counter).

    ``marks`` receives perf_counter readings at every tenth of the deltas (11 readings)."""
    n = len(deltas)
    cut = {n * k // 10 for k in range(10)}

    def execute(ctx: EffectContext, _: Any) -> str:
        write = ctx.on_delta
        assert write is not None
        for i, delta in enumerate(deltas):
            if i in cut:
                marks.append(time.perf_counter())
            write(delta)
        marks.append(time.perf_counter())
        return "done"

    sink = Counter()
    rt = EffectRuntime(
        [Effect(tool_id="llm", execute=execute, delta_sink=Counter() if configured else None)],
        middleware=middleware,
    )
    start = time.perf_counter()
    rt.invoke_transient("llm", None, principal="bench", on_delta=sink)
    return time.perf_counter() - start, sink


def best(deltas: list[str], make: Callable[[], list[Middleware]], configured: bool = False
         ) -> tuple[float, list[float], Counter]:
    """Best total of REPEATS runs, and per tenth of the stream the best cost per delta."""
    n = len(deltas)
    totals: list[float] = []
    tenths: list[list[float]] = []
    sink = Counter()
    for _ in range(REPEATS):
        marks: list[float] = []
        seconds, sink = run(deltas, make(), configured, marks)
        totals.append(seconds)
        sizes = [n * (k + 1) // 10 - n * k // 10 for k in range(10)]
        tenths.append([(marks[k + 1] - marks[k]) / sizes[k] for k in range(10)])
    per_tenth = [min(run[k] for run in tenths) for k in range(10)]
    return min(totals), per_tenth, sink


def main() -> None:
    print("(fsync policy: none on every line; no journal is written here)")
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=float, default=1.0)
    args = parser.parse_args()
    text = make_stream(int(args.mb * 1_000_000))
    for v in validators():
        v.check_output(text)  # the stream holds no PII or secret: nothing severs
    deltas = [text[i:i + 4] for i in range(0, len(text), 4)]
    n = len(deltas)
    print(f"stream: {len(text):,} chars in {n:,} deltas of 4 chars; best of {REPEATS}")

    plain, _, sink = best(deltas, list)
    assert sink.chars == len(text)
    print(f"unguarded channel        {plain:8.3f} s  {plain / n * 1e6:7.2f} us/delta  (1.00x)")
    rows: list[tuple[str, Callable[[], list[Middleware]], bool]] = [
        ("guarded (pii + deny)", lambda: [safety_middleware(validators())], False),
        ("guarded + configured", lambda: [safety_middleware(validators())], True),
        ("hold-back (extension)",
         lambda: [safety_middleware(validators(), hold_back=True)], False),
    ]
    guarded_tenths: list[float] = []
    for name, make, configured in rows:
        seconds, tenths, sink = best(deltas, make, configured)
        assert sink.chars == len(text), (name, sink.chars)
        if not guarded_tenths:
            guarded_tenths = tenths
        print(f"{name:24} {seconds:8.3f} s  {seconds / n * 1e6:7.2f} us/delta  "
              f"({seconds / plain:.2f}x unguarded)")
    cells = " ".join(f"{t * 1e6:.1f}" for t in guarded_tenths)
    first, last = guarded_tenths[0], guarded_tenths[-1]
    print(f"guarded us/delta per tenth of the stream: {cells}")
    print(f"  last/first tenth {last / first:.2f}, max/min tenth "
          f"{max(guarded_tenths) / min(guarded_tenths):.2f} (flat: the cost per delta does not "
          "grow with the stream's length)")

if __name__ == "__main__":
    main()
