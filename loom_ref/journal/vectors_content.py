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
- ``{"externalize"?, "stored": [...], "appends": [...]}`` -> ``{"stored": [...], "events":
  [...]}``: the reopen. The ``stored`` payloads written as they are, the journal opened
  through the store as a writer opens it (its table rebuilt from the stored references),
  then each of ``appends`` appended by that writer; the answer is that of ``appends`` alone
  for the whole journal, so a value the stored lines already put in the table is referred
  to, never added again (``journal.content-refs``). A stored reference the store cannot
  resolve is the call's error, and nothing is appended.

``externalize`` is the store's configuration (default: ``{"STEP_STARTED":
["input.messages"]}``, ADR 0087's path); at least one of ``appends`` and ``stored``. Every
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
from loom_ref.journal.store import Journal, MemoryStore

__all__ = ["VECTOR_FUNCTIONS", "journal_content"]

_EXECUTION = "e1"


def _events(value: Any, what: str) -> list[tuple[Any, Any]]:
    """The ``{kind, payload}`` items of ``value``, each checked to be an object before any is
    written (``argument.invalid``); their kinds are the writer's to check, as it appends."""
    if not isinstance(value, list) or not all(isinstance(e, Mapping) for e in value):
        raise InvalidArgument(f"{what} must be an array of {{kind, payload}} objects")
    return [(e.get("kind"), e.get("payload")) for e in value]


def _reopen(memory: MemoryStore, store: ContentResolvingStore,
            stored: list[tuple[Any, Any]]) -> Journal:
    """The ``stored`` payloads written as they are to the store underneath, then the journal
    opened through ``store`` as a writer (a recovery) opens it: its table rebuilt from the
    stored references, each of which must resolve (spec: journal.content-errors)."""
    raw = memory.create(_EXECUTION)
    for kind, payload in stored:
        raw.append(kind_from_name(kind), payload)
    raw.close()
    return store.open(_EXECUTION)


def _append(journal: Journal, appends: list[tuple[Any, Any]]) -> None:
    """Each of ``appends`` appended, in order, by ``journal``'s writer."""
    for kind, payload in appends:
        # spec: journal.content-vector -- a kind that is no event kind's name (absent,
        # not a string) is the writer's refusal, journal.bad-payload, as on every store
        journal.append(kind_from_name(kind), payload)


def journal_content(input: Any) -> dict[str, Any]:
    """``journal.content`` (see the module docstring; spec: journal.content-vector)."""
    if not isinstance(input, Mapping) or ("appends" not in input and "stored" not in input):
        raise InvalidArgument("journal.content takes {externalize?, appends}, "
                              "{externalize?, stored} or {externalize?, stored, appends}")
    memory = MemoryStore()
    store = ContentResolvingStore(memory, externalize=input.get("externalize",
                                                                AGENT_TRANSCRIPT))
    # spec: journal.content-vector -- every item of both checked before anything is written
    stored = _events(input["stored"], "stored") if "stored" in input else None
    appends = _events(input["appends"], "appends") if "appends" in input else None
    journal = store.create(_EXECUTION) if stored is None else _reopen(memory, store, stored)
    if appends is None:  # stored alone: what the reopen reads back
        return {"events": [e.to_json() for e in journal.events]}
    _append(journal, appends)
    return {"stored": [e.to_json() for e in memory.read(_EXECUTION).events],
            "events": [e.to_json() for e in store.read(_EXECUTION).events]}


VECTOR_FUNCTIONS: Mapping[str, Callable[[Any], Any]] = {"journal.content": journal_content}
