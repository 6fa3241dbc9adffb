"""The bases of loom_ref's enums: every enum refuses an unknown value, and the enums that key
the state-machine tables hash fast.

A base module, below every layer (beside :mod:`loom_ref.errors`, which it uses).
:class:`LoomEnum` is the base of every enum: ``Mode("x")`` raises :class:`InvalidArgument`
(spec: errors.invalid-argument), still a ``ValueError`` as ``enum.Enum`` raises.

:class:`TableEnum` keys tables: the journal's transition table and the stream checker's
block and stream tables are dictionaries keyed by enum members and looked up once per event
or chunk. ``enum.Enum`` hashes a member by its name in Python code,
which dominated those lookups in ``bench/bench_kernel.py`` and ``bench/bench_stream.py``.
Members are singletons compared by identity, so identity hashing is exact and C-fast.

:func:`plain_members` serves the loops that read members by name once per event.
"""

from __future__ import annotations

import enum
from types import SimpleNamespace
from typing import Any

from loom_ref.errors import InvalidArgument

__all__ = ["LoomEnum", "TableEnum", "plain_members"]


class LoomEnum(enum.Enum):
    """An ``Enum`` whose lookup by an unknown value raises :class:`InvalidArgument`."""

    @classmethod
    def _missing_(cls, value: object) -> Any:
        """``cls(value)`` for a value no member has (spec: errors.invalid-argument)."""
        expected = ", ".join(repr(m.value) for m in cls)
        raise InvalidArgument(f"{value!r} is not a value of {cls.__name__}: expected one of "
                              f"{expected}")


class TableEnum(LoomEnum):
    """An ``Enum`` whose members hash by identity (see the module docstring)."""

    __hash__ = object.__hash__


def plain_members(cls: type[enum.Enum]) -> Any:
    """``cls``'s members as attributes of a plain namespace: ``K = plain_members(EventKind)``
    then ``kind is K.STEP_STARTED``. Done for speed in per-event loops: on Python 3.11 reading
    ``EventKind.STEP_STARTED`` costs several times a plain attribute read."""
    return SimpleNamespace(**cls.__members__)
