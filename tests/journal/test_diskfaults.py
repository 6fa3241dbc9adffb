"""The disk-fault matrix (spec: journal.os-errors, journal.regular-files): every write and
every sync of the store kit's scenarios failed in turn with ENOSPC, EIO and EROFS, on the file
store and the store log (through the file layer, on the simulated disk and on the real one,
counting the descriptors and locks the process still holds) and on the SQLite store (its
commits failed as SQLite reports a full disk, an I/O error and a read-only database), under
every fsync policy. After each fault the call failed with a stable code naming the file,
nothing was left open or locked, and everything acknowledged before it recovered.

The matrix can fail: a store that leaks its descriptor when a header write fails (issue 32's
break 5) and one that swallows a failed sync are caught.
"""

from __future__ import annotations

import errno
import fcntl
import itertools
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from loom_ref.journal import FileStore, FsyncPolicy, LogStore, OsFileSystem, SqliteStore
from loom_ref.journal.codec import encode_header
from loom_ref.journal.fs import FileSystem
from loom_ref.journal.powerloss import SimulatedDisk
from loom_ref.testing import KIT_SCENARIOS
from loom_ref.testing.diskfaults import FAULT_CODES, FaultyDisk, run_disk_faults

from .conftest import DURABILITY_LINES

STORES: dict[str, Any] = {
    "file": lambda fs, policy: FileStore("/disk", fsync=policy, fs=fs),
    "log": lambda fs, policy: LogStore("/disk/store.log", fsync=policy, fs=fs),
}
TOTALS: dict[str, list[int]] = {}


def _note(label: str, report: Any) -> None:
    faults, refused, recoveries = TOTALS.setdefault(label, [0, 0, 0])
    TOTALS[label] = [faults + report.faults, refused + report.refused,
                     recoveries + report.recoveries]


@pytest.mark.parametrize("policy", list(FsyncPolicy), ids=lambda p: p.value)
@pytest.mark.parametrize("store", sorted(STORES))
def test_every_write_and_sync_failed_in_turn_on_the_simulated_disk(
        store: str, policy: FsyncPolicy) -> None:
    problems: list[str] = []
    codes: set[str] = set()
    for scenario in KIT_SCENARIOS:
        report = run_disk_faults(scenario, STORES[store], policy, disk=SimulatedDisk)
        problems += report.violations
        codes |= set(report.codes)
        _note(f"{store} store, simulated disk", report)
        assert report.faults > 0 and report.refused > 0, scenario.name
    assert problems == [], problems[:5]
    assert codes and codes <= FAULT_CODES


# -- the real disk: descriptors and locks counted after every fault -------------------------------
def _held(base: Path) -> list[str]:
    """What this process holds beyond what it held before: open descriptors, and locks on
    the files under ``base`` (a lock is held if a new open file cannot take it)."""
    held = []
    for name in os.listdir("/proc/self/fd"):
        try:
            held.append(f"fd -> {os.readlink(f'/proc/self/fd/{name}')}")
        except OSError:
            continue  # the listing's own descriptor, closed by now
    for path in base.rglob("*"):
        if path.is_file() and not path.name.endswith(("-wal", "-shm")):
            fd = os.open(path, os.O_RDONLY)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                held.append(f"lock on {path}")
            finally:
                os.close(fd)
    return held


