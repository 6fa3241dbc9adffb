"""Definitions of the kernel.* cases that close the kernel survivors of a fresh mutation
sample (issue 30, seed 456059): a stream append the writer refuses, caught and returned by
the live drive that met it (``kernel.unwritable-event``), and the recover of an execution whose
resume is pending and whose journaled workflow nobody registered (``kernel.journaled-workflow``:
looked up before ``EXECUTION_RESUMED`` is appended); and the journal.* case that closes a journal
survivor: a ``tornAppend`` of exactly 1 byte, the accept side of ``bytes >= 1``
(``journal.store-on-disk-vector``)."""

from __future__ import annotations

from typing import Any

from .defs_journal_disk import on_disk
from .defs_kernel_blind2 import _build_deep
from .defs_kernel_reach import _journal
from .defs_kernel_steps import done, ret, var
from .gen_cases import scenario

BAD_PAYLOAD = {"code": "journal.bad-payload"}
GONE = {"executionId": "e1", "workflow": "gone", "input": None}
STARTED = {"executionId": "e1", "workflow": "w", "input": None}

DEFINITIONS: list[dict[str, Any]] = [
    scenario("kernel.steps/stream-refused-live-caught", "kernel.unwritable-event",
             "A stream append whose line would nest deeper than the nesting limit is refused "
             "by the writer on the live drive itself: journal.bad-payload is raised into the "
             "body there, which catches it and returns it; nothing is journaled for the "
             "append.",
             body=[*_build_deep("deep", 130),
                   {"op": "try", "body": [{"op": "stream", "data": var("deep")}],
                    "catch": {"as": "e", "body": []}},
                   ret(var("e"))],
             actions=[{"do": "start"}],
             claims=[{"result": done(BAD_PAYLOAD),
                      "events": ["EXECUTION_STARTED", "EXECUTION_COMPLETED"]}]),
    scenario("kernel.steps/stream-refused-live-uncaught", "kernel.unwritable-event",
             "A stream append the writer refuses (nested past the limit), not caught by the "
             "body, fails the execution with journal.bad-payload on the live drive; nothing "
             "is journaled for the append.",
             body=[*_build_deep("deep", 130), {"op": "stream", "data": var("deep")},
                   ret("unreached")],
             actions=[{"do": "start"}],
             claims=[{"result": {"status": "failed", "error": BAD_PAYLOAD},
                      "events": ["EXECUTION_STARTED", "EXECUTION_FAILED"]}]),
    scenario("kernel.recover/pending-resume-workflow-unknown", "kernel.journaled-workflow",
             "The recover of a suspended execution whose resume is pending (RESUME_RECEIVED "
             "journaled, EXECUTION_RESUMED not) drives it, so it looks the journaled workflow "
             "up first: a name nobody registered is kernel.unknown-workflow and nothing is "
             "written (no EXECUTION_RESUMED).",
             body=[ret(1)],
             actions=[*_journal(("EXECUTION_STARTED", GONE),
                                ("EXECUTION_SUSPENDED",
                                 {"gateId": "go", "on": None, "correlationKey": None}),
                                ("RESUME_RECEIVED", {"gateId": "go", "payload": None})),
                      {"do": "recover"}],
             claims=[{"result": done(1)}, {"done": True}, {"done": True},
                     {"raised": "kernel.unknown-workflow", "events": []}]),
    on_disk("files-torn-append-one-byte", "journal.store-on-disk-vector",
            "A tornAppend keeps at least 1 byte: bytes 1, the smallest torn write, is "
            "accepted (bytes 0 is argument.invalid, journal.disk/torn-append-zero-bytes).",
            "files", "never",
            [{"do": "create", "executionId": "e1"},
             {"do": "tornAppend", "executionId": "e1", "kind": "EXECUTION_STARTED",
              "payload": STARTED, "bytes": 1}],
            lambda r: r["result"]["answers"] == [None, None]),
]
