"""The HTML pages in a real browser (headless Chromium, ``tests/browser.py``): the lanes, the
markers, the streams, a clicked payload, a long run's groups, zoom and search, and the crash
explorer's slider are there in the DOM, the page asks the network for nothing and throws
nothing, and the screenshots are kept under the CI run's artifacts
(``$LOOM_REF_ARTIFACTS/cli/``) for a person to look at.

Without Chromium these tests are skipped, saying why; ``.ci/run`` sets
``LOOM_REF_REQUIRE_BROWSER=1``, which makes a missing browser a failure instead. Nothing
here asserts a time: ``bench/bench_timeline.py`` measures how fast the pages open.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from loom_ref.cli.demo import run_demo
from loom_ref.cli.demo_agent import Options
from loom_ref.cli.main import main

from ..browser import Browser, Page, artifacts_dir, require_browser
from .long_journal import long_agent_journal
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
    flags = Options(deny="--deny" in options, leak="--leak" in options,
                    hold_back="--hold-back" in options, redact="--redact" in options)
    run_demo(directory=str(journals), crash_after=crash, options=flags, out=io.StringIO(),
             html=str(page), torn="--torn" in options)
    return page


def show_page(journal: Path, where: Path, name: str) -> Path:
    page = where / f"{name}.html"
    main(["journal", "show", str(journal), "--format", "html", "--out", str(page)])
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


def visible(page: Page, selector: str) -> bool:
    """Whether the element is on screen now (in the viewport, not hidden)."""
    shown: bool = page.evaluate(
        f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return "
        "false; const r = e.getBoundingClientRect(); return r.width > 0 && r.bottom > 0 && "
        "r.top < innerHeight && r.right > 0 && r.left < innerWidth; })()")
    return shown


def find(page: Page, words: str) -> None:
    """Type ``words`` into the page's search box."""
    page.evaluate(f"(() => {{ const i = document.getElementById('search'); "
                  f"i.value = {json.dumps(words)}; i.dispatchEvent(new Event('input')); }})()")


def legend(page: Page) -> str:
    words: str = page.evaluate("document.getElementById('legend').textContent")
    return words


def self_contained(page: Page) -> None:
    assert page.exceptions() == []
    assert [u for u in page.requests() if not u.startswith("file://")] == []


def test_the_crashed_demo_reads_as_a_story(browser: Browser, shots: Path) -> None:
    page = browser.open(demo_page(shots, "demo-crash-7", "--crash-after", "7").as_uri())
    assert page.evaluate("document.title") == "loom-ref demo: a refund agent, crashed after " \
                                              "journal event 7"
    # one lane per step, decision and gate, beside the execution's own, each named in words
    assert texts(page, ".lane-label .lane-name") == [
        "execution demo-1", "triage", "#turn:0", "#turn:0:tool:0", "#turn:1",
        "#turn:1:tool:0:approval", "#turn:1:tool:0", "#turn:2"]
    assert texts(page, ".lane-label .lane-detail")[5] == "gate, waits on AgentToolApproval"
    # every event, with the word under its symbol and the folded status above it
    assert sorted(map(int, attrs(page, ".ev", "data-seq"))) == list(range(1, 18))
    assert [texts(page, f'.ev[data-seq="{n}"] .word')[0] for n in (7, 8, 9)] == [
        "start", "in doubt", "resolved"]
    assert texts(page, ".status-text")[7:10] == ["in-doubt", "running", "suspended"]
    # the markers: the crash, the recovery, what each call served, what ran again
    assert texts(page, ".marker-crash text") == ["CRASH after event 7"]
    served = attrs(page, ".marker-served", "data-lane")  # by the recovery, resolve, resume
    assert sorted(served) == sorted(
        ["decision:triage", "step:#turn:0", "step:#turn:0:tool:0"] * 3
        + ["step:#turn:1", "gate:#turn:1:tool:0:approval"])
    assert texts(page, "#timeline .badge-text") == ["ran again"]
    assert texts(page, ".call-text") == ["start (crashed)", "recover", "resolve (retry)",
                                         "resume"]
    assert "process 2: a fresh runtime, fresh effects, the same journal" in texts(
        page, ".proc-text")
    # the counts of effect calls before and after the crash
    assert texts(page, "#counts tr")[1:] == ["lookup_order101", "model123", "refund011",
                                             "triage202"]
    # the summary's tense follows the story: the step was in doubt, and was resolved
    assert "A step was in doubt" in page.evaluate("document.body.innerText")
    # the legend names what the page shows, and nothing else (no torn line here)
    for words in ("served from the journal", "CRASH", "in doubt", "ran again", "resolved",
                  "a stream's deltas"):
        assert words in legend(page), words
    assert "torn" not in legend(page) and "corrupt" not in legend(page)
    page.screenshot(shots / "demo-crash-7.png")
    page.screenshot(shots / "demo-crash-7-timeline.png", selector="#timeline")
    # a click shows the payload, and the state machine beside it shows where the event led
    assert page.evaluate("document.querySelector('#details pre').textContent") == ""
    page.click('.ev[data-seq="9"]')
    assert texts(page, "#details .d-title") == ["event 9: STEP_COMPLETED (step #turn:1)"]
    payload = json.loads(page.evaluate("document.querySelector('#details pre').textContent"))
    assert payload["stepId"] == "#turn:1" and payload["output"]["role"] == "assistant"
    assert attrs(page, ".ev.selected", "data-seq") == ["9"]
    assert attrs(page, ".sm-current", "data-status") == ["running"]
    assert attrs(page, ".sm-taken", "data-from") == ["in-doubt"]
    assert visible(page, "#details") and visible(page, ".sm-current")
    page.screenshot(shots / "demo-crash-7-clicked.png")
    self_contained(page)
    page.close()


