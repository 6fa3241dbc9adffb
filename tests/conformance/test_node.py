"""The Node.js adapter (conformance/adapters/node, no npm dependencies) passes the journal and
kernel groups over its own minimal kernel, and the seven stream groups over its own
``stream.mjs`` and ``stream-io.mjs``: the protocol is language-neutral. Skipped when ``node``
is not installed."""

from __future__ import annotations

import os
import shutil

import pytest

from loom_ref.conformance.impl import SubprocessImplementation
from loom_ref.conformance.random_cases import random_cases
from loom_ref.conformance.runner import Status

from .helpers import failures, run

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


STREAM_GROUPS = ["stream.checker", "stream.assembler", "stream.wire", "stream.enforce",
                 "stream.consume", "stream.openai", "stream.attribution"]
STREAM_FUNCTIONS = {"stream.check", "stream.assemble", "stream.decode", "stream.enforce",
                    "stream.consume", "stream.openai_map", "stream.attribution_headers"}


def test_node_adapter_passes_the_stream_groups() -> None:
    # stream.mjs and stream-io.mjs implement the seven stream vector functions from
    # spec/stream.md: every case of every stream group is sent (declared, so none is skipped)
    # and passes.
    assert NODE is not None
    impl = SubprocessImplementation([NODE, ADAPTER], cwd=REPO)
    suite = run(impl, only=STREAM_GROUPS, generated=False)
    assert not failures(suite), [(r.id, r.message, r.diff[:3]) for r in failures(suite)]
    by_group: dict[str, set[Status]] = {}
    for r in suite.results:
        by_group.setdefault(r.id.split("/")[0], set()).add(r.status)
    assert by_group == {group: {Status.PASS} for group in STREAM_GROUPS}
    assert len(suite.results) >= 150
    assert set(suite.implementation["capabilities"]) >= STREAM_FUNCTIONS
    assert not impl.crashes


def test_node_adapter_reports_other_groups_as_skipped() -> None:
    # taint.guard's function (taint.guard_request) is not declared by the Node adapter.
    assert NODE is not None
    suite = run(SubprocessImplementation([NODE, ADAPTER], cwd=REPO), only=["taint.guard"],
                generated=False)
    assert suite.results and all(r.status is Status.SKIP for r in suite.results)
    assert "taint.guard_request" in suite.results[0].message


def test_node_adapter_skips_the_agent_loop_groups() -> None:
    # The Node adapter has no agent loop: it does not declare ``agent``, so every case of the
    # agent-loop scenario groups is skipped with that reason, never failed nor passed.
    assert NODE is not None
    groups = ["agent.loop", "agent.tools", "agent.approval", "agent.choices", "agent.router",
              "agent.summary", "agent.errors"]
    suite = run(SubprocessImplementation([NODE, ADAPTER], cwd=REPO), only=groups,
                generated=False)
    assert len(suite.results) >= 50
    assert all(r.status is Status.SKIP for r in suite.results)
    assert all("'agent'" in r.message for r in suite.results)
