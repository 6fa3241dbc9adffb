"""The stream.anthropic conformance vectors on disk agree with loom_ref and their generator."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .gen_anthropic import GROUP, cases, verify
from .gen_vectors import CASES_DIR, agrees, canonical, path_of, stamp

ON_DISK = sorted((CASES_DIR / GROUP).glob("*.json"))


def test_generator_cases_agree_with_their_hand_written_answers() -> None:
    assert verify() == []


def test_files_are_exactly_the_generated_cases() -> None:
    generated = {path_of(case): canonical(stamp(case)) for case in cases()}
    assert sorted(generated) == ON_DISK, "run: python -m tests.stream.gen_anthropic --write"
    for path, text in generated.items():
        assert path.read_text(encoding="utf-8") == text, f"{path} drifted from the generator"


def test_every_event_kind_and_delta_type_is_exercised() -> None:
    bodies = "".join(c["input"]["sse"] for c in cases() if isinstance(c["input"].get("sse"), str))
    for kind in ("message_start", "content_block_start", "content_block_delta",
                 "content_block_stop", "message_delta", "message_stop", "ping", "error",
                 "text_delta", "thinking_delta", "signature_delta", "input_json_delta"):
        assert f'"type": "{kind}"' in bodies, kind
    assert any(c["id"].endswith("/cut-every-byte") for c in cases())


@pytest.mark.parametrize("path", ON_DISK, ids=lambda p: p.stem)
def test_case_file(path: Path) -> None:
    case: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    assert case["id"] == f"{GROUP}/{path.stem}"
    assert case["function"] in ("stream.anthropic_map", "stream.anthropic_request")
    assert agrees(case) == []
