"""Retry middleware: re-enter the inner route after a retryable failure, with backoff.

Spec: ``spec/effects.md``. Rules enforced here:

- ``effects.retry-attempts``: each retry calls ``next`` again, so the runtime counts one more
  ``effect.execute`` invocation and the effect sees ``ctx.attempt`` = n on attempt n.
- ``effects.refusal-never-retried``: a refusal (:class:`EffectRefusal`: denied, rate-limited,
  killed, over-budget, mode-refused, aborted) and an :class:`InvalidArgument` are never
  retried, whatever ``retry_on`` says. Only ``Exception`` subclasses are ever caught: a
  ``BaseException`` (a simulated crash) passes straight through.
- ``effects.retry-backoff``: before attempt n+1 the middleware sleeps ``backoff_delay(n, ...)``
  seconds on the context's injected clock:
  ``d = min(max_delay, base_delay * multiplier ** (n - 1))`` (computed by multiplying
  ``base_delay`` by ``multiplier`` up to n-1 times, stopping once it reaches ``max_delay``),
  and the delay is
  ``d * (1 - jitter + jitter * u)``, where ``u = jitter_fraction(key, n)`` is a fraction in
  ``[0, 1)`` derived from BLAKE2b, so the jittered delay lies in ``[d * (1 - jitter), d]``.
  ``key`` is ``"<seed>:<idempotency key or empty>"``. No global randomness: the same call
  retries on the same schedule in every run and every implementation. The result is rounded
  to microseconds (6 decimal places) so other languages reproduce it exactly.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from typing import Any

from loom_ref.effects.call import is_text
from loom_ref.effects.context import EffectContext
from loom_ref.effects.errors import EffectRefusal
from loom_ref.effects.middleware.base import Next
from loom_ref.errors import InvalidArgument
from loom_ref.governance.errors import TaintedRequestError

__all__ = ["NEVER_RETRIED", "RetryMiddleware", "backoff_delay", "jitter_fraction"]

#: Error classes a retry never retries (spec: effects.refusal-never-retried): refusals, bad
#: arguments, and a tainted request (the same request is refused again, whatever the attempt).
NEVER_RETRIED: tuple[type[Exception], ...] = (EffectRefusal, InvalidArgument,
                                              TaintedRequestError)

RetryOn = tuple[type[Exception], ...] | Callable[[Exception], bool]


def jitter_fraction(key: str, attempt: int) -> float:
    """A fraction in [0, 1): the first 8 bytes of ``blake2b(f"{key}#{attempt}")`` (digest
    size 8), big-endian, divided by 2**64. spec: effects.retry-backoff"""
    if not isinstance(key, str) or isinstance(attempt, bool) or not isinstance(attempt, int):
        raise InvalidArgument(f"jitter_fraction takes a str key and an int attempt, got "
                              f"{key!r} and {attempt!r}")
    if not is_text(key):  # a lone surrogate: utf8(key) is undefined
        raise InvalidArgument(f"the jitter key {key!r} is not text UTF-8 can carry")
    digest = hashlib.blake2b(f"{key}#{attempt}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2.0**64


def _number(name: str, value: object, *, minimum: float = 0.0) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidArgument(f"{name} must be a number, got {value!r}")
    if not math.isfinite(value) or value < minimum:
        raise InvalidArgument(f"{name} must be finite and >= {minimum}, got {value!r}")
    return float(value)


def backoff_delay(
    attempt: int,
    *,
    base_delay: float,
    multiplier: float,
    max_delay: float,
    jitter: float,
    key: str,
) -> float:
    """Seconds to wait after failed attempt ``attempt`` (1-based) before the next one.

    spec: effects.retry-backoff -- pure: the same arguments give the same delay everywhere.
    """
    if isinstance(attempt, bool) or not isinstance(attempt, int) or attempt < 1:
        raise InvalidArgument(f"attempt must be an int >= 1, got {attempt!r}")
    base_delay = _number("base_delay", base_delay)
    multiplier = _number("multiplier", multiplier, minimum=1.0)
    max_delay = _number("max_delay", max_delay)
    jitter = _number("jitter", jitter)
    if jitter > 1.0:
        raise InvalidArgument(f"jitter must be in [0, 1], got {jitter!r}")
    if not isinstance(key, str):
        raise InvalidArgument(f"key must be a string, got {key!r}")
    # Repeated multiplication (not pow), stopping once the cap is reached: the same float
    # operations in every implementation, and no overflow for a large attempt number.
    step = base_delay
    for _ in range(attempt - 1):
        if step >= max_delay or step == 0.0 or multiplier == 1.0:
            break
        step *= multiplier
    capped = min(max_delay, step)
    delay = capped * (1.0 - jitter + jitter * jitter_fraction(key, attempt))
    return round(delay, 6)


class RetryMiddleware:
    """Retry a failing call up to ``max_attempts`` attempts in total.

    ``retry_on`` is a tuple of exception classes or a predicate; either way refusals and
    :class:`InvalidArgument` are never retried. ``seed`` joins the idempotency key in the
    jitter key. The middleware keeps no per-call state, so one instance serves every call.
    (spec: effects.retry-attempts)
    """

    inspects_output = False
    delta_guard = None

    __slots__ = (
        "base_delay",
        "jitter",
        "max_attempts",
        "max_delay",
        "multiplier",
        "retry_on",
        "seed",
    )

    def __init__(
        self,
        max_attempts: int,
        *,
        base_delay: float = 0.1,
        multiplier: float = 2.0,
        max_delay: float = 10.0,
        jitter: float = 0.0,
        retry_on: RetryOn = (Exception,),
        seed: str = "",
    ) -> None:
        if isinstance(max_attempts, bool) or not isinstance(max_attempts, int) or max_attempts < 1:
            raise InvalidArgument(f"max_attempts must be an int >= 1, got {max_attempts!r}")
        self.max_attempts = max_attempts
        self.base_delay = _number("base_delay", base_delay)
        self.multiplier = _number("multiplier", multiplier, minimum=1.0)
        self.max_delay = _number("max_delay", max_delay)
        self.jitter = _number("jitter", jitter)
        if self.jitter > 1.0:
            raise InvalidArgument(f"jitter must be in [0, 1], got {jitter!r}")
        if isinstance(retry_on, tuple):
            if not all(isinstance(c, type) and issubclass(c, Exception) for c in retry_on):
                raise InvalidArgument("retry_on must hold Exception subclasses")
        elif not callable(retry_on):
            raise InvalidArgument("retry_on must be a tuple of Exception classes or a predicate")
        self.retry_on = retry_on
        if not isinstance(seed, str) or not is_text(seed):  # spec: effects.retry-backoff
            raise InvalidArgument(f"seed must be a string UTF-8 can carry, got {seed!r}")
        self.seed = seed

    def is_retryable(self, error: Exception) -> bool:
        """spec: effects.refusal-never-retried -- refusals never; others per ``retry_on``."""
        if isinstance(error, NEVER_RETRIED):
            return False
        if isinstance(self.retry_on, tuple):
            return isinstance(error, self.retry_on)
        return bool(self.retry_on(error))

    def delay(self, ctx: EffectContext, attempt: int) -> float:
        """The backoff after failed attempt ``attempt`` of the call ``ctx`` describes."""
        if not isinstance(ctx, EffectContext):  # spec: errors.invalid-argument
            raise InvalidArgument(f"ctx must be the call's EffectContext, got {type(ctx).__name__}")
        return backoff_delay(
            attempt,
            base_delay=self.base_delay,
            multiplier=self.multiplier,
            max_delay=self.max_delay,
            jitter=self.jitter,
            key=f"{self.seed}:{ctx.idempotency_key or ''}",
        )

    def handle(self, ctx: EffectContext, input: Any, next: Next) -> Any:
        attempt = 1
        while True:
            try:
                return next(ctx, input)
            except Exception as error:
                if attempt >= self.max_attempts or not self.is_retryable(error):
                    raise
                ctx.clock.sleep(self.delay(ctx, attempt))
                attempt += 1
