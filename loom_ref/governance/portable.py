"""Compiling a ``portable-1`` pattern with Python's ``re`` so that it means what the dialect says.

Spec: ``spec/governance.md`` § 4.2.1 (``patterns.semantics``, ``patterns.flags``).

- Without ``IGNORECASE`` the pattern text is compiled unchanged: in the dialect, Python's
  ``re`` and the other engines agree (``tests/governance/test_dialect_differential.py``
  holds Python to Node on every match span).
- ``IGNORECASE`` is Unicode *simple case folding* (CaseFolding.txt, statuses C and S): two
  characters match each other when their simple foldings are equal, which is what
  ECMAScript's ``iu``, RE2 / Go's ``(?i)`` and Rust's ``(?i)`` do. Python's ``re.IGNORECASE``
  agrees except on one group: it also folds ``I`` and ``i`` with U+0130 (I with dot above)
  and U+0131 (dotless i), which simple case folding leaves alone. So under ``IGNORECASE`` the
  pattern is re-emitted from its syntax tree with those four characters matched exactly: a
  literal ``i`` becomes ``(?-i:[Ii])``, and a class decides them case-sensitively before
  ``re`` folds the rest. The re-emission also writes every character outside the BMP as a
  one-character range: CPython 3.11's ``re`` folds an astral literal of a set (``[a\U00010400]``,
  and an alternation of single characters, which it compiles into a set) by its original
  code point, so ``a|\U00010400`` under ``re.IGNORECASE`` does not even match U+10400 itself;
  a range is folded right (found by the differential test).
- ``MULTILINE`` and ``DOTALL`` are accepted and change nothing: the dialect has no anchors
  and no ``.``. Every other ``re`` flag is outside the dialect (``argument.pattern``, reason
  ``flag``): ``VERBOSE`` changes what whitespace means, ``ASCII`` what folding does.
"""

from __future__ import annotations

import re

from loom_ref.governance.dialect import (
    Alternation,
    CharClass,
    Group,
    Literal,
    Node,
    PatternError,
    PortablePattern,
    Reason,
    Sequence,
)

__all__ = ["PORTABLE_FLAGS", "compile_portable"]

PORTABLE_FLAGS = re.IGNORECASE | re.MULTILINE | re.DOTALL
"""The ``re`` flags a portable pattern may be compiled with (spec: patterns.flags)."""

_FOLD_GROUP = "Iiİı"  # what Python folds together and simple case folding keeps apart
_IS_FOLD_GROUP = "(?![Iiİı])"


def compile_portable(pattern: PortablePattern, flags: int = 0) -> re.Pattern[str]:
    """``pattern`` compiled with Python's ``re``, meaning what spec: patterns.semantics says."""
    if flags & ~PORTABLE_FLAGS:
        raise PatternError(Reason.FLAG, f"re flags {flags!r}: only IGNORECASE, MULTILINE and "
                           "DOTALL are in the dialect", position=0)
    if not flags & re.IGNORECASE:
        return re.compile(pattern.source)
    return re.compile(_emit(pattern.tree), re.IGNORECASE)


def _escape_in_class(point: int) -> str:
    return f"\\U{point:08x}"


def _single(point: int) -> str:
    """One code point of a class under IGNORECASE: a range when astral (see the docstring)."""
    if point > 0xFFFF:
        return f"{_escape_in_class(point)}-{_escape_in_class(point)}"
    return _escape_in_class(point)


def _class(node: CharClass) -> str:
    """A class under IGNORECASE: the fold group decided case-sensitively (each of ``I``/``i``
    matches when the class holds either; U+0130 and U+0131 only themselves), the rest by
    ``re``'s folding, which is simple case folding outside that group."""
    body = "".join(_single(lo) if lo == hi
                   else f"{_escape_in_class(lo)}-{_escape_in_class(hi)}" for lo, hi in node.ranges)
    exact = {c for c in "İı" if node.contains(c)}
    if node.contains("I") or node.contains("i"):
        exact |= {"I", "i"}
    if node.negated:
        exact = set(_FOLD_GROUP) - exact
    rest = f"{_IS_FOLD_GROUP}[{'^' if node.negated else ''}{body}]"
    if not exact:
        return f"(?:{rest})"
    return f"(?:(?-i:[{''.join(sorted(exact))}])|{rest})"


def _emit(node: Node) -> str:
    """Python ``re`` source for ``node`` under ``re.IGNORECASE`` (see the module docstring)."""
    if isinstance(node, Literal):
        if node.char in "Ii":
            return "(?-i:[Ii])"
        if node.char in "İı":
            return f"(?-i:{node.char})"
        if ord(node.char) > 0xFFFF:
            return f"[{_single(ord(node.char))}]"
        return re.escape(node.char)
    if isinstance(node, CharClass):
        return _class(node)
    if isinstance(node, Sequence):
        return "".join(_emit(item) for item in node.items)
    if isinstance(node, Alternation):
        return "|".join(_emit(branch) for branch in node.branches)
    if isinstance(node, Group):
        return f"({'' if node.capturing else '?:'}{_emit(node.body)})"
    if node.counted:
        bounds = (f"{{{node.min}}}" if node.max == node.min
                  else f"{{{node.min},}}" if node.max is None else f"{{{node.min},{node.max}}}")
    else:
        bounds = {(0, None): "*", (1, None): "+", (0, 1): "?"}[(node.min, node.max)]
    return f"(?:{_emit(node.body)}){bounds}"
