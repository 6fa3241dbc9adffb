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
- ``journal.regular-files``: a journal is opened only if it is a regular file, never through a
  symbolic link (``journal.not-a-file``); ``journal.os-errors``: every refusal of the
  operating system is a stable code naming the file, and leaves no descriptor and no lock
  behind; ``journal.held-file``: before each sync the writer checks that its path still
  names the file it holds (``journal.replaced``).
- ``journal.execution-ids``: ``create`` refuses an id that differs only in case from a
  journal in the directory (``argument.execution-id``), since a case-insensitive file system
  would give both one file: the store lists the directory at its first ``create`` and keeps
  the ids it creates since, and lists it again when the file system says the name is taken
  (where a twin is the same file); so does ``open`` or ``read`` that finds such a journal's
  header.

The store reaches the disk only through its :class:`~loom_ref.journal.fs.FileSystem`
(``fs=``, the real one by default), which is how the power-loss simulation runs this code.
"""

from __future__ import annotations

import os

from loom_ref.errors import InvalidArgument
from loom_ref.journal.codec import encode_header
from loom_ref.journal.durability import DEFAULT_POLICY, FsyncPolicy
from loom_ref.journal.fs import FileHandle, FileSystem, check_fs
from loom_ref.journal.oserrors import JournalReplacedError, io_call, os_error
from loom_ref.journal.reader import ParsedJournal, parse_journal
from loom_ref.journal.store import (
    CaseIndex,
    JournalExistsError,
    JournalLockedError,
    JournalNotFoundError,
    LineJournal,
    check_execution_id,
    check_header,
    check_path,
)

__all__ = ["FileStore"]

_SUFFIX = ".jsonl"
_io = io_call


class _FileBackend:
    def __init__(self, handle: FileHandle, store: FileStore, execution_id: str,
                 path: str) -> None:
        self._f = handle
        self._store = store
        self._id = execution_id
        self._path = path

    def write(self, data: bytes, *, sync: bool) -> None:
        f, path = self._f, self._path
        _io(lambda: f.append(data), path, "append to")
        if sync:  # spec: journal.fsync-policy
            if not _io(f.still_named, path, "sync"):  # spec: journal.held-file
                raise JournalReplacedError(
                    f"{path} was unlinked or replaced while this writer held it: what it "
                    f"wrote since is not in the journal at that path", file=path)
            _io(f.sync, path, "sync")
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
        self._cases: CaseIndex | None = None  # spec: journal.execution-ids -- at first create

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
        _io(lambda: self.fs.sync_dir(self.directory), self.directory,
            "sync the directory of")  # spec: journal.dir-sync

    def _locked(self, handle: FileHandle, path: str) -> FileHandle:
        if not _io(handle.lock, path, "lock"):  # spec: journal.single-writer
            raise JournalLockedError(f"{path} is held by another writer", file=path)
        return handle

    def _listed(self) -> CaseIndex:
        """The ids of the journals in the directory, listed now (spec: journal.execution-ids)."""
        names = _io(lambda: self.fs.list_dir(self.directory), self.directory, "list")
        return CaseIndex(n[:-len(_SUFFIX)] for n in names if n.endswith(_SUFFIX))

    def _refuse_case_twin(self, execution_id: str, *, fresh: bool = False) -> CaseIndex:
        """``argument.execution-id`` if a journal in the directory has an id that differs
        from ``execution_id`` only in case (spec: journal.execution-ids): the journals the
        directory held when this store first created one, and those it created since, or
        with ``fresh`` the directory as it is now. (Listing it at every ``create`` would
        make creating n journals cost n squared.)"""
        if fresh or self._cases is None:
            self._cases = self._listed()
        self._cases.refuse_twin(execution_id)
        return self._cases

    def _journal(self, handle: FileHandle, execution_id: str,
                 parsed: ParsedJournal | None = None) -> LineJournal:
        backend = _FileBackend(handle, self, execution_id, self.path(execution_id))
        if parsed is None:
            return LineJournal(execution_id=execution_id, backend=backend, fsync=self.fsync)
        return LineJournal(execution_id=execution_id, backend=backend, events=parsed.events,
                           torn=parsed.torn, fsync=self.fsync)

    def create(self, execution_id: str) -> LineJournal:
        path = self.path(execution_id)
        cases = self._refuse_case_twin(execution_id)  # spec: journal.execution-ids
        try:
            handle = self.fs.create(path)
        except FileExistsError:
            # on a case-insensitive file system a twin anyone created is this very name
            self._refuse_case_twin(execution_id, fresh=True)
            raise JournalExistsError(f"{path} already exists", file=path) from None
        except OSError as exc:  # spec: journal.os-errors
            raise os_error(exc, path, "create") from None
        try:
            header = encode_header(execution_id)
            _io(lambda: self._locked(handle, path).append(header), path, "write the header of")
        except BaseException:
            handle.close()  # spec: journal.os-errors -- no descriptor, no lock left behind
            raise
        cases.add(execution_id)
        return self._journal(handle, execution_id)

    def read(self, execution_id: str) -> ParsedJournal:
        """Parse a journal without opening it for writing."""
        path = self.path(execution_id)
        try:
            data = self.fs.read(path)
        except FileNotFoundError:
            raise JournalNotFoundError(f"{path} does not exist", file=path) from None
        except OSError as exc:  # spec: journal.regular-files, journal.os-errors
            raise os_error(exc, path, "read") from None
        return check_header(parse_journal(data, source=path), execution_id, path)

    def open(self, execution_id: str) -> LineJournal:
        path = self.path(execution_id)
        try:
            handle = self.fs.open(path)
        except FileNotFoundError:
            raise JournalNotFoundError(f"{path} does not exist", file=path) from None
        except OSError as exc:  # spec: journal.regular-files, journal.os-errors
            raise os_error(exc, path, "open") from None
        try:
            self._locked(handle, path)
            data = _io(handle.read_all, path, "read")
            parsed = check_header(parse_journal(data, source=path), execution_id, path)
            if parsed.good_size < len(data):  # spec: journal.torn-tail (before appending)
                _io(lambda: handle.truncate(parsed.good_size), path, "truncate")
            if parsed.execution_id is None:
                header = encode_header(execution_id)
                _io(lambda: handle.append(header), path, "write the header of")
        except BaseException:
            handle.close()
            raise
        return self._journal(handle, execution_id, parsed)
