"""The PII validator: payment card numbers, email addresses and US social security numbers.

Rules (``spec/governance.md`` § validators.pii; ADR 0119 decision 10: "piiValidator() /
denyPatterns() ship delta forms, so the default config protects streams"). Every regex is in
the portable dialect (spec: patterns.dialect) and none uses look-around: what a look-around
said is a *boundary condition* checked in code (spec: validators.rule-conditions), stated
here as the spec states it, so that an engine without look-around (RE2, Go, Rust) runs the
same rules.

- ``card`` (spec: validators.pii-card): the regex ``[0-9](?:[ -]?[0-9]){12,18}`` -- 13 to 19
  ASCII digits, consecutive digits separated by nothing or by exactly one space or dash.
  Boundary: the character before the match is not a digit, and the two before it are not a
  digit followed by a separator; the character after the match is not a digit, and the two
  after it are not a separator followed by a digit (so the run is maximal: a run of more than
  19 digits is not a card). Accept: the digits pass the Luhn check. Widest match: 37.
- ``email`` (spec: validators.pii-email): 1-64 characters of ``A-Z a-z 0-9 . _ % + -``, ``@``,
  a label of 1-63 ``A-Z a-z 0-9 -``, zero to three further ``.label`` parts, and ``.`` plus a
  top-level domain of 2-24 ASCII letters; no condition. Widest match: 345 characters.
- ``ssn`` (spec: validators.pii-ssn): ``[0-9]{3}-[0-9]{2}-[0-9]{4}``. Boundary: the character
  before the match and the character after it are not digits. Widest match: 11.
- "A digit" is an ASCII digit ``0``-``9`` (never another script's digit), "a separator" a
  space U+0020 or a hyphen-minus U+002D; a position before the text's start or after its end
  holds no character. Rules are checked in the order card, email, ssn.
- The delta form sees a running text that may end mid-number: a digit run that is a valid card
  so far severs even if more digits would follow (the stream cannot wait to know); the output
  form sees the whole text. "A card number is severed at its last digit" (ADR 0119 #10).
"""

from __future__ import annotations

from loom_ref.governance.rules import PatternRule, compile_rule, luhn_ok
from loom_ref.governance.validators import SafetyValidator, pattern_validator

__all__ = [
    "CARD_REGEX",
    "EMAIL_REGEX",
    "SSN_REGEX",
    "card_boundary",
    "pii_rules",
    "pii_validator",
    "ssn_boundary",
]

CARD_REGEX = r"[0-9](?:[ -]?[0-9]){12,18}"
EMAIL_REGEX = (
    r"[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,3}\.[A-Za-z]{2,24}"
)
SSN_REGEX = r"[0-9]{3}-[0-9]{2}-[0-9]{4}"


def _digit(text: str, at: int) -> bool:
    """Whether ``text[at]`` exists and is an ASCII digit."""
    return 0 <= at < len(text) and "0" <= text[at] <= "9"


def _separator(text: str, at: int) -> bool:
    """Whether ``text[at]`` exists and is a space or a hyphen-minus."""
    return 0 <= at < len(text) and text[at] in " -"


def card_boundary(text: str, start: int, end: int) -> bool:
    """spec: validators.pii-card -- the run ``text[start:end]`` is maximal: no digit, nor a
    digit and one separator, before it; no digit, nor one separator and a digit, after it."""
    before = _digit(text, start - 1) or (_separator(text, start - 1) and _digit(text, start - 2))
    after = _digit(text, end) or (_separator(text, end) and _digit(text, end + 1))
    return not before and not after


def ssn_boundary(text: str, start: int, end: int) -> bool:
    """spec: validators.pii-ssn -- no digit right before or right after ``text[start:end]``."""
    return not _digit(text, start - 1) and not _digit(text, end)


def pii_rules() -> tuple[PatternRule, ...]:
    """The three PII rules, in checking order: ``card``, ``email``, ``ssn``.
    (spec: validators.pii-delta-form)
    """
    return (
        # spec: validators.pii-card
        compile_rule("card", CARD_REGEX, accept=luhn_ok, boundary=card_boundary),
        # spec: validators.pii-email -- the "@" follows a local part of at most 64 characters
        compile_rule("email", EMAIL_REGEX, required="@", required_offset=64),
        # spec: validators.pii-ssn
        compile_rule("ssn", SSN_REGEX, boundary=ssn_boundary, required="-"),
    )


def pii_validator(*, name: str = "pii", delta: bool = True) -> SafetyValidator:
    """The PII validator with input, output and (by default) delta forms.

    spec: validators.pii-delta-form -- "piiValidator()/denyPatterns() ship delta forms".
    """
    return pattern_validator(name, pii_rules(), delta=delta)
