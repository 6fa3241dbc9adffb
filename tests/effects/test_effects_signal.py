"""Signals: abort, listeners, composition, detaching, and the NEVER signal."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loom_ref.effects import NEVER, AbortedError, EffectRefusal, Signal, any_of
from loom_ref.errors import EffectError, InvalidArgument


def test_abort_is_idempotent_first_reason_wins() -> None:
    signal = Signal()
    heard: list[object] = []
    signal.add_listener(heard.append)
    signal.abort("first")
    signal.abort("second")
    assert (signal.aborted, signal.reason, heard) == (True, "first", ["first"])
    late: list[object] = []
    signal.add_listener(late.append)
    assert late == ["first"]


def test_aborted_error_carries_the_reason() -> None:
    reason = {"why": "user"}
    with pytest.raises(AbortedError) as info:
        raise AbortedError(reason)
    assert info.value.reason is reason
    assert info.value.code == "effect.aborted"
    assert info.value.details["reason"] is reason
    assert isinstance(info.value, EffectRefusal) and isinstance(info.value, EffectError)


def test_any_of_follows_the_first_input_to_abort() -> None:
    # spec: effects.signal-compose
    execution, caller, lifetime = Signal(), Signal(), Signal()
    composite = any_of(execution, None, caller, lifetime)
    assert not composite.aborted
    caller.abort("caller gave up")
    assert (composite.aborted, composite.reason) == (True, "caller gave up")
    lifetime.abort("scope closed")
    assert composite.reason == "caller gave up"


def test_any_of_with_an_aborted_input_is_aborted_at_once() -> None:
    first, second = Signal(), Signal()
    second.abort("b")
    first_listeners_before = len(first._listeners)
    composite = any_of(first, second)
    assert (composite.aborted, composite.reason) == (True, "b")
    assert len(first._listeners) == first_listeners_before


def test_any_of_rejects_non_signals() -> None:
    with pytest.raises(InvalidArgument):
        any_of(Signal(), "nope")  # type: ignore[arg-type]


def test_detach_releases_long_lived_inputs() -> None:
    # spec: effects.signal-detach
    execution = Signal()
    composites = [any_of(execution, Signal()) for _ in range(5)]
    assert len(execution._listeners) == 5
    for composite in composites:
        composite.detach()
        composite.detach()
    assert execution._listeners == []
    execution.abort("late")
    assert not any(c.aborted for c in composites)


def test_never_cannot_abort_and_keeps_no_listeners() -> None:
    NEVER.add_listener(lambda reason: None)
    assert NEVER._listeners == []
    with pytest.raises(InvalidArgument):
        NEVER.abort("x")
    with pytest.raises(InvalidArgument):
        NEVER.add_listener(3)  # type: ignore[arg-type]
    assert not NEVER.aborted
    assert any_of(NEVER).aborted is False


def test_listener_must_be_callable() -> None:
    with pytest.raises(InvalidArgument):
        Signal().add_listener("x")  # type: ignore[arg-type]


@settings(max_examples=100, deadline=None)
@given(n=st.integers(1, 6), order=st.lists(st.integers(0, 5), min_size=1, max_size=8))
def test_composite_takes_the_reason_of_the_first_abort(n: int, order: list[int]) -> None:
    # spec: effects.signal-compose -- model: the first input aborted decides the reason
    inputs = [Signal() for _ in range(n)]
    composite = any_of(*inputs)
    first: object = None
    for index in order:
        target = inputs[index % n]
        if first is None and not target.aborted:
            first = f"r{index % n}"
        target.abort(f"r{index % n}")
    assert composite.aborted
    assert composite.reason == first
