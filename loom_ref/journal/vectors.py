"""The journal's conformance functions: JSON in, JSON out (``conformance/INTERPRETING.md``
section 3; the call each name stands for is in ``spec/journal.md``).

- ``journal.parse``: ``{"text": <journal text>}`` -> ``{"executionId", "events": [{seq,
  kind, payload}], "torn": {line, size} | null}``; a bad line raises ``journal.corrupt`` with
  ``line`` and ``reason`` (spec: journal.corrupt-line, journal.torn-tail).
- ``journal.parse-log``: ``{"text": <store log text>}`` -> ``{"executions": {id: [{seq,
  kind, payload}]}, "order": [id, ...], "torn": {line, size, executionId} | null}``; a bad
  line raises ``journal.corrupt`` with ``line`` and ``reason`` (spec: journal.log-format,
  journal.log-executions, journal.log-torn-tail).
- ``journal.fold``: ``{"events": [{kind, payload, seq?}]}`` -> ``{status, seq, waitingOn,
  pendingResume, inDoubtStep, output, error, steps: {stepId: status}, decisions:
  {decisionId: choice}}``; an illegal event raises ``journal.illegal-transition`` (spec:
  journal.fold, journal.transitions). An event that is not an object, a ``stepId`` /
  ``decisionId`` that is not a string, or a ``seq`` that is not an integer, is
  ``argument.invalid`` (spec: journal.fold-vector); every event is checked before any is
  folded.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from loom_ref.errors import InvalidArgument
from loom_ref.journal.events import Event, EventKind, check_payload, kind_from_name
from loom_ref.journal.fold import ExecutionState, fold
from loom_ref.journal.logstore import parse_log
from loom_ref.journal.reader import parse_journal

__all__ = ["VECTOR_FUNCTIONS", "journal_fold", "journal_parse", "journal_parse_log", "state_json"]


def _obj(value: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise InvalidArgument(f"{what} must be a JSON object")
    return value


def _text_bytes(input: Any, function: str) -> bytes:
    """The UTF-8 bytes of a ``{"text": <string>}`` input."""
    text = _obj(input, "input").get("text")
    if not isinstance(text, str):
        raise InvalidArgument(f"{function} takes {{'text': <string>}}")
    return text.encode("utf-8")


def journal_parse(input: Any) -> dict[str, Any]:
    """``journal.parse`` (see the module docstring; spec: journal.parse-vector)."""
    parsed = parse_journal(_text_bytes(input, "journal.parse"), source="<vector>")
    return {
        "executionId": parsed.execution_id,
        "events": [e.to_json() for e in parsed.events],
        "torn": None if parsed.torn is None else {"line": parsed.torn.line,
                                                  "size": parsed.torn.size},
    }


def journal_parse_log(input: Any) -> dict[str, Any]:
    """``journal.parse-log`` (see the module docstring)."""
    parsed = parse_log(_text_bytes(input, "journal.parse-log"), source="<vector>")
    return {
        "executions": {eid: [e.to_json() for e in j.events]
                       for eid, j in parsed.journals.items()},
        "order": list(parsed.journals),
        "torn": None if parsed.torn is None else {
            "line": parsed.torn.line, "size": parsed.torn.size,
            "executionId": parsed.torn_execution},
    }


#: The payload member that keys the fold's result (``steps`` or ``decisions``), by kind.
_KEYED: Mapping[EventKind, str] = {
    EventKind.STEP_STARTED: "stepId", EventKind.STEP_COMPLETED: "stepId",
    EventKind.STEP_FAILED: "stepId", EventKind.STEP_IN_DOUBT: "stepId",
    EventKind.DECISION_RECORDED: "decisionId",
}


def journal_fold(input: Any) -> dict[str, Any]:
    """``journal.fold`` (see the module docstring)."""
    raw = _obj(input, "input").get("events")
    if not isinstance(raw, list):
        raise InvalidArgument("journal.fold takes {'events': [...]}")
    events = []
    for i, item in enumerate(raw):
        item = _obj(item, f"events[{i}]")
        kind = kind_from_name(item.get("kind"))
        check_payload(kind, item.get("payload"))
        key = _KEYED.get(kind)
        if key is not None and not isinstance(item["payload"][key], str):
            # spec: journal.fold-vector -- the result is keyed by it; a JSON key is a string
            raise InvalidArgument(f"events[{i}]: the fold vector needs a string {key}")
        seq = item.get("seq", i + 1)
        if type(seq) is not int:  # spec: journal.fold-vector -- an integer, never null
            raise InvalidArgument(f"events[{i}].seq must be an integer")
        events.append(Event(seq=seq, kind=kind, payload=item["payload"]))
    return state_json(fold(events))


def state_json(state: ExecutionState) -> dict[str, Any]:
    """A folded state as the ``journal.fold`` function answers it (also the ``state`` of a
    ``loom-ref journal show --format json`` timeline)."""
    return {
        "status": state.status.value,
        "seq": state.seq,
        "waitingOn": state.waiting_gate,
        "pendingResume": state.pending_resume,
        "inDoubtStep": state.in_doubt_step,
        "output": state.output,
        "error": state.error,
        "steps": {k: f.status.value for k, f in state.frames.items()},
        "decisions": dict(state.decisions),
    }


VECTOR_FUNCTIONS: Mapping[str, Callable[[Any], Any]] = {
    "journal.parse": journal_parse,
    "journal.fold": journal_fold,
    "journal.parse-log": journal_parse_log,
}
