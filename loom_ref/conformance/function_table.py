"""The function table of ``conformance/INTERPRETING.md`` section 3, generated from
``capabilities.json`` so that it cannot drift from what the suite knows.

Rules: every capability of kind ``function`` has one row (its name, its spec chapter, its
description), in name order; the table sits between two marker comments in
``INTERPRETING.md``; ``loom-ref conformance trace --write`` rewrites it (beside
``spec/TRACE.md``), ``loom-ref conformance trace`` reports it when it is not current, and a
test checks that it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from loom_ref.errors import ConformanceError

__all__ = ["BEGIN", "END", "function_table", "table_in", "with_table"]

BEGIN = ("<!-- the function table: generated from capabilities.json by "
         "`loom-ref conformance trace --write`; do not edit -->")
END = "<!-- end of the function table -->"


def function_table(capabilities: Mapping[str, Mapping[str, Any]]) -> str:
    """The Markdown table of every function capability (no trailing newline)."""
    lines = ["| function | spec | what it is |", "|---|---|---|"]
    for name, cap in sorted(capabilities.items()):
        if cap.get("kind") != "function":
            continue
        spec = str(cap.get("spec", ""))
        link = f"[{spec.rsplit('/', 1)[-1]}](../{spec})" if spec.startswith("spec/") else spec
        description = str(cap.get("description", "")).replace("|", "\\|")
        lines.append(f"| `{name}` | {link} | {description} |")
    return "\n".join(lines)


def _bounds(text: str, where: str) -> tuple[int, int]:
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise ConformanceError(f"{where} lacks the function table's markers",
                               code="conformance.no-checkout")
    return start + len(BEGIN), end


def table_in(text: str, where: str = "INTERPRETING.md") -> str:
    """The table as it stands between the markers of ``text``."""
    start, end = _bounds(text, where)
    return text[start:end].strip("\n")


def with_table(text: str, capabilities: Mapping[str, Mapping[str, Any]],
               where: str = "INTERPRETING.md") -> str:
    """``text`` with the table between its markers regenerated."""
    start, end = _bounds(text, where)
    return text[:start] + "\n" + function_table(capabilities) + "\n" + text[end:]


def interpreting(repo: Path) -> Path:
    """The checkout's ``conformance/INTERPRETING.md``."""
    return repo / "conformance" / "INTERPRETING.md"


__all__ += ["interpreting"]
