"""What the suite reaches outside the Python-only regions, and what it does not.

:func:`analyse` splits each measured file's statements and missing branches into those inside
a reviewed region (:mod:`tools.coverage.regions`) and those outside; :func:`render` prints the
uncovered lines and branches outside the regions, grouped by file and function, with the
counts; the mutation tool draws its sample from :attr:`Reach.covered` (lines the suite runs,
outside the regions).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TextIO

import attrs

from .measure import FileCoverage
from .regions import Regions, functions_of, qualname_at

__all__ = ["Reach", "analyse", "render"]


@attrs.frozen(kw_only=True)
class Reach:
    """The split of one measurement."""

    #: file -> lines the suite ran, outside the regions
    covered: dict[str, frozenset[int]]
    #: file -> function -> uncovered lines outside the regions
    uncovered: dict[str, dict[str, list[int]]]
    #: file -> function -> missing branches (from, to) outside the regions (from line ran)
    branches: dict[str, dict[str, list[tuple[int, int]]]]
    statements_outside: int
    statements_inside: int
    branches_missing_outside: int
    problems: list[str]

    @property
    def uncovered_count(self) -> int:
        return sum(len(v) for f in self.uncovered.values() for v in f.values())

    @property
    def branch_count(self) -> int:
        return sum(len(v) for f in self.branches.values() for v in f.values())


def analyse(files: Mapping[str, FileCoverage], regions: Regions, root: str) -> Reach:
    covered: dict[str, frozenset[int]] = {}
    uncovered: dict[str, dict[str, list[int]]] = {}
    branches: dict[str, dict[str, list[tuple[int, int]]]] = {}
    inside = outside = 0
    for rel in sorted(files):
        fc = files[rel]
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            source = f.read()
        spans = functions_of(source)
        text = source.splitlines()
        stale = [n for n in sorted(fc.statements) if n > len(text) or not text[n - 1].strip()]
        if stale:  # coverage never counts a blank line, nor one past the end, as a statement
            raise SystemExit(
                f"{rel}: the coverage data names line {stale[0]} as a statement, which is "
                f"{'past the end' if stale[0] > len(text) else 'blank'} in the file now: the "
                f"file changed since it was measured; measure again "
                f"(python -m tools.coverage --keep JSON)")
        keep: set[int] = set()
        held: set[int] = set()
        for line in sorted(fc.statements):
            name = qualname_at(spans, line)
            if regions.region_of(rel, name, text[line - 1]) is not None:
                held.add(line)
                inside += 1
                continue
            outside += 1
            if line in fc.executed:
                keep.add(line)
            else:
                uncovered.setdefault(rel, {}).setdefault(name, []).append(line)
        covered[rel] = frozenset(keep)
        for a, b in fc.missing_branches:
            # a branch whose source line never ran is counted with that line already; one
            # into a region's line (an assert_never arm, a Python-only refusal) is that region's
            if a in keep and a not in held and b not in held:
                name = qualname_at(spans, a)
                branches.setdefault(rel, {}).setdefault(name, []).append((a, b))
    total_b = sum(len(v) for f in branches.values() for v in f.values())
    return Reach(covered=covered, uncovered=uncovered, branches=branches,
                 statements_outside=outside, statements_inside=inside,
                 branches_missing_outside=total_b,
                 problems=[*regions.problems, *regions.unused(files)])


def _ranges(lines: list[int]) -> str:
    out: list[str] = []
    start = prev = lines[0]
    for n in lines[1:] + [-1]:
        if n == prev + 1:
            prev = n
            continue
        out.append(str(start) if start == prev else f"{start}-{prev}")
        start = prev = n
    return ",".join(out)


def render(reach: Reach, out: TextIO, *, limit: int = 0) -> None:
    """The uncovered lines and branches outside the regions, by file and function; ``limit``
    > 0 prints only that many files (the biggest first), < 0 none; the counts are always
    whole."""
    per_file = sorted(set(reach.uncovered) | set(reach.branches),
                      key=lambda f: (-(sum(len(v) for v in reach.uncovered.get(f, {}).values())
                                       + sum(len(v) for v in reach.branches.get(f, {}).values())),
                                     f))
    shown = [] if limit < 0 else per_file[:limit] if limit > 0 else per_file
    for rel in shown:
        lines = reach.uncovered.get(rel, {})
        brs = reach.branches.get(rel, {})
        n_l = sum(len(v) for v in lines.values())
        n_b = sum(len(v) for v in brs.values())
        out.write(f"{rel}: {n_l} line(s), {n_b} branch(es)\n")
        for name in sorted(set(lines) | set(brs)):
            parts = []
            if name in lines:
                parts.append(f"lines {_ranges(lines[name])}")
            if name in brs:
                parts.append("branches " + ",".join(
                    f"{a}->{'exit' if b < 0 else b}" for a, b in brs[name]))
            out.write(f"  {name}: {'; '.join(parts)}\n")
    if limit > 0 and len(per_file) > limit:
        out.write(f"... and {len(per_file) - limit} more file(s) (--all)\n")
    ran = reach.statements_outside - reach.uncovered_count
    pct = 100.0 * ran / reach.statements_outside if reach.statements_outside else 100.0
    out.write(f"\noutside the Python-only regions: {reach.statements_outside} statements, "
              f"{ran} run by the suite ({pct:.1f}%); uncovered: {reach.uncovered_count} "
              f"line(s) and {reach.branch_count} branch(es) in "
              f"{len(per_file)} file(s)\n"
              f"inside the regions: {reach.statements_inside} statements\n")
    for p in reach.problems:
        out.write(f"problem: {p}\n")
