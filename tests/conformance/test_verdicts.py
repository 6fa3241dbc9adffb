"""Verdicts that cannot be green by accident, and an honest headline (issue 15).

- a start reply naming a capability the suite does not know is a problem of the run (exit 1),
  reported with the names the suite knows;
- a run in which no case executed fails, unless explicitly allowed;
- the summary counts cases and generated variants apart, per group and per tier, and the
  verdict line says which tiers conform;
- every report states the suite, runner and implementation versions; the JSON report is valid
  against schemas/report.json and keeps expected and actual values whole.
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from loom_ref import __version__
from loom_ref.cli.main import main
from loom_ref.conformance.impl import InProcessImplementation, SubprocessImplementation
from loom_ref.conformance.inprocess import LoomRefAdapter
from loom_ref.conformance.report import dump_json, render_text, to_json, to_junit
from loom_ref.conformance.runner import Status
from loom_ref.schema import validate

from .helpers import SCHEMAS, SUITE, run

MISSPELT = Path(__file__).with_name("misspelt_adapter.py")


def test_an_unknown_capability_fails_the_run_and_names_the_known_ones(
        capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["conformance", "--impl", f"{sys.executable} {MISSPELT}", "--quiet"])
    out = capsys.readouterr().out
    assert status == 1
    line = next(x for x in out.splitlines() if "journal-parse" in x)
    assert line.startswith("PROBLEM start:")
    assert "did you mean 'journal.parse'?" in line
    assert all(name in line for name in ("journal.fold", "scenario", "stream.check"))
    assert "verdict: FAILED" in out


def test_a_run_in_which_nothing_ran_fails_unless_allowed() -> None:
    adapter = LoomRefAdapter(capabilities=("scenario",), functions={})
    suite = run(InProcessImplementation(adapter), only=["journal.fold"], allow_all_skipped=False)
    assert suite.results and all(r.status is Status.SKIP for r in suite.results)
    assert not suite.ok
    assert any(p.startswith("no case ran") for p in suite.problems)
    allowed = run(InProcessImplementation(adapter), only=["journal.fold"],
                  allow_all_skipped=True)
    assert allowed.ok and not allowed.problems
    assert "verdict: NOTHING RAN" in render_text(allowed)


def test_the_cli_fails_a_run_that_ran_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["conformance", "--impl", f"{sys.executable} {MISSPELT}", "--only", "journal.fold",
            "--quiet"]
    assert main(argv) == 1
    assert "PROBLEM no case ran" in capsys.readouterr().out


class _FailsOne(LoomRefAdapter):
    """loom-ref, but one journal.fold case answers a long wrong output."""

    def run(self, case: Mapping[str, Any]) -> dict[str, Any]:
        reply = super().run(case)
        if case["id"] == "journal.fold/completed":
            reply["observations"]["result"]["output"] = {"long": "x" * 500}
        return reply


def test_the_headline_counts_cases_and_variants_apart_per_tier() -> None:
    suite = run(InProcessImplementation(_FailsOne()), only=["journal.fold", "kernel.gates"])
    report = to_json(suite)
    cases = [r for r in suite.results if r.mode == "base"]
    variants = [r for r in suite.results if r.mode != "base"]
    assert variants  # kernel.gates has a crash matrix
    assert sum(report["totals"]["cases"].values()) == len(cases)
    assert sum(report["totals"]["variants"].values()) == len(variants)
    for kind in ("cases", "variants"):
        for status in ("pass", "fail", "skip", "error"):
            assert report["totals"][kind][status] == sum(
                report["tiers"][t][kind][status] for t in ("must", "should", "may"))
    assert report["groups"]["journal.fold"]["cases"]["fail"] == 1
    assert report["verdict"] == {"must": "fails", "should": "untested", "may": "untested"}
    text = render_text(suite)
    assert "verdict: FAILED (loom-ref profile): MUST fails (1 failed or errored)" in text
    assert "SHOULD: no cases selected" in text
    header = next(line for line in text.splitlines() if "generated variants" in line)
    assert "cases" in header


def test_groups_where_nothing_ran_collapse_into_one_line() -> None:
    adapter = LoomRefAdapter(functions={})  # scenarios only: every vector group is skipped
    suite = run(InProcessImplementation(adapter), only=["journal", "kernel.gates"])
    text = render_text(suite)
    idle = [line for line in text.splitlines() if line.startswith("nothing ran in")]
    assert len(idle) == 1 and "journal.fold" in idle[0] and "journal.content" in idle[0]
    assert not any(line.startswith("journal.fold ") for line in text.splitlines())
    assert any(line.startswith("kernel.gates ") for line in text.splitlines())


def test_a_failure_names_the_spec_file_quotes_the_rule_and_shows_values_whole() -> None:
    suite = run(InProcessImplementation(_FailsOne()), only=["journal.fold"], generated=False)
    short = render_text(suite)
    assert ("FAIL journal.fold/completed [journal.fold] (must, loom-ref) "
            "spec/journal.md#journal.fold") in short
    assert "rule: The state of an execution MUST be a function of its events only" in short
    assert "see it: loom-ref conformance show 'journal.fold/completed'" in short
    assert "x" * 400 not in short and "..." in short
    full = render_text(suite, full=True)
    assert "x" * 500 in full
    report = to_json(suite)
    bad = next(c for c in report["cases"] if c["status"] == "fail")
    assert {"path": "result.output", "expected": 2, "actual": {"long": "x" * 500}} in bad[
        "mismatches"]
    assert bad["sent"]["id"] == "journal.fold/completed" and "expect" not in bad["sent"]
    assert report["rules"]["journal.fold"]["file"] == "spec/journal.md"


def test_every_report_states_the_versions_and_the_json_is_schema_valid() -> None:
    suite = run(InProcessImplementation(_FailsOne()), only=["journal.fold"])
    text = render_text(suite)
    assert (f"suite {SUITE.version}, runner loom-ref {__version__}; implementation loom-ref "
            f"{__version__} (python)") in text
    report = json.loads(dump_json(suite))
    assert report["suite"] == {"version": SUITE.version}
    assert report["runner"] == {"name": "loom-ref", "version": __version__}
    assert report["implementation"]["language"] == "python"
    assert validate(report, SCHEMAS.docs["report.json"], registry=SCHEMAS.docs) == []
    broken = {**report, "verdict": {"must": "maybe"}}
    assert validate(broken, SCHEMAS.docs["report.json"], registry=SCHEMAS.docs)
    root = ET.fromstring(to_junit(suite))
    props = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert props["suite.version"] == SUITE.version
    assert props["runner"] == f"loom-ref {__version__}"
    assert props["implementation.name"] == "loom-ref"
    assert props["verdict.must"] == "fails"


def test_a_subprocess_implementation_reports_its_language() -> None:
    impl = SubprocessImplementation([sys.executable, "-m", "loom_ref.conformance.adapter"])
    suite = run(impl, only=["journal.fold"], generated=False)
    assert suite.ok and suite.implementation["language"] == "python"


def test_the_json_report_names_case_files_by_their_place_in_the_suite() -> None:
    suite = run(InProcessImplementation(), only=["journal.fold"], generated=False)
    paths = {c["path"] for c in to_json(suite)["cases"]}
    assert "cases/journal.fold/completed.json" in paths
    assert not any(p.startswith("/") for p in paths)
