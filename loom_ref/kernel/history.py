"""A journal read as the sequence of commands a body issued: what replay compares against.

Spec: ``spec/kernel.md`` (``kernel.replay-compare``). Each recorded command is one of: a step
(STEP_STARTED, with its outcome if any), a decision (DECISION_RECORDED), a stream append
(STREAM_APPENDED) or a gate (EXECUTION_SUSPENDED, with its RESUME_RECEIVED if any). Replay
walks this list in order; the body must issue the same commands in the same order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from loom_ref.enums import plain_members
from loom_ref.journal.events import Event, EventKind

__all__ = ["Recorded", "index_history"]

K = plain_members(EventKind)  # EventKind.X, read fast per event (loom_ref.enums)
_STEP_OUTCOMES = frozenset({K.STEP_COMPLETED, K.STEP_FAILED})


@attrs.define(kw_only=True)
class Recorded:
    """One command as the journal recorded it. ``outcome`` is the step's STEP_COMPLETED /
    STEP_FAILED or the gate's RESUME_RECEIVED; ``marked_in_doubt`` is set when a
    STEP_IN_DOUBT was journaled for the step."""

    kind: str  # "execute" | "decide" | "stream" | "suspend"
    id: str
    seq: int
    tool_id: str | None = None
    start: Event | None = None
    outcome: Event | None = None
    marked_in_doubt: bool = False

    def describe(self) -> dict[str, Any]:
        """The ``expected`` side of a non-determinism diff."""
        out: dict[str, Any] = {"seq": self.seq, "command": self.kind, "id": self.id}
        if self.tool_id is not None:
            out["toolId"] = self.tool_id
        return out


def index_history(events: Sequence[Event]) -> tuple[list[Recorded], Event | None]:
    """Split ``events`` into recorded commands and the terminal event (if any)."""
    records: list[Recorded] = []
    steps: dict[str, Recorded] = {}
    terminal: Event | None = None
    for ev in events:
        p = ev.payload
        kind = ev.kind
        if kind is K.STEP_STARTED:
            rec = Recorded(kind="execute", id=p["stepId"], seq=ev.seq, tool_id=p["toolId"],
                           start=ev)
            steps[rec.id] = rec
            records.append(rec)
        elif kind in _STEP_OUTCOMES:
            steps[p["stepId"]].outcome = ev
        elif kind is K.STEP_IN_DOUBT:
            steps[p["stepId"]].marked_in_doubt = True
        elif kind is K.DECISION_RECORDED:
            records.append(Recorded(kind="decide", id=p["decisionId"], seq=ev.seq, start=ev))
        elif kind is K.STREAM_APPENDED:
            records.append(Recorded(kind="stream", id=p["streamId"], seq=ev.seq, start=ev))
        elif kind is K.EXECUTION_SUSPENDED:
            records.append(Recorded(kind="suspend", id=p["gateId"], seq=ev.seq, start=ev))
        elif kind is K.RESUME_RECEIVED:
            records[-1].outcome = ev
        elif kind in (K.EXECUTION_COMPLETED, K.EXECUTION_FAILED):
            terminal = ev
    return records, terminal
