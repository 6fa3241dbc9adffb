"""Line format, checksum, torn tail and corruption (spec/journal.md 1.1, 1.5)."""

from __future__ import annotations

import json
import zlib
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from loom_ref import InvalidArgument
from loom_ref.journal import (
    ChecksumError,
    CorruptJournalError,
    EventKind,
    MalformedLineError,
    MemoryStore,
    PayloadError,
    decode_line,
    encode_line,
    parse_journal,
)
from loom_ref.journal.codec import encode_header, parse_json, to_json_text
from loom_ref.journal.logstore import encode_log_header, encode_log_line, parse_log

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=8)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                 max_size=3),
    max_leaves=8,
)


def journal_bytes(n: int) -> bytes:
    data = encode_header("e1") + encode_line(
        1, "EXECUTION_STARTED", {"executionId": "e1", "workflow": "w", "input": None}
    )
    for i in range(2, n + 1):
        data += encode_line(i, "STREAM_APPENDED", {"streamId": f"stream#{i}", "data": i})
    return data


@given(json_values)
def test_line_round_trips_any_json_payload(value: object) -> None:
    line = encode_line(7, "STREAM_APPENDED", {"streamId": "s", "data": value})
    assert line.endswith(b"\n")
    assert decode_line(line[:-1]) == {
        "seq": 7, "kind": "STREAM_APPENDED", "payload": {"streamId": "s", "data": value}
    }


def test_checksum_is_crc32_of_the_bytes_before_the_crc_member() -> None:
    # spec: journal.checksum -- computed independently of the codec
    line = encode_line(1, "STEP_COMPLETED", {"stepId": "a#1", "output": "é"})[:-1]
    body, _, tail = line.rpartition(b',"crc":"')
    assert tail[-2:] == b'"}'
    assert int(tail[:8], 16) == zlib.crc32(body)
    assert json.loads(line)["crc"] == f"{zlib.crc32(body):08x}"


def test_any_writer_with_crc_last_is_accepted() -> None:
    body = b'{ "kind" : "STEP_STARTED", "seq": 1, "payload": {"stepId":"x","toolId":"t",' \
           b'"input":null,"idempotencyKey":"k"}'
    line = body + b',"crc":"%08x"}' % zlib.crc32(body)
    assert decode_line(line)["kind"] == "STEP_STARTED"


@pytest.mark.parametrize("mutate, error", [
    (lambda b: b.replace(b'"output":1', b'"output":2'), ChecksumError),
    (lambda b: b[:-3] + b'Z"}', MalformedLineError),
    (lambda b: b[:-19] + b"}", MalformedLineError),
])
def test_bad_lines_are_named(mutate: object, error: type[Exception]) -> None:
    line = encode_line(1, "STEP_COMPLETED", {"stepId": "a", "output": 1})[:-1]
    with pytest.raises(error):
        decode_line(mutate(line))  # type: ignore[operator]


@given(st.data())
def test_torn_tail_at_every_offset_recovers_the_events_before_it(data: st.DataObject) -> None:
    # spec: journal.torn-tail
    whole = journal_bytes(4)
    last_start = whole.rfind(b"\n", 0, len(whole) - 1) + 1
    cut = data.draw(st.integers(last_start, len(whole) - 1))
    parsed = parse_journal(whole[:cut])
    assert [e.seq for e in parsed.events] == [1, 2, 3]
    if cut == last_start:
        assert parsed.torn is None
    else:
        assert parsed.torn is not None
        assert parsed.torn.size == cut - last_start
        assert parsed.torn.line == 5


def test_every_offset_of_the_last_line_exhaustively() -> None:
    whole = journal_bytes(3)
    last_start = whole.rfind(b"\n", 0, len(whole) - 1) + 1
    for cut in range(last_start + 1, len(whole)):
        parsed = parse_journal(whole[:cut])
        assert len(parsed.events) == 2 and parsed.torn and parsed.torn.size == cut - last_start
        assert parsed.good_size == last_start


