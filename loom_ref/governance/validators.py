"""Safety validators: named checks with an input, an output and (optionally) a delta form.

Rules (``spec/governance.md`` § Validators; ADR 0119 decision 10):

- A :class:`SafetyValidator` has a ``name`` and up to three forms, one per :class:`Phase`:
  ``input_form(value)``, ``output_form(text)`` and ``delta_form(running_text)``. Its phases are
  the forms it has (spec: validators.phases). "SafetyValidator gains a "delta" phase and an
  optional checkDelta (the delta form of an output validator)."
- A form accepts by returning and rejects by raising
  :class:`~loom_ref.governance.errors.SafetyViolation` (spec: validators.violation).
- The delta form is handed the RUNNING text (the guard's window plus the new delta), not the
  delta alone (spec: guards.running-text).
- :func:`has_delta_form` is the fail-closed test a runtime applies: an output-inspecting
  middleware whose validator has no delta form makes the runtime refuse streaming
  (spec: validators.fail-closed).
- :func:`pattern_validator` builds a validator from :class:`~loom_ref.governance.rules.PatternRule`
  s. Its forms are :class:`PatternScan` objects, which a guard recognises and scans only at the
  tail (spec: guards.tail-scan); its input form scans every string in the value
  (spec: validators.input-walk).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import attrs

from loom_ref.enums import LoomEnum
from loom_ref.errors import InvalidArgument
from loom_ref.governance.errors import SafetyViolation
from loom_ref.governance.rules import PatternRule, check_scan_args
from loom_ref.governance.walk import walk

__all__ = [
    "InputForm",
    "PatternInputScan",
    "PatternScan",
    "Phase",
    "SafetyValidator",
    "TextForm",
    "has_delta_form",
    "pattern_validator",
]

InputForm = Callable[[object], None]
"""The input form: called with the request value; raises ``SafetyViolation`` to reject."""

TextForm = Callable[[str], None]
"""The output or delta form: called with a text; raises ``SafetyViolation`` to reject."""


class Phase(LoomEnum):
    """When a validator runs (spec: validators.phases)."""

    INPUT = "input"
    OUTPUT = "output"
    DELTA = "delta"



def _check_name(_instance: Any, _attribute: Any, name: Any) -> None:
    if not isinstance(name, str) or not name:
        raise InvalidArgument(f"validator name must be a non-empty string, got {name!r}")


def _check_form(_instance: Any, attribute: attrs.Attribute[Any], form: Any) -> None:
    if form is not None and not callable(form):
        raise InvalidArgument(f"{attribute.name} must be callable or None, got {form!r}")


@attrs.frozen(kw_only=True)
class SafetyValidator:
    """A named safety check with up to three forms (spec: validators.phases).

    A form that is ``None`` is absent: a missing input or output form accepts everything in
    that phase; a missing delta form means the validator cannot guard a stream, which is what
    :func:`has_delta_form` reports (spec: validators.fail-closed).
    """

    name: str = attrs.field(validator=_check_name)
    input_form: InputForm | None = attrs.field(default=None, validator=_check_form)
    output_form: TextForm | None = attrs.field(default=None, validator=_check_form)
    delta_form: TextForm | None = attrs.field(default=None, validator=_check_form)

    @property
    def phases(self) -> frozenset[Phase]:
        """The phases this validator has a form for."""
        present = {
            Phase.INPUT: self.input_form,
            Phase.OUTPUT: self.output_form,
            Phase.DELTA: self.delta_form,
        }
        return frozenset(phase for phase, form in present.items() if form is not None)

    def check_input(self, value: object) -> None:
        """Run the input form on a request value (a no-op without one)."""
        if self.input_form is not None:
            self.input_form(value)

    def check_output(self, text: str) -> None:
        """Run the output form on a complete result text (a no-op without one)."""
        if not isinstance(text, str):
            raise InvalidArgument(f"check_output expects a str, got {type(text).__name__}")
        if self.output_form is not None:
            self.output_form(text)

    def check_delta(self, running_text: str) -> None:
        """Run the delta form on a running text; ``InvalidArgument`` when there is none.

        spec: guards.running-text -- the delta form "checks the RUNNING text (the last
        deltaWindow chars, default 4096, so a pattern split across deltas is seen whole)".
        """
        if not isinstance(running_text, str):
            raise InvalidArgument(f"check_delta expects a str, got {type(running_text).__name__}")
        if self.delta_form is None:
            raise InvalidArgument(f"validator {self.name!r} has no delta form")
        self.delta_form(running_text)


def has_delta_form(validator: SafetyValidator) -> bool:
    """Whether ``validator`` can guard a stream.

    spec: validators.fail-closed -- "a middleware marked EffectMiddleware.inspectsOutput (an
    output validator with NO delta form) makes the runtime REFUSE the per-call sink". A runtime
    streams past an output-inspecting middleware only when this is true for its validators.
    """
    if not isinstance(validator, SafetyValidator):
        raise InvalidArgument(f"expected a SafetyValidator, got {type(validator).__name__}")
    return validator.delta_form is not None


def _check_phase(_instance: Any, _attribute: Any, phase: Any) -> None:
    if type(phase) is not Phase:
        raise InvalidArgument(f"phase must be a Phase, got {phase!r}")


def _check_rules(_instance: Any, _attribute: Any, rules: Any) -> None:
    if not isinstance(rules, tuple | list) or not all(isinstance(r, PatternRule) for r in rules):
        raise InvalidArgument(f"rules must be a tuple of PatternRule, got {rules!r}")


@attrs.frozen(kw_only=True)
class PatternScan:
    """The output or delta form of a pattern validator: the rules scanned over a text.

    Calling it scans the whole text; :meth:`find` lets a guard scan only the tail that can
    hold a match ending in the newest delta (spec: guards.tail-scan). The fields and the
    arguments are checked (spec: errors.invalid-argument).
    """

    validator: str = attrs.field(validator=_check_name)
    phase: Phase = attrs.field(validator=_check_phase)
    rules: tuple[PatternRule, ...] = attrs.field(validator=_check_rules)

    @property
    def max_width(self) -> int | None:
        """The widest match any rule can make, or ``None`` if some rule is unbounded."""
        widths = [rule.max_width for rule in self.rules]
        if any(w is None for w in widths):
            return None
        return max((w for w in widths if w is not None), default=0)

    def find(self, text: str, fresh: int = 0) -> tuple[PatternRule, re.Match[str]] | None:
        """The first rule (declaration order) with an accepted match that could end after
        offset ``fresh``, and that match (spec: validators.rule-order)."""
        check_scan_args(text, fresh)
        return self._find(text, fresh)

    def _find(self, text: str, fresh: int = 0) -> tuple[PatternRule, re.Match[str]] | None:
        """:meth:`find` of arguments checked already (a guard runs it per delta)."""
        for rule in self.rules:
            match = rule._first_match(text, fresh)
            if match is not None:
                return rule, match
        return None

    def violation(
        self, rule: PatternRule, match: re.Match[str], *, path: str | None = None
    ) -> SafetyViolation:
        """The :class:`SafetyViolation` reporting ``match`` (never its text)."""
        if not isinstance(rule, PatternRule) or not isinstance(match, re.Match) or (
                path is not None and not isinstance(path, str)):  # errors.invalid-argument
            raise InvalidArgument(f"violation takes a PatternRule, a re.Match and a str path "
                                  f"or None, got {rule!r}, {match!r} and {path!r}")
        return SafetyViolation(
            validator=self.validator,
            phase=self.phase.value,
            rule=rule.name,
            span=match.span(),
            path=path,
        )

    def __call__(self, text: str) -> None:
        """Reject ``text`` if any rule matches it anywhere."""
        check_scan_args(text, 0)
        found = self._find(text)
        if found is not None:
            raise self.violation(*found)


@attrs.frozen(kw_only=True)
class PatternInputScan:
    """The input form of a pattern validator: every string in the value is scanned, in
    document order (spec: validators.input-walk). Mapping keys are scanned too."""

    scan: PatternScan

    def __call__(self, value: object) -> None:
        for node in walk(value):
            if isinstance(node.value, str):
                found = self.scan._find(node.value)
                if found is not None:
                    raise self.scan.violation(*found, path=node.path)


def pattern_validator(
    name: str,
    rules: Sequence[PatternRule],
    *,
    input: bool = True,
    output: bool = True,
    delta: bool = True,
) -> SafetyValidator:
    """A validator whose forms scan ``rules``; ``input``/``output``/``delta`` choose the
    phases it has (``delta=False`` builds an output validator with no delta form).
    (spec: validators.phases)"""
    if isinstance(rules, str | bytes) or not isinstance(rules, Iterable):
        raise InvalidArgument(f"rules must be a sequence of PatternRule, got {rules!r}")
    rule_tuple = tuple(rules)
    if not rule_tuple or not all(isinstance(r, PatternRule) for r in rule_tuple):
        raise InvalidArgument("rules must be a non-empty sequence of PatternRule")
    names = [r.name for r in rule_tuple]
    if len(set(names)) != len(names):
        raise InvalidArgument(f"rule names must be unique, got {names}")
    _check_name(None, None, name)

    def scan(phase: Phase) -> PatternScan:
        return PatternScan(validator=name, phase=phase, rules=rule_tuple)

    return SafetyValidator(
        name=name,
        input_form=PatternInputScan(scan=scan(Phase.INPUT)) if input else None,
        output_form=scan(Phase.OUTPUT) if output else None,
        delta_form=scan(Phase.DELTA) if delta else None,
    )
