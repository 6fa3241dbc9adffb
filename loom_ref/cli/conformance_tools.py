"""The tools around a conformance run: ``smoke``, ``show``, ``init``, ``report``, ``where``.

Each is an action of ``loom-ref conformance`` (registered by :mod:`loom_ref.cli.conformance`),
a thin layer over its module in :mod:`loom_ref.conformance`; ``conformance/INTERPRETING.md``
section 1 documents them.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from collections.abc import Callable
from typing import Any

from loom_ref.cli.inputs import check_output_dir, check_output_file
from loom_ref.conformance.case import load_cases
from loom_ref.conformance.impl import SubprocessImplementation
from loom_ref.conformance.show import find_case, protocol_text, render_show
from loom_ref.conformance.smoke import smoke
from loom_ref.conformance.starters import LANGUAGES, write_starter
from loom_ref.conformance.suite import select_suite
from loom_ref.errors import ConformanceError, InvalidArgument, LoomError

__all__ = ["register"]

AddArgs = Callable[..., None]


def register(sub: Any, add_suite_args: AddArgs, add_impl_args: AddArgs) -> None:
    """Add the tool actions to ``loom-ref conformance``'s subparsers."""
    sp = sub.add_parser("smoke", help="check a harness in seconds",
                        description="Start the implementation, run one case for each "
                                    "capability it declares, send a request it cannot read "
                                    "(it must answer errored), stop. One line per step.")
    add_suite_args(sp)
    add_impl_args(sp, required=True)
    sp.set_defaults(func=run_smoke)
    show = sub.add_parser("show", help="one case: the rule's words and its protocol lines",
                          description="Print a case (or a generated variant, ID#MODE@N), the "
                                      "spec rule it pins in the spec's own words, what is "
                                      "sent and expected, and the exact protocol lines.")
    add_suite_args(show)
    show.add_argument("case", metavar="CASE", help="a case id, e.g. journal.format/crc-upper"
                                                   "case, or a variant id")
    show.add_argument("--lines", action="store_true",
                      help="print only the protocol lines (pipe them into an adapter)")
    show.set_defaults(func=run_show)
    init = sub.add_parser("init", help="write a starter adapter to fill in",
                          description="Write a small, commented adapter that speaks the "
                                      "protocol and answers skipped for every capability, to "
                                      "fill in one function at a time: Python or Node (one "
                                      "file, standard library), Go (a module on the "
                                      "standard library) or Rust (a Cargo package on "
                                      "serde_json).")
    add_suite_args(init)
    init.add_argument("--lang", required=True, choices=sorted(LANGUAGES))
    init.add_argument("dir", metavar="DIR", help="where to write it (made if missing)")
    init.set_defaults(func=run_init)
    rp = sub.add_parser("report", help="JSON reports -> one HTML page",
                        description="Write one self-contained HTML page (no network) with "
                                    "the spec's rules against the implementations of the "
                                    "given JSON reports (loom-ref conformance --json).")
    rp.add_argument("reports", metavar="REPORT.json", nargs="+")
    rp.add_argument("--html", metavar="OUT", required=True, help="the page to write")
    rp.set_defaults(func=run_report)
    fz = sub.add_parser("fuzz", help="fuzz an implementation against loom-ref (or another)",
                        description="Draw inputs from the suite's own cases, mutated, send "
                                    "each to both implementations, and compare the answers by "
                                    "the suite's matching rules; a disagreement is shrunk and "
                                    "written under --out as a draft case (INTERPRETING.md "
                                    "section 14). Needs hypothesis: pip install "
                                    "hypothesis.")
    add_suite_args(fz)
    add_impl_args(fz, required=True)
    fz.add_argument("--against", metavar="CMD",
                    help="the reference to compare with (default: loom-ref in-process)")
    fz.add_argument("--only", metavar="PATTERN", action="append", default=[],
                    help="fuzz only the functions (or case groups) this selects; several "
                         "comma-separated, or repeated")
    fz.add_argument("--examples", type=int, default=1000, metavar="N",
                    help="inputs per function at most (default 1000)")
    fz.add_argument("--seed", type=int, default=0, metavar="S",
                    help="the seed: the same seed reproduces a run (default 0)")
    fz.add_argument("--time-limit", type=float, default=600.0, metavar="S",
                    help="seconds for the whole run, shared between functions (default 600)")
    fz.add_argument("--scenarios", type=int, default=0, metavar="N",
                    help="also compare N seeded random scenarios")
    fz.add_argument("--out", metavar="DIR", help="write each disagreement here as a draft case")
    fz.add_argument("--quiet", action="store_true", help="no progress line")
    fz.add_argument("--all", action="store_true",
                    help="list every function in the table, those not fuzzed too")
    fz.set_defaults(func=run_fuzz)
    wp = sub.add_parser("where", help="where the suite this loom-ref carries is",
                        description="Print the suite's directory, version, and the paths of "
                                    "INTERPRETING.md, the schemas and the Node adapter.")
    add_suite_args(wp)
    wp.set_defaults(func=run_where)


