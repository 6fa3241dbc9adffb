"""The portable pattern dialect ``portable-1``: the regexes every Loom implementation reads alike.

Spec: ``spec/governance.md`` § 4.2.1 (anchors ``patterns.dialect``, ``patterns.grammar``,
``patterns.limits``, ``patterns.semantics``, ``patterns.reasons``). A pattern in the dialect
means the same to Python ``re``, ECMAScript with the ``u`` flag, RE2 / Go ``regexp`` and Rust
``regex``, each handed the pattern text unchanged, so an implementation in any of those
languages checks a pattern with this grammar and then compiles it natively.

The dialect starts from RFC 9485 (I-Regexp) and differs where search, not whole-string
matching, is what a validator does:

- No ``.`` (engines disagree on which line terminators it excludes: write ``[^\\n]``), no
  ``\\p{..}`` (Python ``re`` lacks it), and the only escapes are ``\\`` before one of
  ``^ $ \\ . * + ? ( ) [ ] { } |`` (and ``-`` inside a class) and ``\\n \\r \\t``.
- Added: ``(?:...)`` groups, and ``\\^ \\$`` escapes; no anchors at all (Python's ``$``
  also matches before a final newline, ECMAScript's does not).
- Restricted: a repeated operand cannot match the empty string (engines differ on empty
  iterations), counts are written without leading zeros, the product of nested counts is
  at most 1000 (RE2's limit), a class holds no ``&&``, ``~~`` or ``||`` (Rust's set operators,
  Python's reserved ones), and limits on length, expanded size and nesting keep every engine
  within its own limits.

:func:`check_pattern` parses a pattern and returns its :class:`PortablePattern` (the syntax
tree, its match widths and size), or raises :class:`PatternError` (code ``argument.pattern``)
whose ``reason`` (a :class:`Reason`) says why the pattern is outside the dialect, and whose
``position`` is the code point where the problem was found.
"""

from __future__ import annotations

import re
from typing import NoReturn

import attrs

from loom_ref.enums import LoomEnum
from loom_ref.errors import InvalidArgument

__all__ = [
    "DIALECT",
    "MAX_DEPTH",
    "MAX_LENGTH",
    "MAX_REPEAT",
    "MAX_SIZE",
    "Alternation",
    "CharClass",
    "Group",
    "Literal",
    "Measured",
    "Node",
    "PatternError",
    "PortablePattern",
    "Reason",
    "Repeat",
    "Sequence",
    "check_pattern",
]

DIALECT = "portable-1"
"""The dialect's name and version (spec: patterns.dialect)."""

MAX_LENGTH = 4096
"""At most this many code points in a pattern (V8 refuses long case-folded literals)."""
MAX_SIZE = 10_000
"""At most this expanded size (spec: patterns.limits): RE2's and Rust's program size limits."""
MAX_REPEAT = 1000
"""At most this product of nested counts (RE2: ``kMaxRepeat`` and its RepetitionWalker)."""
MAX_DEPTH = 32
"""At most this many nested groups (Rust's nest limit counts groups, repeats and classes)."""

SYNTAX_CHARS = frozenset("^$\\.*+?()[]{}|")
"""The characters ``\\`` may escape anywhere (ECMAScript's SyntaxCharacter); ``-`` too in a
class."""
_CONTROL = {"n": "\n", "r": "\r", "t": "\t"}
_CLASS_ESCAPES = frozenset("dDwWsSpPhHvVRXN")
_ANCHOR_ESCAPES = frozenset("bBAZzG")
_QUANTIFIER = re.compile(r"\{(0|[1-9][0-9]*)(?:(,)(0|[1-9][0-9]*)?)?\}")


