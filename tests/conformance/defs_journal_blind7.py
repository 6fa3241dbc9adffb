"""Definitions of the journal.* cases that settle what the journal chapter's sixth fresh
blind reading found (issue 29, ``spec/blind/journal.md``, *Sixth fresh blind reading*): a
case-only twin refused after a ``reopen`` (the file store) and after a torn write (the store
log), ``"externalize": null`` in ``journal.content``, and the ``journal.store-on-disk`` input
rules that ``journal.sqlite-trace`` keeps (a case-only twin, a member it does not name). Each
pins a choice the text now states."""

from __future__ import annotations

from typing import Any

from .defs_journal_disk import STARTED, appends, on_disk
from .gen_cases import vector

CT = "journal.content"
ST = "journal.sqlite-trace"


def _refused_whole(code: str) -> Any:
    return lambda r: r == {"error": {"code": code}}


_TWIN_STARTED = [("EXECUTION_STARTED", {**STARTED, "executionId": "Order-7"})]

DEFINITIONS: list[dict[str, Any]] = [
    # -- journal.execution-ids: a store opened anew lists the directory again --------------
    on_disk("files-case-twin-after-reopen", "journal.execution-ids",
            "A store opened anew (a reopen) lists the directory at its own first create, so it "
            "refuses a case-only twin of a journal an earlier store created: "
            "argument.execution-id, the whole call.",
            "files", "never", [{"do": "create", "executionId": "Order-7"},
                               *appends("Order-7", _TWIN_STARTED),
                               {"do": "reopen"},
                               {"do": "create", "executionId": "order-7"}],
            _refused_whole("argument.execution-id")),
    # -- journal.store-on-disk-vector: a create checks its id before the store's state -----
    on_disk("log-case-twin-after-torn", "journal.store-on-disk-vector",
            "After a torn write closed the store log, a create of a new id answers "
            "journal.closed, but a create of a case-only twin of a held id is refused first: "
            "argument.execution-id, the whole call, as before the torn write.",
            "log", "never", [{"do": "create", "executionId": "Order-7"},
                             *appends("Order-7", _TWIN_STARTED),
                             {"do": "create", "executionId": "e2"},
                             {"do": "tornAppend", "executionId": "e2",
                              "kind": "EXECUTION_STARTED",
                              "payload": {**STARTED, "executionId": "e2"}, "bytes": 5},
                             {"do": "create", "executionId": "order-7"}],
            _refused_whole("argument.execution-id")),
    # -- journal.content-vector: externalize null is not absent ------------------------------
    vector("journal.content/externalize-null", "journal.content-vector",
           "An externalize of null is not an absent one (the default): it is no map of kinds "
           "to paths, argument.invalid.",
           function=CT, input={"externalize": None, "appends": [
               {"kind": "EXECUTION_STARTED", "payload": STARTED}]},
           claim=_refused_whole("argument.invalid")),
    # -- journal.sqlite-trace: the input rules of journal.store-on-disk ----------------------
    vector("journal.sqlite/case-twin-refused", "journal.sqlite-trace",
           "The SQLite store refuses a case-only twin at create as every store does: "
           "argument.execution-id, the whole call.",
           function=ST, input={"fsync": "never", "steps": [
               {"do": "create", "executionId": "Order-7"},
               {"do": "close", "executionId": "Order-7"},
               {"do": "create", "executionId": "order-7"}]},
           claim=_refused_whole("argument.execution-id")),
    vector("journal.sqlite/store-member-ignored", "journal.sqlite-trace",
           "A member the input does not name is ignored, as in journal.store-on-disk: a "
           "\"store\" of \"files\" changes nothing (the SQLite store opens, the create makes "
           "no call, the store closes).",
           function=ST, input={"store": "files", "fsync": "never", "steps": [
               {"do": "create", "executionId": "e1"}]},
           claim={"result": {"answers": [None], "calls": [
               {"call": "open"}, {"call": "synchronous", "level": "NORMAL"},
               {"call": "lockingMode", "mode": "EXCLUSIVE"}, {"call": "journalMode", "mode": "WAL"},
               {"call": "begin"}, {"call": "insert", "table": "loom_store"}, {"call": "commit"},
               {"call": "close"}]}}),
]
