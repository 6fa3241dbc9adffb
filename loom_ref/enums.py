"""The base of the enums that key loom_ref's state-machine tables.

A base module, below every layer (like :mod:`loom_ref.errors`). The journal's transition table
and the stream checker's block and stream tables are dictionaries keyed by enum members and
looked up once per event or chunk. ``enum.Enum`` hashes a member by its name in Python code,
which dominated those lookups in ``bench/bench_kernel.py`` and ``bench/bench_stream.py``.
Members are singletons compared by identity, so identity hashing is exact and C-fast.

:func:`plain_members` serves the loops that read members by name once per event.
"""

from __future__ import annotations

import enum
from types import SimpleNamespace
from typing import Any

__all__ = ["TableEnum", "plain_members"]


class TableEnum(enum.Enum):
    """An ``Enum`` whose members hash by identity (see the module docstring)."""

    __hash__ = object.__hash__


def plain_members(cls: type[enum.Enum]) -> Any:
    """``cls``'s members as attributes of a plain namespace: ``K = plain_members(EventKind)``
    then ``kind is K.STEP_STARTED``. Done for speed in per-event loops: on Python 3.11 reading
    ``EventKind.STEP_STARTED`` costs several times a plain attribute read."""
    return SimpleNamespace(**cls.__members__)
