"""The tutorial's examples run (doctest), so the prose cannot drift from the code."""

from __future__ import annotations

import doctest
from pathlib import Path

TUTORIAL = Path(__file__).parents[1] / "docs" / "tutorial.md"


def test_tutorial_examples_run() -> None:
    parser = doctest.DocTestParser()
    test = parser.get_doctest(TUTORIAL.read_text(), {}, "tutorial.md", str(TUTORIAL), 0)
    assert len(test.examples) > 40
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
