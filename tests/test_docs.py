"""Every ``>>>`` example in the project's prose runs (doctest): README.md, spec/*.md and
docs/*.md, so the prose cannot drift from the code."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

REPO = Path(__file__).parents[1]
_PARSER = doctest.DocTestParser()
PAGES = [page for page in sorted([REPO / "README.md", *REPO.glob("spec/*.md"),
                                  *REPO.glob("docs/*.md")])
         if _PARSER.get_examples(page.read_text())]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_examples_run(page: Path) -> None:
    test = _PARSER.get_doctest(page.read_text(), {}, page.name, str(page), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def test_the_pages_with_examples_are_found() -> None:
    assert {REPO / "README.md", REPO / "docs" / "tutorial.md"} <= set(PAGES)
    tutorial = (REPO / "docs" / "tutorial.md").read_text()
    assert len(_PARSER.get_examples(tutorial)) > 40
