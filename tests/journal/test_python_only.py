"""The Python API of the journal layer that no conformance function reaches (issue 30): each
test here is what ``tools/coverage/python-only.toml`` names for a region the suite cannot
drive (a wrapper's base methods, a test instrument's delegations, a disk check only a Python
caller meets)."""

from __future__ import annotations

from pathlib import Path

import pytest

from loom_ref.errors import InvalidArgument
from loom_ref.journal import (
    CorruptJournalError,
    EventKind,
    FaultInjectingStore,
    FileStore,
    FsyncPolicy,
    MemoryStore,
)
from loom_ref.journal.codec import encode_header
from loom_ref.journal.contentstore import CONTENT, ContentResolvingStore
from loom_ref.journal.durability import ALL_INVARIANTS, GUARANTEES
from loom_ref.journal.powerloss import SimulatedDisk
from loom_ref.journal.store import JournalWrapper
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
