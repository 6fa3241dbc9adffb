"""Hold-back: an **extension** (opt-in, off by default) that never releases a match's prefix.

ADR 0119 states the limit of the delta form plainly: "text before a match completes is
delivered (a card number is severed at its last digit)". Hold-back closes that gap for
patterns of bounded width, at the price of latency.

Rules (``spec/governance.md`` § guards.hold-back):

- Every validator must be a pattern validator whose rules all have a bounded width; the guard
  holds back the last ``max_width - 1`` characters of the text, where ``max_width`` is the
  widest match of any rule, and releases the rest. A validator with an unbounded rule, or with
  a delta form that is not a pattern scan, is refused with ``InvalidArgument``; bound a regex
  with ``max_width`` to use it (spec: guards.hold-back-width). The window must be at least
  ``max_width``, or a match could never be seen whole.
- ``feed(delta)`` checks the running text exactly as :class:`RunningTextGuard` does, then
  returns the text that can no longer be the start of a match (possibly ``""``). A match of
  width ``w <= max_width`` that starts at ``s`` is complete once the text reaches ``s + w``,
  and by then at most ``len - (max_width - 1) <= s`` characters were released: the first
  character of a match never reaches a sink (spec: guards.hold-back).
- ``after`` chains further delta guards (a token budget) after the validators' check (spec:
  guards.chain-order): a delta is held only once every guard accepted it, and a sever by any
  of them is this guard's sever (spec: guards.chain-sever, guards.hold-back-drop).
- On a sever the held text is dropped and never released, and the severed delta is never
  held (spec: guards.hold-back-drop).
- ``flush()`` after the call succeeded returns the held remainder, so released + flushed is
  the whole text; a severed guard's ``flush`` raises the sever again, marked ``repeated``,
  and releases nothing, until reset (spec: guards.hold-back-flush, guards.sticky-sever).
  ``reset()`` drops the held text at a retry.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from loom_ref.errors import InvalidArgument
from loom_ref.governance.errors import DeltaSevered
from loom_ref.governance.guards import (
    DEFAULT_WINDOW,
    DeltaGuard,
    GuardChain,
    RunningTextGuard,
    check_delta_arg,
)
from loom_ref.governance.lifecycle import GuardEvent, GuardLifecycle
from loom_ref.governance.validators import PatternScan, SafetyValidator

__all__ = ["HoldBackGuard", "hold_back_width"]


def hold_back_width(validators: Sequence[SafetyValidator]) -> int:
    """The widest match of any rule of ``validators``; ``InvalidArgument`` if one is unbounded
    or is not a pattern validator (spec: guards.hold-back-width)."""
    if isinstance(validators, str | bytes) or not isinstance(validators, Iterable):
        raise InvalidArgument(f"validators must be a sequence, got {validators!r}")
    widest = 0
    for v in validators:
        form = v.delta_form if isinstance(v, SafetyValidator) else None
        if not isinstance(form, PatternScan):
            raise InvalidArgument(f"hold-back needs pattern validators with a delta form: {v!r}")
        width = form.max_width
        if width is None:
            unbounded = [r.name for r in form.rules if r.max_width is None]
            raise InvalidArgument(
                f"hold-back needs bounded patterns; validator {v.name!r} has unbounded rules "
                f"{unbounded} (give them a max_width)"
            )
        widest = max(widest, width)
    return widest


class HoldBackGuard:
    """Release streamed text only once it can no longer start a match (**extension**).

    ``after``: further delta guards (a token budget) that every delta must also pass, checked
    after the validators (spec: guards.chain-order) and before anything is held or released;
    they are chained with the validators' guard in a :class:`GuardChain`, so they must be able
    to stage a delta, except the last (spec: guards.chain-sever).
    """

    def __init__(
        self,
        validators: Sequence[SafetyValidator],
        window: int = DEFAULT_WINDOW,
        *,
        after: Sequence[DeltaGuard] = (),
    ) -> None:
        self._guard = RunningTextGuard(validators, window)
        if isinstance(after, str) or not isinstance(after, Sequence):
            raise InvalidArgument(f"after must be a sequence of delta guards, got {after!r}")
        self._chain = GuardChain([self._guard, *after])
        self.max_width = hold_back_width(self._guard.validators)
        if self.max_width > self._guard.window:
            raise InvalidArgument(
                f"window {self._guard.window} is narrower than the widest pattern "
                f"({self.max_width}); a match could never be seen whole"
            )
        self.hold = max(self.max_width - 1, 0)
        self._held = ""
        self._life = GuardLifecycle()

    @property
    def window(self) -> int:
        """The window of its validators' guard (spec: guards.window)."""
        return self._guard.window

    @property
    def running_text(self) -> str:
        """The running text its validators' guard checks the next delta against."""
        return self._guard.running_text

    @property
    def held(self) -> str:
        """The text received but not yet released."""
        return self._held

    def feed(self, delta: str) -> str:
        """Check ``delta``; return the text now safe to release (possibly ``""``).

        spec: guards.hold-back -- released text never holds the first character of a match.
        """
        check_delta_arg(delta)
        self._life.require(GuardEvent.ACCEPT)
        try:
            self._chain.check(delta)  # spec: guards.chain-sever -- every guard, or none, takes it
        except DeltaSevered as severed:
            self._held = ""  # spec: guards.hold-back-drop
            self._life.fire(GuardEvent.SEVER, severed)
            raise
        pending = self._held + delta
        cut = max(len(pending) - self.hold, 0)
        self._held = pending[cut:]
        return pending[:cut]

    def flush(self) -> str:
        """Release the held remainder once the call has succeeded (spec:
        guards.hold-back-flush); a severed guard raises its sever again instead, marked
        ``repeated`` (spec: guards.sticky-sever)."""
        self._life.fire(GuardEvent.FLUSH)
        rest, self._held = self._held, ""
        return rest

    def reset(self) -> None:
        """Drop the held text and the running text at a retry (spec: guards.reset)."""
        self._life.fire(GuardEvent.RESET)
        self._chain.reset()
        self._held = ""
