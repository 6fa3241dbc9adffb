"""The SQLite store (extension): every execution's journal in one SQLite database.

Spec: ``spec/journal.md`` section 1.9. Loom ships SQLite and Postgres event stores; this is
loom-ref's, on the standard library's ``sqlite3`` and nothing else.

- ``journal.sqlite-lines``: the database holds each execution's journal as the JSONL lines
  of section 1.1, one row per line (``journals.header``, then ``lines.line`` by ``seq``), and
  reads them back with the journal reader: the same events, the same checksums, the same
  errors for corruption, naming the line of the execution's journal (its header is line 1).
  A database SQLite cannot read (not a database, or damaged) is ``journal.corrupt`` too,
  with reason ``journal.bad-header`` (not a loom-ref store) or ``journal.store-corrupt``;
  any other failure SQLite reports is ``journal.io-failed`` (``journal.write-failed`` for an
  append, as for a file).
- ``journal.sqlite-wal``: the database runs in WAL mode, each event its own transaction.
  ``synchronous`` follows the fsync policy: ``FULL`` for an event the policy syncs (its
  commit syncs the WAL before it returns), ``NORMAL`` for the others (the commit is
  with the operating system, so a process crash loses nothing; a power loss may take back
  commits since the last sync). ``never`` maps to ``NORMAL``, not ``OFF``: SQLite documents
  that ``OFF`` lets a power loss corrupt the database, and every policy promises a journal
  that reads back (section 1.8).
- ``journal.dir-sync``: SQLite syncs the directory of the WAL and rollback journals it
  creates, not of the database file itself, so under a policy that syncs the store syncs
  the database's directory once when it opens, before any event is written.
- ``journal.sqlite-single-writer``: the store holds SQLite's exclusive lock
  (``locking_mode=EXCLUSIVE``) for as long as it is open: a second store on the same
  database is refused with ``journal.locked`` (the operating system lets go of the lock when
  the process dies). Within the store, one writer per execution, as in memory.
- ``journal.torn-tail``: a torn line can only be written by fault injection (a transaction
  is atomic); it is kept as the last row, read as a torn tail, and deleted when a writer
  opens the journal, exactly as a file journal's torn tail is truncated.

As in the store log, an execution's header row is written in the same transaction as its
first event, so an execution that never journaled an event leaves nothing in the database.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Callable
from typing import Any

from loom_ref.errors import InvalidArgument, JournalError
from loom_ref.journal.codec import encode_header
from loom_ref.journal.durability import DEFAULT_POLICY, SYNC_AFTER, FsyncPolicy
from loom_ref.journal.fs import FileSystem, NotRegularFileError, check_fs, file_kind
from loom_ref.journal.oserrors import JournalReplacedError, JournalWriteError, os_error
from loom_ref.journal.reader import CorruptJournalError, ParsedJournal, parse_journal
from loom_ref.journal.shared import SharedStore
from loom_ref.journal.store import (
    Backend,
    JournalClosedError,
    JournalLockedError,
    JournalNotFoundError,
    LineJournal,
    WriterSet,
    check_execution_id,
    check_header,
    check_path,
)

__all__ = ["SQLITE_SCHEMA_NAME", "SqliteStore"]

SQLITE_SCHEMA_NAME = "loom-ref.sqlite"
_VERSION = 1

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS loom_store (name TEXT NOT NULL, version INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS journals (execution_id TEXT PRIMARY KEY, header BLOB NOT NULL)",
    "CREATE TABLE IF NOT EXISTS lines (execution_id TEXT NOT NULL, seq INTEGER NOT NULL, "
    "line BLOB NOT NULL, PRIMARY KEY (execution_id, seq)) WITHOUT ROWID",
)


def _store_error(path: str, exc: sqlite3.Error) -> JournalError:
    """The loom-ref error for what SQLite raised at ``path`` (module rules)."""
    name = getattr(exc, "sqlite_errorname", "")
    if name.startswith("SQLITE_BUSY") or name.startswith("SQLITE_LOCKED"):
        return JournalLockedError(f"{path} is held by another writer", file=path)
    if name.startswith("SQLITE_NOTADB"):
        return CorruptJournalError(f"{path}: not a {SQLITE_SCHEMA_NAME} database ({exc})",
                                   file=path, reason="journal.bad-header")
    if name.startswith("SQLITE_CORRUPT"):
        return CorruptJournalError(f"{path}: the database is damaged ({exc})", file=path,
                                   reason="journal.store-corrupt")
    return JournalError(f"{path}: SQLite failed: {exc}", code="journal.io-failed", file=path,
                        sqlite=name or None)


class SqliteStore(SharedStore):
    """Every execution's journal in one SQLite database (extension; module rules).

    The store opens (or creates) the database, takes its exclusive lock and checks what it
    holds; :meth:`close` lets go. ``fs`` is only used to sync the database's directory;
    ``trace``, if given, is called with each SQL statement the store runs (the
    ``journal.sqlite-trace`` function's view of its commits). (spec: journal.sqlite-lines)
    """

    def __init__(self, path: str | os.PathLike[str], *,
                 fsync: FsyncPolicy = DEFAULT_POLICY,
                 fs: FileSystem | None = None,
                 trace: Callable[[str], object] | None = None) -> None:
        if not isinstance(fsync, FsyncPolicy):
            raise InvalidArgument(f"fsync must be a FsyncPolicy, got {fsync!r}")
        self.fs: FileSystem = check_fs(fs)
        self.path = os.fspath(check_path(path, "path"))
        directory = os.path.dirname(os.path.abspath(self.path))
        if not self.fs.is_dir(directory):
            raise InvalidArgument(f"the directory of SQLite store {self.path!r} does not exist")
        if self.fs.is_dir(self.path):
            raise InvalidArgument(f"SQLite store {self.path!r} is a directory")
        self.fsync = fsync
        self._syncs = bool(SYNC_AFTER[fsync])
        self._file = _regular_or_absent(self.path)  # spec: journal.regular-files
        for sibling in ("-wal", "-journal", "-shm"):  # the files SQLite opens beside it
            _regular_or_absent(self.path + sibling)
        # autocommit (each statement its own transaction unless BEGIN says otherwise);
        # timeout 0: a database held by another store is refused at once, never waited for
        try:
            conn = sqlite3.connect(self.path, isolation_level=None, timeout=0.0)
        except sqlite3.Error as exc:  # spec: journal.os-errors
            raise _store_error(self.path, exc) from None
        conn.set_trace_callback(trace)  # an instrument: every statement (journal.sqlite-trace)
        try:
            self._open_database(conn, directory)
        except sqlite3.Error as exc:
            conn.close()
            raise _store_error(self.path, exc) from None
        except OSError as exc:
            conn.close()
            raise os_error(exc, directory, "sync the directory of") from None
        except BaseException:
            conn.close()  # spec: journal.os-errors -- nothing left open on any path
            raise
        self._next: dict[str, int] = {}  # next row seq of each execution with a writer
        self._unwritten: set[str] = set()  # created, header not yet in the database
        self._writers = WriterSet()
        self._closed = False

    def _open_database(self, conn: sqlite3.Connection, directory: str) -> None:
        """Check what SQLite opened, set the store's modes, make or check its tables and read
        its ids (``journal.sqlite-lines``, ``journal.sqlite-wal``)."""
        # spec: journal.regular-files -- SQLite opened the path itself: it must still be the
        # regular file checked above (a link put there since is refused before any write)
        self._file = _regular_or_absent(self.path, expected=self._file)
        self._full = self._syncs  # the store's own tables are made durable if events are
        conn.execute(f"PRAGMA synchronous={'FULL' if self._full else 'NORMAL'}")
        conn.execute("PRAGMA locking_mode=EXCLUSIVE")  # spec: journal.sqlite-single-writer
        mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]  # journal.sqlite-wal
        if mode != "wal":
            raise JournalError(f"{self.path} cannot run in WAL mode (SQLite chose {mode!r})",
                               code="journal.io-failed", file=self.path)
        conn.execute("BEGIN IMMEDIATE")  # takes the write lock; EXCLUSIVE keeps it
        for statement in _SCHEMA:
            conn.execute(statement)
        found = conn.execute("SELECT name, version FROM loom_store").fetchall()
        if not found:
            conn.execute("INSERT INTO loom_store VALUES (?, ?)", (SQLITE_SCHEMA_NAME, _VERSION))
        elif found != [(SQLITE_SCHEMA_NAME, _VERSION)]:
            raise CorruptJournalError(
                f"{self.path}: not a {SQLITE_SCHEMA_NAME} v{_VERSION} database ({found!r})",
                file=self.path, reason="journal.bad-header")
        conn.execute("COMMIT")
        self._ids: dict[str, None] = dict.fromkeys(
            row[0] for row in conn.execute("SELECT execution_id FROM journals ORDER BY rowid"))
        self._conn = conn
        self._set_full(False)
        self._file = _regular_or_absent(self.path, expected=self._file)
        if self._syncs:
            self.fs.sync_dir(directory)  # spec: journal.dir-sync (SQLite does not, for the db)

    def _check_named(self) -> None:
        """``journal.replaced`` (and the store closed) if the database's path no longer names
        the file the store opened (spec: journal.held-file); SQLite itself writes on to an
        unlinked database in WAL mode without a word."""
        try:
            now = _identity(os.lstat(self.path))
        except FileNotFoundError:
            now = None
        except OSError as exc:
            self.close()
            raise os_error(exc, self.path, "sync") from None
        if now != self._file:
            self.close()
            raise JournalReplacedError(
                f"{self.path} was unlinked or replaced while this store held it: what it "
                f"wrote since is not in the database at that path", file=self.path)

    # -- the database -----------------------------------------------------------------------
    def _db(self) -> sqlite3.Connection:
        if self._closed:
            raise JournalClosedError(f"SQLite store {self.path} is closed")
        return self._conn

    def _set_full(self, full: bool) -> None:
        if full != self._full:
            self._conn.execute(f"PRAGMA synchronous={'FULL' if full else 'NORMAL'}")
            self._full = full

    def _append(self, execution_id: str, data: bytes, *, sync: bool) -> None:
        """Commit one line (``journal.write-before-act``), synchronously if ``sync``
        (``journal.sqlite-wal``)."""
        db = self._db()
        seq = self._next[execution_id]
        if sync:
            self._check_named()  # spec: journal.held-file
        try:
            self._set_full(sync)
            if execution_id in self._unwritten:  # the header goes with the first event
                db.execute("BEGIN")
                db.execute("INSERT INTO journals VALUES (?, ?)",
                           (execution_id, encode_header(execution_id)))
                db.execute("INSERT INTO lines VALUES (?, ?, ?)", (execution_id, seq, data))
                db.execute("COMMIT")
                self._unwritten.discard(execution_id)
            else:
                db.execute("INSERT INTO lines VALUES (?, ?, ?)", (execution_id, seq, data))
        except sqlite3.Error as exc:  # spec: journal.sqlite-lines -- journal.write-failed
            try:
                if db.in_transaction:
                    db.execute("ROLLBACK")
            except sqlite3.Error:
                self.close()  # a database that cannot roll back takes no more writes
            raise JournalWriteError(f"{self.path}: SQLite failed to commit a line of "
                                    f"{execution_id!r}: {exc}", file=self.path,
                                    sqlite=getattr(exc, "sqlite_errorname", None)) from None
        self._next[execution_id] = seq + 1

    def close(self) -> None:
        """Release the database's lock. Closing twice is harmless."""
        if not self._closed:
            self._closed = True
            self._conn.close()

    # -- the SharedStore hooks ---------------------------------------------------------------
    def _known(self) -> dict[str, None]:
        return self._ids

    def _check_open(self) -> None:
        self._db()

    def _register(self, execution_id: str) -> None:
        self._ids[execution_id] = None
        self._unwritten.add(execution_id)
        self._next[execution_id] = 1

    def _journal(self, execution_id: str, backend: Backend) -> LineJournal:
        return LineJournal(execution_id=execution_id, backend=backend, fsync=self.fsync)

    # -- the JournalStore protocol (create, exists: SharedStore) ------------------------------
    def _source(self, execution_id: str) -> str:
        return f"{self.path} [{execution_id}]"

    def read(self, execution_id: str) -> ParsedJournal:
        """One execution's journal, without opening it for writing (``journal.sqlite-lines``)."""
        check_execution_id(execution_id)
        if execution_id not in self._ids:
            raise JournalNotFoundError(f"no journal for {execution_id!r} in {self.path}")
        db = self._db()
        try:
            header = db.execute("SELECT header FROM journals WHERE execution_id = ?",
                                (execution_id,)).fetchone()
            rows = db.execute("SELECT line FROM lines WHERE execution_id = ? ORDER BY seq",
                              (execution_id,)).fetchall()
        except sqlite3.Error as exc:
            raise _store_error(self.path, exc) from exc
        data = (encode_header(execution_id) if header is None else _blob(header[0])) + b"".join(
            _blob(row[0]) for row in rows)
        source = self._source(execution_id)
        return check_header(parse_journal(data, source=source), execution_id, source)

    def open(self, execution_id: str) -> LineJournal:
        parsed = self.read(execution_id)
        backend = self._claim(execution_id)
        rows = len(parsed.events)
        if parsed.torn is not None:  # spec: journal.torn-tail (deleted before appending)
            try:
                self._db().execute("DELETE FROM lines WHERE execution_id = ? AND seq > ?",
                                   (execution_id, rows))
            except sqlite3.Error as exc:
                backend.release()
                raise _store_error(self.path, exc) from exc
        self._next[execution_id] = rows + 1
        return LineJournal(execution_id=execution_id, backend=backend, events=parsed.events,
                           torn=parsed.torn, fsync=self.fsync)


def _identity(st: os.stat_result) -> tuple[int, int]:
    return (st.st_dev, st.st_ino)


def _regular_or_absent(path: str, *,
                       expected: tuple[int, int] | None = None) -> tuple[int, int] | None:
    """The identity of the regular file at ``path``, None if nothing is there; a link or any
    other kind of file is ``journal.not-a-file`` (spec: journal.regular-files). With
    ``expected``, a file that is not that one (put there since it was checked) is refused
    too."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise os_error(exc, path, "open") from None
    if not stat.S_ISREG(st.st_mode):
        raise os_error(NotRegularFileError(path, file_kind(st.st_mode)), path, "open")
    if expected is not None and _identity(st) != expected:
        raise os_error(NotRegularFileError(path, "file put in place of the one checked"),
                       path, "open")
    return _identity(st)


def _blob(value: Any) -> bytes:
    """A row's line as bytes (a hand-edited database may hold text)."""
    return value if isinstance(value, bytes) else str(value).encode("utf-8")
