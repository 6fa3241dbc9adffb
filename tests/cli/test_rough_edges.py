"""The rough edges a new user met (issue 18), each run as the user ran it: a subprocess with
real arguments, its exit status and what it printed. (A directory, a wrong path, an empty or
unreadable file and a closed pipe are walked for every command in ``test_walk.py``.)"""

from __future__ import annotations

from pathlib import Path

from .helpers import run
from .timelines import demo_journal, rewrite_line


def test_leak_with_hold_back_says_what_hold_back_did(tmp_path: Path) -> None:
    ran = run(["demo", "--leak", "--hold-back", "--dir", str(tmp_path)])
    assert ran.status == 1 and ran.err == ""
    assert "try --hold-back" not in ran.out  # the hint was printed whatever the flags
    assert "model>" not in ran.out  # nothing of the answer could be released
    assert ("with --hold-back (an extension) the guard kept back every delta that could "
            "begin a card number") in ran.out
    assert "none of the answer reached the screen" in ran.out
    assert "4111" not in ran.out.split("journal:")[0]


def test_leak_without_hold_back_suggests_it(tmp_path: Path) -> None:
    ran = run(["demo", "--leak", "--dir", str(tmp_path)])
    assert ran.status == 1
    assert "(try --hold-back, an extension)" in ran.out
    shown = ran.out.split("model> ")[1].splitlines()[0]
    assert shown.startswith("Refunded 30.00 EUR to card") and "4111 1111 1111 1111" not in shown


def test_a_crash_point_past_the_end_is_refused(tmp_path: Path) -> None:
    ran = run(["demo", "--crash-after", "999", "--dir", str(tmp_path)])
    assert (ran.status, ran.out) == (2, "")
    assert ran.err == ("loom-ref: argument.crash-after: --crash-after 999 would never crash: "
                       "the demo writes 16 journal events; choose 1 to 16\n")
    assert list(tmp_path.iterdir()) == []  # refused before anything ran
    ran = run(["demo", "--deny", "--crash-after", "15"])  # a refusal writes two fewer
    assert ran.status == 2 and "the demo with --deny writes 14 journal events" in ran.err


def test_the_last_crash_point_crashes(tmp_path: Path) -> None:
    ran = run(["demo", "--crash-after", "16", "--dir", str(tmp_path)])
    assert ran.status == 0, ran
    assert "a simulated crash after journal event 16" in ran.out
    assert "recover: completed" in ran.out


def test_torn_needs_a_crash_point(tmp_path: Path) -> None:
    ran = run(["demo", "--torn", "--dir", str(tmp_path)])
    assert ran.status == 2
    assert ran.err.startswith("loom-ref: argument.torn: ") and ran.err.count("\n") == 1
    ran = run(["demo", "--torn", "--crash-after", "7", "--dir", str(tmp_path)])
    assert ran.status == 0, ran
    # one numbering: events by seq; a line of the file said as a line, with its event
    assert ("while writing journal event 7: only 24 bytes of its line (line 8: line 1 is the "
            "header) reached the file") in ran.out
    assert "warning: journal.torn-tail: 'demo-1' line 8 (event 7) was torn (24 bytes)" in ran.out


def test_replay_reports_a_divergence_once_as_a_diff(tmp_path: Path) -> None:
    path = demo_journal(tmp_path)
    rewrite_line(path, 6, b'"lookup_order"', b'"refund"')
    ran = run(["replay", str(path)])
    assert ran.status == 1 and ran.err == ""
    assert ran.out.count("NOT deterministic") == 1
    assert ran.out.count("<- differs") == 1
    assert ran.out.count("refund") == 1  # it was printed twice, as Python dict reprs
    assert "{'" not in ran.out and "'}" not in ran.out


def test_demo_html_writes_the_story(tmp_path: Path) -> None:
    page = tmp_path / "story.html"
    ran = run(["demo", "--crash-after", "6", "--dir", str(tmp_path), "--html", str(page)])
    assert ran.status == 0, ran
    assert f"wrote the story as one page: {page} (open it in a browser)" in ran.out
    html = page.read_text()
    assert "crashed after journal event 6" in html
    assert "process 1 (before the crash)" in html and "process 2 (after the crash)" in html


def test_journal_show_of_a_store_log_names_its_executions(tmp_path: Path) -> None:
    from loom_ref.journal import FsyncPolicy, LogStore

    from ..kernel.helpers import Counting, make_runtime, run_to_end

    log = tmp_path / "store.log"
    with LogStore(log, fsync=FsyncPolicy.NEVER) as store:
        for eid in ("o1", "o2"):
            run_to_end(make_runtime(store, Counting()), eid)
    ran = run(["journal", "show", str(log), "--format", "html"])
    assert ran.status == 2 and "name one with --execution (o1, o2)" in ran.err
    ran = run(["journal", "show", str(log), "--format", "html", "--execution", "o2"])
    assert ran.status == 0 and "execution o2" in ran.out
