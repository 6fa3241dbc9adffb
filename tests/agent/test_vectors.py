"""The agent conformance case files agree with loom_ref (consensus-specs pattern).

``gen_vectors.py`` defines the cases and writes the files; this test loads every file of the
agent groups and checks that loom_ref's answer equals its ``expect``, that every defined case
has a file and no file lacks a definition, that the files are canonical JSON, and that every
anchor is defined in ``spec/agent.md``. Set ``LOOM_REGEN=1`` to rewrite the files first.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from loom_ref.agent import VECTOR_FUNCTIONS as AGENT_FUNCTIONS
from loom_ref.conformance.match import match
from loom_ref.conformance.provenance import ANCHOR_RE

from .. import vectorkit
from . import gen_vectors as gv

if os.environ.get("LOOM_REGEN") == "1":  # pragma: no cover - maintenance path
    gv.write_all()

FILES = sorted(p for g in gv.GROUPS for p in (vectorkit.ROOT / g).glob("*.json"))


def _defined(spec: str) -> set[str]:
    """The anchors a chapter defines (``{#id}`` or ``{#id .provenance}``)."""
    return {m.group(1) for m in ANCHOR_RE.finditer(spec)}



def test_every_case_has_a_file_and_every_file_a_case() -> None:
    assert {gv.case_file(c)[0] for c in gv.CASES} == set(FILES)
    assert len(FILES) >= 40


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_case_file(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    doc = json.loads(text)
    assert vectorkit.canonical(doc) == text
    assert doc["id"] == f"{path.parent.name}/{path.stem}"
    assert doc["family"] == "vector" and doc["tier"] in {"must", "should", "may"}
    assert doc["function"] in vectorkit.VECTOR_FUNCTIONS and doc["function"].startswith("agent.")
    # a pattern (INTERPRETING.md section 7) stands where a core case leaves a loom-ref value open
    got = vectorkit.compute({"function": doc["function"], "input": doc["input"]})
    assert match(doc["expect"], got) == [], (doc["expect"], got)


def test_every_anchor_is_defined_in_the_spec() -> None:
    spec = (vectorkit.ROOT.parents[1] / "spec" / "agent.md").read_text(encoding="utf-8")
    for path in FILES:
        anchor = json.loads(path.read_text(encoding="utf-8"))["anchor"]
        assert anchor in _defined(spec), anchor


def test_every_vector_function_is_documented_and_exercised() -> None:
    spec = (vectorkit.ROOT.parents[1] / "spec" / "agent.md").read_text(encoding="utf-8")
    used = {json.loads(p.read_text(encoding="utf-8"))["function"] for p in FILES}
    assert used == set(AGENT_FUNCTIONS)
    for name in AGENT_FUNCTIONS:
        assert f"`{name}`" in spec, name


def test_every_anchor_the_code_cites_is_defined() -> None:
    import re

    spec = (vectorkit.ROOT.parents[1] / "spec" / "agent.md").read_text(encoding="utf-8")
    code = "".join(p.read_text(encoding="utf-8") for p in
                   (vectorkit.ROOT.parents[1] / "loom_ref" / "agent").glob("*.py"))
    cited = set(re.findall(r"spec: (agent\.[a-z-]+[a-z])", code))
    assert len(cited) >= 25
    assert sorted(a for a in cited if a not in _defined(spec)) == []
