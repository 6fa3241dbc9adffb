"""Definitions of the journal.* cases that settle what a blind implementation of the journal
chapter found open (issue 29, ``spec/blind/journal.md``): the reading order of a line, the
fold vector's inputs and transitions, the simulated disk's corners and the order in which
``journal.store-on-disk`` refuses a step. Each pins a choice the text now states."""

from __future__ import annotations

import json
from typing import Any

from .defs_journal import (
    DONE,
    LOG_HEADER,
    START,
    STEP,
    SUSP,
    L,
    P,
    corrupt,
    ev,
    header,
    journal,
    sealed,
)
from .defs_journal_disk import (
    STARTED,
    answers,
    appends,
    calls,
    create,
    images,
    on_disk,
    op,
    power_loss,
)
from .gen_cases import vector


def refused(code: str) -> Any:
    return lambda obs: obs.get("error", {}).get("code") == code


def parsed_kinds(*kinds: str) -> Any:
    return lambda obs: [e["kind"] for e in obs.get("result", {}).get("events", [])] == list(kinds)


H = header()
LINE1 = ev(1, *START)

# -- journal.parse: the order of a line's checks, and its corners ---------------------------
DEFINITIONS: list[dict[str, Any]] = [
    vector("journal.format/not-json-bad-checksum", "journal.corrupt-line",
           "A line that is not JSON and fails its checksum reports the checksum: the crc "
           "suffix's spelling, then the checksum over the bytes before it, then the JSON form.",
           function=P, input={"text": H + '{"seq":1,"kind"' + ',"crc":"00000000"}\n'},
           claim=corrupt(2, "journal.bad-checksum")),
    vector("journal.format/space-after-object", "journal.checksum",
           "The fixed crc suffix is the line's last bytes: a space after the closing brace is "
           "a malformed line, though JSON would allow it.",
           function=P, input={"text": H + LINE1[:-1] + " \n"},
           claim=corrupt(2, "journal.malformed-line")),
    vector("journal.format/crlf-line-end", "journal.checksum",
           "A line ending in CR LF does not end with the crc suffix: malformed.",
           function=P, input={"text": H + LINE1[:-1] + "\r\n"},
           claim=corrupt(2, "journal.malformed-line")),
    vector("journal.format/spaced-crc-member", "journal.checksum",
           "Spaces inside the final crc member break the fixed suffix: malformed, even with "
           "the right value.",
           function=P, input={"text": H + LINE1.replace(',"crc":"', ', "crc": "')},
           claim=corrupt(2, "journal.malformed-line")),
    vector("journal.format/empty-line", "journal.corrupt-line",
           "An empty complete line is no JSON object: a malformed line.",
           function=P, input={"text": H + "\n"}, claim=corrupt(2, "journal.malformed-line")),
    vector("journal.format/missing-kind", "journal.corrupt-line",
           "An event line without a kind has no known kind: a bad payload (the kind and "
           "payload come before the sequence in the order of reasons).",
           function=P, input={"text": H + sealed('{"seq":1,"payload":{}')},
           claim=corrupt(2, "journal.bad-payload")),
    vector("journal.format/missing-seq", "journal.corrupt-line",
           "An event line without a seq breaks the sequence (seq-gap), not the member set.",
           function=P, input={"text": H + sealed(
               '{"kind":"EXECUTION_STARTED","payload":{"executionId":"e1","workflow":"w",'
               '"input":1}')},
           claim=corrupt(2, "journal.seq-gap")),
    vector("journal.format/header-id-not-string", "journal.header",
           "A header whose executionId is not a string names no execution: a bad header.",
           function=P, input={"text": sealed(
               '{"schema":"loom-ref.journal","version":1,"executionId":5')},
           claim=corrupt(1, "journal.bad-header")),
    vector("journal.format/resume-schema-null", "journal.required-fields",
           "A resumeSchema given as null is no schema: a bad payload, not an absent member.",
           function=P, input={"text": journal(START, ("EXECUTION_SUSPENDED", {
               "gateId": "g", "on": None, "correlationKey": None, "resumeSchema": None}))},
           claim=corrupt(3, "journal.bad-payload")),
    vector("journal.format/error-members-unchecked", "journal.required-fields",
           "The payload rules name top-level members only: an EXECUTION_FAILED whose error is "
           "null still has its required member, and reads.",
           function=P, input={"text": journal(START, ("EXECUTION_FAILED", {"error": None}))},
           claim=parsed_kinds("EXECUTION_STARTED", "EXECUTION_FAILED")),
    vector("journal.format/text-not-string", "journal.parse-vector",
           "journal.parse takes its text as a string: anything else is a malformed input.",
           function=P, input={"text": ["{}"]}, claim=refused("argument.invalid")),
    vector("journal.log/event-id-not-string", "journal.log-format",
           "A store log's event line whose executionId is not a string is a malformed line.",
           function=L, input={"text": LOG_HEADER + header("a") + sealed(
               '{"executionId":5,"seq":1,"kind":"EXECUTION_STARTED","payload":'
               '{"executionId":"a","workflow":"w","input":1}')},
           claim=corrupt(3, "journal.malformed-line")),
]

