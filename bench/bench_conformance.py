"""Wall time of the whole conformance suite (with every generated variant: crash matrix,
torn writes, replays, prefixes), in-process and through the subprocess adapter, and through
the Node.js adapter when ``node`` is installed. Printed, never asserted.

    python bench/bench_conformance.py [--random N]

Target (issue 3): the full suite with the crash matrix under 30 s in-process on 2 cores.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time

from loom_ref.conformance.case import load_cases
from loom_ref.conformance.impl import (
    Implementation,
    InProcessImplementation,
    SubprocessImplementation,
)
from loom_ref.conformance.random_cases import random_cases
from loom_ref.conformance.runner import Runner, Status
from loom_ref.conformance.schemas import SchemaSet, conformance_root

TARGET_S = 30.0


def measure(label: str, impl: Implementation, extra_random: int) -> float:
    root = conformance_root()
    cases, _ = load_cases(os.path.join(root, "cases"))
    cases += random_cases(extra_random, 1) if extra_random else []
    runner = Runner(impl, SchemaSet(os.path.join(root, "schemas")))
    t0 = time.perf_counter()
    suite = runner.run(cases)
    elapsed = time.perf_counter() - t0
    counts = ", ".join(f"{suite.count(s)} {s.value}" for s in Status)
    per = 1000 * elapsed / max(1, len(suite.results))
    print(f"{label:<28} {elapsed:7.2f} s  {len(suite.results):6d} runs  {per:6.2f} ms/run  "
          f"({counts})")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--random", type=int, default=0, help="add N seeded random scenarios")
    args = parser.parse_args()
    repo = os.path.dirname(conformance_root())
    print(f"loom-ref conformance suite, {os.cpu_count()} cores, python {sys.version.split()[0]}")
    inproc = measure("in-process", InProcessImplementation(), args.random)
    sub = measure("subprocess adapter", SubprocessImplementation(
        [sys.executable, "-m", "loom_ref.conformance.adapter"], cwd=repo), args.random)
    node = shutil.which("node")
    if node:
        measure("node adapter", SubprocessImplementation(
            [node, os.path.join(repo, "conformance", "adapters", "node", "loom-adapter.mjs")],
            cwd=repo), args.random)
    print(f"in-process / target ({TARGET_S:g} s): {inproc / TARGET_S:.2f}; "
          f"subprocess / in-process: {sub / inproc:.2f}")


if __name__ == "__main__":
    main()
