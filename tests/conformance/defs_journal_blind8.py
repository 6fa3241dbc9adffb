"""Definitions of the journal.* cases that settle what the journal chapter's seventh fresh
blind reading found (issue 29, ``spec/blind/journal.md``, *Seventh fresh blind reading*):
``Infinity`` and ``-Infinity`` in a ``payloadText`` (no JSON value, as ``NaN``), the order
of a kind's configured paths in ``journal.content`` (as listed, not sorted, writing and
reading), a stored ``EXECUTION_STARTED`` naming another execution, and the answer of every
``journal.power-loss`` operation. Each pins a choice the text now states."""

from __future__ import annotations

from typing import Any

from .defs_journal_blind import SOD, disk_vector, refused
from .gen_cases import vector

CT = "journal.content"
_ST = {"kind": "EXECUTION_STARTED", "payload": {"executionId": "e1", "workflow": "w",
                                               "input": None}}
_STEP = {"kind": "STEP_STARTED", "payload": {"stepId": "m#1", "toolId": "m", "input": 1,
                                             "idempotencyKey": "e1/m#1"}}
_UNSORTED = {"STEP_COMPLETED": ["output.b", "output.a"]}


def _ref(**ref: Any) -> dict[str, Any]:
    return {"$content": ref}


def _text_not_json(name: str, token: str) -> dict[str, Any]:
    return vector(f"journal.disk/payload-text-{name}", SOD,
                  f"A payloadText holding {token} holds no JSON value (RFC 8259's grammar has "
                  "none), whatever a decoder accepts: argument.invalid, the whole call, not "
                  "the journal.bad-payload of a value that breaks journal.json-values.",
                  function="journal.store-on-disk",
                  input={"store": "files", "fsync": "never", "steps": [
                      {"do": "create", "executionId": "e1"},
                      {"do": "append", "executionId": "e1", "kind": "EXECUTION_STARTED",
                       "payloadText": '{"executionId":"e1","workflow":"w","input":'
                                      + token + "}"}]},
                  claim=refused("argument.invalid"))


DEFINITIONS: list[dict[str, Any]] = [
    # -- journal.store-on-disk-vector: NaN, Infinity, -Infinity are no JSON value -----------
    _text_not_json("infinity", "Infinity"),
    _text_not_json("minus-infinity", "-Infinity"),
    # -- journal.content-refs: a kind's paths in the order listed, not sorted ---------------
    vector("journal.content/configured-paths-unsorted", "journal.content-refs",
           "A payload's configured paths are written in the order the kind's list gives them, "
           "never sorted: output.b's values join the table first (items 0 and 1), then "
           "output.a's new value (item 2).",
           function=CT, input={"externalize": _UNSORTED, "appends": [
               _ST, _STEP, {"kind": "STEP_COMPLETED", "payload": {
                   "stepId": "m#1", "output": {"a": ["p", "q"], "b": ["q", "r"]}}}]},
           claim=lambda r: r["result"]["stored"][2]["payload"]["output"] == {
               "b": _ref(new=["q", "r"], items=[[0, 2]]),
               "a": _ref(new=["p"], items=[[2, 1], [0, 1]])}
           and r["result"]["events"][2]["payload"]["output"] == {"a": ["p", "q"],
                                                                "b": ["q", "r"]}),
    vector("journal.content/stored-paths-unsorted", "journal.content-resolve",
           "Reading takes a kind's configured paths in the order listed too: output.b's new "
           "value is item 0, output.a's item 1, so output.a's run [1, 1] resolves (read in "
           "sorted order it would name an item not yet defined).",
           function=CT, input={"externalize": _UNSORTED, "stored": [
               _ST, _STEP, {"kind": "STEP_COMPLETED", "payload": {"stepId": "m#1", "output": {
                   "a": _ref(new=["y"], items=[[1, 1]]),
                   "b": _ref(new=["x"], items=[[0, 1]])}}}]},
           claim=lambda r: r["result"]["events"][2]["payload"]["output"] == {
               "a": ["y"], "b": ["x"]}),
    # -- journal.content-vector: a stored EXECUTION_STARTED is checked as an appended one -----
    vector("journal.content/stored-started-names-other", "journal.content-vector",
           "A stored EXECUTION_STARTED is checked as every store's writer checks an event: "
           "one naming another execution than e1 is refused, journal.bad-payload.",
           function=CT, input={"stored": [{"kind": "EXECUTION_STARTED", "payload": {
               "executionId": "e2", "workflow": "w", "input": None}}]},
           claim=lambda r: r.get("error", {}).get("code") == "journal.bad-payload"),
    # -- journal.power-loss-vector: the answer of every operation ---------------------------
    disk_vector("answers-per-operation",
                "Each operation that succeeds answers: create, open, append, truncate, fsync, "
                "fsyncDir and close null; lock, exists and isDir a boolean; read and readAll "
                "the bytes as written.",
                [{"op": "create", "path": "/disk/a", "as": "f"},
                 {"op": "open", "path": "/disk/a", "as": "g"},
                 {"op": "append", "file": "f", "text": "ab\n"},
                 {"op": "truncate", "file": "f", "size": 1},
                 {"op": "fsync", "file": "f"},
                 {"op": "fsyncDir", "path": "/disk"},
                 {"op": "lock", "file": "f"},
                 {"op": "lock", "file": "g"},
                 {"op": "exists", "path": "/disk/a"},
                 {"op": "isDir", "path": "/disk"},
                 {"op": "read", "path": "/disk/a"},
                 {"op": "readAll", "file": "g"},
                 {"op": "close", "file": "f"},
                 {"op": "close", "file": "g"}],
                lambda r: r["result"]["answers"] == [None, None, None, None, None, None, True,
                                                     False, True, True, "a", "a", None, None]),
]
