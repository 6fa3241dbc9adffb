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
  (spec: guards.chain-order). It severs as a whole: once one of its guards severs, every later
  ``check`` re-raises that sever, marked ``repeated``, until ``reset``; and no guard of the
  chain takes the severed delta: each guard first *stages* the delta (``stage(delta)`` checks
  it and returns the commit that takes it), and the stages are committed only when none
  severed. A guard with only ``check`` may be the last of a chain, nowhere else
  (spec: guards.chain-sever).
- Limits, stated plainly (spec: guards.limit-prefix, guards.limit-window,
  guards.limit-no-redaction): text before a match completes is delivered; a pattern wider than
  the window, split across deltas, can evade; nothing here masks a delta (redactOutput does not
  run on deltas) -- a guard lets a delta through or severs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol, runtime_checkable

from loom_ref.errors import InvalidArgument
from loom_ref.governance.errors import DeltaSevered, GuardStateError, SafetyViolation
from loom_ref.governance.lifecycle import GuardEvent, GuardLifecycle
from loom_ref.governance.validators import PatternScan, SafetyValidator

__all__ = [
    "DEFAULT_WINDOW",
    "Commit",
    "DeltaGuard",
    "GuardChain",
    "RunningTextGuard",
    "StageStamp",
    "StagedGuard",
    "check_delta_arg",
]

DEFAULT_WINDOW = 4096
"""ADR 0119 decision 10: "the last deltaWindow chars, default 4096" (spec: guards.window)."""


@runtime_checkable
class DeltaGuard(Protocol):
    """A per-attempt guard over a stream of text deltas (spec: guards.before-delivery)."""

    def check(self, delta: str) -> None:
        """Return to let ``delta`` be delivered; raise ``DeltaSevered`` to sever before it."""

    def reset(self) -> None:
        """Forget the attempt so far (spec: guards.reset)."""


Commit = Callable[[], None]
"""Takes a staged delta into a guard's state (spec: guards.chain-sever)."""


@runtime_checkable
class StagedGuard(DeltaGuard, Protocol):
    """A delta guard that can check a delta without taking it (spec: guards.chain-sever).

    ``stage(delta)`` does what ``check`` does -- raising the same sever -- except that an
    accepted delta is not yet taken into the guard's state: the returned :data:`Commit` takes
    it. ``check(delta)`` is ``stage(delta)()``.
    """

    def stage(self, delta: str) -> Commit:
        """Check ``delta``; raise ``DeltaSevered`` to sever; return the commit that takes it."""


class StageStamp:
    """Makes a guard's commits single-use and fresh: a commit is valid once, and only while
    nothing was staged on, or reset, the guard since its stage (spec: guards.chain-sever);
    a stale commit raises ``governance.guard-state``."""

    __slots__ = ("_stamp",)

    def __init__(self) -> None:
        self._stamp = 0

    def bump(self) -> int:
        """A new stamp: every commit staged before it is stale."""
        self._stamp += 1
        return self._stamp

    def seal(self, take: Callable[[], None]) -> Commit:
        """``take`` as a commit valid until the next :meth:`bump`."""
        stamp = self.bump()

        def commit() -> None:
            if stamp != self._stamp:
                raise GuardStateError(
                    "a stale commit: the guard was staged again or reset since",
                    state="staged",
                    event="commit",
                )
            self.bump()
            take()

        return commit


def check_delta_arg(delta: object) -> str:
    """``delta`` if it is a ``str``; ``InvalidArgument`` otherwise (a tainted delta must be
    unwrapped by the runtime, at its audit point, before it is checked)."""
    if not isinstance(delta, str):
        raise InvalidArgument(f"a delta must be a str, got {type(delta).__name__}")
    return delta


def _items(items: object, what: str) -> tuple[Any, ...]:
    """``items`` as a tuple, if it is an iterable other than a string; else InvalidArgument
    (spec: errors.invalid-argument)."""
    if isinstance(items, str | bytes) or not isinstance(items, Iterable):
        raise InvalidArgument(f"{what} must be a sequence, got {items!r}")
    return tuple(items)


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
        self.validators = _items(validators, "validators")
        for v in self.validators:
            if not isinstance(v, SafetyValidator):
                raise InvalidArgument(f"expected SafetyValidator, got {type(v).__name__}")
            if v.delta_form is None:  # spec: validators.fail-closed
                raise InvalidArgument(
                    f"validator {v.name!r} has no delta form; it cannot guard a stream"
                )
        self._life = GuardLifecycle()
        self._stamp = StageStamp()
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
        self._take(self._verdict(delta))

    def stage(self, delta: str) -> Commit:
        """:meth:`check` without taking ``delta`` into the running text: the returned commit
        takes it (spec: guards.chain-sever)."""
        checked = self._verdict(delta)
        return self._stamp.seal(lambda: self._take(checked))

    def _verdict(self, delta: str) -> str:
        """Raise the sever of ``delta``, or return the running text with it."""
        check_delta_arg(delta)
        self._life.require(GuardEvent.ACCEPT)
        self._stamp.bump()  # a commit staged before is stale now
        checked = self._text + delta  # spec: guards.running-text
        fresh = len(self._text)
        for validator in self.validators:
            violation = self._violation(validator, checked, fresh)
            if violation is not None:
                # a severed guard accepts nothing until reset(), which zeroes the index, so
                # the severed delta does not move it (spec: guards.reset)
                severed = self._severed(violation, self._index)
                self._life.fire(GuardEvent.SEVER, severed)
                raise severed from violation
        return checked

    def _take(self, checked: str) -> None:
        """Take an accepted delta: open -> open, nothing to record in the lifecycle."""
        kept = checked[-self.window :]
        self._offset += len(checked) - len(kept)
        self._text = kept
        self._index += 1

    def reset(self) -> None:
        """Clear the running text at a retry (spec: guards.reset)."""
        self._life.fire(GuardEvent.RESET)
        self._stamp.bump()
        self._text = ""
        self._offset = 0
        self._index = 0

    @staticmethod
    def _violation(validator: SafetyValidator, checked: str, fresh: int) -> SafetyViolation | None:
        form = validator.delta_form
        if isinstance(form, PatternScan):
            found = form._find(checked, fresh)  # spec: guards.tail-scan (checked already)
            return None if found is None else form.violation(*found)
        try:
            validator.check_delta(checked)
        except SafetyViolation as violation:
            return violation
        return None

    def _severed(self, violation: SafetyViolation, index: int) -> DeltaSevered:
        details = dict(violation.details)
        span = details.get("span")
        if isinstance(span, list) and len(span) == 2:  # spec: errors.details-json
            details["span"] = [span[0] + self._offset, span[1] + self._offset]
        return DeltaSevered(
            f"stream severed before delta {index}: {violation.message}",
            cause=violation.code,
            delta_index=index,
            **details,
        )


