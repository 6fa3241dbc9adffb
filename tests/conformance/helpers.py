"""Shared helpers of the conformance tests: run (part of) the suite on an implementation."""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence

from loom_ref.conformance.case import Case, load_cases
from loom_ref.conformance.impl import Implementation, InProcessImplementation
from loom_ref.conformance.inprocess import LoomRefAdapter
from loom_ref.conformance.provenance import Profile
from loom_ref.conformance.runner import CaseResult, Runner, Status, SuiteResult
from loom_ref.conformance.schemas import SchemaSet
from loom_ref.conformance.suite import locate

SUITE = locate()
ROOT = SUITE.root
CASES = SUITE.cases_dir
SCHEMAS = SchemaSet(SUITE.schemas_dir)

#: Failures of loom_ref itself that the suite found and that are reported, not hidden: each
#: pattern must match at least one failing case, and every failing case must match one.
KNOWN_FAILURES: dict[str, str] = {}


def cases(only: Sequence[str] = ()) -> list[Case]:
    found, problems = load_cases(CASES, only=only)
    assert not problems, problems
    return found


def run(impl: Implementation | Sequence[Implementation] | None = None,
        only: Sequence[str] = (), *, generated: bool = True, extra: Sequence[Case] = (),
        allow_all_skipped: bool = True, profile: Profile = Profile.LOOM_REF) -> SuiteResult:
    """Run the cases ``only`` selects (and ``extra``). A run that skips everything is allowed
    here: several tests do exactly that on purpose, and assert on the skips. loom-ref's own
    tests judge the loom-ref profile (every case) unless they say otherwise."""
    runner = Runner(impl or InProcessImplementation(LoomRefAdapter()), SUITE,
                    generated=generated, only=only, allow_all_skipped=allow_all_skipped,
                    profile=profile)
    return runner.run([*cases(only), *extra])


def failures(suite: SuiteResult) -> list[CaseResult]:
    return [r for r in suite.results if r.status in (Status.FAIL, Status.ERROR)]


def unexplained(suite: SuiteResult) -> tuple[list[str], list[str]]:
    """(failing ids no known pattern explains, known patterns that matched nothing)."""
    bad = [r.id for r in failures(suite)]
    loose = [r for r in bad if not any(fnmatch.fnmatch(r, p) for p in KNOWN_FAILURES)]
    stale = [p for p in KNOWN_FAILURES if not any(fnmatch.fnmatch(r, p) for r in bad)]
    return loose, stale
