"""The README opens with the two set-up commands (its examples run in test_docs.py)."""

from __future__ import annotations

from pathlib import Path

README = Path(__file__).parents[1] / "README.md"


def test_readme_opens_with_the_two_setup_commands() -> None:
    block = README.read_text().split("```sh\n", 1)[1].split("```", 1)[0].strip().splitlines()
    assert block == ["pip install -e '.[test]' && loom-ref conformance", "python -m pytest"]
