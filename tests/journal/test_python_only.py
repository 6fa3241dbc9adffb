"""The Python API of the journal layer that no conformance function reaches (issue 30): each
test here is what ``tools/coverage/python-only.toml`` names for a region the suite cannot
drive (a wrapper's base methods, a test instrument's delegations, a disk check only a Python
caller meets)."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from loom_ref.errors import InvalidArgument, JournalError
from loom_ref.journal import (
    CorruptJournalError,
    Crash,
    EventKind,
    FaultInjectingStore,
    FileStore,
    FsyncPolicy,
    LogStore,
    MemoryStore,
    SqliteStore,
)
from loom_ref.journal.codec import encode_header, from_json_text, to_json_text
from loom_ref.journal.contentstore import CONTENT, ContentResolvingStore
from loom_ref.journal.durability import ALL_INVARIANTS, GUARANTEES
from loom_ref.journal.fs import OsFileSystem, _kind_at, file_kind
from loom_ref.journal.logstore import read_log_file
from loom_ref.journal.powerloss import SimulatedDisk
from loom_ref.journal.store import JournalWrapper, LineJournal, read_named_file
from loom_ref.journal.vectors_disk import _RecordingDisk

K = EventKind
STARTED = {"executionId": "e1", "workflow": "w", "input": None}


def test_the_base_wrapper_hands_on_to_the_journal_it_wraps() -> None:
    journal = MemoryStore().create("e1")
    wrapper = JournalWrapper(journal)
    assert wrapper.inner is journal
    event = wrapper.append(K.EXECUTION_STARTED, STARTED)
    assert event.seq == 1 and list(journal.events) == [event] == list(wrapper.events)


def test_the_fault_injector_says_what_it_is_armed_for_and_delegates_reads() -> None:
    store = MemoryStore()
    faults = FaultInjectingStore(store, crash_after=3)
    assert repr(faults) == ("FaultInjectingStore(MemoryStore, armed: crash at append 3, "
                            "0 appends counted)")
    assert repr(FaultInjectingStore(store)).startswith("FaultInjectingStore(MemoryStore, disarmed")
    assert not faults.exists("e1")
    store.create("e1").append(K.EXECUTION_STARTED, STARTED)
    assert faults.exists("e1")
    assert [e.kind for e in faults.read("e1").events] == [K.EXECUTION_STARTED]


def test_a_journal_added_by_hand_is_known_to_the_twin_check() -> None:
    store = MemoryStore()
    store.data["x1"] = bytearray(encode_header("x1"))  # a test's journal, put there by hand
    with pytest.raises(InvalidArgument) as info:
        store.create("X1")
    assert info.value.code == "argument.execution-id"


def test_the_recording_disk_answers_exists_and_the_disk_lists_only_its_directories() -> None:
    disk = SimulatedDisk()
    recording = _RecordingDisk(disk)
    assert recording.exists("/disk") and not recording.exists("/disk/a")
    with pytest.raises(FileNotFoundError):
        disk.list_dir("/elsewhere")
    with pytest.raises(InvalidArgument):
        SimulatedDisk(planted={"/elsewhere/a": "FIFO"})


def test_a_bad_reference_over_a_file_store_names_its_file(tmp_path: Path) -> None:
    inner = FileStore(tmp_path, fsync=FsyncPolicy.NEVER)
    raw = inner.create("e1")
    raw.append(K.EXECUTION_STARTED, STARTED)
    raw.append(K.STEP_STARTED, {"stepId": "m#1", "toolId": "m", "idempotencyKey": "e1/m#1",
                                "input": {"messages": {CONTENT: {"items": [[0, 1]]}}}})
    raw.close()
    with pytest.raises(CorruptJournalError) as info:
        ContentResolvingStore(inner).read("e1")
    assert info.value.details["file"] == str(tmp_path / "e1.jsonl")
    assert info.value.details["reason"] == "journal.missing-content"


def test_what_a_policy_gives_up_is_what_it_does_not_hold() -> None:
    for guarantee in GUARANTEES.values():
        assert guarantee.gives_up == ALL_INVARIANTS - guarantee.holds
        assert not guarantee.gives_up & guarantee.holds


def test_json_text_round_trips_through_the_codec() -> None:
    value = {"a": [1, 2.5, None, True, "é"]}
    assert from_json_text(to_json_text(value)) == value


def test_the_inspection_readers_name_what_they_cannot_read(tmp_path: Path) -> None:
    with pytest.raises(JournalError) as info:
        read_named_file(str(tmp_path / "missing.jsonl"))
    assert info.value.code == "journal.not-found"
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(JournalError) as info:
        read_named_file(str(fifo))
    assert info.value.code == "journal.not-a-file"
    plain = tmp_path / "plain.txt"
    plain.write_bytes(b"not a log\n")
    assert read_log_file(plain) is None
    log = tmp_path / "store.log"
    with LogStore(log, fsync=FsyncPolicy.NEVER) as store:
        store.create("e1").append(K.EXECUTION_STARTED, STARTED)
    parsed = read_log_file(log)
    assert parsed is not None and list(parsed.journals) == ["e1"]


def test_file_kinds_the_stat_bits_do_not_name_are_special() -> None:
    assert file_kind(0) == "special file"
    assert file_kind(stat.S_IFCHR) == "character device"
    assert _kind_at("/nonexistent/loom-ref/x") is None


def test_the_sqlite_store_refuses_a_bad_place_and_work_once_closed(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgument):
        SqliteStore(tmp_path / "no-such-dir" / "store.db")
    with pytest.raises(InvalidArgument):
        SqliteStore(tmp_path)  # a directory
    store = SqliteStore(tmp_path / "store.db", fsync=FsyncPolicy.NEVER)
    store.create("e1").append(K.EXECUTION_STARTED, STARTED)
    store.close()
    store.close()  # harmless
    with pytest.raises(JournalError) as info:
        store.read("e1")
    assert info.value.code == "journal.closed"
    link = tmp_path / "link.db"
    link.symlink_to(tmp_path / "store.db")
    with pytest.raises(JournalError) as info:
        SqliteStore(link)
    assert info.value.code == "journal.not-a-file"


class _FailingBackend:
    """A backend of a Python caller's own that fails as an operating system does."""

    def write(self, data: bytes, *, sync: bool) -> None:
        raise OSError(errno.EIO, "the disk went away")

    def release(self) -> None:
        raise OSError(errno.EBADF, "already gone")