# -- journal.fold ---------------------------------------------------------------------------
F = "journal.fold"


def events(*items: tuple[str, Any], **extra: Any) -> dict[str, Any]:
    return {"events": [{"kind": k, "payload": p, **extra} for k, p in items]}


def folded(**fields: Any) -> Any:
    return lambda obs: "result" in obs and all(obs["result"].get(k) == v
                                               for k, v in fields.items())


def with_seq(seq: Any) -> dict[str, Any]:
    return {"events": [{"kind": START[0], "payload": START[1], "seq": seq}]}


ILLEGAL = refused("journal.illegal-transition")
INVALID = refused("argument.invalid")
IN_DOUBT = ("STEP_IN_DOUBT", {"stepId": "add#1"})
FAILED = ("STEP_FAILED", {"stepId": "add#1", "error": {"code": "x.y", "message": "m"}})
RECEIVED = ("RESUME_RECEIVED", {"gateId": "g", "payload": 1})
STEP_B = ("STEP_STARTED", {"stepId": "b#1", "toolId": "b", "input": 1, "idempotencyKey": "e1/b#1"})
DEFINITIONS += [
    vector("journal.fold/step-failed", "journal.fold-vector",
           "A step whose latest event is STEP_FAILED has the status failed (the four step "
           "statuses: started, completed, failed, in-doubt).",
           function=F, input=events(START, STEP, FAILED),
           claim=folded(status="running", steps={"add#1": "failed"})),
    vector("journal.fold/seq-given", "journal.fold-vector",
           "A given seq is taken as it is, not checked for order: the state's seq is the "
           "last event's.",
           function=F, input={"events": [{"kind": START[0], "payload": START[1], "seq": 5},
                                         {"kind": STEP[0], "payload": STEP[1], "seq": 2}]},
           claim=folded(status="running", seq=2)),
    vector("journal.fold/seq-null", "journal.fold-vector",
           "A seq given as null is a value of the wrong type, not an absent seq.",
           function=F, input=with_seq(None), claim=INVALID),
    vector("journal.fold/seq-fraction", "journal.fold-vector",
           "A seq that is not an integer (1.5) is a malformed fold input.",
           function=F, input=with_seq(1.5), claim=INVALID),
    vector("journal.fold/seq-string", "journal.fold-vector",
           "A seq written as a string is a malformed fold input.",
           function=F, input=with_seq("1"), claim=INVALID),
    vector("journal.fold/seq-true", "journal.fold-vector",
           "A seq of true is a malformed fold input: booleans are not numbers.",
           function=F, input=with_seq(True), claim=INVALID),
    vector("journal.fold/events-not-list", "journal.fold-vector",
           "events must be a list.", function=F, input={"events": {}}, claim=INVALID),
    vector("journal.fold/checked-before-folding", "journal.fold-vector",
           "Every event is checked before any is folded: a bad payload at the third event is "
           "reported, not the illegal transition at the second.",
           function=F, input=events(START, START, ("NO_SUCH_KIND", {})),
           claim=refused("journal.bad-payload")),
    vector("journal.fold/kind-before-seq", "journal.fold-vector",
           "Within one event the kind and payload are checked before the seq: an event with "
           "no kind and a seq of 1.5 is journal.bad-payload, not argument.invalid.",
           function=F, input={"events": [{"payload": START[1], "seq": 1.5}]},
           claim=refused("journal.bad-payload")),
    vector("journal.fold/event-members-ignored", "journal.fold-vector",
           "An event's members other than kind, payload and seq are ignored.",
           function=F, input=events(START, note="x"), claim=folded(status="running", seq=1)),
    vector("journal.fold/error-members-unchecked", "journal.fold-vector",
           "EXECUTION_FAILED's error is not checked beyond being there: null folds, and is "
           "the state's error.",
           function=F, input=events(START, ("EXECUTION_FAILED", {"error": None})),
           claim=folded(status="failed", error=None)),
    vector("journal.fold/in-doubt-of-unknown-step", "journal.transitions",
           "STEP_IN_DOUBT is a step outcome: for a step that never started it is illegal.",
           function=F, input=events(START, IN_DOUBT), claim=ILLEGAL),
    vector("journal.fold/failure-of-unknown-step", "journal.transitions",
           "STEP_FAILED for a step that never started is illegal.",
           function=F, input=events(START, FAILED), claim=ILLEGAL),
    vector("journal.fold/in-doubt-after-outcome", "journal.transitions",
           "The fold checks only that a step started: STEP_IN_DOUBT after the step's outcome "
           "is allowed, and the step is in doubt again.",
           function=F, input=events(START, STEP, DONE, IN_DOUBT),
           claim=folded(status="in-doubt", inDoubtStep="add#1", steps={"add#1": "in-doubt"})),
    vector("journal.fold/in-doubt-other-step-outcome", "journal.transitions",
           "In doubt, an outcome of another step that started is allowed: running again, "
           "no step in doubt, the in-doubt step keeps its status.",
           function=F, input=events(START, STEP, STEP_B, IN_DOUBT,
                                    ("STEP_COMPLETED", {"stepId": "b#1", "output": 1})),
           claim=folded(status="running", inDoubtStep=None,
                        steps={"add#1": "in-doubt", "b#1": "completed"})),
    vector("journal.fold/failed-keeps-in-doubt-step", "journal.fold-vector",
           "EXECUTION_FAILED while in doubt leaves inDoubtStep naming the step: only a step "
           "outcome clears it.",
           function=F, input=events(START, STEP, IN_DOUBT, ("EXECUTION_FAILED", {
               "error": {"code": "x.y", "message": "m"}})),
           claim=folded(status="failed", inDoubtStep="add#1")),
    vector("journal.fold/second-resume-received", "journal.transitions",
           "A second RESUME_RECEIVED while one is pending is a resume for a gate that is no "
           "longer waiting: illegal.",
           function=F, input=events(START, SUSP, RECEIVED, RECEIVED), claim=ILLEGAL),
    vector("journal.fold/resumed-other-gate", "journal.transitions",
           "EXECUTION_RESUMED is a resume too: naming a gate that is not waiting is illegal.",
           function=F, input=events(START, SUSP, ("EXECUTION_RESUMED", {"gateId": "h"})),
           claim=ILLEGAL),
    vector("journal.fold/resumed-without-received", "journal.transitions",
           "EXECUTION_RESUMED of the waiting gate with no resume pending is allowed (the "
           "table allows it in suspended): running, waiting on nothing.",
           function=F, input=events(START, SUSP, ("EXECUTION_RESUMED", {"gateId": "g"})),
           claim=folded(status="running", waitingOn=None, pendingResume=False)),
]

