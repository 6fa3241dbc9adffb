"""Definitions of the journal.* cases about hostile bytes (issue 32, ``spec/journal.md``
1.1, 1.2, 1.5 and 1.12): the nesting limit, duplicate member names, integers past a double,
header ids, and an ``EXECUTION_STARTED`` of another execution, in journals and store logs."""

from __future__ import annotations

from typing import Any

from .defs_journal import (
    LOG_HEADER,
    START,
    L,
    P,
    corrupt,
    ev,
    header,
    lev,
    sealed,
    started,
)
from .gen_cases import vector


# -- hostile bytes (issue 32, spec/journal.md 1.1, 1.2, 1.5) ---------------------------------
def deep(levels: int) -> str:
    """JSON text of ``levels`` nested arrays around 1."""
    return "[" * levels + "1" + "]" * levels


def started_with(input_text: str, eid: str = "e1") -> str:
    """An EXECUTION_STARTED line (seq 1) whose input is the JSON text ``input_text``."""
    return sealed('{"seq":1,"kind":"EXECUTION_STARTED","payload":{"executionId":"' + eid
                  + '","workflow":"w","input":' + input_text + "}")


def one_event(obs: Any) -> bool:
    return [e["kind"] for e in obs.get("result", {}).get("events", [])] == [
        "EXECUTION_STARTED"]


LIMIT = 128  # spec: journal.nesting-limit -- the line's object, the payload's, then arrays
DEFINITIONS: list[dict[str, Any]] = [
    vector("journal.format/nesting-at-limit", "journal.nesting-limit",
           "A line nesting exactly 128 arrays and objects (its own object, the payload, 126 "
           "arrays) is read.",
           function=P, input={"text": header() + started_with(deep(LIMIT - 2))},
           claim=one_event),
    vector("journal.format/nesting-over-limit", "journal.nesting-limit",
           "A line nesting 129 arrays and objects is a malformed line, naming it.",
           function=P, input={"text": header() + started_with(deep(LIMIT - 1))},
           claim=corrupt(2, "journal.malformed-line")),
    vector("journal.format/nesting-far-over-limit", "journal.nesting-limit",
           "A line nesting 10,000 arrays, with a valid crc, is a malformed line like any "
           "other too deep: never a stack overflow.",
           function=P, input={"text": header() + started_with(deep(10_000))},
           claim=corrupt(2, "journal.malformed-line")),
    vector("journal.format/header-nesting-over-limit", "journal.nesting-limit",
           "The limit holds for the header too, in the members a reader ignores.",
           function=P, input={"text": sealed('{"schema":"loom-ref.journal","version":1,'
                                             '"executionId":"e1","later":' + deep(200))},
           claim=corrupt(1, "journal.malformed-line")),
    vector("journal.format/duplicate-kind", "journal.duplicate-names",
           "A line naming kind twice is malformed, whichever one a JSON parser would keep.",
           function=P, input={"text": header() + ev(1, *START) + sealed(
               '{"seq":2,"kind":"STREAM_APPENDED","kind":"EXECUTION_COMPLETED","payload":'
               '{"output":1,"streamId":"s","data":1}')},
           claim=corrupt(3, "journal.malformed-line")),
    vector("journal.format/duplicate-crc", "journal.duplicate-names",
           "A crc member before the real, last one is a duplicate name: malformed.",
           function=P, input={"text": header() + ev(1, *START) + sealed(
               '{"seq":2,"kind":"EXECUTION_COMPLETED","payload":{"output":1},'
               '"crc":"00000000"')},
           claim=corrupt(3, "journal.malformed-line")),
    vector("journal.format/duplicate-in-payload", "journal.duplicate-names",
           "Names are unique in every object of a line, however deep in the payload.",
           function=P, input={"text": header() + started_with('{"a":[{"b":1,"b":2}]}')},
           claim=corrupt(2, "journal.malformed-line")),
    vector("journal.format/duplicate-after-escapes", "journal.duplicate-names",
           "Names are compared after escapes: \"a\" and \"\\u0061\" are one name.",
           function=P, input={"text": header() + started_with('{"a":1,"\\u0061":2}')},
           claim=corrupt(2, "journal.malformed-line")),
    vector("journal.format/foreign-execution-started", "journal.started-names-header",
           "An EXECUTION_STARTED naming another execution than the header, pasted in with a "
           "valid crc, is a corrupt line (a bad payload).",
           function=P, input={"text": header("e1") + ev(1, "EXECUTION_STARTED", {
               "executionId": "other", "workflow": "w", "input": 99})},
           claim=corrupt(2, "journal.bad-payload")),
    vector("journal.format/header-path-execution-id", "journal.header",
           "A header whose execution id is no execution id (a path) is a bad header: a "
           "reader never hands on a name that is not a safe file name.",
           function=P, input={"text": header("../../etc/passwd")},
           claim=corrupt(1, "journal.bad-header")),
    vector("journal.format/header-reserved-execution-id", "journal.execution-ids",
           "CON is a name Windows reserves for a device, in any case and before any dot: no "
           "execution id, so a bad header.",
           function=P, input={"text": header("con.7")},
           claim=corrupt(1, "journal.bad-header")),
    vector("journal.format/header-colon-execution-id", "journal.execution-ids",
           "':' is not in an execution id (NTFS reads a:b as a stream): a bad header.",
           function=P, input={"text": header("a:b")},
           claim=corrupt(1, "journal.bad-header")),
    vector("journal.format/integer-too-large", "journal.json-values",
           "An integer too large for a double (400 digits) is refused as 1e400 is.",
           function=P, input={"text": header() + started_with("1" + "0" * 399)},
           claim=corrupt(2, "journal.malformed-line")),
]

