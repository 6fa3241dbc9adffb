"""The file layer under the file stores: the few operations a journal needs of a disk.

Spec: ``spec/journal.md`` section 1.8. :class:`~loom_ref.journal.store.FileStore` and
:class:`~loom_ref.journal.logstore.LogStore` reach the disk only through a
:class:`FileSystem`, so the same store code runs on the real one (:class:`OsFileSystem`, the
default) and on the power-loss simulation (:class:`~loom_ref.journal.powerloss.
SimulatedDisk`), which records every write and fsync and can say what a power loss would
leave. A store that forgets a sync forgets it on both.

The layer is deliberately small, and append-only:

- a file is written only at its end (``O_APPEND``): a journal never overwrites a byte, and
  truncating a torn tail is the only way a file shrinks;
- ``sync`` is ``fdatasync(2)`` of the file where the system has it (Linux), else ``fsync(2)``:
  it makes the file's data and size durable, which is all an append-only file needs (POSIX:
  ``fdatasync`` writes the metadata needed to read the data back, the size included, and
  skips the rest, such as the modification time); PostgreSQL's WAL and SQLite sync their
  logs the same way. ``sync_dir`` is ``fsync(2)`` of a directory, which is what makes a
  new directory entry survive a power loss (``journal.dir-sync``): POSIX promises nothing
  for a new file's name until then;
- ``lock`` is an advisory, non-blocking, exclusive ``flock(2)``, held until the file is
  closed; the operating system lets go of it when the process dies, so a killed writer
  never leaves a journal locked (``journal.single-writer``);
- nothing here renames, replaces or removes a file: loom-ref's stores never do.
"""

from __future__ import annotations

import fcntl
import os
from typing import Protocol

from loom_ref.errors import InvalidArgument

__all__ = ["FileHandle", "FileSystem", "OsFileSystem", "check_fs"]

_METHODS = ("create", "open", "read", "exists", "is_dir", "sync_dir")


class FileHandle(Protocol):
    """One open file, readable and appendable (spec: journal.dir-sync)."""

    @property
    def closed(self) -> bool: ...

    def read_all(self) -> bytes:
        """The whole file as it stands (what the operating system holds, synced or not)."""
        ...

    def append(self, data: bytes) -> None:
        """Write all of ``data`` at the end of the file."""
        ...

    def truncate(self, size: int) -> None:
        """Cut the file to ``size`` bytes (the torn-tail rule's only shrink)."""
        ...

    def sync(self) -> None:
        """``fsync``: the file's bytes and size survive a power loss once this returns."""
        ...

    def lock(self) -> bool:
        """Take the exclusive advisory lock; False if another open file holds it."""
        ...

    def close(self) -> None:
        """Close the file (and drop its lock). Closing twice is harmless."""
        ...


class FileSystem(Protocol):
    """The operations the file stores make on a disk (module rules) (spec: journal.dir-sync)."""

    def create(self, path: str) -> FileHandle:
        """Create ``path`` (which must not exist: ``FileExistsError``) and open it."""
        ...

    def open(self, path: str, *, create: bool = False) -> FileHandle:
        """Open an existing file (``FileNotFoundError`` if missing), or with ``create``
        create it if it is missing."""
        ...

    def read(self, path: str) -> bytes:
        """The whole of ``path`` (``FileNotFoundError`` if missing), without opening it for
        writing."""
        ...

    def exists(self, path: str) -> bool: ...

    def is_dir(self, path: str) -> bool: ...

    def sync_dir(self, path: str) -> None:
        """``fsync`` the directory ``path``: the entries created in it survive a power loss
        once this returns (``journal.dir-sync``)."""
        ...


def check_fs(fs: object) -> FileSystem:
    """``fs`` if it has the methods of :class:`FileSystem` (None: the real disk), else
    InvalidArgument (spec: errors.invalid-argument)."""
    if fs is None:
        return OsFileSystem()
    missing = [name for name in _METHODS if not callable(getattr(fs, name, None))]
    if missing:
        raise InvalidArgument(f"fs must be a FileSystem (missing {', '.join(missing)}), got "
                              f"{type(fs).__name__}")
    return fs  # type: ignore[return-value]


class _OsFile:
    """A file descriptor opened ``O_RDWR | O_APPEND``."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    def read_all(self) -> bytes:
        size = os.fstat(self._fd).st_size
        chunks, offset = [], 0
        while offset < size:
            chunk = os.pread(self._fd, size - offset, offset)
            if not chunk:
                break
            chunks.append(chunk)
            offset += len(chunk)
        return b"".join(chunks)

    def append(self, data: bytes) -> None:
        view = memoryview(data)
        while view:  # a write may take only part of the data
            view = view[os.write(self._fd, view):]

    def truncate(self, size: int) -> None:
        os.ftruncate(self._fd, size)

    def sync(self) -> None:
        if _HAS_FDATASYNC:
            os.fdatasync(self._fd)
        else:
            os.fsync(self._fd)

    def lock(self) -> bool:
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            os.close(self._fd)  # closing the descriptor drops the flock


#: fdatasync(2) where the system has it (module rules); macOS's Python has only fsync.
_HAS_FDATASYNC = hasattr(os, "fdatasync")

_FLAGS = os.O_RDWR | os.O_APPEND | getattr(os, "O_CLOEXEC", 0)


class OsFileSystem:
    """The real disk, through ``os`` (spec: journal.dir-sync)."""

    def create(self, path: str) -> _OsFile:
        return _OsFile(os.open(path, _FLAGS | os.O_CREAT | os.O_EXCL, 0o666))

    def open(self, path: str, *, create: bool = False) -> _OsFile:
        return _OsFile(os.open(path, _FLAGS | (os.O_CREAT if create else 0), 0o666))

    def read(self, path: str) -> bytes:
        with open(path, "rb") as f:
            return f.read()

    def exists(self, path: str) -> bool:
        return os.path.exists(path)

    def is_dir(self, path: str) -> bool:
        return os.path.isdir(path)

    def sync_dir(self, path: str) -> None:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
