"""The store log (extension): one append-only file holding every execution's journal."""

from __future__ import annotations

import os
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loom_ref import InvalidArgument
from loom_ref.effects import Effect
from loom_ref.journal import (
    CorruptJournalError,
    Crash,
    EventKind,
    FaultInjectingStore,
    FsyncPolicy,
    JournalExistsError,
    JournalLockedError,
    JournalNotFoundError,
    LogStore,
    MemoryStore,
    PayloadError,
    Status,
    parse_log,
)
from loom_ref.journal.codec import encode_header
from loom_ref.journal.logstore import encode_log_header, encode_log_line
from loom_ref.kernel import EffectRegistry, ExecutionContext, Runtime, Workflow

K = EventKind


def start(eid: str) -> dict[str, Any]:
    return {"executionId": eid, "workflow": "w", "input": None}


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "store.log"


def test_interleaved_executions_read_back_in_their_own_order(path: Path) -> None:
    # spec: journal.log-executions
    with LogStore(path, fsync=FsyncPolicy.NEVER) as store:
        a, b = store.create("a"), store.create("b")
        a.append(K.EXECUTION_STARTED, start("a"))
        b.append(K.EXECUTION_STARTED, start("b"))
        a.append(K.STREAM_APPENDED, {"streamId": "stream#1", "data": "é"})
        a.close()
        b.close()
        assert store.executions() == ["a", "b"]
    with LogStore(path) as again:
        assert again.executions() == ["a", "b"]
        assert [(e.seq, e.kind) for e in again.read("a").events] == [
            (1, K.EXECUTION_STARTED), (2, K.STREAM_APPENDED)]
        assert again.read("a").events[1].payload == {"streamId": "stream#1", "data": "é"}
        assert [e.seq for e in again.read("b").events] == [1]
    lines = path.read_bytes().split(b"\n")
    assert lines[0] == encode_log_header()[:-1]
    assert lines[1] == encode_header("a")[:-1]  # an execution's header is the journal header
    assert lines[2].startswith(b'{"executionId":"a","seq":1,"kind":"EXECUTION_STARTED"')
    assert lines[3] == encode_header("b")[:-1]
    assert lines[5].startswith(b'{"executionId":"a","seq":2,"kind":"STREAM_APPENDED"')


def test_the_header_goes_with_the_first_event(path: Path) -> None:
    # an execution that never journaled an event leaves nothing in the log
    with LogStore(path) as store:
        store.create("quiet").close()
        j = store.create("busy")
        assert path.read_bytes() == encode_log_header()
        j.append(K.EXECUTION_STARTED, start("busy"))
        j.close()
        assert list(store.read("quiet").events) == []
        assert store.executions() == ["quiet", "busy"]
    assert path.read_bytes().count(b"\n") == 3
    with LogStore(path) as again:
        assert again.executions() == ["busy"]


def test_a_new_log_holds_only_its_header(path: Path) -> None:
    # spec: journal.log-format
    LogStore(path).close()
    assert path.read_bytes() == encode_log_header()
    assert encode_log_header() == b'{"schema":"loom-ref.log","version":1,"crc":"%08x"}\n' % (
        __import__("zlib").crc32(b'{"schema":"loom-ref.log","version":1'))


def test_log_lines_are_the_journal_lines_with_the_id_first() -> None:
    line = encode_log_line("e1", 3, "STEP_COMPLETED", {"stepId": "a#1", "output": [1]})
    assert line.startswith(b'{"executionId":"e1","seq":3,"kind":"STEP_COMPLETED",'
                           b'"payload":{"stepId":"a#1","output":[1]},"crc":"')
    parsed = parse_log(encode_log_header() + encode_header("e1") + encode_log_line(
        "e1", 1, "EXECUTION_STARTED", start("e1")))
    assert [e.kind for e in parsed.journals["e1"].events] == [K.EXECUTION_STARTED]


def test_a_second_store_on_the_same_log_is_refused(path: Path) -> None:
    # spec: journal.log-single-writer
    with LogStore(path):
        with pytest.raises(JournalLockedError) as info:
            LogStore(path)
        assert info.value.code == "journal.locked"
    LogStore(path).close()  # released on close


def test_one_writer_per_execution_within_the_store(path: Path) -> None:
    with LogStore(path) as store:
        j = store.create("e1")
        with pytest.raises(JournalLockedError):
            store.open("e1")
        j.close()
        store.open("e1").close()
        with pytest.raises(JournalExistsError):
            store.create("e1")
        with pytest.raises(JournalNotFoundError):
            store.open("nope")
        with pytest.raises(JournalNotFoundError):
            store.read("nope")
        assert store.exists("e1") and not store.exists("nope")


