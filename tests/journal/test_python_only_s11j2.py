"""The Python API of the journal layer that no conformance function observes, for the
survivors of the second half of issue 30's 200-mutant journal sweep (branch s11j2): each
test here is what ``tools/coverage/python-only.toml`` names for a region narrowed to lines
whose every change only a Python caller can see (a simulated file used after its caller
closed it, a default no vector uses, the version row of the SQLite store's database, the
temporary directory journal.sqlite-trace leaves behind)."""

from __future__ import annotations

import os
import sqlite3
import tempfile
from contextlib import closing
from pathlib import Path

import pytest

from loom_ref.journal import CorruptJournalError, EventKind, SqliteStore
from loom_ref.journal.powerloss import SimulatedDisk
from loom_ref.journal.vectors_sqlite import journal_sqlite_trace

K = EventKind
START = {"executionId": "e1", "workflow": "w", "input": None}


def test_a_closed_simulated_file_refuses_to_say_whether_it_is_still_named() -> None:
    # every call of a closed handle is I/O on a closed file, as on a real descriptor
    disk = SimulatedDisk()
    f = disk.create("/disk/a")
    assert f.still_named() is True
    f.close()
    with pytest.raises(ValueError, match="closed file /disk/a"):
        f.still_named()


def test_opening_a_missing_simulated_file_creates_it_only_when_asked() -> None:
    disk = SimulatedDisk()
    with pytest.raises(FileNotFoundError):
        disk.open("/disk/missing")  # the default: open, never create
    assert not disk.exists("/disk/missing") and disk.moments == 0
    disk.open("/disk/missing", create=True).close()
    assert disk.exists("/disk/missing") and disk.moments == 1


def test_the_sqlite_store_writes_and_reads_version_1_of_its_schema(tmp_path: Path) -> None:
    # the database's own row names loom-ref's schema and its version (journal.sqlite-lines):
    # a database of this version says 1, and one that says another version is not ours
    path = tmp_path / "s.db"
    with SqliteStore(path) as store:
        store.create("e1").append(K.EXECUTION_STARTED, START)
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("SELECT name, version FROM loom_store").fetchall() == [
            ("loom-ref.sqlite", 1)]
    with SqliteStore(path) as store:  # version 1 opens again
        assert [e.kind for e in store.read("e1").events] == [K.EXECUTION_STARTED]
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("UPDATE loom_store SET version = 2")
    with pytest.raises(CorruptJournalError) as info, SqliteStore(path):
        pass
    assert info.value.details["reason"] == "journal.bad-header"


def test_the_sqlite_trace_leaves_no_directory_behind(monkeypatch: pytest.MonkeyPatch,
                                                     tmp_path: Path) -> None:
    made: list[str] = []
    real = tempfile.mkdtemp

    def mkdtemp(*args: object, **kwargs: object) -> str:
        path = real(dir=tmp_path, prefix="trace-")
        made.append(path)
        return path

    monkeypatch.setattr(tempfile, "mkdtemp", mkdtemp)
    out = journal_sqlite_trace({"fsync": "never", "steps": [
        {"do": "create", "executionId": "e1"},
        {"do": "append", "executionId": "e1", "kind": "EXECUTION_STARTED", "payload": START}]})
    assert out["answers"] == [None, None]
    assert len(made) == 1 and not os.path.exists(made[0])
    assert os.listdir(tmp_path) == []
