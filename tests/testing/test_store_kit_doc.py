"""docs/store-kit.md stays true: its example is the module the suite runs, and the report
lines it shows are the ones the kit produces for the example's bug."""

from __future__ import annotations

import re
from pathlib import Path

from loom_ref.journal import FsyncPolicy
from loom_ref.testing import StoreContract, check_power_loss

from . import test_store_kit_example as example

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "store-kit.md").read_text()


def test_the_doc_includes_the_example_module_verbatim() -> None:
    module = Path(example.__file__).read_text()
    assert module in re.findall(r"^```python\n(.*?)^```$", DOC, flags=re.S | re.M)


def test_the_report_lines_the_doc_shows_are_the_kits() -> None:
    shown = re.search(r"the first lines of its report:\n\n```\n(.*?)```", DOC, re.S)
    assert shown is not None
    problems = check_power_loss(
        lambda fs, policy: example.HastyDirectoryStore("/disk", fsync=policy, fs=fs),
        FsyncPolicy.EVERY_EVENT)
    for line in shown.group(1).splitlines():
        assert line in problems, line
    assert len({p.split(":")[0] for p in problems}) == 4  # "four of the five invariants"


def test_the_doc_lists_every_test_of_the_kit() -> None:
    tests = [n for n in dir(StoreContract) if n.startswith("test_")]
    table = DOC.split("## What the kit checks")[1].split("## Worked example")[0]
    assert table.count("\n| ") - 1 == len(tests)  # one row per test (the header aside)