def test_bad_payload_writes_nothing(path: Path) -> None:
    with LogStore(path, fsync=FsyncPolicy.NEVER) as store:
        j = store.create("e1")
        j.append(K.EXECUTION_STARTED, start("e1"))
        before = path.read_bytes()
        with pytest.raises(PayloadError):
            j.append(K.STREAM_APPENDED, {"streamId": "s", "data": {1, 2}})
        with pytest.raises(PayloadError):
            j.append(K.STREAM_APPENDED, {"streamId": "s", "data": float("inf")})
        assert path.read_bytes() == before and len(j.events) == 1
        # the next append after a failed encode is written whole
        j.append(K.STREAM_APPENDED, {"streamId": "s", "data": {"x": [1]}})
        assert len(store.read("e1").events) == 2


def test_closed_store_refuses_work(path: Path) -> None:
    store = LogStore(path)
    j = store.create("e1")
    store.close()
    store.close()  # harmless
    with pytest.raises(Exception) as info:
        j.append(K.EXECUTION_STARTED, start("e1"))
    assert getattr(info.value, "code", None) == "journal.closed"
    with pytest.raises(Exception) as info:
        store.create("e2")
    assert getattr(info.value, "code", None) == "journal.closed"


def test_torn_tail_is_truncated_reported_and_attributed(path: Path) -> None:
    # spec: journal.log-torn-tail
    with LogStore(path, fsync=FsyncPolicy.NEVER) as store:
        for eid in ("a", "b"):
            store.create(eid).append(K.EXECUTION_STARTED, start(eid))
    good = path.read_bytes()
    path.write_bytes(good + b'{"executionId":"a","seq":2,"ki')
    with LogStore(path) as store:  # a process that only reads leaves the torn bytes
        assert store.torn_execution == "a" and store.read("a").torn == store.torn
    assert path.read_bytes() == good + b'{"executionId":"a","seq":2,"ki'
    with LogStore(path) as store:
        assert store.torn is not None and store.torn.line == 6 and store.torn.size == 30
        assert store.torn_execution == "a"
        assert store.read("a").torn == store.torn and store.read("b").torn is None
        j = store.open("a")
        assert path.read_bytes() == good  # truncated when a writer opens what they name
        assert j.torn == store.torn  # the runtime warns from this
        j.close()
        assert store.open("a").torn is None  # reported once


def test_named_torn_bytes_go_before_the_first_append(path: Path) -> None:
    # spec: journal.log-torn-tail -- another execution's append truncates them first
    with LogStore(path, fsync=FsyncPolicy.NEVER) as store:
        store.create("a").append(K.EXECUTION_STARTED, start("a"))
    good = path.read_bytes()
    path.write_bytes(good + b'{"executionId":"a","seq":2,"ki')
    with LogStore(path, fsync=FsyncPolicy.NEVER) as store:
        store.create("b").append(K.EXECUTION_STARTED, start("b"))
        data = path.read_bytes()
        assert data.startswith(good) and parse_log(data).torn is None
        assert store.read("a").torn == store.torn  # this process still tells a's writer
    with LogStore(path) as store:
        assert store.torn is None and store.read("a").torn is None


@pytest.mark.parametrize("tail, named", [
    (b'{"exec', None), (b'{"executionId":"a', None), (b'{"executionId":"a"', "a"),
    (b'{"executionId":"../x","seq"', None), (b'{"schema":"loom-ref.journal","ver', None)])
def test_the_torn_bytes_name_an_execution_only_if_they_get_that_far(
        tail: bytes, named: str | None) -> None:
    data = encode_log_header() + encode_header("a")
    parsed = parse_log(data + tail)
    assert parsed.torn is not None and parsed.torn.size == len(tail)
    assert parsed.torn_execution == named
    assert parsed.good_size == len(data)


@pytest.mark.parametrize("lines, line, reason", [
    ([b'{"schema":"loom-ref.journal","version":1,"executionId":"a"}'], 1,
     "journal.malformed-line"),
    ([encode_log_header(), encode_log_line("a", 1, "EXECUTION_STARTED", start("a"))], 2,
     "journal.bad-header"),
    ([encode_log_header(), encode_header("a"), encode_header("a")], 3, "journal.bad-header"),
    ([encode_log_header(), encode_header("a"),
      encode_log_line("a", 2, "EXECUTION_STARTED", start("a"))], 3, "journal.seq-gap"),
    ([encode_log_header(), encode_header("a"),
      encode_log_line("a", 1, "NOT_A_KIND", {})], 3, "journal.bad-payload"),
    ([encode_header("a")], 1, "journal.bad-header"),
])
def test_corrupt_logs_name_the_line(lines: list[bytes], line: int, reason: str) -> None:
    # spec: journal.log-executions, journal.corrupt-line
    data = b"".join(x if x.endswith(b"\n") else x + b"\n" for x in lines)
    with pytest.raises(CorruptJournalError) as info:
        parse_log(data, source="s.log")
    assert info.value.details["line"] == line
    assert info.value.details["reason"] == reason
    assert info.value.details["file"] == "s.log"


