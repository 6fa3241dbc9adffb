"""python -m tools.coverage: which lines and branches of loom_ref/ does the suite not reach?

Runs ``loom-ref conformance --profile loom-ref`` (every case and every generated variant,
the store modes among them) in-process under line and branch coverage of ``loom_ref/``
(:mod:`tools.coverage.measure`), then lists every line and branch it did not reach outside
the reviewed Python-only regions (``tools/coverage/python-only.toml``,
:mod:`tools.coverage.regions`), grouped by file and function, with the counts. The target
is none: an uncovered line is either pinned by a new case or declared Python-only, with its
reason and the pytest that covers it.

    python -m tools.coverage                       # measure (about a minute) and report
    python -m tools.coverage --keep cov.json       # ... and keep coverage.py's JSON report
    python -m tools.coverage --data cov.json       # report an earlier measurement again
    python -m tools.coverage --summary             # the counts only
    python -m tools.coverage --data cov.json --check-pytest   # do the named tests cover
                                                              # the regions? (minutes)

It is information, never a gate: the exit status is 0 whatever is uncovered, 1 only when the
reviewed file has a problem (an entry without reason or pytest, or one that holds no line)
or the suite itself failed under coverage. Needs coverage.py (the ``dev`` extra).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from .regions import REGIONS_FILE, Regions

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tools.coverage", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", metavar="JSON", help="coverage.py's JSON report of an earlier "
                   "measurement (--keep), instead of measuring")
    p.add_argument("--keep", metavar="JSON", help="keep coverage.py's JSON report here")
    p.add_argument("--regions", default=REGIONS_FILE, help="the reviewed regions file")
    p.add_argument("--summary", action="store_true", help="the counts only")
    p.add_argument("--check-pytest", action="store_true", help="run every pytest the "
                   "regions name under coverage (a few minutes) and report each region they "
                   "do not cover")
    p.add_argument("--top", type=int, default=0, help="list only the N files with most "
                   "uncovered (default: all)")
    args = p.parse_args(argv)
    from .measure import measure, read_report
    from .reach import analyse, render

    status = 0
    if args.data:
        files = read_report(args.data)
    else:
        try:
            import coverage  # noqa: F401
        except ImportError:
            print("coverage.py is not installed (pip install -e '.[dev]'): nothing measured",
                  file=sys.stderr)
            return 0
        measured = measure(ROOT, keep=args.keep, quiet=True)
        files = measured.files
        if measured.status != 0:
            print(f"the suite under coverage exited {measured.status}", file=sys.stderr)
            status = 1
    regions = Regions(args.regions, root=ROOT)
    reach = analyse(files, regions, ROOT)
    if args.summary:
        render(reach, sys.stdout, limit=-1)
    else:
        render(reach, sys.stdout, limit=args.top)
    problems = list(reach.problems)
    if args.check_pytest:
        from .claims import check

        found = check(ROOT, regions, files)
        for line in found:
            print(f"problem: {line}")
        print(f"claims: {len(regions.regions)} region(s), {len(found)} not covered by their "
              "named pytest")
        problems += found
    return 1 if problems else status


if __name__ == "__main__":
    raise SystemExit(main())
