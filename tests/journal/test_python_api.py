"""The journal's Python surface that no protocol input reaches: error details that do not
travel in an observation (``file``), pickling of frozen values, the stores as context
managers, SQLite's generic failure and the torn-write instrument's bounds (spec:
journal.content-errors, journal.frozen-values, journal.sqlite-lines, journal.crash-model)."""

from __future__ import annotations

import pickle
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from loom_ref.errors import InvalidArgument
from loom_ref.journal import CorruptJournalError, EventKind, FsyncPolicy, LogStore, MemoryStore
from loom_ref.journal.contentstore import CONTENT, ContentResolvingStore
from loom_ref.journal.frozen import FrozenDict, FrozenList, frozen_json
from loom_ref.journal.sqlitestore import _store_error

from .test_contentstore import _started

START = {"executionId": "e1", "workflow": "w", "input": 1}


def _missing_reference(store: Any) -> None:
    journal = store.create("e1")
    journal.append(EventKind.EXECUTION_STARTED, START)
    journal.append(EventKind.STEP_STARTED, _started({CONTENT: {"items": [[5, 1]]}}, 1))
    journal.close()


def test_a_bad_reference_names_the_file_of_the_store_underneath(tmp_path: Path) -> None:
    # spec: journal.content-errors -- where the underlying store keeps the journal
    path = tmp_path / "s.log"
    with LogStore(path, fsync=FsyncPolicy.NEVER) as plain:
        _missing_reference(plain)
    with LogStore(path, fsync=FsyncPolicy.NEVER) as plain, \
            pytest.raises(CorruptJournalError) as info:
        ContentResolvingStore(plain).read("e1")
    assert info.value.details["reason"] == "journal.missing-content"
    assert info.value.details["file"] == f"{path} [e1]"
    memory = MemoryStore()
    _missing_reference(memory)
    with pytest.raises(CorruptJournalError) as info:
        ContentResolvingStore(memory).read("e1")
    assert info.value.details["file"] == "journal 'e1'"


def test_frozen_values_pickle_as_frozen_values() -> None:
    value = frozen_json({"a": [1, {"b": None}], "c": "d"})
    back = pickle.loads(pickle.dumps(value))
    assert back == value and type(back) is FrozenDict and type(back["a"]) is FrozenList


@pytest.mark.parametrize("member", [object(), [1], {"a": 1}, float("inf")])
def test_a_frozen_container_refuses_what_is_not_frozen_json(member: Any) -> None:
    with pytest.raises(InvalidArgument) as info:
        FrozenList([member])
    assert info.value.code == "argument.invalid"


def test_a_store_is_its_own_context_manager(tmp_path: Path) -> None:
    store = LogStore(tmp_path / "s.log", fsync=FsyncPolicy.NEVER)
    with store as entered:
        assert entered is store


def test_a_generic_sqlite_failure_is_an_io_failure() -> None:
    error = _store_error("/x/s.db", sqlite3.OperationalError("disk I/O error"))
    assert error.code == "journal.io-failed" and error.details["file"] == "/x/s.db"


def test_a_torn_write_keeps_a_strict_non_empty_prefix() -> None:
    # spec: journal.crash-model -- torn: a strict prefix of the line, at least one byte
    line = MemoryStore().create("e1")._encode(EventKind.EXECUTION_STARTED, START)[2]
    for nbytes in (0, len(line), len(line) + 1):
        journal = MemoryStore().create("e1")
        with pytest.raises(InvalidArgument):
            journal.write_torn(EventKind.EXECUTION_STARTED, START, nbytes)
    journal = MemoryStore().create("e1")
    journal.write_torn(EventKind.EXECUTION_STARTED, START, len(line) - 1)
