"""The suite must fail each deliberately wrong implementation, naming the broken rule."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from typing import Any

import pytest

from loom_ref.conformance.impl import InProcessImplementation
from loom_ref.conformance.report import dump_json, render_text, to_junit
from loom_ref.conformance.runner import Status

from .helpers import failures, run
from .wrong_impls import WRONG, WRONG_VECTORS, EchoAdapter

#: implementation -> (the anchors its base-case failures must include, a case that must fail)
EXPECTED = {
    "echo": ({"kernel.replay-serve", "kernel.recover", "journal.corrupt-line",
              "journal.torn-tail", "kernel.resume-schema"}, "kernel.steps/one-step"),
    "reinvoke": ({"kernel.recover"}, "kernel.recover/after-step"),
    "decider-on-replay": ({"kernel.replay-serve", "kernel.replay-readonly"},
                          "kernel.decide/drifting-decider-served"),
    "torn-ignored": ({"journal.torn-tail"}, "journal.durability/torn-tail-recovered"),
    "bad-resume": ({"kernel.resume-schema"}, "kernel.gates/invalid-payload"),
}


@pytest.mark.parametrize("name", sorted(WRONG))
def test_suite_fails_the_wrong_implementation(name: str) -> None:
    anchors, case_id = EXPECTED[name]
    suite = run(InProcessImplementation(WRONG[name]()), only=["kernel", "journal"],
                generated=name not in ("echo", "bad-resume"))
    assert not suite.ok
    bad = failures(suite)
    base_anchors = {r.anchor for r in bad if r.mode == "base"}
    assert anchors <= base_anchors, base_anchors
    failing = {r.id: r for r in bad}
    assert case_id in failing
    text = render_text(suite, max_failures=100_000)
    r = failing[case_id]
    # the report names the case, the rule it pins, and shows expected vs actual
    assert f"FAIL {case_id} [{r.anchor}]" in text
    assert "expected" in text and "got" in text


def test_echo_passes_no_scenario() -> None:
    suite = run(InProcessImplementation(WRONG["echo"]()), only=["kernel"], generated=False)
    passed = [r.id for r in suite.results if r.status is Status.PASS]
    assert passed == []


def test_reinvoke_is_caught_by_the_generated_crash_matrix() -> None:
    suite = run(InProcessImplementation(WRONG["reinvoke"]()), only=["kernel.steps"])
    crash = [r for r in failures(suite) if r.mode == "crash"]
    assert crash and all(r.anchor in ("kernel.recover", "kernel.in-doubt") for r in crash)
    assert any("calls" in d or "call" in d for r in crash for d in r.diff)


class _OddStringsAdapter(EchoAdapter):
    """Answers every vector with strings no report format carries as they are: a lone
    surrogate (UTF-8 cannot encode it) and control characters (XML 1.0 cannot hold them)."""

    def run(self, case: Mapping[str, Any]) -> dict[str, Any]:
        if case.get("family") == "vector":
            return {"observations": {"result": {"text": "a\ud800b\x00c\x1b"}}}
        return super().run(case)


def test_reports_carry_what_an_implementation_sends_back() -> None:
    """A report MUST be writable whatever the implementation answered (INTERPRETING.md
    section 9): lone surrogates and control characters are written as escapes."""
    suite = run(InProcessImplementation(_OddStringsAdapter()), only=["journal.format"],
                generated=False)
    assert failures(suite)
    text = render_text(suite, max_failures=100_000)
    assert "\\ud800" in text and "\ud800" not in text
    text.encode("utf-8")  # would raise on a lone surrogate
    report = dump_json(suite)
    actuals = [m.get("actual") for c in json.loads(report)["cases"] for m in c["mismatches"]]
    assert {"text": "a\ud800b\x00c\x1b"} in actuals  # still JSON, the actual value whole
    assert "\ud800" not in report
    xml = to_junit(suite)
    root = ET.fromstring(xml)  # well-formed XML: no control character, no surrogate
    failure_texts = [f.text or "" for f in root.iter("failure")]
    assert any("\\ud800" in t and "\\u0000" in t and "\\u001b" in t for t in failure_texts)


#: vector implementation -> (the anchor its failures name, cases that must fail)
EXPECTED_VECTORS = {
    "finish-fails-open": ("stream.openai", {"stream.openai/content-filter-is-error",
                                            "stream.openai/unknown-finish-reason-is-error"}),
    "lenient-input": ("guards.vector-run", {"guards.steps/unknown-input-member",
                                            "guards.delta/unknown-input-member"}),
    "billed-without-writes": ("stream.usage.disjoint", {
        "stream.usage/cache-write-added", "stream.usage/all-three-summed",
        "stream.usage/zero-counts-are-counts"}),
    "billed-reasoning-twice": ("stream.usage.reasoning-breakdown",
                               {"stream.usage/reasoning-not-added"}),
}

#: vector implementation -> cases of ANOTHER rule that also observe its break, each because
#: the rule it pins leads to the broken one (they fail too, under their own anchor)
ALSO_FAILING = {
    # stream.openai.payload: finish_reason "" is a string, so it is mapped, and an unknown
    # value is an error finish (the rule finish-fails-open breaks)
    "finish-fails-open": {"stream.openai/empty-finish-reason-is-unknown"},
}


@pytest.mark.parametrize("name", sorted(WRONG_VECTORS))
def test_suite_fails_the_wrong_vector_function(name: str) -> None:
    make, groups = WRONG_VECTORS[name]
    anchor, must_fail = EXPECTED_VECTORS[name]
    suite = run(InProcessImplementation(make()), only=list(groups), generated=False)
    failing = {r.id: r for r in failures(suite)}
    assert must_fail <= set(failing), sorted(failing)
    assert {failing[i].anchor for i in must_fail} == {anchor}
    text = render_text(suite, max_failures=100_000)
    for case_id in must_fail:
        assert f"FAIL {case_id} [{anchor}]" in text
    also = ALSO_FAILING.get(name, set())
    assert also <= set(failing), sorted(failing)
    # the break is that rule's alone: every other case of the groups still passes
    assert all(r.status is Status.PASS for r in suite.results
               if r.id not in must_fail | also), sorted(set(failing) - must_fail - also)
