"""A journal read as the sequence of commands a body issued: what replay compares against.

Spec: ``spec/kernel.md`` (``kernel.replay-compare``). Each recorded command is one of: a step
(STEP_STARTED, with its outcome if any), a decision (DECISION_RECORDED), a stream append
(STREAM_APPENDED) or a gate (EXECUTION_SUSPENDED, with its RESUME_RECEIVED if any). Replay
walks this list in order; the body must issue the same commands in the same order.

The index reads only a journal the transition table allows (``journal.transitions``): it
walks the events through :func:`~loom_ref.journal.fold.next_status`, as ``fold`` does, so a
drive over any events either indexes them or raises ``journal.illegal-transition`` (an outcome
of a step that never started, a resume of a gate that is not waiting, an event after the end).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from loom_ref.enums import plain_members
from loom_ref.journal.events import Event, EventKind
from loom_ref.journal.fold import Status, never_started, next_status, not_waiting

__all__ = ["Recorded", "index_history"]

K = plain_members(EventKind)  # EventKind.X, read fast per event (loom_ref.enums)
_STEP_ENDS = frozenset({K.STEP_COMPLETED, K.STEP_FAILED, K.STEP_IN_DOUBT})
_ENDS = frozenset({K.EXECUTION_COMPLETED, K.EXECUTION_FAILED})


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
    """Split ``events`` into recorded commands and the terminal event (if any); raise
    ``journal.illegal-transition`` where they break the transition table."""
    records: list[Recorded] = []
    steps: dict[str, Recorded] = {}
    terminal: Event | None = None
    status = Status.NOT_STARTED
    for ev in events:
        status = next_status(status, ev)  # spec: journal.transitions
        p = ev.payload
        kind = ev.kind
        if kind is K.STEP_STARTED:
            rec = Recorded(kind="execute", id=p["stepId"], seq=ev.seq, tool_id=p["toolId"],
                           start=ev)
            steps[rec.id] = rec
            records.append(rec)
        elif kind in _STEP_ENDS:
            step = steps.get(p["stepId"])
            if step is None:
                raise never_started(ev)
            if kind is K.STEP_IN_DOUBT:
                step.marked_in_doubt = True
            else:
                step.outcome = ev  # spec: kernel.latest-outcome (a later one replaces it)
        elif kind is K.DECISION_RECORDED:
            records.append(Recorded(kind="decide", id=p["decisionId"], seq=ev.seq, start=ev))
        elif kind is K.STREAM_APPENDED:
            records.append(Recorded(kind="stream", id=p["streamId"], seq=ev.seq, start=ev))
        elif kind is K.EXECUTION_SUSPENDED:
            records.append(Recorded(kind="suspend", id=p["gateId"], seq=ev.seq, start=ev))
        elif kind is K.RESUME_RECEIVED:
            gate = records[-1]  # in status suspended, the last command is its gate
            if gate.id != p["gateId"] or gate.outcome is not None:
                raise not_waiting(ev)
            gate.outcome = ev
        elif kind in _ENDS:
            terminal = ev
    return records, terminal
