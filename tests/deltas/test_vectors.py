"""The deltas.* conformance case files agree with loom_ref (consensus-specs pattern).

``gen_vectors.py`` defines the cases and writes the files; this test loads every file of the
deltas groups and checks that loom_ref's answer equals its ``expect``, that every defined case
has a file and no file lacks a definition, that the files are canonical JSON, and that every
anchor is defined in ``spec/deltas.md``. Set ``LOOM_REGEN=1`` to rewrite the files first.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from loom_ref.conformance.functions import load_functions

from . import gen_vectors as gv

FILES = sorted(p for g in gv.GROUPS for p in (gv.ROOT / g).glob("*.json"))
SPEC = gv.ROOT.parents[1] / "spec" / "deltas.md"

if os.environ.get("LOOM_REGEN") == "1":  # pragma: no cover - maintenance path
    gv.write_all()
    FILES = sorted(p for g in gv.GROUPS for p in (gv.ROOT / g).glob("*.json"))

VECTOR_FUNCTIONS, _ = load_functions()  # the adapter's one registry


def test_every_case_has_a_file_and_every_file_a_case() -> None:
    defined = {gv.case_file(c)[0] for c in gv.CASES}
    assert defined == set(FILES)
    assert len(FILES) >= 25


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_case_file(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    doc = json.loads(text)
    assert gv.canonical(doc) == text  # canonical form
    assert doc["id"] == f"{path.parent.name}/{path.stem}"
    assert doc["family"] == "vector"
    assert doc["tier"] in {"must", "should", "may"}
    assert doc["function"] in VECTOR_FUNCTIONS
    assert doc["anchor"].startswith("deltas.")
    # the case as sent to an implementation carries no expectation
    assert gv.compute({"function": doc["function"], "input": doc["input"]}) == doc["expect"]


def test_every_anchor_is_defined_in_the_spec() -> None:
    spec = SPEC.read_text(encoding="utf-8")
    for path in FILES:
        anchor = json.loads(path.read_text(encoding="utf-8"))["anchor"]
        assert f"{{#{anchor}}}" in spec, anchor


def test_every_decision_has_a_case() -> None:
    # each ADR 0119 decision 1-13 is named by at least one case description
    named: set[int] = set()
    for path in FILES:
        description = json.loads(path.read_text(encoding="utf-8"))["description"]
        for match in re.finditer(r"Decisions? ([0-9]+)(?: and ([0-9]+))?", description):
            named.update(int(n) for n in match.groups() if n)
    # decision 5 (replay) is a kernel scenario: tests/deltas/test_decisions.py pins it
    assert named >= set(range(1, 14)) - {5}, sorted(set(range(1, 14)) - named)


def test_every_anchor_cited_in_code_is_defined() -> None:
    spec = SPEC.read_text(encoding="utf-8")
    package = gv.ROOT.parents[1] / "loom_ref" / "effects"
    cited: set[str] = set()
    for module in package.rglob("*.py"):
        # an anchor is a dotted id not followed by "_" (``effects.deltas.delta_to_json`` is not)
        cited.update(re.findall(r"(?<![\w.])deltas\.[a-z][a-z-]*[a-z](?![\w])",
                                module.read_text()))
    # not anchors: the function name, file names, and warning codes of deltas.run
    cited -= {"deltas.run", "deltas.llm", "deltas.replay", "deltas.py", "deltas.md",
              "deltas.sink-raised", "deltas.streaming-disabled", "deltas.warning"}
    assert len(cited) >= 25
    missing = sorted(a for a in cited if f"{{#{a}}}" not in spec)
    assert missing == []


def test_effects_backoff_cases_run_through_the_table() -> None:
    # the effects.backoff vectors (tests/effects) are served by the same provider table
    files = sorted((gv.ROOT / "effects.backoff").glob("*.json"))
    assert files
    for path in files:
        doc = json.loads(path.read_text(encoding="utf-8"))
        got = gv.compute({"function": doc["function"], "input": doc["input"]})
        assert got == doc["expect"], path.name
