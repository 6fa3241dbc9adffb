"""Definitions of the journal.* cases that settle what the journal chapter's third fresh blind
reading found (issue 29, ``spec/blind/journal.md``, *Third fresh blind reading*): a header
without its crc suffix and spacing before the suffix, the resume-schema subset's ``$ref``
rules in a reader and the fold, a second ``STEP_IN_DOUBT``, a store log that is only its torn
header, a listed directory's own path on the simulated disk, the store log's ``open`` after a
torn write, and how the line that bounds a ``tornAppend`` spells integers. Each pins a choice
the text now states."""

from __future__ import annotations

from typing import Any

from loom_ref.journal.codec import encode_line

from .defs_journal import (
    START,
    STEP,
    SUSP,
    corrupt,
    ev,
    events,
    folded,
    illegal,
    journal,
    sealed,
)
from .defs_journal_disk import STARTED, on_disk
from .gen_cases import vector

P = "journal.parse"
F = "journal.fold"
_CREATE = {"do": "create", "executionId": "e1"}


def _code(code: str) -> Any:
    return lambda r: r.get("error", {}).get("code") == code


def _answers(r: Any) -> list[Any]:
    return list(r["result"]["answers"])


def _suspended(schema: Any) -> tuple[str, Any]:
    return ("EXECUTION_SUSPENDED", {**SUSP[1], "resumeSchema": schema})


