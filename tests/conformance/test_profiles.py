"""Issue 28: every rule and case says where it comes from, and the verdict is judged per profile.

The core profile (seed, upstream, convention) is what any faithful Loom implementation must
do; the loom-ref profile is every case. A failure of a loom-ref choice never fails the core
verdict; a run says which profile it judged and prints both (INTERPRETING.md section 9a).
"""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from loom_ref.conformance.case import load_cases
from loom_ref.conformance.html import render_html
from loom_ref.conformance.impl import InProcessImplementation
from loom_ref.conformance.inprocess import LoomRefAdapter
from loom_ref.conformance.lint import lint
from loom_ref.conformance.provenance import (
    Profile,
    Provenance,
    spec_problems,
    spec_provenance,
    weakest,
)
from loom_ref.conformance.report import dump_json, render_text, to_json, to_junit
from loom_ref.conformance.rules import spec_rules
from loom_ref.conformance.runner import Status
from loom_ref.schema import validate
from tests.casefiles import WEAKER

from .helpers import CASES, SCHEMAS, SUITE, run

CORE_CASE = "stream.usage/input-alone"          # a seed rule's case
LOOM_REF_CASE = "journal.fold/completed"       # the journal's format is loom-ref's


class _Breaks(LoomRefAdapter):
    """loom-ref, but the named cases answer a wrong result."""

    def __init__(self, *ids: str) -> None:
        super().__init__(name="breaks")
        self.ids = set(ids)

    def run(self, case: Mapping[str, Any]) -> dict[str, Any]:
        reply = super().run(case)
        if case["id"] in self.ids and "observations" in reply:
            reply["observations"] = {"result": {"wrong": True}}
        return reply


def _run(*broken: str, only: list[str], profile: Profile = Profile.CORE) -> Any:
    return run(InProcessImplementation(_Breaks(*broken)), only=only, generated=False,
               profile=profile)


def test_a_loom_ref_failure_does_not_fail_the_core_verdict() -> None:
    suite = _run(LOOM_REF_CASE, only=["journal.fold", "stream.usage"])
    assert suite.ok and suite.ok_in(Profile.CORE) and not suite.ok_in(Profile.LOOM_REF)
    text = render_text(suite)
    assert "verdict: CONFORMS (core profile)" in text.splitlines()[-1]
    assert "loom-ref profile (not judged): FAILED" in text
    assert "failure(s) in the loom-ref profile only" in text
    assert f"FAIL {LOOM_REF_CASE} [journal.fold] (must, loom-ref)" in text
    report = to_json(suite)
    assert validate(report, SCHEMAS.docs["report.json"], registry=SCHEMAS.docs) == []
    assert report["profile"] == "core" and report["ok"] is True
    assert report["profiles"]["core"]["ok"] and not report["profiles"]["loom-ref"]["ok"]
    assert report["profiles"]["loom-ref"]["verdict"]["must"] == "fails"
    failed = next(c for c in report["cases"] if c["id"] == LOOM_REF_CASE)
    assert (failed["provenance"], failed["profile"]) == ("loom-ref", "loom-ref")


def test_judging_the_loom_ref_profile_fails_the_same_run() -> None:
    suite = _run(LOOM_REF_CASE, only=["journal.fold", "stream.usage"],
                 profile=Profile.LOOM_REF)
    assert not suite.ok
    assert "verdict: FAILED (loom-ref profile)" in render_text(suite).splitlines()[-1]


def test_a_core_failure_fails_both_profiles() -> None:
    suite = _run(CORE_CASE, only=["journal.fold", "stream.usage"])
    assert not suite.ok_in(Profile.CORE) and not suite.ok_in(Profile.LOOM_REF)
    (bad,) = [r for r in suite.results if r.status is Status.FAIL]
    assert (bad.provenance, bad.profile) == (Provenance.SEED, Profile.CORE)


