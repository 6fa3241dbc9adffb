"""The power-loss simulation: a disk that records every write and fsync, and says what a
power loss at any moment would leave on it.

Spec: ``spec/journal.md`` section 1.8 (``journal.power-loss``). :class:`SimulatedDisk` is a
:class:`~loom_ref.journal.fs.FileSystem`: the file and log stores run on it unchanged. Every
operation that changes the disk (a file created, bytes appended, a file truncated, a file
or a directory synced) is one *moment*; after each one the disk can take a
:class:`DiskSnapshot`, and a snapshot gives the :class:`DiskImage` s a power loss at that
moment may leave. A fresh disk built from an image (``SimulatedDisk(image=...)``) is what
the machine finds when it boots again.

The model, after SQLite's crash-test VFS (``src/test6.c``: an unsynced write is written,
not written, or written as garbage) and the ALICE study of file-system persistence
properties (Pillai et al., OSDI 2014: appends are not atomic, and a new file's name is not
durable until its directory is synced), kept to what an append-only journal can meet:

- what a file's ``fsync`` covered survives: its bytes and size as they were then;
- a file's operations since its last ``fsync`` survive as a prefix, in order (none, some,
  all), and the last one that survives may be torn at any byte or land as zeros (the size
  reached the disk, the data did not); nothing is reordered inside a file;
- a name created since its directory's last ``fsync`` may be lost, its file with it, even
  if the file itself was synced (POSIX promises nothing for the name until then);
- directories are given when the disk is built; nothing is renamed or removed.

The images of one moment (:meth:`DiskSnapshot.images`), each named by how it came about:

======== ==============================================================================
synced   only what was synced: unsynced names lost, every file as its last ``fsync`` left it
names    every name kept, every file as its last ``fsync`` left it (a new file empty)
written  everything the process wrote (what a process crash leaves: the OS cache survives)
torn     everything, but each file's last unsynced append torn at one byte (``tear_at``)
zeroed   everything, but each file's last unsynced append landed as zeros
prefix   everything synced, then the first half of each file's unsynced operations
======== ==============================================================================

Images that come out equal are given once. Every file of the disk takes the same variant in
one image (not every combination across files). What the model leaves out, and why, is in
``spec/journal.md`` 1.8: garbage in the middle of a file (a complete line failing its
checksum is reported as corrupt, never skipped), and reordering across files.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import attrs

from loom_ref.errors import InvalidArgument
from loom_ref.journal.oserrors import NotRegularFileError

__all__ = ["VARIANTS", "DiskImage", "DiskSnapshot", "SimulatedDisk", "spread_tear"]

#: The image variants, in the order :meth:`DiskSnapshot.images` gives them.
VARIANTS = ("synced", "names", "written", "torn", "zeroed", "prefix")

_Op = tuple[str, Any]  # ("append", bytes) or ("truncate", int)


def _apply(content: bytes, ops: Iterable[_Op]) -> bytes:
    for kind, arg in ops:
        content = content + arg if kind == "append" else content[:arg]
    return content


def spread_tear(moment: int, length: int) -> int:
    """The default tear position: a byte in ``1 .. length-1`` that moves with the moment,
    so the cuts of one run fall all over the lines (deterministic: no randomness)."""
    return 1 + (moment * 7919) % (length - 1)


@attrs.frozen(kw_only=True)
class DiskImage:
    """What a power loss left: every surviving file's bytes, and how it came about."""

    files: Mapping[str, bytes]
    directories: frozenset[str]
    variant: str
    moment: int


@attrs.frozen(kw_only=True)
class _FileState:
    durable: bytes
    pending: tuple[_Op, ...]
    current: bytes


