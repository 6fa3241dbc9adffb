"""What a failed sync names (issue 30, the survivors of a fresh mutation sample): the
``details["op"]`` of ``journal.os-errors``, which no protocol reply carries (observations
carry an error's code, line and reason only, ``conformance/INTERPRETING.md`` section 6), so
pytest holds it."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from loom_ref.errors import JournalError
from loom_ref.journal import EventKind, FsyncPolicy, LogStore

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