# -- journal.power-loss: the simulated disk's corners ---------------------------------------
def disk_vector(name: str, description: str, ops: list[Any], claim: Any, **extra: Any
                ) -> dict[str, Any]:
    """A ``journal.power-loss`` case on the function's own inputs (journal.power-loss-vector)."""
    return vector(f"journal.disk/{name}", "journal.power-loss-vector", description,
                  function="journal.power-loss", input={"ops": ops, **extra}, claim=claim,
                  tier="may")


DEFINITIONS += [
    power_loss("truncate-never-grows",
               "A truncation to a size at or above the length changes nothing (a file never "
               "grows by it), yet it is an operation and a moment.",
               [create(), op("append", text="ab"), op("truncate", size=10), op("readAll")],
               lambda r: answers(r) == [None, None, None, "ab"] and r["result"]["moments"] == 3),
    disk_vector("closed-handle",
               "A closed handle: closing it again answers null; every other operation of it "
               "answers closed.",
               [create(), op("close"), op("close"), op("lock"), op("fsync"),
                op("truncate", size=0)],
               lambda r: answers(r) == [None, None, None, {"error": "closed"},
                                        {"error": "closed"}, {"error": "closed"}]),
    disk_vector("unbound-handle",
               "An operation naming a handle no earlier operation bound is a malformed input.",
               [op("fsync", "nobody")], refused("argument.invalid")),
    disk_vector("non-ascii-text-refused",
               "Input text is ASCII: an append of a non-ASCII character is a malformed input.",
               [create(), op("append", text="\u00e9")], refused("argument.invalid")),
    disk_vector("open-create-null-refused",
               "open's create, given as null, is a value of the wrong type, not absent.",
               [{"op": "open", "path": "/disk/a", "create": None, "as": "f"}],
               refused("argument.invalid")),
    disk_vector("empty-path-refused",
               "A path (or a handle name) is a non-empty string.",
               [create("")], refused("argument.invalid")),
    disk_vector("path-outside-directories",
               "A path whose directory is not one of the disk's directories (a relative path "
               "included) is not found; only the listed directories are directories.",
               [create("file"), {"op": "isDir", "path": "/"}, create("/disk/a/b", "g"),
                {"op": "fsyncDir", "path": "/"}],
               lambda r: answers(r) == [{"error": "not-found"}, False, {"error": "not-found"},
                                        {"error": "not-found"}]),
    power_loss("refused-operation-no-moment",
               "A refused operation is no moment: creating an existing file changes nothing.",
               [create(), create(name="g")],
               lambda r: answers(r) == [None, {"error": "exists"}]
               and r["result"]["moments"] == 1),
    power_loss("prefix-counts-file-operations",
               "The prefix image keeps the first half of a file's operations since its last "
               "sync; its creation is not one of them (two appends: the first survives).",
               [create(), op("append", text="a\n"), op("append", text="b\n")],
               lambda r: images(r)["prefix"] == {"/disk/a": "a\n"}),
    disk_vector("image-outside-directories",
               "An image may hold a file outside the directories: it boots, durable, and reads.",
               [{"op": "read", "path": "/other/x"}, {"op": "exists", "path": "/other/x"}],
               lambda r: answers(r) == ["hi", True], image={"/other/x": "hi"}),
]

