"""The kernel's Python API that no conformance function can observe (issue 30): each test
here is what ``tools/coverage/python-only.toml`` names for lines the suite runs but whose
change only a Python caller (or ``loom-ref replay``) sees."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from loom_ref.journal import MemoryStore, Status
from loom_ref.kernel import EffectRegistry, NondeterminismError, Runtime, Workflow, replay


def _failing(_ctx: Any, _input: Any) -> Generator[Any, Any, Any]:
    raise ValueError("nope")
    yield  # a generator body


def _returning(_ctx: Any, _input: Any) -> Generator[Any, Any, Any]:
    return 1
    yield  # a generator body


def test_a_divergence_where_a_failed_history_ends_names_its_raise() -> None:
    # spec: kernel.replay-compare -- where a finished history ends, expected is its
    # EXECUTION_FAILED's seq and "raise" with the error (loom-ref adds the error); a
    # read-only replay raises it, and the protocol observes only its code
    store = MemoryStore()
    rt = Runtime(store=store, effects=EffectRegistry([]),
                 workflows=[Workflow(name="w", body=_failing)])
    assert rt.start("w", execution_id="e1").status is Status.FAILED
    with pytest.raises(NondeterminismError) as info:
        replay(Workflow(name="w", body=_returning), store.read("e1").events)
    error = {"code": "kernel.body-error", "message": "ValueError: nope"}
    assert info.value.expected == {"seq": 2, "command": "raise", "error": error}
    assert info.value.actual == {"command": "return", "output": 1}
    # the headline is the message without the two sides (what loom-ref replay prints)
    assert info.value.headline == "the replayed body returned a different result"
    assert info.value.message.startswith(info.value.headline + ": expected ")
