"""``loom-ref conformance fuzz``, the command: options in, a table and draft cases out.

Exit status (``conformance/INTERPRETING.md`` section 14): 0 when the two implementations
agreed on every input tried, 1 on any disagreement (or a problem talking to either), 2 on a
usage error.
"""

from __future__ import annotations

import argparse
import shlex
import sys

from loom_ref.cli.inputs import check_output_dir
from loom_ref.conformance.case import load_cases
from loom_ref.conformance.fuzz.engine import Fuzzer, FuzzResult, write_drafts
from loom_ref.conformance.impl import (
    Implementation,
    InProcessImplementation,
    SubprocessImplementation,
)
from loom_ref.conformance.random_cases import random_cases
from loom_ref.conformance.selection import selects_case, split_patterns
from loom_ref.conformance.suite import select_suite
from loom_ref.errors import ConformanceError

__all__ = ["fuzz_command", "render_table", "selected_functions"]


def selected_functions(functions: list[str], groups: dict[str, set[str]],
                       only: list[str]) -> list[str]:
    """The functions ``only`` selects: by the function's own dotted name, or by the group of
    any case of it (``stream.checker`` selects ``stream.check``)."""
    if not only:
        return functions
    return [f for f in functions
            if selects_case(only, f"{f}/x") or any(selects_case(only, f"{g}/x")
                                                   for g in groups.get(f, ()))]


def render_table(result: FuzzResult, *, every: bool = False) -> str:
    """One row per function that was fuzzed: inputs tried, disagreements, failures of either
    side. A function one side does not declare gets a row only with ``every`` (``--all``);
    otherwise one line counts them."""
    head = ("function", "tried", "disagree", "impl failed", "ref failed")
    shown = [t for t in result.tallies
             if every or t.tried or t.disagreements or not t.note.startswith("not declared")]
    left_out = len(result.tallies) - len(shown)
    rows = [(t.function, str(t.tried), str(t.disagreements), str(t.implementation_failed),
             str(t.reference_failed), t.note) for t in shown]
    width = max([len(head[0])] + [len(r[0]) for r in rows])
    out = [f"{head[0]:<{width}}  {head[1]:>6} {head[2]:>9} {head[3]:>12} {head[4]:>11}"]
    for fn, tried, dis, impl, ref, note in rows:
        out.append(f"{fn:<{width}}  {tried:>6} {dis:>9} {impl:>12} {ref:>11}"
                   + (f"  {note}" if note else ""))
    if left_out:
        out.append(f"({left_out} function(s) not fuzzed: not declared by both sides; --all "
                   "lists them)")
    return "\n".join(out) + "\n"


def _implementation(command: str | None, timeout: float) -> Implementation:
    if command is None:
        return InProcessImplementation()
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise ConformanceError(f"cannot read the command {command!r}: {exc}",
                               code="conformance.usage") from None
    return SubprocessImplementation(argv, timeout=timeout)


class _Progress:
    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self.width = 0

    def __call__(self, function: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        line = f"[{function}] {done}/{total}"
        sys.stderr.write("\r" + line.ljust(self.width))
        self.width = len(line)
        sys.stderr.flush()

    def clear(self) -> None:
        if self.enabled and self.width:
            sys.stderr.write("\r" + " " * self.width + "\r")


def fuzz_command(args: argparse.Namespace) -> int:
    """Run ``loom-ref conformance fuzz`` with parsed ``args``."""
    args.only = split_patterns(args.only)
    try:
        if args.examples < 1 or args.time_limit <= 0 or args.scenarios < 0:
            raise ConformanceError("--examples and --time-limit take positive numbers, "
                                   "--scenarios a count", code="conformance.usage")
        suite = select_suite(args.cases)
        implementation = _implementation(args.impl, args.timeout)
        reference = _implementation(args.against, args.timeout)
    except ConformanceError as exc:
        sys.stderr.write(f"loom-ref: {exc}\n")
        return 2
    if args.out:
        check_output_dir(args.out)
    cases, _ = load_cases(suite.cases_dir)
    fuzzer = Fuzzer(implementation, reference, suite, cases, examples=args.examples,
                    seed=args.seed, time_limit=args.time_limit,
                    progress=_Progress(not args.quiet))
    groups: dict[str, set[str]] = {}
    for case in cases:
        if case.family.value == "vector":
            groups.setdefault(str(case.data["function"]), set()).add(case.group)
    functions = selected_functions(fuzzer.corpus.functions, groups, args.only)
    if not functions and not args.scenarios:
        sys.stderr.write(f"loom-ref: conformance.no-cases: --only "
                         f"{' '.join(repr(p) for p in args.only)} selects no vector function\n")
        return 2
    scenarios = random_cases(args.scenarios, args.seed) if args.scenarios else []
    try:
        result = fuzzer.run(functions, scenarios)
    except ConformanceError as exc:
        sys.stderr.write(f"loom-ref: {exc}\n")
        return 1
    finally:
        progress = fuzzer.progress
        if isinstance(progress, _Progress):
            progress.clear()
    sys.stdout.write(render_table(result, every=args.all))
    for finding in result.findings:
        print(f"DISAGREE {finding.function} (grown from {finding.origin}):")
        for line in finding.differences[:8]:
            print(f"    {line}")
    paths = write_drafts(result, args.out, {c.id: c for c in cases}) if args.out else []
    for path in paths:
        print(f"draft case: {path}")
    tried = sum(t.tried for t in result.tallies)
    impl, ref = (f"{i.get('name', '?')} {i.get('version', '?')}"
                 for i in (result.implementation, result.reference))
    hint = "" if paths or not result.findings else " (--out DIR writes them as draft cases)"
    print(f"fuzz: {impl} against {ref}, seed {result.seed}: {tried} inputs, "
          f"{len(result.findings)} disagreement(s){hint}")
    return 0 if result.ok else 1
