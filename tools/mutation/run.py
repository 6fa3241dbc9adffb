"""Scoring one mutant: a scratch copy of the project, a fresh process, a time limit.

A mutant is never applied to the tree it was read from. Each worker copies the project's
tracked files once into a scratch directory; for each mutant it writes the mutated file
there, runs the scoring stages in a fresh Python process whose ``sys.path`` starts at the
scratch copy (so ``import loom_ref`` is the mutated package, whatever is installed), then
writes the original text back. Bytecode is never written in the scratch copy and the
mutated file's cached bytecode is removed first, so no mutant leaks into the next.

Stages, in order, stopping at the first that kills the mutant:

1. ``loom-ref conformance --profile loom-ref --no-generated --only <the layer's groups>``;
2. ``loom-ref conformance --profile loom-ref --no-generated`` (every case);
3. ``loom-ref conformance --profile loom-ref`` (every case and every generated variant);

(``--profile loom-ref``: every case is judged, loom-ref's own choices too; the default core
profile would let a failing loom-ref case pass the run.)
4. with ``pytest``: ``python -m pytest -x`` over the layer's test directories.

A stage kills when its exit status is not 0; a stage that runs past the time limit kills
too (``timeout``, the process group is killed), and so does one that runs out of its memory
(:data:`MEMORY_LIMIT`: a MemoryError, or a crash). Stages 1-3 are *the suite*; a mutant only
stage 4 kills is "killed only by pytest".
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from .sites import Mutant, apply

__all__ = ["GROUPS", "PYTEST_DIRS", "Outcome", "Scratch", "tracked_files"]

#: layer -> the conformance groups that pin its rules (stage 1)
GROUPS: Mapping[str, Sequence[str]] = {
    "kernel": ["kernel"], "journal": ["journal"], "effects": ["effects", "deltas"],
    "governance": ["taint", "validators", "guards"], "stream": ["stream"], "agent": ["agent"],
}
#: layer -> its pytest directories (stage 4)
PYTEST_DIRS: Mapping[str, Sequence[str]] = {
    "kernel": ["tests/kernel"], "journal": ["tests/journal"],
    "effects": ["tests/effects", "tests/deltas"], "governance": ["tests/governance"],
    "stream": ["tests/stream"], "agent": ["tests/agent"],
}

# The child: run the suite's own command line in-process, stage after stage. It proves that
# the package it imported is the scratch copy before anything else.
_CHILD = r"""
import json, os, sys
root = os.getcwd()
import loom_ref
assert loom_ref.__file__.startswith(root + os.sep), loom_ref.__file__
from loom_ref.cli.main import main
out = []
for name, argv in json.loads(sys.argv[1]):
    report = os.path.join(root, ".mutation-report.json")
    if os.path.exists(report):
        os.remove(report)
    try:
        status = main([*argv, "--json", report])
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else 1
    except BaseException as exc:
        status, failing = 1, [f"raised {type(exc).__name__}: {exc}"[:200]]
    else:
        failing = []
    if not failing and os.path.exists(report):
        with open(report, encoding="utf-8") as f:
            doc = json.load(f)
        failing = [c["id"] for c in doc["cases"] if c["status"] in ("fail", "error")]
        failing += [str(p)[:200] for p in doc.get("problems", [])]
    out.append({"stage": name, "status": status, "failing": failing[:5]})
    if status != 0:
        break
sys.__stdout__.write("\n@@MUTATION@@" + json.dumps(out) + "\n")
"""


@attrs.frozen(kw_only=True)
class Outcome:
    """How one mutant fared."""

    verdict: str                  # "suite", "pytest", "beyond", "survived"
    stage: str                    # the stage that killed it ("" if none)
    how: str                      # "fail", "error", "timeout", "crash"
    detail: list[str]             # failing case ids, or the tail of stderr
    seconds: float


def tracked_files(root: str) -> list[str]:
    """The project's files, as git knows them (committed or added), that exist now."""
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         cwd=root, check=True, capture_output=True).stdout
    names = [n for n in out.decode("utf-8").split("\0") if n]
    return [n for n in names if os.path.isfile(os.path.join(root, n))]


def _stages(layer: str, generated: bool) -> list[tuple[str, list[str]]]:
    # --profile loom-ref: every case judges (issue 28 split the profiles; without it a case
    # of loom-ref's own choices that fails is "not judged" and the run exits 0)
    base = ["conformance", "--quiet", "--profile", "loom-ref", "--no-generated"]
    stages = [("layer", [*base, *[a for g in GROUPS[layer] for a in ("--only", g)]]),
              ("cases", base)]
    if generated:
        stages.append(("variants", ["conformance", "--quiet", "--profile", "loom-ref"]))
    return stages


#: The address space a scoring process may take (4 GiB; the suite needs a few hundred MiB). A
#: mutant that makes an allocation run away (a regex size check deleted, say) then fails with
#: MemoryError, a kill like any crash, instead of filling the machine until the time limit.
MEMORY_LIMIT = 4 << 30


