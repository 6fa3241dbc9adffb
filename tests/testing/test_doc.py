"""docs/validator-kit.md stays true: its example is the module the suite runs, and the
counterexamples it shows are the ones the kit produces."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from loom_ref.testing import check_delta_form, check_split

from . import test_validator_kit_example as example

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "validator-kit.md").read_text()
MODULE = Path(example.__file__).read_text()


def blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", DOC, flags=re.S | re.M)


def test_the_doc_includes_the_example_module_verbatim() -> None:
    assert MODULE in blocks("python")


def _split_of(block: str) -> tuple[str, list[str], int]:
    text = ast.literal_eval(re.search(r"^  text:   (.*)$", block, re.M).group(1))  # type: ignore[union-attr]
    deltas = ast.literal_eval(re.search(r"^  deltas: (\[.*\])  \(", block, re.M).group(1))  # type: ignore[union-attr]
    window = int(re.search(r"window (\d+)\):", block).group(1))  # type: ignore[union-attr]
    return text, deltas, window


def _message(validator: object, block: str) -> str:
    text, deltas, window = _split_of(block)
    with pytest.raises(AssertionError) as info:
        check_split(validator, text, deltas, window=window)  # type: ignore[arg-type]
    return str(info.value)


def test_the_buggy_counterexample_is_what_the_kit_reports() -> None:
    buggy, _limit = blocks("text")
    assert _message(example.buggy_api_key_validator, buggy) + "\n" == buggy
    # the fixed validator passes the same split
    text, deltas, window = _split_of(buggy)
    check_split(example.api_key_validator, text, deltas, window=window)


def test_hypothesis_finds_a_counterexample_of_the_same_kind() -> None:
    buggy, _limit = blocks("text")
    with pytest.raises(AssertionError) as info:
        check_delta_form(
            example.buggy_api_key_validator,
            texts=example.TEXTS,
            max_examples=100,
            derandomize=True,
        )
    found = str(info.value).splitlines()
    assert found[0] == buggy.splitlines()[0]  # same validator, same window
    assert found[1].startswith("LET THROUGH: delta ")


def test_the_window_limit_counterexample_is_what_the_kit_reports() -> None:
    _buggy, limit = blocks("text")
    assert "guards.limit-window" in limit
    assert _message(example.api_key_validator, limit) + "\n" == limit


def test_the_regression_snippet_runs() -> None:
    (snippet,) = [b for b in blocks("python") if b.startswith("from loom_ref.testing import")]
    exec(snippet, {"api_key_validator": example.api_key_validator})


def test_the_install_lines_work_before_a_release() -> None:
    """loom-ref is not on PyPI: the page builds the wheel from a checkout and installs it
    (tests/test_install_story.py holds every page to the same lines)."""
    (install,) = [b for b in re.findall(r"^```\n(.*?)^```$", DOC, flags=re.S | re.M)
                  if "pip install" in b]
    lines = [line.split("#")[0].strip() for line in install.splitlines()]
    assert lines == ["python -m pip wheel --no-deps -w dist /path/to/loom-ref",
                     "pip install dist/loom_ref-*.whl hypothesis pytest"]
    assert "pip download" not in DOC and "pip install 'loom-ref[test]'" not in DOC


def test_the_plugin_example_passes_as_written(tmp_path: Path) -> None:
    """The fixtures' example is a whole test module: run it as another project would, with
    pytest loading the installed plugin."""
    import os
    import subprocess
    import sys

    (module,) = [b for b in blocks("python") if "loom_runtime" in b]
    (tmp_path / "test_orders.py").write_text(module)
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
         "loom_ref.testing.plugin", str(tmp_path)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout
