"""A journal store of our own, and the store kit run against it (the worked example of
docs/store-kit.md, which includes this file verbatim)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from loom_ref.journal import (
    FileSystem,
    FsyncPolicy,
    JournalExistsError,
    JournalLockedError,
    JournalNotFoundError,
    LineJournal,
    OsFileSystem,
    ParsedJournal,
    encode_header,
    parse_journal,
)
from loom_ref.testing import StoreContract, StoreUnderTest, check_power_loss


class DirectoryStore:
    """Each execution's journal in ``<directory>/<execution id>.log``, written through a file
    layer (``fs``) so that the kit can run it on its simulated disk."""

    sync_directory = True  # a new file's name survives a power loss only once this is done

    def __init__(self, directory: str | Path, *, fsync: FsyncPolicy = FsyncPolicy.EVERY_EVENT,
                 fs: FileSystem | None = None) -> None:
        self.directory = str(directory)
        self.fsync = fsync
        self.fs = fs or OsFileSystem()

    def _path(self, execution_id: str) -> str:
        return os.path.join(self.directory, execution_id + ".log")

    def exists(self, execution_id: str) -> bool:
        return self.fs.exists(self._path(execution_id))

    def read(self, execution_id: str) -> ParsedJournal:
        try:
            data = self.fs.read(self._path(execution_id))
        except FileNotFoundError:
            raise JournalNotFoundError(f"no journal for {execution_id!r}") from None
        return parse_journal(data, source=self._path(execution_id))

    def create(self, execution_id: str) -> LineJournal:
        try:
            handle = self.fs.create(self._path(execution_id))
        except FileExistsError:
            raise JournalExistsError(f"{execution_id!r} already has a journal") from None
        handle.lock()
        handle.append(encode_header(execution_id))
        return LineJournal(execution_id=execution_id, backend=_Backend(self, handle),
                           fsync=self.fsync)

    def open(self, execution_id: str) -> LineJournal:
        try:
            handle = self.fs.open(self._path(execution_id))
        except FileNotFoundError:
            raise JournalNotFoundError(f"no journal for {execution_id!r}") from None
        if not handle.lock():
            handle.close()
            raise JournalLockedError(f"{execution_id!r} has a writer")
        data = handle.read_all()
        parsed = parse_journal(data, source=self._path(execution_id))
        if parsed.good_size < len(data):
            handle.truncate(parsed.good_size)  # a torn tail goes before the first append
        if parsed.execution_id is None:
            handle.append(encode_header(execution_id))
        return LineJournal(execution_id=execution_id, backend=_Backend(self, handle),
                           events=parsed.events, torn=parsed.torn, fsync=self.fsync)


class _Backend:
    """Where one journal's lines go (loom_ref.journal.Backend)."""

    def __init__(self, store: DirectoryStore, handle: Any) -> None:
        self.store, self.handle, self.named = store, handle, False

    def write(self, data: bytes, *, sync: bool) -> None:
        self.handle.append(data)
        if sync:
            self.handle.sync()
            if self.store.sync_directory and not self.named:
                self.store.fs.sync_dir(self.store.directory)
                self.named = True

    def release(self) -> None:
        self.handle.close()


class HastyDirectoryStore(DirectoryStore):
    """The bug: "fsync of the file is enough"."""

    sync_directory = False


class TestDirectoryStore(StoreContract):
    @pytest.fixture
    def loom_store(self, tmp_path: Path) -> StoreUnderTest:
        def corrupt(execution_id: str, line: int) -> int:
            path = tmp_path / f"{execution_id}.log"
            lines = path.read_bytes().split(b"\n")
            crc = b"ffffffff" if lines[line - 1][-10:-2] == b"00000000" else b"00000000"
            lines[line - 1] = lines[line - 1][:-10] + crc + lines[line - 1][-2:]
            path.write_bytes(b"\n".join(lines))
            return line  # the line the store's error must name

        return StoreUnderTest(
            make=lambda: DirectoryStore(tmp_path), name="directory store", corrupt=corrupt,
            on_disk=lambda fs, policy: DirectoryStore("/disk", fsync=policy, fs=fs), kills=20)


def test_the_kit_catches_a_store_that_never_syncs_its_directory() -> None:
    problems = check_power_loss(
        lambda fs, policy: HastyDirectoryStore("/disk", fsync=policy, fs=fs),
        FsyncPolicy.EVERY_EVENT)
    assert any(p.startswith("acknowledged-kept: order under every-event") for p in problems)