def test_an_uncrashed_demo_marks_what_the_resume_served(browser: Browser, shots: Path) -> None:
    page = browser.open(demo_page(shots, "demo", ).as_uri())
    assert sorted(attrs(page, ".marker-served", "data-lane")) == sorted([
        "decision:triage", "step:#turn:0", "step:#turn:0:tool:0", "step:#turn:1",
        "gate:#turn:1:tool:0:approval"])
    assert "CRASH" not in legend(page) and "ran again" not in legend(page)
    assert "resume" in page.evaluate("document.querySelector('.marker-served title')"
                                     ".textContent")
    # the triage decision's stream: a retry's reset, both sinks, the terminal chunk and usage
    stream = "#stream-1"
    assert "triage" in texts(page, f"{stream} h3")[0]
    assert texts(page, f"{stream} .r-per-call .chip-reset") == ["⟲ reset · attempt 2"]
    assert texts(page, f"{stream} .r-configured .chip-reset") == ["⟲ reset · attempt 2"]
    assert texts(page, f"{stream} .r-per-call .chip-done") == ["■ done · usage 24 in / 17 out"]
    assert texts(page, f"{stream} .r-configured .chip-done") == []
    reached = texts(page, f"{stream} ul.reached li")
    assert reached[0].startswith("the support desk's ticket view (per-call sink) shows "
                                 "«Order A-42 arrived broken; the customer wants a refund")
    assert "never the terminal chunk" in reached[1]
    assert "A reset on retry" in texts(page, f"{stream} .why-reset")[0]
    page.screenshot(shots / "demo-stream-triage.png", selector=stream)
    # the ticks of a stream sit inside its step, on the journal's time axis, and lead to it
    assert attrs(page, ".stream-ticks", "href") == ["#stream-1", "#stream-6"]
    self_contained(page)
    page.close()


