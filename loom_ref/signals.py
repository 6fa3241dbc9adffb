"""Cancellation signals: a plain object in the spirit of the AbortSignal the seeds assume.

A base module, below every layer (like :mod:`loom_ref.errors`): the stream protocol's adapters,
the effect runtime and the kernel all take signals. Aborting is reported by the layer that
refuses the call (``loom_ref.effects.AbortedError``, code ``effect.aborted``).

Spec: ``spec/effects.md`` (``effects.signal-compose``): *a call's signal is the composition of
the execution's cancel, the caller's signal and the scope's lifetime* (ADR 0119 decision 8:
"The call's signal is the scope's composition (execution cancel + the decider's signal + the
scope's lifetime)"). :func:`any_of` builds that composition: the composite aborts as soon as
any input aborts, with that input's reason.

Thread-free and synchronous: listeners run inline, in registration order, when ``abort`` is
called. A listener's exception is not swallowed here; the runtime's sink wrapper is the place
that protects callers (ADR 0119 decision 6).

A composite registers a listener on each input. Inputs such as an execution's cancel signal
outlive many calls, so whoever builds a composite for one call SHOULD :meth:`CompositeSignal.detach`
it once the call settles (``effects.signal-detach``), or the long-lived input keeps every
composite alive. :data:`NEVER` is the signal of a call made without one: it cannot abort and
keeps no listeners.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from loom_ref.errors import InvalidArgument

__all__ = ["NEVER", "CompositeSignal", "Signal", "any_of"]

Listener = Callable[[object], None]


class Signal:
    """An abort flag with a reason and listeners.

    ``abort(reason)`` is idempotent: the first reason wins and listeners run once.
    (spec: effects.signal-compose)
    """

    __slots__ = ("_listeners", "aborted", "reason")

    def __init__(self) -> None:
        self.aborted = False
        self.reason: object = None
        self._listeners: list[Listener] = []

    def abort(self, reason: object = "aborted") -> None:
        """Abort with ``reason`` and notify every listener once. A second call is a no-op
        (spec: effects.signal-abort-once -- the reason stays the first)."""
        if self.aborted:
            return
        self.aborted = True
        self.reason = reason
        listeners, self._listeners = self._listeners, []
        for listener in listeners:
            listener(reason)

    def add_listener(self, listener: Listener) -> None:
        """Call ``listener(reason)`` on abort; at once if already aborted."""
        if not callable(listener):
            raise InvalidArgument(f"listener must be callable, got {type(listener).__name__}")
        if self.aborted:
            listener(self.reason)
        else:
            self._listeners.append(listener)

    def remove_listener(self, listener: Listener) -> None:
        """Forget ``listener`` (compared with ``==``); a listener never added is ignored."""
        with contextlib.suppress(ValueError):
            self._listeners.remove(listener)

    def __repr__(self) -> str:
        return f"Signal(aborted={self.aborted!r}, reason={self.reason!r})"


class _NeverSignal(Signal):
    """The signal of a call that was given none: never aborts, retains no listener."""

    __slots__ = ()

    def abort(self, reason: object = "aborted") -> None:
        raise InvalidArgument("the NEVER signal cannot abort: give the call its own Signal")

    def add_listener(self, listener: Listener) -> None:
        if not callable(listener):
            raise InvalidArgument(f"listener must be callable, got {type(listener).__name__}")

    def __repr__(self) -> str:
        return "NEVER"


#: Shared by every call made without a signal (no per-call allocation on the hot path).
NEVER: Signal = _NeverSignal()


class CompositeSignal(Signal):
    """What :func:`any_of` returns: a signal that remembers its inputs so it can detach.
    (spec: effects.signal-compose)
    """

    __slots__ = ("_sources",)

    def __init__(self, sources: tuple[Signal, ...]) -> None:
        # spec: errors.invalid-argument -- detach() walks the sources
        if not isinstance(sources, tuple | list) or not all(isinstance(s, Signal) for s in sources):
            raise InvalidArgument(f"sources must be a tuple of Signal, got {sources!r}")
        super().__init__()
        self._sources = sources

    def detach(self) -> None:
        """Stop listening to the inputs (spec: effects.signal-detach). Idempotent; the
        composite keeps its current state."""
        sources, self._sources = self._sources, ()
        for source in sources:
            source.remove_listener(self.abort)


def any_of(*signals: Signal | None) -> CompositeSignal:
    """A signal that aborts when any of ``signals`` does (``None`` entries are skipped).

    If one is already aborted, the result is aborted with the first such reason.
    spec: effects.signal-compose
    """
    present: list[Signal] = []
    for signal in signals:
        if signal is None:
            continue
        if not isinstance(signal, Signal):
            raise InvalidArgument(f"any_of takes Signal or None, got {type(signal).__name__}")
        if signal.aborted:
            composite = CompositeSignal(())
            composite.abort(signal.reason)
            return composite
        present.append(signal)
    composite = CompositeSignal(tuple(present))
    for signal in present:
        signal.add_listener(composite.abort)
    return composite