class Reason(LoomEnum):
    """Why a pattern is outside the dialect: the ``reason`` of a :class:`PatternError`
    (spec: patterns.reasons). Stable values: cases and callers match on them."""

    SYNTAX = "syntax"  # not a regex: unbalanced (), unterminated [], dangling \, reversed range
    LENGTH = "length"  # more than MAX_LENGTH code points
    SURROGATE = "surrogate"  # a lone surrogate code point in the pattern
    ESCAPE = "escape"  # an escape the dialect lacks, or a { } ] that must be escaped
    CLASS_ESCAPE = "class-escape"  # \d \w \s \p{..} and their kin: engines disagree
    DOT = "dot"  # "." (engines disagree on line terminators)
    ANCHOR = "anchor"  # ^ $ \b \B \A \Z \z \G
    LOOKAROUND = "lookaround"  # (?= (?! (?<= (?<!
    BACKREFERENCE = "backreference"  # \1 .. \9, \k<..>, (?P=..)
    GROUP = "group"  # any (? form but (?: -- named groups, inline flags, atomic groups, comments
    QUANTIFIER = "quantifier"  # lazy, possessive or doubled quantifiers, a malformed {..}
    EMPTY_REPEAT = "empty-repeat"  # a repeated operand that can match the empty string
    REPEAT = "repeat"  # a product of nested counts above MAX_REPEAT
    SIZE = "size"  # an expanded size above MAX_SIZE
    NESTING = "nesting"  # groups nested deeper than MAX_DEPTH
    CLASS = "class"  # a class construct outside the dialect: [] [^] [[ && ~~ || a stray -
    FLAG = "flag"  # a flag other than IGNORECASE, MULTILINE, DOTALL


class PatternError(InvalidArgument):
    """A pattern outside the dialect (spec: patterns.reasons): ``details`` carry ``reason``
    (a :class:`Reason` value), ``position`` (a code point offset into the pattern, for the
    reader; which of several problems is reported is unspecified) and ``dialect``."""

    code = "argument.pattern"

    def __init__(self, reason: Reason, message: str, *, position: int,
                 where: str = "") -> None:
        super().__init__(f"{where}outside the {DIALECT} pattern dialect ({reason.value}) at "
                         f"{position}: {message}", reason=reason.value, position=position,
                         dialect=DIALECT)
        self.reason = reason
        self.why = message

    def naming(self, where: str) -> PatternError:
        """The same error, its message opening with ``where`` (the rule and its pattern)."""
        return PatternError(self.reason, self.why, position=self.details["position"],
                            where=f"{where}: ")


# -- the syntax tree ----------------------------------------------------------------------------
# Every node knows its match widths (spec: validators.width), its expanded size and the largest
# product of nested counts inside it (spec: patterns.limits).


@attrs.frozen(kw_only=True)
class Measured:
    """What every node knows: its match widths (``max_width`` ``None`` when unbounded), its
    expanded size and the largest product of nested counts inside it."""

    min_width: int = 1
    max_width: int | None = 1
    size: int = 1
    counts: int = 1


@attrs.frozen(kw_only=True)
class Literal(Measured):
    """One code point, matched as itself (or by case folding, with IGNORECASE)."""

    char: str


@attrs.frozen(kw_only=True)
class CharClass(Measured):
    """``[...]`` or ``[^...]``: inclusive code point ranges, in the order written."""

    negated: bool
    ranges: tuple[tuple[int, int], ...]

    def contains(self, char: str) -> bool:
        """Whether ``char`` is one of the ranges (before negation and case folding)."""
        point = ord(char)
        return any(lo <= point <= hi for lo, hi in self.ranges)


@attrs.frozen(kw_only=True)
class Sequence(Measured):
    """Nodes matched one after another (possibly none: the empty pattern)."""

    items: tuple[Node, ...]


@attrs.frozen(kw_only=True)
class Alternation(Measured):
    """``a|b|...``: the first branch that lets the whole pattern match (leftmost-first)."""

    branches: tuple[Node, ...]


@attrs.frozen(kw_only=True)
class Group(Measured):
    """``(...)`` (capturing) or ``(?:...)``; capturing changes no match span."""

    body: Node
    capturing: bool