def test_a_leak_is_cut_where_the_guard_saw_the_card_number(browser: Browser,
                                                           shots: Path) -> None:
    # spec: deltas.guard-before-delivery -- and ADR 0119 #10's stated limit, drawn
    page = browser.open(demo_page(shots, "demo-leak", "--leak").as_uri())
    answer = "#stream-6"
    wrote = texts(page, f"{answer} .r-wrote .chip")
    assert wrote[-1] == "1111" and "chip-severed" in attrs(
        page, f"{answer} .r-wrote .chip", "class")[-1]
    got = page.evaluate(f"Array.from(document.querySelectorAll('{answer} .r-configured "
                        ".chip-got')).map(e => e.textContent).join('')")
    assert got == "Refunded 30.00 EUR to card 4111 1111 1111 "  # what reached the customer
    assert texts(page, f"{answer} .window-full mark") == ["4111 1111 1111 1111"]
    why = texts(page, f"{answer} .why-sever")[0]
    assert "never delivered" in why and "text before a match completes is delivered" in why
    assert texts(page, f"{answer} .verdict-severed") == ["✗ match: sever"]
    page.evaluate(f"document.querySelector('{answer}').scrollIntoView()")
    page.screenshot(shots / "demo-leak-stream.png", selector=answer)
    page.screenshot(shots / "demo-leak.png")
    self_contained(page)
    page.close()


def test_hold_back_keeps_every_digit_from_every_sink(browser: Browser, shots: Path) -> None:
    page = browser.open(demo_page(shots, "demo-hold-back", "--leak", "--hold-back").as_uri())
    answer = "#stream-6"
    assert texts(page, f"{answer} .r-configured .chip-got") == []
    assert "4111 1111 1111" in texts(page, f"{answer} .chip-dropped")[0]
    why = texts(page, f"{answer} .why-sever")[0]
    assert "hold-back" in why and "no sink received any of it" in why
    page.screenshot(shots / "demo-hold-back-stream.png", selector=answer)
    self_contained(page)
    page.close()


def test_a_refused_stream_says_why_nothing_streamed(browser: Browser, shots: Path) -> None:
    # spec: deltas.fail-closed
    page = browser.open(demo_page(shots, "demo-redact", "--redact").as_uri())
    refused = texts(page, "#streams .why-refused")
    assert len(refused) == 2  # the triage note and the answer; the tool-call turns wrote none
    assert all("streaming disabled: inspects output without a delta form" in r
               and "neither sink received any" in r for r in refused)
    assert texts(page, "#streams .chip-got") == []
    page.screenshot(shots / "demo-redact-streams.png", selector="#streams")
    self_contained(page)
    page.close()


def test_a_torn_write_at_the_crash(browser: Browser, shots: Path) -> None:
    page = browser.open(demo_page(shots, "demo-crash-7-torn", "--crash-after", "7",
                                  "--torn").as_uri())
    assert texts(page, ".marker-crash text") == ["CRASH while writing event 7: its line is torn"]
    assert texts(page, ".marker-torn text") == ["torn"]
    assert "24 bytes of line 8 (event 7)" in page.evaluate(
        "document.querySelector('.marker-torn title').textContent")
    assert len(attrs(page, ".ev", "data-seq")) == 16  # the torn event never happened
    page.screenshot(shots / "demo-crash-7-torn-timeline.png", selector="#timeline")
    self_contained(page)
    page.close()


def test_torn_corrupt_and_diverged_journals_from_journal_show(browser: Browser, shots: Path,
                                                              tmp_path: Path) -> None:
    for name in ("t", "d", "c"):
        (tmp_path / name).mkdir()
    page = browser.open(show_page(torn_journal(tmp_path / "t"), shots, "torn").as_uri())
    assert texts(page, ".marker-torn text") == [
        "torn", "not written", "TORN TAIL: line 18 (event 17), 26 bytes, not written"]
    assert "does not record where a process died" in page.evaluate("document.body.innerText")
    assert "CRASH" not in legend(page) and "served" not in legend(page)
    page.screenshot(shots / "torn-timeline.png", selector="#timeline")
    self_contained(page)
    page.close()
    # a corrupt line: lines 1-4 good and drawn, line 5 marked
    path = torn_journal(tmp_path / "c")
    lines = path.read_bytes().split(b"\n")
    lines[4] = lines[4].replace(b'"STEP_COMPLETED"', b'"STEP_COMPLETE"')
    path.write_bytes(b"\n".join(lines))
    page = browser.open(show_page(path, shots, "corrupt").as_uri())
    assert sorted(attrs(page, ".ev", "data-seq")) == ["1", "2", "3"]
    assert texts(page, ".marker-corrupt text")[-1] == (
        "CORRUPT: line 5 (event 4), journal.bad-checksum; nothing after it is read")
    assert "lines 1-4 are good" in page.evaluate("document.body.innerText")
    assert "corrupt line" in legend(page)
    page.screenshot(shots / "corrupt.png")
    self_contained(page)
    page.close()
    page = browser.open(show_page(diverged_journal(tmp_path / "d"), shots, "diverged").as_uri())
    assert texts(page, ".ev-EXECUTION_FAILED .word") == ["diverged"]
    rows = texts(page, "#divergence tr.differs")
    assert rows == ['toolId"refund""lookup_order"differs']
    page.click('.ev[data-seq="7"]')
    payload = json.loads(page.evaluate("document.querySelector('#details pre').textContent"))
    assert payload["error"]["code"] == "kernel.nondeterminism"
    assert attrs(page, ".sm-current", "data-status") == ["failed"]
    page.screenshot(shots / "diverged.png")
    self_contained(page)
    page.close()


