"""Running the conformance suite under coverage, and what it reached, file by file.

The suite runs as an implementer runs it against loom-ref, in-process: ``loom-ref
conformance --profile loom-ref`` (every case, the loom-ref profile's included, and every
generated variant, among them the store mode, which runs each scenario once more on each
journal store the in-process adapter names: memory, file, log, SQLite and content). It runs
in a fresh Python process whose ``sys.path`` starts at the measured tree, with line and
branch coverage of ``loom_ref/`` started before anything of ``loom_ref`` is imported.

coverage.py (PyPI ``coverage``, the ``dev`` extra) is this tool's dependency only, never the
package's. Its own exclusions (``# pragma: no cover``) are switched off: a line the suite does
not reach is excused only by the reviewed file of Python-only regions, never by a comment.
Three kinds of lines are left out because they are not behaviour: the blocks of ``if
TYPE_CHECKING:`` (imports for the type checker, never run), ``@overload`` stubs, and
``typing.Protocol`` classes and ``...`` bodies (a protocol declares what an implementation
has; its stubs never run).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from typing import Any

import attrs

__all__ = ["FileCoverage", "Measured", "measure", "read_report"]

# The child: coverage first, then the suite's own command line, then the JSON report.
_CHILD = r"""
import json, os, sys
import coverage
root, data, report, argv = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
cov = coverage.Coverage(branch=True, source=["loom_ref"], data_file=data, config_file=False)
cov.clear_exclude()
cov.exclude(r"^\s*if (typing\.)?TYPE_CHECKING:")
cov.exclude(r"^\s*@(typing\.)?overload\b")
cov.exclude(r"^\s*class \w+\((typing\.)?Protocol(\[[^]]*\])?\):")
cov.exclude(r"^\s*\.\.\.\s*$")
cov.start()
import loom_ref
assert os.path.abspath(loom_ref.__file__).startswith(root + os.sep), loom_ref.__file__
from loom_ref.cli.main import main
try:
    status = main(argv)
except SystemExit as exc:
    status = exc.code if isinstance(exc.code, int) else 1
cov.stop()
cov.save()
cov.json_report(outfile=report, show_contexts=False)
sys.exit(status)
"""

#: the suite as an implementer runs it against loom-ref (every case, every variant)
SUITE_ARGV = ("conformance", "--profile", "loom-ref", "--quiet")


@attrs.frozen(kw_only=True)
class FileCoverage:
    """What the suite reached in one file of ``loom_ref/``."""

    file: str                                   # relative to the root, with "/"
    statements: frozenset[int]                  # the lines coverage counts as statements
    executed: frozenset[int]                    # those the suite ran
    missing_branches: tuple[tuple[int, int], ...]  # (from line, to line), to < 0: an exit

    @property
    def missing(self) -> frozenset[int]:
        return self.statements - self.executed


@attrs.frozen(kw_only=True)
class Measured:
    """A measurement: the command that was run, its exit status, and every file."""

    argv: tuple[str, ...]
    status: int
    files: dict[str, FileCoverage]


def read_report(path: str) -> dict[str, FileCoverage]:
    """coverage.py's JSON report -> :class:`FileCoverage` per file of ``loom_ref/``."""
    with open(path, encoding="utf-8") as f:
        doc: dict[str, Any] = json.load(f)
    out: dict[str, FileCoverage] = {}
    for name, entry in doc["files"].items():
        rel = name.replace(os.sep, "/")
        if not rel.startswith("loom_ref/"):
            continue
        executed = frozenset(entry["executed_lines"])
        statements = executed | frozenset(entry["missing_lines"])
        out[rel] = FileCoverage(
            file=rel, statements=statements, executed=executed,
            missing_branches=tuple(sorted((int(a), int(b))
                                          for a, b in entry.get("missing_branches", []))))
    return out


def measure(root: str, *, argv: Sequence[str] = SUITE_ARGV, keep: str | None = None,
            quiet: bool = False) -> Measured:
    """Run the suite under coverage in a fresh process rooted at ``root``.

    ``keep``: write coverage.py's own JSON report there too (``--data`` reads it back)."""
    root = os.path.abspath(root)
    with tempfile.TemporaryDirectory(prefix="loom-coverage-") as tmp:
        data = os.path.join(tmp, ".coverage")
        report = keep or os.path.join(tmp, "coverage.json")
        env = {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}
        proc = subprocess.run(
            [sys.executable, "-c", _CHILD, root, data, report, json.dumps(list(argv))],
            cwd=root, env=env, stdout=None if not quiet else subprocess.DEVNULL)
        if not os.path.exists(report):
            raise SystemExit(f"the suite under coverage wrote no report (exit {proc.returncode})")
        return Measured(argv=tuple(argv), status=proc.returncode, files=read_report(report))
