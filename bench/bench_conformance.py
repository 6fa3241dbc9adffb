"""Wall time of the whole conformance suite (with every generated variant: crash matrix,
torn writes, replays, prefixes), in-process and through the subprocess adapter, and through
the Node.js adapter when ``node`` is installed; and the speed-up of ``--jobs N`` over one
process through each adapter, measured in the same run. Printed, never asserted.

    python bench/bench_conformance.py [--random N] [--jobs N]

Targets: the full suite with the crash matrix under 30 s in-process on 2 cores (issue 3);
``--jobs 2`` faster than one process through the subprocess and Node adapters on 2 cores
(issue 15; the report is identical either way, which tests/conformance/test_jobs.py proves);
the full suite through the subprocess adapter (one process) within 2x its in-process time
(issue 31: every message is still validated, through schemas compiled once,
``loom_ref.schema.compile_check``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from collections.abc import Callable, Sequence

from loom_ref.conformance.case import Case, load_cases
from loom_ref.conformance.impl import (
    Implementation,
    InProcessImplementation,
    SubprocessImplementation,
)
from loom_ref.conformance.random_cases import random_cases
from loom_ref.conformance.runner import Runner, Status
from loom_ref.conformance.suite import locate

TARGET_S = 30.0
#: subprocess adapter (one process) / in-process, at most (issue 31)
TARGET_RATIO = 2.0


def measure(label: str, make: Callable[[], Sequence[Implementation]],
            cases: Sequence[Case]) -> float:
    runner = Runner(list(make()), locate())
    t0 = time.perf_counter()
    suite = runner.run(cases)
    elapsed = time.perf_counter() - t0
    counts = ", ".join(f"{suite.count(s)} {s.value}" for s in Status)
    per = 1000 * elapsed / max(1, len(suite.results))
    print(f"{label:<30} {elapsed:7.2f} s  {len(suite.results):6d} runs  {per:6.2f} ms/run  "
          f"({counts})")
    return elapsed


def main() -> None:
    print("(fsync policy: none on every line; every case journals into a memory store)")
    parser = argparse.ArgumentParser()
    parser.add_argument("--random", type=int, default=0, help="add N seeded random scenarios")
    parser.add_argument("--jobs", type=int, default=2, help="processes for the --jobs lines")
    args = parser.parse_args()
    suite = locate()
    repo = os.path.dirname(suite.root)
    cases, _ = load_cases(suite.cases_dir)
    cases += random_cases(args.random, 1) if args.random else []
    print(f"loom-ref conformance suite {suite.version}, {os.cpu_count()} cores, "
          f"python {sys.version.split()[0]}")
    inproc = measure("in-process", lambda: [InProcessImplementation()], cases)
    adapters = {"subprocess adapter": [sys.executable, "-m", "loom_ref.conformance.adapter"]}
    node = shutil.which("node")
    if node:
        adapters["node adapter"] = [node, os.path.join(suite.root, "adapters", "node",
                                                       "loom-adapter.mjs")]
    else:
        print("node not found: the node adapter lines are skipped")
    one: dict[str, float] = {}
    for label, argv in adapters.items():
        one[label] = measure(f"{label}, 1 process",
                             lambda argv=argv: [SubprocessImplementation(argv, cwd=repo)], cases)
        many = measure(f"{label}, --jobs {args.jobs}",
                       lambda argv=argv: [SubprocessImplementation(argv, cwd=repo)
                                          for _ in range(args.jobs)], cases)
        print(f"  --jobs {args.jobs} speed-up through the {label}: {one[label] / many:.2f}x")
    print(f"in-process / target ({TARGET_S:g} s): {inproc / TARGET_S:.2f}")
    print(f"subprocess adapter / in-process: {one['subprocess adapter'] / inproc:.2f} "
          f"(target at most {TARGET_RATIO:.2f})")


if __name__ == "__main__":
    main()