def test_the_keyboard_selects_an_event_too(browser: Browser, shots: Path) -> None:
    page = browser.open(demo_page(shots, "demo-deny", "--deny").as_uri())
    page.evaluate("document.querySelector('.ev[data-seq=\"10\"]').focus()")
    page.send("Input.dispatchKeyEvent", {"type": "keyDown", "key": "Enter", "code": "Enter",
                                         "windowsVirtualKeyCode": 13})
    assert attrs(page, ".ev.selected", "data-seq") == ["10"]
    assert "RESUME_RECEIVED" in texts(page, "#details .d-title")[0]
    page.close()


def test_a_long_execution_stays_navigable(browser: Browser, shots: Path,
                                          tmp_path: Path) -> None:
    path = long_agent_journal(tmp_path, 1000)
    page = browser.open(show_page(path, shots, "long-1000").as_uri())
    events = page.evaluate("JSON.parse(document.getElementById('tl-data').textContent)"
                           ".events.length")
    assert events >= 1000
    # one segment per turn in the group rows; the turns that hold a failure open at first
    segments = attrs(page, ".seg", "data-group")
    assert len(segments) >= 200
    opened = texts(page, ".tl-gutter-svg g.grp:not(.grp-closed) .grp-name")
    assert opened == ["#turn:40"]  # its fetch failed (fed back to the model as data)
    assert page.evaluate("document.querySelectorAll('.ev').length") < 40  # the rest is data
    page.evaluate("document.getElementById('timeline').scrollIntoView()")
    page.screenshot(shots / "long-1000.png", viewport=True)
    # the head and the lane names stay in sight while the picture scrolls
    page.evaluate("(() => { const s = document.getElementById('tl-scroll'); "
                  "s.scrollLeft = 30000; s.scrollTop = 200; })()")
    head = page.evaluate("document.querySelector('.tl-head').getBoundingClientRect().top - "
                         "document.getElementById('tl-scroll').getBoundingClientRect().top")
    assert abs(head) <= 1
    assert visible(page, ".tl-gutter .rows-name")
    page.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    view = float(page.evaluate("document.getElementById('ov-view').getAttribute('x')"))
    assert 400 < view < 500  # the strip shows where the view is: around event 469
    page.screenshot(shots / "long-1000-scrolled.png", viewport=True)
    # opening a segment draws its group's lanes (from the page's data)
    page.click('.seg[data-group="g120"]')
    assert texts(page, ".tl-gutter-svg g.grp:not(.grp-closed) .grp-name") == [
        "#turn:40", texts(page, '.seg[data-group="g120"] .seg-name')[0]]
    # search by kind and by id: hits counted, marked, and stepped through
    find(page, "STEP_FAILED")
    assert texts(page, "#search-count") == ["1 event(s)"]
    page.click("#search-next")
    assert texts(page, "#details .d-title")[0].startswith("event ")
    assert "STEP_FAILED" in texts(page, "#details .d-title")[0]
    assert "page 40 timed out" in page.evaluate(
        "document.querySelector('#details pre').textContent")
    find(page, "#turn:150:tool")
    page.click("#search-next")
    assert attrs(page, ".ev.selected", "data-lane")[0].startswith("step:#turn:150:tool")
    assert visible(page, ".ev.selected")
    page.screenshot(shots / "long-1000-search.png", viewport=True)
    # zoom to fit: a thousand columns at a fifth of their size (the strip shows the rest)
    page.click('[data-zoom="fit"]')
    assert texts(page, "#zoom-level") == ["20%"]
    width = page.evaluate("document.querySelector('.tl-body-svg').getBoundingClientRect()"
                          ".width")
    assert 12_000 < width < 14_000
    page.screenshot(shots / "long-1000-fit.png", viewport=True)
    self_contained(page)
    page.close()


