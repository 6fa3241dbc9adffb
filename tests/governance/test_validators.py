"""Safety validators, pii_validator and deny_patterns (spec: validators.*)."""

from __future__ import annotations

import re

import pytest

from loom_ref.errors import GovernanceError, InvalidArgument
from loom_ref.governance import (
    PatternRule,
    PatternScan,
    Phase,
    SafetyValidator,
    SafetyViolation,
    compile_rule,
    deny_patterns,
    has_delta_form,
    luhn_ok,
    pattern_validator,
    pii_validator,
    taint,
)


def violation(validator: SafetyValidator, text: str) -> SafetyViolation | None:
    try:
        validator.check_output(text)
    except SafetyViolation as err:
        return err
    return None


def rule_of(validator: SafetyValidator, text: str) -> str | None:
    err = violation(validator, text)
    return None if err is None else str(err.details["rule"])


# ---- Luhn ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("digits", "ok"),
    [
        ("4111111111111111", True),
        ("4111111111111112", False),
        ("79927398713", True),
        ("79927398710", False),
        ("378282246310005", True),  # Amex test number
        ("6011111111111117", True),  # Discover test number
        ("0", True),
    ],
)
def test_luhn(digits: str, ok: bool) -> None:
    assert luhn_ok(digits) is ok


# ---- pii: card --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "4111111111111111",
        "pay 4111 1111 1111 1111 now",
        "pay 4111-1111-1111-1111.",
        "amex 378282246310005",  # 15 digits
        "4222222222222",  # 13 digits, Luhn-valid
        "6011-1111-1111-1117",
        "x4111111111111111y",  # letters around do not matter
    ],
)
def test_card_matches(text: str) -> None:
    assert rule_of(pii_validator(), text) == "card"


@pytest.mark.parametrize(
    "text",
    [
        "4111111111111112",  # Luhn fails
        "411111111111",  # 12 digits
        "41111111111111111111",  # 20 digits: longer than any card
        "4111  1111 1111 1111",  # two separators in a row break the run
        "4111_1111_1111_1111",  # underscore is not a separator
        "٤١١١١١١١١١١١١١١١",  # Arabic-Indic digits are not ASCII digits
        "order 12345, qty 3",
    ],
)
def test_card_does_not_match(text: str) -> None:
    assert rule_of(pii_validator(), text) is None


def test_card_run_is_maximal() -> None:
    # a valid 16-digit card followed by " 22" is one 18-digit run, which fails Luhn
    assert not luhn_ok("411111111111111122")
    assert rule_of(pii_validator(), "4111 1111 1111 1111 22") is None


def test_card_span_and_no_echo() -> None:
    err = violation(pii_validator(), "card: 4111 1111 1111 1111!")
    assert err is not None
    assert err.code == "governance.safety-violation"
    assert isinstance(err, GovernanceError)
    assert err.details == {"validator": "pii", "phase": "output", "rule": "card", "span": [6, 25]}
    assert "4111" not in str(err)  # spec: validators.no-echo


# ---- pii: email, ssn ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["bob@example.com", "mail to a.b+tag@mail.example.co.uk.", "X_Y%z-1@host-1.io"],
)
def test_email_matches(text: str) -> None:
    assert rule_of(pii_validator(), text) == "email"


@pytest.mark.parametrize(
    "text", ["bob@localhost", "@example.com", "bob@.com", "bob at example.com"]
)
def test_email_does_not_match(text: str) -> None:
    assert rule_of(pii_validator(), text) is None


@pytest.mark.parametrize("text", ["ssn 123-45-6789", "123-45-6789.", "a123-45-6789"])
def test_ssn_matches(text: str) -> None:
    assert rule_of(pii_validator(), text) == "ssn"


@pytest.mark.parametrize("text", ["1123-45-6789", "123-45-67890", "123456789", "123-456-789"])
def test_ssn_does_not_match(text: str) -> None:
    assert rule_of(pii_validator(), text) is None


def test_rule_order_card_first() -> None:
    # both an email and a card: card is declared first (spec: validators.rule-order)
    assert rule_of(pii_validator(), "bob@example.com 4111111111111111") == "card"


def test_pii_widths() -> None:
    widths = {r.name: r.max_width for r in pattern_rules(pii_validator())}
    assert widths == {"card": 37, "email": 345, "ssn": 11}


def pattern_rules(v: SafetyValidator) -> tuple[PatternRule, ...]:
    assert isinstance(v.delta_form, PatternScan)
    return v.delta_form.rules


# ---- phases, forms ------------------------------------------------------------------------


def test_pii_has_all_three_phases_and_a_delta_form() -> None:
    v = pii_validator()
    assert v.phases == frozenset({Phase.INPUT, Phase.OUTPUT, Phase.DELTA})
    assert has_delta_form(v)
    assert has_delta_form(deny_patterns(["x"]))
    assert not has_delta_form(pii_validator(delta=False))
    assert not has_delta_form(deny_patterns(["x"], delta=False))


def test_check_delta_phase_and_missing_delta_form() -> None:
    with pytest.raises(SafetyViolation) as info:
        pii_validator().check_delta("ssn 123-45-6789")
    assert info.value.details["phase"] == "delta"
    with pytest.raises(InvalidArgument):
        pii_validator(delta=False).check_delta("text")


