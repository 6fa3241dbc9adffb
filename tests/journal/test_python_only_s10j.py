"""The Python API of the journal layer that no conformance function observes, for the
survivors of issue 30's samples 252125, 13564 and 97256 (branch s10j): each test here is
what ``tools/coverage/python-only.toml`` names for a region narrowed to lines whose every
change only a Python caller can see (a detail no reply carries, an attribute of an error
only Python reads, a check every protocol path has made before, a refusal the simulated
disk cannot cause)."""

from __future__ import annotations

import errno
import math
from pathlib import Path

import pytest

from loom_ref.errors import InvalidArgument, JournalError
from loom_ref.journal import (
    CorruptJournalError,
    EventKind,
    FsyncPolicy,
    LogStore,
    NotRegularFileError,
    SqliteStore,
)
from loom_ref.journal.events import PayloadError, check_payload
from loom_ref.journal.frozen import frozen_json

K = EventKind


def test_a_missing_field_names_only_the_fields_that_are_missing() -> None:
    # spec: journal.payload-shape -- the details name what is missing, not what is there
    with pytest.raises(PayloadError) as info:
        check_payload(K.STEP_STARTED, {"stepId": "a", "toolId": "t", "input": None})
    assert info.value.code == "journal.bad-payload"
    assert info.value.details["missing"] == ["idempotencyKey"]
    assert "missing idempotencyKey" in info.value.message
    with pytest.raises(PayloadError) as info:
        check_payload(K.EXECUTION_STARTED, {"input": 1})
    assert info.value.details["missing"] == ["executionId", "workflow"]


def test_a_not_regular_file_error_carries_its_path_and_kind_as_os_error_attributes() -> None:
    # spec: journal.regular-files -- a file layer raises it among its OSErrors
    exc = NotRegularFileError("/d/x.jsonl", "FIFO")
    assert isinstance(exc, OSError)
    assert exc.filename == "/d/x.jsonl" and exc.kind == "FIFO"
    assert exc.errno == errno.EINVAL and exc.details["kind"] == "FIFO"
    link = NotRegularFileError("/d/y.jsonl", "symbolic link")
    assert link.filename == "/d/y.jsonl" and link.kind == "symbolic link"
    assert link.errno == errno.ELOOP


def test_a_store_log_journal_closed_by_its_caller_takes_no_append(tmp_path: Path) -> None:
    # the store log stays open: the journal's own closed state refuses the append
    with LogStore(tmp_path / "store.log", fsync=FsyncPolicy.NEVER) as store:
        journal = store.create("a")
        journal.close()
        with pytest.raises(JournalError) as info:
            journal.append(K.EXECUTION_STARTED, {"executionId": "a", "workflow": "w",
                                                 "input": None})
        assert info.value.code == "journal.closed"
        assert list(store.read("a").events) == []


def test_a_corrupt_store_log_leaves_no_descriptor_or_lock_behind(tmp_path: Path) -> None:
    # spec: journal.os-errors -- a store that cannot open lets go of its file and lock, so
    # the next try is refused for what the log holds, not as locked
    log = tmp_path / "store.log"
    with LogStore(log, fsync=FsyncPolicy.NEVER) as store:
        store.create("a").append(K.EXECUTION_STARTED, {"executionId": "a", "workflow": "w",
                                                        "input": None})
    log.write_bytes(log.read_bytes() + b"not json\n")
    for _ in range(2):
        with pytest.raises(CorruptJournalError) as info:
            LogStore(log, fsync=FsyncPolicy.NEVER)
        assert info.value.code == "journal.corrupt"


def test_a_store_log_whose_truncation_before_an_append_fails_names_the_truncation(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # spec: journal.os-errors -- the torn bytes kept for "a" are truncated at the store's
    # first append, and a refused truncation is a failed write that names it
    log = tmp_path / "store.log"
    with LogStore(log, fsync=FsyncPolicy.NEVER) as store:
        store.create("a").append(K.EXECUTION_STARTED, {"executionId": "a", "workflow": "w",
                                                        "input": None})
    log.write_bytes(log.read_bytes() + b'{"executionId":"a","seq":2,"ki')
    store = LogStore(log, fsync=FsyncPolicy.NEVER)

    def refuse(size: int) -> None:
        raise OSError(errno.ENOSPC, "no space left on device")

    monkeypatch.setattr(store._f, "truncate", refuse)
    journal = store.create("b")
    with pytest.raises(JournalError) as info:
        journal.append(K.EXECUTION_STARTED, {"executionId": "b", "workflow": "w",
                                             "input": None})
    assert info.value.code == "journal.write-failed"
    assert info.value.details["op"] == "truncate" and info.value.details["errno"] == "ENOSPC"


def test_a_sqlite_store_read_checks_the_execution_id_first(tmp_path: Path) -> None:
    # spec: journal.execution-ids -- a bad id is argument.execution-id, not journal.not-found;
    # every protocol path checks the id before it reads (the vector readers, Runtime)
    store = SqliteStore(tmp_path / "store.db", fsync=FsyncPolicy.NEVER)
    try:
        for bad in ("a/b", "../x", ""):
            with pytest.raises(InvalidArgument) as info:
                store.read(bad)
            assert info.value.code == "argument.execution-id"
    finally:
        store.close()


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_a_float_that_is_no_json_number_is_refused_by_frozen_json(value: float) -> None:
    # spec: journal.frozen-values -- a scalar float is a JSON value only when it is finite
    with pytest.raises(InvalidArgument) as info:
        frozen_json(value)
    assert info.value.code == "argument.invalid"
    assert frozen_json(1.5) == 1.5