DEFINITIONS += [
    vector("journal.log/nesting-at-limit", "journal.nesting-limit",
           "A store log's event line nesting exactly 128 levels is read (its executionId adds "
           "none).", function=L, tier="may",
           input={"text": LOG_HEADER + header("a") + sealed(
               '{"executionId":"a","seq":1,"kind":"EXECUTION_STARTED","payload":'
               '{"executionId":"a","workflow":"w","input":' + deep(LIMIT - 2) + "}")},
           claim=lambda obs: [e["kind"] for e in obs.get("result", {}).get(
               "executions", {}).get("a", [])] == ["EXECUTION_STARTED"]),
    vector("journal.log/nesting-over-limit", "journal.nesting-limit",
           "A store log's line nesting 129 levels is malformed, naming the line of the log.",
           function=L, tier="may",
           input={"text": LOG_HEADER + header("a") + sealed(
               '{"executionId":"a","seq":1,"kind":"EXECUTION_STARTED","payload":'
               '{"executionId":"a","workflow":"w","input":' + deep(LIMIT - 1) + "}")},
           claim=corrupt(3, "journal.malformed-line")),
    vector("journal.log/duplicate-execution-id", "journal.duplicate-names",
           "An event line naming executionId twice is malformed: a reader keeping the first "
           "and one keeping the last would file it under different executions.",
           function=L, tier="may",
           input={"text": LOG_HEADER + header("a") + header("b") + sealed(
               '{"executionId":"a","executionId":"b","seq":1,"kind":"EXECUTION_STARTED",'
               '"payload":{"executionId":"b","workflow":"w","input":1}')},
           claim=corrupt(4, "journal.malformed-line")),
    vector("journal.log/foreign-execution-started", "journal.started-names-header",
           "In a store log an EXECUTION_STARTED must name the execution its line belongs to.",
           function=L, tier="may",
           input={"text": LOG_HEADER + header("a") + lev("a", 1, *started("b"))},
           claim=corrupt(3, "journal.bad-payload")),
    vector("journal.log/header-bad-execution-id", "journal.header",
           "A header line naming no execution id (a path) is a bad header of the log.",
           function=L, tier="may", input={"text": LOG_HEADER + header("../a")},
           claim=corrupt(2, "journal.bad-header")),
]
