"""``fold(events)``: the state of an execution, computed from its journal alone.

Spec: ``spec/journal.md``.

- ``journal.fold``: the state of an execution MUST be a function of its events only; folding
  any prefix gives the state at that point (``loom-ref journal show --at SEQ``).
- ``journal.transitions``: which event may follow in which status is the table
  :data:`TRANSITIONS`, and nothing else. An event that the table does not allow in the current
  status is a lookup miss, raised as :class:`IllegalTransitionError`: the journal was not
  written by a conforming kernel.

Per-step bookkeeping (``frames``) is kept beside the status: a step is ``started`` until its
STEP_COMPLETED / STEP_FAILED, or ``in-doubt`` when recovery found it without an outcome.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from loom_ref.enums import LoomEnum, TableEnum, plain_members
from loom_ref.errors import JournalError
from loom_ref.journal.events import Event, EventKind, check_events

__all__ = ["TRANSITIONS", "ExecutionState", "Frame", "FrameStatus", "IllegalTransitionError",
           "Status", "fold", "never_started", "next_status", "not_waiting"]


class IllegalTransitionError(JournalError):
    """An event arrived in a status where :data:`TRANSITIONS` does not allow it.
    (spec: journal.transitions)
    """

    code = "journal.illegal-transition"


class Status(TableEnum):
    """The status of an execution (spec: journal.fold)."""

    NOT_STARTED = "not-started"
    RUNNING = "running"
    SUSPENDED = "suspended"
    IN_DOUBT = "in-doubt"
    COMPLETED = "completed"
    FAILED = "failed"


class FrameStatus(LoomEnum):
    """The status of one step (spec: journal.fold)."""

    STARTED = "started"
    COMPLETED = "completed"
    FAILED = "failed"
    IN_DOUBT = "in-doubt"


K = plain_members(EventKind)  # EventKind.X, read fast per event (loom_ref.enums)
S = Status

_STEP_ENDS = frozenset({K.STEP_COMPLETED, K.STEP_FAILED, K.STEP_IN_DOUBT})

#: ``journal.transitions``: status -> event kind -> next status. A miss is illegal.
TRANSITIONS: Mapping[Status, Mapping[EventKind, Status]] = {
    S.NOT_STARTED: {K.EXECUTION_STARTED: S.RUNNING},
    S.RUNNING: {
        K.STEP_STARTED: S.RUNNING,
        K.STEP_COMPLETED: S.RUNNING,
        K.STEP_FAILED: S.RUNNING,
        K.DECISION_RECORDED: S.RUNNING,
        K.STREAM_APPENDED: S.RUNNING,
        K.STEP_IN_DOUBT: S.IN_DOUBT,
        K.EXECUTION_SUSPENDED: S.SUSPENDED,
        K.EXECUTION_COMPLETED: S.COMPLETED,
        K.EXECUTION_FAILED: S.FAILED,
    },
    S.SUSPENDED: {
        K.RESUME_RECEIVED: S.SUSPENDED,
        K.EXECUTION_RESUMED: S.RUNNING,
    },
    S.IN_DOUBT: {
        K.STEP_COMPLETED: S.RUNNING,
        K.STEP_FAILED: S.RUNNING,
        K.EXECUTION_FAILED: S.FAILED,
    },
    S.COMPLETED: {},
    S.FAILED: {},
}


@attrs.frozen(kw_only=True)
class Frame:
    """One step as the journal tells it (spec: journal.fold)."""

    step_id: str
    tool_id: str
    status: FrameStatus
    output: Any = None
    error: Any = None


@attrs.frozen(kw_only=True)
class ExecutionState:
    """What :func:`fold` computes.

    ``waiting_gate`` is the gate a suspended execution waits on; ``pending_resume`` is set
    once that gate's resume payload is journaled but the execution has not yet resumed.
    ``in_doubt_step`` names the step an in-doubt execution waits on.
    (spec: journal.fold)
    """

    status: Status
    seq: int
    execution_id: str | None = None
    workflow: str | None = None
    input: Any = None
    frames: Mapping[str, Frame] = attrs.field(factory=dict)
    decisions: Mapping[str, Any] = attrs.field(factory=dict)
    waiting_gate: str | None = None
    pending_resume: bool = False
    in_doubt_step: str | None = None
    output: Any = None
    error: Any = None


def next_status(status: Status, event: Event) -> Status:
    """The status after ``event``, or :class:`IllegalTransitionError` when :data:`TRANSITIONS`
    does not allow it (``journal.transitions``). Whoever walks a journal consults this one
    table: :func:`fold` and the kernel's history index alike."""
    try:
        return TRANSITIONS[status][event.kind]
    except KeyError:
        raise IllegalTransitionError(
            f"seq {event.seq}: {event.kind.value} is not allowed while {status.value}",
            seq=event.seq, kind=event.kind.value, status=status.value,
        ) from None


