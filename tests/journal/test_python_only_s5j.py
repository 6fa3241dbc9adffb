"""What only a Python caller sees in the journal layer, pinned where the conformance suite
cannot (issue 30, the survivors of samples 473986, 321483 and 238680): the words of two
corrupt-journal messages (a bad header id shown cut at 60 characters; a byte order mark named
with whether the checksum matches without it), ``is_frozen``'s answer, and a payload that is
a Mapping other than a dict (a FrozenDict, a mappingproxy) accepted by the event check."""

from __future__ import annotations

import types
import zlib

import pytest

from loom_ref.journal import CorruptJournalError, FrozenDict, FrozenList, frozen_json
from loom_ref.journal.codec import encode_header, encode_line
from loom_ref.journal.events import EventKind, PayloadError, check_payload
from loom_ref.journal.frozen import is_frozen
from loom_ref.journal.reader import bad_id_message, parse_journal

_START = {"executionId": "x", "workflow": "w", "input": None}
_STEP = {"stepId": "a#1", "toolId": "a", "input": 1, "idempotencyKey": "x/a#1"}


def _message(data: bytes) -> str:
    with pytest.raises(CorruptJournalError) as info:
        parse_journal(data)
    return info.value.message


# -- reader.bad_id_message: the id is shown whole up to 60 characters ---------------------------
def test_a_bad_header_id_of_60_characters_is_shown_whole() -> None:
    eid = "/" * 60
    assert repr(eid) in bad_id_message(eid)
    assert "..." not in bad_id_message(eid)


def test_a_bad_header_id_of_61_characters_is_cut_to_57_and_dots() -> None:
    eid = "/" * 60 + "z"
    message = bad_id_message(eid)
    assert repr("/" * 57 + "...") in message
    assert "z" not in message.split("which is not")[0]


def test_the_reader_names_a_bad_header_id_by_that_message() -> None:
    eid = "a/" * 40
    body = b'{"schema":"loom-ref.journal","version":1,"executionId":"' + eid.encode() + b'"'
    header = body + b',"crc":"%08x"}\n' % zlib.crc32(body)
    assert bad_id_message(eid) in _message(header)


# -- codec._mismatch: a byte order mark, and whether the checksum matches without it -------------
def test_a_bom_line_whose_checksum_matches_without_it_says_so() -> None:
    data = (encode_header("x") + encode_line(1, "EXECUTION_STARTED", _START)
            + b"\xef\xbb\xbf" + encode_line(2, "STEP_STARTED", _STEP))
    message = _message(data)
    assert "without it the checksum matches" in message
    assert "checksum mismatch" not in message


def test_a_bom_line_whose_checksum_matches_neither_way_is_a_plain_mismatch() -> None:
    line = encode_line(2, "STEP_STARTED", _STEP)
    bad = line[:-11] + (b"0" if line[-11:-10] != b"0" else b"1") + line[-10:]
    data = encode_header("x") + encode_line(1, "EXECUTION_STARTED", _START) + b"\xef\xbb\xbf" + bad
    message = _message(data)
    assert "checksum mismatch (and the line starts with a UTF-8 byte order mark)" in message
    assert "without it the checksum matches" not in message


# -- frozen.is_frozen ----------------------------------------------------------------------------
def test_is_frozen_answers_for_the_frozen_containers_only() -> None:
    assert is_frozen(FrozenDict({"a": 1})) is True
    assert is_frozen(FrozenList([1])) is True
    assert is_frozen(frozen_json({"a": [1]})) is True
    assert is_frozen({"a": 1}) is False
    assert is_frozen([1]) is False
    assert is_frozen(None) is False


# -- events.check_payload: any Mapping is an object --------------------------------------------
@pytest.mark.parametrize("payload", [FrozenDict(_START), types.MappingProxyType(dict(_START))])
def test_a_mapping_that_is_no_dict_is_a_payload(payload: object) -> None:
    check_payload(EventKind.EXECUTION_STARTED, payload)  # raises nothing
    with pytest.raises(PayloadError):
        check_payload(EventKind.EXECUTION_STARTED, [payload])
