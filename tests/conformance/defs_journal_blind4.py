"""Definitions of the journal.* cases that settle what the journal chapter's second fresh
blind reading found (issue 29, ``spec/blind/journal.md``, *Second fresh blind reading*):
journal.content's items (an item that is not an object is the input's fault, a kind that
names no event kind the writer's), the SQLite store's call sequence (a ``reopen`` as the
first step, an execution's header with its own first event, an id created and closed before
it was journaled), and the store log's ``reopen`` as the first step. Each pins a choice the
text now states."""

from __future__ import annotations

from typing import Any

from .defs_journal_disk import EVENTS, STARTED, appends, on_disk
from .gen_cases import vector

CT = "journal.content"
ST = "journal.sqlite-trace"
_ST = {"kind": "EXECUTION_STARTED", "payload": STARTED}
_CREATE = {"do": "create", "executionId": "e1"}


def _code(code: str) -> Any:
    return lambda r: r.get("error", {}).get("code") == code


def _calls(r: Any) -> list[Any]:
    return list(r["result"]["calls"])


#: the SQLite store's calls when it opens a new database under a syncing policy
#: (journal.sqlite-trace, the table "Opening the store")
_OPEN_NEW_SYNCING = [
    {"call": "open"}, {"call": "synchronous", "level": "FULL"},
    {"call": "lockingMode", "mode": "EXCLUSIVE"}, {"call": "journalMode", "mode": "WAL"},
    {"call": "begin"}, {"call": "insert", "table": "loom_store"}, {"call": "commit"},
    {"call": "synchronous", "level": "NORMAL"}, {"call": "fsyncDir"}]
_OPEN_NEW_NEVER = [
    {"call": "open"}, {"call": "synchronous", "level": "NORMAL"},
    {"call": "lockingMode", "mode": "EXCLUSIVE"}, {"call": "journalMode", "mode": "WAL"},
    {"call": "begin"}, {"call": "insert", "table": "loom_store"}, {"call": "commit"}]


DEFINITIONS: list[dict[str, Any]] = [
    # -- journal.content: the items of appends and stored ---------------------------------------
    vector("journal.content/appends-item-not-an-object", "journal.content-vector",
           "Every item of appends is an object, checked before anything is written: a later "
           "item that is a number makes the input malformed, argument.invalid, though an "
           "earlier item's kind names no event kind.",
           function=CT, input={"appends": [{"kind": "EXECUTION_BEGUN", "payload": {}}, 5]},
           claim=_code("argument.invalid")),
    vector("journal.content/stored-item-not-an-object", "journal.content-vector",
           "Every item of stored is an object, checked before anything is written: an item "
           "that is a string is argument.invalid, though the item before it is a good event.",
           function=CT, input={"stored": [_ST, "EXECUTION_COMPLETED"]},
           claim=_code("argument.invalid")),
    vector("journal.content/appends-kind-absent", "journal.content-vector",
           "An append with no kind names no event kind: the writer refuses it, "
           "journal.bad-payload, as every store's writer does (journal.event-kinds).",
           function=CT, input={"appends": [{"payload": STARTED}]},
           claim=_code("journal.bad-payload")),
    vector("journal.content/appends-kind-null", "journal.content-vector",
           "An append whose kind is null names no event kind: journal.bad-payload.",
           function=CT, input={"appends": [{"kind": None, "payload": STARTED}]},
           claim=_code("journal.bad-payload")),
    vector("journal.content/stored-kind-not-a-string", "journal.content-vector",
           "A stored item whose kind is an array (an event kind's name inside it) names no "
           "event kind: journal.bad-payload, the writer's refusal when it is written.",
           function=CT, input={"stored": [{"kind": ["EXECUTION_STARTED"], "payload": STARTED}]},
           claim=_code("journal.bad-payload")),
    # -- journal.sqlite-trace: the call sequence ----------------------------------------------
    vector("journal.sqlite/reopen-first-step", "journal.sqlite-trace",
           "A reopen that is the first step finds no store open: it opens the store once "
           "(no close before it), and the store is closed once after the last step.",
           function=ST, input={"fsync": "every-event", "steps": [
               {"do": "reopen"}, {"do": "read", "executionId": "e1"}]},
           claim=lambda r: _calls(r) == [*_OPEN_NEW_SYNCING, {"call": "close"}]
           and r["result"]["answers"] == [None, {"error": "journal.not-found"}]),
    vector("journal.sqlite/open-after-close-never-journaled", "journal.sqlite-trace",
           "An id created in this store and closed before anything was journaled for it is "
           "still the store's: a later open in the same store finds it empty and whole, "
           "writing nothing.",
           function=ST, input={"fsync": "never", "steps": [
               _CREATE, {"do": "close", "executionId": "e1"},
               {"do": "open", "executionId": "e1"}]},
           claim=lambda r: r["result"]["answers"] == [None, None, {"events": [], "torn": False}]
           and _calls(r) == [*_OPEN_NEW_NEVER, {"call": "close"}]),
    vector("journal.sqlite/each-execution-header-with-its-first-event", "journal.sqlite-trace",
           "Each execution's header row goes with its own first event, in an explicit "
           "transaction; every later event of either is one autocommitted insert.",
           function=ST, input={"fsync": "never", "steps": [
               _CREATE, {"do": "create", "executionId": "e2"}, *appends("e1", EVENTS[:2]),
               *appends("e2", [("EXECUTION_STARTED", {**STARTED, "executionId": "e2"})]),
               *appends("e2", EVENTS[1:2])]},
           claim=lambda r: _calls(r) == [
               *_OPEN_NEW_NEVER,
               {"call": "begin"}, {"call": "insert", "table": "journals"},
               {"call": "insert", "table": "lines"}, {"call": "commit"},
               {"call": "insert", "table": "lines"},
               {"call": "begin"}, {"call": "insert", "table": "journals"},
               {"call": "insert", "table": "lines"}, {"call": "commit"},
               {"call": "insert", "table": "lines"}, {"call": "close"}]),
    # -- journal.store-on-disk: a reopen as the first step ---------------------------------------
    on_disk("log-reopen-first-step", "journal.store-on-disk-vector",
            "A reopen that is the first step finds no store open: the store log is opened "
            "once (created, locked, its header written), not opened, closed and opened again.",
            "log", "never", [{"do": "reopen"}, {"do": "read", "executionId": "e1"}],
            lambda r: [c["call"] for c in r["result"]["calls"]]
            == ["create", "lock", "append", "close"]
            and r["result"]["answers"] == [None, {"error": "journal.not-found"}]),
    on_disk("log-open-after-close-never-journaled", "journal.store-on-disk-vector",
            "On the store log an id created and closed before anything was journaled for it "
            "is found by a later open in the same store: no events, not torn.",
            "log", "never", [_CREATE, {"do": "close", "executionId": "e1"},
                             {"do": "open", "executionId": "e1"}],
            lambda r: r["result"]["answers"] == [None, None, {"events": [], "torn": False}]),
]

