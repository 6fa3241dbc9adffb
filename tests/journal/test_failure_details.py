"""What only a Python caller of a store sees (issue 30, the survivors of a fresh mutation
sample, seed 803808): the ``details["op"]`` of ``journal.os-errors``, which no protocol reply
carries (observations carry an error's code, line and reason only,
``conformance/INTERPRETING.md`` section 6), and a shared store's own check of the id it is
given to create, which every protocol path has made before it reaches the store."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from loom_ref.errors import InvalidArgument, JournalError
from loom_ref.journal import EventKind, FsyncPolicy, LogStore, SqliteStore

START = {"executionId": "x", "workflow": "w", "input": None}


def test_a_failed_sync_of_the_store_log_names_the_sync(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # spec: journal.os-errors -- the error names what was being done: the line was appended,
    # the sync failed, so details["op"] is "sync", not "append to"
    store = LogStore(tmp_path / "s.log", fsync=FsyncPolicy.EVERY_EVENT)
    journal = store.create("x")

    def failing(fd: int) -> None:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(os, "fsync", failing)
    if hasattr(os, "fdatasync"):
        monkeypatch.setattr(os, "fdatasync", failing)
    with pytest.raises(JournalError) as info:
        journal.append(EventKind.EXECUTION_STARTED, START)
    assert info.value.code == "journal.write-failed"
    assert info.value.details["op"] == "sync", info.value.details
    assert info.value.details["errno"] == "EIO"


@pytest.mark.parametrize("kind", ["log", "sqlite"])
@pytest.mark.parametrize("bad", ["", "a/b", "x" * 300, 7])
def test_a_shared_store_refuses_a_malformed_id_on_create(
        tmp_path: Path, kind: str, bad: object) -> None:
    # spec: journal.execution-ids -- the Python API's create checks its argument itself (the
    # protocol's paths check an id before they reach a store: Runtime.start, the store
    # vectors' steps), so a malformed id is refused and the store holds nothing
    store = (LogStore(tmp_path / "s.log", fsync=FsyncPolicy.NEVER) if kind == "log"
             else SqliteStore(tmp_path / "s.db", fsync=FsyncPolicy.NEVER))
    with pytest.raises(InvalidArgument) as info:
        store.create(bad)  # type: ignore[arg-type]
    assert info.value.code == "argument.execution-id"
    assert store.executions() == []
    store.close()


@pytest.mark.parametrize("kind", ["log", "sqlite"])
def test_a_closed_shared_store_refuses_create_and_open_up_front(tmp_path: Path, kind: str) -> None:
    # spec/errors.md journal.closed -- a store the caller closed takes no more calls: create
    # and open are refused with journal.closed before they claim or register anything (no
    # protocol path uses a store after closing it: the vectors close one only to reopen it)
    store = (LogStore(tmp_path / "s.log", fsync=FsyncPolicy.NEVER) if kind == "log"
             else SqliteStore(tmp_path / "s.db", fsync=FsyncPolicy.NEVER))
    journal = store.create("a")
    journal.append(EventKind.EXECUTION_STARTED, {**START, "executionId": "a"})
    journal.close()
    store.close()
    for call in (lambda: store.create("b"), lambda: store.open("a")):
        with pytest.raises(JournalError) as info:
            call()
        assert info.value.code == "journal.closed"
    assert store.executions() == ["a"]
