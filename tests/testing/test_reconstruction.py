"""check_reconstruction and RecordingSink, over EffectDelta-like records and their JSON form."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from loom_ref.errors import InvalidArgument
from loom_ref.governance import taint
from loom_ref.testing import (
    RecordingSink,
    check_reconstruction,
    normalize,
    reconstruct,
)


@attrs.frozen(kw_only=True)
class FakeEffectDelta:
    """Shaped like ADR 0119's EffectDelta (the governed channel's record)."""

    delta: Any
    done: bool | None = None
    reset: bool | None = None
    attempt: int | None = None
    usage: Any = None


RETRIED = [
    {"delta": "Hel"},
    {"delta": "lo wor"},
    {"delta": "", "reset": True, "attempt": 2},
    {"delta": "Hello"},
    {"delta": ", world"},
    {"delta": "", "done": True},
]


def test_json_form_reconstructs_after_a_reset() -> None:
    assert check_reconstruction(RETRIED, "Hello, world", require_done=True) == "Hello, world"
    assert reconstruct(RETRIED) == "Hello, world"


def test_records_with_tainted_deltas_reconstruct_too() -> None:
    records = [
        FakeEffectDelta(delta=taint("Hel", "llm:model")),
        FakeEffectDelta(delta="", reset=True, attempt=2),
        FakeEffectDelta(delta=taint("Hi", "llm:model")),
        FakeEffectDelta(delta=taint("!", "llm:model")),
        FakeEffectDelta(delta="", done=True, usage={"inputTokens": 1, "outputTokens": 2}),
    ]
    assert check_reconstruction(records, "Hi!") == "Hi!"


def test_an_eager_reset_with_no_text_after_it_clears_the_view() -> None:
    """ADR 0119 #11: 'a view is cleared even if the retry produces no text'."""
    events = [{"delta": "partial"}, {"delta": "", "reset": True, "attempt": 2}]
    assert check_reconstruction(events, "") == ""


def test_a_mismatch_shows_the_events_and_where_they_differ() -> None:
    events = [{"delta": "Hel"}, {"delta": "lo"}, {"delta": "", "reset": True}, {"delta": "Help"}]
    with pytest.raises(AssertionError) as info:
        check_reconstruction(events, "Hello")
    message = str(info.value)
    assert "(4 events, 1 resets)" in message
    assert "differs from the final text at character 3" in message
    assert "reconstruction: 'Help'" in message
    assert "final text:     'Hello'" in message
    assert "[2] {'delta': '', 'reset': True}" in message


def test_a_sink_that_forgot_the_reset_is_caught() -> None:
    """The bug a reset exists to prevent: attempt 1's text left in front of attempt 2's."""
    events = [{"delta": "Hel"}, {"delta": "Hello"}, {"delta": "", "done": True}]
    with pytest.raises(AssertionError, match="reconstruction: 'HelHello'"):
        check_reconstruction(events, "Hello")


def test_require_done() -> None:
    with pytest.raises(AssertionError, match="does not end with the terminal"):
        check_reconstruction([{"delta": "x"}], "x", require_done=True)
    assert check_reconstruction([{"delta": "x"}], "x") == "x"


@pytest.mark.parametrize(
    ("events", "why"),
    [
        ([{"delta": "a"}, {"delta": "", "done": True}, {"delta": "b"}], "follows the terminal"),
        ([{"delta": "x", "reset": True}], "carries an empty delta"),
        ([{"delta": "", "done": True, "reset": True}], "not both"),
        ([{"delta": ""}], "non-empty delta"),
        ([{"delta": 3}], "must be a str or a tainted str"),
        ([{"delta": "a", "extra": 1}], "unknown keys"),
        ([{"done": True}], "has no 'delta'"),
        ([{"delta": "", "reset": True, "attempt": 3}], "starts attempt 2, not 3"),
        ([{"delta": "a", "done": "yes"}], "must be true when present"),
        ([{"delta": "", "reset": True, "attempt": True}], "attempt must be an int"),
        (["just a string"], "EffectDelta-like"),
    ],
)
def test_malformed_channels_are_named(events: list[Any], why: str) -> None:
    with pytest.raises(AssertionError, match=why):
        normalize(events)


def test_final_text_must_be_a_string() -> None:
    with pytest.raises(InvalidArgument):
        check_reconstruction([], None)  # type: ignore[arg-type]


def test_recording_sink_records_and_reconstructs() -> None:
    sink = RecordingSink()
    for event in RETRIED:
        sink(event)
    assert sink.events == RETRIED
    assert sink.text == "Hello, world"
    assert sink.resets == 1
    assert sink.done is True
    assert sink.deltas == ["Hel", "lo wor", "Hello", ", world"]
    assert sink.check("Hello, world", require_done=True) == "Hello, world"
    sink.clear()
    assert sink.events == [] and sink.text == "" and sink.done is False


def test_recording_sink_can_be_told_to_fail() -> None:
    sink = RecordingSink(fail_on=1)
    sink({"delta": "a"})
    with pytest.raises(RuntimeError, match="fail on event 1"):
        sink({"delta": "b"})
    assert len(sink.events) == 2