def test_a_flipped_byte_in_the_execution_id_is_caught_by_the_checksum() -> None:
    data = encode_log_header() + encode_header("a") + encode_header("b") + encode_log_line(
        "a", 1, "EXECUTION_STARTED", start("a"))
    bad = data.replace(b'{"executionId":"a","seq"', b'{"executionId":"b","seq"')
    with pytest.raises(CorruptJournalError) as info:
        parse_log(bad)
    assert info.value.details["reason"] == "journal.bad-checksum"


def test_arguments_are_checked(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgument):
        LogStore(tmp_path / "missing" / "x.log")
    with pytest.raises(InvalidArgument):
        LogStore(tmp_path / "x.log", fsync="never")  # type: ignore[arg-type]
    with LogStore(tmp_path / "x.log") as store, pytest.raises(InvalidArgument):
        store.create("../x")
    with pytest.raises(InvalidArgument):
        LogStore(5)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument):
        LogStore(tmp_path)  # a directory, not a file
    with pytest.raises(InvalidArgument):
        parse_log("text, not bytes")  # type: ignore[arg-type]


def test_fsync_policy_applies_to_the_log(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # spec: journal.fsync-policy
    calls: list[int] = []
    for name in ("fsync", "fdatasync"):  # the log's data (fdatasync where there is one), a dir
        if hasattr(os, name):
            real = getattr(os, name)
            monkeypatch.setattr(os, name, lambda fd, real=real: (calls.append(fd), real(fd))[1])
    with LogStore(path, fsync=FsyncPolicy.AT_BOUNDARIES) as store:
        j = store.create("e1")
        j.append(K.EXECUTION_STARTED, start("e1"))
        j.append(K.EXECUTION_COMPLETED, {"output": 1})
    assert len(calls) == 2  # the log at the boundary, and its directory once (journal.dir-sync)


# -- the kernel on a store log: crash after every append, recover with a fresh store ------

def body(ctx: ExecutionContext, n: Any) -> Generator[Any, Any, Any]:
    total = 0
    for i in range(n):
        total += yield ctx.execute("add", i)
    return total


def runtime(store: Any, calls: list[int]) -> Runtime:
    def add(ctx: Any, input: Any) -> int:
        calls.append(input)
        return int(input)
    effects = EffectRegistry([Effect(tool_id="add", execute=add, idempotent=True)])
    return Runtime(store=store, effects=effects, workflows=[Workflow(name="w", body=body)],
                   on_warn=lambda message: None)


def journals(store: Any, ids: list[str]) -> list[list[dict[str, Any]]]:
    return [[e.to_json() for e in store.read(eid).events] for eid in ids]


@settings(max_examples=25, deadline=None)
@given(crash_after=st.integers(min_value=1, max_value=20), torn=st.integers(0, 30))
def test_crash_anywhere_in_a_shared_log_recovers_every_execution(
        tmp_path_factory: pytest.TempPathFactory, crash_after: int, torn: int) -> None:
    # spec: journal.crash-model, kernel.recover -- three executions share one log
    ids = ["x", "y", "z"]
    reference = MemoryStore()
    for eid in ids:
        runtime(reference, []).start("w", 2, execution_id=eid)
    path = tmp_path_factory.mktemp("log") / "store.log"
    store = LogStore(path, fsync=FsyncPolicy.NEVER)
    calls: list[int] = []
    crashed = False
    try:
        rt = runtime(FaultInjectingStore(store, crash_after=crash_after, torn_bytes=torn), calls)
        for eid in ids:
            rt.start("w", 2, execution_id=eid)
    except Crash:
        crashed = True
    store.close()  # the process died: the OS lets go of the lock
    with LogStore(path, fsync=FsyncPolicy.NEVER) as fresh:
        rt = runtime(fresh, calls)
        for eid in ids:
            if not fresh.exists(eid) or not fresh.read(eid).events:
                rt.start("w", 2, execution_id=eid)
            else:
                assert rt.recover(eid).status is Status.COMPLETED
        assert journals(fresh, ids) == journals(reference, ids)
    assert crashed == (crash_after <= 18)  # 3 executions x 6 appends


def test_a_log_of_torn_bytes_alone_is_truncated_before_its_header(path: Path) -> None:
    # spec: journal.log-torn-tail -- torn bytes are kept for the writer of the execution they
    # name only after a good line; a file that is nothing but a torn line naming one (no store
    # header before it: a hostile or foreign file) is truncated, then the header written, so
    # the store's first line is its header (journal sample 421768: `good_size > 0` -> `>= 0`
    # kept the bytes, and the header landed after them)
    path.write_bytes(b'{"executionId":"a","seq":1,"ki')
    assert parse_log(path.read_bytes()).torn_execution == "a"
    with LogStore(path, fsync=FsyncPolicy.NEVER) as store:
        store.create("a").append(K.EXECUTION_STARTED, start("a"))
    assert path.read_bytes().startswith(encode_log_header())
    parsed = parse_log(path.read_bytes())
    assert parsed.torn is None and [e.kind for e in parsed.journals["a"].events] == [
        K.EXECUTION_STARTED]
