"""The store log (extension): every execution's journal interleaved in one append-only file.

Spec: ``spec/journal.md`` section 1.7. The per-execution file of :class:`~loom_ref.journal.
store.FileStore` is the default and the interchange format; a store log is an opt-in layout
for throughput, the choice the durable-execution peers make (one log per partition, not one
file per workflow), because creating a file costs far more than appending a line to an open
one on most disks.

- ``journal.log-format``: the first line of a store log MUST be ``{"schema":"loom-ref.log",
  "version":1,"crc":...}``. Every later line is either an execution's journal header, exactly
  as ``journal.header`` gives it (written by ``create``), or an event line with exactly the
  members ``executionId``, ``seq``, ``kind``, ``payload`` and, last, ``crc``. Every line
  carries its CRC by the ``journal.checksum`` rule, so the execution id is covered too.
- ``journal.log-executions``: an execution's journal is its header line followed by its event
  lines in log order; every per-execution rule (header, sequence, kinds, payloads) applies to
  that subsequence. A second header for one execution, or an event line before its
  execution's header, is a corrupt log (reason ``journal.bad-header``). Errors name the
  1-based line of the log file.
- ``journal.log-torn-tail``: only the log's last line can be torn. It is reported (log line
  and size, and the execution it names if its bytes get as far as naming one). Torn bytes
  that name an execution are truncated when a writer opens that execution or before the
  store's first append, whichever comes first (a process that only reads leaves them for
  the next writer, as a file journal's torn tail stays until a writer opens it); any other
  torn bytes when the store opens the log. The execution it names reports the same
  :class:`TornTail` when it is next opened, so the runtime warns as for a file journal.
- ``journal.log-single-writer``: the store holds an advisory ``flock`` on the log for as long
  as it is open: a second store on the same file is refused with ``journal.locked``. Within
  the store, one writer per execution, as in memory.
- ``journal.dir-sync``: the first sync of a store also syncs (``fsync``) the log's directory,
  so the log's name survives a power loss as its bytes do (whoever created the file: the
  process that did may have died before syncing it).
- ``journal.regular-files``, ``journal.os-errors``, ``journal.held-file``: the log is opened
  only if it is a regular file, never through a link; every refusal of the operating system
  is a stable code naming the log, after which the store is closed; before each sync the
  store checks that the log's path still names the file it holds.

Like the file store, it reaches the disk only through its
:class:`~loom_ref.journal.fs.FileSystem` (``fs=``), which is how the power-loss simulation
runs it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, cast

import attrs

from loom_ref.errors import InvalidArgument, JournalError
from loom_ref.journal.codec import (
    SCHEMA_NAME,
    SCHEMA_VERSION,
    decode_line,
    encode_header,
    is_schema_version,
    json_string,
    may_escape_surrogate,
    seal_line,
    to_json_text,
)
from loom_ref.journal.durability import DEFAULT_POLICY, FsyncPolicy
from loom_ref.journal.events import Event, EventKind
from loom_ref.journal.fs import FileHandle, FileSystem, check_fs
from loom_ref.journal.ids import is_execution_id
from loom_ref.journal.oserrors import JournalReplacedError, os_error
from loom_ref.journal.oserrors import io_call as _io
from loom_ref.journal.reader import (
    CorruptJournalError,
    ParsedJournal,
    TornTail,
    bad_id_message,
    check_bytes,
    event_from_line,
)
from loom_ref.journal.shared import SharedBackend, SharedStore
from loom_ref.journal.store import (
    Backend,
    JournalLockedError,
    JournalNotFoundError,
    LineJournal,
    WriterSet,
    check_execution_id,
    check_path,
    read_named_file,
)

__all__ = ["LOG_SCHEMA_NAME", "LogStore", "ParsedLog", "encode_log_header", "encode_log_line",
           "log_event_line", "parse_log", "read_log_file"]

LOG_SCHEMA_NAME = "loom-ref.log"
_EVENT_PREFIX = b'{"executionId":"'
_LOG_PREFIX = b'{"schema":"loom-ref.log",'  # how loom-ref writes it; any other is not sniffed


def encode_log_header() -> bytes:
    """The bytes of a store log's first line, newline included (``journal.log-format``)."""
    return seal_line(to_json_text({"schema": LOG_SCHEMA_NAME, "version": SCHEMA_VERSION}))


