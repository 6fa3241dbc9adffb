"""Deny patterns: a validator that rejects any text matching one of the given regexes.

Rules (``spec/governance.md`` § validators.deny; ADR 0119 decision 10):

- ``deny_patterns(patterns, flags=0)`` takes a mapping of rule name to regex, or a sequence of
  regexes (each rule is then named by its regex text). Regexes are in the portable dialect
  ``portable-1`` (spec: patterns.dialect), compiled with ``flags`` (``re.IGNORECASE``,
  ``re.MULTILINE``, ``re.DOTALL``); one outside the dialect is refused with
  ``argument.pattern`` and its reason, one that can match the empty string with
  ``argument.invalid`` (spec: validators.deny). ``dialect="python-re"`` is the labelled
  **extension** for Python-only regexes (spec: patterns.python-re).
- It ships input, output and delta forms (``delta=False`` builds one without a delta form)
  (spec: validators.pii-delta-form).
- A regex with unbounded width (``+``, ``*``, ``{n,}``) is scanned whole-window by the delta
  form and cannot be used with hold-back unless ``max_width`` bounds it (spec:
  validators.width).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from loom_ref.errors import InvalidArgument
from loom_ref.governance.dialect import DIALECT
from loom_ref.governance.rules import compile_rule
from loom_ref.governance.validators import SafetyValidator, pattern_validator

__all__ = ["deny_patterns"]


def deny_patterns(
    patterns: Mapping[str, str] | Sequence[str],
    flags: int = 0,
    *,
    name: str = "deny-patterns",
    delta: bool = True,
    max_width: int | None = None,
    dialect: str = DIALECT,
) -> SafetyValidator:
    """A validator rejecting any text in which one of ``patterns`` matches.

    ``max_width`` (optional) bounds every rule that the regex parser reports as unbounded; a
    bounded rule keeps its own width.
    (spec: validators.deny)
    """
    if isinstance(patterns, Mapping):
        items = list(patterns.items())
    elif isinstance(patterns, Sequence) and not isinstance(patterns, str | bytes):
        items = [(p, p) for p in patterns]
    else:
        what = type(patterns).__name__
        raise InvalidArgument(f"patterns must be a mapping or a sequence of regexes, got {what}")
    if not items:
        raise InvalidArgument("deny_patterns needs at least one pattern")
    if isinstance(flags, bool) or not isinstance(flags, int):
        raise InvalidArgument(f"flags must be re flags (int), got {flags!r}")
    if max_width is not None and (
        isinstance(max_width, bool) or not isinstance(max_width, int) or max_width < 1
    ):  # checked even when every rule is bounded and keeps its own width (spec: validators.deny)
        raise InvalidArgument(f"max_width must be a positive int, got {max_width!r}")
    rules = []
    for rule_name, regex in items:
        rule = compile_rule(rule_name, regex, flags, dialect=dialect)
        if rule.max_width is None and max_width is not None:
            rule = compile_rule(rule_name, regex, flags, dialect=dialect, max_width=max_width)
        rules.append(rule)
    return pattern_validator(name, rules, delta=delta)
