"""The file store: one JSONL journal file per execution, in one directory.

Spec: ``spec/journal.md`` sections 1.1, 1.4 and 1.8.

- ``journal.one-file-per-execution``: execution ``e`` lives in ``<directory>/e.jsonl``.
- ``journal.fsync-policy``: an append whose kind the policy syncs calls ``fsync`` on the
  file before it returns.
- ``journal.dir-sync``: the first sync of a journal by a store also syncs the
  directory, so the file's name survives a power loss as its bytes do. Not only for a file
  the store created: a writer that opens a journal cannot know whether the process that
  created it lived to sync its name (the simulation's ``kill, then recover, then power
  loss`` case), so each store syncs the directory once for every execution it writes. Under
  ``never`` nothing is synced, the directory included.
- ``journal.single-writer``: the writer holds an advisory ``flock`` on the file; the
  operating system drops it when the process dies.
- ``journal.torn-tail``: a writer truncates a torn tail before its first append.

The store reaches the disk only through its :class:`~loom_ref.journal.fs.FileSystem`
(``fs=``, the real one by default), which is how the power-loss simulation runs this code.
"""

from __future__ import annotations

import os

from loom_ref.errors import InvalidArgument
from loom_ref.journal.codec import encode_header
from loom_ref.journal.durability import DEFAULT_POLICY, FsyncPolicy
from loom_ref.journal.fs import FileHandle, FileSystem, check_fs
from loom_ref.journal.reader import ParsedJournal, parse_journal
from loom_ref.journal.store import (
    JournalExistsError,
    JournalLockedError,
    JournalNotFoundError,
    LineJournal,
    check_execution_id,
    check_header,
    check_path,
)

__all__ = ["FileStore"]


class _FileBackend:
    def __init__(self, handle: FileHandle, store: FileStore, execution_id: str) -> None:
        self._f = handle
        self._store = store
        self._id = execution_id

    def write(self, data: bytes, *, sync: bool) -> None:
        self._f.append(data)
        if sync:  # spec: journal.fsync-policy
            self._f.sync()
            self._store._sync_entry(self._id)  # spec: journal.dir-sync

    def release(self) -> None:
        self._f.close()  # closing the descriptor drops the flock


class FileStore:
    """Journals as files ``<directory>/<execution_id>.jsonl`` (module rules).
    (spec: journal.one-file-per-execution)
    """

    def __init__(self, directory: str | os.PathLike[str], *,
                 fsync: FsyncPolicy = DEFAULT_POLICY,
                 fs: FileSystem | None = None) -> None:
        if not isinstance(fsync, FsyncPolicy):
            raise InvalidArgument(f"fsync must be a FsyncPolicy, got {fsync!r}")
        self.fs: FileSystem = check_fs(fs)
        self.directory = os.fspath(check_path(directory, "directory"))
        if not self.fs.is_dir(self.directory):
            raise InvalidArgument(f"journal directory {self.directory!r} does not exist")
        self.fsync = fsync
        self._durable_entries: set[str] = set()  # names this store has synced the directory for

    def path(self, execution_id: str) -> str:
        """The file that holds ``execution_id``'s journal: one JSONL file per execution
        (spec: journal.one-file-per-execution)."""
        return os.path.join(self.directory, check_execution_id(execution_id) + ".jsonl")

    def exists(self, execution_id: str) -> bool:
        return self.fs.exists(self.path(execution_id))

    def _sync_entry(self, execution_id: str) -> None:
        """Make ``execution_id``'s directory entry durable, once per store (module rules)."""
        if execution_id not in self._durable_entries:
            self._sync_directory()
            self._durable_entries.add(execution_id)

    def _sync_directory(self) -> None:
        self.fs.sync_dir(self.directory)  # spec: journal.dir-sync

    def _locked(self, handle: FileHandle, path: str) -> FileHandle:
        if not handle.lock():  # spec: journal.single-writer
            handle.close()
            raise JournalLockedError(f"{path} is held by another writer", file=path)
        return handle

    def _journal(self, handle: FileHandle, execution_id: str,
                 parsed: ParsedJournal | None = None) -> LineJournal:
        backend = _FileBackend(handle, self, execution_id)
        if parsed is None:
            return LineJournal(execution_id=execution_id, backend=backend, fsync=self.fsync)
        return LineJournal(execution_id=execution_id, backend=backend, events=parsed.events,
                           torn=parsed.torn, fsync=self.fsync)

    def create(self, execution_id: str) -> LineJournal:
        path = self.path(execution_id)
        try:
            handle = self.fs.create(path)
        except FileExistsError:
            raise JournalExistsError(f"{path} already exists", file=path) from None
        self._locked(handle, path).append(encode_header(execution_id))
        return self._journal(handle, execution_id)

    def read(self, execution_id: str) -> ParsedJournal:
        """Parse a journal without opening it for writing."""
        path = self.path(execution_id)
        try:
            data = self.fs.read(path)
        except FileNotFoundError:
            raise JournalNotFoundError(f"{path} does not exist", file=path) from None
        return check_header(parse_journal(data, source=path), execution_id, path)

    def open(self, execution_id: str) -> LineJournal:
        path = self.path(execution_id)
        try:
            handle = self._locked(self.fs.open(path), path)
        except FileNotFoundError:
            raise JournalNotFoundError(f"{path} does not exist", file=path) from None
        try:
            data = handle.read_all()
            parsed = check_header(parse_journal(data, source=path), execution_id, path)
            if parsed.good_size < len(data):
                handle.truncate(parsed.good_size)  # spec: journal.torn-tail (before appending)
            if parsed.execution_id is None:
                handle.append(encode_header(execution_id))
        except BaseException:
            handle.close()
            raise
        return self._journal(handle, execution_id, parsed)