# -- the points no case decided, now decided in the text -------------------------------------
from loom_ref.journal.codec import encode_line  # noqa: E402

from .defs_journal import LOG_HEADER, corrupt, header, sealed  # noqa: E402

_CONTROLS = {**STARTED, "workflow": "a\n\u0001\"\\b"}
#: loom-ref's spelling of EXECUTION_STARTED(_CONTROLS) as seq 1, its newline included
_CONTROLS_LEN = len(encode_line(1, "EXECUTION_STARTED", _CONTROLS))
assert len(encode_line(1, "EXECUTION_STARTED", STARTED)) + 13 == _CONTROLS_LEN


def _torn_controls(nbytes: int) -> list[dict[str, Any]]:
    return [_CREATE, {"do": "tornAppend", "executionId": "e1", "kind": "EXECUTION_STARTED",
                      "payload": _CONTROLS, "bytes": nbytes}]


DEFINITIONS += [
    vector("journal.log/event-without-id-before-kind", "journal.log-format",
           "An event line with no executionId is malformed, checked with the JSON form: "
           "before its unknown kind (journal.malformed-line, not journal.bad-payload).",
           function="journal.parse-log",
           input={"text": LOG_HEADER + header("e1")
                  + sealed('{"seq":1,"kind":"EXECUTION_BEGUN","payload":{}')},
           claim=corrupt(3, "journal.malformed-line")),
    vector("journal.log/case-twins-read-as-two", "journal.log-format",
           "A reader checks no store rule: headers of abc and ABC are two executions.",
           function="journal.parse-log",
           input={"text": LOG_HEADER + header("abc") + header("ABC")},
           claim={"result": {"executions": {"abc": [], "ABC": []}, "order": ["abc", "ABC"],
                             "torn": None}}),
    vector("journal.disk/directory-listed-twice", "journal.power-loss-vector",
           "A directory listed twice is one directory: a file is created in it and its "
           "fsyncDir is one directory sync.",
           function="journal.power-loss",
           input={"directories": ["/d", "/d"], "ops": [
               {"op": "create", "path": "/d/f", "as": "f"}, {"op": "fsyncDir", "path": "/d"}]},
           claim=lambda r: r["result"]["answers"] == [None, None]
           and r["result"]["dirSyncs"] == 1, tier="may"),
    on_disk("files-transitions-not-checked", "journal.store-on-disk-vector",
            "A store's writer checks kinds and payloads, not transitions: EXECUTION_COMPLETED "
            "as a journal's first event is written.",
            "files", "never", [_CREATE, {"do": "append", "executionId": "e1",
                                         "kind": "EXECUTION_COMPLETED", "payload": {"output": 1}},
                               {"do": "read", "executionId": "e1"}],
            lambda r: r["result"]["answers"] == [
                None, None, {"events": ["EXECUTION_COMPLETED"], "torn": False}]),
    on_disk("files-torn-bytes-escaped-controls", "journal.store-on-disk-vector",
            "The line's length that bounds bytes spells a newline \\n, U+0001 \\u0001, a quote "
            "and a backslash with one backslash each: every byte but the newline of that "
            "spelling is a valid torn write.",
            "files", "never", _torn_controls(_CONTROLS_LEN - 1),
            lambda r: r["result"]["answers"] == [None, None]),
    on_disk("files-torn-bytes-escaped-controls-past", "journal.store-on-disk-vector",
            "A torn write of the whole line so spelled, its newline included, is past the "
            "bound: argument.invalid (a longer spelling, \\u000a for the newline, would "
            "allow it).",
            "files", "never", _torn_controls(_CONTROLS_LEN),
            lambda r: r.get("error", {}).get("code") == "argument.invalid"),
    vector("journal.content/content-elsewhere-kept", "journal.content-resolve",
           "References are resolved at configured paths only: a $content object at another "
           "path (input of EXECUTION_STARTED) is handed back as it is.",
           function=CT, input={"stored": [{"kind": "EXECUTION_STARTED", "payload": {
               **STARTED, "input": {"$content": {"items": [[0, 1]]}}}}]},
           claim=lambda r: r["result"]["events"][0]["payload"]["input"]
           == {"$content": {"items": [[0, 1]]}}),
]

