"""The timeline of one execution: its journal laid out for a picture.

One record, :class:`Timeline`, feeds every rendering (``text``, ``json``, ``html``,
``mermaid``), so they cannot disagree. It is built from the journal alone
(:func:`build_timeline`), and, when the caller ran the processes itself (``loom-ref demo``),
from a record of them (:class:`Process`, :class:`Call`):

- the time axis is the sequence number: events carry no clock (``journal.no-clock``), and
  ``seq`` is the only order a journal knows;
- one **lane** per step, decision, gate and stream, in order of first appearance, beside
  the execution's own lane;
- each point carries the folded status after it, computed with the transition table itself
  (``journal.fold``: folding any prefix gives the state at that point);
- **markers** for what a teacher points at. From the journal: a torn tail
  (``journal.torn-tail``), a corrupt line (``journal.corrupt-line``: the timeline is drawn up
  to the last good line), an in-doubt step and its resolution (``kernel.in-doubt``,
  ``kernel.resolve``), a non-determinism failure with expected and actual
  (``kernel.replay-compare``). From a record of the processes: the crash, the point where a
  recovery took over, what each call (a recovery, a resume) served from the journal, and the
  steps that ran again;
- one numbering: an event is named by its ``seq``; a line of the journal file is said as a
  line, with the event it holds (``line 17 (event 16)``: line 1 is the header);
- the **tape** of the run's streams, when a delta recorder was listening
  (``deltas.recorder``): deltas are never journaled, so it comes from beside the journal.

The journal alone cannot show where a process died: the journal of a recovered run equals
the uncrashed one (``kernel.recover``), which is the point. Only the torn tail and an
in-doubt step are traces a crash leaves in it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from loom_ref.enums import LoomEnum
from loom_ref.journal.events import Event, EventKind
from loom_ref.journal.fold import ExecutionState, Status, fold, next_status
from loom_ref.journal.reader import TornTail

__all__ = ["DEFAULT_LABELS", "EXECUTION_LANE", "Call", "Corrupt", "Lane", "LaneKind", "Marker",
           "MarkerKind", "Point", "Process", "Timeline", "build_timeline", "line_words"]

K = EventKind


class LaneKind(LoomEnum):
    """What a lane of the timeline follows."""

    EXECUTION = "execution"
    STEP = "step"
    DECISION = "decision"
    GATE = "gate"
    STREAM = "stream"


class MarkerKind(LoomEnum):
    """What a marker points at."""

    TORN_TAIL = "torn-tail"
    IN_DOUBT = "in-doubt"
    RESOLVED = "resolved"
    NONDETERMINISM = "nondeterminism"
    CORRUPT = "corrupt"
    CRASH = "crash"
    RECOVERY = "recovery"
    SERVED = "served"
    RAN_AGAIN = "ran-again"


@attrs.frozen(kw_only=True)
class Lane:
    """One row of the picture: ``id`` is ``<kind>:<name>`` (``execution`` for the
    execution's own); ``detail`` is the tool of a step, the ``on`` of a gate, the workflow of
    the execution."""

    id: str
    kind: LaneKind
    name: str
    detail: str | None = None


@attrs.frozen(kw_only=True)
class Point:
    """One journal event on its lane: ``label`` is a word or two for the picture, ``status``
    the folded status after it, ``process`` the simulated process that wrote it (if known)."""

    seq: int
    kind: EventKind
    lane: str
    label: str
    payload: Mapping[str, Any]
    status: Status
    process: int | None = None


@attrs.frozen(kw_only=True)
class Marker:
    """Something to point at. It sits on an event (``at_seq``) or on the boundary just after
    one (``after_seq``, 0 for before the first); ``lane`` is None when it spans every lane.
    ``label`` is the words drawn, ``detail`` one sentence saying what happened, ``data``
    structured facts (the expected and actual of a divergence)."""

    kind: MarkerKind
    label: str
    detail: str
    lane: str | None = None
    at_seq: int | None = None
    after_seq: int | None = None
    data: Any = None


@attrs.frozen(kw_only=True)
class Call:
    """One call a process made to the runtime (``start``, ``recover``, ``resume``,
    ``resolve``): the events it appended (``first_seq`` to ``last_seq``; none when
    ``last_seq < first_seq``), the ids it served from the journal and the ids it ran, and
    how it ended (a status, or ``crashed``: then served and ran are unknown and empty)."""

    action: str
    first_seq: int
    last_seq: int
    served: tuple[str, ...] = ()
    ran: tuple[str, ...] = ()
    outcome: str


@attrs.frozen(kw_only=True)
class Process:
    """One simulated process: its calls in order, how often each effect really ran in it,
    the journal event it died after (None if it did not crash), and the torn tail its
    crash left (the next event's line, cut short in mid-write), if any."""

    number: int
    calls: tuple[Call, ...]
    effects: Mapping[str, int] = attrs.field(factory=dict)
    crashed_after: int | None = None
    torn: TornTail | None = None


@attrs.frozen(kw_only=True)
class Corrupt:
    """A corrupt line (``journal.corrupt-line``): its 1-based ``line``, the ``reason`` code,
    the reader's ``message``, and the first bytes of the line (``text``, decoded leniently)."""

    line: int
    reason: str
    message: str
    text: str = ""


def line_words(line: int, events: int) -> str:
    """A journal file's line said with the event it holds or would hold: ``line 17 (event
    16)`` (line 1 is the header); ``events`` is how many events precede it."""
    return f"line {line} (event {events + 1})" if line >= 2 else f"line {line} (the header)"


@attrs.frozen(kw_only=True)
class Timeline:
    """An execution's journal, laid out (see the module docstring)."""

    source: str
    execution_id: str | None
    workflow: str | None
    lanes: tuple[Lane, ...]
    points: tuple[Point, ...]
    markers: tuple[Marker, ...]
    state: ExecutionState
    torn: TornTail | None = None
    processes: tuple[Process, ...] = ()
    corrupt: Corrupt | None = None
    tape: tuple[Mapping[str, Any], ...] = ()

    @property
    def shown_id(self) -> str:
        """The execution id as the forms name it; a journal whose header could not be read
        names none, and says so rather than printing ``None``."""
        return ("unknown (no readable header)" if self.execution_id is None
                else self.execution_id)

    @property
    def title(self) -> str:
        """``execution <id> (<workflow>)``, as the pictures head themselves."""
        return (f"execution {self.shown_id}"
                + (f" ({self.workflow})" if self.workflow is not None else ""))

    def lane(self, lane_id: str) -> Lane:
        """The lane named ``lane_id``."""
        return next(lane for lane in self.lanes if lane.id == lane_id)


DEFAULT_LABELS: Mapping[EventKind, str] = {
    K.EXECUTION_STARTED: "started", K.STEP_STARTED: "start", K.STEP_COMPLETED: "done",
    K.STEP_FAILED: "failed", K.STEP_IN_DOUBT: "in doubt", K.DECISION_RECORDED: "decided",
    K.STREAM_APPENDED: "append", K.EXECUTION_SUSPENDED: "suspend",
    K.RESUME_RECEIVED: "resume in", K.EXECUTION_RESUMED: "resumed",
    K.EXECUTION_COMPLETED: "completed", K.EXECUTION_FAILED: "failed",
}
_ID_FIELD: Mapping[EventKind, tuple[LaneKind, str]] = {
    K.STEP_STARTED: (LaneKind.STEP, "stepId"), K.STEP_COMPLETED: (LaneKind.STEP, "stepId"),
    K.STEP_FAILED: (LaneKind.STEP, "stepId"), K.STEP_IN_DOUBT: (LaneKind.STEP, "stepId"),
    K.DECISION_RECORDED: (LaneKind.DECISION, "decisionId"),
    K.STREAM_APPENDED: (LaneKind.STREAM, "streamId"),
    K.EXECUTION_SUSPENDED: (LaneKind.GATE, "gateId"), K.RESUME_RECEIVED: (LaneKind.GATE, "gateId"),
    K.EXECUTION_RESUMED: (LaneKind.GATE, "gateId"),
}
EXECUTION_LANE = "execution"


def _is_divergence(event: Event) -> bool:
    error = event.payload.get("error")
    return (event.kind is K.EXECUTION_FAILED and isinstance(error, Mapping)
            and error.get("code") == "kernel.nondeterminism")


class _Builder:
    def __init__(self, events: Sequence[Event], processes: Sequence[Process]) -> None:
        self.events = events
        self.processes = processes
        self.lanes: dict[str, Lane] = {}
        self.by_name: dict[str, str] = {}  # step/decision/gate/stream id -> lane id
        self.markers: list[Marker] = []
        self.writer: dict[int, int] = {}  # seq -> the process that appended it
        for process in processes:
            for call in process.calls:
                for seq in range(call.first_seq, call.last_seq + 1):
                    self.writer[seq] = process.number

    def lane_of(self, event: Event, workflow: str | None) -> str:
        found = _ID_FIELD.get(event.kind)
        if found is None:
            if EXECUTION_LANE not in self.lanes:
                self.lanes[EXECUTION_LANE] = Lane(id=EXECUTION_LANE, kind=LaneKind.EXECUTION,
                                                  name="execution", detail=workflow)
            return EXECUTION_LANE
        kind, field = found
        name = str(event.payload[field])
        lane_id = f"{kind.value}:{name}"
        if lane_id not in self.lanes:
            detail = (event.payload.get("toolId") if kind is LaneKind.STEP
                      else event.payload.get("on") if kind is LaneKind.GATE else None)
            self.lanes[lane_id] = Lane(id=lane_id, kind=kind, name=name,
                                       detail=None if detail is None else str(detail))
            self.by_name.setdefault(name, lane_id)
        return lane_id

    def points(self, workflow: str | None) -> list[Point]:
        out = []
        status = Status.NOT_STARTED
        in_doubt: dict[str, int] = {}  # step id -> seq of its STEP_IN_DOUBT
        for event in self.events:
            status = next_status(status, event)  # spec: journal.fold (the state at each point)
            lane = self.lane_of(event, workflow)
            label = DEFAULT_LABELS[event.kind]
            step = event.payload.get("stepId")
            if event.kind is K.STEP_IN_DOUBT:
                in_doubt[str(step)] = event.seq
                self.markers.append(Marker(
                    kind=MarkerKind.IN_DOUBT, label="in doubt", lane=lane, at_seq=event.seq,
                    detail=f"step {step} started but the journal holds no outcome, and its "
                           "effect is not idempotent: the execution waits for an operator "
                           "to complete, fail or retry it"))
            elif event.kind in (K.STEP_COMPLETED, K.STEP_FAILED) and step in in_doubt:
                del in_doubt[str(step)]
                label = "resolved"
                outcome = "completed" if event.kind is K.STEP_COMPLETED else "failed"
                self.markers.append(Marker(
                    kind=MarkerKind.RESOLVED, label="resolved", lane=lane, at_seq=event.seq,
                    detail=f"the in-doubt step {step} was resolved: {outcome}"))
            elif _is_divergence(event):
                label = "diverged"
                error = event.payload["error"]
                expected, actual = error.get("expected"), error.get("actual")
                where = None
                if isinstance(expected, Mapping):  # the seq says where, it is not compared
                    expected = dict(expected)
                    where = expected.pop("seq", None)
                named = expected.get("id") if isinstance(expected, Mapping) else None
                self.markers.append(Marker(
                    kind=MarkerKind.NONDETERMINISM, label="diverged", at_seq=event.seq,
                    lane=self.by_name.get(str(named), EXECUTION_LANE),
                    detail=("the body issued another command than the one the journal "
                            "holds" + (f" at event {where}" if where is not None else "")
                            + "; replay never continues past a divergence, so the execution "
                            "failed (kernel.replay-compare)"),
                    data={"expected": expected, "actual": actual, "journalSeq": where}))
            out.append(Point(seq=event.seq, kind=event.kind, lane=lane, label=label,
                             payload=event.payload, status=status,
                             process=self.writer.get(event.seq)))
        return out

    def process_markers(self) -> None:
        started_by: dict[str, int] = {}  # step id -> seq of its STEP_STARTED
        outcome_at: dict[str, list[int]] = {}  # step id -> seqs of its outcomes
        for event in self.events:
            step = event.payload.get("stepId")
            if event.kind is K.STEP_STARTED:
                started_by[str(step)] = event.seq
            elif event.kind in (K.STEP_COMPLETED, K.STEP_FAILED):
                outcome_at.setdefault(str(step), []).append(event.seq)
        crash_point: int | None = None
        for process in self.processes:
            if crash_point is not None and process.calls:
                self.recovery(process, crash_point, started_by, outcome_at)
            self.served(process, crash_point)
            if process.crashed_after is not None:
                crash_point = process.crashed_after
                self.markers.append(Marker(
                    kind=MarkerKind.CRASH, label="crash", after_seq=crash_point,
                    detail=f"process {process.number} dies after journal event "
                           f"{crash_point}: everything it held in memory is lost"))
            if process.torn is not None and crash_point is not None:
                torn = process.torn
                self.markers.append(Marker(
                    kind=MarkerKind.TORN_TAIL, label="torn tail", after_seq=crash_point,
                    detail=f"the crash cut event {crash_point + 1}'s line short: "
                           f"{torn.size} bytes of {line_words(torn.line, crash_point)} reached "
                           "the file; they are treated as not written, and the next writer "
                           "truncates them",
                    data={"line": torn.line, "size": torn.size, "event": crash_point + 1}))

    def served(self, process: Process, crash_point: int | None) -> None:
        """A served tag on each lane a call of ``process`` read back from the journal: a
        recovery after a crash, and every resume (which drives the body again from its
        start, kernel.resume)."""
        n = process.number
        for i, call in enumerate(process.calls):
            recovering = i == 0 and crash_point is not None
            at = crash_point if recovering else call.first_seq - 1
            who = (f"the recovery of process {n}" if recovering
                   else f"the {call.action} call of process {n}")
            for name in call.served:
                lane = self.by_name.get(name)
                if lane is not None and at is not None:
                    self.markers.append(Marker(
                        kind=MarkerKind.SERVED, label="served", lane=lane, after_seq=at,
                        detail=f"{name}: served from the journal by {who}, not run again "
                               "(the body runs again from its start; what is journaled is "
                               "handed back)"))

    def recovery(self, process: Process, crash_point: int, started_by: Mapping[str, int],
                 outcome_at: Mapping[str, list[int]]) -> None:
        n = process.number
        self.markers.append(Marker(
            kind=MarkerKind.RECOVERY, label=f"process {n} recovers", after_seq=crash_point,
            detail=f"process {n}: a fresh runtime with fresh effects opens the same journal "
                   "and drives the body again from its start"))
        for call in process.calls:
            for name in call.ran:
                started = started_by.get(name)
                if started is None or started > crash_point:
                    continue  # not begun before the crash: simply run for the first time
                later = [s for s in outcome_at.get(name, ()) if s >= call.first_seq]
                lane = self.by_name.get(name)
                if lane is not None and later:
                    self.markers.append(Marker(
                        kind=MarkerKind.RAN_AGAIN, label="ran again", lane=lane,
                        at_seq=later[0],
                        detail=f"{name} was started (seq {started}) before the crash and "
                               "had no outcome in the journal, so it was invoked again, "
                               "with the same idempotency key"))


def build_timeline(events: Sequence[Event], *, source: str, execution_id: str | None = None,
                   torn: TornTail | None = None, processes: Iterable[Process] = (),
                   corrupt: Corrupt | None = None,
                   tape: Iterable[Mapping[str, Any]] = ()) -> Timeline:
    """The timeline of ``events`` (a journal a reader checked); ``execution_id`` the journal
    header's (for a journal without events), ``torn`` the journal's torn tail, ``processes`` a
    record of the processes that wrote it, when known; ``corrupt`` the corrupt line that ends
    the readable part (``events`` are the events before it); ``tape`` a delta recorder's tape
    (its JSON records). Raises ``journal.illegal-transition`` for events the transition table
    does not allow."""
    state = fold(events)  # spec: journal.transitions -- a journal the table refuses is refused
    recorded = tuple(processes)
    builder = _Builder(events, recorded)
    points = builder.points(state.workflow)
    builder.process_markers()
    if torn is not None:  # spec: journal.torn-tail -- reported, never skipped silently
        builder.markers.append(Marker(
            kind=MarkerKind.TORN_TAIL, label="torn tail", after_seq=len(events),
            detail=f"{line_words(torn.line, len(events))}: {torn.size} bytes after the last "
                   "newline, cut by a crash in mid-write; treated as not written",
            data={"line": torn.line, "size": torn.size, "event": len(events) + 1}))
    if corrupt is not None:  # spec: journal.corrupt-line -- drawn up to the last good line
        builder.markers.append(Marker(
            kind=MarkerKind.CORRUPT, label="corrupt", after_seq=len(events),
            detail=f"{line_words(corrupt.line, len(events))} is corrupt ({corrupt.reason}): "
                   f"{corrupt.message}. A bad line anywhere but the last is a hard error: "
                   "nothing after it is read, and no runtime will recover this journal",
            data={"line": corrupt.line, "reason": corrupt.reason,
                  "event": len(events) + 1 if corrupt.line >= 2 else None}))
    order = {kind: i for i, kind in enumerate(MarkerKind)}
    markers = sorted(builder.markers, key=lambda m: (
        m.at_seq if m.at_seq is not None else (m.after_seq or 0) + 0.5, order[m.kind]))
    return Timeline(source=source, execution_id=state.execution_id or execution_id,
                    workflow=state.workflow,
                    lanes=tuple(builder.lanes.values()), points=tuple(points),
                    markers=tuple(markers), state=state, torn=torn, processes=recorded,
                    corrupt=corrupt, tape=tuple(tape))
