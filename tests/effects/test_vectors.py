"""The effects conformance case files are current (consensus-specs pattern).

``gen_vectors.py`` defines the cases with hand-written intents and writes the files; this test
checks that the files on disk are exactly what it writes now (one canonical file per case,
loom_ref's current answer as ``expect``, no stray file). The whole-suite test runs every file
through the protocol; the trace test checks every anchor against ``spec/effects.md``.
Rewrite the files with ``python -m tests.effects.gen_vectors --write``.
"""

from __future__ import annotations

import pytest

from .. import vectorkit
from . import gen_vectors as gv

FILES = sorted(p for g in gv.GROUPS for p in (vectorkit.ROOT / g).glob("*.json"))


def test_the_case_files_are_what_the_generator_writes() -> None:
    vectorkit.assert_files_current(gv.CASES, gv.GROUPS, gv.check_intent)
    assert len(FILES) >= 70


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
    assert vectorkit.compute({"function": "effects.route", "input": bad}) == {
        "error": {"code": "argument.invalid"}}
