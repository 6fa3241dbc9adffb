"""The base of the enums that key loom_ref's state-machine tables.

A base module, below every layer (like :mod:`loom_ref.errors`). The journal's transition table
and the stream checker's block and stream tables are dictionaries keyed by enum members and
looked up once per event or chunk. ``enum.Enum`` hashes a member by its name in Python code,
which dominated those lookups in ``bench/bench_kernel.py`` and ``bench/bench_stream.py``.
Members are singletons compared by identity, so identity hashing is exact and C-fast.
"""

from __future__ import annotations

import enum

__all__ = ["TableEnum"]


class TableEnum(enum.Enum):
    """An ``Enum`` whose members hash by identity (see the module docstring)."""

    __hash__ = object.__hash__
