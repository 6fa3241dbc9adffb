"""The effects.* conformance case files agree with loom_ref (consensus-specs pattern).

``gen_vectors.py`` defines the cases (the former route table's rows among them) and writes the
files; this test loads every file of its groups and checks that loom_ref's answer equals its
``expect``, that every defined case has a file and no file lacks a definition, that the files
are canonical JSON, and that every anchor is defined in ``spec/effects.md``. Set
``LOOM_REGEN=1`` to rewrite the files first.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from loom_ref.conformance.functions import load_functions

from . import gen_vectors as gv

FILES = sorted(p for g in gv.GROUPS for p in (gv.ROOT / g).glob("*.json"))
SPEC = gv.ROOT.parents[1] / "spec" / "effects.md"

if os.environ.get("LOOM_REGEN") == "1":  # pragma: no cover - maintenance path
    gv.write_all()
    FILES = sorted(p for g in gv.GROUPS for p in (gv.ROOT / g).glob("*.json"))

VECTOR_FUNCTIONS, _ = load_functions()  # the adapter's one registry


def test_every_case_has_a_file_and_every_file_a_case() -> None:
    defined = {gv.case_file(c)[0] for c in gv.CASES}
    assert defined == set(FILES)
    assert len(FILES) >= 70


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_case_file(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    doc = json.loads(text)
    assert gv.canonical(doc) == text  # canonical form
    assert doc["id"] == f"{path.parent.name}/{path.stem}"
    assert doc["family"] == "vector"
    assert doc["tier"] in {"must", "should", "may"}
    assert doc["function"] in VECTOR_FUNCTIONS
    assert doc["anchor"].startswith("effects.")
    assert gv.compute({"function": doc["function"], "input": doc["input"]}) == doc["expect"]


def test_every_anchor_is_defined_in_the_spec() -> None:
    spec = SPEC.read_text(encoding="utf-8")
    for path in FILES:
        anchor = json.loads(path.read_text(encoding="utf-8"))["anchor"]
        assert f"{{#{anchor}}}" in spec, anchor


def test_the_generator_catches_a_wrong_intent() -> None:
    # every checked key of every route intent can fail: replace it and generation must refuse
    route = [c for c in gv.CASES if c["function"] == "effects.route"
             and isinstance(c["intent"], list)]
    assert len(route) >= 60
    for c in route[:20]:
        for i, step in enumerate(c["intent"]):
            for key in step:
                wrong = {**c, "intent": [dict(s) for s in c["intent"]]}
                wrong["intent"][i][key] = "WRONG"
                with pytest.raises(AssertionError):
                    gv.case_file(wrong)


@pytest.mark.parametrize("bad", [
    {"effects": [], "steps": [{"call": {"tool": "t"}}]},
    {"effects": [{"toolId": "t", "script": [{}]}], "steps": []},
    {"effects": [{"toolId": "t", "script": [{"return": 1, "echo": True}]}],
     "steps": [{"call": {"tool": "t"}}]},
    {"effects": [{"toolId": "t", "script": [{}]}], "steps": [{"call": {"tool": "t"},
                                                              "advance": 1}]},
    {"effects": [{"toolId": "t", "script": [{}]}], "steps": [{"call": {"tool": "t",
                                                                        "scope": "s9"}}]},
    {"effects": [{"toolId": "t", "script": [{"abort": {"source": "execution",
                                                       "reason": "r"}}]}],
     "steps": [{"call": {"tool": "t"}}]},
    {"effects": [{"toolId": "t", "script": [{}]}], "middleware": [{"kind": "cache"}],
     "steps": [{"call": {"tool": "t"}}]},
    {"effects": [{"toolId": "t", "script": [{}]}], "steps": [{"call": {"tool": "t"}}],
     "extra": 1},
])
def test_malformed_route_input_is_argument_invalid(bad: object) -> None:
    # spec/effects.md §3.8: malformed input is argument.invalid
    assert gv.compute({"function": "effects.route", "input": bad}) == {
        "error": {"code": "argument.invalid"}}