@pytest.mark.parametrize("line_no", [1, 2, 3, 4])
def test_a_flipped_byte_on_a_complete_line_names_file_and_line(line_no: int) -> None:
    # spec: journal.corrupt-line
    lines = journal_bytes(3).split(b"\n")
    lines[line_no - 1] = lines[line_no - 1].replace(b'"', b"'", 1)
    with pytest.raises(CorruptJournalError) as info:
        parse_journal(b"\n".join(lines), source="x.jsonl")
    assert info.value.details["line"] == line_no
    assert info.value.details["file"] == "x.jsonl"
    assert "x.jsonl, line" in str(info.value)


def test_seq_gap_unknown_kind_and_missing_field_are_corrupt() -> None:
    head = encode_header("e1")
    ok = encode_line(1, "EXECUTION_STARTED", {"executionId": "e1", "workflow": "w", "input": 1})
    cases = {
        "journal.seq-gap": encode_line(3, "STREAM_APPENDED", {"streamId": "s", "data": 1}),
        "journal.bad-payload": encode_line(2, "NOT_A_KIND", {}),
    }
    for reason, bad in cases.items():
        with pytest.raises(CorruptJournalError) as info:
            parse_journal(head + ok + bad)
        assert info.value.details["reason"] == reason
        assert info.value.details["line"] == 3
    with pytest.raises(CorruptJournalError) as info:
        parse_journal(head + ok + encode_line(2, "STEP_COMPLETED", {"stepId": "x"}))
    assert info.value.details["reason"] == "journal.bad-payload"


def test_header_must_name_schema_and_version() -> None:
    bad = encode_line(1, "EXECUTION_STARTED", {"executionId": "e", "workflow": "w", "input": 1})
    with pytest.raises(CorruptJournalError) as info:
        parse_journal(bad)
    assert info.value.details["reason"] == "journal.bad-header"


def test_event_kinds_are_closed() -> None:
    assert {k.value for k in EventKind} == {
        "EXECUTION_STARTED", "STEP_STARTED", "STEP_COMPLETED", "STEP_FAILED", "STEP_IN_DOUBT",
        "DECISION_RECORDED", "STREAM_APPENDED", "EXECUTION_SUSPENDED", "RESUME_RECEIVED",
        "EXECUTION_RESUMED", "EXECUTION_COMPLETED", "EXECUTION_FAILED",
    }


def test_leading_whitespace_is_json_and_trailing_data_is_not() -> None:
    body = b' {"seq":1,"kind":"STEP_COMPLETED","payload":{"stepId":"a","output":1}'
    assert decode_line(body + b',"crc":"%08x"}' % zlib.crc32(body))["seq"] == 1
    glued = b'{"seq":1}{"kind":"x"'
    with pytest.raises(MalformedLineError):
        decode_line(glued + b',"crc":"%08x"}' % zlib.crc32(glued))


@given(json_values)
def test_parse_json_reads_what_the_journal_writes(value: Any) -> None:
    assert parse_json(to_json_text(value)) == value


@pytest.mark.parametrize("text", ["NaN", "[1, -Infinity]", "1e999", '"\\ud800"',
                                  '{"\\udc00": 1}', "{oops", ""])
def test_parse_json_refuses_what_is_not_a_journal_json_value(text: str) -> None:
    # spec: journal.json-values
    with pytest.raises(ValueError):
        parse_json(text)
    assert parse_json('"\\ud83d\\ude00"') == "\U0001f600"  # a surrogate pair is one character


def _line_with_raw_payload(seq: int, payload_json: bytes, prefix: bytes = b"{") -> bytes:
    body = prefix + b'"seq":%d,"kind":"STREAM_APPENDED","payload":%s' % (seq, payload_json)
    return body + b',"crc":"%08x"}\n' % zlib.crc32(body)


