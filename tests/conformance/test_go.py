"""The Go adapter (conformance/adapters/go, standard library only, written blind from the spec)
builds offline, declares the capabilities its README lists, and passes every case it declares,
generated variants included. Skipped when ``go`` is not installed; under
``LOOM_REF_REQUIRE_TOOLCHAINS=1`` (set by ``.ci/run``) a missing ``go`` fails. A build of some
seconds and the whole suite through a subprocess: part of the full matrix (tests/conftest.py)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from loom_ref.conformance.impl import SubprocessImplementation
from loom_ref.conformance.runner import Status

from .helpers import failures, run

REPO = Path(__file__).resolve().parents[2]
SOURCE = REPO / "conformance" / "adapters" / "go"

#: what the Go adapter leaves out, and why (its README): Go cannot hold a lone surrogate;
#: its pattern engine is RE2, not Python's re; it has no content-resolving store and no
#: SQLite store (extensions).
NOT_DECLARED = {"text.lone-surrogates", "patterns.python-re", "journal.content",
                "journal.sqlite-trace"}


def _go() -> str:
    go = shutil.which("go")
    if go is None:
        reason = "go is not installed: the Go adapter is not built"
        if os.environ.get("LOOM_REF_REQUIRE_TOOLCHAINS") == "1":
            pytest.fail(reason + " (LOOM_REF_REQUIRE_TOOLCHAINS=1)", pytrace=False)
        pytest.skip(reason)
    return go


def test_go_adapter_builds_and_passes_every_case_it_declares(tmp_path: Path) -> None:
    go = _go()
    binary = tmp_path / "loom-adapter"
    env = {**os.environ, "GOPROXY": "off", "GOFLAGS": "-mod=mod"}
    subprocess.run([go, "vet", "./..."], cwd=SOURCE, env=env, check=True, timeout=600)
    subprocess.run([go, "build", "-o", str(binary), "."], cwd=SOURCE, env=env, check=True,
                   timeout=600)
    impl = SubprocessImplementation([str(binary)], cwd=str(REPO))
    suite = run(impl)
    assert not failures(suite), [(r.id, r.message) for r in failures(suite)][:10]
    assert suite.implementation["language"] == "go"
    declared = set(suite.implementation["capabilities"])
    known = set(json.loads((REPO / "conformance" / "capabilities.json").read_text())
                ["capabilities"])
    assert known - declared == NOT_DECLARED
    ran = [r for r in suite.results if r.status is Status.PASS]
    assert len(ran) > 4000  # cases and generated variants: the whole suite ran, not a corner
    assert not impl.crashes