DEFINITIONS += [
    vector("journal.format/event-without-payload", "journal.payload-shape",
           "An event line with no payload member has no payload object: journal.bad-payload "
           "(checked with the kind, before the set of members).",
           function="journal.parse",
           input={"text": header("e1") + sealed('{"seq":1,"kind":"EXECUTION_STARTED"')},
           claim=corrupt(2, "journal.bad-payload")),
]

from .defs_journal import lev  # noqa: E402

#: the store log's first event line of e1 (executionId first), its newline included
_LOG_FIRST_LEN = len(lev("e1", 1, "EXECUTION_STARTED", STARTED).encode("utf-8"))


def _log_torn_first(nbytes: int) -> list[dict[str, Any]]:
    return [_CREATE, {"do": "tornAppend", "executionId": "e1", "kind": "EXECUTION_STARTED",
                      "payload": STARTED, "bytes": nbytes}]


DEFINITIONS += [
    on_disk("log-torn-first-event-bound", "journal.store-on-disk-vector",
            "On the store log a torn first event's bytes are bounded by the event line alone "
            "(its header goes whole before it): every byte of it but the newline is a valid "
            "torn write.",
            "log", "never", _log_torn_first(_LOG_FIRST_LEN - 1),
            lambda r: r["result"]["answers"] == [None, None]),
    on_disk("log-torn-first-event-bound-past", "journal.store-on-disk-vector",
            "On the store log the whole first event line, its newline included, is past the "
            "bound, though the header written with it is longer still: argument.invalid.",
            "log", "never", _log_torn_first(_LOG_FIRST_LEN),
            lambda r: r.get("error", {}).get("code") == "argument.invalid"),
]

# -- found by fuzzing while these points were settled (seed 9) --------------------------------
DEFINITIONS += [
    vector("journal.content/path-listed-twice", "journal.content-refs",
           "A path listed twice for a kind is one path: the array there is journaled by one "
           "reference holding its new items (loom-ref crashed; the Node adapter wrote a "
           "reference that dropped them).",
           function=CT, input={"externalize": {"STEP_COMPLETED": ["output.a", "output.a"]},
                               "appends": [_ST, {"kind": "STEP_STARTED", "payload": {
                                   "stepId": "m#1", "toolId": "m", "input": 1,
                                   "idempotencyKey": "e1/m#1"}},
                                   {"kind": "STEP_COMPLETED", "payload": {
                                       "stepId": "m#1", "output": {"a": ["p", "q"]}}}]},
           claim=lambda r: r["result"]["stored"][2]["payload"]["output"]["a"]
           == {"$content": {"new": ["p", "q"], "items": [[0, 2]]}}
           and r["result"]["events"][2]["payload"]["output"]["a"] == ["p", "q"]),
    vector("journal.disk/log-unopenable-reopen", "journal.store-on-disk-vector",
           "A reopen opens the store; where a link stands at the store log's path it cannot: "
           "its answer is journal.not-a-file, its open attempt listed, and the next step "
           "tries again (the Go adapter answered null).",
           function="journal.store-on-disk",
           input={"store": "log", "fsync": "never", "planted": {"/disk/store.log": "symlink"},
                  "steps": [{"do": "reopen"}, {"do": "read", "executionId": "e1"}]},
           claim=lambda r: r["result"]["answers"] == [{"error": "journal.not-a-file"}] * 2
           and [c["call"] for c in r["result"]["calls"]] == ["open", "open"]),
]