@attrs.frozen(kw_only=True)
class Repeat(Measured):
    """``body`` repeated ``min`` to ``max`` times (``None``: unbounded), greedily. ``counted``
    is true for the ``{..}`` forms, whose counts multiply (spec: patterns.limits)."""

    body: Node
    min: int
    max: int | None
    counted: bool


Node = Literal | CharClass | Sequence | Alternation | Group | Repeat


def _sequence(items: list[Node]) -> Node:
    """The node matching ``items`` (at least one: :meth:`_Parser.sequence` builds the empty
    sequence itself) one after another; one item is that item."""
    if len(items) == 1:
        return items[0]
    widths = [n.max_width for n in items]
    return Sequence(items=tuple(items), min_width=sum(n.min_width for n in items),
                    max_width=None if None in widths else sum(w or 0 for w in widths),
                    size=sum(n.size for n in items), counts=max(n.counts for n in items))


def _alternation(branches: list[Node]) -> Node:
    if len(branches) == 1:
        return branches[0]
    widths = [n.max_width for n in branches]
    return Alternation(branches=tuple(branches), min_width=min(n.min_width for n in branches),
                       max_width=None if None in widths else max(w or 0 for w in widths),
                       size=sum(n.size for n in branches),
                       counts=max(n.counts for n in branches))


@attrs.frozen(kw_only=True)
class PortablePattern:
    """A pattern checked to be in the dialect: its text, syntax tree and widths."""

    source: str
    tree: Node

    @property
    def min_width(self) -> int:
        """The fewest characters a match can hold."""
        return self.tree.min_width

    @property
    def max_width(self) -> int | None:
        """The most characters a match can hold; ``None`` when unbounded."""
        return self.tree.max_width


# -- the parser ---------------------------------------------------------------------------------


def check_pattern(source: str) -> PortablePattern:
    """Parse ``source`` as a ``portable-1`` pattern; :class:`PatternError` (with its reason)
    if it is outside the dialect, ``InvalidArgument`` if it is not a string."""
    if not isinstance(source, str):
        raise InvalidArgument(f"a pattern is a string, got {type(source).__name__}")
    if len(source) > MAX_LENGTH:
        raise PatternError(Reason.LENGTH, f"{len(source)} code points, at most {MAX_LENGTH}",
                           position=MAX_LENGTH)
    for at, char in enumerate(source):
        if "\ud800" <= char <= "\udfff":
            raise PatternError(Reason.SURROGATE, f"lone surrogate U+{ord(char):04X}",
                               position=at)
    tree = _Parser(source).parse()
    return PortablePattern(source=source, tree=tree)


