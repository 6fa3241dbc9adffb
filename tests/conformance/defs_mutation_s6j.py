"""Journal cases that close the survivors of issue 30's exploratory 120-mutant journal sample
left to branch s6j.

- ``journal.sqlite/append-after-reopen-without-writer`` and
  ``journal.disk/files-append-after-reopen-without-writer``: a ``reopen`` takes away every
  writer the old store held (``journal.store-on-disk-vector``: the execution has a writer
  "opened by a ``create`` or ``open`` step and not closed since by a ``close`` step, a
  ``reopen`` or the end (...) (else ``argument.invalid``: the step names no journal to write,
  which is not ``journal.closed``)"), so an append after it with no ``open`` refuses the
  whole call; a vector that kept the old store's closed writer would answer
  ``journal.closed``.
- ``journal.sqlite/append-after-reopen-and-open`` and
  ``journal.disk/files-append-after-reopen-and-open``: the accept side, the writer an
  ``open`` after the ``reopen`` takes appends (``null``) and a ``read`` shows its event.

``gen_cases.definitions()`` reads ``DEFINITIONS``.
"""

from __future__ import annotations

from typing import Any

from .defs_journal_blind import SOD, refused
from .defs_journal_disk import EVENTS, on_disk
from .gen_cases import vector

_SQLITE = "journal.sqlite-trace"
_FIRST = {"do": "append", "executionId": "e1", "kind": EVENTS[0][0], "payload": EVENTS[0][1]}
_SECOND = {"do": "append", "executionId": "e1", "kind": EVENTS[1][0], "payload": EVENTS[1][1]}
_WITHOUT_WRITER = [{"do": "create", "executionId": "e1"}, _FIRST, {"do": "reopen"}, _SECOND]
_WITH_WRITER = [{"do": "create", "executionId": "e1"}, _FIRST, {"do": "reopen"},
                {"do": "open", "executionId": "e1"}, _SECOND, {"do": "read", "executionId": "e1"}]
_KINDS = [EVENTS[0][0], EVENTS[1][0]]


def _answers_after_open(obs: Any) -> bool:
    answers = obs.get("result", {}).get("answers")
    return answers == [None, None, None, {"events": _KINDS[:1], "torn": False}, None,
                       {"events": _KINDS, "torn": False}]


DEFINITIONS: list[dict[str, Any]] = [
    vector("journal.sqlite/append-after-reopen-without-writer", "journal.sqlite-trace",
           "A reopen takes away every writer of the old store: an append after it, with no "
           "open, names no journal to write: argument.invalid, the whole call refused (not "
           "journal.closed).", function=_SQLITE,
           input={"fsync": "never", "steps": _WITHOUT_WRITER},
           claim=refused("argument.invalid")),
    vector("journal.sqlite/append-after-reopen-and-open", "journal.sqlite-trace",
           "After a reopen, the writer an open takes appends: the append answers null and a "
           "read shows both events.", function=_SQLITE,
           input={"fsync": "never", "steps": _WITH_WRITER},
           claim=_answers_after_open),
    on_disk("files-append-after-reopen-without-writer", SOD,
            "A reopen takes away every writer of the old store: an append after it, with no "
            "open, names no journal to write: argument.invalid, the whole call refused (not "
            "journal.closed).", "files", "never", _WITHOUT_WRITER,
            refused("argument.invalid")),
    on_disk("files-append-after-reopen-and-open", SOD,
            "After a reopen, the writer an open takes appends: the append answers null and a "
            "read shows both events.", "files", "never", _WITH_WRITER,
            _answers_after_open),
]
