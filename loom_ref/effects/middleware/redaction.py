"""Redaction middleware: rewrite what the call returns (and so what the kernel journals).

Spec: ``spec/deltas.md`` § Redaction. Rules enforced here:

- ``deltas.redaction-inspects``: ``redaction_middleware(redact_output=f)`` returns
  ``f(output)`` instead of the output, and sets ``inspects_output`` exactly when
  ``redact_output`` is configured (ADR 0119 #13: "loom's own redactionMiddleware now sets it
  when redactOutput is configured (deltas would bypass its masking)"). It has no delta form,
  so under it the runtime refuses streaming (``deltas.fail-closed``).
- ``deltas.no-redaction``: redaction never runs on deltas (ADR 0119 #5: "redactOutput and
  claim-check do NOT apply to deltas: they act on what is journaled, and nothing here is").
- :func:`pattern_redactor` builds a ``redact_output`` from pattern validators: every accepted
  match of every rule of their output forms (``PatternRule.finditer``: the rule's conditions
  apply), in every string of the output, becomes ``mask``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from loom_ref.effects.middleware.base import Next
from loom_ref.errors import InvalidArgument
from loom_ref.governance.rules import PatternRule
from loom_ref.governance.validators import PatternScan, SafetyValidator

if TYPE_CHECKING:
    from loom_ref.effects.context import EffectContext

__all__ = ["RedactionMiddleware", "pattern_redactor", "redaction_middleware"]

Redactor = Callable[[Any], Any]

DEFAULT_MASK = "[redacted]"


class RedactionMiddleware:
    """Return ``redact_output(output)`` (spec: deltas.redaction-inspects)."""

    delta_guard = None

    __slots__ = ("inspects_output", "redact_output")

    def __init__(self, *, redact_output: Redactor | None = None) -> None:
        if redact_output is not None and not callable(redact_output):
            raise InvalidArgument("redact_output must be callable or None")
        self.redact_output = redact_output
        self.inspects_output = redact_output is not None  # spec: deltas.redaction-inspects

    def handle(self, ctx: EffectContext, input: Any, next: Next) -> Any:
        output = next(ctx, input)
        if self.redact_output is None:
            return output
        return self.redact_output(output)


def redaction_middleware(*, redact_output: Redactor | None = None) -> RedactionMiddleware:
    """ADR 0119 #13's ``redactionMiddleware``: masks the returned output; marked
    ``inspects_output`` when ``redact_output`` is configured (spec: deltas.redaction-inspects)."""
    return RedactionMiddleware(redact_output=redact_output)


def _redact_text(text: str, rules: tuple[PatternRule, ...], mask: str) -> str:
    """Each rule in turn masks its accepted matches (conditions included: spec:
    validators.rule-conditions) in the text the earlier rules left."""
    for rule in rules:
        pieces, end = [], 0
        for match in rule.finditer(text):
            pieces += [text[end:match.start()], mask]
            end = match.end()
        text = "".join(pieces) + text[end:]
    return text


def _redact(value: Any, rules: tuple[PatternRule, ...], mask: str) -> Any:
    if isinstance(value, str):
        return _redact_text(value, rules, mask)
    if isinstance(value, Mapping):
        return {k: _redact(v, rules, mask) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_redact(v, rules, mask) for v in value]
    return value


def pattern_redactor(validators: Iterable[SafetyValidator], mask: str = DEFAULT_MASK) -> Redactor:
    """A ``redact_output`` masking every match of the validators' output-form rules in every
    string of a JSON-like output (mappings and lists are copied; other values kept).
    (spec: deltas.redaction-inspects)"""
    if isinstance(validators, str | bytes) or not isinstance(validators, Iterable):
        raise InvalidArgument(f"validators must be an iterable of pattern validators, got "
                              f"{validators!r}")
    rules: list[PatternRule] = []
    for v in validators:
        form = v.output_form if isinstance(v, SafetyValidator) else None
        if not isinstance(form, PatternScan):
            raise InvalidArgument(f"pattern_redactor needs pattern validators, got {v!r}")
        rules.extend(form.rules)
    if not isinstance(mask, str):
        raise InvalidArgument(f"mask must be a string, got {mask!r}")
    frozen = tuple(rules)
    return lambda output: _redact(output, frozen, mask)
