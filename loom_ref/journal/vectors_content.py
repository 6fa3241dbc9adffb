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
["input.messages"]}``, ADR 0087's path); exactly one of ``appends`` and ``stored``. Every
item of either is an object, checked before anything is written (``argument.invalid``); a
``kind`` that names no event kind is the writer's refusal as it appends that item
(``journal.bad-payload``), as every store's writer refuses it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from loom_ref.errors import InvalidArgument
from loom_ref.journal.contentstore import AGENT_TRANSCRIPT, ContentResolvingStore
from loom_ref.journal.events import kind_from_name
from loom_ref.journal.store import MemoryStore

__all__ = ["VECTOR_FUNCTIONS", "journal_content"]

_EXECUTION = "e1"


def _events(value: Any, what: str) -> list[tuple[Any, Any]]:
    """The ``{kind, payload}`` items of ``value``, each checked to be an object before any is
    written (``argument.invalid``); their kinds are the writer's to check, as it appends."""
    if not isinstance(value, list) or not all(isinstance(e, Mapping) for e in value):
        raise InvalidArgument(f"{what} must be an array of {{kind, payload}} objects")
    return [(e.get("kind"), e.get("payload")) for e in value]


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
            # spec: journal.content-vector -- a kind that is no event kind's name (absent,
            # not a string) is the writer's refusal, journal.bad-payload, as on every store
            journal.append(kind_from_name(kind), payload)
        return {"stored": [e.to_json() for e in memory.read(_EXECUTION).events],
                "events": [e.to_json() for e in store.read(_EXECUTION).events]}
    raw = memory.create(_EXECUTION)
    for kind, payload in _events(input["stored"], "stored"):
        raw.append(kind_from_name(kind), payload)
    raw.close()
    opened = store.open(_EXECUTION)  # as a writer (a recovery) opens it
    return {"events": [e.to_json() for e in opened.events]}


VECTOR_FUNCTIONS: Mapping[str, Callable[[Any], Any]] = {"journal.content": journal_content}
