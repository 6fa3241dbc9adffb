"""Definitions of the journal.* cases that settle what a third (fresh) blind implementation of
the journal chapter found open (issue 29, ``spec/blind/journal.md``, *Fresh blind reading*):
a line's leading whitespace and underflowing numbers, a first line that is no header, the
fold's untyped ids, a store log's event line with a bad id, the simulated disk's directories,
images and moments, and the stores after a torn write. Each pins a choice the text now
states."""

from __future__ import annotations

from typing import Any

from loom_ref.journal.codec import encode_line

from .defs_journal import LOG_HEADER, START, L, P, corrupt, ev, header, lev, sealed, started
from .defs_journal_blind import CREATE, SOD, disk_vector, events, folded, torn
from .defs_journal_disk import STARTED, answers, calls, create, images, op, power_loss
from .gen_cases import vector

H = header()
LINE1 = ev(1, *START)
_BODY1 = LINE1[:LINE1.index(',"crc":"')]
#: loom-ref's spelling of EXECUTION_STARTED(STARTED) as seq 1, without its newline
_STARTED_LEN = len(encode_line(1, "EXECUTION_STARTED", STARTED)) - 1
F = "journal.fold"


def _one_event(obs: Any) -> bool:
    evs = obs.get("result", {}).get("events", [])
    return [e["kind"] for e in evs] == ["EXECUTION_STARTED"]


