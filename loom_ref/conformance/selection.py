"""Which cases a run selects: the ``--only`` patterns.

Rules (``conformance/INTERPRETING.md`` section 1):

- No pattern selects every case.
- A comma separates patterns given at once (``journal.format,kernel.gates`` is the two
  patterns ``journal.format`` and ``kernel.gates``; :func:`split_patterns`): no case id or
  group holds a comma.
- A pattern without ``/`` names groups: a group (``kernel.replay``), a dotted prefix of groups
  (``kernel`` selects ``kernel.replay`` and ``kernel.gates``), or a glob over group names
  (``journal.*``).
- A pattern with ``/`` is a glob over case ids (``journal.format/crc-uppercase``,
  ``journal.*/crc-*``). Globs use ``*`` (any run of characters), ``?`` (one character) and
  ``[...]`` (a character class), matched case-sensitively.
- A selected case brings its generated variants, unless a pattern names variants: a pattern
  with ``#`` (``kernel.gates/two-gates#crash@*``) selects the case before its ``#`` and, of
  that case's variants, only those the whole pattern matches. (A variant runs only after its
  base case passed, so the base is always run too.)
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence

__all__ = ["selects_case", "selects_variant", "split_patterns", "unmatched"]


def split_patterns(values: Sequence[str]) -> list[str]:
    """The patterns of ``--only`` values, each of which may list several, comma-separated
    (empty items dropped)."""
    return [p.strip() for value in values for p in value.split(",") if p.strip()]


def _case_part(pattern: str) -> str:
    return pattern.split("#", 1)[0]


def _selects(pattern: str, case_id: str) -> bool:
    pattern = _case_part(pattern)
    if "/" in pattern:
        return fnmatch.fnmatchcase(case_id, pattern)
    group = case_id.split("/", 1)[0]
    return (group == pattern or group.startswith(pattern + ".")
            or fnmatch.fnmatchcase(group, pattern))


def selects_case(patterns: Sequence[str], case_id: str) -> bool:
    """Whether ``patterns`` select the case ``case_id``."""
    return not patterns or any(_selects(p, case_id) for p in patterns)


def selects_variant(patterns: Sequence[str], base_id: str, variant_id: str) -> bool:
    """Whether ``patterns`` select the variant ``variant_id`` of the case ``base_id``."""
    if not patterns:
        return True
    return any(fnmatch.fnmatchcase(variant_id, p) if "#" in p else _selects(p, base_id)
               for p in patterns)


def unmatched(patterns: Sequence[str], case_ids: Sequence[str]) -> list[str]:
    """The patterns that select none of ``case_ids`` (a misspelt ``--only`` is an error,
    never an empty pass)."""
    return [p for p in patterns if not any(_selects(p, c) for c in case_ids)]
