"""The content-resolving store's conformance function (an extension): JSON in, JSON out
(``conformance/INTERPRETING.md`` section 3; ``spec/journal.md`` section 1.10,
``journal.content-vector``).

- ``journal.content``: ``{"externalize"?: {<kind>: [<dotted path>, ...]}, "appends":
  [{kind, payload}, ...]}`` -> ``{"stored": [{seq, kind, payload}], "events": [{seq, kind,
  payload}]}``: each event appended, in order, to a fresh journal (execution ``e1``) through
  a :class:`~loom_ref.journal.ContentResolvingStore` over a memory store; ``stored`` is the
  journal as the store underneath holds it (references and all), ``events`` the journal
  read back through the store, every reference resolved (``journal.content-refs``,
  ``journal.content-resolve``). An append the store refuses raises its error.
- ``{"externalize"?, "stored": [{kind, payload}, ...]}`` -> ``{"events": [...]}``: those
  payloads written as they are (a journal of references someone else wrote), then opened
  through the store as a writer opens it; a reference it cannot resolve raises
  ``journal.corrupt`` with ``line`` (the header is line 1) and ``reason``
  (``journal.content-errors``).

``externalize`` is the store's configuration (default: ``{"STEP_STARTED":
["input.messages"]}``, ADR 0087's path); exactly one of ``appends`` and ``stored``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from loom_ref.errors import InvalidArgument
from loom_ref.journal.contentstore import AGENT_TRANSCRIPT, ContentResolvingStore
from loom_ref.journal.events import EventKind
from loom_ref.journal.store import MemoryStore

__all__ = ["VECTOR_FUNCTIONS", "journal_content"]

_EXECUTION = "e1"
_KINDS = {k.value: k for k in EventKind}


def _events(value: Any, what: str) -> list[tuple[EventKind, Any]]:
    if not isinstance(value, list) or not all(
            isinstance(e, Mapping) and isinstance(e.get("kind"), str) and e["kind"] in _KINDS
            for e in value):
        raise InvalidArgument(f"{what} must be an array of {{kind, payload}} objects, each "
                              f"kind an event kind's name")
    return [(_KINDS[e["kind"]], e.get("payload")) for e in value]


def journal_content(input: Any) -> dict[str, Any]:
    """``journal.content`` (see the module docstring; spec: journal.content-vector)."""
    if not isinstance(input, Mapping) or ("appends" in input) == ("stored" in input):
        raise InvalidArgument("journal.content takes {externalize?, appends} or "
                              "{externalize?, stored}")
    memory = MemoryStore()
    store = ContentResolvingStore(memory, externalize=input.get("externalize",
                                                                AGENT_TRANSCRIPT))
    if "appends" in input:
        journal = store.create(_EXECUTION)
        for kind, payload in _events(input["appends"], "appends"):
            journal.append(kind, payload)
        return {"stored": [e.to_json() for e in memory.read(_EXECUTION).events],
                "events": [e.to_json() for e in store.read(_EXECUTION).events]}
    raw = memory.create(_EXECUTION)
    for kind, payload in _events(input["stored"], "stored"):
        raw.append(kind, payload)
    raw.close()
    opened = store.open(_EXECUTION)  # as a writer (a recovery) opens it
    return {"events": [e.to_json() for e in opened.events]}


VECTOR_FUNCTIONS: Mapping[str, Callable[[Any], Any]] = {"journal.content": journal_content}
