"""The timeline as text: one line per event, then the folded state.

``full=False`` (the default of ``loom-ref journal show``) cuts long payloads short with
``…``, so each event stays on one line; ``full=True`` (``--full``) prints every payload
whole, as compact JSON, so nothing is hidden. A non-determinism failure is followed by its
expected/actual diff (:mod:`loom_ref.cli.jsondiff`).
"""

from __future__ import annotations

import json
from typing import Any

from loom_ref.cli.jsondiff import render_diff
from loom_ref.cli.timeline.model import MarkerKind, Timeline, line_words
from loom_ref.journal.events import Event, EventKind
from loom_ref.journal.fold import ExecutionState

__all__ = ["describe", "render_state", "render_text", "render_timeline", "short"]

K = EventKind


def short(value: Any, width: int | None = 60) -> str:
    """``value`` as compact JSON, cut to ``width`` characters (None: never cut)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text if width is None or len(text) <= width else text[: width - 1] + "…"


def describe(event: Event, *, full: bool = False) -> str:
    """One readable line for one event (whole payload values when ``full``)."""
    p = event.payload
    k = event.kind
    wide, narrow = (None, None) if full else (60, 40)
    if k is K.EXECUTION_STARTED:
        return f"started {p['workflow']} as {p['executionId']} with {short(p['input'], wide)}"
    if k is K.STEP_STARTED:
        return f"step {p['stepId']} -> {p['toolId']}({short(p['input'], narrow)})"
    if k is K.STEP_COMPLETED:
        return f"step {p['stepId']} completed: {short(p['output'], wide)}"
    if k is K.STEP_FAILED:
        return f"step {p['stepId']} failed: {_error(p['error'])}"
    if k is K.STEP_IN_DOUBT:
        return f"step {p['stepId']} is in doubt (started, no outcome)"
    if k is K.DECISION_RECORDED:
        policy = p.get("policy")
        extra = f" (policy {policy['id']}, propensity {policy['propensity']})" if isinstance(
            policy, dict) and {"id", "propensity"} <= policy.keys() else ""
        return f"decision {p['decisionId']} = {short(p['choice'], wide)}{extra}"
    if k is K.STREAM_APPENDED:
        return f"stream {p['streamId']}: {short(p['data'], wide)}"
    if k is K.EXECUTION_SUSPENDED:
        return f"suspended on gate {p['gateId']}" + (f" ({p['on']})" if p.get("on") else "")
    if k is K.RESUME_RECEIVED:
        return f"resume for gate {p['gateId']}: {short(p['payload'], wide)}"
    if k is K.EXECUTION_RESUMED:
        return f"resumed from gate {p['gateId']}"
    if k is K.EXECUTION_COMPLETED:
        return f"completed: {short(p['output'], wide)}"
    return f"failed: {_error(p['error'])}"


def _error(error: Any) -> str:
    if isinstance(error, dict):
        return f"{error.get('code')}: {error.get('message')}"
    return short(error)


def render_timeline(events: list[Event], *, full: bool = False) -> str:
    """The timeline: ``seq  KIND  description`` per event."""
    return "\n".join(f"{e.seq:>5}  {e.kind.value:<20} {describe(e, full=full)}"
                     for e in events)


def render_state(state: ExecutionState, *, full: bool = False) -> str:
    """The folded state, one fact per line."""
    width = None if full else 200
    lines = [f"status: {state.status.value} (at seq {state.seq})"]
    if state.waiting_gate:
        lines.append(f"waiting on gate: {state.waiting_gate}"
                     + (" (resume received)" if state.pending_resume else ""))
    if state.in_doubt_step:
        lines.append(f"in-doubt step: {state.in_doubt_step}")
    for frame in state.frames.values():
        lines.append(f"frame {frame.step_id} [{frame.tool_id}]: {frame.status.value}")
    for decision_id, choice in state.decisions.items():
        lines.append(f"decision {decision_id}: {short(choice, None if full else 60)}")
    if state.status.value == "completed":
        lines.append(f"output: {short(state.output, width)}")
    if state.error is not None:
        lines.append(f"error: {_error(state.error)}")
    return "\n".join(lines)


def render_text(timeline: Timeline, *, full: bool = False) -> str:
    """What ``loom-ref journal show`` prints: a heading, the events (each divergence followed
    by its diff), a torn tail if any, and the folded state at the end."""
    lines = [f"journal {timeline.source} (execution {timeline.shown_id})"]
    diverged = {m.at_seq: m for m in timeline.markers if m.kind is MarkerKind.NONDETERMINISM}
    for point in timeline.points:
        event = Event(seq=point.seq, kind=point.kind, payload=point.payload)
        lines.append(f"{point.seq:>5}  {point.kind.value:<20} {describe(event, full=full)}")
        marker = diverged.get(point.seq)
        if marker is not None and isinstance(marker.data, dict):
            lines.extend(render_diff(marker.data.get("expected"), marker.data.get("actual"),
                                     indent=" " * 9))
    if timeline.torn is not None:
        lines.append(f"  torn tail: {line_words(timeline.torn.line, len(timeline.points))}, "
                     f"{timeline.torn.size} bytes (not written)")
    if timeline.corrupt is not None:
        bad = timeline.corrupt
        lines.append(f"  CORRUPT: {line_words(bad.line, len(timeline.points))}: "
                     f"{bad.reason}: {bad.message}; nothing after it is read")
    lines.append("--")
    lines.append(render_state(timeline.state, full=full))
    return "\n".join(lines)
