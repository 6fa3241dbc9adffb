"""The reader fuzz (spec: journal.nesting-limit, journal.duplicate-names, journal.json-values,
journal.corrupt-line, journal.started-names-header, journal.header): structure-aware hostile
journals, every line sealed with a valid checksum so that the bytes reach the JSON reader,
given to ``parse_journal``, ``parse_log`` and ``loom-ref journal check``.

The lines are built from pieces an attacker would pick: nesting at and past the limit (and far
past it), repeated member names (plain, escaped, a second ``crc``), numbers past a double,
``NaN``, lone surrogates, byte order marks, CR LF, ids that are paths or device names, an
``EXECUTION_STARTED`` of another execution, wrong types, and random bytes. Every answer must
be a result or a ``journal.*`` refusal naming a line of the input, never another exception;
and what the writer accepts, the reader reads back as it was written.

Bounded in the normal test run (derandomized, so CI is repeatable); ``LOOM_REF_FUZZ_EXAMPLES=
20000 python -m pytest tests/journal/test_reader_fuzz.py`` runs a long, random one on demand.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import zlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from loom_ref.cli.main import main as cli_main
from loom_ref.errors import JournalError
from loom_ref.journal import (
    NESTING_LIMIT,
    CorruptJournalError,
    EventKind,
    MemoryStore,
    PayloadError,
    parse_journal,
    parse_log,
)
from loom_ref.journal.codec import encode_header

_LONG = "LOOM_REF_FUZZ_EXAMPLES" in os.environ
EXAMPLES = int(os.environ.get("LOOM_REF_FUZZ_EXAMPLES", "120"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=not _LONG,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])

REASONS = {"journal.bad-checksum", "journal.malformed-line", "journal.bad-header",
           "journal.bad-payload", "journal.seq-gap"}
KINDS = [k.value for k in EventKind]


def seal(body: str | bytes) -> bytes:
    raw = body.encode("utf-8", "surrogatepass") if isinstance(body, str) else body
    return raw + b',"crc":"%08x"}\n' % zlib.crc32(raw)


# -- hostile JSON text ---------------------------------------------------------------------------
_atoms = st.sampled_from([
    "1", "-0", "1.5e3", "true", "false", "null", '"x"', '"é ☃"', '"\\ud83d\\ude00"',
    "NaN", "Infinity", "-Infinity", "1e999", "1" + "0" * 400, "9" * 5000, '"\\ud800"',
    '"\\u0000"', '"a\\"b"', "01", "1.", '"\x01"', "[]", "{}",
])


def _deep(levels: int, leaf: str = "1") -> str:
    return "[" * levels + leaf + "]" * levels


_depths = st.sampled_from([NESTING_LIMIT - 3, NESTING_LIMIT - 2, NESTING_LIMIT - 1,
                           NESTING_LIMIT, 1_000, 100_000])

_names = st.sampled_from(["a", "b", "kind", "seq", "crc", "payload", "\\u0061", "", "é"])


@st.composite
def _objects(draw: st.DrawFn, inner: st.SearchStrategy[str]) -> str:
    names = draw(st.lists(_names, max_size=4))
    if names and draw(st.booleans()):
        names.append(names[0])  # a repeated name
    return "{" + ",".join(f'"{n}":{draw(inner)}' for n in names) + "}"


_values = st.recursive(
    _atoms | _depths.map(_deep),
    lambda inner: st.lists(inner, max_size=4).map(lambda xs: "[" + ",".join(xs) + "]")
    | _objects(inner),
    max_leaves=12)

_ids = st.sampled_from(["e1", "E1", "../../etc/passwd", "CON", "con.x", "a:b", "", "x" * 201,
                        "other", "-x", "lpt1"])


@st.composite
def _event_bodies(draw: st.DrawFn, seq: int, eid: str) -> str:
    kind = draw(st.sampled_from(KINDS + ["NOPE"]))
    if kind == "EXECUTION_STARTED":
        payload = ('{"executionId":' + json.dumps(draw(st.sampled_from([eid, "other"])))
                   + ',"workflow":"w","input":' + draw(_values) + "}")
    else:
        payload = draw(_objects(_values) | _values)
    seq_text = draw(st.sampled_from([str(seq), str(seq), str(seq + 1), '"1"', "1.0", "true"]))
    members = [f'"seq":{seq_text}', f'"kind":"{kind}"', f'"payload":{payload}']
    if draw(st.integers(0, 9)) == 0:
        members.append(draw(st.sampled_from(['"kind":"EXECUTION_COMPLETED"',
                                             '"crc":"00000000"', '"at":1'])))
    if draw(st.integers(0, 9)) == 0:
        members = draw(st.permutations(members))
    return "{" + ",".join(members)


@st.composite
def _lines(draw: st.DrawFn, seq: int, eid: str) -> bytes:
    body = draw(_event_bodies(seq, eid))
    line = seal(body)
    damage = draw(st.integers(0, 19))
    if damage == 0:
        line = b"\xef\xbb\xbf" + line  # a byte order mark (checksum over the rest)
    elif damage == 1:
        line = line[:-1] + b"\r\n"
    elif damage == 2:
        line = seal(b"\xef\xbb\xbf" + body.encode("utf-8", "surrogatepass"))
    elif damage == 3:
        cut = draw(st.integers(0, max(0, len(line) - 2)))
        line = line[:cut] + draw(st.binary(max_size=8)) + line[cut + 1:]
    return line


@st.composite
def journals(draw: st.DrawFn) -> bytes:
    eid = draw(st.sampled_from(["e1", "e1", "e1"])) if draw(st.booleans()) else draw(_ids)
    header = draw(st.sampled_from([
        encode_header(eid) if eid.isascii() and '"' not in eid else encode_header("e1"),
        seal('{"schema":"loom-ref.journal","version":1,"executionId":"e1","x":'
             + draw(_values)),
        seal('{"schema":"loom-ref.journal","version":1,"executionId":"e1",'
             '"executionId":"e2"'),
        seal('{"schema":"loom-ref.journal","version":1,"executionId":' + json.dumps(eid)),
    ]))
    lines = [draw(_lines(i, eid)) for i in range(1, draw(st.integers(0, 4)) + 1)]
    tail = draw(st.sampled_from([b"", b"", b'{"seq":9,"ki', b"\xff\xfe"]))
    return header + b"".join(lines) + tail


def _check_refusal(exc: JournalError, data: bytes) -> None:
    assert isinstance(exc, CorruptJournalError), exc
    assert exc.details["reason"] in REASONS, exc
    assert 1 <= exc.details["line"] <= data.count(b"\n"), exc


@FUZZ
@given(journals())
def test_parse_answers_or_refuses_by_line(data: bytes) -> None:
    try:
        parsed = parse_journal(data)
    except JournalError as exc:
        _check_refusal(exc, data)
        return
    assert [e.seq for e in parsed.events] == list(range(1, len(parsed.events) + 1))
    for event in parsed.events:
        if event.kind is EventKind.EXECUTION_STARTED:
            assert event.payload["executionId"] == parsed.execution_id


@FUZZ
@given(journals(), journals())
def test_a_store_log_answers_or_refuses_by_line(one: bytes, two: bytes) -> None:
    log = seal('{"schema":"loom-ref.log","version":1')
    for data, eid in ((one, "e1"), (two, "e2")):
        lines = data.split(b"\n")
        log += lines[0] + b"\n"
        for line in lines[1:-1]:  # a journal's event lines, as a store log's (crc resealed)
            if line.startswith(b"{") and line.endswith(b'"}') and len(line) > 18:
                log += seal(b'{"executionId":"' + eid.encode() + b'",' + line[1:-18])
    try:
        parsed = parse_log(log)
    except JournalError as exc:
        _check_refusal(exc, log)
        return
    for eid, journal in parsed.journals.items():
        assert [e.seq for e in journal.events] == list(range(1, len(journal.events) + 1))
        for event in journal.events:
            if event.kind is EventKind.EXECUTION_STARTED:
                assert event.payload["executionId"] == eid


@FUZZ
@given(data=journals())
def test_journal_check_answers_with_a_status(tmp_path_factory: pytest.TempPathFactory,
                                             data: bytes) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "j.jsonl"
    path.write_bytes(data)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        status = cli_main(["journal", "check", str(path)])
    assert status in (0, 1, 2), out.getvalue()
    text = out.getvalue()
    assert text.count("\n") == 1 and "Traceback" not in text, text
    if status != 0:
        # a torn, corrupt or empty journal is a negative verdict (1); only a file the
        # command cannot read is a usage error (2); either is one line with a stable code
        assert text.startswith("loom-ref: journal."), text


# -- what the writer takes, the reader reads back -------------------------------------------------
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.text(max_size=4) | st.integers(0, 3), inner, max_size=3),
    max_leaves=10)


def _wrap(value: Any, levels: int) -> Any:
    for _ in range(levels):
        value = [value]
    return value


@FUZZ
@given(value=_json, levels=st.integers(0, NESTING_LIMIT + 2))
def test_what_the_writer_takes_the_reader_reads_back(value: Any, levels: int) -> None:
    store = MemoryStore()
    journal = store.create("e1")
    payload = {"executionId": "e1", "workflow": "w", "input": _wrap(value, levels)}
    try:
        written = journal.append(EventKind.EXECUTION_STARTED, payload)
    except PayloadError:
        assert journal.events == [] and bytes(store.data["e1"]).count(b"\n") == 1
        return
    parsed = parse_journal(bytes(store.data["e1"]))
    assert [e.payload for e in parsed.events] == [written.payload]


def test_the_fuzz_reaches_every_refusal(tmp_path: Path) -> None:
    """The strategies are not toothless: each hostile piece, alone, is refused as the spec
    says (a guard on the generators, checked without hypothesis)."""
    start = '{"seq":1,"kind":"EXECUTION_STARTED","payload":{"executionId":"e1","workflow":"w",'
    cases = {
        start + '"input":' + _deep(NESTING_LIMIT - 1) + "}": "journal.malformed-line",
        start + '"input":{"a":1,"\\u0061":2}}': "journal.malformed-line",
        start + '"input":' + "9" * 5000 + "}": "journal.malformed-line",
        start + '"input":NaN}': "journal.malformed-line",
        start.replace('"e1","workflow"', '"other","workflow"') + '"input":1}':
            "journal.bad-payload",
    }
    for body, reason in cases.items():
        with pytest.raises(CorruptJournalError) as info:
            parse_journal(encode_header("e1") + seal(body))
        assert info.value.details["reason"] == reason, body[:80]
