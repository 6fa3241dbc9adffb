"""Definitions of the journal.* cases of issue 30 (suite power, the journal layer): what the
conformance suite did not reach of ``loom_ref/journal/`` (``python -m tools.coverage``) and
what a fresh mutant sample of the layer found, each pinned by a case; and the store log's
torn bytes kept for the next writer (a read-only process truncates nothing)."""

from __future__ import annotations

from typing import Any

from .defs_journal_blind import SOD, refused
from .defs_journal_disk import EVENTS, STARTED, answers, appends, calls, on_disk
from .gen_cases import vector

_TORN_E1 = {"do": "tornAppend", "executionId": "e1", "kind": "STEP_STARTED",
            "payload": EVENTS[1][1], "bytes": 24}
_READ = {"do": "read", "executionId": "e1"}


def _deep_text(levels: int) -> dict[str, Any]:
    """An EXECUTION_STARTED append whose payloadText nests ``levels`` arrays and objects."""
    inner = "[" * (levels - 1) + "]" * (levels - 1)
    text = '{"executionId":"e1","workflow":"w","input":' + inner + "}"
    return {"do": "append", "executionId": "e1", "kind": "EXECUTION_STARTED",
            "payloadText": text}


def _payload_text(name: str, levels: int, description: str, claim: Any) -> dict[str, Any]:
    return vector(f"journal.disk/{name}", SOD, description, function="journal.store-on-disk",
                  input={"store": "files", "fsync": "never",
                         "steps": [{"do": "create", "executionId": "e1"}, _deep_text(levels)]},
                  claim=claim)

DEFINITIONS: list[dict[str, Any]] = [
    on_disk("log-torn-tail-kept-for-the-writer", "journal.log-torn-tail",
            "Torn bytes that name an execution stay in the store log while a store only "
            "reads: a second store, opened after one that read, still reports them, and the "
            "store truncates them when a writer opens the execution they name.",
            "log", "never",
            [{"do": "create", "executionId": "e1"}, *appends(events=EVENTS[:1]), _TORN_E1,
             {"do": "reopen"}, _READ, {"do": "reopen"}, _READ,
             {"do": "open", "executionId": "e1"}, _READ],
            lambda r: answers(r)[3:] == [None, {"events": ["EXECUTION_STARTED"], "torn": True},
                                         None, {"events": ["EXECUTION_STARTED"], "torn": True},
                                         {"events": ["EXECUTION_STARTED"], "torn": True},
                                         {"events": ["EXECUTION_STARTED"], "torn": False}]
            and calls(r)[-7:] == ["open", "lock", "close", "open", "lock", "truncate", "close"]),
    on_disk("log-torn-tail-gone-before-an-append", "journal.log-torn-tail",
            "Torn bytes that name an execution go before the store's first append, whichever "
            "execution it is for: the store truncates them, then writes; a later store finds "
            "no torn tail.",
            "log", "never",
            [{"do": "create", "executionId": "e1"}, *appends(events=EVENTS[:1]), _TORN_E1,
             {"do": "reopen"}, {"do": "create", "executionId": "e2"},
             *appends("e2", [("EXECUTION_STARTED", {**STARTED, "executionId": "e2"})]),
             {"do": "reopen"}, _READ],
            lambda r: calls(r, "truncate", "append")[-2:] == ["truncate", "append"]
            and calls(r, "truncate") == ["truncate"]
            and answers(r)[-1] == {"events": ["EXECUTION_STARTED"], "torn": False}),
    _payload_text("files-payload-text-at-512-levels", 512,
                  "A payloadText may nest 512 arrays and objects: it is read, and the append "
                  "refuses the event past the journal's nesting limit (journal.bad-payload).",
                  lambda r: answers(r) == [None, {"error": "journal.bad-payload"}]
                  and calls(r, "append") == ["append"]),
    _payload_text("files-payload-text-past-512-levels", 513,
                  "A payloadText that nests 513 arrays and objects is argument.invalid, the "
                  "whole call refused before any step runs.",
                  refused("argument.invalid")),
    _payload_text("files-payload-text-5000-levels", 5000,
                  "A payloadText of any depth is counted, never decoded past the bound: 5000 "
                  "levels are argument.invalid, the whole call refused.",
                  refused("argument.invalid")),
]
