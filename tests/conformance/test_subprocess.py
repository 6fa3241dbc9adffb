"""The subprocess adapter speaks the protocol, and the runner survives implementations that
crash, hang or answer garbage (each such case errored, never passed, and recorded)."""

from __future__ import annotations

import os
import sys

from loom_ref.conformance.case import Case
from loom_ref.conformance.impl import SubprocessImplementation
from loom_ref.conformance.runner import Status

from .helpers import cases, failures, run, unexplained

ADAPTER = [sys.executable, "-m", "loom_ref.conformance.adapter"]
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_subprocess_adapter_on_a_subset() -> None:
    impl = SubprocessImplementation(ADAPTER, cwd=REPO)
    suite = run(impl, only=["journal.fold", "kernel.gates", "kernel.in-doubt",
                            "journal.durability", "stream.checker"])
    loose, _ = unexplained(suite)
    assert not loose, [(r.id, r.diff[:3]) for r in failures(suite) if r.id in loose]
    assert suite.count(Status.PASS) > 250
    assert suite.implementation["name"] == "loom-ref"
    assert not impl.crashes


def _renamed(name: str) -> Case:
    base = next(c for c in cases(["journal.fold"]) if c.id == "journal.fold/empty")
    return Case(data={**base.data, "id": f"journal.fold/{name}"})


def test_runner_records_crashes_timeouts_and_garbage_and_carries_on() -> None:
    names = ["crash-me", "after-1", "hang-me", "after-2", "garbage", "after-3", "bad-shape",
             "wrong-seq", "after-4"]
    # 4 s a reply: the hang costs 4 s, and a restarted adapter on a loaded machine fits
    impl = SubprocessImplementation([sys.executable, "-m", "tests.conformance.flaky_adapter"],
                                    timeout=4.0, cwd=REPO)
    suite = run(impl, only=["no-such-group"], extra=[_renamed(n) for n in names])
    status = {r.id.split("/")[1]: r for r in suite.results}
    for name in ("crash-me", "hang-me", "garbage", "bad-shape", "wrong-seq"):
        assert status[name].status is Status.ERROR, (name, status[name])
    for name in ("after-1", "after-2", "after-3", "after-4"):
        assert status[name].status is Status.PASS, (name, status[name])
    assert "exited" in status["crash-me"].message
    assert any("crashing on purpose" in d for d in status["crash-me"].diff)
    assert "no reply within" in status["hang-me"].message
    assert "not JSON" in status["garbage"].message
    assert "wrong shape" in status["bad-shape"].message or "invalid" in status["bad-shape"].message
    whats = [c.split(": ", 1)[1] for c in suite.crashes]
    assert len(whats) == 3 and suite.crashes[0].startswith("journal.fold/crash-me")
    assert not suite.ok
