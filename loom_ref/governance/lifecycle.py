"""The lifecycle every delta guard follows, as a data table (h11 style).

Rules (``spec/governance.md`` § guards.lifecycle):

- A guard is ``OPEN`` (accepting deltas), ``SEVERED`` (it refused a delta) or ``FLUSHED`` (a
  hold-back guard released its remainder after the call succeeded).
- ``reset`` returns any state to ``OPEN``: ADR 0119 decision 11, the runtime "resets the delta
  guards' running text" at the start of attempt n > 1 (spec: guards.reset).
- A severed guard stays severed until reset: every later delta or flush raises the sever again
  (spec: guards.sticky-sever). Any other pair missing from :data:`TRANSITIONS` is a misuse and
  raises :class:`~loom_ref.governance.errors.GuardStateError` (``governance.guard-state``).
"""

from __future__ import annotations

from collections.abc import Mapping

from loom_ref.enums import LoomEnum
from loom_ref.governance.errors import DeltaSevered, GuardStateError

__all__ = ["TRANSITIONS", "GuardEvent", "GuardLifecycle", "GuardState"]


class GuardState(LoomEnum):
    """Where a guard is in its per-attempt life (spec: guards.lifecycle)."""

    OPEN = "open"
    SEVERED = "severed"
    FLUSHED = "flushed"



class GuardEvent(LoomEnum):
    """What happens to a guard: a delta accepted or severed, a flush, a reset.
    (spec: guards.lifecycle)
    """

    ACCEPT = "accept"
    SEVER = "sever"
    FLUSH = "flush"
    RESET = "reset"



TRANSITIONS: Mapping[GuardState, Mapping[GuardEvent, GuardState]] = {
    GuardState.OPEN: {
        GuardEvent.ACCEPT: GuardState.OPEN,
        GuardEvent.SEVER: GuardState.SEVERED,
        GuardEvent.FLUSH: GuardState.FLUSHED,
        GuardEvent.RESET: GuardState.OPEN,
    },
    GuardState.SEVERED: {GuardEvent.RESET: GuardState.OPEN},
    GuardState.FLUSHED: {GuardEvent.RESET: GuardState.OPEN},
}
# An open guard allows every event: GuardLifecycle.require relies on it for its fast path.
assert set(TRANSITIONS[GuardState.OPEN]) == set(GuardEvent)


class GuardLifecycle:
    """The state of one guard; :meth:`require` is called before an operation, :meth:`fire`
    records its outcome."""

    __slots__ = ("_severed", "state")

    def __init__(self) -> None:
        self.state = GuardState.OPEN
        self._severed: DeltaSevered | None = None

    def require(self, event: GuardEvent) -> None:
        """Raise unless ``event`` may happen now (spec: guards.sticky-sever, guards.lifecycle).

        An accepted delta needs no :meth:`fire`: it leaves an open guard open.
        """
        if self.state is GuardState.OPEN:  # every event is allowed from open (see TRANSITIONS)
            return
        if self.state is GuardState.SEVERED and event is not GuardEvent.RESET:
            assert self._severed is not None
            raise self._severed.again()  # spec: guards.sticky-sever
        if event not in TRANSITIONS[self.state]:
            raise GuardStateError(
                f"a {self.state.value} guard cannot {event.value}",
                state=self.state.value,
                event=event.value,
            )

    def fire(self, event: GuardEvent, severed: DeltaSevered | None = None) -> None:
        """Move along the table (a lookup miss raises ``GuardStateError``)."""
        self.require(event)
        self.state = TRANSITIONS[self.state][event]
        self._severed = severed if event is GuardEvent.SEVER else None
