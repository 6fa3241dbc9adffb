"""An expected/actual diff of two JSON values, for people: what replay found in the journal
against what the body did (``kernel.replay-compare``).

Both values are flattened to their leaves, each named by its path (``toolId``,
``output.items[2].qty``); a row pairs the two sides' leaf at one path and says whether they
differ. A side that has no leaf at a path shows ``(absent)``. Scalars print as JSON
(``"refund"``, ``30``, ``null``), so a string and a number that look alike stay apart.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import attrs

__all__ = ["ABSENT", "DiffRow", "diff_rows", "render_diff"]

#: The cell of a side that has no leaf at a path.
ABSENT = "(absent)"
_WIDE = 36  # a cell wider than this switches the rendering from a table to blocks


@attrs.frozen(kw_only=True)
class DiffRow:
    """One path, the JSON text of each side's leaf there (or :data:`ABSENT`), and whether
    they differ."""

    path: str
    expected: str
    actual: str
    differs: bool


def _leaves(value: Any, path: str, out: dict[str, str]) -> None:
    if isinstance(value, Mapping) and value:
        for key, item in value.items():
            _leaves(item, f"{path}.{key}" if path else str(key), out)
    elif isinstance(value, list | tuple) and value:
        for i, item in enumerate(value):
            _leaves(item, f"{path}[{i}]", out)
    else:
        out[path or "(value)"] = json.dumps(value, ensure_ascii=False, sort_keys=True)


def diff_rows(expected: Any, actual: Any) -> list[DiffRow]:
    """The rows of the diff, in the order the paths first appear (expected's first)."""
    left: dict[str, str] = {}
    right: dict[str, str] = {}
    _leaves(expected, "", left)
    _leaves(actual, "", right)
    paths = list(left) + [p for p in right if p not in left]
    rows = []
    for path in paths:
        a, b = left.get(path, ABSENT), right.get(path, ABSENT)
        rows.append(DiffRow(path=path, expected=a, actual=b, differs=a != b))
    return rows


def render_diff(expected: Any, actual: Any, *, left: str = "journal holds",
                right: str = "body did", indent: str = "  ") -> list[str]:
    """The diff as lines: a table when every cell is short, else one block per differing
    path (equal paths then only counted). Differing rows end with ``<- differs``."""
    rows = diff_rows(expected, actual)
    cells = [c for r in rows for c in (r.path, r.expected, r.actual)]
    if all(len(c) <= _WIDE for c in cells):
        w0 = max([len("where"), *(len(r.path) for r in rows)])
        w1 = max([len(left), *(len(r.expected) for r in rows)])
        w2 = max([len(right), *(len(r.actual) for r in rows)])
        lines = [f"{indent}{'where':<{w0}}  {left:<{w1}}  {right}"]
        for r in rows:
            line = f"{indent}{r.path:<{w0}}  {r.expected:<{w1}}  {r.actual:<{w2}}"
            lines.append((line + "  <- differs") if r.differs else line.rstrip())
        return lines
    lines = []
    label = max(len(left), len(right)) + 1
    for r in rows:
        if r.differs:
            lines.append(f"{indent}{r.path}  <- differs")
            lines.append(f"{indent}    {left + ':':<{label}} {r.expected}")
            lines.append(f"{indent}    {right + ':':<{label}} {r.actual}")
    same = sum(1 for r in rows if not r.differs)
    if same:
        lines.append(f"{indent}({same} other path{'s' if same != 1 else ''} equal)")
    return lines
