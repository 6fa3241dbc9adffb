"""``loom-ref conformance``: run the conformance suite, lint it, or export random cases.

::

    loom-ref conformance [--impl CMD] [--only GROUP]... [--json FILE] [--junit FILE]
                         [--cases DIR] [--no-generated] [--timeout S]
                         [--random N] [--seed S] [--generate N --out DIR]
    loom-ref conformance lint [--cases DIR] [--spec DIR]

Without ``--impl`` the implementation is loom_ref in-process; ``--impl`` runs any command that
speaks the protocol (``conformance/INTERPRETING.md``), for example
``--impl "python -m loom_ref.conformance.adapter"`` or
``--impl "node conformance/adapters/node/loom-adapter.mjs"``. The exit status is 0 when
every case passed or was skipped, 1 on any failure, error or suite problem, 2 on a usage
error.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path
from typing import Any

from loom_ref.conformance.case import Case, canonical_json, find_case_files, load_cases
from loom_ref.conformance.impl import (
    Implementation,
    InProcessImplementation,
    SubprocessImplementation,
    TransportError,
)
from loom_ref.conformance.lint import lint
from loom_ref.conformance.random_cases import random_cases
from loom_ref.conformance.report import dump_json, render_text, to_junit
from loom_ref.conformance.runner import Runner
from loom_ref.conformance.schemas import SchemaSet, conformance_root
from loom_ref.conformance.trace import problems, render, trace
from loom_ref.errors import ConformanceError

__all__ = ["register", "run", "run_lint", "run_trace"]


def _add_suite_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cases", metavar="DIR",
                        help="the cases directory (default: conformance/cases of the checkout)")


def register(subparsers: Any) -> None:
    """Add ``conformance`` (and ``conformance lint``) to the ``loom-ref`` parser."""
    p = subparsers.add_parser("conformance", help="run the conformance suite",
                              description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_suite_args(p)
    p.add_argument("--impl", metavar="CMD",
                   help="a command speaking the protocol (default: loom_ref in-process)")
    p.add_argument("--only", metavar="GROUP", action="append", default=[],
                   help="run only this group or dotted group prefix (repeatable)")
    p.add_argument("--json", metavar="FILE", help="write the JSON report here")
    p.add_argument("--junit", metavar="FILE", help="write the JUnit XML report here")
    p.add_argument("--no-generated", action="store_true",
                   help="skip the generated variants (crash matrix, torn, replay, prefixes)")
    p.add_argument("--timeout", type=float, default=10.0, metavar="S",
                   help="seconds a subprocess implementation may take per case (default 10)")
    p.add_argument("--random", type=int, default=0, metavar="N",
                   help="also run N seeded random scenarios")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="seed of --random/--generate")
    p.add_argument("--generate", type=int, default=0, metavar="N",
                   help="write N seeded random scenarios as case files to --out, then exit")
    p.add_argument("--out", metavar="DIR", help="where --generate writes (DIR/<group>/...)")
    p.add_argument("--quiet", action="store_true", help="no progress line")
    p.set_defaults(func=run)
    sub = p.add_subparsers(dest="action", metavar="ACTION")
    lp = sub.add_parser("lint", help="check the suite: schemas, ids, anchors, files")
    _add_suite_args(lp)
    lp.add_argument("--spec", metavar="DIR", help="the spec directory (default: spec/ beside "
                    "conformance/)")
    lp.set_defaults(func=run_lint)
    tp = sub.add_parser("trace", help="rule -> code -> cases table (spec/TRACE.md)",
                        description="Check that every rule anchor of spec/ is cited in "
                                    "loom_ref/ and pinned by a case (or exempted with a "
                                    "reason); --write regenerates spec/TRACE.md.")
    tp.add_argument("--repo", metavar="DIR", default=".", help="the checkout (default: .)")
    tp.add_argument("--write", action="store_true", help="write spec/TRACE.md")
    tp.set_defaults(func=run_trace)


def _dirs(args: argparse.Namespace) -> tuple[str, SchemaSet]:
    if args.cases:
        cases = os.path.abspath(args.cases)
        parent_schemas = os.path.join(os.path.dirname(cases), "schemas")
        schema_dir = (parent_schemas if os.path.isdir(parent_schemas)
                      else os.path.join(conformance_root(), "schemas"))
    else:
        root = conformance_root()
        cases, schema_dir = os.path.join(root, "cases"), os.path.join(root, "schemas")
    return cases, SchemaSet(schema_dir)


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
            self.stream.write("\r" + " " * self.width + "\r")
        self.stream.flush()


def _generate(args: argparse.Namespace) -> int:
    if not args.out:
        sys.stderr.write("loom-ref conformance: --generate needs --out DIR\n")
        return 2
    for case in random_cases(args.generate, args.seed):
        group, name = case.id.split("/", 1)
        os.makedirs(os.path.join(args.out, group), exist_ok=True)
        with open(os.path.join(args.out, group, name + ".json"), "w", encoding="utf-8") as f:
            f.write(canonical_json(dict(case.data)))
    print(f"wrote {args.generate} cases (seed {args.seed}) to {args.out}")
    return 0


def run(args: argparse.Namespace) -> int:
    """``loom-ref conformance``."""
    if args.generate:
        return _generate(args)
    try:
        cases_dir, schemas = _dirs(args)
    except ConformanceError as exc:
        sys.stderr.write(f"loom-ref conformance: {exc.message}\n")
        return 2
    cases, file_problems = load_cases(cases_dir, only=args.only)
    files = [] if args.only else find_case_files(cases_dir)
    extra: list[Case] = random_cases(args.random, args.seed) if args.random else []
    if not cases and not extra and not file_problems:  # a filter that selects nothing is a
        # mistake, not a pass: CI must not go green on a misspelt group
        sys.stderr.write(f"loom-ref conformance: conformance.no-cases: --only "
                         f"{' '.join(args.only)} matched no case\n")
        return 2
    impl: Implementation = (SubprocessImplementation(shlex.split(args.impl),
                                                     timeout=args.timeout)
                            if args.impl else InProcessImplementation())
    runner = Runner(impl, schemas, generated=not args.no_generated,
                    progress=_Progress(sys.stderr, not args.quiet))
    try:
        suite = runner.run([*cases, *extra], files=files, file_problems=file_problems)
    except TransportError as exc:
        sys.stderr.write(f"loom-ref conformance: {exc.message}\n")
        return 1
    sys.stdout.write(render_text(suite))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            f.write(dump_json(suite))
    if args.junit:
        with open(args.junit, "wb") as f:
            f.write(to_junit(suite))
    return 0 if suite.ok else 1


def run_lint(args: argparse.Namespace) -> int:
    """``loom-ref conformance lint``."""
    try:
        cases_dir, schemas = _dirs(args)
    except ConformanceError as exc:
        sys.stderr.write(f"loom-ref conformance lint: {exc.message}\n")
        return 2
    spec_dir = args.spec or os.path.join(os.path.dirname(os.path.dirname(cases_dir)), "spec")
    problems = lint(cases_dir, spec_dir, schemas)
    for problem in problems:
        print(problem)
    n = len(find_case_files(cases_dir))
    print(f"lint: {n} files, {len(problems)} problem(s)")
    return 1 if problems else 0


def run_trace(args: argparse.Namespace) -> int:
    """``loom-ref conformance trace [--write]``: 0 when traceability is complete."""
    repo = Path(args.repo).resolve()
    if not (repo / "spec").is_dir():
        sys.stderr.write(f"loom-ref conformance trace: no spec/ in {repo}\n")
        return 2
    table = trace(repo)
    if args.write:
        (repo / "spec" / "TRACE.md").write_text(render(table))
    found = problems(table)
    for problem in found:
        print(problem)
    print(f"trace: {len(table.rows)} rules, {len(found)} problem(s)")
    return 1 if found else 0
