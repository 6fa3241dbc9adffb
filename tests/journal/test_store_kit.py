"""The store kit (loom_ref.testing.StoreContract) on loom-ref's four stores: memory, file,
store log and SQLite. Each class is what a user writes for their own store: one fixture."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from loom_ref.journal import FileStore, LogStore, MemoryStore
from loom_ref.journal.sqlitestore import SqliteStore
from loom_ref.testing import StoreContract, StoreUnderTest


def flip_crc(line: bytes) -> bytes:
    """The line (without its newline) with its 8 checksum digits replaced."""
    digits = b"ffffffff" if line[-10:-2] == b"00000000" else b"00000000"
    return line[:-10] + digits + line[-2:]


def flip_line(data: bytes, line: int) -> bytes:
    lines = data.split(b"\n")
    lines[line - 1] = flip_crc(lines[line - 1])
    return b"\n".join(lines)


class TestMemoryStore(StoreContract):
    @pytest.fixture
    def loom_store(self) -> StoreUnderTest:
        store = MemoryStore()

        def corrupt(execution_id: str, line: int) -> int:
            store.data[execution_id] = bytearray(flip_line(bytes(store.data[execution_id]), line))
            return line

        return StoreUnderTest(make=lambda: store, name="memory", persistent=False,
                              corrupt=corrupt, why_not={
                                  "on_disk": "memory is no disk",
                                  "persistent": "a killed process takes its memory along"})


class TestFileStore(StoreContract):
    @pytest.fixture
    def loom_store(self, tmp_path: Path) -> StoreUnderTest:
        directory = tmp_path / "journals"
        directory.mkdir()

        def corrupt(execution_id: str, line: int) -> int:
            path = directory / f"{execution_id}.jsonl"
            path.write_bytes(flip_line(path.read_bytes(), line))
            return line

        return StoreUnderTest(
            make=lambda: FileStore(directory), name="file", corrupt=corrupt,
            on_disk=lambda fs, policy: FileStore("/disk", fsync=policy, fs=fs), kills=40)


class TestLogStore(StoreContract):
    @pytest.fixture
    def loom_store(self, tmp_path: Path) -> StoreUnderTest:
        path = tmp_path / "store.log"

        def corrupt(execution_id: str, line: int) -> int:
            lines = path.read_bytes().split(b"\n")
            own = [i for i, text in enumerate(lines[1:], start=1)
                   if text and json.loads(text).get("executionId") == execution_id]
            at = own[line - 1]
            lines[at] = flip_crc(lines[at])
            path.write_bytes(b"\n".join(lines))
            return at + 1  # the log's own line

        return StoreUnderTest(
            make=lambda: LogStore(path), name="log", corrupt=corrupt,
            on_disk=lambda fs, policy: LogStore("/disk/store.log", fsync=policy, fs=fs),
            kills=40)


class TestSqliteStore(StoreContract):
    @pytest.fixture
    def loom_store(self, tmp_path: Path) -> StoreUnderTest:
        path = tmp_path / "store.db"

        def corrupt(execution_id: str, line: int) -> int:
            with closing(sqlite3.connect(path)) as db, db:  # closed: it holds no lock after
                if line == 1:
                    (header,), = db.execute("SELECT header FROM journals WHERE execution_id = ?",
                                            (execution_id,))
                    db.execute("UPDATE journals SET header = ? WHERE execution_id = ?",
                               (flip_crc(header[:-1]) + b"\n", execution_id))
                else:
                    (text,), = db.execute("SELECT line FROM lines WHERE execution_id = ? AND "
                                          "seq = ?", (execution_id, line - 1))
                    db.execute("UPDATE lines SET line = ? WHERE execution_id = ? AND seq = ?",
                               (flip_crc(text[:-1]) + b"\n", execution_id, line - 1))
            return line

        return StoreUnderTest(
            make=lambda: SqliteStore(path), name="sqlite", corrupt=corrupt, kills=40,
            why_not={"on_disk": "SQLite writes through its own VFS, which Python's sqlite3 "
                                "cannot wrap (spec/journal.md 1.9); test_sqlitestore.py "
                                "checks the synchronous mapping and the directory sync"})


def test_every_store_class_here_is_a_contract() -> None:
    """Four stores, one kit: the classes above are all collected as the contract."""
    classes: list[Any] = [TestMemoryStore, TestFileStore, TestLogStore, TestSqliteStore]
    assert all(issubclass(c, StoreContract) for c in classes)
    names = [n for n in dir(StoreContract) if n.startswith("test_")]
    assert len(names) >= 12


def test_a_skip_says_why(tmp_path: Path) -> None:
    sut = StoreUnderTest(make=MemoryStore, name="mine", why_not={"on_disk": "no disk here"})
    with pytest.raises(pytest.skip.Exception, match="mine: no on_disk: no disk here"):
        sut.skip_without("on_disk", None)
    with pytest.raises(pytest.skip.Exception, match="did not give it"):
        sut.skip_without("corrupt", None)
    sut.skip_without("persistent", True)  # given: no skip
