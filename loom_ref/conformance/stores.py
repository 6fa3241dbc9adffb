"""The journal stores loom_ref runs a scenario on: one place per store, for the ``store`` mode.

Rules (``conformance/INTERPRETING.md`` section 8, mode ``store``; ``spec/journal.md``,
``journal.stores-agree``). loom_ref's start reply names five stores, the default first:

- ``memory``: :class:`~loom_ref.journal.MemoryStore`, the store every case runs on;
- ``files``: :class:`~loom_ref.journal.FileStore`, one JSONL file per execution in a
  temporary directory, on the operating system's file system;
- ``log``: :class:`~loom_ref.journal.LogStore`, the store log of section 1.7, in a
  temporary directory;
- ``sqlite``: :class:`~loom_ref.journal.SqliteStore`, section 1.9, in a temporary directory;
- ``content``: the extension of section 1.10, a
  :class:`~loom_ref.journal.ContentResolvingStore` (its default configuration, the agent
  transcript by reference) over a ``files`` store: the suite passing on it is what
  ``journal.content-resolve`` promises (events, fold, replay and every value a body sees
  are those of the same journal written inline).

Each with its default fsync policy, in a temporary directory on tmpfs where there is one.

- A torn write (``crash.torn``) keeps a strict prefix of the line, as on the memory store; on
  the store log the prefix is long enough to name its execution (``journal.log-torn-tail``:
  torn bytes that stop inside the execution id name none, so nobody would be told).
- A case that edits a journal's bytes (``tear``, ``appendBytes``, ``corrupt``) runs on the
  stores that keep the one-file-per-execution form of inline payloads (memory, files) and is
  answered *skipped* on the others.
- A *place* is where one scenario's journals live. For a store that outlives its process
  (all but ``memory``), every action opens the store afresh, as a new process would, after
  the previous action's store is closed (which is what the death of a process does to its
  locks); a second writer (``holdWriter``) is another store on the same place. The memory
  store has no place to reopen: its one object plays every process, as it always has.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping
from typing import Any

from loom_ref.journal import ContentResolvingStore, FileStore, LogStore, MemoryStore, SqliteStore

__all__ = ["STORES", "Place", "place"]


def _close(store: Any) -> None:
    close = getattr(store, "close", None)
    if callable(close):
        close()


class Place:
    """Where one scenario's journals live, and how a process opens them."""

    def __init__(self, name: str, opener: Callable[[str], Any] | None) -> None:
        self.name = name
        self._opener = opener
        self.persistent = opener is not None
        base = "/dev/shm" if os.path.isdir("/dev/shm") else None  # tmpfs: cheap syncs
        self.directory = tempfile.mkdtemp(prefix=f"loom-{name}-", dir=base) if opener else ""
        self._memory = None if opener else MemoryStore()
        self._open: list[Any] = []

    def new(self) -> Any:
        """A store object as a new process opens it (for memory: the one store)."""
        if self._opener is None:
            assert self._memory is not None
            return self._memory
        store = self._opener(self.directory)
        self._open.append(store)
        return store

    def drop(self, store: Any) -> None:
        """What the end of a process does to ``store``: its locks and handles go."""
        if self.persistent and store is not None:
            _close(store)
            if store in self._open:
                self._open.remove(store)

    @property
    def file_form(self) -> bool:
        """Whether the place keeps each journal as the file of ``spec/journal.md`` section 1.1
        (memory and files do), so that a case may edit its bytes."""
        return self.name in ("memory", "files")

    def journal_file(self, execution_id: str) -> str:
        """The file that holds ``execution_id``'s journal (the files store)."""
        return os.path.join(self.directory, execution_id + ".jsonl")

    def torn_bytes(self, execution_id: str, default: int) -> int:
        """How many bytes of a line a torn write keeps on this store."""
        if self.name == "log":  # '{"executionId":"<id>"' and one byte more
            return len('{"executionId":') + len(json.dumps(execution_id)) + 1
        return default

    def close(self) -> None:
        """Close every store still open and remove the place."""
        for store in self._open:
            _close(store)
        self._open.clear()
        if self.directory:
            shutil.rmtree(self.directory, ignore_errors=True)


#: store name -> how a process opens it in a place's directory (None: the memory store)
STORES: Mapping[str, Callable[[str], Any] | None] = {
    "memory": None,
    "files": FileStore,
    "log": lambda directory: LogStore(os.path.join(directory, "store.log")),
    "sqlite": lambda directory: SqliteStore(os.path.join(directory, "store.db")),
    "content": lambda directory: ContentResolvingStore(FileStore(directory)),
}


def place(name: str) -> Place:
    """A fresh place for the store ``name`` (one of :data:`STORES`)."""
    return Place(name, STORES[name])
