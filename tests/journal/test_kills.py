"""Real process kills (spec: journal.write-before-act, kernel.recover, kernel.in-doubt): a
child process runs workflows on the file store, the store log and the SQLite store and is
killed with SIGKILL at seeded random moments, restarted and recovered, and every invariant is
checked against the outside-world log after every kill. Bounded: a fixed count and a time
limit per store. The counts are printed at the end of the run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from loom_ref.journal import FileStore, FsyncPolicy, LogStore
from loom_ref.journal.fs import OsFileSystem
from loom_ref.journal.sqlitestore import SqliteStore
from loom_ref.testing import run_kills

from .conftest import DURABILITY_LINES

KILLS = 120  # per store: hundreds per run, well inside a couple of minutes
SECONDS = 40.0


def makers(tmp: Path) -> dict[str, Any]:
    (tmp / "journals").mkdir()
    return {
        "file": lambda: FileStore(tmp / "journals"),
        "log": lambda: LogStore(tmp / "store.log"),
        "sqlite": lambda: SqliteStore(tmp / "store.db"),
    }


@pytest.mark.parametrize("store", ["file", "log", "sqlite"])
def test_sigkill_at_random_moments(store: str, tmp_path: Path) -> None:
    report = run_kills(makers(tmp_path)[store], str(tmp_path), name=f"{store} store",
                       kills=KILLS, seconds=SECONDS, seed=19 + len(store))
    DURABILITY_LINES.append(f"process kills, {report.summary()}")
    assert report.problems == [], report.problems[:5]
    assert report.kills >= 100  # the time limit did not cut the run short
    assert report.recoveries > 0 and report.completed > 0


class _Buffered:
    """A file handle that keeps appends in the process until a sync or close: the bug of a
    buffered writer that never flushes, which write-before-act forbids."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self._pending = b""

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def read_all(self) -> bytes:
        return bytes(self._inner.read_all() + self._pending)

    def append(self, data: bytes) -> None:
        self._pending += data

    def sync(self) -> None:
        self._inner.append(self._pending)
        self._pending = b""
        self._inner.sync()

    def close(self) -> None:
        if self._pending:
            self._inner.append(self._pending)
            self._pending = b""
        self._inner.close()


class BufferingFileSystem(OsFileSystem):
    def create(self, path: str) -> Any:  # type: ignore[override]
        return _Buffered(super().create(path))

    def open(self, path: str, *, create: bool = False) -> Any:  # type: ignore[override]
        return _Buffered(super().open(path, create=create))


def test_the_kill_test_catches_a_writer_that_buffers(tmp_path: Path) -> None:
    (tmp_path / "journals").mkdir()

    def make() -> Any:
        return FileStore(tmp_path / "journals", fsync=FsyncPolicy.NEVER,
                         fs=BufferingFileSystem())

    report = run_kills(make, str(tmp_path), name="buffering", kills=60, seconds=20.0, seed=3)
    assert report.problems, report.summary()
