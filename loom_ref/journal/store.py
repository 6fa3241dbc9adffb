"""Where journals live: one JSONL journal per execution, in a directory or in memory.

Spec: ``spec/journal.md``.

- ``journal.write-before-act``: :meth:`LineJournal.append` returns only after the line is
  written and flushed, so the kernel never acts on an effect's result before its event is in
  the journal.
- ``journal.fsync-policy``: fsync is a setting (:class:`FsyncPolicy`): after every event, only
  at suspension, completion, failure and in-doubt (the boundaries), or never.
- ``journal.single-writer``: one writer per journal. Opening a journal that another writer
  holds MUST be refused with :class:`JournalLockedError` (an advisory ``flock`` on files; the
  same rule, enforced by the store, in memory).
- ``journal.torn-tail``: a writer that opens a journal with a torn tail truncates it before
  its first append and keeps the :class:`~loom_ref.journal.reader.TornTail` in ``torn`` so the
  runtime can report it.

A memory journal stores exactly the bytes a file journal would, and is parsed by the same
reader, so a test on one is a test on the other.
"""

from __future__ import annotations

import fcntl
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from loom_ref.enums import LoomEnum
from loom_ref.errors import InvalidArgument, JournalError
from loom_ref.journal.codec import encode_header, event_line, from_json_text, to_json_text
from loom_ref.journal.events import Event, EventKind, PayloadError, check_payload
from loom_ref.journal.reader import CorruptJournalError, ParsedJournal, TornTail, parse_journal

__all__ = [
    "FileStore",
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
    "check_path",
]

_ID_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:-]{0,199}")


class JournalLockedError(JournalError):
    """Another writer holds this journal (``journal.single-writer``)."""

    code = "journal.locked"


class JournalExistsError(JournalError):
    """A journal already exists for this execution id."""

    code = "journal.exists"


class JournalNotFoundError(JournalError):
    """No journal exists for this execution id."""

    code = "journal.not-found"


class JournalClosedError(JournalError):
    """The journal was closed (or broke on a failed write) and takes no more appends."""

    code = "journal.closed"


class FsyncPolicy(LoomEnum):
    """When a file journal calls ``fsync`` (``journal.fsync-policy``)."""

    EVERY_EVENT = "every-event"
    AT_BOUNDARIES = "at-boundaries"
    NEVER = "never"


_BOUNDARIES = frozenset(
    {
        EventKind.EXECUTION_SUSPENDED,
        EventKind.EXECUTION_COMPLETED,
        EventKind.EXECUTION_FAILED,
        EventKind.STEP_IN_DOUBT,
    }
)

#: The kinds after which each policy calls fsync.
_SYNC_AFTER: Mapping[FsyncPolicy, frozenset[EventKind]] = {
    FsyncPolicy.EVERY_EVENT: frozenset(EventKind),
    FsyncPolicy.AT_BOUNDARIES: _BOUNDARIES,
    FsyncPolicy.NEVER: frozenset(),
}


def check_execution_id(execution_id: object) -> str:
    """Return ``execution_id`` if it is usable as a journal name, else raise InvalidArgument.

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
    """What the kernel needs of one execution's journal."""

    @property
    def execution_id(self) -> str: ...

    @property
    def events(self) -> Sequence[Event]: ...

    @property
    def torn(self) -> TornTail | None: ...

    def append(self, kind: EventKind, payload: Mapping[str, Any]) -> Event: ...

    def close(self) -> None: ...


class JournalStore(Protocol):
    """What the kernel needs of a place that holds journals."""

    def create(self, execution_id: str) -> Journal: ...

    def open(self, execution_id: str) -> Journal: ...

    def exists(self, execution_id: str) -> bool: ...

    def read(self, execution_id: str) -> ParsedJournal: ...


class _Backend(Protocol):
    def write(self, data: bytes) -> None: ...

    def sync(self) -> None: ...

    def release(self) -> None: ...


class LineJournal:
    """One execution's journal over a byte backend (a file or a store's buffer)."""

    def __init__(
        self,
        *,
        execution_id: str,
        backend: _Backend,
        events: Sequence[Event] = (),
        torn: TornTail | None = None,
        fsync: FsyncPolicy = FsyncPolicy.NEVER,
    ) -> None:
        self._execution_id = execution_id
        self._backend = backend
        self._events: list[Event] = list(events)
        self._torn = torn
        self._fsync = fsync
        self._sync_after = _SYNC_AFTER[fsync]
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

    def _write(self, data: bytes) -> None:
        try:
            self._backend.write(data)
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
        self._write(line)
        if kind in self._sync_after:  # spec: journal.fsync-policy
            self._backend.sync()
        event = Event(seq=seq, kind=kind, payload=from_json_text(text))
        self._events.append(event)
        return event

    def write_torn(self, kind: EventKind, payload: Mapping[str, Any], nbytes: int) -> None:
        """Fault injection only: write the first ``nbytes`` of the event's line, as a crash in
        the middle of the write would, and take no more appends."""
        _, _, line = self._encode(kind, payload)
        if not 0 < nbytes < len(line):
            raise InvalidArgument(f"nbytes must be in 1..{len(line) - 1}, got {nbytes}")
        self._write(line[:nbytes])
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

    def write(self, data: bytes) -> None:
        self._store.data[self._id] += data

    def sync(self) -> None:
        pass


