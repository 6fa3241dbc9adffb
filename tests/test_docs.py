"""Every ``>>>`` example in the project's prose runs (doctest): README.md, spec/*.md and
docs/*.md, so the prose cannot drift from the code. A page without examples is skipped."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

REPO = Path(__file__).parents[1]
PAGES = sorted([REPO / "README.md", *REPO.glob("spec/*.md"), *REPO.glob("docs/*.md")])


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_examples_run(page: Path) -> None:
    test = doctest.DocTestParser().get_doctest(page.read_text(), {}, page.name, str(page), 0)
    if not test.examples:
        pytest.skip("no >>> examples on this page")
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def test_the_tutorial_is_substantial() -> None:
    tutorial = (REPO / "docs" / "tutorial.md").read_text()
    assert len(doctest.DocTestParser().get_examples(tutorial)) > 40
