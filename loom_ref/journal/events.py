"""Journal events: the closed set of kinds and the payload each one carries.

Spec: ``spec/journal.md``. Rules enforced here:

- ``journal.event-kinds``: an event's ``kind`` MUST be one of :class:`EventKind`; anything else
  is a corrupt journal, not an extension point.
- ``journal.payload-shape``: each kind's payload MUST carry the fields of :data:`REQUIRED`
  (and may carry the optional ones named in ``spec/journal.md``).
- ``journal.json-values``: every payload value MUST be a JSON value (objects with string keys,
  arrays, strings, finite numbers, booleans, null), so that what a body receives live is
  exactly what it receives on replay.

Events carry no wall-clock time (``journal.no-clock``): a journal is a pure function of the
body, its inputs and its effects' outputs, so two runs can be compared event for event.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from loom_ref.enums import TableEnum
from loom_ref.errors import InvalidArgument, JournalError
from loom_ref.schema import check_schema

__all__ = ["REQUIRED", "Event", "EventKind", "PayloadError", "check_events"]


class PayloadError(JournalError):
    """An event's payload is missing a required field or is not made of JSON values.
    (spec: journal.payload-shape)
    """

    code = "journal.bad-payload"


class EventKind(TableEnum):
    """Every kind of event an execution's journal may hold (``journal.event-kinds``)."""

    EXECUTION_STARTED = "EXECUTION_STARTED"
    STEP_STARTED = "STEP_STARTED"
    STEP_COMPLETED = "STEP_COMPLETED"
    STEP_FAILED = "STEP_FAILED"
    STEP_IN_DOUBT = "STEP_IN_DOUBT"
    DECISION_RECORDED = "DECISION_RECORDED"
    STREAM_APPENDED = "STREAM_APPENDED"
    EXECUTION_SUSPENDED = "EXECUTION_SUSPENDED"
    RESUME_RECEIVED = "RESUME_RECEIVED"
    EXECUTION_RESUMED = "EXECUTION_RESUMED"
    EXECUTION_COMPLETED = "EXECUTION_COMPLETED"
    EXECUTION_FAILED = "EXECUTION_FAILED"


#: Required payload fields per kind (``journal.payload-shape``). Optional fields are listed in
#: the spec; they are checked for JSON-ness like everything else.
REQUIRED: Mapping[EventKind, tuple[str, ...]] = {
    EventKind.EXECUTION_STARTED: ("executionId", "workflow", "input"),
    EventKind.STEP_STARTED: ("stepId", "toolId", "input", "idempotencyKey"),
    EventKind.STEP_COMPLETED: ("stepId", "output"),
    EventKind.STEP_FAILED: ("stepId", "error"),
    EventKind.STEP_IN_DOUBT: ("stepId",),
    EventKind.DECISION_RECORDED: ("decisionId", "choice"),
    EventKind.STREAM_APPENDED: ("streamId", "data"),
    EventKind.EXECUTION_SUSPENDED: ("gateId", "on", "correlationKey"),
    EventKind.RESUME_RECEIVED: ("gateId", "payload"),
    EventKind.EXECUTION_RESUMED: ("gateId",),
    EventKind.EXECUTION_COMPLETED: ("output",),
    EventKind.EXECUTION_FAILED: ("error",),
}

_KINDS_BY_NAME: Mapping[str, EventKind] = {k.value: k for k in EventKind}
_SUSPENDED = EventKind.EXECUTION_SUSPENDED  # read once per event by check_payload

# REQUIRED as sets, for check_payload's one-test fast path (it runs once per event read)
_REQUIRED_SETS: Mapping[EventKind, frozenset[str]] = {
    kind: frozenset(names) for kind, names in REQUIRED.items()
}


@attrs.frozen(kw_only=True)
class Event:
    """One journaled event: its position ``seq`` (from 1, no gaps), ``kind`` and ``payload``.
    (spec: journal.event-kinds)
    """

    seq: int
    kind: EventKind
    payload: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        """The wire form without the checksum: ``{"seq", "kind", "payload"}``."""
        return {"seq": self.seq, "kind": self.kind.value, "payload": dict(self.payload)}


def check_events(events: object) -> Sequence[Event]:
    """``events`` as a sequence, if it is an iterable of :class:`Event` records whose kinds and
    payloads a reader would accept (``journal.event-kinds``, ``journal.payload-shape``); else
    InvalidArgument (spec: errors.invalid-argument). For the entry points that take events
    from a caller (``fold``, ``replay``), not from a reader, which checked them."""
    if isinstance(events, str | bytes | Mapping) or not isinstance(events, Iterable):
        raise InvalidArgument(f"events must be an iterable of Event, got {type(events).__name__}")
    checked = events if isinstance(events, list | tuple) else list(events)
    for i, event in enumerate(checked):
        if not isinstance(event, Event) or type(event.kind) is not EventKind:
            raise InvalidArgument(f"events[{i}] is not an Event with an EventKind: {event!r}")
        try:
            check_payload(event.kind, event.payload)
        except PayloadError as exc:
            raise InvalidArgument(f"events[{i}]: {exc.message}") from None
    return checked


def kind_from_name(name: object) -> EventKind:
    """The :class:`EventKind` spelled ``name``; a lookup miss is a corrupt journal."""
    try:
        return _KINDS_BY_NAME[name]  # type: ignore[index]
    except (KeyError, TypeError):
        raise PayloadError(f"unknown event kind {name!r}", kind=name) from None


def check_payload(kind: EventKind, payload: object) -> None:
    """Raise :class:`PayloadError` unless ``payload`` has every field ``kind`` requires (and,
    for a gate, an optional ``resumeSchema`` that is a schema loom-ref reads).

    spec: journal.required-fields -- "a reader checks that it is there, with any JSON value
    (``null`` included), and gives it no type"; a ``resumeSchema`` the subset refuses,
    ``null`` included, is a bad payload."""
    if type(payload) is not dict and not isinstance(payload, Mapping):
        raise PayloadError(f"{kind.value} payload must be an object, got {type(payload).__name__}")
    if kind is _SUSPENDED and "resumeSchema" in payload:
        try:  # spec: kernel.resume-schema -- a journaled schema is read back as it was checked
            check_schema(payload["resumeSchema"], where="resumeSchema")
        except InvalidArgument as exc:
            raise PayloadError(f"{kind.value} {exc.message}", kind=kind.value) from None
    if payload.keys() >= _REQUIRED_SETS[kind]:  # the common case, in one set comparison
        return
    missing = [name for name in REQUIRED[kind] if name not in payload]  # one at least
    raise PayloadError(f"{kind.value} payload is missing {', '.join(missing)}",
                       kind=kind.value, missing=missing)
