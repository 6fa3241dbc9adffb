"""Fault injection: a store whose journals crash after the k-th append.

Spec: ``spec/journal.md`` (``journal.crash-model``). A crash is :class:`Crash`, a
``BaseException`` subclass, so no ``except Exception`` in a body or an effect can swallow it:
it unwinds to whoever drove the execution, the in-process state is thrown away, and a fresh
runtime with fresh effect instances recovers from what the store holds. This is what the
crash matrix is built on: crash after every append of an uncrashed run, recover, compare.

``journal.fault-arming``: the store models one process's death, so it counts the appends of
all its journals together, from the moment it is *armed* (``crash_after=k`` when built, or
:meth:`FaultInjectingStore.arm` later), crashes once at the k-th, and is then disarmed: the
same wrapper serves every phase of a test (run, arm, crash, recover).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from loom_ref.errors import InvalidArgument
from loom_ref.journal.events import Event, EventKind
from loom_ref.journal.reader import ParsedJournal
from loom_ref.journal.store import Journal, JournalStore, JournalWrapper, check_store

__all__ = ["Crash", "FaultInjectingStore"]


class Crash(BaseException):
    """The simulated death of the process, raised after the ``after``-th append.
    (spec: journal.crash-model)
    """

    def __init__(self, after: int) -> None:
        super().__init__(f"simulated crash after append {after}")
        self.after = after


class _FaultJournal(JournalWrapper):
    def __init__(self, inner: Journal, store: FaultInjectingStore) -> None:
        super().__init__(inner)
        self._store = store

    def append(self, kind: EventKind, payload: Mapping[str, Any]) -> Event:
        # spec: journal.fault-arming -- an append the writer refuses writes nothing and is
        # not counted: the count is of events (or the torn line of one)
        store = self._store
        if store.appends + 1 != store.crash_after:
            event = self._inner.append(kind, payload)
            store.appends += 1
            return event
        if store.torn_bytes:  # the crashing append, once
            self.write_torn(kind, payload, store.torn_bytes)
        else:
            self._inner.append(kind, payload)
        store.appends += 1
        store.crash_after = None
        raise Crash(store.appends)


class FaultInjectingStore:
    """Wraps a store (memory or file); once armed, the ``crash_after``-th append over all its
    journals is written and then :class:`Crash` is raised, once (spec: journal.crash-model,
    journal.fault-arming). With ``torn_bytes``, that append writes only its first
    ``torn_bytes`` bytes (a crash in mid-write) before crashing. ``appends`` counts the
    appends since the store was last armed; ``armed`` says whether a crash is pending."""

    def __init__(self, inner: Any, *, crash_after: int | None = None,
                 torn_bytes: int = 0) -> None:
        self.inner: JournalStore = check_store(inner, "inner")
        self.crash_after: int | None = None
        self.torn_bytes = 0
        self.appends = 0
        if crash_after is not None:
            self.arm(crash_after, torn_bytes=torn_bytes)
        elif type(torn_bytes) is not int or torn_bytes != 0:
            raise InvalidArgument(f"torn_bytes needs crash_after (the append to tear), got "
                                  f"{torn_bytes!r}")

    @property
    def armed(self) -> bool:
        """Whether a crash is pending (spec: journal.fault-arming)."""
        return self.crash_after is not None

    def arm(self, crash_after: int, *, torn_bytes: int = 0) -> FaultInjectingStore:
        """Crash after the ``crash_after``-th append from now on, over all journals, once;
        returns the store (spec: journal.fault-arming)."""
        if type(crash_after) is not int or crash_after < 1:
            raise InvalidArgument(f"crash_after must be an int >= 1, got {crash_after!r}")
        if type(torn_bytes) is not int or torn_bytes < 0:
            raise InvalidArgument(f"torn_bytes must be an int >= 0, got {torn_bytes!r}")
        self.crash_after = crash_after
        self.torn_bytes = torn_bytes
        self.appends = 0
        return self

    def __repr__(self) -> str:
        pending = (f"armed: crash at append {self.crash_after}" if self.crash_after is not None
                   else "disarmed")
        return (f"FaultInjectingStore({type(self.inner).__name__}, {pending}, "
                f"{self.appends} appends counted)")

    def exists(self, execution_id: str) -> bool:
        """Whether the wrapped store holds ``execution_id``."""
        return self.inner.exists(execution_id)

    def read(self, execution_id: str) -> ParsedJournal:
        return self.inner.read(execution_id)

    def create(self, execution_id: str) -> _FaultJournal:
        return _FaultJournal(self.inner.create(execution_id), self)

    def open(self, execution_id: str) -> _FaultJournal:
        return _FaultJournal(self.inner.open(execution_id), self)