def encode_log_line(execution_id: str, seq: int, kind: str, payload: Any) -> bytes:
    """The bytes of one event line of a store log, newline included (``journal.log-format``)."""
    return log_event_line(execution_id, seq, kind, to_json_text(payload))


def log_event_line(execution_id: str, seq: int, kind: str, payload_text: str) -> bytes:
    """:func:`encode_log_line` for a payload already encoded: ``{"executionId":...`` written
    around the payload's text, as :func:`~loom_ref.journal.codec.event_line` does."""
    return seal_line(f'{{"executionId":{json_string(execution_id)},"seq":{seq:d},'
                     f'"kind":{json_string(kind)},"payload":{payload_text}}}')


@attrs.frozen(kw_only=True)
class ParsedLog:
    """What :func:`parse_log` found: each execution's journal, in the order of their header
    lines (each with ``good_size`` 0: byte sizes are the log's, not an execution's); the torn
    tail if any; the execution the torn bytes name (``torn_execution``, None if they name
    none); and ``good_size``, the byte length of the log up to its last complete line.
    (spec: journal.log-executions)"""

    journals: Mapping[str, ParsedJournal]
    torn: TornTail | None
    torn_execution: str | None
    good_size: int


def _named_in(tail: bytes) -> str | None:
    """The execution id a torn event line names, if its bytes get that far."""
    if not tail.startswith(_EVENT_PREFIX):
        return None
    end = tail.find(b'"', len(_EVENT_PREFIX))
    if end < 0:
        return None
    named = tail[len(_EVENT_PREFIX):end].decode("utf-8", "replace")  # U+FFFD is in no id
    return named if is_execution_id(named) else None


def parse_log(data: bytes, *, source: str = "<memory>") -> ParsedLog:
    """Parse a whole store log. An empty input holds no executions (spec: journal.log-format)."""
    check_bytes(data)
    last_nl = data.rfind(b"\n")
    good_size = last_nl + 1
    lines = data[:good_size].split(b"\n")[:-1] if good_size else []
    torn = torn_execution = None
    if good_size < len(data):  # spec: journal.log-torn-tail
        torn = TornTail(line=len(lines) + 1, size=len(data) - good_size)
        torn_execution = _named_in(data[good_size:])

    def corrupt(lineno: int, reason: str, message: str) -> CorruptJournalError:
        # spec: journal.corrupt-line (the line of the log file)
        return CorruptJournalError(
            f"{source}, line {lineno}: {message}", file=source, line=lineno, reason=reason
        )

    events: dict[str, list[Event]] = {}
    escapes = may_escape_surrogate(data)  # one search, not one per line
    if lines:
        try:
            header = decode_line(lines[0])
        except JournalError as exc:
            raise corrupt(1, exc.code, exc.message) from None
        if header.get("schema") != LOG_SCHEMA_NAME or not is_schema_version(header.get("version")):
            raise corrupt(1, "journal.bad-header",
                          f"not a {LOG_SCHEMA_NAME} v{SCHEMA_VERSION} header")
    for lineno, line in enumerate(lines[1:], start=2):
        try:
            obj = decode_line(line, surrogate_escapes=escapes)
        except JournalError as exc:
            raise corrupt(lineno, exc.code, exc.message) from None
        if "schema" in obj:  # a header line: an execution's journal header (journal.header)
            eid = obj.get("executionId")
            if obj.get("schema") != SCHEMA_NAME or not is_schema_version(obj.get("version")) or (
                not isinstance(eid, str)
            ):
                raise corrupt(lineno, "journal.bad-header",
                              f"not a {SCHEMA_NAME} v{SCHEMA_VERSION} header")
            if not is_execution_id(eid):  # spec: journal.header, journal.execution-ids
                raise corrupt(lineno, "journal.bad-header", bad_id_message(eid))
            if eid in events:  # spec: journal.log-executions
                raise corrupt(lineno, "journal.bad-header", f"a second header for {eid!r}")
            events[eid] = []
            continue
        eid = obj.pop("executionId", None)
        if not isinstance(eid, str):  # spec: journal.log-format
            raise corrupt(lineno, "journal.malformed-line", "an event line without executionId")
        if eid not in events:  # spec: journal.log-executions
            raise corrupt(lineno, "journal.bad-header",
                          f"an event of execution {eid!r} before its header")
        mine = events[eid]
        try:
            mine.append(event_from_line(obj, len(mine) + 1, eid))
        except JournalError as exc:
            raise corrupt(lineno, exc.code, f"{exc.message} (execution {eid!r})") from None
    journals = {
        eid: ParsedJournal(execution_id=eid, events=evs, good_size=0,
                           torn=torn if eid == torn_execution else None)
        for eid, evs in events.items()
    }
    return ParsedLog(journals=journals, torn=torn, torn_execution=torn_execution,
                     good_size=good_size)


