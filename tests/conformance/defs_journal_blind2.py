"""Definitions of the journal.* cases that settle what a second blind implementation of the
journal chapter found open (issue 29, ``spec/blind/journal.md``, *Second blind reading*):
members nobody names, a refused operation's handle, an append with no payload, a store that
cannot be opened, the root directory, and a torn file journal's lock. Each pins a choice the
text now states."""

from __future__ import annotations

from typing import Any

from .defs_journal_blind import CREATE, OTHER, SOD, disk_vector, refused, torn
from .defs_journal_disk import STARTED, answers, calls, create, op
from .gen_cases import vector

_LINK_LOG = {"/disk/store.log": "symlink"}


def _planted_log(name: str, description: str, steps: list[Any], claim: Any) -> dict[str, Any]:
    return vector(f"journal.disk/{name}", SOD, description, function="journal.store-on-disk",
                  input={"store": "log", "fsync": "never", "planted": _LINK_LOG,
                         "steps": steps}, claim=claim)


DEFINITIONS: list[dict[str, Any]] = [
    disk_vector("unknown-input-member-ignored",
                "A member of the input that the function does not name is ignored, as a "
                "member of an operation is.",
                [create(), op("append", text="a\n", note=1)],
                lambda r: answers(r) == [None, None], bogus=True),
    vector("journal.disk/files-unknown-input-member-ignored", SOD,
           "A member of the store-on-disk input that the function does not name is ignored.",
           function="journal.store-on-disk",
           input={"store": "files", "fsync": "never", "steps": [CREATE], "bogus": True},
           claim=lambda r: answers(r) == [None]),
    disk_vector("refused-create-binds-nothing",
                "A refused create (the file exists) binds no handle: a later operation on that "
                "name is argument.invalid, the whole call.",
                [create(), create(name="g"), op("append", file="g", text="a\n")],
                refused("argument.invalid")),
    disk_vector("refused-open-keeps-old-binding",
                "A refused open (not found) leaves the name bound as it was: the handle it "
                "named before still works.",
                [create(), {"op": "open", "path": "/disk/b", "as": "f"},
                 op("append", text="a\n"), op("readAll")],
                lambda r: answers(r) == [None, {"error": "not-found"}, None, "a\n"]),
    disk_vector("create-op-create-member-ignored",
                "create is open's member: a create operation does not name it, so there it is "
                "ignored like any member an operation does not name (null included).",
                [{"op": "create", "path": "/disk/a", "create": None, "as": "f"}],
                lambda r: answers(r) == [None]),
    disk_vector("root-directory",
                "The directory of /a is /: with / listed, /a can be created, and / is a "
                "directory.",
                [create("/a"), {"op": "isDir", "path": "/"}, {"op": "fsyncDir", "path": "/"}],
                lambda r: answers(r) == [None, True, None], directories=["/"]),
    vector("journal.disk/files-append-without-payload", SOD,
           "An append with neither payload nor payloadText is an event without its payload: "
           "journal.bad-payload, nothing written, as a reader refuses such a line.",
           function="journal.store-on-disk",
           input={"store": "files", "fsync": "never",
                  "steps": [CREATE, {"do": "append", "executionId": "e1",
                                     "kind": "EXECUTION_STARTED"}]},
           claim=lambda r: answers(r) == [None, {"error": "journal.bad-payload"}]
           and calls(r, "append") == ["append"]),
    _planted_log("log-unopenable-append-without-writer",
                 "A step first opens a store that is not open: an append with no writer, "
                 "where the log cannot be opened, answers journal.not-a-file (not "
                 "argument.invalid).",
                 [{"do": "append", "executionId": "e1", "kind": "EXECUTION_STARTED",
                   "payload": STARTED}],
                 lambda r: answers(r) == [{"error": "journal.not-a-file"}]
                 and calls(r) == ["open"]),
    _planted_log("log-unopenable-close",
                 "A close, where the log cannot be opened, tries to open it like every step "
                 "and answers journal.not-a-file.",
                 [{"do": "close", "executionId": "e1"}],
                 lambda r: answers(r) == [{"error": "journal.not-a-file"}]
                 and calls(r) == ["open"]),
    vector("journal.disk/files-torn-journal-keeps-lock", SOD,
           "After a torn write the file store's journal takes no appends but keeps its file "
           "and lock until a close step: an open in the same store answers journal.locked; "
           "after the close, an open truncates the torn tail and reports it.",
           function="journal.store-on-disk",
           input={"store": "files", "fsync": "never",
                  "steps": [CREATE, torn(5), {"do": "open", "executionId": "e1"},
                            {"do": "close", "executionId": "e1"},
                            {"do": "open", "executionId": "e1"}]},
           claim=lambda r: answers(r)[:4] == [None, None, {"error": "journal.locked"}, None]
           and answers(r)[4]["torn"] is True),
    vector("journal.disk/files-torn-journal-closed-at-store-close", SOD,
           "A torn journal's close is listed when it is closed: at a close step, a reopen or "
           "the end of the steps, not at the torn write.",
           function="journal.store-on-disk",
           input={"store": "files", "fsync": "never",
                  "steps": [CREATE, torn(5), {"do": "create", "executionId": "e2"},
                            {"do": "append", "executionId": "e2",
                             "kind": "EXECUTION_STARTED", "payload": OTHER}]},
           claim=lambda r: calls(r)[-2:] == ["close", "close"]
           and [c["path"] for c in r["result"]["calls"][-2:]] == ["/disk/e1.jsonl",
                                                                   "/disk/e2.jsonl"]),
]
