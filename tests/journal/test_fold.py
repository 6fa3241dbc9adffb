"""``fold`` and its transition table (spec/journal.md 1.3)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from loom_ref.journal import (
    TRANSITIONS,
    Event,
    EventKind,
    FrameStatus,
    IllegalTransitionError,
    Status,
    fold,
)

K = EventKind
SPEC = Path(__file__).parents[2] / "spec" / "journal.md"


def ev(seq: int, kind: EventKind, **payload: object) -> Event:
    return Event(seq=seq, kind=kind, payload=payload)


HISTORY = [
    ev(1, K.EXECUTION_STARTED, executionId="e", workflow="w", input=3),
    ev(2, K.STEP_STARTED, stepId="a#1", toolId="a", input=None, idempotencyKey="e/a#1"),
    ev(3, K.STEP_COMPLETED, stepId="a#1", output=4),
    ev(4, K.EXECUTION_SUSPENDED, gateId="g", on=None, correlationKey=None),
    ev(5, K.RESUME_RECEIVED, gateId="g", payload={"ok": True}),
    ev(6, K.EXECUTION_RESUMED, gateId="g"),
    ev(7, K.STEP_STARTED, stepId="b#1", toolId="b", input=None, idempotencyKey="e/b#1"),
    ev(8, K.STEP_IN_DOUBT, stepId="b#1"),
    ev(9, K.STEP_FAILED, stepId="b#1", error={"code": "x", "message": "y"}),
    ev(10, K.EXECUTION_COMPLETED, output=5),
]


def test_every_prefix_folds_to_the_state_at_that_point() -> None:
    # spec: journal.fold
    statuses = [fold(HISTORY[:n]).status for n in range(len(HISTORY) + 1)]
    assert statuses == [
        Status.NOT_STARTED, Status.RUNNING, Status.RUNNING, Status.RUNNING, Status.SUSPENDED,
        Status.SUSPENDED, Status.RUNNING, Status.RUNNING, Status.IN_DOUBT, Status.RUNNING,
        Status.COMPLETED,
    ]
    s5 = fold(HISTORY[:5])
    assert (s5.waiting_gate, s5.pending_resume, s5.seq) == ("g", True, 5)
    s8 = fold(HISTORY[:8])
    assert s8.in_doubt_step == "b#1" and s8.frames["b#1"].status is FrameStatus.IN_DOUBT
    final = fold(HISTORY)
    assert final.output == 5 and final.input == 3
    assert final.frames["a#1"].status is FrameStatus.COMPLETED and final.frames["a#1"].output == 4
    assert final.frames["b#1"].error == {"code": "x", "message": "y"}


@pytest.mark.parametrize("events", [
    [ev(1, K.STEP_STARTED, stepId="a", toolId="a", input=None, idempotencyKey="k")],
    HISTORY[:1] + [ev(2, K.STEP_COMPLETED, stepId="never", output=1)],
    HISTORY[:4] + [ev(5, K.RESUME_RECEIVED, gateId="other", payload=None)],
    HISTORY[:5] + [ev(6, K.RESUME_RECEIVED, gateId="g", payload=None)],
    HISTORY + [ev(11, K.STREAM_APPENDED, streamId="s", data=1)],
    HISTORY[:4] + [ev(5, K.STEP_STARTED, stepId="x", toolId="x", input=None,
                      idempotencyKey="k")],
])
def test_illegal_transitions_are_lookup_misses(events: list[Event]) -> None:
    # spec: journal.transitions
    with pytest.raises(IllegalTransitionError) as info:
        fold(events)
    assert info.value.code == "journal.illegal-transition"


def test_the_spec_table_is_the_code_table() -> None:
    """The transition table in spec/journal.md lists exactly TRANSITIONS."""
    text = SPEC.read_text()
    table = text.split("| status | allowed events (-> next status) |")[1].split("\n\n")[0]
    parsed: dict[str, dict[str, str]] = {}
    for row in table.strip().splitlines()[1:]:
        status, cell = (c.strip() for c in row.strip("|").split("|"))
        parsed[status] = {}
        for group in cell.split(";"):
            if "->" not in group:
                continue
            kinds, nxt = group.split("->")
            for kind in re.findall(r"`([A-Z_]+)`", kinds):
                parsed[status][kind] = nxt.split("(")[0].strip()
    expected = {s.value: {k.value: n.value for k, n in row.items()}
                for s, row in TRANSITIONS.items()}
    assert parsed == expected
