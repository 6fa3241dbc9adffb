"""The pure functions that vector cases call, by name: loom_ref's side of the vector family.

Rules (``conformance/INTERPRETING.md`` section 3): a vector names a ``function``; the
implementation calls it with the case's ``input`` and answers ``{"result": <JSON>}`` or, when
the function raises, ``{"error": {"code": <stable code>, ...details}}``.

The table is built from providers: this module's ``journal.*`` functions, and each module in
:data:`PROVIDERS` that exposes ``VECTOR_FUNCTIONS`` (imported lazily, since those layers are
built separately). A function no provider registers is not declared as a capability, so its
cases are reported as *skipped* with the reason, never as passed.

Functions defined here:

- ``journal.parse``: ``{"text": <journal text>}`` -> ``{"executionId", "events": [{seq,
  kind, payload}], "torn": {line, size} | null}``; a bad line raises ``journal.corrupt`` with
  ``line`` and ``reason`` (spec: journal.corrupt-line, journal.torn-tail).
- ``journal.fold``: ``{"events": [{kind, payload, seq?}]}`` -> ``{status, seq, waitingOn,
  pendingResume, inDoubtStep, output, error, steps: {stepId: status}, decisions:
  {decisionId: choice}}``; an illegal event raises ``journal.illegal-transition`` (spec:
  journal.fold, journal.transitions).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

from loom_ref.errors import InvalidArgument
from loom_ref.journal.events import Event, check_payload, kind_from_name
from loom_ref.journal.fold import fold
from loom_ref.journal.reader import parse_journal

__all__ = ["PROVIDERS", "VectorFunction", "journal_fold", "journal_parse", "load_functions"]

VectorFunction = Callable[[Any], Any]

#: Modules that may expose ``VECTOR_FUNCTIONS: dict[str, VectorFunction]``.
PROVIDERS = ("loom_ref.stream.vectors", "loom_ref.governance.vectors",
             "loom_ref.effects.vectors", "loom_ref.kernel.vectors",
             "loom_ref.agent.vectors")


def _obj(value: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise InvalidArgument(f"{what} must be a JSON object")
    return value


def journal_parse(input: Any) -> dict[str, Any]:
    """``journal.parse`` (see the module docstring)."""
    text = _obj(input, "input").get("text")
    if not isinstance(text, str):
        raise InvalidArgument("journal.parse takes {'text': <string>}")
    parsed = parse_journal(text.encode("utf-8"), source="<vector>")
    return {
        "executionId": parsed.execution_id,
        "events": [e.to_json() for e in parsed.events],
        "torn": None if parsed.torn is None else {"line": parsed.torn.line,
                                                  "size": parsed.torn.size},
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
        events.append(Event(seq=item.get("seq", i + 1), kind=kind, payload=item["payload"]))
    state = fold(events)
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


OWN: Mapping[str, VectorFunction] = {"journal.parse": journal_parse, "journal.fold": journal_fold}


def load_functions(providers: tuple[str, ...] = PROVIDERS
                   ) -> tuple[dict[str, VectorFunction], dict[str, str]]:
    """The function table, and for each provider that could not be imported, why."""
    table: dict[str, VectorFunction] = dict(OWN)
    missing: dict[str, str] = {}
    for name in providers:
        try:
            module = importlib.import_module(name)
        except Exception as exc:  # a layer under construction may fail to import at all
            missing[name] = f"{type(exc).__name__}: {exc}"
            continue
        functions = getattr(module, "VECTOR_FUNCTIONS", None)
        if not isinstance(functions, Mapping):
            missing[name] = "module has no VECTOR_FUNCTIONS table"
            continue
        for fname, fn in functions.items():
            table.setdefault(str(fname), fn)
    return table, missing
