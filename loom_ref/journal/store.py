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

import errno
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from loom_ref.errors import InvalidArgument, JournalError
from loom_ref.journal.codec import (
    check_line_text,
    encode_header,
    event_line,
    from_written_text,
    to_json_text,
)
from loom_ref.journal.durability import SYNC_AFTER, FsyncPolicy
from loom_ref.journal.events import Event, EventKind, PayloadError, check_payload
from loom_ref.journal.fs import read_regular
from loom_ref.journal.ids import case_key, check_execution_id
from loom_ref.journal.oserrors import JournalWriteError, os_error
from loom_ref.journal.reader import CorruptJournalError, ParsedJournal, TornTail, parse_journal

__all__ = [
    "Backend",
    "CaseIndex",
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

    def _encode(self, kind: EventKind, payload: Mapping[str, Any]) -> tuple[int, Any, bytes]:
        """The event's ``seq``, its payload as a reader will read it back, and its line; or
        PayloadError for a payload that is not made of JSON values (``journal.json-values``),
        whose line would nest too deep (``journal.nesting-limit``) or repeat a member name
        (``journal.duplicate-names``: two keys such as ``1`` and ``"1"`` that JSON spells
        alike)."""
        self.check_writable()
        if type(kind) is not EventKind:
            raise InvalidArgument(f"kind must be an EventKind, got {kind!r}")
        check_payload(kind, payload)  # spec: journal.payload-shape
        if kind is EventKind.EXECUTION_STARTED and payload["executionId"] != self._execution_id:
            # spec: journal.started-names-header -- a writer never writes a line its readers
            # refuse (a store log would then refuse to open at all)
            raise PayloadError(
                f"EXECUTION_STARTED names execution {payload['executionId']!r}, not this "
                f"journal's {self._execution_id!r}", kind=kind.value)
        seq = len(self._events) + 1
        try:
            text = to_json_text(payload)
            line = self._line(seq, kind, text)  # UTF-8: a lone surrogate fails here
            check_line_text(line)  # spec: journal.nesting-limit, journal.json-values
            value = from_written_text(text)  # spec: journal.duplicate-names
        except (TypeError, ValueError) as exc:  # spec: journal.json-values
            raise PayloadError(
                f"{kind.value} payload is not made of JSON values: {exc}", kind=kind.value
            ) from None
        return seq, value, line

    def check_writable(self) -> None:
        """Raise :class:`JournalClosedError` when this journal takes no more appends: it was
        closed, a write of it failed, or (a store log) the store's one file is closed. An
        append checks this before it looks at the event, so a closed journal refuses any
        event, well-formed or not (``journal.store-on-disk``'s order of refusals)."""
        if not self._open:
            raise JournalClosedError(f"journal {self._execution_id!r} is closed")

    def _line(self, seq: int, kind: EventKind, payload_text: str) -> bytes:
        """The bytes of one event line (``journal.line-shape``); a store log overrides it."""
        return event_line(seq, kind.value, payload_text)

    def _write(self, data: bytes, *, sync: bool) -> None:
        """Hand ``data`` to the backend; if it fails, the journal is closed and its writer's
        place let go before the error goes on (``journal.os-errors``: no lock is left behind
        by a failed write, and nothing is appended after it)."""
        try:
            self._backend.write(data, sync=sync)
        except OSError as exc:  # a backend that does not name its file itself
            self._break()
            name = errno.errorcode.get(exc.errno) if isinstance(exc.errno, int) else None
            raise JournalWriteError(
                f"writing journal {self._execution_id!r} failed: {exc.strerror or exc}",
                execution_id=self._execution_id, errno=name) from exc
        except JournalError:
            self._break()
            raise

    def _break(self) -> None:
        self._open = False
        try:
            self._backend.release()
        except OSError:  # closing a descriptor that failed: nothing more can be done
            pass

    def append(self, kind: EventKind, payload: Mapping[str, Any]) -> Event:
        """Write and flush one event (``journal.write-before-act``) and return it as a reader
        will read it back: its payload is decoded from the text just written, so what the
        kernel hands on is the journaled JSON value, never the caller's object."""
        seq, value, line = self._encode(kind, payload)
        self._write(line, sync=kind in self._sync_after)  # spec: journal.fsync-policy
        event = Event(seq=seq, kind=kind, payload=value)
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
        self._cases = CaseIndex()

    def exists(self, execution_id: str) -> bool:
        return check_execution_id(execution_id) in self.data

    def _claim(self, execution_id: str) -> _MemoryBackend:
        self._writers.claim(execution_id)
        return _MemoryBackend(self, execution_id)

    def create(self, execution_id: str) -> LineJournal:
        check_execution_id(execution_id)
        if execution_id in self.data:
            raise JournalExistsError(f"journal {execution_id!r} already exists")
        if len(self._cases) != len(self.data):  # a test added a journal by hand
            self._cases = CaseIndex(self.data)
        self._cases.refuse_twin(execution_id)
        self._cases.add(execution_id)
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
    """``parsed``, unless its header names another execution (``journal.header``); one whose
    id differs only in case is ``argument.execution-id`` (``journal.execution-ids``: what a
    case-insensitive file system hands out for the other id)."""
    found = parsed.execution_id
    if found is not None and found != execution_id and case_key(found) == case_key(
            execution_id):
        raise InvalidArgument(
            f"execution id {execution_id!r} differs only in case from the execution "
            f"{found!r} whose journal {source} is", code="argument.execution-id",
            execution_id=execution_id)
    if parsed.execution_id is not None and parsed.execution_id != execution_id:
        raise CorruptJournalError(
            f"{source}, line 1: header names execution {parsed.execution_id!r}",
            file=source, line=1, reason="journal.bad-header",
        )
    return parsed


class CaseIndex:
    """The ids a store holds by :func:`~loom_ref.journal.ids.case_key`, kept as ids are
    added (``journal.execution-ids``): a store never holds two ids that differ only in case,
    which a case-insensitive file system would give one file."""

    def __init__(self, ids: Iterable[str] = ()) -> None:
        self._ids: dict[str, str] = {case_key(i): i for i in ids}

    def __len__(self) -> int:
        return len(self._ids)

    def add(self, execution_id: str) -> None:
        self._ids.setdefault(case_key(execution_id), execution_id)

    def refuse_twin(self, execution_id: str) -> None:
        """``argument.execution-id`` if the store holds an id that differs from
        ``execution_id`` only in case."""
        other = self._ids.get(case_key(execution_id))
        if other is not None and other != execution_id:
            raise InvalidArgument(
                f"execution id {execution_id!r} differs only in case from the execution "
                f"{other!r} this store holds", code="argument.execution-id",
                execution_id=execution_id)


def read_named_file(path: str) -> bytes:
    """The bytes of the file a caller names by ``path``, for inspection tools: a link at the
    path is followed (the caller named it), but what it names must be a regular file, read
    without waiting on a FIFO (``journal.regular-files``); every refusal is a stable code
    naming the file (``journal.os-errors``)."""
    try:
        return read_regular(path, follow=True)
    except FileNotFoundError:
        raise JournalNotFoundError(f"{path} does not exist", file=path) from None
    except OSError as exc:
        raise os_error(exc, path, "read") from None


def read_journal_file(path: str | os.PathLike[str]) -> ParsedJournal:
    """Parse a journal file by path, without locking it (for inspection tools; a link at the
    path is followed, see :func:`read_named_file`).
    (spec: journal.torn-tail)
    """
    p = os.fspath(check_path(path, "path"))
    return parse_journal(read_named_file(p), source=p)


__all__ += ["read_journal_file"]
