"""Pattern rules: the regex-based checks that ``pii_validator`` and ``deny_patterns`` are made of.

Rules (``spec/governance.md`` § Validators):

- A rule is a name, a compiled regex, the regex's maximum match width (``None`` when it is
  unbounded) and an optional ``accept`` filter on the matched text (the Luhn check of a card
  number). A rule whose regex can match the empty string is refused: it would match every
  text (spec: validators.rule-nonempty).
- A text is rejected by a rule when the rule's regex, scanned left to right over the text
  (``finditer``), yields a match that ``accept`` accepts. Rules are tried in declaration
  order; the first rule with an accepted match is reported, at its leftmost accepted match
  (spec: validators.rule-order).
- The width of a regex is computed from Python's own regex parser (``re._parser``,
  ``getwidth``); where that is unavailable every rule counts as unbounded. An explicit
  ``max_width`` may bound an unbounded regex: it is the caller's promise that wider matches
  need not be caught by the delta form's tail scan or by hold-back (spec: validators.width).
- The tail scan (spec: guards.tail-scan): a match that ends inside the newest delta and is at
  most ``w`` characters wide starts no earlier than ``fresh - (w - 1)``, where ``fresh`` is the
  offset where the delta begins. So a bounded rule re-scans only from there (the scan still
  sees the text before its start position, so look-behind assertions are unaffected); an
  unbounded rule scans the whole text it is handed.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from typing import Any

import attrs

from loom_ref.errors import InvalidArgument

__all__ = ["PatternRule", "check_scan_args", "compile_rule", "luhn_ok", "regex_width"]

# A regex whose parser-reported maximum exceeds this counts as unbounded.
_UNBOUNDED = 1 << 30


def regex_width(pattern: re.Pattern[str]) -> tuple[int, int | None]:
    """``(min, max)`` match width of ``pattern``; ``max`` is ``None`` when unbounded. Where the
    interpreter's regex parser is not available to ask, ``(1, None)``."""
    try:
        parser = importlib.import_module("re._parser")
        lo, hi = parser.parse(pattern.pattern, pattern.flags).getwidth()
    except (ImportError, AttributeError):  # pragma: no cover - other interpreters
        return 1, None
    return int(lo), (None if hi >= _UNBOUNDED else int(hi))


def luhn_ok(digits: str) -> bool:
    """The Luhn (mod 10) check over a string of ASCII digits; other characters are ignored."""
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
    """One named regex check. Build it with :func:`compile_rule`, which computes the widths.

    ``max_width`` bounds how wide a match can be (``None``: unbounded); ``accept`` (optional)
    filters candidate matches by their text; ``required`` (optional) is a literal every match
    contains, so a scan region without it is skipped, and ``required_offset`` (optional) says
    the literal starts at most that many characters after the match's start, so the scan can
    begin that far before the literal's first occurrence (optimizations that never change a
    verdict). Each field is checked for its type when the record is built
    (spec: errors.invalid-argument); :func:`compile_rule` checks what the fields mean.
    """

    name: str = attrs.field(validator=_checked(_text, "a non-empty string"))
    pattern: re.Pattern[str] = attrs.field(validator=_checked(
        lambda v: isinstance(v, re.Pattern) and isinstance(v.pattern, str), "a compiled str regex"))
    min_width: int = attrs.field(validator=_checked(_count(0), "an int >= 0"))
    max_width: int | None = attrs.field(validator=_checked(_or_none(_count(1)),
                                                           "an int >= 1 or None"))
    accept: Callable[[str], bool] | None = attrs.field(
        default=None, validator=_checked(_or_none(callable), "callable or None"))
    required: str | None = attrs.field(
        default=None, validator=_checked(_or_none(_text), "a non-empty string or None"))
    required_offset: int | None = attrs.field(
        default=None, validator=_checked(_or_none(_count(0)), "an int >= 0 or None"))

    def first_match(self, text: str, fresh: int = 0) -> re.Match[str] | None:
        """The leftmost accepted match that could end after offset ``fresh`` of ``text``.

        ``fresh=0`` scans the whole text (the output form). With ``fresh > 0`` a bounded rule
        starts scanning at ``fresh - (max_width - 1)`` (spec: guards.tail-scan).
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
        if self.accept is None:
            return self.pattern.search(text, start)  # the first match of finditer, faster
        for match in self.pattern.finditer(text, start):
            if self.accept(match.group()):
                return match
        return None


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
    max_width: int | None = None,
    accept: Callable[[str], bool] | None = None,
    required: str | None = None,
    required_offset: int | None = None,
) -> PatternRule:
    """Compile ``regex`` into a :class:`PatternRule`; ``InvalidArgument`` on a bad regex, a
    regex that can match the empty string, or an explicit ``max_width`` smaller than the
    regex's own bounded width (spec: validators.rule-nonempty, validators.width)."""
    if not isinstance(name, str) or not name:
        raise InvalidArgument(f"rule name must be a non-empty string, got {name!r}")
    if isinstance(flags, bool) or not isinstance(flags, int) or flags < 0:
        # spec: errors.invalid-argument -- re flags are a non-negative int
        raise InvalidArgument(f"rule {name!r}: flags must be re flags (an int >= 0), got {flags!r}")
    if isinstance(regex, re.Pattern):
        if flags:
            raise InvalidArgument("flags cannot be given with an already compiled pattern")
        pattern = regex
    elif isinstance(regex, str):
        try:
            pattern = re.compile(regex, flags)
        # spec: validators.deny -- a regex that fails to compile is argument.invalid, however
        # Python's compiler fails: a syntax error, a repeat count too large for it
        # (OverflowError), nesting too deep for it (RecursionError), or flags it refuses
        # (ValueError: LOCALE with a str pattern, ASCII with UNICODE)
        except (re.error, OverflowError, RecursionError, ValueError) as exc:
            raise InvalidArgument(f"rule {name!r}: bad regex {regex!r}: {exc}") from exc
    else:
        raise InvalidArgument(f"rule {name!r}: regex must be a string, got {regex!r}")
    if not isinstance(pattern.pattern, str):
        raise InvalidArgument(f"rule {name!r}: a text (str) pattern is required")
    try:
        lo, hi = regex_width(pattern)
    except RecursionError as exc:  # a pattern compiled elsewhere, nested too deep to re-parse
        raise InvalidArgument(f"rule {name!r}: regex nested too deep to measure") from exc
    if lo == 0 or pattern.search("") is not None:
        raise InvalidArgument(f"rule {name!r}: regex {pattern.pattern!r} can match empty text")
    if max_width is not None:
        if isinstance(max_width, bool) or not isinstance(max_width, int) or max_width < 1:
            raise InvalidArgument(f"rule {name!r}: max_width must be a positive int")
        if hi is not None and max_width < hi:
            raise InvalidArgument(
                f"rule {name!r}: max_width {max_width} is below the regex's own width {hi}"
            )
        hi = max_width
    if accept is not None and not callable(accept):
        raise InvalidArgument(f"rule {name!r}: accept must be callable")
    if required is not None and (not isinstance(required, str) or not required):
        raise InvalidArgument(f"rule {name!r}: required must be a non-empty string")
    if required_offset is not None and (
        required is None
        or isinstance(required_offset, bool)
        or not isinstance(required_offset, int)
        or required_offset < 0
    ):
        raise InvalidArgument(f"rule {name!r}: required_offset needs required and an int >= 0")
    return PatternRule(
        name=name,
        pattern=pattern,
        min_width=lo,
        max_width=hi,
        accept=accept,
        required=required,
        required_offset=required_offset,
    )