def test_junit_holds_the_judged_profile_and_both_verdicts() -> None:
    suite = _run(LOOM_REF_CASE, only=["journal.fold", "stream.usage"])
    root = ET.fromstring(to_junit(suite))
    names = {c.get("name", "") for c in root.iter("testcase")}
    assert names and all(n.startswith("stream.usage/") for n in names)
    props = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert props["profile"] == "core"
    assert props["verdict.core.must"] == "conforms"
    assert props["verdict.loom-ref.must"] == "fails"


def test_a_selection_outside_the_judged_profile_is_a_problem() -> None:
    suite = run(only=["journal.fold"], generated=False, profile=Profile.CORE,
                allow_all_skipped=False)
    assert not suite.ok
    assert any("no case of the core profile ran" in p for p in suite.problems)
    assert run(only=["journal.fold"], generated=False, profile=Profile.LOOM_REF).ok


def test_a_variant_is_core_only_if_its_mode_rule_is() -> None:
    suite = run(only=["kernel.gates/suspend-resume"])
    by_mode: dict[str, set[Provenance]] = {}
    for r in suite.results:
        by_mode.setdefault(r.mode, set()).add(r.provenance)
    assert by_mode["base"] == {Provenance.SEED}
    assert Provenance.SEED in by_mode["crash"]  # kernel.recover is the seed's (ADR 0087 D2)
    assert by_mode["torn"] == {Provenance.LOOM_REF}  # the torn-tail rule is loom-ref's
    assert by_mode["replay"] == {Provenance.LOOM_REF}  # read-only replay is loom-ref's
    assert weakest(Provenance.SEED, Provenance.UPSTREAM) is Provenance.SEED
    assert weakest(Provenance.SEED, Provenance.EXTENSION) is Provenance.EXTENSION


class _PrefixOffByOne(LoomRefAdapter):
    """journal.parse answers every torn tail one line too far: many variants, one bug."""

    def __init__(self) -> None:
        super().__init__(name="off-by-one")

    def run(self, case: Mapping[str, Any]) -> dict[str, Any]:
        reply = super().run(case)
        torn = reply.get("observations", {}).get("result", {}).get("torn")
        if "#prefix@" in case["id"] and isinstance(torn, dict):
            torn["line"] += 1
        return reply


def test_variants_failing_the_same_way_are_shown_once_after_the_base_cases() -> None:
    suite = run(InProcessImplementation(_PrefixOffByOne()),
                only=["journal.format/complete"], profile=Profile.LOOM_REF)
    failing = [r for r in suite.results if r.status is Status.FAIL]
    assert len(failing) > 3 and all(r.mode == "prefix" for r in failing)
    text = render_text(suite)
    head = next(line for line in text.splitlines() if line.startswith("FAIL "))
    assert head.startswith(f"FAIL {len(failing)} prefix variants of "
                           "journal.format/complete, all failing the same way")
    assert sum(1 for line in text.splitlines() if line.startswith("FAIL ")) == 1


def test_the_headline_counts_what_was_sent_and_skips_say_why() -> None:
    adapter = LoomRefAdapter(functions={})  # scenarios only: every vector case is skipped
    suite = run(InProcessImplementation(adapter), only=["stream.usage", "kernel.start"],
                generated=False, profile=Profile.LOOM_REF)
    text = render_text(suite)
    sent = next(line for line in text.splitlines() if line.startswith("selected "))
    scenarios = sum(1 for r in suite.results if r.delivered)
    vectors = len(list((Path(CASES) / "stream.usage").glob("*.json")))
    assert f"sent {scenarios} cases" in sent
    assert f"not sent: {vectors} need a capability the implementation does not declare" in sent
    assert (f"  stream.usage: {vectors} x the implementation does not declare capability "
            "'stream.usage_billed'") in text


def _spec_copy(tmp_path: Path) -> Path:
    spec = tmp_path / "spec"
    shutil.copytree(SUITE.spec_dir, spec)
    return spec


