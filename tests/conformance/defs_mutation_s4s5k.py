"""Definitions of the journal.* case that closes a journal survivor of the fresh mutation
samples 473986, 321483 and 238680 (issue 30): ``journal.power-loss``'s ``directories`` given
as an object whose members are absolute paths, refused like any other value that is not a
list (``journal.power-loss-vector``: "a non-empty list of absolute paths"), though iterating
the object would give absolute paths."""

from __future__ import annotations

from typing import Any

from .defs_journal_disk import create, power_loss

DEFINITIONS: list[dict[str, Any]] = [
    power_loss("directories-an-object",
               "The simulated disk's directories are a list: an object whose member names "
               "are absolute paths is refused (argument.invalid) before any operation runs.",
               [create()], lambda r: r == {"error": {"code": "argument.invalid"}},
               directories={"/disk": True}),
]
