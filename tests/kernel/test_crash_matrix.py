"""Crash after every journal event, recover with fresh effects (spec: kernel.recover,
kernel.in-doubt, journal.crash-model)."""

from __future__ import annotations

import pytest

from loom_ref.journal import EventKind, MemoryStore, Status

from .helpers import Counting, crash_run, make_runtime, run_to_end


def baseline() -> tuple[list[dict[str, object]], Counting]:
    store, effects = MemoryStore(), Counting()
    result = run_to_end(make_runtime(store, effects), "o1")
    assert result.status is Status.COMPLETED
    assert result.output == {"status": "paid", "receipt": "r-30"}
    return [e.to_json() for e in store.read("o1").events], effects


BASE, BASE_EFFECTS = baseline()


def test_baseline_shape() -> None:
    kinds = [e["kind"] for e in BASE]
    assert kinds == [
        "EXECUTION_STARTED", "STEP_STARTED", "STEP_COMPLETED", "DECISION_RECORDED",
        "STREAM_APPENDED", "EXECUTION_SUSPENDED", "RESUME_RECEIVED", "EXECUTION_RESUMED",
        "STEP_STARTED", "STEP_COMPLETED", "EXECUTION_COMPLETED",
    ]
    assert [c[0] for c in BASE_EFFECTS.calls] == ["lookup", "charge"]
    assert BASE_EFFECTS.deciders == 1


@pytest.mark.parametrize("k", range(1, len(BASE) + 1))
@pytest.mark.parametrize("charge_idempotent", [False, True])
def test_crash_after_every_event(k: int, charge_idempotent: bool) -> None:
    store, before = crash_run(k, charge_idempotent=charge_idempotent)
    fresh = Counting(charge_idempotent=charge_idempotent)
    warnings: list[str] = []
    result = run_to_end(make_runtime(store, fresh, warnings), "o1", recover=True)
    crashed_events = BASE[:k]
    crashed_on = crashed_events[-1]

    in_doubt = crashed_on["kind"] == "STEP_STARTED" and not (
        crashed_on["payload"]["toolId"] == "lookup" or charge_idempotent)
    journal = [e.to_json() for e in store.read("o1").events]
    if in_doubt:
        # spec: kernel.in-doubt -- a non-idempotent step without outcome parks the execution
        assert result.status is Status.IN_DOUBT
        assert result.in_doubt_step == crashed_on["payload"]["stepId"]
        assert journal[:k] == crashed_events
        assert journal[k]["kind"] == EventKind.STEP_IN_DOUBT.value
        assert fresh.calls == []
        assert any("kernel.in-doubt" in w for w in warnings)
        return
    # spec: kernel.recover -- same outcome, same journal, only the remaining calls
    assert result.status is Status.COMPLETED
    assert result.output == {"status": "paid", "receipt": "r-30"}
    assert journal == BASE
    completed = {e["payload"]["stepId"] for e in crashed_events if e["kind"] == "STEP_COMPLETED"}
    remaining = [c[0] for c in BASE_EFFECTS.calls if c[1].split("/")[1] not in completed]
    assert [c[0] for c in fresh.calls] == remaining
    # every key the recovered run used is the key the uncrashed run used for that step
    base_keys = {c[0]: c[1] for c in BASE_EFFECTS.calls}
    assert all(base_keys[tool] == key for tool, key, _ in fresh.calls)
    # the decider ran at most once across both processes
    assert before.deciders + fresh.deciders == 1


def test_idempotent_in_doubt_step_is_invoked_again_with_the_same_key() -> None:
    # crash right after STEP_STARTED of lookup (event 2): lookup is idempotent
    store, before = crash_run(2)
    assert before.calls == []
    fresh = Counting()
    result = run_to_end(make_runtime(store, fresh), "o1", recover=True)
    assert result.status is Status.COMPLETED
    assert fresh.calls[0][:2] == ("lookup", "o1/lookup#1")


def test_torn_write_is_recovered_as_not_written() -> None:
    from loom_ref.journal import Crash, FaultInjectingStore

    for k in range(2, len(BASE) + 1):
        store, effects = MemoryStore(), Counting()
        runtime = make_runtime(FaultInjectingStore(store, crash_after=k, torn_bytes=7), effects)
        with pytest.raises(Crash):
            run_to_end(runtime, "o1")
        warnings: list[str] = []
        result = run_to_end(make_runtime(store, Counting(), warnings), "o1", recover=True)
        assert result.status in (Status.COMPLETED, Status.IN_DOUBT)
        assert any(w.startswith("journal.torn-tail") for w in warnings)
        journal = [e.to_json() for e in store.read("o1").events]
        assert journal[: k - 1] == BASE[: k - 1]
        if result.status is Status.COMPLETED:
            assert journal == BASE