@attrs.frozen(kw_only=True)
class DiskSnapshot:
    """The disk right after moment ``moment`` (``op`` says what it was)."""

    moment: int
    op: str
    files: Mapping[str, _FileState]
    durable_names: frozenset[str]
    directories: frozenset[str]
    tear_at: Callable[[int, int], int]

    def _image(self, variant: str, files: Mapping[str, bytes]) -> DiskImage:
        return DiskImage(files=dict(files), directories=self.directories, variant=variant,
                         moment=self.moment)

    def _last_append(self, state: _FileState, last: Callable[[bytes], bytes]) -> bytes:
        pending = state.pending
        if not pending or pending[-1][0] != "append":
            return state.current
        return _apply(state.durable, pending[:-1]) + last(pending[-1][1])

    def images(self) -> list[DiskImage]:
        """The distinct images a power loss right now may leave (module table)."""
        files = self.files

        def cut(data: bytes) -> bytes:
            return data[:self.tear_at(self.moment, len(data))] if len(data) > 1 else b""

        torn = {n: self._last_append(s, cut) for n, s in files.items()}
        candidates = [
            self._image("synced", {n: files[n].durable for n in self.durable_names}),
            self._image("names", {n: s.durable for n, s in files.items()}),
            self._image("written", {n: s.current for n, s in files.items()}),
            self._image("torn", torn),
            self._image("zeroed", {n: self._last_append(s, lambda d: bytes(len(d)))
                                   for n, s in files.items()}),
            self._image("prefix", {n: _apply(s.durable, s.pending[:len(s.pending) // 2])
                                   for n, s in files.items()}),
        ]
        seen: set[tuple[tuple[str, bytes], ...]] = set()
        out = []
        for image in candidates:
            key = tuple(sorted(image.files.items()))
            if key not in seen:
                seen.add(key)
                out.append(image)
        return out


class _Inode:
    def __init__(self, content: bytes = b"") -> None:
        self.durable = content
        self.pending: tuple[_Op, ...] = ()
        self.current = content


class _SimFile:
    def __init__(self, disk: SimulatedDisk, path: str, inode: _Inode) -> None:
        self._disk = disk
        self._path = path
        self._inode = inode
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    def _check(self) -> None:
        if self._closed:
            raise ValueError(f"I/O on closed file {self._path}")

    def read_all(self) -> bytes:
        self._check()
        return self._inode.current

    def append(self, data: bytes) -> None:
        self._check()
        if data:
            inode = self._inode
            inode.current += bytes(data)
            inode.pending += (("append", bytes(data)),)
            self._disk._moment(f"append {len(data)} bytes to {self._path}")

    def truncate(self, size: int) -> None:
        self._check()
        inode = self._inode
        inode.current = inode.current[:size]
        inode.pending += (("truncate", size),)
        self._disk._moment(f"truncate {self._path} to {size}")

    def sync(self) -> None:
        self._check()
        inode = self._inode
        inode.durable, inode.pending = inode.current, ()
        self._disk.syncs += 1
        self._disk._moment(f"fsync {self._path}")

    def lock(self) -> bool:
        self._check()
        holder = self._disk._locks.get(self._path)
        if holder is not None and holder is not self and not holder.closed:
            return False
        self._disk._locks[self._path] = self
        return True

    def still_named(self) -> bool:
        self._check()
        return self._disk._files.get(self._path) is self._inode  # nothing is ever replaced

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            if self._disk._locks.get(self._path) is self:
                del self._disk._locks[self._path]



def directory_of(path: str) -> str:
    """The directory of a path on the simulated disk: the part before its last ``/``, ``/``
    when that ``/`` is its first character, ``""`` (no directory) when it has none. Nothing
    is normalised (``/disk//a`` is in ``/disk/``).

    spec: journal.power-loss-vector -- "its directory is the part before its last ``/``, and
    ``/`` when that ``/`` is the path's first character"."""
    i = path.rfind("/")
    return "" if i < 0 else (path[:i] or "/")

class SimulatedDisk:
    """A disk in memory that records every write and fsync (module rules).

    ``directories``: the directories that exist (absolute paths). ``image``: start from what
    a power loss left (everything on it durable). ``observer``: called after every moment
    with the disk (to take a :meth:`snapshot`). ``tear_at(moment, length)``: where the
    ``torn`` image cuts an append of ``length`` bytes (default :func:`spread_tear`).
    ``planted``: paths that hold something that is not a regular file (``{path: kind}``,
    the kind as :class:`~loom_ref.journal.fs.NotRegularFileError` names it: ``"symbolic
    link"``, ``"FIFO"``): ``open`` and ``read`` refuse them, ``create`` finds them there
    (spec: journal.regular-files). They are in no image: a power loss is about files.
    """

    def __init__(self, *, directories: Iterable[str] = ("/disk",), image: DiskImage | None = None,
                 observer: Callable[[SimulatedDisk], None] | None = None,
                 tear_at: Callable[[int, int], int] | None = None,
                 planted: Mapping[str, str] | None = None) -> None:
        if image is not None and not isinstance(image, DiskImage):
            raise InvalidArgument(f"image must be a DiskImage, got {type(image).__name__}")
        given = image.directories if image is not None else directories
        if isinstance(given, str | bytes) or not isinstance(given, Iterable):
            raise InvalidArgument(f"directories must be an iterable of absolute paths, got "
                                  f"{given!r}")
        listed = list(given)
        if not listed or not all(isinstance(d, str) and os.path.isabs(d) for d in listed):
            raise InvalidArgument(f"directories must be absolute paths, got {given!r}")
        dirs = frozenset(listed)
        for name, value in (("observer", observer), ("tear_at", tear_at)):
            if value is not None and not callable(value):
                raise InvalidArgument(f"{name} must be callable, got {value!r}")
        self.directories = dirs
        self._files: dict[str, _Inode] = {}
        if image is not None:
            self._files = {name: _Inode(data) for name, data in image.files.items()}
        self._durable_names = set(self._files)
        self._locks: dict[str, _SimFile] = {}
        self.moments = 0
        self.syncs = 0
        self.dir_syncs = 0
        self.observer = observer
        self.tear_at = spread_tear if tear_at is None else tear_at
        if planted is not None and not (isinstance(planted, Mapping) and all(
                isinstance(k, str) and directory_of(k) in dirs and isinstance(v, str)
                for k, v in planted.items())):
            raise InvalidArgument(f"planted must map paths in the disk's directories to kinds, "
                                  f"got {planted!r}")
        self.planted: dict[str, str] = dict(planted or {})

    def _moment(self, op: str) -> None:
        self.moments += 1
        self._last_op = op
        if self.observer is not None:
            self.observer(self)

    def snapshot(self) -> DiskSnapshot:
        """The disk as it stands: enough to give every image of this moment."""
        return DiskSnapshot(
            moment=self.moments, op=getattr(self, "_last_op", "nothing yet"),
            files={n: _FileState(durable=i.durable, pending=i.pending, current=i.current)
                   for n, i in self._files.items()},
            durable_names=frozenset(self._durable_names), directories=self.directories,
            tear_at=self.tear_at)

    def contents(self) -> dict[str, bytes]:
        """Every file's bytes as the process sees them (synced or not)."""
        return {name: inode.current for name, inode in self._files.items()}

    # -- the FileSystem protocol -----------------------------------------------------------
    def create(self, path: str) -> _SimFile:
        # spec: journal.power-loss-vector -- a listed directory is there too, and holds no file
        if path in self._files or path in self.planted or path in self.directories:
            raise FileExistsError(path)
        if directory_of(path) not in self.directories:
            raise FileNotFoundError(path)
        inode = self._files[path] = _Inode()
        self._moment(f"create {path}")
        return _SimFile(self, path, inode)

    def open(self, path: str, *, create: bool = False) -> _SimFile:
        if path in self.planted:  # spec: journal.regular-files -- never followed
            raise NotRegularFileError(path, self.planted[path])
        inode = self._files.get(path)
        if inode is None:
            if create:
                return self.create(path)
            raise FileNotFoundError(path)
        return _SimFile(self, path, inode)

    def read(self, path: str) -> bytes:
        if path in self.planted:
            raise NotRegularFileError(path, self.planted[path])
        inode = self._files.get(path)
        if inode is None:
            raise FileNotFoundError(path)
        return inode.current

    def exists(self, path: str) -> bool:
        return path in self._files or path in self.directories or path in self.planted

    def is_dir(self, path: str) -> bool:
        return path in self.directories

    def list_dir(self, path: str) -> list[str]:
        if path not in self.directories:
            raise FileNotFoundError(path)
        return sorted(os.path.basename(n) for n in [*self._files, *self.planted]
                      if directory_of(n) == path)

    def sync_dir(self, path: str) -> None:
        if path not in self.directories:
            raise FileNotFoundError(path)
        self._durable_names |= {n for n in self._files if directory_of(n) == path}
        self.dir_syncs += 1
        self._moment(f"fsync directory {path}")
