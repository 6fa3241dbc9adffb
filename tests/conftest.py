"""The two test runs: the fast one (the README's ``python -m pytest``, two to three minutes
on two quiet cores) and the full matrix (``LOOM_REF_FULL=1 python -m pytest``, or
``python -m pytest --full-matrix``), which ``.ci/run`` runs too.

The full matrix adds what is long by nature, listed in :data:`FULL_MATRIX` with the reason
(power loss at every write, real process kills, the browser, the differential runs against
Node.js, every case on every store, the Rust starter's build), and lets every hypothesis test
draw as many examples as it asks for; the fast run caps them at :data:`FAST_EXAMPLES`. A test
the fast run leaves out is reported as skipped with the switch that runs it, never silently.
``--matrix-rest`` (with the full matrix) runs only what the fast run skipped or capped, for a
run that follows the fast one: ``.ci/run`` runs both, and a test that runs alike in both runs
once.
"""

from __future__ import annotations

import fnmatch
import os
from typing import Any

import pytest

#: The node ids (globs) that only the full matrix runs, with why.
FULL_MATRIX: dict[str, str] = {
    "tests/journal/test_powerloss.py::test_the_power_loss_matrix*":
        "power loss after every write, every store and policy",
    "tests/journal/test_powerloss.py::test_the_weaker_policies_lose_exactly_*":
        "power loss after every write, every policy",
    "tests/journal/test_contentstore.py::test_the_power_loss_matrix_*":
        "power loss after every write, the content store",
    "tests/journal/test_contentstore.py::test_the_conformance_suite_passes_*":
        "the whole suite on the content store",
    "tests/journal/test_sqlitestore.py::test_the_conformance_suite_passes_on_the_store*":
        "the whole suite on the sqlite and file stores",
    "tests/journal/test_store_kit.py::*::test_real_process_kills":
        "real processes killed at random moments",
    "tests/journal/test_store_kit.py::*::test_the_power_loss_invariants*":
        "power loss after every write, every kit store",
    "tests/journal/test_powerloss.py::test_a_store_that_leaves_out_a_sync_is_caught*":
        "power loss after every write, against each wrong store",
    "tests/journal/test_powerloss.py::test_write_ahead_needs_the_sync_before_the_effect":
        "power loss after every write",
    "tests/journal/test_kills.py::*": "real processes killed at random moments",
    "tests/cli/test_walk.py::*":
        "every command and every wrong path, each in a fresh interpreter, as a user runs it",
    "tests/conformance/test_node.py::*": "the Node adapter through whole groups",
    "tests/conformance/test_go.py::*": "the Go adapter's build and the whole suite through it",
    "tests/conformance/test_harness_tools.py::test_jobs_give_the_verdict_*":
        "the same run through one process and through two, compared",
    "tests/conformance/test_fuzz.py::test_the_time_limit_bounds_the_run": "long fuzz runs",
    "tests/conformance/test_fuzz.py::test_a_seed_reproduces_*": "long fuzz runs",
    "tests/conformance/test_fuzz.py::test_the_cli_writes_drafts_*": "long fuzz runs",
    "tests/conformance/test_fuzz.py::test_random_scenarios_find_*": "long fuzz runs",
    "tests/conformance/test_fuzz.py::test_the_disagreement_is_shrunk": "long fuzz runs",
    "tests/conformance/test_fuzz.py::test_a_wrong_adapter_is_found_*[[]ZeroBudget*":
        "long fuzz runs",
    "tests/conformance/test_wrong_impls.py::test_suite_fails_the_wrong_implementation[["
    "]reinvoke[]]": "the whole crash matrix against a wrong kernel (the crash-matrix test of "
                 "it runs in the fast run)",
    "tests/conformance/test_wrong_impls.py::test_suite_fails_the_wrong_implementation[["
    "]decider-on-replay[]]": "the whole suite against a wrong kernel",
    "tests/conformance/test_wrong_impls.py::test_suite_fails_the_wrong_implementation[["
    "]torn-ignored[]]": "the whole suite against a wrong kernel",
    "tests/conformance/test_random.py::test_random_program_passes_with_its_variants":
        "seeded random programs with their crash matrix",
    "tests/cli/test_rough_edges.py::*": "the demo and the journal commands, each in a fresh "
                                        "interpreter",
    "tests/cli/test_browser.py::*": "the HTML pages in headless Chromium",
    "tests/conformance/test_html_report.py::test_in_a_browser_*":
        "the HTML report in headless Chromium",
    "tests/conformance/test_html_report.py::test_screenshot_*":
        "the HTML report in headless Chromium",
    "tests/conformance/test_differential.py::*": "differential runs against the Node adapter",
    "tests/governance/test_dialect_differential.py::*":
        "Python re against ECMAScript on drawn patterns",
    "tests/conformance/test_store_mode.py::*": "every scenario on every store",
    "tests/conformance/test_starters.py::*[[]rust[]]": "the Rust starter's cargo build",
}