@pytest.mark.parametrize("escape", [b"\\ud800", b"\\uDC00", b"\\uDbFf"])
def test_a_lone_surrogate_escape_is_refused_on_any_line_by_both_readers(escape: bytes) -> None:
    # spec: journal.json-values -- the readers search the whole journal once for a \ud / \uD
    # escape, then check only where one may be; the escape is on the last line here
    data = journal_bytes(3) + _line_with_raw_payload(
        4, b'{"streamId":"s","data":"a%sb"}' % escape)
    with pytest.raises(CorruptJournalError) as info:
        parse_journal(data)
    assert (info.value.details["line"], info.value.details["reason"]) == (
        5, "journal.malformed-line")
    log = encode_log_header() + encode_header("e1") + encode_log_line(
        "e1", 1, "EXECUTION_STARTED", {"executionId": "e1", "workflow": "w", "input": None})
    log += encode_log_line("e1", 2, "STREAM_APPENDED", {"streamId": "s", "data": 2})
    log += _line_with_raw_payload(3, b'{"streamId":"t","data":"%s"}' % escape,
                                  prefix=b'{"executionId":"e1",')
    with pytest.raises(CorruptJournalError) as info:
        parse_log(log)
    assert (info.value.details["line"], info.value.details["reason"]) == (
        5, "journal.malformed-line")
    paired = journal_bytes(3) + _line_with_raw_payload(
        4, b'{"streamId":"s","data":"\\ud83d\\uDE00"}')
    assert parse_journal(paired).events[-1].payload["data"] == "\U0001f600"


def test_a_cyclic_or_too_deep_payload_is_refused_and_nothing_is_written() -> None:
    """journal.json-values: the public encoder without its cycle check still refuses a
    cycle (as the ValueError the check raised), and so a value nested past the recursion
    limit; the journal takes the next append whole."""
    store = MemoryStore()
    journal = store.create("e1")
    cyclic: dict[str, object] = {}
    cyclic["self"] = cyclic
    deep: list[object] = []
    for _ in range(100_000):
        deep = [deep]
    before = bytes(store.data["e1"])
    for bad in (cyclic, deep):
        with pytest.raises(PayloadError) as info:
            journal.append(EventKind.STREAM_APPENDED, {"streamId": "s#1", "data": bad})
        assert info.value.code == "journal.bad-payload"
        assert "cyclic" in info.value.message
    assert bytes(store.data["e1"]) == before
    with pytest.raises(InvalidArgument):
        encode_line(1, "STREAM_APPENDED", {"data": cyclic})
    journal.append(EventKind.STREAM_APPENDED, {"streamId": "s#1", "data": [1]})
    assert len(store.read("e1").events) == 1


@pytest.mark.parametrize(("data", "may"), [
    (b'{"a":"plain text"}', False),
    (b'{"a":"\\u0001 a control character, escaped"}', False),
    (b'{"a":"\\ud800"}', True),
    (b'{"a":"\\uDC00"}', True),
    (b'{"a":"\\\\u"} {"b":"\\uDbFf"}', True),
])
def test_the_whole_journal_search_for_a_surrogate_escape(data: bytes, may: bool) -> None:
    # spec: journal.json-values -- one search for \u first, then the two spellings
    from loom_ref.journal.codec import may_escape_surrogate
    assert may_escape_surrogate(data) is may


def test_decode_line_checks_for_lone_surrogates_unless_told_not_to() -> None:
    # spec: journal.json-values -- decode_line's default looks for a lone surrogate escape;
    # surrogate_escapes=False is the caller's word that there is none (the readers pass it
    # after one search of the whole journal), so only a Python caller meets the default
    body = b'{"seq":1,"kind":"STREAM_APPENDED","payload":{"streamId":"s","data":"\\ud800"}'
    line = body + b',"crc":"%08x"}' % zlib.crc32(body)
    with pytest.raises(MalformedLineError) as info:
        decode_line(line)
    assert info.value.code == "journal.malformed-line"
    assert decode_line(line, surrogate_escapes=False)["seq"] == 1
