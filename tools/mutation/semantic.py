"""Semantic mutants: small hand-written changes, each breaking one rule of the seeds.

Each entry names the file, the exact text it replaces (which must occur there exactly once,
so the table cannot drift silently from the code), the new text, and the rule it breaks
(a spec anchor, with the seed decision it comes from).
"""

from __future__ import annotations

import os

from .sites import Mutant

__all__ = ["SEMANTIC", "semantic_mutants"]

#: (file, old text, new text, rule broken)
SEMANTIC: list[tuple[str, str, str, str]] = []


def _locate(source: str, old: str, rel: str) -> tuple[int, int, int, int]:
    count = source.count(old)
    if count != 1:
        raise ValueError(f"semantic mutant of {rel}: {old!r} occurs {count} times (expected 1)")
    begin = source.index(old)
    before = source[:begin].encode("utf-8")
    line = before.count(b"\n") + 1
    col = len(before) - (before.rfind(b"\n") + 1)
    after = (source[:begin] + old).encode("utf-8")
    end_line = after.count(b"\n") + 1
    end_col = len(after) - (after.rfind(b"\n") + 1)
    return line, col, end_line, end_col


def semantic_mutants(root: str) -> list[Mutant]:
    """The table as mutants of the files under ``root``."""
    out = []
    for rel, old, new, rule in SEMANTIC:
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            source = f.read()
        line, col, end_line, end_col = _locate(source, old, rel)
        first = old.strip().splitlines()[0] if old.strip() else old
        out.append(Mutant(file=rel, line=line, col=col, end_line=end_line, end_col=end_col,
                          op="semantic", change=f"{rule}: {first[:50]!r} -> {new.strip()[:40]!r}",
                          function="<semantic>",
                          source_line=source.splitlines()[line - 1].strip(),
                          replacement=new, rule=rule))
    return out
