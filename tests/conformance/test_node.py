"""The Node.js adapter (conformance/adapters/node, no npm dependencies) passes the journal and
kernel groups over its own minimal kernel, every vector group over its own chapter modules,
and the agent-loop scenario groups over its agent loop, written from the spec text: the
protocol and the spec are language-neutral. Skipped when ``node`` is not installed."""

from __future__ import annotations

import os
import shutil

import pytest

from loom_ref.conformance.impl import SubprocessImplementation
from loom_ref.conformance.random_cases import random_cases
from loom_ref.conformance.runner import Status

from .helpers import cases, failures, run

NODE = shutil.which("node")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ADAPTER = os.path.join(REPO, "conformance", "adapters", "node", "loom-adapter.mjs")

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")


def test_node_adapter_passes_journal_and_kernel_groups() -> None:
    assert NODE is not None
    impl = SubprocessImplementation([NODE, ADAPTER], cwd=REPO)
    suite = run(impl, only=["journal", "kernel"], extra=random_cases(20, 11))
    assert not failures(suite), [(r.id, r.message, r.diff[:3]) for r in failures(suite)]
    assert suite.implementation["language"] == "javascript"
    passed_modes = {r.mode for r in suite.results if r.status is Status.PASS}
    assert {"base", "crash", "torn", "replay", "prefix"} <= passed_modes
    skipped = {r.mode for r in suite.results if r.status is Status.SKIP}
    assert skipped == {"always-replay"}  # not declared, so skipped, never passed
    assert not impl.crashes


def test_node_adapter_passes_every_vector_case() -> None:
    # The chapter modules (stream, governance, effects, deltas, agent) implement every vector
    # function of the suite from the spec text: each is declared, so no vector case is
    # skipped, and every one passes.
    assert NODE is not None
    impl = SubprocessImplementation([NODE, ADAPTER], cwd=REPO)
    vector_groups = sorted({c.group for c in cases(()) if c.data["family"] == "vector"})
    suite = run(impl, only=vector_groups, generated=False)
    assert not failures(suite), [(r.id, r.message, r.diff[:3]) for r in failures(suite)]
    assert {r.status for r in suite.results} == {Status.PASS}
    vector_cases = cases(vector_groups)
    assert len(suite.results) == len(vector_cases) > 500
    assert {c.data["function"] for c in vector_cases} <= set(suite.implementation["capabilities"])
    assert not impl.crashes


def test_node_adapter_passes_the_agent_loop_groups() -> None:
    # The Node adapter declares ``agent``: its agent loop (agent-loop.mjs, written from
    # spec/agent.md) passes every agent-loop scenario case and its generated crash, torn-write
    # and replay variants (ADR 0087's crash matrix); always-replay is not declared, so skipped.
    assert NODE is not None
    groups = ["agent.loop", "agent.tools", "agent.approval", "agent.choices", "agent.router",
              "agent.summary", "agent.errors"]
    impl = SubprocessImplementation([NODE, ADAPTER], cwd=REPO)
    suite = run(impl, only=groups)
    assert "agent" in suite.implementation["capabilities"]
    assert not failures(suite), [(r.id, r.message, r.diff[:3]) for r in failures(suite)]
    base = [r for r in suite.results if r.mode == "base"]
    assert len(base) == len(cases(groups)) >= 60
    assert all(r.status is Status.PASS for r in base)
    passed_modes = {r.mode for r in suite.results if r.status is Status.PASS}
    assert {"base", "crash", "torn", "replay"} <= passed_modes
    skipped = {r.mode for r in suite.results if r.status is Status.SKIP}
    assert skipped == {"always-replay"}  # not declared, so skipped, never passed
    assert not impl.crashes