def test_input_form_walks_every_string() -> None:
    v = pii_validator()
    v.check_input({"messages": [{"content": "hello"}]})
    with pytest.raises(SafetyViolation) as info:
        v.check_input({"messages": [{"content": "hi"}, {"content": "ssn 123-45-6789"}]})
    assert info.value.details["phase"] == "input"
    assert info.value.details["path"] == "/messages/1/content"
    assert info.value.details["span"] == [4, 15]
    with pytest.raises(SafetyViolation):  # strings inside tainted values are scanned too
        v.check_input([taint("bob@example.com", "llm:a")])


def test_custom_validator_forms() -> None:
    def no_shouting(text: str) -> None:
        if text.isupper():
            raise SafetyViolation(validator="calm", phase="output", rule="caps", span=(0, 1))

    v = SafetyValidator(name="calm", output_form=no_shouting)
    assert v.phases == frozenset({Phase.OUTPUT})
    assert not has_delta_form(v)
    v.check_input("ANYTHING")  # no input form: accepts
    v.check_output("quiet")
    with pytest.raises(SafetyViolation):
        v.check_output("LOUD")
    with pytest.raises(InvalidArgument):
        v.check_output(b"bytes")  # type: ignore[arg-type]


@pytest.mark.parametrize("kwargs", [{"name": ""}, {"name": "x", "output_form": 3}, {"name": 5}])
def test_bad_validator_arguments(kwargs: dict[str, object]) -> None:
    with pytest.raises(InvalidArgument):
        SafetyValidator(**kwargs)  # type: ignore[arg-type]


def test_has_delta_form_rejects_non_validator() -> None:
    with pytest.raises(InvalidArgument):
        has_delta_form("pii")  # type: ignore[arg-type]


# ---- deny_patterns ------------------------------------------------------------------------


def test_deny_mapping_names_rules() -> None:
    v = deny_patterns({"api-key": r"sk-[A-Za-z0-9]{8}", "pw": r"password=[^ ]{1,20}"})
    assert rule_of(v, "key sk-abcdEFGH1 here") == "api-key"
    assert rule_of(v, "password=hunter2") == "pw"
    assert rule_of(v, "nothing to see") is None
    assert v.name == "deny-patterns"


def test_deny_sequence_names_rules_by_regex_and_flags() -> None:
    v = deny_patterns([r"secret"], re.IGNORECASE)
    err = violation(v, "a SeCrEt b")
    assert err is not None and err.details["rule"] == "secret"
    assert err.details["span"] == [2, 8]
    assert rule_of(deny_patterns([r"secret"]), "a SeCrEt b") is None


@pytest.mark.parametrize(
    "patterns",
    [[], {}, "secret", [r"("], [r"a*"], [r""], [r"(?=x)"], [r"x|"], [3], {"n": None}],
)
def test_deny_bad_patterns(patterns: object) -> None:
    with pytest.raises(InvalidArgument):
        deny_patterns(patterns)  # type: ignore[arg-type]


def test_deny_bad_flags() -> None:
    with pytest.raises(InvalidArgument):
        deny_patterns(["x"], flags=True)


def test_deny_widths_bounded_unbounded_and_explicit() -> None:
    v = deny_patterns({"a": r"ab{2,4}", "b": r"x+"})
    widths = {r.name: r.max_width for r in pattern_rules(v)}
    assert widths == {"a": 5, "b": None}
    v = deny_patterns({"a": r"ab{2,4}", "b": r"x+"}, max_width=10)
    widths = {r.name: r.max_width for r in pattern_rules(v)}
    assert widths == {"a": 5, "b": 10}


def test_compile_rule_max_width_below_own_width() -> None:
    with pytest.raises(InvalidArgument):
        compile_rule("r", r"abcdef", max_width=3)
    with pytest.raises(InvalidArgument):
        compile_rule("r", r"a+", max_width=0)


def test_pattern_validator_arguments() -> None:
    with pytest.raises(InvalidArgument):
        pattern_validator("v", [])
    r = compile_rule("r", "x")
    with pytest.raises(InvalidArgument):
        pattern_validator("v", [r, r])  # duplicate rule names
    with pytest.raises(InvalidArgument):
        pattern_validator("", [r])


def test_compile_rule_required_offset_arguments() -> None:
    with pytest.raises(InvalidArgument):
        compile_rule("r", "a@b", required_offset=1)  # needs required
    with pytest.raises(InvalidArgument):
        compile_rule("r", "a@b", required="@", required_offset=-1)
    rule = compile_rule("r", "a{1,3}@b", required="@", required_offset=3)
    assert rule.first_match("xx aaa@b") is not None
    assert rule.first_match("xx aaa@c a@b").span() == (9, 12)  # type: ignore[union-attr]


def test_compile_rule_required_offset_zero_is_allowed() -> None:
    # the literal may stand at the match's very start: offset 0 is a valid bound (an int >= 0)
    rule = compile_rule("r", "@b+", required="@", required_offset=0)
    assert rule.required_offset == 0
    match = rule.first_match("xx @bb")
    assert match is not None and match.span() == (3, 6)


def test_phases_are_the_forms_present() -> None:
    """spec: validators.phases -- a validator runs in the phases it has a form for (the
    Python property; tools/coverage/python-only.toml names this test for it)."""

    def text(_: str) -> None:
        return None

    assert SafetyValidator(name="none").phases == frozenset()
    assert SafetyValidator(name="out", output_form=text).phases == {Phase.OUTPUT}
    both = SafetyValidator(name="both", input_form=lambda _: None, delta_form=text)
    assert both.phases == {Phase.INPUT, Phase.DELTA}
