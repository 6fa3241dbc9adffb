"""The stream.* conformance vectors on disk agree with loom_ref and with their generator."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .gen_vectors import CASES_DIR, GROUPS, agrees, canonical, cases, path_of, stamp, verify

ON_DISK = sorted(p for group in GROUPS for p in (CASES_DIR / group).glob("*.json"))


def test_generator_cases_agree_with_their_hand_written_answers() -> None:
    assert verify() == []


def test_files_are_exactly_the_generated_cases() -> None:
    generated = {path_of(case): canonical(stamp(case)) for case in cases()}
    assert sorted(generated) == ON_DISK, "run: python -m tests.stream.gen_vectors --write"
    for path, text in generated.items():
        assert path.read_text(encoding="utf-8") == text, f"{path} drifted from the generator"


def test_group_sizes() -> None:
    sizes = {g: len(list((CASES_DIR / g).glob("*.json"))) for g in GROUPS}
    assert sizes["stream.checker"] >= 25 and sizes["stream.assembler"] >= 15
    assert sizes["stream.wire"] >= 15 and sizes["stream.consume"] >= 10
    assert sizes["stream.openai"] >= 10 and sizes["stream.enforce"] >= 5


@pytest.mark.parametrize("path", ON_DISK, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_case_file(path: Path) -> None:
    case: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    assert set(case) == {
        "id",
        "anchor",
        "tier",
        "description",
        "family",
        "function",
        "input",
        "expect",
        "provenance",
    }
    assert case["id"] == f"{path.parent.name}/{path.stem}"
    assert case["family"] == "vector" and case["tier"] in ("must", "should", "may")
    assert agrees(case) == []
