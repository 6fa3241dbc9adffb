"""``loom-ref conformance``: run the conformance suite, and the tools around it.

Actions: (none) run the suite; ``smoke`` check a harness in seconds; ``show`` one case, its
rule and its protocol lines; ``init`` write a starter adapter; ``report`` turn JSON reports
into one HTML page; ``lint`` check the suite; ``trace`` rule -> code -> cases; ``where``
print where the installed suite is. The contract is ``conformance/INTERPRETING.md``; its
section 1 documents every option here.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path
from typing import Any

from loom_ref.cli.conformance_tools import usage
from loom_ref.cli.inputs import check_output_file
from loom_ref.conformance import boundaries, seeds
from loom_ref.conformance.case import Case, canonical_json, find_case_files, load_cases
from loom_ref.conformance.function_table import function_table, interpreting, table_in, with_table
from loom_ref.conformance.impl import (
    Implementation,
    InProcessImplementation,
    SubprocessImplementation,
    TransportError,
)
from loom_ref.conformance.lint import lint, spec_anchors
from loom_ref.conformance.provenance import Profile
from loom_ref.conformance.random_cases import random_cases
from loom_ref.conformance.report import dump_json, render_text, to_junit
from loom_ref.conformance.runner import Runner
from loom_ref.conformance.schemas import SchemaSet
from loom_ref.conformance.selection import selects_case, split_patterns, unmatched
from loom_ref.conformance.suite import Suite, select_suite, suite_at
from loom_ref.conformance.trace import problems, render, trace
from loom_ref.errors import ConformanceError, InvalidArgument

__all__ = ["register", "run", "run_lint", "run_trace"]

_DESCRIPTION = """\
Run Loom's conformance suite against an implementation and report the verdict.

Without --impl the implementation is loom-ref itself, in-process. --impl runs any command
that speaks the JSON-lines protocol of INTERPRETING.md (`loom-ref conformance where` prints
where it is), for example:

  loom-ref conformance --impl "node my-adapter.mjs"
  loom-ref conformance --impl "python -m loom_ref.conformance.adapter" --jobs 2
  loom-ref conformance --impl "./my-adapter" --only 'journal.*/crc-*' --full

A run is 0 when every case that ran passed (and something ran), 1 on any failure, error or
problem with the run, 2 on a usage error, 130 when interrupted (Ctrl-C: the implementations
are stopped and the summary of what ran is printed).
"""

_EPILOG = """\
actions:
  smoke --impl CMD      check a harness in seconds (start, one case per capability, stop)
  show CASE [--lines]   one case, the rule's words, and the exact protocol lines
  init --lang L DIR     write a starter adapter (python, node, go or rust) to fill in
  report A.json [B.json ...] --html OUT
                        one HTML page comparing implementations rule by rule
  lint                  check the suite's own files
  trace                 rule -> code -> cases (from a checkout)
  where                 print the installed suite's directory and version
