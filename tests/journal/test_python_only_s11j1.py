"""The Python API of the journal layer that no conformance function observes, for the
survivors of the first half of issue 30's 200-mutant journal sweep (branch s11j1): each test
here is what ``tools/coverage/python-only.toml`` or ``tools/mutation/reviewed/journal.json``
names for a change only a Python caller can see (the codec's argument check, the message of a
refusal whose code is unchanged, the JSON writer given a number no JSON text holds, a failed
directory sync the simulated disk cannot cause)."""

from __future__ import annotations

import errno
import math
import os
import zlib
from pathlib import Path

import pytest

from loom_ref.errors import InvalidArgument, JournalError
from loom_ref.journal import EventKind, FsyncPolicy, LogStore, encode_line
from loom_ref.journal.codec import MalformedLineError, decode_line, to_json_text

K = EventKind
START = {"executionId": "x", "workflow": "w", "input": None}


@pytest.mark.parametrize("line", ['{"seq":1}', None, 7, ["a"]])
def test_decode_line_checks_that_it_is_given_bytes(line: object) -> None:
    # the codec's Python API: a line is bytes; anything else is the caller's mistake, an
    # InvalidArgument, never a malformed journal line
    with pytest.raises(InvalidArgument) as info:
        decode_line(line)  # type: ignore[arg-type]
    assert not isinstance(info.value, MalformedLineError)
    assert "a line is read from bytes" in info.value.message


def test_a_line_whose_checksum_covers_a_byte_order_mark_is_named_for_it() -> None:
    # spec: journal.line-shape -- a byte order mark the crc covers (the line was written
    # with it) leaves text that is not JSON; the message names the mark, not a JSON error
    body = b'\xef\xbb\xbf{"seq":1,"kind":"EXECUTION_COMPLETED","payload":{"output":1}'
    line = body + b',"crc":"%08x"}' % zlib.crc32(body)
    with pytest.raises(MalformedLineError) as info:
        decode_line(line)
    assert info.value.code == "journal.malformed-line"
    assert info.value.message.startswith("the line starts with a UTF-8 byte order mark")
    assert "not valid JSON" not in info.value.message


@pytest.mark.parametrize("number", [math.nan, math.inf, -math.inf])
def test_the_json_writer_refuses_a_number_no_json_text_holds(number: float) -> None:
    # spec: journal.json-values -- the writer's encoder never spells NaN or Infinity
    with pytest.raises(ValueError):
        to_json_text({"a": [number]})
    with pytest.raises(InvalidArgument) as info:
        encode_line(1, "STREAM_APPENDED", {"streamId": "s", "data": number})
    assert info.value.code == "argument.invalid"


def test_a_failed_directory_sync_of_the_store_log_is_an_io_failure_naming_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # spec: journal.os-errors -- syncing the log's directory (journal.dir-sync, once per
    # store) is "anything else": journal.io-failed with op "sync the directory of", not the
    # journal.write-failed of the log's own sync
    store = LogStore(tmp_path / "s.log", fsync=FsyncPolicy.EVERY_EVENT)
    journal = store.create("x")

    def failing(path: str) -> None:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(store.fs, "sync_dir", failing)
    with pytest.raises(JournalError) as info:
        journal.append(K.EXECUTION_STARTED, START)
    assert info.value.code == "journal.io-failed"
    assert info.value.details["op"] == "sync the directory of", info.value.details
    assert info.value.details["errno"] == "EIO"
