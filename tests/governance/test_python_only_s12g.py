"""What only a Python caller of the governance API can see (issue 30, the 120-mutant
governance sweep scored on becc1a0, branch s12g): each test covers lines declared Python-only
in ``tools/coverage/python-only.toml`` and fails when they are changed.
"""

from __future__ import annotations

import pytest

from loom_ref.governance import StreamTokenBudgetExceeded, TaintedRequestError, stream_token_budget


def test_a_budget_guard_checked_alone_stays_severed_until_reset() -> None:
    # spec: guards.sticky-sever -- the budget guard's own lifecycle, which only a Python caller
    # sees: the protocol always chains it (guards.run, the hold-back guard) or puts it behind a
    # delta channel, and both re-raise the sever themselves
    guard = stream_token_budget(1)
    guard.check("abcd")
    with pytest.raises(StreamTokenBudgetExceeded) as first:
        guard.check("e")
    assert first.value.details["delta_index"] == 1
    assert not first.value.details.get("repeated", False)
    # an empty delta would fit the budget; a severed guard refuses it all the same
    with pytest.raises(StreamTokenBudgetExceeded) as again:
        guard.check("")
    assert again.value.details["repeated"] is True
    assert again.value.details["delta_index"] == 1
    with pytest.raises(StreamTokenBudgetExceeded):
        guard.stage("")
    guard.reset()
    guard.check("abcd")
    assert guard.used == 1


def test_a_tainted_request_error_is_about_a_value_unless_told_it_is_a_key() -> None:
    err = TaintedRequestError(path="/messages/0", origin="llm:x")
    assert err.details == {"path": "/messages/0", "origin": "llm:x", "key": False}
    assert "tainted value (origin llm:x) at /messages/0" in str(err)
    keyed = TaintedRequestError(path="/a", origin="llm:x", key=True)
    assert keyed.details["key"] is True
    assert "tainted mapping key" in str(keyed)
