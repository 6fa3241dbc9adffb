"""The stream token budget guard: sever a generation before it spends more than its budget.

Rules (``spec/governance.md`` § guards.token-budget; ADR 0119 decision 7: "streamTokenBudget
(K8.4) already severs a generation mid-flight and is the intended bound. In collectStream a
guard now runs BEFORE delivery, so the breaching delta is never handed to a sink"):

- The guard sums ``count(delta)`` over the attempt's deltas. A delta whose tokens would take
  the sum above ``max_tokens`` raises
  :class:`~loom_ref.governance.errors.StreamTokenBudgetExceeded` before it is delivered; a sum
  exactly equal to the budget is allowed (spec: guards.token-budget).
- The default counter is :func:`approx_token_count`: ``ceil(len(delta) / 4)`` per delta, the
  common "four characters per token" estimate, rounded up per delta so that it errs towards
  severing (many tiny deltas over-count). Inject a tokenizer for precision
  (spec: guards.token-count).
- ``reset()`` zeroes the sum at a retry (spec: guards.reset).
- ``stage(delta)`` checks without counting the delta; its commit counts it, so a chain in
  which a later guard severs the delta does not spend it (spec: guards.chain-sever).
"""

from __future__ import annotations

from collections.abc import Callable

from loom_ref.errors import InvalidArgument
from loom_ref.governance.errors import StreamTokenBudgetExceeded
from loom_ref.governance.guards import Commit, StageStamp, check_delta_arg
from loom_ref.governance.lifecycle import GuardEvent, GuardLifecycle

__all__ = ["StreamTokenBudgetGuard", "approx_token_count", "stream_token_budget"]

TokenCounter = Callable[[str], int]


def approx_token_count(delta: str) -> int:
    """``ceil(len(delta) / 4)``: four characters per token, rounded up (spec:
    guards.token-count). ``""`` counts 0."""
    if not isinstance(delta, str):  # spec: errors.invalid-argument
        raise InvalidArgument(f"a delta is a str, got {type(delta).__name__}")
    return -(-len(delta) // 4)


class StreamTokenBudgetGuard:
    """A :class:`~loom_ref.governance.guards.DeltaGuard` bounding an attempt's streamed tokens.
    (spec: guards.token-budget)
    """

    def __init__(self, max_tokens: int, count: TokenCounter = approx_token_count) -> None:
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 0:
            raise InvalidArgument(f"max_tokens must be an int >= 0, got {max_tokens!r}")
        if not callable(count):
            raise InvalidArgument("count must be callable")
        self.max_tokens = max_tokens
        self.count = count
        self.used = 0
        self._index = 0
        self._life = GuardLifecycle()
        self._stamp = StageStamp()

    def check(self, delta: str) -> None:
        """Sever before ``delta`` if it would take the attempt above the budget.

        spec: guards.token-budget -- "the breaching delta is never handed to a sink".
        """
        self._take(self._verdict(delta))

    def stage(self, delta: str) -> Commit:
        """:meth:`check` without counting ``delta``: the returned commit counts it (spec:
        guards.chain-sever)."""
        n = self._verdict(delta)
        return self._stamp.seal(lambda: self._take(n))

    def _verdict(self, delta: str) -> int:
        """Raise the sever of ``delta``, or return its token count."""
        check_delta_arg(delta)
        self._life.require(GuardEvent.ACCEPT)
        self._stamp.bump()  # a commit staged before is stale now
        n = self.count(delta)
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise InvalidArgument(f"token counter returned {n!r}; expected an int >= 0")
        if self.used + n > self.max_tokens:
            # the severing delta's index; nothing counts past it (a severed guard refuses all
            # but a reset, which zeroes the index: guards.sticky-sever, guards.reset)
            index = self._index
            severed = StreamTokenBudgetExceeded(
                f"stream token budget {self.max_tokens} exceeded at delta {index} "
                f"({self.used} used + {n})",
                max_tokens=self.max_tokens,
                used=self.used,
                delta_tokens=n,
                delta_index=index,
            )
            self._life.fire(GuardEvent.SEVER, severed)
            raise severed
        return n

    def _take(self, n: int) -> None:
        self.used += n
        self._index += 1

    def reset(self) -> None:
        """Zero the sum at a retry (spec: guards.reset)."""
        self._life.fire(GuardEvent.RESET)
        self._stamp.bump()
        self.used = 0
        self._index = 0


def stream_token_budget(
    max_tokens: int, count: TokenCounter = approx_token_count
) -> StreamTokenBudgetGuard:
    """A guard severing before the delta that would exceed ``max_tokens`` (spec:
    guards.token-budget); ``count`` counts one delta's tokens (default
    :func:`approx_token_count`)."""
    return StreamTokenBudgetGuard(max_tokens, count)