DEFINITIONS: list[dict[str, Any]] = [
    # -- journal.parse -------------------------------------------------------------------------
    vector("journal.format/space-before-object", "journal.checksum",
           "JSON whitespace before a line's opening brace is part of the bytes the crc covers "
           "and of the JSON form, which allows it: the line reads.",
           function=P, input={"text": H + sealed(" " + _BODY1)}, claim=_one_event),
    vector("journal.format/underflow-is-zero", "journal.json-values",
           "A number too small to be a nonzero double (1e-999) is finite: it reads (as 0).",
           function=P,
           input={"text": H + sealed('{"seq":1,"kind":"EXECUTION_STARTED","payload":'
                                     '{"executionId":"e1","workflow":"w","input":1e-999}')},
           claim=_one_event),
    vector("journal.format/first-line-not-header", "journal.header",
           "A first line without a schema member (an event line first) is no header: "
           "journal.bad-header, line 1.",
           function=P, input={"text": LINE1}, claim=corrupt(1, "journal.bad-header")),
    vector("journal.format/header-like-event-line", "journal.corrupt-line",
           "After line 1 a line is an event line, a header's copy included: with no kind it "
           "is an unknown kind, journal.bad-payload.",
           function=P, input={"text": H + LINE1 + header()},
           claim=corrupt(3, "journal.bad-payload")),
    vector("journal.format/input-member-ignored", "journal.parse-vector",
           "A member of journal.parse's input other than text is ignored.",
           function=P, input={"text": H + LINE1, "file": 7}, claim=_one_event),
    # -- journal.fold --------------------------------------------------------------------------
    vector("journal.fold/input-member-ignored", "journal.fold-vector",
           "A member of journal.fold's input other than events is ignored.",
           function=F, input={**events(START), "bogus": [1]}, claim=folded(status="running")),
    vector("journal.fold/started-id-unchecked", "journal.fold-vector",
           "The fold has no header: EXECUTION_STARTED's executionId is a required field with "
           "any JSON value, compared with nothing.",
           function=F,
           input=events(("EXECUTION_STARTED", {"executionId": 7, "workflow": "w", "input": 1})),
           claim=folded(status="running")),
    vector("journal.fold/gate-id-not-string", "journal.fold-vector",
           "A gateId is given no type: a number is a gate, waitingOn carries it, and a resume "
           "naming the same value names that gate.",
           function=F,
           input=events(START, ("EXECUTION_SUSPENDED", {"gateId": 7, "on": None,
                                                        "correlationKey": None}),
                        ("RESUME_RECEIVED", {"gateId": 7, "payload": 1})),
           claim=folded(status="suspended", waitingOn=7, pendingResume=True)),
    vector("journal.fold/gate-id-compared-as-json", "journal.transitions",
           "Gate ids are compared as JSON values: the string \"7\" is not the gate 7, so its "
           "resume is an illegal transition.",
           function=F,
           input=events(START, ("EXECUTION_SUSPENDED", {"gateId": 7, "on": None,
                                                        "correlationKey": None}),
                        ("RESUME_RECEIVED", {"gateId": "7", "payload": 1})),
           claim=lambda obs: obs.get("error", {}).get("code") == "journal.illegal-transition"),
    # -- journal.parse-log ---------------------------------------------------------------------
    vector("journal.log/torn-names-reserved-id", "journal.log-torn-tail",
           "Torn bytes name an execution only by an id of the whole rule of 1.1: CON is a "
           "reserved name, so they name none.",
           function=L, input={"text": LOG_HEADER + '{"executionId":"CON","seq":1'},
           claim=lambda obs: obs.get("result", {}).get("torn")
           == {"line": 2, "size": 28, "executionId": None}),
    vector("journal.log/event-bad-execution-id", "journal.log-executions",
           "An event line whose executionId breaks the id rule has no header before it (no "
           "header can name that id): journal.bad-header.",
           function=L, input={"text": LOG_HEADER + lev("a:b", 1, *started("a:b"))},
           claim=corrupt(2, "journal.bad-header")),
    # -- journal.power-loss ------------------------------------------------------------------
    disk_vector("image-outside-directories-create-open",
                "A file an image holds outside the directories is there: create of it is "
                "exists, open of it opens it (the directory rule is for paths no file holds).",
                [{"op": "create", "path": "/other/x", "as": "f"},
                 {"op": "open", "path": "/other/x", "as": "f"}, op("readAll")],
                lambda r: answers(r) == [{"error": "exists"}, None, "hi"],
                image={"/other/x": "hi"}),
    disk_vector("directories-not-normalised",
                "Directories are compared as written: with /disk/ listed, /disk/ is a "
                "directory, /disk is not, and the directory of /disk/a (/disk) is not listed.",
                [create(), {"op": "isDir", "path": "/disk/"}, {"op": "isDir", "path": "/disk"}],
                lambda r: answers(r) == [{"error": "not-found"}, True, False],
                directories=["/disk/"]),
    disk_vector("path-not-normalised",
                "A path is not normalised either: the directory of /disk//a is /disk/ (the part "
                "before its last /), so with /disk/ listed it can be created and /disk/b "
                "cannot.",
                [create("/disk//a"), create("/disk/b", "g")],
                lambda r: answers(r) == [None, {"error": "not-found"}],
                directories=["/disk/"]),
    disk_vector("path-without-slash",
                "A path without a / has no directory: not found, even with / listed.",
                [create("a"), create("/b", "g")],
                lambda r: answers(r) == [{"error": "not-found"}, None],
                directories=["/"]),
    disk_vector("directory-exists-not-read",
                "A listed directory exists, but it is no file: read of it is not-found.",
                [{"op": "exists", "path": "/disk"}, {"op": "read", "path": "/disk"}],
                lambda r: answers(r) == [True, {"error": "not-found"}]),
    disk_vector("negative-truncate-refused",
                "A truncate size is an integer of at least 0: -1 is a malformed input.",
                [create(), op("truncate", size=-1)],
                lambda obs: obs.get("error", {}).get("code") == "argument.invalid"),
    power_loss("empty-append-no-moment",
               "An append of no bytes changes nothing and is no moment.",
               [create(), op("append", text="")],
               lambda r: answers(r) == [None, None] and r["result"]["moments"] == 1),
    power_loss("idle-fsync-is-moment",
               "An fsync with nothing pending is still a sync and a moment.",
               [create(), op("fsync"), op("fsync")],
               lambda r: r["result"]["moments"] == 3 and r["result"]["syncs"] == 2),
    power_loss("one-byte-append-torn",
               "An append of one byte is cut to nothing in the torn image and lands as one zero "
               "byte in the zeroed image; the torn cut keeps the first k bytes.",
               [create(), op("fsync"), {"op": "fsyncDir", "path": "/disk"}, op("append", text="a")],
               lambda r: images(r).get("zeroed") == {"/disk/a": "\u0000"}
               and images(r).get("torn", {"/disk/a": ""}) == {"/disk/a": ""}),
    # -- journal.store-on-disk -----------------------------------------------------------------
    vector("journal.disk/files-torn-bytes-all-but-newline", SOD,
           "bytes counts the line with its newline: every byte but the newline is a torn write "
           "(the bound is the length with the newline, minus one).",
           function="journal.store-on-disk",
           input={"store": "files", "fsync": "never", "steps": [CREATE, torn(_STARTED_LEN)]},
           claim=lambda r: answers(r) == [None, None]
           and images(r)["written"]["/disk/e1.jsonl"] == ["loom-ref.journal", "torn"]),
    vector("journal.disk/files-case-twin-not-found", SOD,
           "The simulated disk is case-sensitive: open and read of E1 where only e1 exists "
           "find nothing, journal.not-found (only a create is refused as a twin).",
           function="journal.store-on-disk",
           input={"store": "files", "fsync": "never",
                  "steps": [CREATE, {"do": "append", "executionId": "e1",
                                     "kind": "EXECUTION_STARTED", "payload": STARTED},
                            {"do": "open", "executionId": "E1"},
                            {"do": "read", "executionId": "E1"}]},
           claim=lambda r: answers(r) == [None, None, {"error": "journal.not-found"},
                                          {"error": "journal.not-found"}]),
    vector("journal.disk/log-open-held-locked", SOD,
           "On the store log an id this store created holds its writer, journaled or not: "
           "open of it is journal.locked; after a reopen, never journaled, it is not found.",
           function="journal.store-on-disk",
           input={"store": "log", "fsync": "never",
                  "steps": [CREATE, {"do": "open", "executionId": "e1"}, {"do": "reopen"},
                            {"do": "open", "executionId": "e1"}]},
           claim=lambda r: answers(r) == [None, {"error": "journal.locked"}, None,
                                          {"error": "journal.not-found"}]),
    vector("journal.disk/log-read-after-torn", SOD,
           "On the store log a read in the same store after a torn write names the torn "
           "tail of that execution: torn true, its torn event not read.",
           function="journal.store-on-disk",
           input={"store": "log", "fsync": "never",
                  "steps": [CREATE, torn(25), {"do": "read", "executionId": "e1"}]},
           claim=lambda r: answers(r) == [None, None, {"events": [], "torn": True}]
           and calls(r).count("close") == 2),
]
