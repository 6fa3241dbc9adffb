"""Delta guards: what a runtime calls on every delta of an attempt, BEFORE delivering it.

Rules (``spec/governance.md`` § Guards; ADR 0119 decisions 7, 10, 11):

- A :class:`DeltaGuard` has ``check(delta)``, which returns to let the delta through and raises
  :class:`~loom_ref.governance.errors.DeltaSevered` to sever the stream before the delta is
  delivered (spec: guards.before-delivery), and ``reset()``, which clears its state at the start
  of a retry attempt (spec: guards.reset).
- :class:`RunningTextGuard` checks the RUNNING text: the last ``window`` characters before the
  delta (default 4096) followed by the whole delta, "so a pattern split across deltas is seen
  whole" (spec: guards.running-text, guards.window). A delta longer than the window is still
  checked whole.
- Its cost per delta is bounded by the window and the delta, never by the stream's length; for
  a pattern validator, a bounded rule re-scans only the tail that can hold a match ending in the
  new delta (spec: guards.tail-scan).
- It refuses at construction a validator with no delta form (fail-closed, spec:
  validators.fail-closed).
- :class:`GuardChain` runs several guards in order; the first to sever wins
  (spec: guards.chain-order).
- Limits, stated plainly (spec: guards.limit-prefix, guards.limit-window,
  guards.limit-no-redaction): text before a match completes is delivered; a pattern wider than
  the window, split across deltas, can evade; nothing here masks a delta (redactOutput does not
  run on deltas) -- a guard lets a delta through or severs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from loom_ref.errors import InvalidArgument
from loom_ref.governance.errors import DeltaSevered, SafetyViolation
from loom_ref.governance.lifecycle import GuardEvent, GuardLifecycle
from loom_ref.governance.validators import PatternScan, SafetyValidator

__all__ = ["DEFAULT_WINDOW", "DeltaGuard", "GuardChain", "RunningTextGuard", "check_delta_arg"]

DEFAULT_WINDOW = 4096
"""ADR 0119 decision 10: "the last deltaWindow chars, default 4096" (spec: guards.window)."""


@runtime_checkable
class DeltaGuard(Protocol):
    """A per-attempt guard over a stream of text deltas (spec: guards.before-delivery)."""

    def check(self, delta: str) -> None:
        """Return to let ``delta`` be delivered; raise ``DeltaSevered`` to sever before it."""

    def reset(self) -> None:
        """Forget the attempt so far (spec: guards.reset)."""


def check_delta_arg(delta: object) -> str:
    """``delta`` if it is a ``str``; ``InvalidArgument`` otherwise (a tainted delta must be
    unwrapped by the runtime, at its audit point, before it is checked)."""
    if not isinstance(delta, str):
        raise InvalidArgument(f"a delta must be a str, got {type(delta).__name__}")
    return delta


def _positive_window(window: object) -> int:
    if isinstance(window, bool) or not isinstance(window, int) or window < 1:
        raise InvalidArgument(f"window must be a positive int, got {window!r}")
    return window


class RunningTextGuard:
    """Sever a stream when any validator's delta form rejects the running text.

    spec: guards.running-text -- ADR 0119 #10: "a per-attempt EffectMiddleware.deltaGuard that
    checks the RUNNING text (the last deltaWindow chars, default 4096, so a pattern split across
    deltas is seen whole) and THROWS to sever the stream BEFORE the offending delta is
    delivered".
    """

    def __init__(self, validators: Sequence[SafetyValidator], window: int = DEFAULT_WINDOW) -> None:
        self.window = _positive_window(window)
        self.validators = tuple(validators)
        for v in self.validators:
            if not isinstance(v, SafetyValidator):
                raise InvalidArgument(f"expected SafetyValidator, got {type(v).__name__}")
            if v.delta_form is None:  # spec: validators.fail-closed
                raise InvalidArgument(
                    f"validator {v.name!r} has no delta form; it cannot guard a stream"
                )
        self._life = GuardLifecycle()
        self._text = ""  # the last `window` characters of the attempt's text
        self._offset = 0  # absolute offset of self._text[0] in the attempt's text
        self._index = 0  # index of the next delta in this attempt

    @property
    def running_text(self) -> str:
        """The last ``window`` characters accepted so far in this attempt."""
        return self._text

    def check(self, delta: str) -> None:
        """Check ``delta`` against the running text; raise ``DeltaSevered`` to sever.

        spec: guards.before-delivery -- "THROWS to sever the stream BEFORE the offending delta
        is delivered": on a sever the delta is not added to the running text.
        """
        check_delta_arg(delta)
        self._life.require(GuardEvent.ACCEPT)
        index = self._index
        self._index += 1
        checked = self._text + delta  # spec: guards.running-text
        fresh = len(self._text)
        for validator in self.validators:
            violation = self._violation(validator, checked, fresh)
            if violation is not None:
                severed = self._severed(violation, index)
                self._life.fire(GuardEvent.SEVER, severed)
                raise severed from violation
        # accepted: open -> open, nothing to record in the lifecycle
        kept = checked[-self.window :]
        self._offset += len(checked) - len(kept)
        self._text = kept

    def reset(self) -> None:
        """Clear the running text at a retry (spec: guards.reset)."""
        self._life.fire(GuardEvent.RESET)
        self._text = ""
        self._offset = 0
        self._index = 0

    @staticmethod
    def _violation(validator: SafetyValidator, checked: str, fresh: int) -> SafetyViolation | None:
        form = validator.delta_form
        if isinstance(form, PatternScan):
            found = form.find(checked, fresh)  # spec: guards.tail-scan
            return None if found is None else form.violation(*found)
        try:
            validator.check_delta(checked)
        except SafetyViolation as violation:
            return violation
        return None

    def _severed(self, violation: SafetyViolation, index: int) -> DeltaSevered:
        details = dict(violation.details)
        span = details.get("span")
        if isinstance(span, tuple) and len(span) == 2:
            details["span"] = (span[0] + self._offset, span[1] + self._offset)
        return DeltaSevered(
            f"stream severed before delta {index}: {violation.message}",
            cause=violation.code,
            delta_index=index,
            **details,
        )


class GuardChain:
    """Several guards as one: ``check`` runs them in order, the first sever wins and the later
    guards do not see that delta; ``reset`` resets them all (spec: guards.chain-order)."""

    def __init__(self, guards: Sequence[DeltaGuard]) -> None:
        self.guards = tuple(guards)
        for g in self.guards:
            if not isinstance(g, DeltaGuard):
                raise InvalidArgument(f"expected a DeltaGuard, got {type(g).__name__}")

    def check(self, delta: str) -> None:
        """Check ``delta`` with every guard, in order."""
        check_delta_arg(delta)
        for guard in self.guards:
            guard.check(delta)

    def reset(self) -> None:
        """Reset every guard (spec: guards.reset)."""
        for guard in self.guards:
            guard.reset()
