"""The store mode (spec: journal.stores-agree; INTERPRETING.md section 8, mode ``store``): every
scenario runs once more on each store an implementation names, and a store that does not
keep what the first keeps fails those variants, and only those."""

from __future__ import annotations

import pytest

from loom_ref.conformance import stores
from loom_ref.conformance.impl import InProcessImplementation
from loom_ref.conformance.inprocess import LoomRefAdapter
from loom_ref.conformance.runner import Status
from loom_ref.journal import MemoryStore

from .helpers import failures, run


def test_every_named_store_runs_the_scenarios() -> None:
    suite = run(InProcessImplementation(LoomRefAdapter()), only=["kernel.recover"])
    ran = {r.id.rpartition("@")[2] for r in suite.results if r.mode == "store"}
    assert ran == {"files", "log", "sqlite", "content"}  # every store but the first, memory
    assert all(r.anchor == "journal.stores-agree" for r in suite.results if r.mode == "store")
    assert not failures(suite)


def test_a_store_that_forgets_fails_its_variants(monkeypatch: pytest.MonkeyPatch) -> None:
    """A "files" store that keeps nothing once its process ends (each process gets an empty
    memory store): every case that acts twice on one execution fails on it."""
    monkeypatch.setitem(stores.STORES, "files", lambda directory: MemoryStore())  # type: ignore[index]
    suite = run(InProcessImplementation(LoomRefAdapter()), only=["kernel.recover"])
    bad = failures(suite)
    assert bad
    assert {r.mode for r in bad} == {"store"}, {(r.id, r.mode) for r in bad}
    assert all(r.id.endswith("#store@files") and r.anchor == "journal.stores-agree"
               for r in bad)
    passed = {r.id for r in suite.results if r.status is Status.PASS}
    assert any(i.endswith("#store@log") for i in passed)