#: The most examples a hypothesis test draws in the fast run.
FAST_EXAMPLES = 25


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--full-matrix", action="store_true", dest="full_matrix",
                     default=os.environ.get("LOOM_REF_FULL", "") not in ("", "0"),
                     help="run the full matrix: power loss, process kills, browser, "
                          "differential, store mode, long hypothesis runs (also: "
                          "LOOM_REF_FULL=1)")
    parser.addoption("--matrix-rest", action="store_true", dest="matrix_rest", default=False,
                     help="with the full matrix: only what the fast run skipped or capped (the "
                          "tests that run alike in both are deselected), for a run that "
                          "follows the fast one, as .ci/run's does")


def pytest_report_header(config: pytest.Config) -> str:
    if config.getoption("full_matrix"):
        return "loom-ref: the full matrix (--full-matrix / LOOM_REF_FULL=1)"
    return (f"loom-ref: the fast run (hypothesis capped at {FAST_EXAMPLES} examples; "
            "the full matrix: LOOM_REF_FULL=1 or --full-matrix)")


def _full_only(nodeid: str) -> str | None:
    for pattern, why in FULL_MATRIX.items():
        if fnmatch.fnmatchcase(nodeid, pattern):
            return why
    return None


#: Test files that read the full-matrix switch themselves, so they run differently in it.
READS_THE_SWITCH = ("tests/conformance/test_starters.py",)


def _hypothesis_settings(item: pytest.Item) -> Any:
    test: Any = getattr(getattr(item, "obj", None), "__func__", getattr(item, "obj", None))
    return getattr(test, "_hypothesis_internal_use_settings", None)


def _runs_alike_in_both(item: pytest.Item) -> bool:
    """Does ``item`` run exactly as the fast run ran it? Not if only the full matrix runs it,
    if the fast run capped its hypothesis examples, or if its file reads the switch."""
    if _full_only(item.nodeid) is not None or item.nodeid.startswith(READS_THE_SWITCH):
        return False
    current = _hypothesis_settings(item)
    return current is None or current.max_examples <= FAST_EXAMPLES


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("full_matrix"):
        if config.getoption("matrix_rest"):  # .ci/run, right after the fast run
            alike = [item for item in items if _runs_alike_in_both(item)]
            if alike:
                config.hook.pytest_deselected(items=alike)
                items[:] = [item for item in items if not _runs_alike_in_both(item)]
        return
    from hypothesis import settings

    for item in items:
        why = _full_only(item.nodeid)
        if why is not None:
            item.add_marker(pytest.mark.skip(
                reason=f"full matrix only ({why}): LOOM_REF_FULL=1 or --full-matrix"))
            continue
        test: Any = getattr(getattr(item, "obj", None), "__func__", getattr(item, "obj", None))
        current = getattr(test, "_hypothesis_internal_use_settings", None)
        if current is not None and current.max_examples > FAST_EXAMPLES:
            test._hypothesis_internal_use_settings = settings(current,
                                                              max_examples=FAST_EXAMPLES)
