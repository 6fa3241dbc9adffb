"""Where journals live: the journal a store hands out, the store protocol, and the memory store.

Spec: ``spec/journal.md``.

- ``journal.write-before-act``: :meth:`LineJournal.append` returns only after the line is
  written and flushed, so the kernel never acts on an effect's result before its event is in
  the journal.
- ``journal.fsync-policy``: whether an append is also made durable is the store's
  :class:`~loom_ref.journal.durability.FsyncPolicy`, looked up per event kind
  (:data:`~loom_ref.journal.durability.SYNC_AFTER`); the store's backend does the syncing.
- ``journal.single-writer``: one writer per journal. Opening a journal that another writer
  holds MUST be refused with :class:`JournalLockedError` (an advisory ``flock`` on files; the
  same rule, enforced by the store, in memory).
- ``journal.torn-tail``: a writer that opens a journal with a torn tail truncates it before
  its first append and keeps the :class:`~loom_ref.journal.reader.TornTail` in ``torn`` so the
  runtime can report it.

A memory journal stores exactly the bytes a file journal would, and is parsed by the same
reader, so a test on one is a test on the other. The file store is
:mod:`loom_ref.journal.filestore`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from loom_ref.errors import InvalidArgument, JournalError
from loom_ref.journal.codec import encode_header, event_line, from_json_text, to_json_text
from loom_ref.journal.durability import SYNC_AFTER, FsyncPolicy
from loom_ref.journal.events import Event, EventKind, PayloadError, check_payload
from loom_ref.journal.reader import CorruptJournalError, ParsedJournal, TornTail, parse_journal

__all__ = [
    "Backend",
    "FsyncPolicy",
    "Journal",
    "JournalClosedError",
    "JournalExistsError",
    "JournalLockedError",
    "JournalNotFoundError",
    "JournalStore",
    "LineJournal",
    "MemoryStore",
    "WriterLease",
    "WriterSet",
    "check_execution_id",
    "check_header",
    "check_path",
]

_ID_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:-]{0,199}")


class JournalLockedError(JournalError):
    """Another writer holds this journal (``journal.single-writer``)."""

    code = "journal.locked"


class JournalExistsError(JournalError):
    """A journal already exists for this execution id (spec: journal.single-writer)."""

    code = "journal.exists"


class JournalNotFoundError(JournalError):
    """No journal exists for this execution id (spec: journal.single-writer)."""

    code = "journal.not-found"


class JournalClosedError(JournalError):
    """The journal was closed (or broke on a failed write) and takes no more appends.
    (spec: journal.single-writer)
    """

    code = "journal.closed"


def check_execution_id(execution_id: object) -> str:
    """Return ``execution_id`` if it is usable as a journal name, else raise InvalidArgument
    (spec: journal.execution-ids).

    Ids are 1-200 characters of ``A-Z a-z 0-9 _ . : -``, not starting with ``.``, ``:`` or
    ``-`` (so every id is also a safe file name).
    """
    if not isinstance(execution_id, str) or not _ID_RE.fullmatch(execution_id):
        raise InvalidArgument(
            f"execution id must match {_ID_RE.pattern}, got {execution_id!r}",
            code="argument.execution-id",
        )
    return execution_id


def check_path(path: object, what: str) -> str | os.PathLike[str]:
    """Return ``path`` if it is a non-empty ``str`` or ``os.PathLike`` naming a path the file
    system can spell, else raise InvalidArgument."""
    if not isinstance(path, str | os.PathLike):
        raise InvalidArgument(f"{what} must be a path (str or os.PathLike), got {path!r}")
    try:
        spelled = os.fsencode(path)
    except (TypeError, UnicodeError):  # a PathLike giving bytes, or a lone surrogate
        raise InvalidArgument(f"{what} cannot be spelled as a path: {path!r}") from None
    if not spelled or b"\0" in spelled:
        raise InvalidArgument(f"{what} must be a non-empty path without NUL, got {path!r}")
    return path


def check_store(store: object, what: str = "store") -> JournalStore:
    """Return ``store`` if it has the methods of :class:`JournalStore`, else raise
    InvalidArgument."""
    for name in ("create", "open", "exists", "read"):
        if not callable(getattr(store, name, None)):
            raise InvalidArgument(f"{what} must be a journal store (with create, open, exists "
                                  f"and read), got {type(store).__name__}")
    return store  # type: ignore[return-value]


class Journal(Protocol):
    """What the kernel needs of one execution's journal (spec: journal.write-before-act)."""

    @property
    def execution_id(self) -> str: ...

    @property
    def events(self) -> Sequence[Event]: ...

    @property
    def torn(self) -> TornTail | None: ...

    def append(self, kind: EventKind, payload: Mapping[str, Any]) -> Event: ...

    def close(self) -> None: ...


