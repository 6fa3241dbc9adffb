"""python -m tools.mutation: how strong is the conformance suite, layer by layer?

Mutates loom_ref (one small change at a time, in a scratch copy, never in this tree), scores
each mutant with the conformance suite alone (``loom-ref conformance``, in-process, in a
fresh process with a time limit) and optionally with pytest, and prints a table per layer:
mutants, killed by the suite, killed only by pytest, survived, equivalent and beyond the
protocol (the reviewed lists ``tools/mutation/reviewed/<layer>.json``), and each survivor's
file, line and change.

Two scores per layer. ``suite score`` is issue 21's measure: killed by the suite over the
mutants less the equivalent ones. ``in reach`` leaves out the ``beyond-protocol`` mutants too:
those whose change only a Python caller can observe, each reviewed with its reason and the
pytest that kills it, which the run confirms (a reviewed mutant those tests do not kill is a
survivor). Issue 30: a line every change of which only a Python caller can observe (an
argument check every protocol path has made before, a value only a Python caller reads, a
test instrument) is not a reviewed entry but a Python-only region of
``tools/coverage/python-only.toml``, narrowed to that line, so the sample never holds it; an
entry is left only for a mutant whose line also carries a change the protocol can show.

The table of issue 21 (a seeded sample of 60 random mutants per layer, the suite's survivors
scored with pytest too; about 40 minutes on two cores), from the project's root:

    python -m tools.mutation --sample 60 --seed 21 --every-line --pytest --jobs 2

The semantic mutants (``tools/mutation/semantic.py``: hand-written changes, each breaking one
rule of the seeds, named by its spec anchor) are scored alone, in about two minutes, with
``python -m tools.mutation --semantic --no-random --jobs 1``.

The edge mutants (``tools/mutation/edge.py``, issue 30: hand-written changes, each breaking
one rule of ``spec/`` at its boundary -- a threshold off by one, two checks in the other
order, two spellings with their precedence reversed, empty taken as non-empty, only the first
of several handled -- written without seeing the suite's cases and fixed before they were
first scored) are scored alone, with the suite alone, by
``python -m tools.mutation --edge --no-random --jobs 1 --timeout 90``. The cases were then
strengthened against that set, so it no longer measures anything; ``--edge2`` scores a second,
independent set (``tools/mutation/edge2.py``, operator ``edge2``: written by a second reader
who had seen neither the cases nor the first set, fixed before it was first scored), alone,
by ``python -m tools.mutation --edge2 --no-random --jobs 1 --timeout 90``. ``--edge3`` scores a
third (``tools/mutation/edge3.py``, operator ``edge3``: written by a third reader who had seen
neither the cases nor the entries of the first two sets, fixed before it was first scored),
alone, by ``python -m tools.mutation --edge3 --no-random --jobs 1 --timeout 90``.

Other runs:

    python -m tools.mutation --layer kernel --sample 20          # one layer, a quick look
    python -m tools.mutation --file loom_ref/kernel/driver.py    # every mutant of one file
    python -m tools.mutation --layer kernel --function _Drive.serve
    python -m tools.mutation --list --layer stream --sample 10   # what would run, no scoring
    python -m tools.mutation --show loom_ref/kernel/driver.py:120:15:cmp   # one mutant's diff
    python -m tools.mutation --mutant ID [--mutant ID ...]       # score these mutants
    python -m tools.mutation --sample 60 --seed 21 --out rows.jsonl --resume  # go on

Issue 30: a sample is drawn from the lines the conformance suite runs outside the reviewed
Python-only regions (``tools/coverage/python-only.toml``; ``--coverage JSON`` reuses a
measurement of ``python -m tools.coverage --keep JSON``, else one is made, about a minute),
with a seed from the clock unless ``--seed`` is given; the seed is printed, and the table says
how many of the drawn mutants the reviewed list judged equivalent (an entry counts only when
its mutant is drawn). ``--every-line`` draws from every line, as before.

CI runs one mutant per layer as information (``.ci/run``); a whole table takes an hour or
more on two cores.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import hashlib
import json
import os
import sys
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from .population import (
    LAYERS,
    Reviewed,
    edge,
    edge2,
    edge3,
    layer_of,
    population,
    sample,
    semantic,
)
from .report import Row, record, render
from .run import Scratch, tracked_files
from .sites import Mutant, apply

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m tools.mutation", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--layer", action="append", choices=LAYERS,
                   help="a layer to mutate (repeatable; default: all six)")
    p.add_argument("--file", help="mutate only this file (a path under loom_ref/)")
    p.add_argument("--function", help="mutate only inside this qualified name")
    p.add_argument("--sample", type=int, help="draw this many random mutants per layer "
                   "(default: every mutant)")
    p.add_argument("--seed", type=int, help="the sample's seed (default: taken from the "
                   "clock, and printed; give it to draw the same sample again)")
    p.add_argument("--coverage", metavar="JSON", help="coverage.py's JSON report of the "
                   "suite (python -m tools.coverage --keep JSON): the sample is drawn from "
                   "the lines it ran outside the Python-only regions (default: measured "
                   "now, about a minute)")
    p.add_argument("--every-line", action="store_true", help="draw from every line, "
                   "reached or not, Python-only or not (the old population)")
    p.add_argument("--semantic", action="store_true", help="score the semantic mutants too")
    p.add_argument("--edge", action="store_true", help="score the edge mutants too "
                   "(tools/mutation/edge.py: hand-written changes at the boundary of a rule)")
    p.add_argument("--edge2", action="store_true", help="score the second set of edge "
                   "mutants too (tools/mutation/edge2.py: written without seeing the cases or "
                   "the first set)")
    p.add_argument("--edge3", action="store_true", help="score the third set of edge "
                   "mutants too (tools/mutation/edge3.py: written without seeing the cases or "
                   "the first two sets)")
    p.add_argument("--no-random", action="store_true", help="no random mutants (with "
                   "--semantic, --edge, --edge2 or --edge3: only the hand-written ones)")
    p.add_argument("--mutant", action="append", metavar="ID", help="score this mutant "
                   "(repeatable; an id as the table prints it)")
    p.add_argument("--again", metavar="ROWS", help="score again the mutants of an earlier "
                   "run's --out file, found by key (a mutant whose line changed is 'gone')")
    p.add_argument("--pytest", action="store_true", help="score the suite's survivors "
                   "with the layer's pytest directories too")
    p.add_argument("--no-generated", action="store_true", help="leave out the suite's "
                   "generated variants (a quicker, weaker score)")
    p.add_argument("--jobs", type=int, default=1, help="mutants scored at once (default 1)")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds the suite may "
                   "take on one mutant (default 120; a hang is a kill: 'timeout')")
    p.add_argument("--pytest-timeout", type=float, default=900.0)
    p.add_argument("--out", help="append one JSON line per scored mutant here")
    p.add_argument("--resume", action="store_true", help="with --out: reuse the rows of "
                   "mutants already scored on this same tree")
    p.add_argument("--list", action="store_true", help="list the mutants, score nothing")
    p.add_argument("--show", metavar="ID", help="print one mutant's diff and exit")
    p.add_argument("--table", metavar="ROWS", action="append", help="score nothing: print "
                   "the table of these --out files (repeatable; a later row of a mutant "
                   "replaces an earlier one), the reviewed equivalents applied")
    return p


def _fingerprint() -> str:
    """A hash of every file a score depends on (the tracked tree but tools/)."""
    h = hashlib.sha256()
    for name in sorted(tracked_files(ROOT)):
        if not name.startswith("tools/"):
            h.update(name.encode() + b"\0")
            with open(os.path.join(ROOT, name), "rb") as f:
                h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()[:16]


def _chosen(args: argparse.Namespace) -> list[tuple[str, str, Mutant]]:
    """``(layer, kind, mutant)`` for everything the arguments select."""
    layers = args.layer or ([layer_of(args.file)] if args.file else list(LAYERS))
    if args.mutant or args.show:
        everything = [(layer, m) for layer in layers for m in population(ROOT, layer)]
        wanted = args.mutant or [args.show]
        by_id = {m.id: (layer, m) for layer, m in everything}
        if any(i not in by_id for i in wanted):  # the hand-written mutants only when needed
            by_id.update({m.id: (layer, m) for layer in layers
                          for m in [*semantic(ROOT, layer), *edge(ROOT, layer),
                                    *edge2(ROOT, layer), *edge3(ROOT, layer)]})
        missing = [i for i in wanted if i not in by_id]
        if missing:
            raise SystemExit(f"no such mutant: {', '.join(missing)}")
        return [(by_id[i][0], by_id[i][1].op if by_id[i][1].op in ("semantic", "edge", "edge2",
                                                              "edge3")
                 else "random", by_id[i][1]) for i in wanted]
    out: list[tuple[str, str, Mutant]] = []
    if args.again:
        with open(args.again, encoding="utf-8") as f:
            earlier = [json.loads(line) for line in f if line.strip()]
        for layer in layers:
            mine = {r["key"]: r for r in earlier if r["layer"] == layer}
            candidates = [*population(ROOT, layer), *semantic(ROOT, layer),
                          *edge(ROOT, layer), *edge2(ROOT, layer), *edge3(ROOT, layer)]
            found = {m.key: m for m in candidates if m.key in mine}
            for key, row in mine.items():
                if key in found:
                    out.append((layer, row["kind"], found[key]))
                else:
                    print(f"gone: {row['id']} [{row['op']}] {row['change']} (key {key}): no "
                          "mutant of the tree has this key now", file=sys.stderr)
        return out
    reach = None if args.no_random or args.every_line else _reach(args)
    for layer in layers:
        if not args.no_random:
            pool = population(ROOT, layer, file=args.file, function=args.function)
            if reach is not None:
                pool = [m for m in pool
                        if _statement_line(m.file, m.line) in reach.get(m.file, ())]
            out += [(layer, "random", m) for m in sample(pool, args.sample, args.seed)]
        if args.semantic:
            out += [(layer, "semantic", m) for m in semantic(ROOT, layer)]
        if args.edge:
            out += [(layer, "edge", m) for m in edge(ROOT, layer)]
        if args.edge2:
            out += [(layer, "edge2", m) for m in edge2(ROOT, layer)]
        if args.edge3:
            out += [(layer, "edge3", m) for m in edge3(ROOT, layer)]
    return out


def statement_starts(source: str) -> dict[int, int]:
    """line -> the first line of the innermost statement holding it (a compound statement
    holds its header's lines, not its body's): coverage names a statement by its first line."""
    first: dict[int, int] = {}
    for node in ast.walk(ast.parse(source)):  # outer statements first: the innermost wins
        if isinstance(node, ast.stmt):
            last = node.end_lineno or node.lineno
            body = [s.lineno for field in ("body", "orelse", "finalbody", "handlers")
                    for s in getattr(node, field, None) or []]
            for n in range(node.lineno, min([last, *(b - 1 for b in body)]) + 1):
                first[n] = node.lineno
    return first


_STATEMENTS: dict[str, dict[int, int]] = {}


def _statement_line(file: str, line: int) -> int:
    """The line coverage names ``line`` of ``file`` by, so that a mutant on a later line of a
    statement written over several lines (an argument, a condition's second half) is in reach
    when its statement is."""
    if file not in _STATEMENTS:
        with open(os.path.join(ROOT, file), encoding="utf-8") as f:
            _STATEMENTS[file] = statement_starts(f.read())
    return _STATEMENTS[file].get(line, line)


def _reach(args: argparse.Namespace) -> dict[str, frozenset[int]]:
    """file -> the lines the suite runs outside the Python-only regions (issue 30: a sample
    is drawn from these alone, so a mutant the protocol cannot reach is never drawn)."""
    from tools.coverage.measure import measure, read_report
    from tools.coverage.reach import analyse
    from tools.coverage.regions import Regions

    if args.coverage:
        files = read_report(args.coverage)
    else:
        print("measuring the suite's reach under coverage (--coverage JSON reuses a "
              "measurement)", file=sys.stderr)
        measured = measure(ROOT, quiet=True)
        if measured.status != 0:
            raise SystemExit(f"the suite under coverage exited {measured.status}")
        files = measured.files
    regions = Regions(root=ROOT)
    reach = analyse(files, regions, ROOT)
    if regions.problems:
        raise SystemExit("tools/coverage/python-only.toml: " + "; ".join(regions.problems))
    return reach.covered


def _show(mutant: Mutant) -> None:
    with open(os.path.join(ROOT, mutant.file), encoding="utf-8") as f:
        source = f.read()
    diff = difflib.unified_diff(source.splitlines(True), apply(source, mutant).splitlines(True),
                                f"a/{mutant.file}", f"b/{mutant.file}", n=2)
    sys.stdout.write(f"{mutant.id} [{mutant.op}] {mutant.change} (key {mutant.key})\n")
    sys.stdout.writelines(diff)


def _table(paths: Sequence[str]) -> int:
    """The table of earlier runs' rows, the latest row of each mutant kept."""
    reviewed = Reviewed()
    latest: dict[tuple[str, str], Row] = {}
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    row = json.loads(line)
                    latest[(row["layer"], row["key"])] = row
    rows = []
    for row in latest.values():
        entry = reviewed.by_key.get(row["key"])
        if entry is not None and entry["kind"] == "equivalent":
            row = {**row, "verdict": "equivalent", "reason": entry["reason"]}
        rows.append(row)
    rows.sort(key=lambda r: (LAYERS.index(r["layer"]), r["file"], r["line"]))
    render(rows, sys.stdout, pytest=all(r.get("pytest") for r in rows
                                        if r["verdict"] in ("survived", "pytest")))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.seed is None:
        args.seed = time.time_ns() % 1_000_000
        if args.sample and not (args.mutant or args.show or args.again or args.table):
            print(f"seed {args.seed} (from the clock; --seed {args.seed} draws this sample "
                  "again)", file=sys.stderr)
    if args.table:
        return _table(args.table)
    chosen = _chosen(args)
    if args.show:
        _show(chosen[0][2])
        return 0
    if args.list:
        for layer, kind, m in chosen:
            print(f"{layer:<10} {kind:<8} {m.id} [{m.op}] {m.change}")
        print(f"{len(chosen)} mutants")
        return 0
    reviewed = Reviewed()
    hand_written = ("semantic", "edge", "edge2", "edge3")
    for entry in reviewed.stale(m for _, _, m in chosen if m.op not in hand_written):
        # a sample, one mutant or one function cannot tell a stale entry from one not drawn
        if not (args.sample or args.mutant or args.function):
            print(f"warning: reviewed {entry['kind']} entry {entry['key']} ({entry['file']}: "
                  f"{entry['change']}) matches no mutant", file=sys.stderr)
    fingerprint = _fingerprint()
    done: dict[str, Row] = {}
    if args.out and args.resume and os.path.exists(args.out):
        with open(args.out, encoding="utf-8") as f:
            for line in f:
                row = json.loads(line)
                if row.get("tree") == fingerprint and row.get("pytest", False) >= args.pytest:
                    done[row["key"] + row["id"]] = row
    rows: list[Row] = []
    todo: list[tuple[str, str, Mutant]] = []
    for layer, kind, m in chosen:
        reason = reviewed.reason(m)
        if reason is not None:
            rows.append(record(m, layer, kind, "equivalent", reason=reason))
        elif m.key + m.id in done:
            rows.append(done[m.key + m.id])
        else:
            todo.append((layer, kind, m))
    lock = threading.Lock()
    scratches: list[Scratch] = []
    local = threading.local()

    def score(item: tuple[str, str, Mutant]) -> Row:
        layer, kind, m = item
        if not hasattr(local, "scratch"):
            local.scratch = Scratch(ROOT, timeout=args.timeout,
                                    pytest_timeout=args.pytest_timeout)
            with lock:
                scratches.append(local.scratch)
        entry = reviewed.entry(m)
        beyond = entry["pytest"] if entry is not None and entry["kind"] == "beyond-protocol" \
            else ()
        o = local.scratch.score(m, layer, pytest=args.pytest, generated=not args.no_generated,
                                beyond=beyond)
        row = record(m, layer, kind, o.verdict, stage=o.stage, how=o.how, detail=o.detail,
                     seconds=o.seconds, reason=entry["reason"] if entry and beyond else "")
        row.update(tree=fingerprint, pytest=args.pytest)
        with lock:
            n = len(rows) + 1
            rows.append(row)
            print(f"[{n}/{len(chosen)}] {m.id} [{m.op}] {o.verdict} {o.stage} {o.how} "
                  f"{(o.detail or [''])[0][:60]} ({o.seconds:.1f} s)", file=sys.stderr)
            if args.out:
                with open(args.out, "a", encoding="utf-8") as f:
                    f.write(json.dumps(row, sort_keys=True) + "\n")
        return row

    try:
        if todo:
            _baseline(args)
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            list(pool.map(score, todo))
    finally:
        for s in scratches:
            s.close()
    order = {(layer, m.id): i for i, (layer, _, m) in enumerate(chosen)}
    rows.sort(key=lambda r: order.get((r["layer"], r["id"]), 0))
    if args.sample and not args.no_random:
        drawn = "every line" if args.every_line else \
            "the lines the suite runs outside the Python-only regions"
        print(f"sample: seed {args.seed}, {args.sample} per layer, drawn from {drawn}")
    render(rows, sys.stdout, pytest=args.pytest)
    return 0


def _baseline(args: argparse.Namespace) -> None:
    """The unmutated scratch copy must pass every stage, or no score means anything."""
    scratch = Scratch(ROOT, timeout=args.timeout, pytest_timeout=args.pytest_timeout)
    try:
        stage, how, detail = scratch.suite("kernel", generated=not args.no_generated)
        if stage:
            raise SystemExit(f"the unmutated copy fails the suite ({stage}, {how}): "
                             f"{'; '.join(detail)}")
    finally:
        scratch.close()


if __name__ == "__main__":
    raise SystemExit(main())
