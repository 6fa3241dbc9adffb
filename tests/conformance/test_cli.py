"""``loom-ref conformance``: exit status, reports, lint, and exported random cases."""

from __future__ import annotations

import json
import os
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from loom_ref.cli.main import main
from loom_ref.conformance.case import canonical_json

from .helpers import CASES, ROOT


def _copy_suite_files(root: Path) -> None:
    """Make ``root`` a whole suite but for its cases: schemas, VERSION, capabilities.json."""
    shutil.copytree(os.path.join(ROOT, "schemas"), root / "schemas")
    for name in ("VERSION", "capabilities.json"):
        shutil.copy(os.path.join(ROOT, name), root / name)


def test_help_lists_the_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "conformance" in capsys.readouterr().out


def test_run_writes_json_and_junit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    js, xml = tmp_path / "r.json", tmp_path / "r.xml"
    status = main(["conformance", "--only", "kernel.gates", "--only", "journal.fold",
                   "--json", str(js), "--junit", str(xml), "--quiet", "--profile", "loom-ref"])
    out = capsys.readouterr().out
    report = json.loads(js.read_text())
    bad = [c for c in report["cases"] if c["status"] in ("fail", "error")]
    assert status == (1 if bad else 0)
    assert "kernel.gates" in out and "journal.fold" in out
    gates = len(list(Path(CASES, "kernel.gates").glob("*.json")))  # one run per case file
    assert gates >= 13 and report["groups"]["kernel.gates"]["cases"]["pass"] == gates
    assert report["groups"]["kernel.gates"]["variants"]["pass"] > 100  # the crash matrix
    assert report["totals"]["cases"]["pass"] == gates + report["groups"]["journal.fold"][
        "cases"]["pass"]
    root = ET.parse(xml).getroot()
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert suites["kernel.gates"].get("tests") == str(gates)
    assert all(c.get("name", "").startswith(("kernel.gates/", "journal.fold/"))
               for c in root.iter("testcase"))


def test_a_failing_case_makes_the_exit_status_nonzero(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = tmp_path / "conformance" / "cases"
    shutil.copytree(os.path.join(CASES, "journal.fold"), cases / "journal.fold")
    shutil.copytree(os.path.join(os.path.dirname(CASES), "schemas"),
                    tmp_path / "conformance" / "schemas")
    path = cases / "journal.fold" / "completed.json"
    data = json.loads(path.read_text())
    data["expect"]["result"]["output"] = 3
    path.write_text(json.dumps(data))
    assert main(["conformance", "--cases", str(cases), "--quiet", "--profile", "loom-ref"]) == 1
    out = capsys.readouterr().out
    assert "FAIL journal.fold/completed [journal.fold] (must, loom-ref)" in out
    assert "output: expected 3, got 2" in out
    (cases / "stray.txt").write_text("?")
    assert main(["conformance", "--cases", str(cases), "--quiet", "--profile", "loom-ref"]) == 1
    assert "PROBLEM" in capsys.readouterr().out


def test_lint_reports_real_problems(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "conformance"
    cases = root / "cases"
    shutil.copytree(os.path.join(CASES, "journal.fold"), cases / "journal.fold")
    _copy_suite_files(root)
    (tmp_path / "spec").mkdir()
    (tmp_path / "spec" / "journal.md").write_text("- fold {#journal.fold}\n")
    text = (cases / "journal.fold" / "empty.json").read_text()
    (cases / "journal.fold" / "copy.json").write_text(text)  # wrong id for its place
    (cases / "journal.fold" / "ugly.json").write_text(json.dumps(
        {**json.loads(text), "id": "journal.fold/ugly", "tier": "often"}))
    big = {**json.loads(text), "id": "journal.fold/big"}
    big["description"] = "an integer no double holds"
    big["input"] = {"events": [{"seq": 2**53 + 1}]}
    (cases / "journal.fold" / "big.json").write_text(canonical_json(big))
    # a request nesting 101 levels: {"cmd", "case": {"input": {"events": <98 lists>}}}
    deep: Any = 1
    for _ in range(98):
        deep = [deep]
    fits = {**json.loads(text), "id": "journal.fold/fits", "input": {"events": deep[0]}}
    (cases / "journal.fold" / "fits.json").write_text(canonical_json(fits))
    over = {**json.loads(text), "id": "journal.fold/over", "input": {"events": deep}}
    (cases / "journal.fold" / "over.json").write_text(canonical_json(over))
    status = main(["conformance", "lint", "--cases", str(cases)])
    out = capsys.readouterr().out
    assert status == 1
    assert "big.json: $.input.events[0].seq: integer 9007199254740993 is beyond" in out
    assert "over.json: its run request nests 101 levels, over 100" in out
    assert "fits.json: its run" not in out
    assert "copy.json: id 'journal.fold/empty' should be 'journal.fold/copy'" in out
    assert "ugly.json: not canonical JSON" in out and "ugly.json: schema:" in out
    assert "anchor 'journal.transitions' is not defined" in out


def test_generate_exports_cases_that_the_suite_then_runs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_dir = tmp_path / "conformance" / "cases"
    assert main(["conformance", "--generate", "3", "--seed", "7", "--out", str(out_dir)]) == 0
    files = sorted(p.name for p in (out_dir / "random.s7").iterdir())
    assert files == ["case-0000.json", "case-0001.json", "case-0002.json"]
    shutil.copytree(os.path.join(os.path.dirname(CASES), "schemas"),
                    tmp_path / "conformance" / "schemas")
    capsys.readouterr()
    status = main(["conformance", "--cases", str(out_dir), "--no-generated", "--quiet",
                   "--profile", "loom-ref"])
    out = capsys.readouterr().out
    assert status == 0
    assert "random.s7" in out and "3 pass, 0 fail" in out


def test_a_filter_that_selects_nothing_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    from loom_ref.cli.main import main

    assert main(["conformance", "--only", "no.such.group", "--quiet"]) == 2
    assert "conformance.no-cases" in capsys.readouterr().err