class _Parser:
    """Recursive descent over the grammar of spec: patterns.grammar (depth is bounded by
    MAX_DEPTH groups, so recursion stays shallow)."""

    def __init__(self, source: str) -> None:
        self.s = source
        self.i = 0
        self.depth = 0

    def fail(self, reason: Reason, message: str, at: int | None = None) -> NoReturn:
        raise PatternError(reason, message, position=self.i if at is None else at)

    def peek(self, k: int = 0) -> str | None:
        j = self.i + k
        return self.s[j] if j < len(self.s) else None

    def parse(self) -> Node:
        tree = self.alternation()
        if self.i < len(self.s):  # only a ")" stops an alternation early
            self.fail(Reason.SYNTAX, "unbalanced )")
        if tree.size > MAX_SIZE:
            self.fail(Reason.SIZE, f"expanded size {tree.size}, at most {MAX_SIZE}", at=0)
        return tree

    def alternation(self) -> Node:
        branches = [self.sequence()]
        while self.peek() == "|":
            self.i += 1
            branches.append(self.sequence())
        return _alternation(branches)

    def sequence(self) -> Node:
        items: list[Node] = []
        while (c := self.peek()) is not None and c not in "|)":
            items.append(self.piece())
        if not items:
            return Sequence(items=(), min_width=0, max_width=0, size=0, counts=1)
        return _sequence(items)

    def piece(self) -> Node:
        atom = self.atom()
        start = self.i
        bounds = self.quantifier()
        if bounds is None:
            return atom
        lo, hi, counted = bounds
        nxt = self.peek()
        if nxt is not None and nxt in "*+?{":
            self.fail(Reason.QUANTIFIER, "a quantifier after a quantifier (lazy, possessive or "
                      "doubled): write one greedy quantifier")
        if atom.min_width == 0:
            self.fail(Reason.EMPTY_REPEAT, "the repeated operand can match the empty string",
                      at=start)
        count = (hi if hi is not None else lo) if counted else 1
        counts = atom.counts * count if count > 0 else atom.counts
        if counts > MAX_REPEAT:
            self.fail(Reason.REPEAT, f"nested counts multiply to {counts}, at most "
                      f"{MAX_REPEAT}", at=start)
        body_max = atom.max_width
        max_width = (0 if hi == 0 else None if hi is None or body_max is None
                     else hi * body_max)
        return Repeat(body=atom, min=lo, max=hi, counted=counted,
                      min_width=lo * atom.min_width, max_width=max_width,
                      size=atom.size * max(count, 1), counts=counts)

    def quantifier(self) -> tuple[int, int | None, bool] | None:
        c = self.peek()
        if c is None or c not in "*+?{":
            return None
        if c != "{":
            self.i += 1
            return {"*": (0, None, False), "+": (1, None, False), "?": (0, 1, False)}[c]
        m = _QUANTIFIER.match(self.s, self.i)
        if m is None:
            self.fail(Reason.QUANTIFIER, "a { starts {n}, {n,} or {n,m} (digits, no leading "
                      "zero, no space); a literal { is written \\{")
        lo = int(m.group(1))
        hi = lo if m.group(2) is None else None if m.group(3) is None else int(m.group(3))
        if hi is not None and hi < lo:
            self.fail(Reason.SYNTAX, f"{{{lo},{hi}}}: the minimum is above the maximum")
        if lo > MAX_REPEAT or (hi is not None and hi > MAX_REPEAT):
            self.fail(Reason.REPEAT, f"a count above {MAX_REPEAT}")
        self.i = m.end()
        return lo, hi, True

    def atom(self) -> Node:
        c = self.peek()
        assert c is not None
        if c == "(":
            return self.group()
        if c == "[":
            return self.char_class()
        if c == "\\":
            return Literal(char=self.escape(in_class=False))
        if c in "*+?":
            self.fail(Reason.SYNTAX, "nothing to repeat")
        if c == "{":
            if _QUANTIFIER.match(self.s, self.i):
                self.fail(Reason.SYNTAX, "nothing to repeat")
            self.fail(Reason.ESCAPE, "a literal { is written \\{")
        if c in "]}":
            self.fail(Reason.ESCAPE, f"a literal {c} is written \\{c}")
        if c == ".":
            self.fail(Reason.DOT, "'.' is not in the dialect: write a class such as [^\\n]")
        if c in "^$":
            self.fail(Reason.ANCHOR, f"the anchor {c} is not in the dialect (a literal {c} is "
                      f"written \\{c})")
        self.i += 1
        return Literal(char=c)

    def group(self) -> Node:
        start = self.i
        self.i += 1  # "("
        capturing = True
        if self.peek() == "?":
            rest = self.s[self.i : self.i + 4]
            if rest.startswith("?:"):
                self.i += 2
                capturing = False
            elif rest.startswith(("?=", "?!", "?<=", "?<!")):
                self.fail(Reason.LOOKAROUND, "look-around is not in the dialect (RE2 and Rust "
                          "have none): check context in code", at=start)
            elif rest.startswith("?P="):
                self.fail(Reason.BACKREFERENCE, "backreferences are not in the dialect",
                          at=start)
            else:
                self.fail(Reason.GROUP, "the only (? form in the dialect is (?:...)", at=start)
        self.depth += 1
        if self.depth > MAX_DEPTH:
            self.fail(Reason.NESTING, f"groups nested deeper than {MAX_DEPTH}", at=start)
        body = self.alternation()
        if self.peek() != ")":
            self.fail(Reason.SYNTAX, "missing ), unterminated group", at=start)
        self.i += 1
        self.depth -= 1
        return Group(body=body, capturing=capturing, min_width=body.min_width,
                     max_width=body.max_width, size=body.size, counts=body.counts)

    def escape(self, *, in_class: bool) -> str:
        """The code point an escape at ``self.i`` stands for; the escape is consumed."""
        start = self.i
        c = self.peek(1)
        if c is None:
            self.fail(Reason.SYNTAX, "the pattern ends with a lone \\")
        self.i += 2
        if c in SYNTAX_CHARS or (in_class and c == "-"):
            return c
        if c in _CONTROL:
            return _CONTROL[c]
        if c in _CLASS_ESCAPES:
            self.fail(Reason.CLASS_ESCAPE, f"\\{c} means different things to different "
                      "engines: write the class out, such as [0-9]", at=start)
        if not in_class and c in _ANCHOR_ESCAPES:
            self.fail(Reason.ANCHOR, f"the anchor \\{c} is not in the dialect", at=start)
        if not in_class and (c in "123456789" or c == "k"):
            self.fail(Reason.BACKREFERENCE, "backreferences are not in the dialect", at=start)
        self.fail(Reason.ESCAPE, f"\\{c} is not an escape of the dialect: escape only "
                  "^ $ \\ . * + ? ( ) [ ] { } | (and - in a class), or write \\n \\r \\t",
                  at=start)

    def class_char(self) -> str:
        """One character of a class (a literal or an escape), at ``self.i``: the caller has
        seen that there is one (:meth:`char_class` reports the unterminated class)."""
        c = self.peek()
        assert c is not None
        if c == "\\":
            return self.escape(in_class=True)
        if c == "[":
            self.fail(Reason.CLASS, "a [ inside a class is written \\[ (a nested class or a "
                      "POSIX class to some engines)")
        if c in "&~|" and self.peek(1) == c:
            self.fail(Reason.CLASS, f"{c}{c} inside a class is a set operation to Rust (and "
                      f"reserved by Python): escape one of them")
        self.i += 1
        return c

    def char_class(self) -> Node:
        start = self.i
        self.i += 1  # "["
        negated = self.peek() == "^"
        if negated:
            self.i += 1
        if self.peek() == "]":
            self.fail(Reason.CLASS, "an empty class ([] or [^]) is not in the dialect; a "
                      "literal ] is written \\]", at=start)
        ranges: list[tuple[int, int]] = []
        first = True
        dash_only = False  # the class so far is a leading "-" alone
        while True:
            c = self.peek()
            if c is None:
                self.fail(Reason.SYNTAX, "unterminated character class", at=start)
            if c == "]":
                break
            if c == "-":
                # a - first or last is itself; a - the pattern ends after is last (the
                # class is then unterminated: syntax, spec patterns.reasons)
                if first or self.peek(1) in (None, "]"):
                    if dash_only:
                        self.fail(Reason.CLASS, "a class of two dashes, [--]: write [\\-]")
                    self.i += 1
                    ranges.append((ord("-"), ord("-")))
                    dash_only = first
                    first = False
                    continue
                self.fail(Reason.CLASS, "a - inside a class stands between two characters "
                          "of a range, or first or last (a literal - is written \\-)")
            low = self.class_char()
            high = low
            if self.peek() == "-" and self.peek(1) not in (None, "]"):
                self.i += 1
                if self.peek() == "-":
                    self.fail(Reason.CLASS, "a range ends with an unescaped -")
                high = self.class_char()
                if ord(high) < ord(low):
                    self.fail(Reason.SYNTAX, f"reversed range U+{ord(low):04X}-U+"
                              f"{ord(high):04X}")
            ranges.append((ord(low), ord(high)))
            first = dash_only = False
        self.i += 1  # "]"
        return CharClass(negated=negated, ranges=tuple(ranges))