class MemoryStore:
    """Journals held in memory as the bytes a file would hold (``data[execution_id]``).

    Tests may edit ``data`` directly (truncate it, flip a byte) to model a torn tail or
    corruption; the reader sees exactly what it would see in a file.
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
        return _checked(parse_journal(bytes(self.data[execution_id]), source=execution_id),
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


def _checked(parsed: ParsedJournal, execution_id: str, source: str) -> ParsedJournal:
    if parsed.execution_id is not None and parsed.execution_id != execution_id:
        raise CorruptJournalError(
            f"{source}, line 1: header names execution {parsed.execution_id!r}",
            file=source, line=1, reason="journal.bad-header",
        )
    return parsed


class _FileBackend:
    def __init__(self, fileobj: Any) -> None:
        self._f = fileobj

    def write(self, data: bytes) -> None:
        self._f.write(data)
        self._f.flush()

    def sync(self) -> None:
        os.fsync(self._f.fileno())

    def release(self) -> None:
        if not self._f.closed:
            self._f.close()  # closing the descriptor drops the flock


class FileStore:
    """Journals as files ``<directory>/<execution_id>.jsonl``."""

    def __init__(self, directory: str | os.PathLike[str], *,
                 fsync: FsyncPolicy = FsyncPolicy.EVERY_EVENT) -> None:
        if not isinstance(fsync, FsyncPolicy):
            raise InvalidArgument(f"fsync must be a FsyncPolicy, got {fsync!r}")
        self.directory = os.fspath(check_path(directory, "directory"))
        if not os.path.isdir(self.directory):
            raise InvalidArgument(f"journal directory {self.directory!r} does not exist")
        self.fsync = fsync

    def path(self, execution_id: str) -> str:
        """The file that holds ``execution_id``'s journal: one JSONL file per execution
        (spec: journal.one-file-per-execution)."""
        return os.path.join(self.directory, check_execution_id(execution_id) + ".jsonl")

    def exists(self, execution_id: str) -> bool:
        return os.path.exists(self.path(execution_id))

    @staticmethod
    def _lock(fileobj: Any, path: str) -> None:
        try:
            fcntl.flock(fileobj.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # spec: journal.single-writer
            fileobj.close()
            raise JournalLockedError(
                f"{path} is held by another writer", file=path
            ) from None

    def create(self, execution_id: str) -> LineJournal:
        path = self.path(execution_id)
        try:
            f = open(path, "xb")  # noqa: SIM115 -- owned by the journal, closed by close()
        except FileExistsError:
            raise JournalExistsError(f"{path} already exists", file=path) from None
        self._lock(f, path)
        backend = _FileBackend(f)
        backend.write(encode_header(execution_id))
        return LineJournal(execution_id=execution_id, backend=backend, fsync=self.fsync)

    def read(self, execution_id: str) -> ParsedJournal:
        """Parse a journal without opening it for writing."""
        path = self.path(execution_id)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            raise JournalNotFoundError(f"{path} does not exist", file=path) from None
        return _checked(parse_journal(data, source=path), execution_id, path)

    def open(self, execution_id: str) -> LineJournal:
        path = self.path(execution_id)
        try:
            f = open(path, "r+b")  # noqa: SIM115 -- owned by the journal, closed by close()
        except FileNotFoundError:
            raise JournalNotFoundError(f"{path} does not exist", file=path) from None
        self._lock(f, path)
        try:
            parsed = _checked(parse_journal(f.read(), source=path), execution_id, path)
        except BaseException:
            f.close()
            raise
        f.truncate(parsed.good_size)  # spec: journal.torn-tail (truncate before appending)
        f.seek(parsed.good_size)
        backend = _FileBackend(f)
        if parsed.execution_id is None:
            backend.write(encode_header(execution_id))
        return LineJournal(execution_id=execution_id, backend=backend, events=parsed.events,
                           torn=parsed.torn, fsync=self.fsync)


def read_journal_file(path: str | os.PathLike[str]) -> ParsedJournal:
    """Parse a journal file by path, without locking it (for inspection tools)."""
    p = os.fspath(check_path(path, "path"))
    try:
        with open(p, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise JournalNotFoundError(f"{p} does not exist", file=p) from None
    return parse_journal(data, source=p)


__all__ += ["read_journal_file"]
