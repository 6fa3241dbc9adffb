"""The PII validator: payment card numbers, email addresses and US social security numbers.

Rules (``spec/governance.md`` § validators.pii; ADR 0119 decision 10: "piiValidator() /
denyPatterns() ship delta forms, so the default config protects streams"):

- ``card`` (spec: validators.pii-card): a run of 13 to 19 ASCII digits in which consecutive
  digits are separated by nothing or by exactly one space or dash, that is not preceded by a
  digit (optionally followed by one separator) and not followed by a digit (optionally after
  one separator) -- so the run is maximal -- and whose digits pass the Luhn check. A run of
  more than 19 digits is not a card. Widest match: 37 characters.
- ``email`` (spec: validators.pii-email): 1-64 characters of ``A-Z a-z 0-9 . _ % + -``, ``@``,
  a label of 1-63 ``A-Z a-z 0-9 -``, zero to three further ``.label`` parts, and ``.`` plus a
  top-level domain of 2-24 ASCII letters. Widest match: 345 characters.
- ``ssn`` (spec: validators.pii-ssn): ``ddd-dd-dddd`` (ASCII digits), not preceded or followed
  by a digit. Widest match: 11 characters.
- Rules are checked in the order card, email, ssn. Only ASCII digits count (``[0-9]``, never
  ``\\d``, which would accept other scripts' digits).
- The delta form sees a running text that may end mid-number: a digit run that is a valid card
  so far severs even if more digits would follow (the stream cannot wait to know); the output
  form sees the whole text. "A card number is severed at its last digit" (ADR 0119 #10).
"""

from __future__ import annotations

from loom_ref.governance.rules import PatternRule, compile_rule, luhn_ok
from loom_ref.governance.validators import SafetyValidator, pattern_validator

__all__ = ["CARD_REGEX", "EMAIL_REGEX", "SSN_REGEX", "pii_rules", "pii_validator"]

# The look-behinds follow the first digit (so the regex engine can skip to digits quickly):
# "(?<![0-9][0-9])" after the first digit means "no digit before it", and
# "(?<![0-9][ -][0-9])" means "no digit and one separator before it".
CARD_REGEX = r"[0-9](?<![0-9][0-9])(?<![0-9][ -][0-9])(?:[ -]?[0-9]){12,18}(?![ -]?[0-9])"
EMAIL_REGEX = (
    r"[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,3}\.[A-Za-z]{2,24}"
)
SSN_REGEX = r"[0-9](?<![0-9][0-9])[0-9]{2}-[0-9]{2}-[0-9]{4}(?![0-9])"


def pii_rules() -> tuple[PatternRule, ...]:
    """The three PII rules, in checking order: ``card``, ``email``, ``ssn``."""
    return (
        compile_rule("card", CARD_REGEX, accept=luhn_ok),  # spec: validators.pii-card
        # the "@" follows a local part of at most 64 characters
        compile_rule(
            "email", EMAIL_REGEX, required="@", required_offset=64
        ),  # spec: validators.pii-email
        compile_rule("ssn", SSN_REGEX, required="-"),  # spec: validators.pii-ssn
    )


def pii_validator(*, name: str = "pii", delta: bool = True) -> SafetyValidator:
    """The PII validator with input, output and (by default) delta forms.

    spec: validators.pii-delta-form -- "piiValidator()/denyPatterns() ship delta forms".
    """
    return pattern_validator(name, pii_rules(), delta=delta)
