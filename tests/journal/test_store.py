"""Stores: memory and file journals, locking, fsync policy, torn-tail truncation, faults."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from loom_ref import InvalidArgument
from loom_ref.journal import (
    Crash,
    EventKind,
    FaultInjectingStore,
    FileStore,
    FsyncPolicy,
    JournalClosedError,
    JournalExistsError,
    JournalLockedError,
    JournalNotFoundError,
    MemoryStore,
    PayloadError,
    parse_journal,
)

START = {"executionId": "e1", "workflow": "w", "input": None}


@pytest.fixture(params=["memory", "file"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    if request.param == "memory":
        return MemoryStore()
    return FileStore(tmp_path, fsync=FsyncPolicy.NEVER)


def raw(store: Any, execution_id: str) -> bytes:
    if isinstance(store, MemoryStore):
        return bytes(store.data[execution_id])
    return Path(store.path(execution_id)).read_bytes()


def set_raw(store: Any, execution_id: str, data: bytes) -> None:
    if isinstance(store, MemoryStore):
        store.data[execution_id] = bytearray(data)
    else:
        Path(store.path(execution_id)).write_bytes(data)


def test_append_then_reopen_reads_the_same_events(store: Any) -> None:
    j = store.create("e1")
    j.append(EventKind.EXECUTION_STARTED, START)
    j.append(EventKind.STREAM_APPENDED, {"streamId": "stream#1", "data": [1, "two"]})
    j.close()
    j2 = store.open("e1")
    assert [(e.seq, e.kind, dict(e.payload)) for e in j2.events] == [
        (1, EventKind.EXECUTION_STARTED, START),
        (2, EventKind.STREAM_APPENDED, {"streamId": "stream#1", "data": [1, "two"]}),
    ]
    assert j2.torn is None
    j2.close()


def test_second_writer_is_refused(store: Any) -> None:
    # spec: journal.single-writer
    j = store.create("e1")
    with pytest.raises(JournalLockedError) as info:
        store.open("e1")
    assert info.value.code == "journal.locked"
    j.close()
    store.open("e1").close()  # released on close


def test_create_twice_and_open_missing(store: Any) -> None:
    store.create("e1").close()
    with pytest.raises(JournalExistsError):
        store.create("e1")
    with pytest.raises(JournalNotFoundError):
        store.open("nope")


def test_non_json_payload_is_refused_and_nothing_written(store: Any) -> None:
    j = store.create("e1")
    j.append(EventKind.EXECUTION_STARTED, START)
    before = raw(store, "e1")
    with pytest.raises(PayloadError) as info:
        j.append(EventKind.STREAM_APPENDED, {"streamId": "s", "data": {1, 2}})
    assert info.value.code == "journal.bad-payload"
    with pytest.raises(PayloadError):
        j.append(EventKind.STREAM_APPENDED, {"streamId": "s", "data": float("nan")})
    with pytest.raises(PayloadError):
        j.append(EventKind.STREAM_APPENDED, {"streamId": "s"})
    with pytest.raises(PayloadError):  # a lone surrogate: UTF-8 cannot carry it
        j.append(EventKind.STREAM_APPENDED, {"streamId": "s", "data": {"\ud800": 1}})
    assert raw(store, "e1") == before
    assert len(j.events) == 1
    j.close()
    with pytest.raises(JournalClosedError):
        j.append(EventKind.STREAM_APPENDED, {"streamId": "s", "data": 1})


def test_torn_tail_is_reported_and_truncated_before_appending(store: Any) -> None:
    # spec: journal.torn-tail
    j = store.create("e1")
    j.append(EventKind.EXECUTION_STARTED, START)
    j.close()
    good = raw(store, "e1")
    set_raw(store, "e1", good + b'{"seq":2,"ki')
    j = store.open("e1")
    assert j.torn is not None and j.torn.size == 12 and j.torn.line == 3
    j.append(EventKind.STREAM_APPENDED, {"streamId": "stream#1", "data": 1})
    j.close()
    j = store.open("e1")
    assert j.torn is None and [e.seq for e in j.events] == [1, 2]
    j.close()


def test_fault_store_crashes_after_the_kth_append(store: Any) -> None:
    # spec: journal.crash-model
    faulty = FaultInjectingStore(store, crash_after=2)
    j = faulty.create("e1")
    j.append(EventKind.EXECUTION_STARTED, START)
    with pytest.raises(Crash) as info:
        j.append(EventKind.STREAM_APPENDED, {"streamId": "s#1", "data": 1})
    assert not isinstance(info.value, Exception)
    j.close()
    assert [e.seq for e in store.read("e1").events] == [1, 2]


def test_one_fault_store_serves_every_phase(store: Any) -> None:
    """spec: journal.fault-arming -- armed later, it counts from then on, over all its
    journals, crashes once and then passes every append on."""
    faulty = FaultInjectingStore(store)
    assert not faulty.armed
    j = faulty.create("e1")
    for n in range(3):  # unarmed: nothing crashes
        j.append(EventKind.STREAM_APPENDED if n else EventKind.EXECUTION_STARTED,
                 START if n == 0 else {"streamId": f"s#{n}", "data": n})
    assert faulty.appends == 3
    assert faulty.arm(2) is faulty and faulty.armed and faulty.appends == 0
    other = faulty.create("e2")  # the count is the process's, across journals
    other.append(EventKind.EXECUTION_STARTED, {**START, "executionId": "e2"})
    with pytest.raises(Crash) as info:
        j.append(EventKind.STREAM_APPENDED, {"streamId": "s#3", "data": 3})
    assert info.value.after == 2 and not faulty.armed
    j.append(EventKind.STREAM_APPENDED, {"streamId": "s#4", "data": 4})  # disarmed
    j.close()
    other.close()
    assert [e.seq for e in store.read("e1").events] == [1, 2, 3, 4, 5]
    with pytest.raises(InvalidArgument):
        faulty.arm(0)
    with pytest.raises(InvalidArgument):
        FaultInjectingStore(store, torn_bytes=3)  # a torn write needs the append to tear


def test_fault_store_can_tear_the_crashing_write(store: Any) -> None:
    faulty = FaultInjectingStore(store, crash_after=2, torn_bytes=5)
    j = faulty.create("e1")
    j.append(EventKind.EXECUTION_STARTED, START)
    with pytest.raises(Crash):
        j.append(EventKind.STREAM_APPENDED, {"streamId": "s#1", "data": 1})
    j.close()
    parsed = store.read("e1")
    assert [e.seq for e in parsed.events] == [1]
    assert parsed.torn is not None and parsed.torn.size == 5


@pytest.mark.parametrize("policy, expected", [  # the file per synced event, the directory once
    (FsyncPolicy.EVERY_EVENT, 3 + 1), (FsyncPolicy.WRITE_AHEAD, 1 + 1),
    (FsyncPolicy.AT_BOUNDARIES, 1 + 1), (FsyncPolicy.NEVER, 0)])
def test_fsync_policy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, policy: FsyncPolicy,
                      expected: int) -> None:
    # spec: journal.fsync-policy
    calls: list[int] = []
    for name in ("fsync", "fdatasync"):  # a file's data (fdatasync where there is one), a dir
        if hasattr(os, name):
            real = getattr(os, name)
            monkeypatch.setattr(os, name, lambda fd, real=real: (calls.append(fd), real(fd))[1])
    j = FileStore(tmp_path, fsync=policy).create("e1")
    j.append(EventKind.EXECUTION_STARTED, START)
    j.append(EventKind.STREAM_APPENDED, {"streamId": "s", "data": 1})
    j.append(EventKind.EXECUTION_COMPLETED, {"output": 1})
    j.close()
    assert len(calls) == expected


def test_file_lock_holds_across_store_instances(tmp_path: Path) -> None:
    j = FileStore(tmp_path).create("e1")
    with pytest.raises(JournalLockedError):
        FileStore(tmp_path).open("e1")
    j.close()


@pytest.mark.parametrize("bad", ["", "../x", "a/b", ".hidden", 7, "x" * 201])
def test_execution_ids_are_checked(bad: object) -> None:
    with pytest.raises(InvalidArgument) as info:
        MemoryStore().create(bad)  # type: ignore[arg-type]
    assert info.value.code == "argument.execution-id"


def test_store_arguments_are_checked(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgument):
        FileStore(tmp_path / "missing")
    with pytest.raises(InvalidArgument):
        FileStore(tmp_path, fsync="always")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument):
        FaultInjectingStore(MemoryStore(), crash_after=0)
    with pytest.raises(InvalidArgument):
        FileStore(5)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument):
        parse_journal("text, not bytes")  # type: ignore[arg-type]