def test_lint_refuses_a_rule_without_provenance_and_an_unknown_one(tmp_path: Path) -> None:
    spec = _spec_copy(tmp_path)
    stream = spec / "stream.md"
    text = stream.read_text(encoding="utf-8")
    text = text.replace("{#stream.single-usage .upstream}", "{#stream.single-usage}")
    text = text.replace("{#stream.single-finish .upstream}", "{#stream.single-finish .seeds}")
    stream.write_text(text, encoding="utf-8")
    found = spec_problems(str(spec))
    assert any("{#stream.single-usage}: says not where the rule comes from" in p for p in found)
    assert any("{#stream.single-finish}: unknown provenance seeds" in p for p in found)
    assert spec_problems(SUITE.spec_dir) == []


def test_lint_refuses_a_case_stronger_than_its_rule(tmp_path: Path) -> None:
    cases = tmp_path / "cases"
    shutil.copytree(Path(CASES) / "journal.fold", cases / "journal.fold")
    path = cases / "journal.fold" / "completed.json"
    data = json.loads(path.read_text())
    data["provenance"] = "seed"
    path.write_text(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    found = lint(str(cases), SUITE.spec_dir, SCHEMAS, whole_suite=False)
    assert any("stronger than its rule's (loom-ref)" in p for p in found), found
    del data["provenance"]
    path.write_text(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    found = lint(str(cases), SUITE.spec_dir, SCHEMAS, whole_suite=False)
    assert any("provenance" in p for p in found), found


def test_every_case_file_and_rule_says_where_it_comes_from() -> None:
    table = spec_provenance(SUITE.spec_dir)
    cases, problems = load_cases(CASES)
    assert problems == []
    ids = {c.id for c in cases}
    assert set(WEAKER) <= ids, sorted(set(WEAKER) - ids)
    for case in cases:
        rule = table[case.anchor]
        assert case.data["provenance"] == case.provenance.value
        if case.id in WEAKER:
            assert case.provenance is Provenance.LOOM_REF
        elif "text.code-points" not in case.data.get("requires", ()):
            assert case.provenance in (rule, Provenance.EXTENSION), case.id


def test_a_rule_s_words_run_past_a_continuation_line_that_starts_with_a_hash() -> None:
    words = spec_rules(SUITE.spec_dir)["deltas.taint"].words
    assert words.startswith("Every chunk's `delta` is a `TaintedValue`")
    assert "`unwrap_tainted`" in words


@pytest.fixture(scope="module")
def reports() -> list[dict[str, Any]]:
    one = to_json(_run(LOOM_REF_CASE, only=["journal.fold", "stream.usage"]))
    two = json.loads(dump_json(_run(only=["journal.fold", "stream.usage"])))
    return [one, two]


def test_the_html_report_shows_provenance_both_verdicts_and_the_interop_line(
        reports: list[dict[str, Any]]) -> None:
    page = render_html(reports, names=["a.json", "b.json"])
    # the same implementation twice: the columns are told apart by their files
    assert "(a.json)</th>" in page and "(b.json)</th>" in page
    assert 'class="prov core"' in page and ">loom-ref</span>" in page
    assert "core profile (judged)" in page
    shared = {c["id"] for c in reports[0]["cases"]}
    core = {c["id"] for c in reports[0]["cases"] if c["provenance"] in ("seed", "upstream")}
    assert (f"<b>Interop</b>: {len(shared) - 1} of {len(shared)} cases pass in all 2 "
            f"implementations; core profile: {len(core)} of {len(core)}") in page


def test_a_cell_with_passes_and_skips_is_partial(reports: list[dict[str, Any]]) -> None:
    report = json.loads(json.dumps(reports[1]))
    case = next(c for c in report["cases"] if c["id"] == CORE_CASE)
    extra = dict(case, id=CORE_CASE + "#x", status="skip")
    report["cases"].append(extra)
    page = render_html([report])
    row = page[page.index(f'data-anchor="{case["anchor"]}"'):]
    assert '<span class="status partial">PARTIAL</span>' in row[:row.index("</tr>")]