def usage(exc: LoomError) -> int:
    """Report a usage error as every ``loom-ref`` command does (``loom-ref: <code>: ...``,
    one line on stderr); the exit status 2."""
    sys.stderr.write(f"loom-ref: {exc}\n")
    return 2


def _fail(action: str, exc: ConformanceError) -> int:
    del action  # every action reports alike
    return usage(exc)


def run_smoke(args: argparse.Namespace) -> int:
    try:
        suite = select_suite(args.cases)
        argv = shlex.split(args.impl)
        impl = SubprocessImplementation(argv, timeout=args.timeout)
    except (ConformanceError, ValueError) as exc:
        if isinstance(exc, ValueError):
            exc = ConformanceError(f"--impl: {exc}", code="conformance.usage")
        return _fail("smoke", exc)
    cases, _ = load_cases(suite.cases_dir)
    steps = smoke(impl, suite, cases)
    for step in steps:
        print(f"{'ok  ' if step.ok else 'FAIL'} {step.what}")
    bad = sum(not s.ok for s in steps)
    print(f"smoke: {len(steps) - bad} of {len(steps)} steps ok (suite {suite.version})")
    return 1 if bad else 0


def run_show(args: argparse.Namespace) -> int:
    try:
        suite = select_suite(args.cases)
        case = find_case(suite, args.case)
    except ConformanceError as exc:
        return _fail("show", exc)
    sys.stdout.write(protocol_text(case, suite.protocol) if args.lines
                     else render_show(suite, case))
    return 0


def run_init(args: argparse.Namespace) -> int:
    check_output_dir(args.dir)
    try:
        path = write_starter(args.lang, args.dir, select_suite(args.cases))
    except ConformanceError as exc:
        return _fail("init", exc)
    starter = LANGUAGES[args.lang]
    where = shlex.quote(args.dir.rstrip("/") or "/")
    lines = [f"wrote {path}" + (f" (and {', '.join(p for _, p in starter.files[1:])})"
                                if len(starter.files) > 1 else "")]
    if starter.build is not None:
        lines += ["build it:", "  " + starter.build.format(dir=where)]
    impl = starter.run.format(dir=args.dir.rstrip("/") or "/")
    lines += ["run the suite against it:",
              f"  loom-ref conformance --impl {shlex.quote(impl)} --allow-all-skipped"]
    print("\n".join(lines))
    return 0


def run_report(args: argparse.Namespace) -> int:
    from loom_ref.conformance.html import render_html

    check_output_file(args.html)
    reports = []
    for path in args.reports:
        try:
            with open(path, encoding="utf-8") as f:
                reports.append(json.load(f))
        except (OSError, ValueError) as exc:
            return _fail("report", ConformanceError(f"{path}: {exc}",
                                                    code="conformance.bad-report"))
    try:
        page = render_html(reports, names=args.reports)
        with open(args.html, "w", encoding="utf-8") as f:
            f.write(page)
    except ConformanceError as exc:
        return _fail("report", exc)
    except OSError as exc:
        raise InvalidArgument(f"cannot write {args.html}: {exc.strerror}", code="argument.path",
                              path=args.html) from None
    print(f"wrote {args.html} ({len(reports)} implementation(s))")
    return 0


def run_where(args: argparse.Namespace) -> int:
    try:
        suite = select_suite(args.cases)
    except ConformanceError as exc:
        return _fail("where", exc)
    print(f"suite {suite.version} (protocol {suite.protocol})\n"
          f"  root:            {suite.root}\n"
          f"  cases:           {suite.cases_dir}\n"
          f"  spec:            {suite.spec_dir}\n"
          f"  INTERPRETING.md: {os.path.join(suite.root, 'INTERPRETING.md')}\n"
          f"  schemas:         {suite.schemas_dir}\n"
          f"  node adapter:    {os.path.join(suite.root, 'adapters', 'node', 'loom-adapter.mjs')}")
    return 0


def run_fuzz(args: argparse.Namespace) -> int:
    from loom_ref.testing._deps import require_hypothesis

    try:
        require_hypothesis(extra="fuzz")
    except ImportError as exc:
        sys.stderr.write(f"loom-ref: conformance.needs-hypothesis: {exc}\n")
        return 2
    from loom_ref.cli.conformance_fuzz import fuzz_command

    return fuzz_command(args)