"""


def _add_suite_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cases", metavar="DIR",
                        help="the cases directory (default: the suite this loom-ref carries)")


def _add_impl_args(parser: argparse.ArgumentParser, *, required: bool = False) -> None:
    parser.add_argument("--impl", metavar="CMD", required=required,
                        help="a command speaking the protocol" +
                             ("" if required else " (default: loom-ref in-process)"))
    parser.add_argument("--timeout", type=float, default=10.0, metavar="S",
                        help="seconds an implementation may take per case (default 10)")


def register(subparsers: Any) -> None:
    """Add ``conformance`` and its actions to the ``loom-ref`` parser."""
    p = subparsers.add_parser("conformance", help="run the conformance suite",
                              description=_DESCRIPTION, epilog=_EPILOG,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_suite_args(p)
    _add_impl_args(p)
    p.add_argument("--only", metavar="PATTERN", action="append", default=[],
                   help="run only what this selects: a group, a dotted group prefix, a case "
                        "id, or a glob over either ('journal.*/crc-*'); several at once "
                        "comma-separated (journal.format,kernel.gates) or repeated")
    p.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="run N implementation processes at once (same verdict and report)")
    p.add_argument("--full", action="store_true",
                   help="every failure and mismatch, values uncut, rules quoted whole")
    p.add_argument("--json", metavar="FILE", help="write the JSON report here")
    p.add_argument("--junit", metavar="FILE", help="write the JUnit XML report here")
    p.add_argument("--no-generated", action="store_true",
                   help="skip the generated variants (crash matrix, torn, replay, prefixes)")
    p.add_argument("--allow-all-skipped", action="store_true",
                   help="let a run in which every case was skipped pass (a starter adapter)")
    p.add_argument("--random", type=int, default=0, metavar="N",
                   help="also run N seeded random scenarios")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="seed of --random/--generate")
    p.add_argument("--generate", type=int, default=0, metavar="N",
                   help="write N seeded random scenarios as case files to --out, then exit")
    p.add_argument("--out", metavar="DIR", help="where --generate writes (DIR/<group>/...)")
    p.add_argument("--quiet", action="store_true", help="no progress line")
    p.add_argument("--profile", choices=[x.value for x in Profile], default="core",
                   help="the profile the exit status judges (both verdicts are printed): core "
                        "(default: the rules of the seeds, the public upstream source and "
                        "documented conventions, what any faithful Loom implementation must "
                        "do) or loom-ref (every case, loom-ref's own choices and extensions "
                        "included); INTERPRETING.md section 9a")
    p.set_defaults(func=run)
    sub = p.add_subparsers(dest="action", metavar="ACTION")

    from loom_ref.cli import conformance_tools

    conformance_tools.register(sub, _add_suite_args, _add_impl_args)
    lp = sub.add_parser("lint", help="check the suite: schemas, ids, anchors, capabilities",
                        description="Check the suite's own files (INTERPRETING.md section 10).")
    _add_suite_args(lp)
    lp.add_argument("--spec", metavar="DIR", help="the spec directory (default: spec/ beside "
                    "the suite)")
    lp.set_defaults(func=run_lint)
    tp = sub.add_parser("trace", help="rule -> code -> cases table (spec/TRACE.md) and the "
                        "seed table (spec/SEEDS.md)",
                        description="Check that every rule anchor of spec/ is cited in "
                                    "loom_ref/ and pinned by a case (or exempted with a "
                                    "reason), and that the generated tables are current; "
                                    "--write regenerates spec/TRACE.md, spec/SEEDS.md and "
                                    "the function table of INTERPRETING.md section 3 (from "
                                    "capabilities.json). Needs a checkout.")
    tp.add_argument("--repo", metavar="DIR", default=".", help="the checkout (default: .)")
    tp.add_argument("--write", action="store_true", help="write spec/TRACE.md")
    tp.set_defaults(func=run_trace)


def suite_of(args: argparse.Namespace) -> Suite:
    """The suite ``args`` name (``--cases``, ``--spec``)."""
    return select_suite(getattr(args, "cases", None), getattr(args, "spec", None))


class _Progress:
    def __init__(self, stream: Any, enabled: bool) -> None:
        self.stream = stream
        self.enabled = enabled and stream.isatty()
        self.width = 0

    def __call__(self, done: int, total: int, case_id: str) -> None:
        if not self.enabled or (case_id and done % 25):
            return
        line = f"[{done}/{total}] {case_id}"[:100]
        self.stream.write("\r" + line.ljust(self.width))
        self.width = len(line)
        if not case_id:
            self.clear()
        self.stream.flush()

    def clear(self) -> None:
        """Wipe the progress line (the run ended, or was interrupted)."""
        if self.enabled and self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.width = 0


def _generate(args: argparse.Namespace) -> int:
    if not args.out:
        return usage(ConformanceError("--generate needs --out DIR", code="conformance.usage"))
    for case in random_cases(args.generate, args.seed):
        group, name = case.id.split("/", 1)
        os.makedirs(os.path.join(args.out, group), exist_ok=True)
        with open(os.path.join(args.out, group, name + ".json"), "w", encoding="utf-8") as f:
            f.write(canonical_json(dict(case.data)))
    print(f"wrote {args.generate} cases (seed {args.seed}) to {args.out}")
    return 0


def implementations(args: argparse.Namespace) -> list[Implementation]:
    """The implementation processes ``args`` ask for (``--impl``, ``--jobs``)."""
    if args.jobs < 1:
        raise ConformanceError(f"--jobs takes a count of at least 1, not {args.jobs}",
                               code="conformance.usage")
    if args.impl is None and args.jobs == 1:
        return [InProcessImplementation()]
    argv = (shlex.split(args.impl) if args.impl is not None
            else [sys.executable, "-m", "loom_ref.conformance.adapter"])
    if not argv:
        raise ConformanceError("--impl needs a command", code="conformance.usage")
    return [SubprocessImplementation(argv, timeout=args.timeout) for _ in range(args.jobs)]


def _write(path: str, data: bytes) -> None:
    try:
        with open(path, "wb") as f:
            f.write(data)
    except OSError as exc:
        raise InvalidArgument(f"cannot write {path}: {exc.strerror}", code="argument.path",
                              path=path) from None


def run(args: argparse.Namespace) -> int:
    """``loom-ref conformance``."""
    if args.generate:
        return _generate(args)
    args.only = split_patterns(args.only)
    try:
        suite = suite_of(args)
        impls = implementations(args)
    except ConformanceError as exc:
        return usage(exc)
    for path in (args.json, args.junit):  # before the run, not after it
        if path:
            check_output_file(path)
    found, file_problems = load_cases(suite.cases_dir)
    if not found and not args.random:
        return usage(ConformanceError(f"no case file under {suite.cases_dir}",
                                      code="conformance.no-cases"))
    cases = [c for c in found if selects_case(args.only, c.id)]
    missing = unmatched(args.only, [c.id for c in found])
    if missing:  # a filter that selects nothing is a mistake, not a pass: CI must not go
        # green on a misspelt group
        return usage(ConformanceError(f"--only {' '.join(repr(p) for p in missing)} matched "
                                      f"no case of {suite.cases_dir}",
                                      code="conformance.no-cases"))
    files = [] if args.only else find_case_files(suite.cases_dir)
    extra: list[Case] = random_cases(args.random, args.seed) if args.random else []
    progress = _Progress(sys.stderr, not args.quiet)
    runner = Runner(impls, suite, generated=not args.no_generated, only=args.only,
                    allow_all_skipped=args.allow_all_skipped, progress=progress,
                    profile=Profile(args.profile))
    try:
        result = runner.run([*cases, *extra], files=files, file_problems=file_problems)
    except TransportError as exc:
        sys.stderr.write(f"loom-ref: {exc}\n")
        return 1
    finally:
        progress.clear()
    if result.interrupted:
        sys.stderr.write("loom-ref: interrupted: the implementation was stopped; the summary "
                         "of what ran follows\n")
    sys.stdout.write(render_text(result, full=args.full))
    sys.stdout.flush()
    if args.json:
        _write(args.json, dump_json(result).encode())
    if args.junit:
        _write(args.junit, to_junit(result))
    if result.interrupted:
        return 130
    return 0 if result.ok else 1


def run_lint(args: argparse.Namespace) -> int:
    """``loom-ref conformance lint``."""
    try:
        suite = suite_of(args)
    except ConformanceError as exc:
        return usage(exc)
    if not find_case_files(suite.cases_dir):
        return usage(ConformanceError(f"no case file under {suite.cases_dir}",
                                      code="conformance.no-cases"))
    found = lint(suite.cases_dir, suite.spec_dir, SchemaSet(suite.schemas_dir),
                 capabilities=suite.capabilities,
                 whole_suite=suite.cases_dir == os.path.join(suite.root, "cases"))
    if suite.cases_dir == os.path.join(suite.root, "cases"):  # spec: issue 30's boundaries
        wrong, warnings = boundaries.check(suite.root, suite.cases_dir,
                                           spec_anchors(suite.spec_dir))
        found = [*found, *wrong]
        for warning in warnings:
            print(f"warning: {warning}")
    for problem in found:
        print(problem)
    n = len(find_case_files(suite.cases_dir))
    print(f"lint: {n} files, {len(found)} problem(s) (suite {suite.version}, "
          f"{suite.cases_dir})")
    return 1 if found else 0


def run_trace(args: argparse.Namespace) -> int:
    """``loom-ref conformance trace [--write]``: 0 when traceability is complete and the
    generated tables (``spec/TRACE.md``, ``INTERPRETING.md`` section 3) are current."""
    repo = Path(args.repo).resolve()
    if not (repo / "spec").is_dir() or not (repo / "loom_ref").is_dir():
        return usage(ConformanceError(f"{repo} is not a loom-ref checkout (no spec/ and "
                                      "loom_ref/ in it)", code="conformance.no-checkout"))
    table = trace(repo)
    sentences_file = repo / "conformance" / "seed-sentences.json"
    sentences = seeds.load_sentences(sentences_file) if sentences_file.is_file() else []
    guide = interpreting(repo)
    capabilities = suite_at(str(repo / "conformance")).capabilities
    text = guide.read_text(encoding="utf-8")
    edges = boundaries.render(boundaries.load(str(repo / "conformance")),
                              {r.anchor: r.chapter for r in table.rows})
    if args.write:
        (repo / "spec" / "TRACE.md").write_text(render(table))
        (repo / "spec" / "BOUNDARIES.md").write_text(edges)
        if sentences:
            (repo / "spec" / "SEEDS.md").write_text(seeds.render(sentences, table))
        guide.write_text(with_table(text, capabilities), encoding="utf-8")
        text = guide.read_text(encoding="utf-8")
    found = problems(table) + seeds.problems(sentences, table)
    written = repo / "spec" / "BOUNDARIES.md"
    if (repo / "conformance" / boundaries.FILE).is_file() and (
            not written.is_file() or written.read_text() != edges):
        found.append("spec/BOUNDARIES.md is not current (loom-ref conformance trace --write)")
    if table_in(text) != function_table(capabilities):
        found.append("conformance/INTERPRETING.md section 3: the function table is not "
                     "current (loom-ref conformance trace --write)")
    for problem in found:
        print(problem)
    print(f"trace: {len(table.rows)} rules, {len(found)} problem(s)")
    return 1 if found else 0
