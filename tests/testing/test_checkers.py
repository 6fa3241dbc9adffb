"""The checkers on the built-in validators (which must pass) and on deliberately buggy
validators and guards (which must be caught, with a readable counterexample)."""

from __future__ import annotations

import re

import pytest
from hypothesis import strategies as st

from loom_ref.errors import InvalidArgument
from loom_ref.governance import (
    HoldBackGuard,
    RunningTextGuard,
    SafetyValidator,
    SafetyViolation,
    deny_patterns,
    pii_validator,
)
from loom_ref.testing import (
    check_delta_form,
    check_guard_never_leaks,
    check_hold_back_split,
    check_split,
    planted_texts,
    texts_from_pieces,
)

FAST = {"max_examples": 80, "derandomize": True}

PII_TEXTS = texts_from_pieces(
    [
        "4111 1111 1111 1111",
        "4111-1111-1111-1111",
        "378282246310005",
        "4111111111111112",
        "1234",
        "5",
        "-",
        " ",
        "bob@example.com",
        "a.b@mail.example.co.uk",
        "@",
        ".",
        "com",
        "123-45-6789",
        "12-34",
        "hello",
    ]
)
DENY = {"secret": "s3cr3t", "token": r"tok-[a-c]{4}"}
DENY_TEXTS = planted_texts(
    st.sampled_from(["s3cr3t", "tok-abca", "tok-ccc"]), filler=st.text("s3crtok-abc ", max_size=10)
)
TOKEN = re.compile(r"tok-[0-9]{6}")


def token_scan(phase: str, pattern: re.Pattern[str] = TOKEN):  # type: ignore[no-untyped-def]
    def form(text: str) -> None:
        m = pattern.search(text)
        if m is not None:
            raise SafetyViolation(validator="token", phase=phase, rule="tok", span=m.span())

    return form


def newest_delta_only() -> SafetyValidator:
    """Bug 1: the delta form checks only the newest delta."""
    seen = 0

    def delta_form(running_text: str) -> None:
        nonlocal seen
        newest, seen = running_text[seen:], len(running_text)
        token_scan("delta")(newest)

    return SafetyValidator(name="token", output_form=token_scan("output"), delta_form=delta_form)


def stricter_delta_form() -> SafetyValidator:
    """Bug 2: the delta form rejects the bare prefix the output form accepts."""
    return SafetyValidator(
        name="token",
        output_form=token_scan("output"),
        delta_form=token_scan("delta", re.compile(r"tok-[0-9]{3}")),
    )


TOKEN_TEXTS = planted_texts(st.text("0123456789", min_size=6, max_size=6).map("tok-".__add__))


# ---- the built-in validators pass ------------------------------------------------------------


def test_pii_validator_delta_form_agrees_with_its_output_form() -> None:
    check_delta_form(pii_validator(), texts=PII_TEXTS, **FAST)


def test_deny_patterns_delta_form_agrees_with_its_output_form() -> None:
    check_delta_form(deny_patterns(DENY), texts=DENY_TEXTS, window=16, **FAST)


def test_correct_custom_validator_passes() -> None:
    v = SafetyValidator(name="token", output_form=token_scan("output"), delta_form=token_scan("d"))
    check_delta_form(v, texts=TOKEN_TEXTS, **FAST)


def test_pii_hold_back_never_leaks() -> None:
    check_guard_never_leaks(pii_validator(), texts=PII_TEXTS, **FAST)


def test_deny_hold_back_never_leaks() -> None:
    check_guard_never_leaks(deny_patterns(DENY), texts=DENY_TEXTS, window=16, **FAST)


# ---- buggy validators are caught, readably -------------------------------------------------


def caught(validator: object, **kwargs: object) -> str:
    with pytest.raises(AssertionError) as info:
        check_delta_form(validator, **{"texts": TOKEN_TEXTS, **FAST, **kwargs})  # type: ignore[arg-type]
    return str(info.value)


def test_a_delta_form_that_checks_only_the_newest_delta_is_caught() -> None:
    message = caught(newest_delta_only)
    assert "LET THROUGH" in message
    assert "validator 'token'" in message
    # the shrunk counterexample: the token alone, cut somewhere inside
    assert "text:   'tok-000000'" in message
    assert re.search(r"deltas: \['t.*'\]  \(\d+ deltas\)", message)
    assert re.search(r"delivered so far \(deltas 0\.\.\d+\): 'tok-000000'", message)
    assert "output form on it: rejects (rule 'tok', span [0, 10))" in message
    assert "delta form, handed the running text 'tok-000000': accepted" in message


def test_a_stricter_delta_form_is_caught() -> None:
    message = caught(stricter_delta_form)
    assert "SEVERED: the stream was severed at delta" in message
    assert "but the output form accepts" in message
    assert "output form on it: accepts" in message
    assert "delta form, handed the running text" in message and "rejected (rule 'tok'" in message
    assert "output form on the whole text: rejects" in message