# -- journal.store-on-disk: the steps' refusals and a store after a torn write ---------------
CREATE = {"do": "create", "executionId": "e1"}
BAD_KIND = {"do": "append", "executionId": "e1", "payload": STARTED}


def torn(nbytes: Any, eid: str = "e1", payload: Any = STARTED) -> dict[str, Any]:
    return {"do": "tornAppend", "executionId": eid, "kind": "EXECUTION_STARTED",
            "payload": payload, "bytes": nbytes}


OTHER = {**STARTED, "executionId": "e2"}
SOD = "journal.store-on-disk-vector"
DEFINITIONS += [
    on_disk("files-empty-execution-id", "journal.execution-ids",
            "An empty execution id is no execution id: the store refuses it with "
            "argument.execution-id, the whole call refused.",
            "files", "never", [{"do": "create", "executionId": ""}],
            refused("argument.execution-id")),
    on_disk("files-append-not-open", SOD,
            "An append naming an execution this store holds no writer for is a malformed "
            "step: the whole call is refused (argument.invalid), not answered journal.closed.",
            "files", "never", appends()[:1], refused("argument.invalid")),
    on_disk("log-append-not-open", SOD,
            "The same on the store log: an append to an execution never created or opened.",
            "log", "never", appends()[:1], refused("argument.invalid")),
    on_disk("files-event-checked-on-append", "journal.payload-shape",
            "The writer checks the kind and the required fields: an append without a kind is "
            "answered journal.bad-payload and writes nothing.",
            "files", "never", [CREATE, BAD_KIND],
            lambda r: answers(r) == [None, {"error": "journal.bad-payload"}]
            and calls(r, "append") == ["append"]),
    on_disk("log-event-checked-on-append", "journal.payload-shape",
            "The same on the store log: a payload without its required fields is answered "
            "journal.bad-payload and nothing of the execution is written.",
            "log", "never", [CREATE, {**appends()[0], "payload": {}}],
            lambda r: answers(r) == [None, {"error": "journal.bad-payload"}]
            and calls(r, "append") == ["append"]),
    on_disk("close-not-open", SOD,
            "Closing an execution the store holds no writer for answers null and calls "
            "nothing.",
            "files", "never", [{"do": "close", "executionId": "e1"}],
            lambda r: answers(r) == [None] and calls(r) == []),
    on_disk("unknown-step-refused", SOD,
            "A step with an unknown do is a malformed input.",
            "files", "never", [{"do": "fsync", "executionId": "e1"}],
            refused("argument.invalid")),
    on_disk("files-torn-bytes-zero", SOD,
            "A torn append writes a non-empty strict prefix of its line: bytes 0 is refused.",
            "files", "never", [CREATE, torn(0)], refused("argument.invalid")),
    on_disk("files-torn-bytes-whole-line", SOD,
            "bytes at the line's length (loom-ref's spelling: raw UTF-8, a U+2028 three bytes) "
            "would write the whole line: refused.",
            "files", "never", [CREATE, torn(len(ev(1, "EXECUTION_STARTED", {
                **STARTED, "input": "\u2028"}).encode("utf-8")), payload={
                **STARTED, "input": "\u2028"})], refused("argument.invalid")),
    on_disk("files-other-journal-after-torn", "journal.crash-model",
            "On the file store a torn write closes only its own journal: another execution's "
            "journal takes appends; the torn one answers journal.closed.",
            "files", "never", [CREATE, {"do": "create", "executionId": "e2"}, torn(5),
                               *appends("e2", [("EXECUTION_STARTED", OTHER)]),
                               appends()[0]],
            lambda r: answers(r) == [None, None, None, None, {"error": "journal.closed"}]
            and images(r)["written"]["/disk/e2.jsonl"] == ["loom-ref.journal",
                                                           "EXECUTION_STARTED"]),
    on_disk("log-store-closed-after-torn", "journal.crash-model",
            "On the store log a torn write closes the store's one file: every later step that "
            "writes or takes a writer answers journal.closed (create of an id it holds still "
            "answers journal.exists, read still answers).",
            "log", "never", [CREATE, {"do": "create", "executionId": "e2"}, torn(5),
                             *appends("e2", [("EXECUTION_STARTED", OTHER)]),
                             {"do": "create", "executionId": "e3"},
                             {"do": "create", "executionId": "e2"},
                             {"do": "read", "executionId": "e2"}],
            lambda r: answers(r) == [None, None, None, {"error": "journal.closed"},
                                     {"error": "journal.closed"}, {"error": "journal.exists"},
                                     {"events": [], "torn": False}]),
    on_disk("files-closed-before-event", SOD,
            "A journal that takes no more appends refuses before the event is looked at: after "
            "a torn write, an append without a kind answers journal.closed.",
            "files", "never", [CREATE, torn(5), BAD_KIND],
            lambda r: answers(r) == [None, None, {"error": "journal.closed"}]),
    on_disk("log-closed-before-event", SOD,
            "The same on the store log.",
            "log", "never", [CREATE, torn(5), BAD_KIND],
            lambda r: answers(r) == [None, None, {"error": "journal.closed"}]),
    on_disk("files-foreign-execution-started-refused", "journal.started-names-header",
            "The writer refuses an EXECUTION_STARTED naming another execution "
            "(journal.bad-payload), and writes nothing: no store holds a journal its reader "
            "refuses.",
            "files", "never", [CREATE, {**appends()[0], "payload": OTHER},
                               {"do": "reopen"}, {"do": "open", "executionId": "e1"}],
            lambda r: answers(r) == [None, {"error": "journal.bad-payload"}, None,
                                     {"events": [], "torn": False}]),
    on_disk("log-foreign-execution-started-refused", "journal.started-names-header",
            "The same on the store log, which would otherwise hold a line that keeps the "
            "whole log from opening.",
            "log", "never", [CREATE, {**appends()[0], "payload": OTHER}, {"do": "reopen"},
                             {"do": "create", "executionId": "e2"}],
            lambda r: answers(r) == [None, {"error": "journal.bad-payload"}, None, None]),
    vector("journal.disk/planted-not-a-kind-refused", SOD,
           "A planted entry's kind is the string symlink or fifo: any other value (a list) is "
           "a malformed input.", function="journal.store-on-disk",
           input={"store": "files", "fsync": "never", "planted": {"/disk/e1.jsonl": []},
                  "steps": [CREATE]}, claim=refused("argument.invalid")),
    on_disk("log-no-steps-no-calls", SOD,
            "The store is opened when the first step runs: with no steps the store log is "
            "never opened and no call is made.",
            "log", "never", [], lambda r: calls(r) == [] and answers(r) == []),
]