class JournalWrapper:
    """A journal that hands every call on to the journal it wraps: the base of the wrappers
    that watch or change one call (a fault injector, a tracer) and pass the rest through
    unchanged, so the kernel sees the journal underneath (spec: journal.write-before-act)."""

    def __init__(self, inner: Journal) -> None:
        self._inner = inner

    @property
    def inner(self) -> Journal:
        """The journal this one wraps."""
        return self._inner

    @property
    def execution_id(self) -> str:
        return self._inner.execution_id

    @property
    def events(self) -> Sequence[Event]:
        return self._inner.events

    @property
    def torn(self) -> TornTail | None:
        return self._inner.torn

    def append(self, kind: EventKind, payload: Mapping[str, Any]) -> Event:
        return self._inner.append(kind, payload)

    def write_torn(self, kind: EventKind, payload: Mapping[str, Any], nbytes: int) -> None:
        """Write only the first ``nbytes`` bytes of the line (a crash in mid-write), where
        the journal underneath can (spec: journal.crash-model)."""
        self._inner.write_torn(kind, payload, nbytes)  # type: ignore[attr-defined]

    def close(self) -> None:
        self._inner.close()


class JournalStore(Protocol):
    """What the kernel needs of a place that holds journals (spec: journal.single-writer)."""

    def create(self, execution_id: str) -> Journal: ...

    def open(self, execution_id: str) -> Journal: ...

    def exists(self, execution_id: str) -> bool: ...

    def read(self, execution_id: str) -> ParsedJournal: ...


class Backend(Protocol):
    """Where a :class:`LineJournal`'s bytes go: a file, a store log, a database, memory.
    (spec: journal.write-before-act)
    """

    def write(self, data: bytes, *, sync: bool) -> None:
        """Hand ``data`` (one line, or a torn piece of one) to the operating system, and with
        ``sync`` make everything written so far durable before returning
        (``journal.write-before-act``, ``journal.fsync-policy``)."""
        ...

    def release(self) -> None:
        """Give up the writer's place (``journal.single-writer``). Twice is harmless."""
        ...


class LineJournal:
    """One execution's journal over a byte backend (a file or a store's buffer).
    (spec: journal.line-shape)
    """

    def __init__(
        self,
        *,
        execution_id: str,
        backend: Backend,
        events: Sequence[Event] = (),
        torn: TornTail | None = None,
        fsync: FsyncPolicy = FsyncPolicy.NEVER,
    ) -> None:
        self._execution_id = execution_id
        self._backend = backend
        self._events: list[Event] = list(events)
        self._torn = torn
        self._fsync = fsync
        self._sync_after = SYNC_AFTER[fsync]
        self._open = True

    @property
    def execution_id(self) -> str:
        return self._execution_id

    @property
    def events(self) -> Sequence[Event]:
        return self._events

    @property
    def torn(self) -> TornTail | None:
        return self._torn

    def _encode(self, kind: EventKind, payload: Mapping[str, Any]) -> tuple[int, str, bytes]:
        """The event's ``seq``, its payload's JSON text and its line, or PayloadError."""
        if not self._open:
            raise JournalClosedError(f"journal {self._execution_id!r} is closed")
        if type(kind) is not EventKind:
            raise InvalidArgument(f"kind must be an EventKind, got {kind!r}")
        check_payload(kind, payload)  # spec: journal.payload-shape
        seq = len(self._events) + 1
        try:
            text = to_json_text(payload)
            line = self._line(seq, kind, text)  # UTF-8: a lone surrogate fails here
        except (TypeError, ValueError) as exc:  # spec: journal.json-values
            raise PayloadError(
                f"{kind.value} payload is not made of JSON values: {exc}", kind=kind.value
            ) from None
        return seq, text, line

    def _line(self, seq: int, kind: EventKind, payload_text: str) -> bytes:
        """The bytes of one event line (``journal.line-shape``); a store log overrides it."""
        return event_line(seq, kind.value, payload_text)

    def _write(self, data: bytes, *, sync: bool) -> None:
        try:
            self._backend.write(data, sync=sync)
        except OSError as exc:
            self._open = False
            raise JournalError(
                f"writing journal {self._execution_id!r} failed: {exc}", code="journal.write-failed"
            ) from exc

    def append(self, kind: EventKind, payload: Mapping[str, Any]) -> Event:
        """Write and flush one event (``journal.write-before-act``) and return it as a reader
        will read it back: its payload is decoded from the text just written, so what the
        kernel hands on is the journaled JSON value, never the caller's object."""
        seq, text, line = self._encode(kind, payload)
        self._write(line, sync=kind in self._sync_after)  # spec: journal.fsync-policy
        event = Event(seq=seq, kind=kind, payload=from_json_text(text))
        self._events.append(event)
        return event

    def write_torn(self, kind: EventKind, payload: Mapping[str, Any], nbytes: int) -> None:
        """Fault injection only: write the first ``nbytes`` of the event's line, as a crash in
        the middle of the write would, and take no more appends."""
        _, _, line = self._encode(kind, payload)
        if not 0 < nbytes < len(line):
            raise InvalidArgument(f"nbytes must be in 1..{len(line) - 1}, got {nbytes}")
        self._write(line[:nbytes], sync=False)
        self._open = False

    def close(self) -> None:
        """Release the writer's lock. Closing twice is harmless."""
        self._open = False
        self._backend.release()