def test_the_window_limit_is_stated_as_a_counterexample() -> None:
    """ADR 0119 #10: 'a pattern wider than the window across deltas can evade the delta form'
    (spec: guards.limit-window). The kit finds it and says which limit it is."""
    wide = deny_patterns({"key": r"k[0-9]{12}"})
    keys = planted_texts(st.text("0123456789", min_size=12, max_size=12).map("k".__add__))
    with pytest.raises(AssertionError) as info:
        check_delta_form(wide, texts=keys, window=8, **FAST)
    message = str(info.value)
    assert "LET THROUGH" in message
    assert "the match is 13 characters wide and the window is 8" in message
    assert "guards.limit-window" in message
    # the same text with a window as wide as the pattern passes
    check_delta_form(wide, texts=keys, window=13, **FAST)


def test_a_delta_form_that_raises_the_wrong_error_is_caught() -> None:
    def crashes(text: str) -> None:
        if "tok" in text:
            raise KeyError("oops")

    v = SafetyValidator(name="token", output_form=token_scan("output"), delta_form=crashes)
    message = caught(v)
    assert "the delta form raised KeyError" in message


# ---- one split, no hypothesis ----------------------------------------------------------------


def test_check_split_judges_one_split() -> None:
    check_split(newest_delta_only, "tok-123456", ["tok-123456"])  # whole: seen
    with pytest.raises(AssertionError, match=r"LET THROUGH: delta 2 was delivered"):
        check_split(newest_delta_only, "tok-123456", ["to", "k-12", "3456"])


def test_pii_limit_prefix_is_not_a_failure() -> None:
    """spec: guards.limit-prefix -- a 16-digit card-valid prefix of a longer run severs: the
    output form rejects the text delivered so far, so the checker accepts the sever."""
    text = "4111111111111111" + "1"
    check_split(pii_validator(), text, ["4111111111111111", "1"])


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(InvalidArgument, match="no output form"):
        check_delta_form(SafetyValidator(name="x", delta_form=token_scan("d")), texts=st.text())
    with pytest.raises(InvalidArgument, match="do not join"):
        check_split(pii_validator(), "abc", ["ab"])
    with pytest.raises(InvalidArgument, match="window"):
        check_split(pii_validator(), "abc", ["abc"], window=0)
    with pytest.raises(InvalidArgument):
        check_delta_form("not a validator", texts=st.text())  # type: ignore[arg-type]


# ---- buggy guards (implementations) are caught -----------------------------------------------


class NewestDeltaGuard:
    """An implementation bug: the guard hands the delta form only the newest delta."""

    def __init__(self, v: SafetyValidator, window: int) -> None:
        self.v = v

    def check(self, delta: str) -> None:
        try:
            self.v.check_delta(delta)
        except SafetyViolation as exc:
            from loom_ref.governance import DeltaSevered

            raise DeltaSevered("severed", cause=exc.code) from exc

    def reset(self) -> None:
        pass


def test_a_buggy_guard_implementation_is_caught() -> None:
    v = SafetyValidator(name="token", output_form=token_scan("output"), delta_form=token_scan("d"))
    with pytest.raises(AssertionError, match="LET THROUGH"):
        check_delta_form(v, texts=TOKEN_TEXTS, guard_factory=NewestDeltaGuard, **FAST)
    # and the reference guard, through the same parameter, passes
    check_delta_form(
        v, texts=TOKEN_TEXTS, guard_factory=lambda v, w: RunningTextGuard([v], w), **FAST
    )


class EagerHoldBack:
    """A hold-back bug: releases one character too many (holds max_width - 2)."""

    def __init__(self, v: SafetyValidator, window: int) -> None:
        self.inner = HoldBackGuard([v], window)
        self.inner.hold = max(self.inner.hold - 1, 0)

    def feed(self, delta: str) -> str:
        return self.inner.feed(delta)

    def flush(self) -> str:
        return self.inner.flush()


class LossyFlush(EagerHoldBack):
    """A hold-back bug: the flush forgets the last held character."""

    def __init__(self, v: SafetyValidator, window: int) -> None:
        self.inner = HoldBackGuard([v], window)

    def flush(self) -> str:
        return self.inner.flush()[:-1]


def test_a_hold_back_guard_that_releases_too_early_is_caught() -> None:
    v = deny_patterns({"tok": r"tok-[0-9]{6}"})
    with pytest.raises(AssertionError) as info:
        check_guard_never_leaks(v, texts=TOKEN_TEXTS, guard_factory=EagerHoldBack, **FAST)
    message = str(info.value)
    assert "LEAKED: before the sever at delta" in message
    assert "holds the first character of a match" in message
    assert re.search(r"released: '[^']*t'", message)  # up to the match's first character


def test_a_hold_back_guard_that_loses_text_on_flush_is_caught() -> None:
    v = deny_patterns({"tok": r"tok-[0-9]{6}"})
    texts = st.text("abc ", min_size=1, max_size=12)
    with pytest.raises(AssertionError, match="FLUSH: released \\+ flushed is not the whole text"):
        check_guard_never_leaks(v, texts=texts, guard_factory=LossyFlush, **FAST)


def test_check_hold_back_split_reports_the_leak() -> None:
    v = deny_patterns({"tok": r"tok-[0-9]{6}"})
    check_hold_back_split(v, "xx tok-123456", ["xx t", "ok-12", "3456"])  # the real guard
    with pytest.raises(AssertionError, match="LEAKED") as info:
        check_hold_back_split(
            v, "xx tok-123456", ["xx tok-12345", "6"], guard_factory=EagerHoldBack
        )
    assert "the match starts at 3" in str(info.value)
