"""``loom-ref conformance report A.json B.json --html OUT`` (issue 15): one self-contained page
of spec rules against implementations, checked in a real headless browser: the failing cell
opens to its expected and actual values. A screenshot is kept under the CI run's artifacts."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from loom_ref.cli.main import main
from loom_ref.conformance.html import render_html
from loom_ref.conformance.impl import InProcessImplementation
from loom_ref.conformance.inprocess import LoomRefAdapter
from loom_ref.conformance.report import dump_json
from loom_ref.errors import ConformanceError

from ..browser import Browser, artifacts_dir, require_browser
from .helpers import run

ONLY = ["journal.fold", "journal.format", "kernel.gates"]


class _WrongFold(LoomRefAdapter):
    """One failure: journal.fold/completed answers an output of its own, with markup in it."""

    def __init__(self) -> None:
        super().__init__(name="wrong-fold")

    def run(self, case: Mapping[str, Any]) -> dict[str, Any]:
        reply = super().run(case)
        if case["id"] == "journal.fold/completed":
            reply["observations"]["result"]["output"] = {"html": "<b>not bold</b>"}
        return reply


@pytest.fixture(scope="module")
def page_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("report")
    good = run(InProcessImplementation(), ONLY)
    bad = run(InProcessImplementation(_WrongFold()), ONLY)
    (folder / "loom-ref.json").write_text(dump_json(good))
    (folder / "wrong.json").write_text(dump_json(bad))
    out = folder / "report.html"
    assert main(["conformance", "report", str(folder / "loom-ref.json"),
                 str(folder / "wrong.json"), "--html", str(out)]) == 0
    return out


def test_the_page_is_self_contained(page_path: Path) -> None:
    text = page_path.read_text()
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", text)  # nothing fetched
    assert "<b>not bold</b>" not in text and "&lt;b&gt;not bold&lt;/b&gt;" in text  # escaped
    assert text.count('class="rule-row"') >= 3


def test_report_refuses_what_is_not_a_report(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "x.json").write_text(json.dumps({"hello": 1}))
    assert main(["conformance", "report", str(tmp_path / "x.json"), "--html",
                 str(tmp_path / "o.html")]) == 2
    assert "conformance.bad-report" in capsys.readouterr().err
    assert main(["conformance", "report", str(tmp_path / "missing.json"), "--html",
                 str(tmp_path / "o.html")]) == 2
    with pytest.raises(ConformanceError):
        render_html([])


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with Browser(require_browser()) as b:
        yield b


def test_in_a_browser_the_failing_cell_opens_to_expected_and_actual(
        page_path: Path, browser: Browser) -> None:
    page = browser.open(page_path.resolve().as_uri())
    heads = page.evaluate("[...document.querySelectorAll('thead th')].map(t => t.textContent)")
    assert heads[0] == "rule" and heads[1].startswith("loom-ref") and heads[2].startswith(
        "wrong-fold")
    fold = "tr.rule-row[data-anchor='journal.fold']"
    statuses = page.evaluate(f"[...document.querySelectorAll(\"{fold} td.cell\")]"
                             ".map(c => c.dataset.status)")
    assert statuses == ["pass", "fail"]
    failing = page.evaluate("document.querySelectorAll('td.cell[data-status=fail]').length")
    assert failing == 1  # only the one broken rule, in the one wrong implementation
    words = page.evaluate(f"document.querySelector(\"{fold} .words\").textContent")
    assert words.startswith("The state of an execution MUST be a function of its events only")
    assert page.evaluate(f"document.querySelector(\"{fold} details\").open") is False
    page.click(f"{fold} details > summary")
    assert page.evaluate(f"document.querySelector(\"{fold} details\").open") is True
    expected = page.evaluate(f"document.querySelector(\"{fold} .expected pre\").textContent")
    actual = page.evaluate(f"document.querySelector(\"{fold} .actual pre\").textContent")
    assert json.loads(expected) == 2
    assert json.loads(actual) == {"html": "<b>not bold</b>"}
    visible = page.evaluate("document.querySelector(\"" + fold + " .failure\")"
                            ".getBoundingClientRect().height")
    assert visible > 40
    shot = page.screenshot(artifacts_dir("conformance") / "report.png")
    assert shot.stat().st_size > 10_000
    page.click("#only-failing")
    shown = page.evaluate("[...document.querySelectorAll('tr.rule-row')]"
                          ".filter(r => !r.hidden).map(r => r.dataset.anchor)")
    assert shown == ["journal.fold"]
    page.close()


def test_screenshot_of_the_top_of_the_page(page_path: Path, browser: Browser) -> None:
    """What a reader sees first, kept for a person to look at (not asserted beyond size)."""
    page = browser.open(page_path.resolve().as_uri())
    fold = "tr.rule-row[data-anchor='journal.fold']"
    page.click(f"{fold} details > summary")
    for name, selector in (("report-top.png", "body"), ("report-failing-row.png", fold)):
        shot = page.screenshot(artifacts_dir("conformance") / name, selector=selector)
        assert shot.stat().st_size > 5_000
    page.close()
