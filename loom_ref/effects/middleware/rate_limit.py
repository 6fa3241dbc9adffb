"""Rate-limit middleware: a token bucket on the injected clock.

Spec: ``spec/effects.md`` (``effects.rate-limit``): *a call that finds fewer than one token in
its bucket MUST be refused with* ``effect.rate-limited`` *without calling* ``next``. A bucket
holds at most ``capacity`` tokens, starts full, and refills at ``rate`` tokens per second of
the context's clock (``effects.injected-clock``); each admitted pass takes one token. The
bucket key is the tool id by default (``per="tool"``), or ``"principal"`` or ``"call"``
(principal and tool id). The refusal carries ``retry_after`` (seconds until a token) in its
details; it is a refusal, so a retry never retries it.

Where the middleware sits in the chain decides what it counts: inside a retry it takes a
token per attempt, outside it one per call.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from loom_ref.effects.errors import RateLimited
from loom_ref.effects.middleware.base import Next
from loom_ref.errors import InvalidArgument

if TYPE_CHECKING:
    from loom_ref.effects.context import EffectContext

__all__ = ["RateLimitMiddleware"]

_PER = ("tool", "principal", "call")


class RateLimitMiddleware:
    """Token-bucket limiter keyed per tool, per principal, or per (principal, tool).
    (spec: effects.rate-limit)
    """

    inspects_output = False
    delta_guard = None

    __slots__ = ("_buckets", "capacity", "per", "rate")

    def __init__(self, *, capacity: float, rate: float, per: str = "tool") -> None:
        for name, value in (("capacity", capacity), ("rate", rate)):
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise InvalidArgument(f"{name} must be a number, got {value!r}")
            if not math.isfinite(value) or value < 0:
                raise InvalidArgument(f"{name} must be finite and non-negative, got {value!r}")
        if capacity < 1:
            raise InvalidArgument(f"capacity must be >= 1, got {capacity!r}")
        if per not in _PER:
            raise InvalidArgument(f"per must be one of {_PER}, got {per!r}")
        self.capacity = float(capacity)
        self.rate = float(rate)
        self.per = per
        #: key -> [tokens, time of last refill]
        self._buckets: dict[str, list[float]] = {}

    def _key(self, ctx: EffectContext) -> str:
        if self.per == "tool":
            return ctx.tool_id
        if self.per == "principal":
            return ctx.principal
        return f"{ctx.principal}\x00{ctx.tool_id}"

    def tokens(self, key: str, now: float) -> float:
        """Tokens in bucket ``key`` at time ``now`` (refilled, capped)."""
        if not isinstance(key, str):  # spec: errors.invalid-argument
            raise InvalidArgument(f"key must be a string, got {key!r}")
        if isinstance(now, bool) or not isinstance(now, int | float) or not math.isfinite(now):
            raise InvalidArgument(f"now must be a finite number of seconds, got {now!r}")
        return self._tokens(key, now)

    def _tokens(self, key: str, now: float) -> float:
        """:meth:`tokens` for the key and the clock reading :meth:`handle` took itself."""
        bucket = self._buckets.get(key)
        if bucket is None:
            return self.capacity
        return min(self.capacity, bucket[0] + max(0.0, now - bucket[1]) * self.rate)

    def handle(self, ctx: EffectContext, input: Any, next: Next) -> Any:
        key = self._key(ctx)
        now = ctx.clock.now()
        tokens = self._tokens(key, now)
        if tokens < 1.0:
            # spec: effects.rate-limit -- refuse without calling next
            missing = 1.0 - tokens
            retry_after = math.inf if self.rate == 0 else missing / self.rate
            self._buckets[key] = [tokens, now]  # keep the refill so far
            raise RateLimited(
                f"rate limit for {key!r} exhausted",
                tool_id=ctx.tool_id,
                retry_after=retry_after,
            )
        bucket = self._buckets.get(key)
        if bucket is None:
            self._buckets[key] = [tokens - 1.0, now]
        else:
            bucket[0] = tokens - 1.0
            bucket[1] = now
        return next(ctx, input)
