"""Delta guards: RunningTextGuard, stream_token_budget, GuardChain, lifecycle (spec: guards.*)."""

from __future__ import annotations

import pytest

from loom_ref.errors import GovernanceError, InvalidArgument
from loom_ref.governance import (
    DEFAULT_WINDOW,
    DeltaGuard,
    DeltaSevered,
    GuardChain,
    GuardStateError,
    RunningTextGuard,
    SafetyValidator,
    SafetyViolation,
    StreamTokenBudgetExceeded,
    approx_token_count,
    deny_patterns,
    pii_validator,
    stream_token_budget,
)


def run(guard: DeltaGuard, deltas: list[str]) -> tuple[list[str], DeltaSevered | None]:
    """Deliver each delta the guard accepts; stop at a sever."""
    delivered: list[str] = []
    for d in deltas:
        try:
            guard.check(d)
        except DeltaSevered as err:
            return delivered, err
        delivered.append(d)
    return delivered, None


def chars(text: str, size: int = 1) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def test_default_window_is_4096() -> None:
    assert DEFAULT_WINDOW == 4096
    assert RunningTextGuard([pii_validator()]).window == 4096


def test_split_card_is_seen_whole_and_severed_at_last_digit() -> None:
    text = "card 4111 1111 1111 1111 thanks"
    delivered, err = run(RunningTextGuard([pii_validator()]), chars(text, 3))
    assert err is not None
    assert err.code == "governance.delta-severed"
    assert isinstance(err, GovernanceError)
    # the delta holding the last digit (index 7 covers chars 21..23) is NOT delivered
    assert "".join(delivered) == text[:21]
    assert err.details["delta_index"] == 7
    assert err.details["rule"] == "card"
    assert err.details["phase"] == "delta"
    assert err.details["validator"] == "pii"
    assert err.details["cause"] == "governance.safety-violation"
    assert err.details["span"] == [5, 24]  # absolute in the attempt's text
    assert isinstance(err.__cause__, SafetyViolation)


def test_span_is_absolute_after_the_window_slides() -> None:
    text = "x" * 50 + "secret"
    _, err = run(RunningTextGuard([deny_patterns(["secret"])], window=8), chars(text, 2))
    assert err is not None
    assert err.details["span"] == [50, 56]


def test_clean_stream_passes_and_window_is_bounded() -> None:
    guard = RunningTextGuard([pii_validator()], window=16)
    text = "hello there, this is a perfectly ordinary sentence. " * 5
    delivered, err = run(guard, chars(text, 5))
    assert err is None and "".join(delivered) == text
    assert guard.running_text == text[-16:]


def test_a_long_delta_is_checked_whole() -> None:
    # the secret sits at the start of a delta longer than the window: still severed
    _, err = run(RunningTextGuard([deny_patterns(["secret"])], window=4), ["secret" + "x" * 20])
    assert err is not None and err.details["delta_index"] == 0


def test_delta_form_sees_window_plus_delta_only() -> None:
    seen: list[str] = []

    def record(text: str) -> None:
        seen.append(text)

    guard = RunningTextGuard([SafetyValidator(name="rec", delta_form=record)], window=10)
    for d in chars("abcdefghijklmnopqrstuvwxyz", 3):
        guard.check(d)
    assert seen[0] == "abc"
    assert all(len(s) <= 10 + 3 for s in seen)  # spec: guards.tail-scan -- bounded cost
    assert seen[-1] == "opqrstuvwx" + "yz"


def test_opaque_delta_form_violation_is_wrapped() -> None:
    def no_bang(text: str) -> None:
        at = text.find("!")
        if at >= 0:
            raise SafetyViolation(validator="bang", phase="delta", rule="!", span=(at, at + 1))

    guard = RunningTextGuard([SafetyValidator(name="bang", delta_form=no_bang)], window=4)
    delivered, err = run(guard, ["abcdef", "gh", "i!"])
    assert delivered == ["abcdef", "gh"]
    assert err is not None and err.details["span"] == [9, 10] and err.details["rule"] == "!"


def test_fail_closed_construction() -> None:
    with pytest.raises(InvalidArgument):
        RunningTextGuard([pii_validator(delta=False)])
    with pytest.raises(InvalidArgument):
        RunningTextGuard(["pii"])  # type: ignore[list-item]


@pytest.mark.parametrize("window", [0, -1, True, 1.5, "4096"])
def test_bad_window(window: object) -> None:
    with pytest.raises(InvalidArgument):
        RunningTextGuard([pii_validator()], window=window)  # type: ignore[arg-type]


def test_non_str_delta_is_invalid_argument() -> None:
    from loom_ref.governance import taint

    with pytest.raises(InvalidArgument):
        RunningTextGuard([pii_validator()]).check(taint("x", "llm:a"))  # type: ignore[arg-type]