def stages(guard: DeltaGuard) -> bool:
    """Whether ``guard`` can stage a delta, i.e. check it without taking it (a chain stages
    only when every guard of it does)."""
    if isinstance(guard, GuardChain):
        return guard.staged
    return isinstance(guard, StagedGuard)


class GuardChain:
    """Several guards as one (spec: guards.chain-order, guards.chain-sever).

    ``check`` runs them in order; the first sever wins and the later guards do not see that
    delta. The chain severs as a whole: a later ``check`` re-raises its sever, marked
    ``repeated``, without consulting the guards, until ``reset``; and no guard takes a delta
    that a guard of the chain severed, because every guard stages the delta first and the
    stages are committed only once none severed. A guard that cannot stage (it has only
    ``check``) may only be the last: its ``check`` is then the commit point, and the chain
    itself cannot stage (so it, in turn, may only be the last of a chain).
    """

    def __init__(self, guards: Sequence[DeltaGuard]) -> None:
        self.guards = _items(guards, "guards")
        for g in self.guards:
            if not isinstance(g, DeltaGuard):
                raise InvalidArgument(f"expected a DeltaGuard, got {type(g).__name__}")
        # Every guard but the last is staged; the last is checked, so its check is the commit
        # point (it takes the delta only when no guard severed, and none after it can).
        staging: list[Callable[[str], Commit]] = []
        for g in self.guards[:-1]:
            if not isinstance(g, StagedGuard) or not stages(g):  # spec: guards.chain-sever
                raise InvalidArgument(f"{type(g).__name__} cannot stage a delta (it has no "
                                      "stage()): only the last guard of a chain may lack it")
            staging.append(g.stage)
        self._staging = tuple(staging)
        last = self.guards[-1] if self.guards else None
        # what stage() runs: every guard's stage, or None when the last guard cannot stage
        self._stage_all: tuple[Callable[[str], Commit], ...] | None = (
            self._staging + (last.stage,) if isinstance(last, StagedGuard) and stages(last)
            else () if last is None else None)
        #: Whether every guard stages, so that :meth:`stage` takes nothing before its commit.
        self.staged = self._stage_all is not None
        self._last: Callable[[str], None] | None = self.guards[-1].check if self.guards else None
        self._life = GuardLifecycle()
        self._stamp = StageStamp()

    def check(self, delta: str) -> None:
        """Check ``delta`` with every guard, in order; a sever severs the whole chain."""
        check_delta_arg(delta)
        self._life.require(GuardEvent.ACCEPT)  # spec: guards.chain-sever -- sticky, repeated
        self._stamp.bump()
        try:
            commits = [stage(delta) for stage in self._staging]
            if self._last is not None:
                self._last(delta)
        except DeltaSevered as severed:
            self._life.fire(GuardEvent.SEVER, severed)
            raise
        for commit in commits:
            commit()

    def stage(self, delta: str) -> Commit:
        """Stage ``delta`` on every guard, in order, and return the commit of them all.

        A chain whose last guard cannot stage (see :attr:`staged`) refuses: that guard
        would take the delta before the commit (spec: guards.chain-sever)."""
        if self._stage_all is None:
            last = type(self.guards[-1]).__name__
            raise InvalidArgument(f"this chain cannot stage a delta: its last guard, {last}, "
                                  "has only check(); check the chain instead")
        check_delta_arg(delta)
        self._life.require(GuardEvent.ACCEPT)  # spec: guards.chain-sever -- sticky, repeated
        self._stamp.bump()
        try:
            commits = [stage(delta) for stage in self._stage_all]
        except DeltaSevered as severed:
            self._life.fire(GuardEvent.SEVER, severed)
            raise

        def take() -> None:
            for commit in commits:
                commit()

        return self._stamp.seal(take)

    def reset(self) -> None:
        """Reset the chain and every guard (spec: guards.reset)."""
        self._life.fire(GuardEvent.RESET)
        self._stamp.bump()
        for guard in self.guards:
            guard.reset()
