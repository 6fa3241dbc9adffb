"""Hypothesis strategies for ``portable-1`` patterns and the texts they are run on.

A pattern is drawn as a tree and printed as its source: literals (escaped where the dialect
says so, ``\\n \\r \\t`` sometimes escaped), classes with ranges, capturing and non-capturing
groups, alternation, and every greedy quantifier over operands that cannot match the empty
string (``spec/governance.md``, patterns.grammar and patterns.limits). The alphabet is small,
so that texts drawn from it match often, and holds the characters where engines are known to
differ: case-folding oddities (U+017F, U+212A, U+0130, U+0131, U+00DF/U+1E9E, the sigmas),
line terminators (``\\r``, U+2028), an astral character, and every syntax character.
"""

from __future__ import annotations

from typing import NamedTuple

from hypothesis import strategies as st

__all__ = ["CHECKER_ALPHABET", "TEXT_ALPHABET", "Drawn", "patterns", "texts"]

SYNTAX = "^$\\.*+?()[]{}|"
LETTERS = ["a", "b", "c", "A", "B", "k", "K", "s", "S", "i", "I", "0", "1", "9", " ", "-", "_",
           "é", "É", "ſ", "\u212a", "\u0130", "\u0131", "ß", "\u1e9e", "σ", "ς", "Σ",
           "\U0001F600", "\U00010428", "\U00010400", "\u2028", "\r", "\n", "\t", "@", ","]
TEXT_ALPHABET = "".join(LETTERS) + SYNTAX + "\u0301\ufeff&~"
CHECKER_ALPHABET = "()[]{}|*+?\\^$.-:=!<>,0123456789aPdDknrt&~ \u00e9\U0001F600\ud800"


class Drawn(NamedTuple):
    """A drawn piece of pattern: its source, whether it can match "", whether it is an atom
    (may take a quantifier as it is)."""

    source: str
    nullable: bool
    atom: bool


def _literal_source(char: str, escape_control: bool) -> str:
    if char in SYNTAX:
        return "\\" + char
    if escape_control and char in "\n\r\t":
        return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}[char]
    return char


@st.composite
def _literal(draw: st.DrawFn) -> Drawn:
    char = draw(st.sampled_from(LETTERS + list(SYNTAX)))
    return Drawn(_literal_source(char, draw(st.booleans())), False, True)


def _class_char(char: str) -> str:
    if char in SYNTAX or char == "-":
        return "\\" + char
    return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(char, char)


@st.composite
def _class(draw: st.DrawFn) -> Drawn:
    pool = LETTERS + [c for c in SYNTAX]
    items = []
    for _ in range(draw(st.integers(1, 4))):
        a, b = sorted(draw(st.lists(st.sampled_from(pool), min_size=2, max_size=2)), key=ord)
        items.append(_class_char(a) if draw(st.booleans()) else
                     f"{_class_char(a)}-{_class_char(b)}")
    negated = "^" if draw(st.booleans()) else ""
    return Drawn(f"[{negated}{''.join(items)}]", False, True)


def _group(inner: Drawn, capturing: bool) -> Drawn:
    return Drawn(f"({'' if capturing else '?:'}{inner.source})", inner.nullable, True)


@st.composite
def _extend(draw: st.DrawFn, children: st.SearchStrategy[Drawn]) -> Drawn:
    kind = draw(st.sampled_from(["seq", "alt", "group", "repeat", "repeat"]))
    if kind == "seq":
        parts = draw(st.lists(children, min_size=2, max_size=3))
        return Drawn("".join(p.source for p in parts), all(p.nullable for p in parts), False)
    if kind == "alt":
        parts = draw(st.lists(children, min_size=2, max_size=3))
        if draw(st.booleans()):
            parts.append(Drawn("", True, False))  # an empty branch
        inner = Drawn("|".join(p.source for p in parts), any(p.nullable for p in parts), False)
        return _group(inner, draw(st.booleans()))
    child = draw(children)
    if kind == "group" or child.nullable:
        return _group(child, draw(st.booleans()))
    operand = child if child.atom else _group(child, draw(st.booleans()))
    lo = draw(st.integers(0, 3))
    hi = draw(st.integers(lo, 3))
    quantifier = draw(st.sampled_from(["*", "+", "?", f"{{{lo}}}", f"{{{lo},}}",
                                       f"{{{lo},{hi}}}"]))
    nullable = quantifier in ("*", "?") or quantifier.startswith("{0")
    return Drawn(operand.source + quantifier, nullable, False)


def patterns() -> st.SearchStrategy[str]:
    """Sources of patterns in the dialect (a draw may exceed the nested-count limit; the test
    assumes it is in)."""
    tree = st.recursive(st.one_of(_literal(), _class()), _extend, max_leaves=8)
    top = st.one_of(tree, st.lists(tree, min_size=2, max_size=3).map(
        lambda ps: Drawn("|".join(p.source for p in ps), False, False)))
    return top.map(lambda d: d.source)


def texts() -> st.SearchStrategy[str]:
    """Short texts over the patterns' alphabet (and a few characters patterns never hold)."""
    return st.text(alphabet=TEXT_ALPHABET, max_size=12)
