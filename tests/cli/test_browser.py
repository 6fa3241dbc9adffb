"""The HTML timelines in a real browser (headless Chromium, ``tests/browser.py``): the lanes,
the markers and a clicked payload are there in the DOM, the page asks the network for
nothing and throws nothing, and the screenshots are kept under the CI run's artifacts
(``$LOOM_REF_ARTIFACTS/cli/``) for a person to look at.

Without Chromium these tests are skipped, saying why; ``.ci/run`` sets
``LOOM_REF_REQUIRE_BROWSER=1``, which makes a missing browser a failure instead.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from loom_ref.cli.demo import run_demo
from loom_ref.cli.main import main

from ..browser import Browser, Page, artifacts_dir, require_browser
from .timelines import diverged_journal, torn_journal


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with Browser(require_browser(), width=1400, height=900) as b:
        yield b


@pytest.fixture(scope="module")
def shots() -> Path:
    return artifacts_dir("cli")


def demo_page(where: Path, name: str, *options: str) -> Path:
    """``loom-ref demo ... --html`` into the artifacts folder (the page is kept too)."""
    page = where / f"{name}.html"
    crash = int(options[options.index("--crash-after") + 1]) if "--crash-after" in options \
        else None
    journals = where / f"{name}-journal"
    journals.mkdir(exist_ok=True)
    for old in journals.iterdir():
        old.unlink()
    assert run_demo(directory=str(journals), crash_after=crash, deny="--deny" in options,
                    leak=False, hold_back=False, out=io.StringIO(), html=str(page),
                    torn="--torn" in options) == 0
    return page


def show_page(journal: Path, where: Path, name: str) -> Path:
    page = where / f"{name}.html"
    assert main(["journal", "show", str(journal), "--format", "html", "--out", str(page)]) == 0
    return page


def texts(page: Page, selector: str) -> list[str]:
    found: list[str] = page.evaluate(
        f"Array.from(document.querySelectorAll({json.dumps(selector)}))"
        ".map(e => e.textContent.trim())")
    return found


def attrs(page: Page, selector: str, name: str) -> list[str]:
    found: list[str] = page.evaluate(
        f"Array.from(document.querySelectorAll({json.dumps(selector)}))"
        f".map(e => e.getAttribute({json.dumps(name)}))")
    return found


def self_contained(page: Page) -> None:
    assert page.exceptions() == []
    assert [u for u in page.requests() if not u.startswith("file://")] == []


def test_the_crashed_demo_reads_as_a_story(browser: Browser, shots: Path) -> None:
    page = browser.open(demo_page(shots, "demo-crash-6", "--crash-after", "6").as_uri())
    assert page.evaluate("document.title") == "loom-ref demo: a refund agent, crashed after " \
                                              "journal event 6"
    # one lane per step and gate, beside the execution's own, each named in words
    assert texts(page, ".lane-label .lane-name") == [
        "execution demo-1", "#turn:0", "#turn:0:tool:0", "#turn:1", "#turn:1:tool:0:approval",
        "#turn:1:tool:0", "#turn:2"]
    assert texts(page, ".lane-label .lane-detail")[4] == "gate, waits on AgentToolApproval"
    # every event, with the word under its symbol and the folded status above it
    assert attrs(page, ".ev", "data-seq") == [str(n) for n in range(1, 17)]
    assert texts(page, ".ev .word")[5:8] == ["start", "in doubt", "resolved"]
    assert texts(page, ".status-text")[6:9] == ["in-doubt", "running", "suspended"]
    # the markers: the crash, the recovery, what it served, what ran again
    assert texts(page, ".marker-crash text") == ["CRASH after event 6"]
    assert attrs(page, ".marker-served", "data-lane") == ["step:#turn:0", "step:#turn:0:tool:0"]
    assert texts(page, ".marker-served text") == ["served", "served"]
    assert texts(page, "#timeline .badge-text") == ["ran again"]
    assert texts(page, ".call-text") == ["start (crashed)", "recover", "resolve (retry)",
                                         "resume"]
    assert "process 2: a fresh runtime, fresh effects, the same journal" in texts(
        page, ".proc-text")
    # the counts of effect calls before and after the crash
    assert texts(page, "#counts tr")[1:] == ["lookup_order101", "model123", "refund011"]
    legend = page.evaluate("document.getElementById('legend').textContent")
    for words in ("served from the journal", "CRASH", "in doubt", "torn tail", "ran again"):
        assert words in legend
    page.screenshot(shots / "demo-crash-6.png")
    page.screenshot(shots / "demo-crash-6-timeline.png", selector="#timeline")
    # a click shows the payload, and the state machine shows where the event led
    assert page.evaluate("document.querySelector('#details pre').textContent") == ""
    page.click('.ev[data-seq="8"]')
    assert texts(page, "#details .d-title") == ["event 8: STEP_COMPLETED (step #turn:1)"]
    payload = json.loads(page.evaluate("document.querySelector('#details pre').textContent"))
    assert payload["stepId"] == "#turn:1" and payload["output"]["role"] == "assistant"
    assert attrs(page, ".ev.selected", "data-seq") == ["8"]
    assert attrs(page, ".sm-current", "data-status") == ["running"]
    assert attrs(page, ".sm-taken", "data-from") == ["in-doubt"]
    page.screenshot(shots / "demo-crash-6-clicked.png")
    self_contained(page)
    page.close()


def test_a_torn_write_at_the_crash(browser: Browser, shots: Path) -> None:
    page = browser.open(demo_page(shots, "demo-crash-6-torn", "--crash-after", "6",
                                  "--torn").as_uri())
    assert texts(page, ".marker-crash text") == ["CRASH while writing event 6: its line is torn"]
    assert texts(page, ".marker-torn text") == ["torn"]
    assert len(attrs(page, ".ev", "data-seq")) == 15  # the torn event never happened
    page.screenshot(shots / "demo-crash-6-torn-timeline.png", selector="#timeline")
    self_contained(page)
    page.close()


def test_a_torn_tail_and_a_divergence_from_journal_show(browser: Browser, shots: Path,
                                                        tmp_path: Path) -> None:
    (tmp_path / "t").mkdir()
    (tmp_path / "d").mkdir()
    page = browser.open(show_page(torn_journal(tmp_path / "t"), shots, "torn").as_uri())
    assert texts(page, ".marker-torn text") == ["torn", "not written",
                                                "TORN TAIL: line 17, 26 bytes, not written"]
    assert "does not record where a process died" in page.evaluate("document.body.innerText")
    page.screenshot(shots / "torn-timeline.png", selector="#timeline")
    self_contained(page)
    page.close()
    page = browser.open(show_page(diverged_journal(tmp_path / "d"), shots, "diverged").as_uri())
    assert texts(page, ".ev-EXECUTION_FAILED .word") == ["diverged"]
    rows = texts(page, "#divergence tr.differs")
    assert rows == ['toolId"refund""lookup_order"differs']
    page.click('.ev[data-seq="6"]')
    payload = json.loads(page.evaluate("document.querySelector('#details pre').textContent"))
    assert payload["error"]["code"] == "kernel.nondeterminism"
    assert attrs(page, ".sm-current", "data-status") == ["failed"]
    page.screenshot(shots / "diverged.png")
    self_contained(page)
    page.close()


def test_the_keyboard_selects_an_event_too(browser: Browser, shots: Path) -> None:
    page = browser.open(demo_page(shots, "demo-deny", "--deny").as_uri())
    page.evaluate("document.querySelector('.ev[data-seq=\"9\"]').focus()")
    page.send("Input.dispatchKeyEvent", {"type": "keyDown", "key": "Enter", "code": "Enter",
                                         "windowsVirtualKeyCode": 13})
    assert attrs(page, ".ev.selected", "data-seq") == ["9"]
    assert "RESUME_RECEIVED" in texts(page, "#details .d-title")[0]
    page.close()


def test_without_a_browser_the_tests_skip_or_in_ci_fail(monkeypatch: pytest.MonkeyPatch,
                                                        tmp_path: Path) -> None:
    """A developer without Chromium gets the browser tests skipped, saying why; CI
    (``LOOM_REF_REQUIRE_BROWSER=1``) gets them failed."""
    from ..browser import BrowserError, find_chromium

    monkeypatch.setenv("LOOM_REF_CHROMIUM", str(tmp_path / "no-chromium"))
    assert find_chromium() is None
    monkeypatch.delenv("LOOM_REF_REQUIRE_BROWSER", raising=False)
    with pytest.raises(pytest.skip.Exception, match="apt-get install -y chromium"):
        require_browser()
    monkeypatch.setenv("LOOM_REF_REQUIRE_BROWSER", "1")
    with pytest.raises(pytest.fail.Exception, match="LOOM_REF_REQUIRE_BROWSER=1"):
        require_browser()
    with pytest.raises(BrowserError, match="chromium"):  # a browser that dies at once
        Browser("/bin/false", timeout=5)
