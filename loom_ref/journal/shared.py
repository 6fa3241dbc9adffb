"""What the stores that keep every execution in one place share: the store log
(:mod:`loom_ref.journal.logstore`) and the SQLite store (:mod:`loom_ref.journal.sqlitestore`).

Spec: ``spec/journal.md`` sections 1.7 and 1.9. Such a store knows every execution it holds,
in the order they were created; keeps one writer per execution in a
:class:`~loom_ref.journal.store.WriterSet` (the place itself is locked by the store as a
whole); writes an execution's header with its first event, so ``create`` only registers the
execution; and is closed, or used as a context manager, to let go of the place.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, Self

from loom_ref.journal.store import (
    Backend,
    CaseIndex,
    JournalExistsError,
    LineJournal,
    WriterLease,
    WriterSet,
    check_execution_id,
)

__all__ = ["SharedBackend", "SharedStore"]


class SharedBackend(WriterLease):
    """One execution's writer in a shared store: its lines go to the store's ``_append``."""

    def __init__(self, store: SharedStore, execution_id: str) -> None:
        super().__init__(store._writers, execution_id)
        self._store = store

    def write(self, data: bytes, *, sync: bool) -> None:
        self._store._append(self._id, data, sync=sync)

    def check_open(self) -> None:
        """Raise ``journal.closed`` when the store's place (its log) is closed."""
        self._store._check_open()


class SharedStore(ABC):
    """The common part (module rules). A subclass sets ``_writers`` and ``path``, and gives
    ``_known`` (every execution it holds, in creation order), ``_check_open``, ``_append``
    (write one line of an execution, its header first if not yet written), ``_register``
    (a new execution, its header not yet written), ``_journal`` and ``close``."""

    _writers: WriterSet
    path: str
    _cases: CaseIndex | None = None  # built at the first create

    @abstractmethod
    def _known(self) -> Mapping[str, Any]:
        ...

    @abstractmethod
    def _check_open(self) -> None:
        ...

    @abstractmethod
    def _append(self, execution_id: str, data: bytes, *, sync: bool) -> None:
        ...

    @abstractmethod
    def _register(self, execution_id: str) -> None:
        ...

    @abstractmethod
    def _journal(self, execution_id: str, backend: Backend) -> LineJournal:
        ...

    @abstractmethod
    def close(self) -> None:
        ...

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def executions(self) -> list[str]:
        """Every execution in the store, in the order they were created."""
        return list(self._known())

    def exists(self, execution_id: str) -> bool:
        return check_execution_id(execution_id) in self._known()

    def _claim(self, execution_id: str) -> SharedBackend:
        self._check_open()
        self._writers.claim(execution_id)  # spec: journal.single-writer (within the store)
        return SharedBackend(self, execution_id)

    def create(self, execution_id: str) -> LineJournal:
        check_execution_id(execution_id)
        if execution_id in self._known():
            raise JournalExistsError(f"journal {execution_id!r} already exists in {self.path}")
        if self._cases is None:
            self._cases = CaseIndex(self._known())
        self._cases.refuse_twin(execution_id)  # spec: journal.execution-ids
        backend = self._claim(execution_id)
        self._register(execution_id)
        self._cases.add(execution_id)
        return self._journal(execution_id, backend)
