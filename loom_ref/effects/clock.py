"""The clock the effect route reads: injected, never the wall clock.

Spec: ``spec/effects.md`` (``effects.injected-clock``): *the runtime and its middleware MUST
read time only from the injected* :class:`Clock`. Retry backoff sleeps on it and the rate
limiter refills from it, so a test (or a conformance scenario) drives time by hand with
:class:`ManualClock` and every schedule is reproducible.

A clock has two operations: ``now()`` (seconds, monotonic, a float) and ``sleep(seconds)``.
Nothing in loom_ref reads ``time.time`` or ``time.monotonic``; an application that wants real
time injects its own two-method object at the edge.
"""

from __future__ import annotations

import math
from typing import Protocol, runtime_checkable

from loom_ref.errors import InvalidArgument

__all__ = ["Clock", "ManualClock"]


@runtime_checkable
class Clock(Protocol):
    """A monotonic time source with a blocking sleep (spec: effects.injected-clock)."""

    def now(self) -> float:
        """Current time in seconds."""
        ...

    def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` (non-negative)."""
        ...


def _check_seconds(seconds: float, what: str) -> float:
    if isinstance(seconds, bool) or not isinstance(seconds, int | float):
        raise InvalidArgument(f"{what} must be a number of seconds, got {seconds!r}")
    if not math.isfinite(seconds) or seconds < 0:
        raise InvalidArgument(f"{what} must be finite and non-negative, got {seconds!r}")
    return float(seconds)


class ManualClock:
    """A clock that moves only when told: ``sleep`` advances it at once.

    ``sleeps`` lists every ``sleep`` duration in order, so a test can assert the backoff
    schedule a retry produced.
    (spec: effects.injected-clock)
    """

    __slots__ = ("_now", "sleeps")

    def __init__(self, start: float = 0.0) -> None:
        self._now = _check_seconds(start, "start")
        self.sleeps: list[float] = []

    def now(self) -> float:
        return self._now

    def sleep(self, seconds: float) -> None:
        """Record ``seconds`` in :attr:`sleeps` and advance time by it."""
        seconds = _check_seconds(seconds, "sleep")
        self.sleeps.append(seconds)
        self._now += seconds

    def advance(self, seconds: float) -> None:
        """Move time forward by ``seconds`` without recording a sleep."""
        self._now += _check_seconds(seconds, "advance")

    def __repr__(self) -> str:
        return f"ManualClock(now={self._now!r})"
