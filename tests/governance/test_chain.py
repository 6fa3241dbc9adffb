"""A chain severs as a whole; no guard of it takes a severed delta (spec: guards.chain-sever,
guards.sticky-sever, guards.hold-back-drop, guards.hold-back-flush)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loom_ref.errors import InvalidArgument
from loom_ref.governance import (
    DeltaSevered,
    GuardChain,
    GuardStateError,
    HoldBackGuard,
    RunningTextGuard,
    StagedGuard,
    StreamTokenBudgetExceeded,
    deny_patterns,
    pii_validator,
    stream_token_budget,
)
from loom_ref.governance.vectors import vector_guards_steps


class CheckOnly:
    """A guard with ``check`` and ``reset`` only (no ``stage``): it records what it took."""

    def __init__(self, refuse: str = "") -> None:
        self.refuse = refuse
        self.taken: list[str] = []

    def check(self, delta: str) -> None:
        if self.refuse and self.refuse in delta:
            raise DeltaSevered("refused", delta_index=len(self.taken))
        self.taken.append(delta)

    def reset(self) -> None:
        self.taken = []


def test_budget_sever_is_the_chains_sever_until_reset() -> None:
    """The Node adapter's counterexample: the budget severs ``123-45-``; ``6789`` must not be
    a new ssn sever completed by the severed text."""
    text_guard = RunningTextGuard([pii_validator()])
    budget = stream_token_budget(2)
    chain = GuardChain([text_guard, budget])
    chain.check("abc")
    with pytest.raises(StreamTokenBudgetExceeded) as first:
        chain.check("123-45-")
    assert "repeated" not in first.value.details
    assert text_guard.running_text == "abc"  # the severed delta was never taken
    assert budget.used == 1
    for later in ["6789", "clean", ""]:
        with pytest.raises(StreamTokenBudgetExceeded) as again:
            chain.check(later)
        assert again.value.details == {**first.value.details, "repeated": True}
    assert text_guard.running_text == "abc"  # a severed chain does not consult its guards
    chain.reset()
    chain.check("6789")
    assert text_guard.running_text == "6789"


def test_a_later_guards_sever_leaves_no_trace_in_earlier_guards() -> None:
    budget = stream_token_budget(100)
    late = RunningTextGuard([deny_patterns(["bad"])])
    chain = GuardChain([budget, late])
    chain.check("ok ")
    with pytest.raises(DeltaSevered):
        chain.check("bad")
    assert budget.used == 1  # "bad" was not counted


def test_stage_takes_nothing_until_commit() -> None:
    guard = RunningTextGuard([pii_validator()])
    guard.stage("123-45-")  # never committed
    guard.check("6789")  # so no ssn across the two
    assert guard.running_text == "6789"
    commit = guard.stage("x")
    assert guard.running_text == "6789"
    commit()
    assert guard.running_text == "6789x"
    budget = stream_token_budget(1)
    budget.stage("abcd")
    assert budget.used == 0
    budget.check("abcd")
    assert budget.used == 1


def test_stage_severs_like_check() -> None:
    guard = RunningTextGuard([pii_validator()])
    with pytest.raises(DeltaSevered) as info:
        guard.stage("123-45-6789")
    assert info.value.details["rule"] == "ssn"
    with pytest.raises(DeltaSevered) as again:  # severed: sticky for stage too
        guard.stage("x")
    assert again.value.details["repeated"] is True


@pytest.mark.parametrize("spoil", ["stage", "check", "sever", "reset", "commit"])
def test_a_stale_commit_is_a_guard_state_error(spoil: str) -> None:
    """A commit is valid only while the guard was not staged again since (spec:
    guards.chain-sever): a ``check`` stages too (it is ``stage(delta)()``), and so does a
    stage or check that severs."""
    for guard in (RunningTextGuard([pii_validator()]), stream_token_budget(9),
                  GuardChain([RunningTextGuard([pii_validator()]), stream_token_budget(9)]),
                  GuardChain([])):  # the chain's own stamp: no guard of it refuses for it
        commit = guard.stage("abc")
        if spoil == "stage":
            guard.stage("def")
        elif spoil == "check":
            guard.check("def")
        elif spoil == "sever":
            if isinstance(guard, GuardChain) and not guard.guards:
                continue  # an empty chain has nothing that severs
            with pytest.raises(DeltaSevered):
                guard.check("123-45-6789 and more words than nine tokens for the budget")
        elif spoil == "reset":
            guard.reset()
        else:
            commit()
        with pytest.raises(GuardStateError) as info:
            commit()
        assert info.value.code == "governance.guard-state"


def test_a_guard_without_stage_may_only_be_last() -> None:
    with pytest.raises(InvalidArgument):
        GuardChain([CheckOnly(), stream_token_budget(1)])
    with pytest.raises(InvalidArgument):  # nor may a chain that holds one, unless last
        GuardChain([GuardChain([CheckOnly()]), stream_token_budget(1)])
    text_guard = RunningTextGuard([pii_validator()])
    last = CheckOnly(refuse="no")
    chain = GuardChain([text_guard, last])
    assert not chain.staged
    assert GuardChain([text_guard, stream_token_budget(1)]).staged
    chain.check("123-45-")
    with pytest.raises(DeltaSevered):
        chain.check("no")  # the last guard severs: the earlier one does not take it
    assert text_guard.running_text == "123-45-"
    assert last.taken == ["123-45-"]
    with pytest.raises(DeltaSevered) as again:
        chain.check("6789")
    assert again.value.details["repeated"] is True
    assert isinstance(chain, StagedGuard)
    assert not isinstance(CheckOnly(), StagedGuard)


def test_a_chain_that_cannot_stage_refuses_stage_and_takes_nothing() -> None:
    # spec: guards.chain-sever -- a stage takes nothing before its commit, so a chain whose
    # last guard has only check() refuses stage() rather than let that guard take the delta
    text_guard, last = RunningTextGuard([pii_validator()]), CheckOnly()
    chain = GuardChain([text_guard, last])
    with pytest.raises(InvalidArgument) as info:
        chain.stage("abc")
    assert info.value.code == "argument.invalid" and "CheckOnly" in info.value.message
    assert (last.taken, text_guard.running_text) == ([], "")
    outer = GuardChain([stream_token_budget(9), chain])  # last of a chain: checked, not staged
    outer.check("abc")
    assert (last.taken, text_guard.running_text) == (["abc"], "abc")
    with pytest.raises(InvalidArgument):
        outer.stage("def")  # the outer chain cannot stage either
    assert last.taken == ["abc"]
    assert GuardChain([]).stage("x") is not None  # an empty chain stages (nothing to take)


def test_hold_back_budget_sever_releases_nothing_of_the_severed_delta() -> None:
    """The Node adapter's counterexample: KEY4 hold-back, budget 2, ``abcdefgh``,
    ``ijklmnop`` (severed by the budget), flush: the flush used to give ``jklmnop``."""
    guard = HoldBackGuard([deny_patterns({"key": "KEY-[0-9]{4}"})],
                          after=[stream_token_budget(2)])
    assert guard.feed("abcdefgh") == "a"
    with pytest.raises(StreamTokenBudgetExceeded) as first:
        guard.feed("ijklmnop")
    assert guard.held == ""
    for _ in range(2):
        with pytest.raises(StreamTokenBudgetExceeded) as again:
            guard.flush()
        assert again.value.details == {**first.value.details, "repeated": True}
    with pytest.raises(StreamTokenBudgetExceeded):
        guard.feed("q")
    guard.reset()
    assert guard.feed("abcdefgh") == "a"
    assert guard.flush() == "bcdefgh"


def test_hold_back_after_must_be_a_sequence_of_guards() -> None:
    with pytest.raises(InvalidArgument):
        HoldBackGuard([], after=stream_token_budget(1))  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument):
        HoldBackGuard([], after=[CheckOnly(), stream_token_budget(1)])


def test_a_chain_refuses_a_hold_back_guard() -> None:
    # spec: guards.hold-back-width -- a hold-back guard feeds, it does not check or stage
    hold = HoldBackGuard([deny_patterns({"key": "KEY-[0-9]{4}"})])
    for members in ([hold], [stream_token_budget(1), hold]):
        with pytest.raises(InvalidArgument):
            GuardChain(members)  # type: ignore[list-item]


# ---- property: a severed delta leaves no trace ------------------------------------------

SSN_KEY = {"kind": "deny", "patterns": {"key": "KEY-[0-9]{4}", "ssn": "[0-9]{3}-[0-9]{2}-[0-9]{4}"}}
RESET: dict[str, Any] = {"reset": True}
FLUSH: dict[str, Any] = {"flush": True}
deltas = st.text(alphabet="0123456789-KEY x", max_size=8)


@st.composite
def step_inputs(draw: st.DrawFn) -> dict[str, Any]:
    hold_back = draw(st.booleans())
    step = st.one_of(deltas, st.just(RESET), *([st.just(FLUSH)] if hold_back else []))
    data: dict[str, Any] = {
        "validators": [SSN_KEY],
        "window": draw(st.integers(11, 24)),
        "holdBack": hold_back,
        "steps": draw(st.lists(step, max_size=14)),
    }
    if draw(st.booleans()):
        data["maxTokens"] = draw(st.integers(0, 8))
    return data


@settings(max_examples=300, deadline=None)
@given(step_inputs())
def test_a_severed_delta_leaves_no_trace(data: dict[str, Any]) -> None:
    """Through ``guards.steps``: after a sever every delta or flush is that sever again,
    repeated, until reset; every other outcome is what fresh guards give when fed only the
    deltas accepted since the last reset; with hold-back, the released text is always a prefix
    of the accepted text, and a flush completes it (spec: guards.chain-sever,
    guards.sticky-sever, guards.hold-back-drop, guards.hold-back-flush)."""
    outcomes = vector_guards_steps(data)["outcomes"]
    accepted: list[str] = []
    released = ""
    severed: dict[str, Any] | None = None
    flushed = False
    for step, outcome in zip(data["steps"], outcomes, strict=True):
        if step == RESET:
            assert outcome == {"reset": True}
            accepted, released, severed, flushed = [], "", None, False
            continue
        if severed is not None:
            assert outcome == {"severed": {**severed, "repeated": True}}
            continue
        if flushed:
            assert outcome == {"error": {"code": "governance.guard-state"}}
            continue
        if step == FLUSH:
            released += outcome["flushed"]
            assert released == "".join(accepted)
            flushed = True
            continue
        fresh = vector_guards_steps({**data, "steps": [*accepted, step]})["outcomes"][-1]
        assert outcome == fresh
        if "severed" in outcome:
            severed = outcome["severed"]
            assert severed["repeated"] is False
            assert severed["deltaIndex"] == len(accepted)
        else:
            accepted.append(step)
            released += outcome["delivered"]
        assert "".join(accepted).startswith(released)


def test_a_chain_staging_a_delta_one_guard_severs_is_severed() -> None:
    # GuardChain.stage (a Python-only region): a sever while staging is raised, and a later
    # check re-raises it, marked repeated (spec: guards.chain-sever)
    chain = GuardChain([RunningTextGuard([pii_validator()]), stream_token_budget(100)])
    chain.stage("ssn ")()
    with pytest.raises(DeltaSevered):
        chain.stage("123-45-6789")
    with pytest.raises(DeltaSevered) as info:
        chain.check("x")
    assert info.value.details["repeated"] is True
    assert info.value.details["delta_index"] == 1


class StagesForgetfully(CheckOnly):
    """A Python caller's staged guard whose sever is not sticky of its own: it refuses only
    the deltas holding ``refuse``, so a chain's repeated sever after it is the chain's."""

    def stage(self, delta: str) -> Any:
        if self.refuse and self.refuse in delta:
            raise DeltaSevered("refused", delta_index=len(self.taken))
        return lambda: self.taken.append(delta)


def test_a_chain_that_severs_while_staging_stays_severed_itself() -> None:
    # GuardChain.stage: the sever a guard raises while staging is the chain's own
    # (spec: guards.chain-sever, guards.sticky-sever) -- the test above cannot tell it from
    # the inner guard's sticky sever; this guard forgets, so only the chain remembers
    forgetful = StagesForgetfully(refuse="bad")
    chain = GuardChain([forgetful, stream_token_budget(100)])
    chain.stage("ok")()
    with pytest.raises(DeltaSevered) as first:
        chain.stage("bad")
    assert "repeated" not in first.value.details
    forgetful.stage("fine")  # the guard alone would take the next delta
    for later in ("fine", ""):
        with pytest.raises(DeltaSevered) as again:
            chain.check(later)
        assert again.value.details == {**first.value.details, "repeated": True}
        with pytest.raises(DeltaSevered):
            chain.stage(later)
    assert forgetful.taken == ["ok"]  # a severed chain consults no guard
    chain.reset()
    chain.check("fine")
    assert forgetful.taken == ["fine"]