def test_a_backend_that_fails_closes_its_journal() -> None:
    journal = LineJournal(execution_id="e1", backend=_FailingBackend(),
                          fsync=FsyncPolicy.NEVER)
    with pytest.raises(JournalError) as info:
        journal.append(K.EXECUTION_STARTED, STARTED)
    assert info.value.code == "journal.write-failed" and info.value.details["errno"] == "EIO"
    with pytest.raises(JournalError) as info:
        journal.append(K.EXECUTION_STARTED, STARTED)
    assert info.value.code == "journal.closed"


def test_a_store_log_whose_truncation_fails_closes(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "store.log"
    with LogStore(log, fsync=FsyncPolicy.NEVER) as store:
        store.create("a").append(K.EXECUTION_STARTED, {**STARTED, "executionId": "a"})
    log.write_bytes(log.read_bytes() + b'{"executionId":"a","seq":2,"ki')
    store = LogStore(log, fsync=FsyncPolicy.NEVER)

    def refuse(size: int) -> None:
        raise OSError(errno.ENOSPC, "no space left on device")

    monkeypatch.setattr(store._f, "truncate", refuse)
    with pytest.raises(JournalError) as info:
        store.open("a")  # the writer of the execution the torn bytes name truncates them
    assert info.value.code == "journal.write-failed"
    with pytest.raises(JournalError) as info:
        store.create("b")
    assert info.value.code == "journal.closed"


def test_a_memory_store_read_checks_the_execution_id_first() -> None:
    # spec: journal.execution-ids -- a bad id is argument.execution-id, not journal.not-found;
    # every protocol path checks the id before it reads (the vector readers, Runtime)
    with pytest.raises(InvalidArgument) as info:
        MemoryStore().read("a/b")
    assert info.value.code == "argument.execution-id"


def test_a_real_directory_sync_lets_go_of_its_descriptor(tmp_path: Path) -> None:
    # spec: journal.dir-sync -- the directory's descriptor is closed after its fsync
    fds = "/proc/self/fd"
    if not os.path.isdir(fds):
        pytest.skip("no /proc/self/fd to count descriptors with")
    fs = OsFileSystem()
    fs.sync_dir(str(tmp_path))
    before = len(os.listdir(fds))
    for _ in range(5):
        fs.sync_dir(str(tmp_path))
    assert len(os.listdir(fds)) == before


def test_a_real_file_is_created_with_mode_666_less_the_umask(tmp_path: Path) -> None:
    # a journal file is created as any file a program writes: 0o666 less the umask
    old = os.umask(0o022)
    try:
        f = OsFileSystem().create(str(tmp_path / "j.jsonl"))
    finally:
        os.umask(old)
    f.close()
    assert stat.S_IMODE(os.stat(tmp_path / "j.jsonl").st_mode) == 0o644


# -- issue 30, samples 473986, 321483 and 238680 (s5k) ---------------------------------------

def test_a_crash_says_which_append_it_followed() -> None:
    # spec: journal.crash-model -- Crash(k), a BaseException, names the k-th append
    crash = Crash(3)
    assert crash.after == 3
    assert str(crash) == "simulated crash after append 3"
    assert not isinstance(crash, Exception)


def test_a_memory_store_create_checks_the_execution_id_first() -> None:
    # spec: journal.execution-ids -- a bad id is argument.execution-id and nothing is created;
    # every protocol path checks the id before it creates (Runtime.start; the case schema)
    store = MemoryStore()
    with pytest.raises(InvalidArgument) as info:
        store.create("a/b")
    assert info.value.code == "argument.execution-id"
    assert store.data == {}


def test_a_real_file_opened_to_create_gets_mode_666_less_the_umask(tmp_path: Path) -> None:
    # a store log is created through open(create=True) as any file a program writes
    old = os.umask(0o022)
    try:
        f = OsFileSystem().open(str(tmp_path / "store.log"), create=True)
    finally:
        os.umask(old)
    f.close()
    assert stat.S_IMODE(os.stat(tmp_path / "store.log").st_mode) == 0o644


def test_a_log_store_journal_has_no_good_size_of_its_own(tmp_path: Path) -> None:
    # a store log's journals share one file: the size of its complete lines is the log's
    # (LogStore keeps it); each journal read from it says 0
    with LogStore(tmp_path / "store.log", fsync=FsyncPolicy.NEVER) as store:
        journal = store.create("e1")
        journal.append(K.EXECUTION_STARTED, STARTED)
        journal.close()
        parsed = store.read("e1")
    assert [e.kind for e in parsed.events] == [K.EXECUTION_STARTED]
    assert parsed.good_size == 0


def test_a_journal_closed_twice_keeps_the_next_writers_place() -> None:
    # spec: journal.single-writer -- closing twice is harmless: the second close must not
    # free the place of a writer that opened the execution since
    store = MemoryStore()
    first = store.create("e1")
    first.append(K.EXECUTION_STARTED, STARTED)
    first.close()
    second = store.open("e1")
    first.close()
    with pytest.raises(JournalError) as info:
        store.open("e1")
    assert info.value.code == "journal.locked"
    second.close()
    store.open("e1").close()
