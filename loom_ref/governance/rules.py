"""Pattern rules: the regex-based checks that ``pii_validator`` and ``deny_patterns`` are made of.

Rules (``spec/governance.md`` § Validators):

- A rule is a name, a compiled regex, the regex's match widths (``max_width`` ``None`` when
  unbounded) and optional *conditions* checked in code on each candidate match: ``accept``
  on the matched text (the Luhn check of a card number) and ``boundary`` on the text around
  it (a card run's maximality), so that no rule needs look-around (spec:
  validators.rule-conditions). A rule whose regex can match the empty string is refused: it
  would match every text (spec: validators.rule-nonempty).
- The regex is in the portable dialect ``portable-1`` (spec: patterns.dialect), checked by
  :func:`~loom_ref.governance.dialect.check_pattern`, its widths computed from the dialect's
  syntax tree. ``dialect="python-re"`` is an **extension** (spec: patterns.python-re): the
  regex is Python ``re`` syntax, unchecked, its widths taken from Python's own regex parser
  (``re._parser``, ``getwidth``; where that is unavailable the rule counts as unbounded).
- A scan (spec: validators.rule-conditions): from its start position, the rule's regex finds
  the leftmost match (the engine's leftmost-first match at the leftmost start where there is
  one); if the conditions accept it, that is the rule's match; if not, the scan resumes one
  character after that match's start. Rules are tried in declaration order; the first rule
  with an accepted match is reported (spec: validators.rule-order). :meth:`PatternRule.finditer`
  goes on after an accepted match from its end (the matches a redactor masks).
- An explicit ``max_width`` may bound an unbounded regex: it is the caller's promise that
  wider matches need not be caught by the delta form's tail scan or by hold-back (spec:
  validators.width).
- The tail scan (spec: guards.tail-scan): a match that ends inside the newest delta and is at
  most ``w`` characters wide starts no earlier than ``fresh - (w - 1)``, where ``fresh`` is the
  offset where the delta begins. So a bounded rule re-scans only from there; the conditions
  still see the whole text handed to the scan, before that position included. An unbounded
  rule scans the whole text it is handed. Either way a match lying wholly before ``fresh`` is
  not reported (an artefact of the window's cut): the scan goes on past it as past a refused
  candidate.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterator
from typing import Any

import attrs

from loom_ref.errors import InvalidArgument
from loom_ref.governance.dialect import DIALECT, PatternError, check_pattern
from loom_ref.governance.portable import compile_portable

__all__ = [
    "DIALECTS",
    "PYTHON_RE",
    "Boundary",
    "PatternRule",
    "check_scan_args",
    "compile_rule",
    "luhn_ok",
    "regex_width",
]

PYTHON_RE = "python-re"
"""The **extension** dialect: Python ``re`` syntax, for Python-only rules (spec:
patterns.python-re)."""
DIALECTS = (DIALECT, PYTHON_RE)

Boundary = Callable[[str, int, int], bool]
"""A rule's boundary condition: ``boundary(text, start, end)`` is true when the candidate match
``text[start:end]`` counts, judged by the characters around it (spec:
validators.rule-conditions)."""

# A regex whose parser-reported maximum exceeds this counts as unbounded.
_UNBOUNDED = 1 << 30


def regex_width(pattern: re.Pattern[str]) -> tuple[int, int | None]:
    """``(min, max)`` match width of a Python ``re`` pattern (the ``python-re`` extension);
    ``max`` is ``None`` when unbounded. Where the interpreter's regex parser is not available to
    ask, ``(1, None)``. Portable rules take their widths from the dialect's syntax tree."""
    try:
        parser = importlib.import_module("re._parser")
        lo, hi = parser.parse(pattern.pattern, pattern.flags).getwidth()
    except (ImportError, AttributeError):  # other interpreters (CPython 3.11 on has it)
        return 1, None
    return int(lo), (None if hi >= _UNBOUNDED else int(hi))