def limit_memory(limit: int = MEMORY_LIMIT) -> None:
    """Cap this process's address space at ``limit`` bytes (run in the child, before exec)."""
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


class Scratch:
    """A scratch copy of the project in which one mutant at a time is applied."""

    def __init__(self, root: str, *, timeout: float, pytest_timeout: float) -> None:
        self.root = os.path.abspath(root)
        self.dir = tempfile.mkdtemp(prefix="loom-mutation-")
        self.timeout = timeout
        self.pytest_timeout = pytest_timeout
        for name in tracked_files(self.root):
            if name.startswith("tools/"):
                continue
            dest = os.path.join(self.dir, name)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            shutil.copy2(os.path.join(self.root, name), dest)
        self.env = {**os.environ, "PYTHONPATH": self.dir, "PYTHONDONTWRITEBYTECODE": "1",
                    "PYTHONHASHSEED": "0", "LOOM_REF_ARTIFACTS": os.path.join(self.dir, ".art")}
        self.env.pop("LOOM_REF_REQUIRE_BROWSER", None)

    def close(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)

    def _run(self, argv: list[str], timeout: float) -> tuple[int | None, str, str]:
        """Run ``argv`` in the scratch copy in its own process group; ``None`` on timeout."""
        proc = subprocess.Popen(argv, cwd=self.dir, env=self.env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True,
                                preexec_fn=limit_memory)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            return None, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
        return proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")

    def suite(self, layer: str, *, generated: bool = True) -> tuple[str, str, list[str]]:
        """Run the suite's stages: ``(stage, how, detail)``, stage ``""`` if all passed."""
        stages = _stages(layer, generated)
        code, out, err = self._run([sys.executable, "-c", _CHILD, json.dumps(stages)],
                                   self.timeout)
        if code is None:
            return "suite", "timeout", [f"no verdict within {self.timeout:.0f} s"]
        marker = out.rfind("@@MUTATION@@")
        if marker < 0:
            return "suite", "crash", [f"exit {code}", *err.strip().splitlines()[-3:]]
        ran: list[dict[str, Any]] = json.loads(out[marker + len("@@MUTATION@@"):])
        last = ran[-1]
        if last["status"] == 0 and len(ran) == len(stages):
            return "", "", []
        how = "fail" if last["status"] == 1 and last["failing"] else "error"
        detail = list(last["failing"]) or err.strip().splitlines()[-3:]
        return last["stage"], how, detail

    def pytest(self, layer: str, nodes: Sequence[str] = ()) -> tuple[str, list[str]]:
        """Run the layer's tests (or these node ids): ``(how, detail)``, how ``""`` if they
        passed."""
        argv = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                "--hypothesis-seed=0", *(nodes or PYTEST_DIRS[layer])]
        code, out, _ = self._run(argv, self.pytest_timeout)
        if code is None:
            return "timeout", [f"no verdict within {self.pytest_timeout:.0f} s"]
        if code == 0:
            return "", []
        failed = [line for line in out.splitlines() if line.startswith(("FAILED", "ERROR"))]
        return ("fail" if code == 1 else "error"), (failed or out.splitlines()[-2:])[:3]

    def score(self, mutant: Mutant, layer: str, *, pytest: bool,
              generated: bool = True, beyond: Sequence[str] = ()) -> Outcome:
        """Apply ``mutant`` in the scratch copy, score it, and put the original back.

        ``beyond``: the pytest node ids a reviewed ``beyond-protocol`` entry names; a mutant
        the suite does not kill is ``beyond`` if they kill it, else ``survived`` (detail says
        the named tests passed)."""
        path = os.path.join(self.dir, mutant.file)
        with open(path, encoding="utf-8") as f:
            original = f.read()
        cache = os.path.join(os.path.dirname(path), "__pycache__")
        stem = os.path.splitext(os.path.basename(path))[0] + "."
        if os.path.isdir(cache):
            for name in os.listdir(cache):
                if name.startswith(stem):
                    os.remove(os.path.join(cache, name))
        began = time.monotonic()
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write(apply(original, mutant))
            stage, how, detail = self.suite(layer, generated=generated)
            if stage:
                return Outcome(verdict="suite", stage=stage, how=how, detail=detail,
                               seconds=time.monotonic() - began)
            if beyond:
                how, detail = self.pytest(layer, beyond)
                if how:
                    return Outcome(verdict="beyond", stage="pytest", how=how, detail=detail,
                                   seconds=time.monotonic() - began)
                detail = [f"reviewed beyond-protocol, but its tests passed: {' '.join(beyond)}"]
                return Outcome(verdict="survived", stage="", how="", detail=detail,
                               seconds=time.monotonic() - began)
            if pytest:
                how, detail = self.pytest(layer)
                if how:
                    return Outcome(verdict="pytest", stage="pytest", how=how, detail=detail,
                                   seconds=time.monotonic() - began)
            return Outcome(verdict="survived", stage="", how="", detail=[],
                           seconds=time.monotonic() - began)
        finally:
            with open(path, "w", encoding="utf-8") as f:
                f.write(original)
