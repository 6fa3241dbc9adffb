"""Hold-back, the opt-in extension (spec: guards.hold-back*)."""

from __future__ import annotations

import pytest

from loom_ref.errors import InvalidArgument
from loom_ref.governance import (
    DeltaSevered,
    GuardStateError,
    HoldBackGuard,
    SafetyValidator,
    compile_rule,
    deny_patterns,
    hold_back_width,
    pattern_validator,
    pii_validator,
)


def test_hold_back_width_is_widest_pattern_minus_one() -> None:
    guard = HoldBackGuard([deny_patterns({"k": r"KEY-[0-9]{4}", "s": "secret"})])
    assert guard.max_width == 8
    assert guard.hold == 7
    assert hold_back_width([pii_validator()]) == 345


def test_secret_prefix_never_released() -> None:
    guard = HoldBackGuard([deny_patterns({"k": r"KEY-[0-9]{4}"})])
    released = ""
    text = "the key is KEY-1234 ok"
    with pytest.raises(DeltaSevered) as info:
        for ch in text:
            released += guard.feed(ch)
    assert info.value.details["rule"] == "k"
    assert released == text[: text.index("KEY")]  # nothing of the match reached the sink
    assert guard.held == ""  # spec: guards.hold-back-drop
    with pytest.raises(DeltaSevered):  # sticky: a flush after a sever releases nothing
        guard.flush()


def test_clean_stream_released_plus_flushed_is_the_text() -> None:
    guard = HoldBackGuard([deny_patterns(["secret"])])
    text = "a perfectly harmless sentence"
    pieces = [guard.feed(text[i : i + 4]) for i in range(0, len(text), 4)]
    assert pieces[0] == ""  # first 4 chars are all held (hold = 5)
    rest = guard.flush()
    assert "".join(pieces) + rest == text
    assert len(rest) == 5
    with pytest.raises(GuardStateError):  # a flushed guard takes no more deltas
        guard.feed("more")


def test_reset_drops_held_text() -> None:
    guard = HoldBackGuard([deny_patterns(["secret"])])
    assert guard.feed("abc") == ""
    guard.reset()
    assert guard.held == ""
    assert guard.feed("defgh") == ""
    assert guard.flush() == "defgh"


def test_unbounded_pattern_refused_unless_bounded() -> None:
    with pytest.raises(InvalidArgument):
        HoldBackGuard([deny_patterns([r"sk-[A-Za-z0-9_]+"])])
    guard = HoldBackGuard([deny_patterns([r"sk-[A-Za-z0-9_]+"], max_width=20)])
    assert guard.max_width == 20


def test_non_pattern_validator_refused() -> None:
    v = SafetyValidator(name="opaque", delta_form=lambda text: None)
    with pytest.raises(InvalidArgument):
        HoldBackGuard([v])


def test_window_narrower_than_pattern_refused() -> None:
    with pytest.raises(InvalidArgument):
        HoldBackGuard([deny_patterns({"k": r"KEY-[0-9]{12}"})], window=8)


def test_width_one_pattern_releases_at_once() -> None:
    guard = HoldBackGuard([pattern_validator("v", [compile_rule("bang", "!")])])
    assert guard.hold == 0
    assert guard.feed("abc") == "abc"
    assert guard.flush() == ""


def test_hold_back_width_of_no_validators_is_zero() -> None:
    # spec: guards.hold-back-width -- with no validators (or no rules) there is nothing to
    # hold: the widest match of no rule is 0, and a guard over none releases each delta whole
    assert hold_back_width([]) == 0
    guard = HoldBackGuard([])
    assert (guard.max_width, guard.hold) == (0, 0)
    assert guard.feed("ab") == "ab"


def test_window_running_text_and_held_are_read_only_views() -> None:
    """The guard's window, the running text it has checked and what it holds back are there
    to read: the running text is every accepted delta, the held text its unreleased tail."""
    guard = HoldBackGuard([deny_patterns({"k": r"KEY-[0-9]{4}"})], window=64)
    assert guard.window == 64
    released = guard.feed("abcdefghij")
    assert guard.running_text == "abcdefghij"
    assert released + guard.held == "abcdefghij"
    assert guard.held == "defghij"  # max_width 8: 7 characters held back