def luhn_ok(digits: str) -> bool:
    """The Luhn (mod 10) check over a string of ASCII digits; other characters are ignored.
    (spec: validators.pii-card)
    """
    if not isinstance(digits, str):  # spec: errors.invalid-argument
        raise InvalidArgument(f"luhn_ok takes a str, got {type(digits).__name__}")
    total = 0
    for position, ch in enumerate(reversed([c for c in digits if "0" <= c <= "9"])):
        d = ord(ch) - 48
        if position % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def _checked(check: Callable[[Any], bool], what: str) -> Callable[..., None]:
    """An attrs validator refusing a value for which ``check`` is false."""
    def validate(_inst: object, attr: attrs.Attribute[Any], value: object) -> None:
        if not check(value):
            raise InvalidArgument(f"PatternRule.{attr.name} must be {what}, got {value!r}")
    return validate


def _text(value: object) -> bool:
    return isinstance(value, str) and value != ""


def _count(minimum: int) -> Callable[[Any], bool]:
    return lambda value: type(value) is int and value >= minimum


def _or_none(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda value: value is None or check(value)


@attrs.frozen(kw_only=True)
class PatternRule:
    """One named regex check. Build it with :func:`compile_rule`, which checks the regex and
    computes the widths.

    ``max_width`` bounds how wide a match can be (``None``: unbounded); ``accept`` (optional)
    and ``boundary`` (optional) are the conditions on a candidate match, by its text and by the
    text around it (spec: validators.rule-conditions); ``dialect`` is ``"portable-1"`` or the
    ``"python-re"`` extension; ``required`` (optional) is a literal every match contains, so a
    scan region without it is skipped, and ``required_offset`` (optional) says the literal
    starts at most that many characters after the match's start, so the scan can begin that
    far before the literal's first occurrence (optimizations that never change a verdict).
    Each field is checked for its type when the record is built (spec:
    errors.invalid-argument); :func:`compile_rule` checks what the fields mean.
    """

    name: str = attrs.field(validator=_checked(_text, "a non-empty string"))
    pattern: re.Pattern[str] = attrs.field(validator=_checked(
        lambda v: isinstance(v, re.Pattern) and isinstance(v.pattern, str), "a compiled str regex"))
    min_width: int = attrs.field(validator=_checked(_count(0), "an int >= 0"))
    max_width: int | None = attrs.field(validator=_checked(_or_none(_count(1)),
                                                           "an int >= 1 or None"))
    accept: Callable[[str], bool] | None = attrs.field(
        default=None, validator=_checked(_or_none(callable), "callable or None"))
    boundary: Boundary | None = attrs.field(
        default=None, validator=_checked(_or_none(callable), "callable or None"))
    dialect: str = attrs.field(default=DIALECT, validator=_checked(
        lambda v: v in DIALECTS, f"one of {DIALECTS}"))
    required: str | None = attrs.field(
        default=None, validator=_checked(_or_none(_text), "a non-empty string or None"))
    required_offset: int | None = attrs.field(
        default=None, validator=_checked(_or_none(_count(0)), "an int >= 0 or None"))

    def first_match(self, text: str, fresh: int = 0) -> re.Match[str] | None:
        """The leftmost accepted match of ``text`` that ends after offset ``fresh``.

        ``fresh=0`` scans the whole text (the output form). With ``fresh > 0`` a bounded rule
        starts scanning at ``fresh - (max_width - 1)``, and a match lying wholly before
        ``fresh`` is not reported: the scan goes on one character after its start, as after a
        refused candidate (spec: guards.tail-scan).
        """
        check_scan_args(text, fresh)
        return self._first_match(text, fresh)

    def _first_match(self, text: str, fresh: int) -> re.Match[str] | None:
        """:meth:`first_match` of arguments a guard or a scan checked already (this runs per
        rule per delta: spec: guards.tail-scan)."""
        start = 0 if self.max_width is None else max(0, fresh - (self.max_width - 1))
        if self.required is not None:
            at = text.find(self.required, start)
            if at < 0:
                return None
            if self.required_offset is not None:
                start = max(start, at - self.required_offset)
        if self.accept is None and self.boundary is None and fresh == 0:
            return self.pattern.search(text, start)  # no conditions: the first candidate
        return next(self._scan(text, start, fresh), None)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        """Every accepted match of ``text``, left to right, each scan resuming at the end of the
        last accepted match (the matches a redactor masks: spec: deltas.redaction-inspects)."""
        check_scan_args(text, 0)
        return self._scan(text, 0)

    def _scan(self, text: str, start: int, fresh: int = 0) -> Iterator[re.Match[str]]:
        """spec: validators.rule-conditions -- the leftmost candidate from ``start``; a
        candidate the conditions refuse resumes the scan one character after its start, and
        so does one that ends at or before ``fresh`` (spec: guards.tail-scan: a match lying
        wholly before the delta is an artefact of the window's cut, never reported)."""
        pos = start
        while (match := self.pattern.search(text, pos)) is not None:
            if match.end() > fresh and self._accepts(text, match):
                yield match
                pos = match.end() if match.end() > match.start() else match.end() + 1
            else:
                pos = match.start() + 1
            if pos > len(text):  # past an empty match at the end, which search finds again
                return

    def _accepts(self, text: str, match: re.Match[str]) -> bool:
        if self.boundary is not None and not self.boundary(text, match.start(), match.end()):
            return False
        return self.accept is None or bool(self.accept(match.group()))


def check_scan_args(text: object, fresh: object) -> None:
    """Raise InvalidArgument unless ``text`` is a ``str`` and ``fresh`` an int >= 0 (spec:
    errors.invalid-argument)."""
    if not isinstance(text, str):
        raise InvalidArgument(f"a scanned text is a str, got {type(text).__name__}")
    if type(fresh) is not int or fresh < 0:
        raise InvalidArgument(f"fresh must be an offset (an int >= 0), got {fresh!r}")


def compile_rule(
    name: str,
    regex: str | re.Pattern[str],
    flags: int = 0,
    *,
    dialect: str = DIALECT,
    max_width: int | None = None,
    accept: Callable[[str], bool] | None = None,
    boundary: Boundary | None = None,
    required: str | None = None,
    required_offset: int | None = None,
) -> PatternRule:
    """Compile ``regex`` into a :class:`PatternRule`.

    ``argument.pattern`` (a :class:`~loom_ref.governance.dialect.PatternError`, with its
    ``reason``) for a regex outside the ``portable-1`` dialect or a flag the dialect lacks
    (spec: patterns.reasons); ``argument.invalid`` for a regex that can match the empty
    string, an explicit ``max_width`` smaller than the regex's own bounded width (spec:
    validators.rule-nonempty, validators.width), and, with ``dialect="python-re"``, a regex
    Python's ``re`` cannot compile. A compiled ``re.Pattern`` is read as its source and flags.
    """
    if not isinstance(name, str) or not name:
        raise InvalidArgument(f"rule name must be a non-empty string, got {name!r}")
    _check_options(name, flags, dialect, accept, boundary, required, required_offset)
    if isinstance(regex, re.Pattern):
        source, flags = _compiled_source(name, regex, flags)
    elif isinstance(regex, str):
        source = regex
    else:
        raise InvalidArgument(f"rule {name!r}: regex must be a string, got {regex!r}")
    if dialect == DIALECT:  # spec: patterns.dialect
        try:
            checked = check_pattern(source)
            pattern = compile_portable(checked, flags)
        except PatternError as err:
            raise err.naming(f"rule {name!r}, pattern {source!r}") from None
        lo, hi = checked.min_width, checked.max_width
    else:
        pattern, lo, hi = _compile_python(name, source, flags)
    if lo == 0 or pattern.search("") is not None:
        raise InvalidArgument(f"rule {name!r}: regex {source!r} can match empty text")
    if max_width is not None:
        _check_max_width(name, max_width, hi)
        hi = max_width
    return PatternRule(
        name=name,
        pattern=pattern,
        min_width=lo,
        max_width=hi,
        accept=accept,
        boundary=boundary,
        dialect=dialect,
        required=required,
        required_offset=required_offset,
    )


def _check_options(
    name: str,
    flags: object,
    dialect: object,
    accept: object,
    boundary: object,
    required: object,
    required_offset: object,
) -> None:
    """:func:`compile_rule`'s checks of the Python API's own arguments (spec:
    errors.invalid-argument): ``re`` flags, the dialect's name, the conditions (callables) and
    the required literal. A vector names its flags and dialect and has no conditions, so the
    vector reader refuses what it must before a rule is compiled (spec: guards.vector-run)."""
    if isinstance(flags, bool) or not isinstance(flags, int) or flags < 0:
        # spec: errors.invalid-argument -- re flags are a non-negative int
        raise InvalidArgument(f"rule {name!r}: flags must be re flags (an int >= 0), got {flags!r}")
    if dialect not in DIALECTS:
        raise InvalidArgument(f"rule {name!r}: dialect must be one of {DIALECTS}, got {dialect!r}")
    for what, condition in (("accept", accept), ("boundary", boundary)):
        if condition is not None and not callable(condition):
            raise InvalidArgument(f"rule {name!r}: {what} must be callable")
    if required is not None and (not isinstance(required, str) or not required):
        raise InvalidArgument(f"rule {name!r}: required must be a non-empty string")
    if required_offset is not None and (
        required is None
        or isinstance(required_offset, bool)
        or not isinstance(required_offset, int)
        or required_offset < 0
    ):
        raise InvalidArgument(f"rule {name!r}: required_offset needs required and an int >= 0")


def _compiled_source(name: str, regex: re.Pattern[Any], flags: int) -> tuple[str, int]:
    """The source and flags of a regex handed to :func:`compile_rule` already compiled (a
    Python ``re.Pattern``: the Python API only)."""
    if flags:
        raise InvalidArgument("flags cannot be given with an already compiled pattern")
    if not isinstance(regex.pattern, str):
        raise InvalidArgument(f"rule {name!r}: a text (str) pattern is required")
    return regex.pattern, regex.flags & ~re.UNICODE


def _check_max_width(name: str, max_width: object, hi: int | None) -> None:
    """:func:`compile_rule`'s check of an explicit ``max_width``: a positive int, not below the
    regex's own bounded width (spec: validators.width). :func:`deny_patterns` checks its own
    ``max_width`` and hands it only to unbounded rules, so only a Python caller of
    :func:`compile_rule` meets these refusals."""
    if isinstance(max_width, bool) or not isinstance(max_width, int) or max_width < 1:
        raise InvalidArgument(f"rule {name!r}: max_width must be a positive int")
    if hi is not None and max_width < hi:
        raise InvalidArgument(
            f"rule {name!r}: max_width {max_width} is below the regex's own width {hi}"
        )


def _compile_python(name: str, source: str, flags: int) -> tuple[re.Pattern[str], int, int | None]:
    """The ``python-re`` extension (spec: patterns.python-re): Python's ``re``, unchecked."""
    try:
        pattern = re.compile(source, flags)
    # spec: validators.deny -- a regex that fails to compile is argument.invalid, however
    # Python's compiler fails: a syntax error, a repeat count too large for it
    # (OverflowError), nesting too deep for it (RecursionError), or flags it refuses
    # (ValueError: LOCALE with a str pattern, ASCII with UNICODE)
    except (re.error, OverflowError, RecursionError, ValueError) as exc:
        raise InvalidArgument(f"rule {name!r}: bad regex {source!r}: {exc}") from exc
    try:
        lo, hi = regex_width(pattern)
    except RecursionError as exc:  # a pattern compiled elsewhere, nested too deep to re-parse
        raise InvalidArgument(f"rule {name!r}: regex nested too deep to measure") from exc
    return pattern, lo, hi