class WriterSet:
    """The executions of one store that have a writer open (``journal.single-writer`` where
    no file lock can say it: in memory, and within a store log)."""

    def __init__(self) -> None:
        self._ids: set[str] = set()

    def claim(self, execution_id: str) -> None:
        """Take the writer's place for ``execution_id``, or raise JournalLockedError."""
        if execution_id in self._ids:  # spec: journal.single-writer
            raise JournalLockedError(
                f"journal {execution_id!r} is already open for writing", execution_id=execution_id
            )
        self._ids.add(execution_id)

    def release(self, execution_id: str) -> None:
        self._ids.discard(execution_id)


class WriterLease:
    """A writer's place in a :class:`WriterSet`, given back once: a journal closed twice
    must not free the place of a writer that claimed the execution since."""

    def __init__(self, writers: WriterSet, execution_id: str) -> None:
        self._writers = writers
        self._id = execution_id
        self._released = False

    def release(self) -> None:
        if not self._released:
            self._released = True
            self._writers.release(self._id)


class _MemoryBackend(WriterLease):
    def __init__(self, store: MemoryStore, execution_id: str) -> None:
        super().__init__(store._writers, execution_id)
        self._store = store

    def write(self, data: bytes, *, sync: bool) -> None:
        self._store.data[self._id] += data  # memory: nothing survives the process anyway


class MemoryStore:
    """Journals held in memory as the bytes a file would hold (``data[execution_id]``).

    Tests may edit ``data`` directly (truncate it, flip a byte) to model a torn tail or
    corruption; the reader sees exactly what it would see in a file.
    (spec: journal.one-file-per-execution)
    """

    def __init__(self) -> None:
        self.data: dict[str, bytearray] = {}
        self._writers = WriterSet()

    def exists(self, execution_id: str) -> bool:
        return check_execution_id(execution_id) in self.data

    def _claim(self, execution_id: str) -> _MemoryBackend:
        self._writers.claim(execution_id)
        return _MemoryBackend(self, execution_id)

    def create(self, execution_id: str) -> LineJournal:
        check_execution_id(execution_id)
        if execution_id in self.data:
            raise JournalExistsError(f"journal {execution_id!r} already exists")
        self.data[execution_id] = bytearray(encode_header(execution_id))
        return LineJournal(execution_id=execution_id, backend=self._claim(execution_id))

    def read(self, execution_id: str) -> ParsedJournal:
        """Parse a journal without opening it for writing."""
        check_execution_id(execution_id)
        if execution_id not in self.data:
            raise JournalNotFoundError(f"no journal for {execution_id!r}")
        return check_header(parse_journal(bytes(self.data[execution_id]), source=execution_id),
                            execution_id, execution_id)

    def open(self, execution_id: str) -> LineJournal:
        parsed = self.read(execution_id)
        backend = self._claim(execution_id)
        buf = self.data[execution_id]
        del buf[parsed.good_size :]  # spec: journal.torn-tail (truncate before appending)
        if parsed.execution_id is None:
            buf[:] = encode_header(execution_id)
        return LineJournal(
            execution_id=execution_id, backend=backend, events=parsed.events, torn=parsed.torn
        )


def check_header(parsed: ParsedJournal, execution_id: str, source: str) -> ParsedJournal:
    """``parsed``, unless its header names another execution (``journal.header``)."""
    if parsed.execution_id is not None and parsed.execution_id != execution_id:
        raise CorruptJournalError(
            f"{source}, line 1: header names execution {parsed.execution_id!r}",
            file=source, line=1, reason="journal.bad-header",
        )
    return parsed


def read_journal_file(path: str | os.PathLike[str]) -> ParsedJournal:
    """Parse a journal file by path, without locking it (for inspection tools).
    (spec: journal.torn-tail)
    """
    p = os.fspath(check_path(path, "path"))
    try:
        with open(p, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise JournalNotFoundError(f"{p} does not exist", file=p) from None
    return parse_journal(data, source=p)


__all__ += ["read_journal_file"]
