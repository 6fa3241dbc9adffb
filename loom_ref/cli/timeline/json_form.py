"""The timeline as data: ``loom-ref journal show FILE --format json``, and its schema.

The document is the :class:`~loom_ref.cli.timeline.model.Timeline` record, member for
member, in the journal's camelCase. :data:`TIMELINE_SCHEMA` describes it in the JSON Schema
subset of :mod:`loom_ref.schema` (so loom-ref checks its own output with it), printed by
``loom-ref journal schema`` and kept in ``docs/timeline.schema.json``. ``schema`` and
``version`` name the format; a later version may add members, never rename one. Version 2
added ``corrupt`` (a journal drawn up to its last good line) and ``streams`` (a delta
recorder's tape, ``deltas.recorder``: empty for a journal alone, since deltas are never
journaled).
"""

from __future__ import annotations

import json
from typing import Any

from loom_ref.cli.timeline.model import (
    Call,
    Lane,
    LaneKind,
    Marker,
    MarkerKind,
    Point,
    Process,
    Timeline,
)
from loom_ref.effects.recorder import TapeKind
from loom_ref.journal.events import EventKind
from loom_ref.journal.fold import FrameStatus, Status
from loom_ref.journal.vectors import state_json

__all__ = ["TIMELINE_SCHEMA", "TIMELINE_SCHEMA_NAME", "TIMELINE_VERSION", "dumps",
           "timeline_json"]

TIMELINE_SCHEMA_NAME = "loom-ref.timeline"
TIMELINE_VERSION = 2


def _lane(lane: Lane) -> dict[str, Any]:
    return {"id": lane.id, "kind": lane.kind.value, "name": lane.name, "detail": lane.detail}


def _point(point: Point) -> dict[str, Any]:
    return {"seq": point.seq, "kind": point.kind.value, "lane": point.lane,
            "label": point.label, "payload": dict(point.payload),
            "status": point.status.value, "process": point.process}


def _marker(marker: Marker) -> dict[str, Any]:
    return {"kind": marker.kind.value, "label": marker.label, "detail": marker.detail,
            "lane": marker.lane, "atSeq": marker.at_seq, "afterSeq": marker.after_seq,
            "data": marker.data}


def _call(call: Call) -> dict[str, Any]:
    return {"action": call.action, "firstSeq": call.first_seq, "lastSeq": call.last_seq,
            "served": list(call.served), "ran": list(call.ran), "outcome": call.outcome}


def _process(process: Process) -> dict[str, Any]:
    torn = process.torn
    return {"number": process.number, "calls": [_call(c) for c in process.calls],
            "effects": dict(process.effects), "crashedAfter": process.crashed_after,
            "torn": None if torn is None else {"line": torn.line, "size": torn.size}}


def timeline_json(timeline: Timeline) -> dict[str, Any]:
    """The timeline as a JSON value (valid against :data:`TIMELINE_SCHEMA`)."""
    torn = timeline.torn
    return {
        "schema": TIMELINE_SCHEMA_NAME,
        "version": TIMELINE_VERSION,
        "source": timeline.source,
        "executionId": timeline.execution_id,
        "workflow": timeline.workflow,
        "lanes": [_lane(lane) for lane in timeline.lanes],
        "events": [_point(p) for p in timeline.points],
        "markers": [_marker(m) for m in timeline.markers],
        "torn": None if torn is None else {"line": torn.line, "size": torn.size},
        "processes": [_process(p) for p in timeline.processes],
        "state": state_json(timeline.state),
        "corrupt": None if timeline.corrupt is None else {
            "line": timeline.corrupt.line, "reason": timeline.corrupt.reason,
            "message": timeline.corrupt.message, "text": timeline.corrupt.text},
        "streams": [dict(record) for record in timeline.tape],
    }


def dumps(timeline: Timeline) -> str:
    """The JSON text of the timeline, indented for reading, ending in a newline."""
    return json.dumps(timeline_json(timeline), ensure_ascii=False, indent=2) + "\n"


_STR_OR_NULL: dict[str, Any] = {"type": ["string", "null"]}
_INT_OR_NULL: dict[str, Any] = {"type": ["integer", "null"]}
_STATUS: dict[str, Any] = {"enum": [s.value for s in Status]}
_IDS: dict[str, Any] = {"type": "array", "items": {"type": "string"}}


def _record(properties: dict[str, Any], description: str) -> dict[str, Any]:
    return {"type": "object", "description": description, "properties": properties,
            "required": sorted(properties), "additionalProperties": False}


