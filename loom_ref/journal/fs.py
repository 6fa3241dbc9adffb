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
- nothing here renames, replaces or removes a file: loom-ref's stores never do;
- ``journal.regular-files``: ``open`` and ``read`` never follow a symbolic link at the path
  (``O_NOFOLLOW``), never wait on a FIFO or a device (``O_NONBLOCK``), and hand out only a
  regular file (``fstat``), before a byte is read or written; anything else raises
  :class:`NotRegularFileError`. ``create`` (``O_EXCL``) never follows a link either: it
  fails with ``FileExistsError`` when anything at all is at the path;
- ``journal.held-file``: ``FileHandle.still_named`` says whether the path a file was opened
  by still names it (not unlinked, not replaced), which a store asks before each sync.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from typing import Protocol

from loom_ref.errors import InvalidArgument
from loom_ref.journal.oserrors import NotRegularFileError

__all__ = ["FileHandle", "FileSystem", "NotRegularFileError", "OsFileSystem", "check_fs",
           "file_kind", "open_regular", "read_regular"]

_METHODS = ("create", "open", "read", "exists", "is_dir", "sync_dir", "list_dir")


def file_kind(mode: int) -> str:
    """What ``st_mode`` says a path is, in the words of :class:`NotRegularFileError`."""
    for test, kind in ((stat.S_ISREG, "regular file"), (stat.S_ISLNK, "symbolic link"),
                       (stat.S_ISFIFO, "FIFO"), (stat.S_ISDIR, "directory"),
                       (stat.S_ISSOCK, "socket"), (stat.S_ISCHR, "character device"),
                       (stat.S_ISBLK, "block device")):
        if test(mode):
            return kind
    return "special file"


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

    def still_named(self) -> bool:
        """Whether the path this file was opened by still names it: False once the file
        was unlinked, or another file put at its path (``journal.held-file``)."""
        ...

    def close(self) -> None:
        """Close the file (and drop its lock). Closing twice is harmless."""
        ...


class FileSystem(Protocol):
    """The operations the file stores make on a disk (module rules) (spec: journal.dir-sync)."""

    def create(self, path: str) -> FileHandle:
        """Create ``path`` (``FileExistsError`` if anything is there, a link included) and
        open it."""
        ...

    def open(self, path: str, *, create: bool = False) -> FileHandle:
        """Open an existing regular file (``FileNotFoundError`` if missing,
        :class:`NotRegularFileError` if a link or anything but a regular file is there), or
        with ``create`` create it if it is missing."""
        ...

    def read(self, path: str) -> bytes:
        """The whole of the regular file ``path`` (``FileNotFoundError`` if missing,
        :class:`NotRegularFileError` as ``open``), without opening it for writing."""
        ...

    def exists(self, path: str) -> bool:
        """Whether anything is at ``path`` (a link too, followed or not)."""
        ...

    def list_dir(self, path: str) -> list[str]:
        """The names in the directory ``path`` (``journal.execution-ids``: a store looks
        for an id that differs only in case before it creates one)."""
        ...

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
    """A regular file's descriptor, opened ``O_RDWR | O_APPEND``, and the path it was opened
    by (made absolute, so that ``still_named`` means the same after a ``chdir``)."""

    def __init__(self, fd: int, path: str) -> None:
        self._fd = fd
        self._path = path
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    def read_all(self) -> bytes:
        return _read_fd(self._fd)

    def append(self, data: bytes) -> None:
        view = memoryview(data)
        while view:  # a write may take only part of the data
            view = view[os.write(self._fd, view):]

    def truncate(self, size: int) -> None:
        os.ftruncate(self._fd, size)

    def sync(self) -> None:
        getattr(os, "fdatasync", os.fsync)(self._fd)  # the data and size, not the times

    def lock(self) -> bool:
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def still_named(self) -> bool:
        held = os.fstat(self._fd)
        try:
            named = os.lstat(self._path)
        except FileNotFoundError:
            return False
        return held.st_nlink > 0 and (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            os.close(self._fd)  # closing the descriptor drops the flock


def _read_fd(fd: int) -> bytes:
    size = os.fstat(fd).st_size
    chunks, offset = [], 0
    while True:  # to the end, even if the file grew since fstat
        chunk = os.pread(fd, max(size - offset, 65536), offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


#: fdatasync(2) where the system has it (module rules); macOS's Python has only fsync.

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_FLAGS = os.O_RDWR | os.O_APPEND | _CLOEXEC
#: open without following a link at the path, and without waiting on a FIFO or a device
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_SAFE = getattr(os, "O_NOFOLLOW", 0) | _NONBLOCK


def open_regular(path: str, flags: int) -> int:
    """A descriptor of the regular file ``path``, opened with ``flags`` without following a
    link at the path and without waiting on a FIFO; else :class:`NotRegularFileError` (the
    OS's error for anything else). What every store's open goes through
    (spec: journal.regular-files)."""
    try:
        fd = os.open(path, flags | _SAFE, 0o666)
    except OSError as exc:
        kind = _kind_at(path) if exc.errno in _REFUSED_KINDS else None
        if kind is not None and kind != "regular file":
            raise NotRegularFileError(path, kind) from None
        raise
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFileError(path, file_kind(mode))
        if _NONBLOCK:  # a regular file: writes wait for the disk as they should
            fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~_NONBLOCK)
    except BaseException:
        os.close(fd)
        raise
    return fd


#: what open(2) says for a link under O_NOFOLLOW (ELOOP; EMLINK on FreeBSD) or a directory
#: opened for writing (EISDIR), or a device without its driver (ENXIO)
_REFUSED_KINDS = {getattr(errno, name) for name in ("ELOOP", "EMLINK", "EISDIR", "ENXIO")
                  if hasattr(errno, name)}


def _kind_at(path: str) -> str | None:
    try:
        return file_kind(os.lstat(path).st_mode)
    except OSError:
        return None


def read_regular(path: str, *, follow: bool = False) -> bytes:
    """The whole of the regular file ``path``, never waiting on a FIFO; with ``follow`` a
    link at the path is followed (a path a person named on the command line), else it is
    refused as :func:`open_regular` refuses it (spec: journal.regular-files)."""
    flags = os.O_RDONLY | _CLOEXEC
    if follow:
        fd = os.open(path, flags | _NONBLOCK)
        try:
            mode = os.fstat(fd).st_mode
            if not stat.S_ISREG(mode):
                raise NotRegularFileError(path, file_kind(mode))
            data = _read_fd(fd)
        finally:
            os.close(fd)
        return data
    fd = open_regular(path, flags)
    try:
        return _read_fd(fd)
    finally:
        os.close(fd)


class OsFileSystem:
    """The real disk, through ``os`` (spec: journal.dir-sync, journal.regular-files)."""

    def create(self, path: str) -> _OsFile:
        fd = os.open(path, _FLAGS | os.O_CREAT | os.O_EXCL, 0o666)  # O_EXCL: never a link
        return _OsFile(fd, os.path.abspath(path))

    def open(self, path: str, *, create: bool = False) -> _OsFile:
        fd = open_regular(path, _FLAGS | (os.O_CREAT if create else 0))
        return _OsFile(fd, os.path.abspath(path))

    def read(self, path: str) -> bytes:
        return read_regular(path)

    def exists(self, path: str) -> bool:
        return os.path.lexists(path)

    def is_dir(self, path: str) -> bool:
        return os.path.isdir(path)

    def list_dir(self, path: str) -> list[str]:
        return os.listdir(path)

    def sync_dir(self, path: str) -> None:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
