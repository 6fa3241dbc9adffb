"""INTERPRETING.md section 3's function table is generated from capabilities.json
(``loom-ref conformance trace --write``) and is current: one row per function the suite
knows, stream.anthropic_request and every agent function among them."""

from __future__ import annotations

from pathlib import Path

import pytest

from loom_ref.cli.main import main
from loom_ref.conformance.function_table import (
    function_table,
    interpreting,
    table_in,
    with_table,
)
from loom_ref.conformance.suite import suite_at

REPO = Path(__file__).parents[1]
CAPABILITIES = suite_at(str(REPO / "conformance")).capabilities


def test_the_table_is_current() -> None:
    text = interpreting(REPO).read_text(encoding="utf-8")
    assert table_in(text) == function_table(CAPABILITIES), (
        "regenerate with: loom-ref conformance trace --write")


def test_every_function_has_its_row_and_nothing_else_does() -> None:
    rows = [line.split("|")[1].strip().strip("`")
            for line in function_table(CAPABILITIES).splitlines()[2:]]
    functions = sorted(n for n, c in CAPABILITIES.items() if c["kind"] == "function")
    assert rows == functions
    assert "stream.anthropic_request" in rows and "agent.summarize" in rows


def test_a_stale_table_is_a_trace_problem(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """trace reports a table that does not match capabilities.json (so the check above can
    fail), and --write mends it."""
    import shutil

    for part in ("spec", "loom_ref", "conformance"):  # (no tests/: other problems, not this)
        shutil.copytree(REPO / part, tmp_path / part,
                        ignore=shutil.ignore_patterns("__pycache__"))
    guide = interpreting(tmp_path)
    stale = guide.read_text(encoding="utf-8").replace(
        "| `stream.anthropic_request` |", "| `stream.anthropic_requets` |")
    guide.write_text(stale, encoding="utf-8")
    assert main(["conformance", "trace", "--repo", str(tmp_path)]) == 1
    assert "the function table is not current" in capsys.readouterr().out
    main(["conformance", "trace", "--repo", str(tmp_path), "--write"])
    assert "the function table is not current" not in capsys.readouterr().out
    fixed = guide.read_text(encoding="utf-8")
    assert fixed == with_table(stale, CAPABILITIES)
    assert table_in(fixed) == function_table(CAPABILITIES)
