"""``tools/coverage``'s reach report refuses coverage data measured on another version of a
file (issue 30: a report on shifted lines would name the wrong lines as uncovered or held by a
region), with a message that says to measure again, never an IndexError."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from tools.coverage.measure import FileCoverage  # noqa: E402
from tools.coverage.reach import analyse  # noqa: E402
from tools.coverage.regions import Regions  # noqa: E402

SOURCE = "def f(x):\n    if x:\n        return 1\n    return 2\n"


def _files(*lines: int) -> dict[str, FileCoverage]:
    return {"loom_ref/m.py": FileCoverage(file="loom_ref/m.py", statements=frozenset(lines),
                                          executed=frozenset(lines[:1]), missing_branches=())}


@pytest.fixture
def root(tmp_path: Path) -> str:
    (tmp_path / "loom_ref").mkdir()
    (tmp_path / "loom_ref" / "m.py").write_text(SOURCE, encoding="utf-8")
    return str(tmp_path)


@pytest.fixture
def regions(tmp_path: Path) -> Regions:
    path = tmp_path / "python-only.toml"
    path.write_text("", encoding="utf-8")
    return Regions(str(path), root=str(tmp_path))


def test_data_that_fits_the_file_is_analysed(root: str, regions: Regions) -> None:
    reach = analyse(_files(1, 2, 3, 4), regions, root)
    assert reach.statements_outside == 4
    assert reach.uncovered == {"loom_ref/m.py": {"f": [2, 3, 4]}}


@pytest.mark.parametrize("lines", [(1, 2, 9), (1, 5)])
def test_a_line_past_the_end_is_stale_data(root: str, regions: Regions,
                                           lines: tuple[int, ...]) -> None:
    with pytest.raises(SystemExit, match=f"names line {lines[-1]} .*past the end.*measure again"):
        analyse(_files(*lines), regions, root)


def test_a_blank_statement_line_is_stale_data(root: str, regions: Regions) -> None:
    Path(root, "loom_ref", "m.py").write_text("def f(x):\n\n    return 2\n", encoding="utf-8")
    with pytest.raises(SystemExit, match=r"names line 2 .*blank"):
        analyse(_files(1, 2, 3), regions, root)