def test_a_ten_thousand_event_journal_still_opens(browser: Browser, shots: Path,
                                                  tmp_path: Path) -> None:
    path = long_agent_journal(tmp_path, 10_000)
    page = browser.open(show_page(path, shots, "long-10000").as_uri())
    assert page.evaluate("document.querySelectorAll('.seg').length") >= 2000
    page.evaluate("document.getElementById('timeline').scrollIntoView()")
    page.screenshot(shots / "long-10000.png", viewport=True)
    self_contained(page)
    page.close()


def test_the_crash_explorer_slides_over_every_cut(browser: Browser, shots: Path) -> None:
    out = shots / "explorer.html"
    assert main(["demo", "--explore", "--html", str(out)]) == 0
    page = browser.open(out.as_uri())
    assert page.evaluate("document.getElementById('cut').max") == "16"
    assert len(attrs(page, "section.cut", "id")) == 32  # 16 cuts, crashed and torn

    def at(k: int, torn: bool = False) -> str:
        page.evaluate(f"document.getElementById('torn').checked = {json.dumps(torn)}; "
                      f"document.getElementById('cut').value = {k}; "
                      "document.getElementById('cut').dispatchEvent(new Event('input'))")
        shown = attrs(page, "section.cut:not([hidden])", "id")
        assert len(shown) == 1
        return shown[0]

    # cut 2: after the triage decision was recorded: the recovery is served it, nothing runs
    assert at(2) == "cut-2"
    assert "it cost nothing" in texts(page, "#cut-2 .verdict-line")[0]
    assert texts(page, "#cut-2 .journal-lines .jl")[-1].startswith("line 3 event 2 "
                                                                    "DECISION_RECORDED")
    assert attrs(page, "svg.chart:not([data-torn='1']) .ch-col.current", "data-cut") == ["2"]
    page.screenshot(shots / "explorer-cut-2.png")
    # cut 7: right after the model turn #turn:1 started: in doubt, an operator retries it
    assert at(7) == "cut-7"
    recovery = " ".join(texts(page, "#cut-7 .recovery li"))
    assert "In doubt: #turn:1" in recovery and "resolve (retry)" in recovery
    page.screenshot(shots / "explorer-cut-7.png")
    # cut 13, torn: the refund ran but its outcome's line was torn: in doubt, and completed
    # from the payment provider's record, so it is not made twice
    assert at(13, torn=True) == "torn-13"
    lines = texts(page, "#torn-13 .journal-lines .jl-torn")
    assert lines and lines[0].startswith("line 14 event 13, torn: only 24 bytes")
    assert "resolve (complete)" in " ".join(texts(page, "#torn-13 .recovery li"))
    assert texts(page, "#torn-13 .counts tr")[3] == "refund11"
    page.screenshot(shots / "explorer-torn-13.png")
    # the chart says what every cut costs: torn cut 2 decides triage again (+2 attempts)
    costs = page.evaluate(
        "Array.from(document.querySelectorAll(\"svg.chart[data-torn='1'] .ch-col\"))"
        ".map(g => Array.from(g.querySelectorAll('.ch-cost-text')).map(t => t.textContent)"
        ".join(' '))")
    assert costs[1] == "+2" and costs[3] == "+1" and costs[0] == ""
    self_contained(page)
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