_TREE = {"$defs": {"node": {"type": "object", "properties": {
    "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}}, "$ref": "#/$defs/node"}
_IN_DOUBT = ("STEP_IN_DOUBT", {"stepId": "add#1"})
_OTHER = ("STEP_STARTED", {"stepId": "sub#1", "toolId": "sub", "input": 1,
                           "idempotencyKey": "e1/sub#1"})

DEFINITIONS: list[dict[str, Any]] = [
    # -- journal.checksum: the suffix on the header, spacing before it -----------------------
    vector("journal.format/header-without-crc", "journal.checksum",
           "Every line carries the crc suffix, the header included: a header without it is a "
           "malformed line (checked before the header rules), not a bad header.",
           function=P, input={"text": '{"schema":"loom-ref.journal","version":1,'
                                      '"executionId":"e1"}\n' + ev(1, *START)},
           claim=corrupt(1, "journal.malformed-line")),
    vector("journal.format/space-before-crc-suffix", "journal.checksum",
           "JSON whitespace right before the suffix's comma is spacing before the suffix, "
           "which any writer may use: the header reads.",
           function=P, input={"text": sealed(
               '{"schema":"loom-ref.journal","version":1,"executionId":"e1" ') + ev(1, *START)},
           claim=lambda r: r["result"]["executionId"] == "e1"
           and [e["kind"] for e in r["result"]["events"]] == ["EXECUTION_STARTED"]),
    # -- journal.required-fields: the whole resume-schema subset -----------------------------
    vector("journal.format/resume-schema-dangling-ref", "journal.required-fields",
           "A resumeSchema whose $ref names no member of the root's $defs is outside the "
           "subset (kernel.schema-refs): a bad payload.",
           function=P, input={"text": journal(START, _suspended({"$ref": "#/$defs/missing"}))},
           claim=corrupt(3, "journal.bad-payload")),
    vector("journal.format/resume-schema-ref-cycle", "journal.required-fields",
           "A resumeSchema whose $ref leads back to itself without reading into the value is "
           "outside the subset (kernel.schema-refs): a bad payload.",
           function=P, input={"text": journal(START, _suspended(
               {"$defs": {"a": {"anyOf": [{"$ref": "#/$defs/a"}]}}, "$ref": "#/$defs/a"}))},
           claim=corrupt(3, "journal.bad-payload")),
    vector("journal.format/resume-schema-recursive-tree", "journal.required-fields",
           "A $ref that recurs through properties and items is a tree of any depth, a schema "
           "of the subset: the line reads.",
           function=P, input={"text": journal(START, _suspended(_TREE))},
           claim=lambda r: r["result"]["events"][1]["payload"]["resumeSchema"] == _TREE),
    # -- journal.fold-vector, journal.transitions --------------------------------------------
    vector("journal.fold/bad-resume-schema", "journal.fold-vector",
           "The fold checks an event's payload as a reader checks a line's: a resumeSchema "
           "outside the subset is journal.bad-payload.",
           function=F, input=events(START, _suspended({"type": "decimal"})),
           claim=_code("journal.bad-payload")),
    vector("journal.fold/in-doubt-twice", "journal.transitions",
           "In doubt, the table allows no STEP_IN_DOUBT: a second one of the same step is an "
           "illegal transition.",
           function=F, input=events(START, STEP, _IN_DOUBT, _IN_DOUBT), claim=illegal),
    vector("journal.fold/in-doubt-then-other-in-doubt", "journal.transitions",
           "In doubt, a STEP_IN_DOUBT of another step that started is illegal too.",
           function=F, input=events(START, STEP, _OTHER, _IN_DOUBT,
                                    ("STEP_IN_DOUBT", {"stepId": "sub#1"})), claim=illegal),
    vector("journal.fold/in-doubt-once", "journal.transitions",
           "One STEP_IN_DOUBT of a started step is legal (the twice cases' prefix folds).",
           function=F, input=events(START, STEP, _IN_DOUBT),
           claim=folded(status="in-doubt", inDoubtStep="add#1")),
    # -- journal.log-format: a log that is only its torn header ------------------------------
    vector("journal.log/torn-log-header", "journal.log-format",
           "A log whose only bytes are its own first line, unterminated, holds nothing and "
           "reports them as its torn tail at line 1, naming no execution.",
           function="journal.parse-log", input={"text": '{"schema":"loom-ref.log","ver'},
           claim={"result": {"executions": {}, "order": [],
                             "torn": {"line": 1, "size": len('{"schema":"loom-ref.log","ver'),
                                      "executionId": None}}}),
    # -- journal.power-loss-vector: a listed directory's own path -----------------------------
    vector("journal.disk/create-at-directory-path", "journal.power-loss-vector",
           "A listed directory's path holds no file: create of it is exists, even where its "
           "own directory is listed too (/disk/d in /disk) or is not (/disk), and no moment.",
           function="journal.power-loss",
           input={"directories": ["/disk", "/disk/d"], "ops": [
               {"op": "create", "path": "/disk/d", "as": "f"},
               {"op": "create", "path": "/disk", "as": "g"},
               {"op": "isDir", "path": "/disk/d"}, {"op": "read", "path": "/disk/d"}]},
           claim=lambda r: _answers(r) == [{"error": "exists"}, {"error": "exists"}, True,
                                           {"error": "not-found"}]
           and r["result"]["moments"] == 0, tier="may"),
    vector("journal.disk/open-at-directory-path", "journal.power-loss-vector",
           "open of a listed directory's path is not-found (no file is there), and exists "
           "with create: true (it cannot make one there); the root listed is no exception.",
           function="journal.power-loss",
           input={"directories": ["/"], "ops": [
               {"op": "open", "path": "/", "as": "f"},
               {"op": "open", "path": "/", "create": True, "as": "g"},
               {"op": "exists", "path": "/"}]},
           claim=lambda r: _answers(r) == [{"error": "not-found"}, {"error": "exists"}, True]
           and r["result"]["moments"] == 0, tier="may"),
    vector("journal.disk/image-at-directory-path-refused", "journal.power-loss-vector",
           "An image holding a file at a listed directory's path is argument.invalid.",
           function="journal.power-loss",
           input={"image": {"/disk": "x"}, "ops": [{"op": "read", "path": "/disk"}]},
           claim=_code("argument.invalid"), tier="may"),
]

# -- journal.store-on-disk-vector: the store log's open after a torn write --------------------
DEFINITIONS += [
    on_disk("log-open-held-after-torn", "journal.store-on-disk-vector",
            "After a torn write closed the store log, open answers journal.closed for an id "
            "the store holds, its writer held (e2) or not (e1, closed), not journal.locked; "
            "and journal.not-found for an id it does not hold (e3).",
            "log", "never",
            [_CREATE, {"do": "create", "executionId": "e2"},
             {"do": "tornAppend", "executionId": "e1", "kind": "EXECUTION_STARTED",
              "payload": STARTED, "bytes": 5},
             {"do": "open", "executionId": "e2"}, {"do": "close", "executionId": "e1"},
             {"do": "open", "executionId": "e1"}, {"do": "open", "executionId": "e3"}],
            lambda r: _answers(r)[3:] == [{"error": "journal.closed"}, None,
                                          {"error": "journal.closed"},
                                          {"error": "journal.not-found"}]),
]

# -- journal.store-on-disk-vector: integers in the line that bounds bytes ---------------------
_INTS = {**STARTED, "input": [-9007199254740992, 0, -1, 9007199254740992, 120]}
#: loom-ref's spelling of EXECUTION_STARTED(_INTS) as seq 1, its newline included
_INTS_LEN = len(encode_line(1, "EXECUTION_STARTED", _INTS))
assert len(encode_line(1, "EXECUTION_STARTED", {**STARTED, "input": None})) - 4 + len(
    "[-9007199254740992,0,-1,9007199254740992,120]") == _INTS_LEN


def _torn_ints(nbytes: int) -> list[dict[str, Any]]:
    return [_CREATE, {"do": "tornAppend", "executionId": "e1", "kind": "EXECUTION_STARTED",
                      "payload": _INTS, "bytes": nbytes}]


DEFINITIONS += [
    on_disk("files-torn-bytes-integers", "journal.store-on-disk-vector",
            "Integers within 2^53 are spelt as their decimal digits, a minus sign first when "
            "negative, in the line that bounds bytes: every byte but its newline is a valid "
            "torn write.",
            "files", "never", _torn_ints(_INTS_LEN - 1),
            lambda r: _answers(r) == [None, None]),
    on_disk("files-torn-bytes-integers-past", "journal.store-on-disk-vector",
            "The whole line so spelt, its newline included, is past the bound: "
            "argument.invalid (a longer spelling, 120 as 1.2e2 or 120.0, would allow it).",
            "files", "never", _torn_ints(_INTS_LEN),
            lambda r: r.get("error", {}).get("code") == "argument.invalid"),
]
