"""The PII rules restated without look-around give every verdict the look-around regexes gave.

spec: validators.pii-card, validators.pii-ssn, validators.rule-conditions. Until issue 16 the
``card`` and ``ssn`` rules were Python regexes whose look-behind and look-ahead kept a run
maximal; they are now portable regexes plus boundary conditions checked in code. Here the old
regexes (run by Python's ``re`` with the old scan: ``finditer`` from the start position, the
first match the Luhn filter accepts) and the new rules (``PatternRule.first_match`` and
``finditer``) must agree on every start position of digit-heavy texts: same first match, and
the same matches masked by a redactor.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from loom_ref.governance import luhn_ok, pii_rules
from loom_ref.governance.dialect import check_pattern

OLD = {
    "card": (re.compile(
        r"[0-9](?<![0-9][0-9])(?<![0-9][ -][0-9])(?:[ -]?[0-9]){12,18}(?![ -]?[0-9])"), luhn_ok),
    "ssn": (re.compile(r"[0-9](?<![0-9][0-9])[0-9]{2}-[0-9]{2}-[0-9]{4}(?![0-9])"), None),
}
PIECES = st.sampled_from(["4111 1111 1111 1111", "4111-1111-1111-1111", "378282246310005",
                          "5555555555554444", "4111111111111112", "123-45-6789", "078-05-1120",
                          "1", "9", "0", " ", "-", "--", "  ", "x", "\u0661", "12-34"])
TEXTS = st.lists(PIECES, max_size=10).map("".join)


def old_first(name: str, text: str, start: int, fresh: int = 0) -> tuple[int, int] | None:
    """The old scan from ``start``, skipping a match that ends at or before ``fresh`` (spec:
    guards.tail-scan: a match lying wholly before the delta is not reported)."""
    regex, accept = OLD[name]
    for m in regex.finditer(text, start):
        if m.end() > fresh and (accept is None or accept(m.group())):
            return m.span()
    return None


def test_the_shipped_rules_are_portable_and_bounded() -> None:
    for rule in pii_rules():
        assert rule.dialect == "portable-1"
        checked = check_pattern(rule.pattern.pattern)
        assert checked.max_width == rule.max_width
        assert "(?<" not in rule.pattern.pattern and "(?=" not in rule.pattern.pattern
        assert "(?!" not in rule.pattern.pattern
    assert [r.max_width for r in pii_rules()] == [37, 345, 11]


@settings(max_examples=400, deadline=None)
@given(text=TEXTS)
def test_first_match_agrees_at_every_start(text: str) -> None:
    rules = {r.name: r for r in pii_rules()}
    for name in OLD:
        rule = rules[name]
        assert rule.max_width is not None
        for fresh in range(len(text) + 1):
            start = max(0, fresh - (rule.max_width - 1))  # spec: guards.tail-scan
            got = rule.first_match(text, fresh)
            assert (None if got is None else got.span()) == old_first(
                name, text, start, fresh), (name, text, fresh)


@settings(max_examples=400, deadline=None)
@given(text=TEXTS)
def test_every_match_a_redactor_masks_agrees(text: str) -> None:
    rules = {r.name: r for r in pii_rules()}
    for name, (regex, accept) in OLD.items():
        old = [m.span() for m in regex.finditer(text) if accept is None or accept(m.group())]
        assert [m.span() for m in rules[name].finditer(text)] == old, (name, text)


def test_examples() -> None:
    card, _email, ssn = pii_rules()
    assert card.first_match("pay 4111 1111 1111 1111 now").span() == (4, 23)  # type: ignore[union-attr]
    assert card.first_match("44111 1111 1111 1111") is None  # 17 digits: fails Luhn
    assert card.first_match("1 4111 1111 1111 1111") is None  # a digit and a space before
    assert card.first_match("4" * 20) is None  # more than 19 digits is not a card
    assert ssn.first_match("1123-45-6789") is None  # a digit before
    assert ssn.first_match("123-45-67890") is None  # a digit after
    assert ssn.first_match("\u0661123-45-6789").span() == (1, 12)  # type: ignore[union-attr]
