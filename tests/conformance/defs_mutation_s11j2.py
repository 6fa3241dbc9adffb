"""Definitions of the journal.* case that closes a survivor of the second half of the
200-mutant journal sweep (issue 30, "journal sweep s10 (second half)", mutation s11j2): a
``tornAppend`` of 0 bytes is refused when the whole input is checked, before the store opens
and before a later step's problem (``journal.store-on-disk-vector``: "the whole input is
checked before the store is opened or any step runs ... the first problem, in step order,
refuses the whole call"). Without the up-front check, bytes 0 is refused only when its step
runs (the same code), so a later step's ``argument.execution-id`` would win."""

from __future__ import annotations

from typing import Any

from .defs_journal_blind import refused
from .defs_journal_disk import on_disk

STARTED = {"executionId": "e1", "workflow": "w", "input": None}

DEFINITIONS: list[dict[str, Any]] = [
    # -- mutation s11j2 ----------------------------------------------------------------------
    on_disk("torn-append-zero-bytes-before-later-steps", "journal.store-on-disk-vector",
            "The whole input is checked before any step runs, in step order: a tornAppend of "
            "0 bytes is argument.invalid even when a later step names an id the rule refuses "
            "(CON, argument.execution-id): the first problem in step order refuses the whole "
            "call.",
            "files", "never",
            [{"do": "create", "executionId": "e1"},
             {"do": "tornAppend", "executionId": "e1", "kind": "EXECUTION_STARTED",
              "payload": STARTED, "bytes": 0},
             {"do": "create", "executionId": "CON"}],
            refused("argument.invalid")),
]