class _Disks:
    """A fresh directory under ``base`` per run, the real file layer on it."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.counter = itertools.count()
        self.current = base

    def __call__(self) -> FileSystem:
        self.current = self.base / f"run{next(self.counter)}"
        self.current.mkdir()
        return OsFileSystem()


needs_proc = pytest.mark.skipif(not os.path.isdir("/proc/self/fd"),
                                reason="counts descriptors through /proc/self/fd")


@needs_proc
@pytest.mark.parametrize("store", ["file", "log"])
def test_every_fault_on_the_real_disk_leaves_no_descriptor_and_no_lock(
        tmp_path: Path, store: str) -> None:
    disks = _Disks(tmp_path)
    makers: dict[str, Any] = {
        "file": lambda fs, policy: FileStore(disks.current, fsync=policy, fs=fs),
        "log": lambda fs, policy: LogStore(disks.current / "store.log", fsync=policy, fs=fs),
    }
    report = run_disk_faults(KIT_SCENARIOS[0], makers[store], FsyncPolicy.WRITE_AHEAD,
                             disk=disks, leaks=lambda: _held(tmp_path))
    _note(f"{store} store, real disk", report)
    assert report.violations == []
    assert report.refused > 0


# -- SQLite: its commits refused as SQLite reports a full disk, an I/O error, a read-only db ---
_SQLITE_NAMES = {errno.ENOSPC: ("SQLITE_FULL", "database or disk is full"),
                 errno.EIO: ("SQLITE_IOERR", "disk I/O error"),
                 errno.EROFS: ("SQLITE_READONLY", "attempt to write a readonly database")}


class _RefusingConnection:
    """A connection whose writes and synchronous commits tick the faulty disk's counters, and
    fail as SQLite would when the disk refuses (SQLite writes through its own VFS, which the
    file layer cannot reach: ``spec/journal.md`` 1.9)."""

    def __init__(self, inner: sqlite3.Connection, disk: FaultyDisk) -> None:
        self._inner = inner
        self._disk = disk
        self._full = False

    @property
    def in_transaction(self) -> bool:
        return self._inner.in_transaction

    def execute(self, sql: str, *args: Any) -> Any:
        if sql.startswith("PRAGMA synchronous="):
            self._full = sql.endswith("FULL")
        writes = sql.startswith(("INSERT", "DELETE"))
        commits = sql == "COMMIT" or (writes and not self._inner.in_transaction)
        error = self._disk._tick("append") if writes else None
        if error is None and commits and self._full:
            error = self._disk._tick("sync")
        if error is not None:
            name, message = _SQLITE_NAMES[error]
            exc = sqlite3.OperationalError(message)
            exc.sqlite_errorname = name  # type: ignore[attr-defined]
            raise exc
        return self._inner.execute(sql, *args)

    def close(self) -> None:
        self._inner.close()


def _sqlite_maker(disks: _Disks) -> Any:
    def make(fs: Any, policy: FsyncPolicy) -> SqliteStore:
        store = SqliteStore(disks.current / "store.db", fsync=policy, fs=fs)
        store._conn = _RefusingConnection(store._conn, fs)  # type: ignore[assignment]
        return store
    return make


@needs_proc
@pytest.mark.parametrize("policy", list(FsyncPolicy), ids=lambda p: p.value)
def test_every_commit_refused_in_turn_on_the_sqlite_store(tmp_path: Path,
                                                          policy: FsyncPolicy) -> None:
    base = Path("/dev/shm") if os.path.isdir("/dev/shm") else tmp_path  # SQLite's syncs: cheap
    with _scratch(base) as scratch:
        disks = _Disks(scratch)
        report = run_disk_faults(KIT_SCENARIOS[0], _sqlite_maker(disks), policy, disk=disks,
                                 leaks=lambda: _held(scratch))
    _note("SQLite store, real disk", report)
    assert report.violations == []
    assert report.refused > 0 and "journal.write-failed" in report.codes
    assert set(report.codes) <= FAULT_CODES  # io-failed: the directory sync at opening


@pytest.fixture(autouse=True, scope="module")
def _summary() -> Iterator[None]:
    yield
    for label, (faults, refused, recoveries) in sorted(TOTALS.items()):
        DURABILITY_LINES.append(f"disk faults, {label}: {faults} faults, {refused} refused "
                                f"with a stable code, {recoveries} recoveries checked")


def _scratch(base: Path) -> Any:
    import contextlib
    import shutil
    import tempfile

    @contextlib.contextmanager
    def made() -> Iterator[Path]:
        path = Path(tempfile.mkdtemp(prefix="loom-faults-", dir=base))
        try:
            yield path
        finally:
            shutil.rmtree(path, ignore_errors=True)
    return made()


# -- the matrix can fail -------------------------------------------------------------------------
class _LeakyFileStore(FileStore):
    """The file store before issue 32: a failed header write kept its descriptor and lock."""

    def create(self, execution_id: str) -> Any:
        path = self.path(execution_id)
        handle = self.fs.create(path)
        handle.lock()
        handle.append(encode_header(execution_id))  # a raw OSError, the handle left open
        return self._journal(handle, execution_id)


class _SwallowingLogStore(LogStore):
    """A store log that shrugs off a failed sync."""

    def _append(self, execution_id: str, line: bytes, *, sync: bool) -> None:
        try:
            super()._append(execution_id, line, sync=sync)
        except Exception:
            if not sync:
                raise


def test_the_matrix_catches_a_leaked_descriptor() -> None:
    report = run_disk_faults(
        KIT_SCENARIOS[0], lambda fs, policy: _LeakyFileStore("/disk", fsync=policy, fs=fs),
        FsyncPolicy.NEVER, disk=SimulatedDisk, errors=(errno.ENOSPC,))
    assert any("raw OSError" in v or "left open" in v for v in report.violations)


def test_the_matrix_catches_a_swallowed_sync_failure() -> None:
    report = run_disk_faults(
        KIT_SCENARIOS[0],
        lambda fs, policy: _SwallowingLogStore("/disk/store.log", fsync=policy, fs=fs),
        FsyncPolicy.EVERY_EVENT, disk=SimulatedDisk, errors=(errno.EIO,))
    assert report.violations, "a swallowed sync failure went unseen"