def never_started(event: Event) -> IllegalTransitionError:
    """The error for a step outcome (or STEP_IN_DOUBT) whose step never started."""
    return IllegalTransitionError(
        f"seq {event.seq}: {event.kind.value} for step {event.payload['stepId']!r} that never "
        "started", seq=event.seq, kind=event.kind.value)


def not_waiting(event: Event) -> IllegalTransitionError:
    """The error for a RESUME_RECEIVED or EXECUTION_RESUMED of a gate that is not waiting
    (or a second RESUME_RECEIVED of the gate)."""
    return IllegalTransitionError(
        f"seq {event.seq}: resume of gate {event.payload['gateId']!r} that is not waiting",
        seq=event.seq, kind=event.kind.value)


def fold(events: Iterable[Event]) -> ExecutionState:
    """Fold events into an :class:`ExecutionState` (``journal.fold``)."""
    events = check_events(events)
    status = Status.NOT_STARTED
    seq = 0
    fields: dict[str, Any] = {}
    tools: dict[str, str] = {}  # step id -> tool id, from the step's STEP_STARTED
    latest: dict[str, Event] = {}  # step id -> the step's latest event, which sets its frame
    decisions: dict[str, Any] = {}
    waiting_gate: str | None = None
    pending = False
    in_doubt: str | None = None
    for event in events:
        nxt = next_status(status, event)  # spec: journal.transitions
        p = event.payload
        kind = event.kind
        if kind is K.EXECUTION_STARTED:
            fields.update(execution_id=p["executionId"], workflow=p["workflow"], input=p["input"])
        elif kind is K.STEP_STARTED:
            tools[p["stepId"]] = p["toolId"]
            latest[p["stepId"]] = event
        elif kind in _STEP_ENDS:
            step_id = p["stepId"]
            if step_id not in tools:
                raise never_started(event)
            latest[step_id] = event
            in_doubt = step_id if kind is K.STEP_IN_DOUBT else None
        elif kind is K.DECISION_RECORDED:
            decisions[p["decisionId"]] = p["choice"]
        elif kind is K.EXECUTION_SUSPENDED:
            waiting_gate, pending = p["gateId"], False
        elif kind is K.RESUME_RECEIVED:
            if p["gateId"] != waiting_gate or pending:
                raise not_waiting(event)
            pending = True
        elif kind is K.EXECUTION_RESUMED:
            if p["gateId"] != waiting_gate:  # spec: journal.transitions -- a resume of a gate
                raise not_waiting(event)  # that is not waiting, whichever resume event
            waiting_gate, pending = None, False
        elif kind is K.EXECUTION_COMPLETED:
            fields["output"] = p["output"]
        elif kind is K.EXECUTION_FAILED:
            fields["error"] = p["error"]
        status = nxt
        seq = event.seq
    # Each frame is built once, from its step's latest event, not once per event: a frozen
    # record costs about 1 us to build, and this saves a fifth of a fold (bench_kernel.py).
    frames = {step_id: _frame(step_id, tools[step_id], ev) for step_id, ev in latest.items()}
    return ExecutionState(
        status=status, seq=seq, frames=frames, decisions=decisions, waiting_gate=waiting_gate,
        pending_resume=pending, in_doubt_step=in_doubt, **fields,
    )


def _frame(step_id: str, tool_id: str, latest: Event) -> Frame:
    """The :class:`Frame` of a step whose latest event is ``latest``."""
    if latest.kind is K.STEP_COMPLETED:
        return Frame(step_id=step_id, tool_id=tool_id, status=FrameStatus.COMPLETED,
                     output=latest.payload["output"])
    if latest.kind is K.STEP_FAILED:
        return Frame(step_id=step_id, tool_id=tool_id, status=FrameStatus.FAILED,
                     error=latest.payload["error"])
    if latest.kind is K.STEP_IN_DOUBT:
        return Frame(step_id=step_id, tool_id=tool_id, status=FrameStatus.IN_DOUBT)
    return Frame(step_id=step_id, tool_id=tool_id, status=FrameStatus.STARTED)
