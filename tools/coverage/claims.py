"""Checking the reviewed file's claims: does the pytest each region names cover it?

Every region of ``python-only.toml`` names the pytest that covers it. :func:`check` runs all
the named tests once, in one pytest process under line coverage of ``loom_ref/``, and reports
each region whose lines the suite leaves uncovered and that run leaves uncovered too: a
region is a checked claim, not a place to hide lines. (One run for every region: a region
counts as covered when any named test reaches it; the names say where to look.) A folder
region (the CLI, the runner, the test instruments) is too wide to be covered by a few tests
and is not checked line by line: its reason is the claim.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping

from .measure import FileCoverage, read_report
from .regions import Regions, functions_of, qualname_at

__all__ = ["check"]


def check(root: str, regions: Regions, suite: Mapping[str, FileCoverage]) -> list[str]:
    """Problems: ``(region, lines the suite and the named tests both leave uncovered)``."""
    checked = [r for r in regions.regions if not r.file.endswith("/")]
    nodes = sorted({t for r in checked for t in r.pytest})
    with tempfile.TemporaryDirectory(prefix="loom-claims-") as tmp:
        data, report = os.path.join(tmp, ".coverage"), os.path.join(tmp, "cov.json")
        env = {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}
        subprocess.run([sys.executable, "-m", "coverage", "run", "--branch",
                        "--source=loom_ref", f"--data-file={data}", "-m", "pytest", "-q",
                        "-p", "no:cacheprovider", *nodes], cwd=root, env=env,
                       stdout=subprocess.DEVNULL)
        subprocess.run([sys.executable, "-m", "coverage", "json", f"--data-file={data}",
                        "-o", report], cwd=root, env=env, stdout=subprocess.DEVNULL, check=True)
        tested = read_report(report)
    out: list[str] = []
    spans: dict[str, list[tuple[int, int, str]]] = {}
    texts: dict[str, list[str]] = {}
    for r in checked:
        left: list[int] = []
        for rel, fc in suite.items():
            if not r.holds(rel, "") and not (r.function and rel == r.file):
                continue
            if rel not in spans:
                with open(os.path.join(root, rel), encoding="utf-8") as f:
                    source = f.read()
                spans[rel], texts[rel] = functions_of(source), source.splitlines()
            ran = tested[rel].executed if rel in tested else frozenset()
            left += [n for n in sorted(fc.missing)
                     if r.holds(rel, qualname_at(spans[rel], n), texts[rel][n - 1])
                     and n not in ran]
        if left:
            shown = ",".join(map(str, left[:8])) + (" ..." if len(left) > 8 else "")
            out.append(f"region {r.file} {r.function}: lines {shown} are reached neither by "
                       f"the suite nor by its named pytest ({' '.join(r.pytest)})")
    return out
