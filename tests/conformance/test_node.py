"""The Node.js adapter (conformance/adapters/node, no npm dependencies) passes the journal and
kernel groups over its own minimal kernel (every generated mode, always-replay included), every
vector group over its own chapter modules, and the agent-loop scenario groups over its agent
loop, written from the spec text: the protocol and the spec are language-neutral. Skipped
when ``node`` is not installed."""

from __future__ import annotations

import os
import shutil
from typing import Any

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
    assert {"base", "crash", "torn", "replay", "always-replay", "prefix"} <= passed_modes
    # always-replay is declared and run: nothing of these groups is skipped but the SQLite
    # store's trace (an extension: Node has no SQLite store, so it does not declare it)
    skipped = [r.id for r in suite.results if r.status is Status.SKIP]
    assert skipped == [c.id for c in cases(["journal", "kernel"])
                       if c.data.get("function") == "journal.sqlite-trace"] != []
    assert not impl.crashes


def _drift_case(body: list[Any]) -> dict[str, Any]:
    return {"id": "node.always-replay/drift", "family": "scenario", "anchor": "kernel.replay-serve",
            "tier": "must", "description": "always-replay meets a body that diverges on replay",
            "options": {"alwaysReplay": True},
            "workflow": {"name": "w", "body": body},
            "effects": {"a": {"script": [{"return": 1}]}, "b": {"script": [{"return": 2}]}},
            "deciders": {"pick": {"script": [{"return": "x"}]}},
            "actions": [{"do": "start"}]}


def test_node_adapter_always_replay_reports_a_diverging_replay() -> None:
    # The runner derives always-replay expectations from a passing base case, so a correct
    # kernel never warns there; this checks the detection itself: a body steered by $drift
    # takes another branch on the replay after each step outcome and decision, and each of
    # those replays is reported as conformance.always-replay-diverged (INTERPRETING.md 8).
    assert NODE is not None
    impl = SubprocessImplementation([NODE, ADAPTER], cwd=REPO)
    try:
        impl.request({"cmd": "start", "protocol": 1})
        drift = {"$drift": {"name": "d", "values": [True, False]}}
        branch = {"op": "if", "cond": drift, "then": [{"op": "execute", "tool": "a"}],
                  "else": [{"op": "execute", "tool": "b"}]}
        body: list[Any] = [branch, {"op": "decide", "id": "pick"}, {"op": "return", "value": 1}]
        reply = impl.request({"cmd": "run", "seq": 1, "case": _drift_case(body)})
        action = reply["observations"]["actions"][0]
        assert action["result"] == {"status": "completed", "output": 1}
        assert action["warnings"] == ["conformance.always-replay-diverged"] * 2
        # the same body without the drift replays cleanly: no warning
        steady = [{"op": "execute", "tool": "a"}, *body[1:]]
        reply = impl.request({"cmd": "run", "seq": 2, "case": _drift_case(steady)})
        assert reply["observations"]["actions"][0]["warnings"] == []
    finally:
        impl.close()


def test_node_adapter_passes_every_vector_case() -> None:
    # The chapter modules (stream, governance, effects, deltas, agent) implement every vector
    # function of the suite from the spec text: each is declared, so no vector case is
    # skipped, and every one passes; only the python-re extension (INTERPRETING.md section
    # 13) and the SQLite store's trace (an extension: Node has no SQLite store), which the
    # adapter does not declare, are skipped.
    assert NODE is not None
    impl = SubprocessImplementation([NODE, ADAPTER], cwd=REPO)
    vector_groups = sorted({c.group for c in cases(()) if c.data["family"] == "vector"})
    suite = run(impl, only=vector_groups, generated=False)
    assert not failures(suite), [(r.id, r.message, r.diff[:3]) for r in failures(suite)]
    skipped = [r.id for r in suite.results if r.status is Status.SKIP]
    assert skipped == [c.id for c in cases(vector_groups)
                       if "patterns.python-re" in c.data.get("requires", ())
                       or c.data.get("function") == "journal.sqlite-trace"] != []
    assert {r.status for r in suite.results} == {Status.PASS, Status.SKIP}
    vector_cases = cases(vector_groups)
    assert len(suite.results) == len(vector_cases) > 500
    assert {c.data["function"] for c in vector_cases
            if c.data["family"] == "vector"} - {"journal.sqlite-trace"} <= set(
        suite.implementation["capabilities"])
    assert not impl.crashes


def test_node_adapter_passes_the_agent_loop_groups() -> None:
    # The Node adapter declares ``agent``: its agent loop (agent-loop.mjs, written from
    # spec/agent.md) passes every agent-loop scenario case and its generated crash, torn-write
    # replay and always-replay variants (ADR 0087's crash matrix); nothing is skipped.
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
    assert {"base", "crash", "torn", "replay", "always-replay"} <= passed_modes
    assert {r.status for r in suite.results} == {Status.PASS}
    assert not impl.crashes
