"""The content-resolving store (extension): configured payload paths journaled by content
reference, each item stored once per journal, resolved on read.

Spec: ``spec/journal.md`` section 1.10. ADR 0087's amendment names it as the lossless answer
to the agent loop's O(n^2) journal ("``ContentResolvingEventStore`` ... ``externalize:
{ STEP_STARTED: ["input.messages"] }`` keeps the journaled input a pointer instead of inline
bytes") and leaves it to adopters; this is loom-ref's, opt-in, over any journal store.

- ``journal.content-refs``: at a configured path of a configured kind's payload, an array
  is journaled as a *content reference* ``{"$content": {"new": [...], "items": [[first,
  count], ...]}}``. A journal has a *content table*, empty at its header: each reference
  first appends its ``new`` values to the table, in order, then stands for the array of the
  table's items ``first .. first + count - 1`` of each run, in order. The writer adds an item
  to ``new`` only when the table holds no item with the same journal encoding (its SHA-256
  is the item's content address), so a message every later turn re-sends is stored once,
  and runs of consecutive items keep each reference small: the journal grows with what is
  new, not with the length of the array. Any other value at the path (not an array, or a
  path that is not there) is journaled as it is; an object with a ``$content`` member there
  is refused (``journal.bad-payload``), so every such object in a journal is a reference.
- ``journal.content-resolve``: reading resolves every reference, so the events a journal
  hands out, the fold, replay and every value a body or an effect receives are those of the
  same journal kept inline. Resolved arrays and their items are frozen
  (:mod:`loom_ref.journal.frozen`): read-only, and shared by every event that refers to them.
- ``journal.content-errors``: a reference that is not of that form is ``journal.corrupt``
  with reason ``journal.bad-content``; one that names an item no earlier line defined is
  ``journal.corrupt`` with reason ``journal.missing-content``; both name the line of the
  execution's journal (its header is line 1), the path and the reference. A torn tail or a
  corrupt line is reported by the store underneath, as for any journal: a torn line takes
  the items it defined with it, and nothing after it is read.

The store wraps another (memory, file, store log, SQLite): it writes reference payloads
through that store's journals, one line per event, so the torn-tail, corruption, locking and
fsync rules are the underlying store's, and an item is always in the same file as, and
before, the first line that refers to it (a power loss that keeps a line keeps its items).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from loom_ref.errors import InvalidArgument, JournalError
from loom_ref.journal.codec import to_json_text
from loom_ref.journal.events import Event, EventKind, PayloadError
from loom_ref.journal.frozen import FrozenDict, FrozenList, frozen_json, is_frozen
from loom_ref.journal.reader import CorruptJournalError, ParsedJournal
from loom_ref.journal.store import Journal, JournalStore, JournalWrapper, check_store

__all__ = ["AGENT_TRANSCRIPT", "CONTENT", "ContentResolvingStore"]

#: The member that marks a content reference (``journal.content-refs``).
CONTENT = "$content"

#: What ADR 0087 names: each turn's transcript, by reference.
AGENT_TRANSCRIPT: Mapping[EventKind, tuple[str, ...]] = {
    EventKind.STEP_STARTED: ("input.messages",)}

_Path = tuple[str, ...]
_KINDS: dict[object, EventKind] = {k.value: k for k in EventKind}


def _check_externalize(externalize: object) -> dict[EventKind, tuple[_Path, ...]]:
    if not isinstance(externalize, Mapping) or not externalize:
        raise InvalidArgument("externalize must be a non-empty mapping of EventKind to paths")
    out: dict[EventKind, tuple[_Path, ...]] = {}
    for key, paths in externalize.items():
        kind = key if type(key) is EventKind else _KINDS.get(key)
        if kind is None:
            raise InvalidArgument(f"externalize keys are EventKind or their names, got {key!r}")
        if isinstance(paths, str) or not isinstance(paths, Sequence) or not paths:
            raise InvalidArgument(f"externalize[{kind.value}] must be a non-empty sequence of "
                                  f"dotted paths, got {paths!r}")
        split: list[_Path] = []
        for path in paths:
            if not isinstance(path, str) or not all(path.split(".")):
                raise InvalidArgument(f"a path is member names joined by '.', got {path!r}")
            names = tuple(path.split("."))
            if names not in split:  # a path listed twice is one path
                split.append(names)
        out[kind] = tuple(split)
    return out


def _get(payload: Any, path: _Path) -> Any:
    """The value at ``path`` in ``payload``, or None if the path is not there."""
    value = payload
    for name in path:
        if not isinstance(value, Mapping) or name not in value:
            return None
        value = value[name]
    return value


def _replaced(payload: Mapping[str, Any], path: _Path, value: Any) -> dict[str, Any]:
    """A copy of ``payload`` with ``value`` at ``path`` (the objects on the way copied)."""
    out = dict(payload)
    head, *rest = path
    out[head] = value if not rest else _replaced(out[head], tuple(rest), value)
    return out


class _Table:
    """One journal's content table: its items in order, by content address, and the frozen
    values the store has seen journaled (by identity: a frozen value never changes)."""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self.by_digest: dict[bytes, int] = {}
        self.by_identity: dict[int, tuple[Any, int]] = {}

    def address(self, value: Any) -> tuple[int, bytes | None]:
        """``value``'s item number, or (-1, digest) if the table does not hold it (the caller
        has looked ``value`` up by identity first)."""
        digest = hashlib.sha256(to_json_text(value).encode("utf-8")).digest()
        found = self.by_digest.get(digest)
        if found is not None:
            if is_frozen(value):
                self.by_identity[id(value)] = (value, found)
            return found, None
        return -1, digest

    def add(self, value: Any, digest: bytes | None = None, original: Any = None) -> int:
        """Append ``value`` as the next item. Its address, and its identity (and that of the
        frozen ``original`` it was made from), name the *first* item with its encoding: a
        value the table holds twice (another writer's journal) is referred to by its first
        item (``journal.content-vector``, ``journal.content/reopen-value-held-twice``),
        whichever object the writer is handed, the same string object included."""
        index = len(self.items)
        self.items.append(value)
        if digest is None:  # an item read back: its address, once
            digest = hashlib.sha256(to_json_text(value).encode("utf-8")).digest()
        first = self.by_digest.setdefault(digest, index)
        self.by_identity.setdefault(id(value), (value, first))
        if is_frozen(original):
            self.by_identity.setdefault(id(original), (original, first))
        return index


def _runs(indexes: Sequence[int]) -> list[list[int]]:
    """``indexes`` as runs ``[first, count]`` of consecutive item numbers."""
    runs: list[list[int]] = []
    for i in indexes:
        if runs and runs[-1][0] + runs[-1][1] == i:
            runs[-1][1] += 1
        else:
            runs.append([i, 1])
    return runs


def _frozen_list(items: list[Any]) -> FrozenList:
    """A FrozenList of the table's items, which are frozen already: made without checking
    each again (the table's items are checked when they are added)."""
    out = FrozenList.__new__(FrozenList)
    list.extend(out, items)
    return out


class _Bad(Exception):
    """A reference that cannot be resolved: the reason's code, the reference, what is wrong."""

    def __init__(self, *, reason: str, ref: Any, message: str) -> None:
        super().__init__(message)
        self.reason, self.ref, self.message = reason, ref, message


def _resolve(table: _Table, ref: Any) -> FrozenList:
    """The array a reference stands for, its new items added to ``table``
    (``journal.content-refs``); raises _Bad."""
    if not isinstance(ref, Mapping) or set(ref) - {"new", "items"} or "items" not in ref:
        raise _Bad(reason="journal.bad-content", ref=ref,
                   message="a content reference holds 'items' and optionally 'new'")
    new = ref.get("new", [])
    items = ref["items"]
    if not isinstance(new, list) or not isinstance(items, list):
        raise _Bad(reason="journal.bad-content", ref=ref,
                   message="a content reference's 'new' and 'items' are arrays")
    for value in new:
        table.add(frozen_json(value))
    out: list[Any] = []
    size = len(table.items)
    for run in items:
        if not (isinstance(run, list) and len(run) == 2 and all(
                type(n) is int for n in run) and run[0] >= 0 and run[1] >= 1):
            raise _Bad(reason="journal.bad-content", ref=run,
                       message="a run of items is [first, count] with first >= 0, count >= 1")
        first, count = run
        if first + count > size:
            raise _Bad(reason="journal.missing-content", ref=first + count - 1,
                       message=f"refers to content item {first + count - 1}, and the journal "
                               f"up to this line defines {size}")
        out.extend(table.items[first:first + count])
    return FrozenList(out)


class _ContentJournal(JournalWrapper):
    """One execution's journal through the content-resolving store (module rules): its
    events are the resolved ones; :attr:`inner` is the underlying store's journal, which
    holds the reference payloads."""

    def __init__(self, inner: Journal, store: ContentResolvingStore, events: Sequence[Event],
                 table: _Table) -> None:
        super().__init__(inner)
        self._store = store
        self._events: list[Event] = list(events)
        self._table = table

    @property
    def events(self) -> Sequence[Event]:
        return self._events

    def _stored(self, kind: EventKind, payload: Mapping[str, Any]) -> tuple[
            Mapping[str, Any], list[tuple[_Path, list[tuple[Any, bytes]], list[int]]]]:
        """The payload with each configured array by reference, and per path its new values
        and item numbers (for the table, once the line is written)."""
        paths = self._store._paths.get(kind)
        if not paths or not isinstance(payload, Mapping):
            return payload, []
        stored: Mapping[str, Any] = payload
        plans = []
        next_index = len(self._table.items)
        pending: dict[bytes, int] = {}
        for path in paths:
            value = _get(payload, path)
            if isinstance(value, Mapping) and CONTENT in value:
                raise PayloadError(f"{kind.value} payload holds a {CONTENT!r} member at "
                                   f"{'.'.join(path)}, which is how a reference is written",
                                   kind=kind.value)
            if not isinstance(value, list | tuple):
                continue
            new: list[tuple[Any, bytes]] = []
            indexes: list[int] = []
            by_identity = self._table.by_identity
            for item in value:
                # an identity the table holds is a frozen value it keeps alive: that very item
                known = by_identity.get(id(item))
                if known is not None:
                    indexes.append(known[1])
                    continue
                try:
                    index, digest = self._table.address(item)
                except (TypeError, ValueError) as exc:  # spec: journal.json-values
                    # the item's address is its JSON text: an item that has none is refused
                    # as the journal underneath would refuse the whole payload
                    raise PayloadError(f"{kind.value} payload is not made of JSON values: {exc}",
                                       kind=kind.value) from None
                if index < 0:
                    assert digest is not None
                    index = pending.get(digest, -1)
                    if index < 0:
                        index = pending[digest] = next_index
                        next_index += 1
                        new.append((item, digest))
                indexes.append(index)
            ref: dict[str, Any] = {"items": _runs(indexes)}
            if new:
                ref["new"] = [item for item, _ in new]
            stored = _replaced(stored, path, {CONTENT: ref})
            plans.append((path, new, indexes))
        return stored, plans

    def append(self, kind: EventKind, payload: Mapping[str, Any]) -> Event:
        """Journal one event with its configured arrays by reference
        (``journal.content-refs``) and return it resolved (``journal.content-resolve``)."""
        stored, plans = self._stored(kind, payload)
        event = self._inner.append(kind, stored)
        if plans:
            resolved = event.payload
            for path, new, indexes in plans:
                written = _get(event.payload, path)[CONTENT].get("new", ())
                for (original, digest), value in zip(new, written, strict=True):
                    self._table.add(frozen_json(value), digest, original)
                items = self._table.items
                resolved = _replaced(resolved, path, _frozen_list([items[i] for i in indexes]))
            event = Event(seq=event.seq, kind=kind, payload=resolved)
        self._events.append(event)
        return event

    def write_torn(self, kind: EventKind, payload: Mapping[str, Any], nbytes: int) -> None:
        """Fault injection only: the underlying journal writes part of the event's line."""
        stored, _ = self._stored(kind, payload)
        super().write_torn(kind, stored, nbytes)


class ContentResolvingStore:
    """A journal store whose configured payload paths are journaled by content reference
    (extension, spec: journal.content-refs). ``store`` is the store underneath (any
    :class:`~loom_ref.journal.store.JournalStore`); ``externalize`` maps event kinds (an
    :class:`EventKind` or its name) to dotted payload paths, by default
    :data:`AGENT_TRANSCRIPT`."""

    def __init__(self, store: JournalStore, *,
                 externalize: Mapping[EventKind, Sequence[str]] | Mapping[str, Sequence[str]]
                 = AGENT_TRANSCRIPT,
                 ) -> None:
        self.inner: JournalStore = check_store(store)
        self._paths = _check_externalize(externalize)

    @property
    def data(self) -> Any:
        """The underlying store's raw bytes, where it exposes them (``MemoryStore.data``)."""
        return self.inner.data  # type: ignore[attr-defined]

    def close(self) -> None:
        """Close the underlying store, if it is one that closes."""
        close = getattr(self.inner, "close", None)
        if callable(close):
            close()

    def __enter__(self) -> ContentResolvingStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def exists(self, execution_id: str) -> bool:
        return self.inner.exists(execution_id)

    def _resolved(self, execution_id: str, events: Sequence[Event]) -> tuple[list[Event], _Table]:
        """The events with every reference resolved, and the table they built
        (``journal.content-resolve``, ``journal.content-errors``)."""
        table = _Table()
        out: list[Event] = []
        for event in events:
            paths = self._paths.get(event.kind)
            payload = event.payload
            for path in paths or ():
                value = _get(payload, path)
                if not (isinstance(value, Mapping) and CONTENT in value):
                    continue
                try:
                    if len(value) != 1:
                        raise _Bad(reason="journal.bad-content", ref=dict(value),
                                   message=f"a content reference has the one member {CONTENT}")
                    array = _resolve(table, value[CONTENT])
                except _Bad as bad:
                    where = ".".join(path)
                    line = event.seq + 1
                    source = self._source(execution_id)
                    raise CorruptJournalError(
                        f"{source}, line {line}: {where} {bad.message}", file=source,
                        line=line, reason=bad.reason, path=where, ref=bad.ref) from None
                payload = _replaced(payload, path, array)
            out.append(event if payload is event.payload else
                       Event(seq=event.seq, kind=event.kind, payload=payload))
        return out, table

    def _source(self, execution_id: str) -> str:
        """Where the underlying store keeps ``execution_id``'s journal, for errors: its file
        (a file store), its file and the execution (a store log, a database), or the id."""
        where = getattr(self.inner, "path", None)
        if callable(where):
            return str(where(execution_id))
        if isinstance(where, str):
            return f"{where} [{execution_id}]"
        return f"journal {execution_id!r}"

    def read(self, execution_id: str) -> ParsedJournal:
        """One execution's journal, resolved, without opening it for writing."""
        parsed = self.inner.read(execution_id)
        events, _ = self._resolved(execution_id, parsed.events)
        return attrs.evolve(parsed, events=events)

    def create(self, execution_id: str) -> _ContentJournal:
        return _ContentJournal(self.inner.create(execution_id), self, (), _Table())

    def open(self, execution_id: str) -> _ContentJournal:
        inner = self.inner.open(execution_id)
        try:
            events, table = self._resolved(execution_id, inner.events)
        except JournalError:
            inner.close()
            raise
        return _ContentJournal(inner, self, events, table)


__all__ += ["FrozenDict", "FrozenList"]