TIMELINE_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://loom-ref.invalid/timeline.schema.json",
    "title": "loom-ref timeline (loom-ref journal show --format json)",
    "description": "One execution's journal laid out for a picture: one lane per step, "
                   "decision, gate and stream; each event with the folded status after it; "
                   "markers for torn tails, corrupt lines, in-doubt steps, resolutions, "
                   "divergences, and (when the processes are known) crashes, recoveries, "
                   "served and re-run steps; and the tape of the streams when a delta "
                   "recorder listened.",
    **_record({
        "schema": {"const": TIMELINE_SCHEMA_NAME},
        "version": {"const": TIMELINE_VERSION},
        "source": {"type": "string", "description": "the journal file"},
        "executionId": _STR_OR_NULL,
        "workflow": _STR_OR_NULL,
        "lanes": {"type": "array", "items": {"$ref": "#/$defs/lane"}},
        "events": {"type": "array", "items": {"$ref": "#/$defs/event"}},
        "markers": {"type": "array", "items": {"$ref": "#/$defs/marker"}},
        "torn": {"$ref": "#/$defs/torn"},
        "processes": {"type": "array", "items": {"$ref": "#/$defs/process"}},
        "state": {"$ref": "#/$defs/state"},
        "corrupt": {"$ref": "#/$defs/corrupt"},
        "streams": {"type": "array", "items": {"$ref": "#/$defs/tape"}},
    }, "the timeline"),
    "$defs": {
        "lane": _record({
            "id": {"type": "string", "description": "execution, or <kind>:<name>"},
            "kind": {"enum": [k.value for k in LaneKind]},
            "name": {"type": "string"},
            "detail": _STR_OR_NULL,
        }, "one row: the execution, or one step, decision, gate or stream"),
        "event": _record({
            "seq": {"type": "integer", "minimum": 1},
            "kind": {"enum": [k.value for k in EventKind]},
            "lane": {"type": "string"},
            "label": {"type": "string"},
            "payload": {"type": "object"},
            "status": _STATUS,
            "process": _INT_OR_NULL,
        }, "one journal event; status is the folded status after it"),
        "marker": _record({
            "kind": {"enum": [k.value for k in MarkerKind]},
            "label": {"type": "string"},
            "detail": {"type": "string"},
            "lane": _STR_OR_NULL,
            "atSeq": _INT_OR_NULL,
            "afterSeq": _INT_OR_NULL,
            "data": {},
        }, "something to point at, on an event (atSeq) or just after one (afterSeq)"),
        "call": _record({
            "action": {"type": "string"},
            "firstSeq": {"type": "integer"},
            "lastSeq": {"type": "integer"},
            "served": _IDS,
            "ran": _IDS,
            "outcome": {"type": "string"},
        }, "one call of a process to the runtime, and the events it appended"),
        "process": _record({
            "number": {"type": "integer", "minimum": 1},
            "calls": {"type": "array", "items": {"$ref": "#/$defs/call"}},
            "effects": {"type": "object", "additionalProperties": {"type": "integer"}},
            "crashedAfter": _INT_OR_NULL,
            "torn": {"$ref": "#/$defs/torn"},
        }, "one simulated process (known only to the program that ran it)"),
        "corrupt": {"anyOf": [{"type": "null"}, _record(
            {"line": {"type": "integer", "minimum": 1},
             "reason": {"type": "string"},
             "message": {"type": "string"},
             "text": {"type": "string", "description": "the line's first bytes"}},
            "a corrupt line: the events are those before it, and nothing after it is read")]},
        "tape": {
            "type": "object",
            "description": "one record of a delta recorder's tape (spec/deltas.md 3a.12): its "
                           "kind's members beside these",
            "properties": {"index": {"type": "integer", "minimum": 0},
                           "call": {"type": "integer", "minimum": 1},
                           "kind": {"enum": [k.value for k in TapeKind]},
                           "attempt": {"type": "integer", "minimum": 0}},
            "required": ["attempt", "call", "index", "kind"]},
        "torn": {"anyOf": [{"type": "null"}, _record(
            {"line": {"type": "integer", "minimum": 1},
             "size": {"type": "integer", "minimum": 1}},
            "a torn tail: its 1-based line and its size in bytes")]},
        "state": _record({
            "status": _STATUS,
            "seq": {"type": "integer", "minimum": 0},
            "waitingOn": _STR_OR_NULL,
            "pendingResume": {"type": "boolean"},
            "inDoubtStep": _STR_OR_NULL,
            "output": {},
            "error": {},
            "steps": {"type": "object",
                      "additionalProperties": {"enum": [s.value for s in FrameStatus]}},
            "decisions": {"type": "object"},
        }, "the folded state at the end, as the journal.fold conformance function gives it"),
    },
}