def test_sticky_sever_and_reset() -> None:
    guard = RunningTextGuard([deny_patterns(["bad"])])
    guard.check("ok ")
    with pytest.raises(DeltaSevered):
        guard.check("bad")
    with pytest.raises(DeltaSevered) as again:  # spec: guards.sticky-sever
        guard.check("fine")
    assert again.value.details["repeated"] is True
    guard.reset()  # spec: guards.reset
    assert guard.running_text == ""
    guard.check("fine")
    # the running text was cleared: "ba" from before the reset does not join "d"
    guard.reset()
    guard.check("ba")
    guard.reset()
    guard.check("d")


def test_reset_clears_split_pattern_state() -> None:
    guard = RunningTextGuard([deny_patterns(["secret"])])
    guard.check("sec")
    guard.reset()
    guard.check("ret")  # attempt 2 starts afresh: "ret" alone is fine
    with pytest.raises(DeltaSevered) as info:
        guard.check(" secret")
    assert info.value.details["delta_index"] == 1  # indexes restart at reset


def test_pattern_wider_than_window_evades_the_delta_form() -> None:
    """spec: guards.limit-window -- "a pattern wider than the window across deltas can evade the
    delta form (the output form still sees the whole result)". This is the counterexample."""
    v = deny_patterns({"key": r"KEY-[0-9]{12}"})  # 16 characters wide
    text = "here: KEY-123456789012 end"
    delivered, err = run(RunningTextGuard([v], window=8), chars(text, 1))
    assert err is None and "".join(delivered) == text  # evaded: every character delivered
    with pytest.raises(SafetyViolation):
        v.check_output(text)  # the output form still rejects the whole result
    # with a window as wide as the pattern, the same stream is severed
    _, err = run(RunningTextGuard([v], window=16), chars(text, 1))
    assert err is not None and err.details["rule"] == "key"


# ---- token budget -------------------------------------------------------------------------


def test_approx_token_count() -> None:
    assert [approx_token_count(s) for s in ["", "a", "abcd", "abcde", "x" * 8]] == [0, 1, 1, 2, 2]


def test_budget_severs_before_the_breaching_delta() -> None:
    guard = stream_token_budget(3)
    delivered, err = run(guard, ["abcd", "efgh", "ijkl", "m"])
    assert delivered == ["abcd", "efgh", "ijkl"]  # exactly at the budget is allowed
    assert isinstance(err, StreamTokenBudgetExceeded)
    assert err.code == "governance.stream-token-budget"
    assert err.details == {"max_tokens": 3, "used": 3, "delta_tokens": 1, "delta_index": 3}
    assert guard.used == 3


def test_budget_with_injected_counter_and_reset() -> None:
    guard = stream_token_budget(2, count=lambda d: len(d.split()))
    guard.check("one two")
    with pytest.raises(StreamTokenBudgetExceeded):
        guard.check(" three")
    guard.reset()
    assert guard.used == 0
    guard.check("one two")


def test_budget_zero_allows_only_empty() -> None:
    guard = stream_token_budget(0)
    guard.check("")
    with pytest.raises(StreamTokenBudgetExceeded):
        guard.check("a")


@pytest.mark.parametrize("bad", [-1, True, 1.0, None])
def test_budget_bad_max(bad: object) -> None:
    with pytest.raises(InvalidArgument):
        stream_token_budget(bad)  # type: ignore[arg-type]


def test_budget_bad_counter() -> None:
    with pytest.raises(InvalidArgument):
        stream_token_budget(3, count="len")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument):
        stream_token_budget(3, count=lambda d: -1).check("x")


# ---- chain, lifecycle ---------------------------------------------------------------------


def test_chain_order_first_sever_wins() -> None:
    chain = GuardChain([RunningTextGuard([deny_patterns(["bad"])]), stream_token_budget(1)])
    chain.check("ok")
    with pytest.raises(DeltaSevered) as info:
        chain.check("bad")  # both would sever: the validators' guard is first
    assert info.value.code == "governance.delta-severed"
    chain.reset()
    chain.check("abc")
    with pytest.raises(StreamTokenBudgetExceeded):
        chain.check("d")


def test_chain_rejects_non_guards() -> None:
    with pytest.raises(InvalidArgument):
        GuardChain([object()])  # type: ignore[list-item]
    assert isinstance(RunningTextGuard([pii_validator()]), DeltaGuard)
    assert isinstance(stream_token_budget(1), DeltaGuard)


def test_guard_state_error_is_governance() -> None:
    from loom_ref.governance.lifecycle import GuardEvent, GuardLifecycle

    life = GuardLifecycle()
    life.fire(GuardEvent.FLUSH)
    with pytest.raises(GuardStateError) as info:
        life.fire(GuardEvent.ACCEPT)
    assert info.value.code == "governance.guard-state"
    assert info.value.details == {"state": "flushed", "event": "accept"}
    life.fire(GuardEvent.RESET)
    life.fire(GuardEvent.ACCEPT)
