"""Frozen JSON values: read-only ``dict`` and ``list`` that are JSON values by construction.

Spec: ``spec/journal.md`` section 1.10 (the content-resolving store, an extension).

- ``journal.frozen-values``: a :class:`FrozenDict` or :class:`FrozenList` is a JSON value as
  the journal counts them (``journal.json-values``) and never changes: its members are
  ``str`` keys and values of the exact types ``str``, ``int``, ``float`` (finite), ``bool``,
  ``None`` or another frozen container, checked when it is made; every method that would
  change it raises :class:`FrozenValueError`. So a frozen value's journal encoding is fixed
  for its lifetime, which is what lets the content-resolving store recognise a value it has
  already journaled by identity, without encoding it again.

They are ``dict`` and ``list`` subclasses, so code that reads JSON (``isinstance`` checks,
indexing, iteration, ``==``, ``json.dumps``) reads them as it reads any other; only a write
fails. :func:`frozen_json` makes one from any JSON value.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any, NoReturn

from loom_ref.errors import InvalidArgument, JournalError

__all__ = ["FrozenDict", "FrozenList", "FrozenValueError", "frozen_json", "is_frozen"]

_SCALARS = (str, int, bool, type(None))


class FrozenValueError(JournalError, TypeError):
    """Something tried to change a frozen JSON value (``journal.frozen-values``)."""

    code = "journal.frozen-value"


def _refuse(*_: Any, **__: Any) -> NoReturn:
    raise FrozenValueError("a frozen JSON value cannot be changed; copy it first "
                           "(dict(value) or list(value))")


def _not_json(value: object) -> NoReturn:
    raise InvalidArgument(f"a frozen JSON value holds only JSON scalars and frozen containers, "
                          f"got {type(value).__name__} {value!r:.60}")


def _member(value: object) -> None:
    """Accept ``value`` as a member of a frozen container (module rules)."""
    kind = type(value)
    if kind in _SCALARS or kind is FrozenDict or kind is FrozenList:
        return
    if kind is float and math.isfinite(value):  # type: ignore[arg-type]
        return
    _not_json(value)


class FrozenDict(dict[str, Any]):
    """A JSON object that cannot change (spec: journal.frozen-values)."""

    __slots__ = ()

    def __init__(self, items: Mapping[str, Any] | Iterable[tuple[str, Any]] = ()) -> None:
        super().__init__(items)
        for key, value in dict.items(self):
            if type(key) is not str:
                raise InvalidArgument(f"a JSON object's keys are str, got {key!r}")
            _member(value)

    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __reduce__(self) -> Any:
        return (FrozenDict, (dict(self),))


class FrozenList(list[Any]):
    """A JSON array that cannot change (spec: journal.frozen-values)."""

    __slots__ = ()

    def __init__(self, items: Iterable[Any] = ()) -> None:
        super().__init__(items)
        for value in list.__iter__(self):
            _member(value)

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = clear = extend = insert = pop = remove = reverse = sort = _refuse

    def __reduce__(self) -> Any:
        return (FrozenList, (list(self),))


def is_frozen(value: object) -> bool:
    """Whether ``value`` is a frozen container (and so a JSON value that never changes)."""
    kind = type(value)
    return kind is FrozenDict or kind is FrozenList


def frozen_json(value: Any) -> Any:
    """``value`` as a frozen JSON value: objects become :class:`FrozenDict`, arrays (lists
    and tuples) :class:`FrozenList`, scalars stay as they are; a frozen container is
    returned as it is. Anything that is not a JSON value is InvalidArgument (spec:
    journal.frozen-values)."""
    kind = type(value)
    if kind is FrozenDict or kind is FrozenList or kind in _SCALARS:
        return value
    if kind is float:
        _member(value)
        return value
    if isinstance(value, Mapping):
        return FrozenDict({k: frozen_json(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return FrozenList([frozen_json(v) for v in value])
    _not_json(value)
