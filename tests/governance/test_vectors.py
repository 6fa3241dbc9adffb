"""The governance conformance case files agree with loom_ref (consensus-specs pattern).

``gen_vectors.py`` defines the cases and writes the files; this test loads every file of the
governance groups and checks that loom_ref's answer equals its ``expect``, that every defined
case has a file and no file lacks a definition, and that the files are canonical JSON.
Set ``LOOM_REGEN=1`` to rewrite the files first.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from loom_ref.governance import VECTOR_FUNCTIONS

from . import gen_vectors as gv

FILES = sorted(p for g in gv.GROUPS for p in (gv.ROOT / g).glob("*.json"))

if os.environ.get("LOOM_REGEN") == "1":  # pragma: no cover - maintenance path
    gv.write_all()
    FILES = sorted(p for g in gv.GROUPS for p in (gv.ROOT / g).glob("*.json"))


def test_every_case_has_a_file_and_every_file_a_case() -> None:
    defined = {gv.case_file(c)[0] for c in gv.CASES}
    assert defined == set(FILES)
    assert len(FILES) >= 30


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_case_file(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    doc = json.loads(text)
    assert gv.canonical(doc) == text  # canonical form
    assert doc["id"] == f"{path.parent.name}/{path.stem}"
    assert doc["family"] == "vector"
    assert doc["tier"] in {"must", "should", "may"}
    assert doc["function"] in VECTOR_FUNCTIONS
    assert doc["anchor"].split(".")[0] in {"taint", "validators", "guards", "errors"}
    # the case as sent to an implementation carries no expectation
    assert gv.compute({"function": doc["function"], "input": doc["input"]}) == doc["expect"]


def test_every_anchor_is_defined_in_the_spec() -> None:
    spec = "".join(
        (gv.ROOT.parents[1] / "spec" / name).read_text(encoding="utf-8")
        for name in ("governance.md", "errors.md")
    )
    for path in FILES:
        anchor = json.loads(path.read_text(encoding="utf-8"))["anchor"]
        assert f"{{#{anchor}}}" in spec, anchor