def read_log_file(path: str | os.PathLike[str]) -> ParsedLog | None:
    """Parse a store log by path without locking it (for inspection tools); None if the file
    is not a store log (its first line is not a store log header). The path the caller
    names is followed if it is a link; what it names must be a regular file
    (``journal.regular-files``), read without waiting on a FIFO."""
    p = os.fspath(check_path(path, "path"))
    data = read_named_file(p)
    if not data.startswith(_LOG_PREFIX):
        return None
    return parse_log(data, source=p)


class _LogJournal(LineJournal):
    """One execution's journal inside a store log: its lines carry the execution id."""

    def _line(self, seq: int, kind: EventKind, payload_text: str) -> bytes:
        return log_event_line(self.execution_id, seq, kind.value, payload_text)

    def check_writable(self) -> None:
        """Closed too when the store's log is (a torn or failed write closed it)."""
        super().check_writable()
        cast(SharedBackend, self._backend).check_open()  # a LogStore's journals have no other


class LogStore(SharedStore):
    """Every execution's journal in one append-only log file (extension; ``spec/journal.md``
    section 1.7).

    The store opens (or creates) the log, takes its lock, reads and checks it whole, and
    truncates a torn tail (one that names an execution only once it writes, module rules);
    :meth:`close` lets go. Journals it hands out write through its one
    open file, unbuffered, so each line reaches the operating system in one ``write``. It keeps
    each execution's lines in memory (bytes, as :class:`MemoryStore` does) and parses them when
    the execution is opened or read, as a file store parses a file.

    ``create`` writes nothing: an execution's header reaches the log in the same write as its
    first event, so an execution that never journaled an event leaves no trace in the log.
    (spec: journal.log-format)
    """

    def __init__(self, path: str | os.PathLike[str], *,
                 fsync: FsyncPolicy = DEFAULT_POLICY,
                 fs: FileSystem | None = None) -> None:
        if not isinstance(fsync, FsyncPolicy):
            raise InvalidArgument(f"fsync must be a FsyncPolicy, got {fsync!r}")
        self.fs: FileSystem = check_fs(fs)
        self.path = os.fspath(check_path(path, "path"))
        if not self.fs.is_dir(os.path.dirname(os.path.abspath(self.path))):
            raise InvalidArgument(f"the directory of store log {self.path!r} does not exist")
        if self.fs.is_dir(self.path):
            raise InvalidArgument(f"store log {self.path!r} is a directory")
        self.fsync = fsync
        path = self.path
        try:
            f = self.fs.open(path, create=True)
        except OSError as exc:  # spec: journal.regular-files, journal.os-errors
            raise os_error(exc, path, "open") from None
        try:
            if not _io(f.lock, path, "lock"):  # spec: journal.log-single-writer
                raise JournalLockedError(f"{path} is held by another writer", file=path)
            data = _io(f.read_all, path, "read")
            parsed = parse_log(data, source=path)
            # spec: journal.log-torn-tail -- torn bytes that name an execution stay until a
            # writer opens it or the store appends (a reading process must not take them
            # from the next writer, journal.stores-agree); any others go now
            keep = parsed.torn_execution is not None and parsed.good_size > 0
            if parsed.good_size < len(data) and not keep:
                _io(lambda: f.truncate(parsed.good_size), path, "truncate")
            if parsed.good_size == 0:
                _io(lambda: f.append(encode_log_header()), path, "write the header of")
        except BaseException:
            f.close()  # spec: journal.os-errors -- no descriptor, no lock left behind
            raise
        self._dir_synced = False  # spec: journal.dir-sync -- once, at the store's first sync
        self._f: FileHandle = f
        self.torn = parsed.torn
        self.torn_execution = parsed.torn_execution
        self._torn_at: int | None = parsed.good_size if keep else None  # not yet truncated
        # each execution's event lines (re-encoded from the parsed events)
        self._lines: dict[str, bytearray] = {
            eid: bytearray(b"".join(encode_log_line(eid, e.seq, e.kind.value, e.payload)
                                    for e in j.events))
            for eid, j in parsed.journals.items()}
        self._unwritten: set[str] = set()  # created, header not yet in the log
        self._writers = WriterSet()

    # -- the file ------------------------------------------------------------------------
    def _file(self) -> FileHandle:
        if self._f.closed:
            raise JournalError(f"store log {self.path} is closed", code="journal.closed")
        return self._f

    def _append(self, execution_id: str, line: bytes, *, sync: bool) -> None:
        """Write one line of ``execution_id`` (``journal.write-before-act``: unbuffered, it is
        with the operating system when this returns), and with ``sync`` make the log durable
        (``journal.fsync-policy``, ``journal.dir-sync``)."""
        f = self._file()
        data = line
        if execution_id in self._unwritten:  # the header goes with the first event
            data = encode_header(execution_id) + line
        doing = "truncate"
        try:
            self._drop_torn()
            doing = "append to"
            f.append(data)
            if sync:
                doing = "sync"
                if not f.still_named():  # spec: journal.held-file
                    self.close()
                    raise JournalReplacedError(
                        f"{self.path} was unlinked or replaced while this store held it: what "
                        f"it wrote since is not in the log at that path", file=self.path)
                f.sync()
                if not self._dir_synced:
                    doing = "sync the directory of"
                    self.fs.sync_dir(os.path.dirname(os.path.abspath(self.path)))
                    self._dir_synced = True
        except OSError as exc:
            self.close()  # the log may end in a partial line: nothing may follow it
            raise os_error(exc, self.path, doing) from None
        self._unwritten.discard(execution_id)
        self._lines[execution_id] += line
        if not line.endswith(b"\n"):  # a torn write (fault injection): nothing may follow it
            self.close()

    def _drop_torn(self) -> None:
        """Truncate the torn bytes the store kept (``journal.log-torn-tail``): before its
        first append, or when a writer opens the execution they name. Raises OSError."""
        if self._torn_at is not None:
            self._f.truncate(self._torn_at)
            self._torn_at = None

    def close(self) -> None:
        """Release the log's lock. Closing twice is harmless."""
        self._f.close()  # closing the descriptor drops the flock

    # -- the SharedStore hooks ---------------------------------------------------------------
    def _known(self) -> dict[str, bytearray]:
        return self._lines

    def _check_open(self) -> None:
        self._file()

    def _register(self, execution_id: str) -> None:
        self._lines[execution_id] = bytearray()
        self._unwritten.add(execution_id)

    def _journal(self, execution_id: str, backend: Backend) -> LineJournal:
        return _LogJournal(execution_id=execution_id, backend=backend, fsync=self.fsync)

    # -- the JournalStore protocol (create, exists: SharedStore) ------------------------------
    def read(self, execution_id: str) -> ParsedJournal:
        """One execution's journal as the log holds it, without opening it for writing."""
        check_execution_id(execution_id)
        if execution_id not in self._lines:
            raise JournalNotFoundError(f"no journal for {execution_id!r} in {self.path}")
        own = encode_log_header() + encode_header(execution_id) + self._lines[execution_id]
        parsed = parse_log(bytes(own), source=self.path).journals[execution_id]
        if parsed.torn is None and execution_id == self.torn_execution:
            parsed = attrs.evolve(parsed, torn=self.torn)
        return parsed

    def open(self, execution_id: str) -> LineJournal:
        parsed = self.read(execution_id)
        backend = self._claim(execution_id)
        if execution_id == self.torn_execution:  # reported once, to the first writer, which
            try:  # finds the torn bytes gone (spec: journal.log-torn-tail)
                self._drop_torn()
            except OSError as exc:
                backend.release()
                self.close()  # spec: journal.os-errors -- as a failed append closes it
                raise os_error(exc, self.path, "truncate") from None
            self.torn_execution = None
        return _LogJournal(execution_id=execution_id, backend=backend, events=parsed.events,
                           torn=parsed.torn, fsync=self.fsync)

