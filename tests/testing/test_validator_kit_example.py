"""A validator for made-up API keys, and its property tests (the worked example of
docs/validator-kit.md, which includes this file verbatim)."""

from __future__ import annotations

import re
import string

import pytest
from hypothesis import strategies as st

from loom_ref.governance import SafetyValidator, SafetyViolation
from loom_ref.testing import check_delta_form, planted_texts

# An API key: "lk_live_" and 24 base62 characters (32 characters in all).
API_KEY = re.compile(r"lk_live_[0-9A-Za-z]{24}")


def scan(text: str, phase: str) -> None:
    """Reject ``text`` if it holds a key; the violation names where, never the key."""
    match = API_KEY.search(text)
    if match is not None:
        raise SafetyViolation(validator="api-key", phase=phase, rule="live-key", span=match.span())


def api_key_validator() -> SafetyValidator:
    """The output form scans the result; the delta form scans the RUNNING text it is handed
    (the last `window` characters delivered, then the newest delta), so a key split across
    deltas is seen whole."""
    return SafetyValidator(
        name="api-key",
        output_form=lambda text: scan(text, "output"),
        delta_form=lambda running_text: scan(running_text, "delta"),
    )


def buggy_api_key_validator() -> SafetyValidator:
    """The bug: to save work, the delta form scans only what it has not scanned before --
    the newest delta."""
    scanned = 0

    def delta_form(running_text: str) -> None:
        nonlocal scanned
        newest = running_text[scanned:]
        scanned = len(running_text)
        scan(newest, "delta")

    return SafetyValidator(
        name="api-key", output_form=lambda text: scan(text, "output"), delta_form=delta_form
    )


# Texts with a key planted among filler: splits then cut inside the key at every position.
KEYS = st.text(alphabet=string.ascii_letters + string.digits, min_size=24, max_size=24)
TEXTS = planted_texts(KEYS.map(lambda tail: "lk_live_" + tail))


def test_delta_form_sees_what_the_output_form_sees() -> None:
    # a factory, not a validator: each example gets fresh forms
    check_delta_form(api_key_validator, texts=TEXTS, max_examples=100, derandomize=True)


def test_the_buggy_delta_form_is_caught() -> None:
    with pytest.raises(AssertionError, match="LET THROUGH"):
        check_delta_form(buggy_api_key_validator, texts=TEXTS, max_examples=100, derandomize=True)