# -- what the blind Go adapter's assembler found open (spec/blind/go-adapter.md) ---------------

_DEEP_STARTED = ('{"seq":1,"kind":"EXECUTION_STARTED","payload":{"executionId":"e1",'
                 '"workflow":"w","input":' + "[" * 127 + "1" + "]" * 127 + "}")
_GOOD_CRC = sealed(_DEEP_STARTED)[-11:-3]
_BAD_CRC = "%08x" % ((int(_GOOD_CRC, 16) + 1) % 2**32)
_LINK_LOG = {"/disk/store.log": "symlink"}


def _deep_list(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = [value]
    return value


def _planted_log(name: str, description: str, steps: list[Any], claim: Any) -> dict[str, Any]:
    return vector(f"journal.disk/{name}", SOD, description, function="journal.store-on-disk",
                  input={"store": "log", "fsync": "never", "planted": _LINK_LOG,
                         "steps": steps}, claim=claim)


DEFINITIONS += [
    vector("journal.format/too-deep-bad-checksum", "journal.checksum",
           "A line nested past the limit whose crc is also wrong is journal.bad-checksum: the "
           "CRC over the bytes comes before the JSON form, the nesting limit included.",
           function=P, input={"text": header() + _DEEP_STARTED + f',"crc":"{_BAD_CRC}"}}\n'},
           claim=corrupt(2, "journal.bad-checksum")),
    on_disk("files-torn-nesting-before-bound", SOD,
            "An event nested past the limit is journal.bad-payload before a tornAppend's "
            "bytes are measured against its line (bytes past the line's end).",
            "files", "never",
            # payloadText: a request nests at most 100 levels (INTERPRETING.md 4, Depth)
            [CREATE, {"do": "tornAppend", "executionId": "e1", "kind": "EXECUTION_STARTED",
                      "payloadText": json.dumps({**STARTED, "input": _deep_list(127)}),
                      "bytes": 1_000_000}],
            lambda r: answers(r) == [None, {"error": "journal.bad-payload"}]),
    on_disk("files-started-id-null-refused", "journal.started-names-header",
            "The writer refuses an EXECUTION_STARTED whose executionId is null (no string), "
            "journal.bad-payload, and writes nothing.",
            "files", "never", [CREATE, {**appends()[0], "payload": {**STARTED,
                                                                     "executionId": None}},
                               {"do": "reopen"}, {"do": "open", "executionId": "e1"}],
            lambda r: answers(r) == [None, {"error": "journal.bad-payload"}, None,
                                     {"events": [], "torn": False}]),
    _planted_log("log-malformed-step-before-store",
                 "The whole input is checked before the store is opened: a step with no known "
                 "do is argument.invalid even where the log cannot be opened (a planted link).",
                 [{"do": None}], refused("argument.invalid")),
    _planted_log("log-bad-id-before-store",
                 "An id that breaks the id rule refuses the call (argument.execution-id) before "
                 "the store is opened, even where the log cannot be opened.",
                 [{"do": "create", "executionId": ""}], refused("argument.execution-id")),
    vector("journal.disk/planted-outside-disk-refused", SOD,
           "A planted entry is at a path in /disk: an absolute path elsewhere is a malformed "
           "input.", function="journal.store-on-disk",
           input={"store": "files", "fsync": "never", "planted": {"/other/e1.jsonl": "fifo"},
                  "steps": [CREATE]}, claim=refused("argument.invalid")),
    on_disk("files-steps-checked-before-any-runs", SOD,
            "Every step is checked before the first runs: a later step with no known do "
            "refuses the call (argument.invalid), though an earlier step would refuse it with "
            "argument.execution-id (a case-only twin) when run.",
            "files", "never", [{"do": "create", "executionId": "Order-7"},
                               {"do": "create", "executionId": "order-7"},
                               {"do": "fsync", "executionId": "e1"}],
            refused("argument.invalid")),
]

# issue 29, journal reading 29: a vector's input is a JSON object (INTERPRETING.md section 3):
# any other input of a journal function is malformed, argument.invalid.
DEFINITIONS += [
    vector(f"journal.format/{name}-input-not-an-object", "journal.parse-vector",
           f"{fn}'s input is a JSON object ({shown}): an input of another type is malformed, "
           "argument.invalid.",
           function=fn, input=value, claim=refused("argument.invalid"))
    for name, fn, value, shown in (
        ("parse", P, ["{}"], "here a list"),
        ("fold", "journal.fold", None, "here null"),
        ("parse-log", L, "{}", "here a string"),
    )
]
