"""The runner treats the implementation it drives as untrusted input (INTERPRETING.md section
4, "Limits"): each misbehaviour of ``hostile_adapter`` errors its own case with a message that
says what happened, the run carries on with a fresh process (the case after it passes), and
memory, time and processes stay bounded."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from loom_ref.conformance.case import Case
from loom_ref.conformance.impl import SubprocessImplementation
from loom_ref.conformance.pipes import (
    STDERR_TAIL_BYTES,
    LineReader,
    ReplyTooLong,
    Tail,
    UndecodableReply,
    decode_reply,
    nesting_depth,
)
from loom_ref.conformance.runner import CaseResult, Status

from .helpers import cases, run

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(autouse=True)
def _observations(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the hostile adapter answers to a case it does not misbehave on: loom-ref's own
    observations of journal.fold/empty (every case these tests send is that one, renamed)."""
    from loom_ref.conformance.inprocess import LoomRefAdapter

    base = next(c for c in cases(["journal.fold"]) if c.id == "journal.fold/empty")
    reply = LoomRefAdapter().handle({"cmd": "run", "seq": 1, "case": base.to_run()})
    monkeypatch.setenv("HOSTILE_OBSERVATIONS", json.dumps(reply["observations"]))


def _renamed(name: str, **extra: object) -> Case:
    base = next(c for c in cases(["journal.fold"]) if c.id == "journal.fold/empty")
    return Case(data={**base.data, **extra, "id": f"journal.fold/{name}"})


def _hostile(*mode: str, timeout: float = 10.0, **kw: int) -> SubprocessImplementation:
    # a loaded machine may take seconds to start a Python process: the start reply gets a
    # minute, the misbehaving case the timeout under test
    return SubprocessImplementation([sys.executable, "-m", "tests.conformance.hostile_adapter",
                                     *mode], timeout=timeout, cwd=REPO, start_timeout=60.0,
                                    **kw)


def _run(impl: SubprocessImplementation, *extra: Case) -> dict[str, CaseResult]:
    suite = run(impl, only=["no-such-group"],
                extra=list(extra) or [_renamed("misbehave"), _renamed("after")])
    return {r.id.split("/")[1]: r for r in suite.results}


def _errored_then_passed(results: dict[str, CaseResult]) -> CaseResult:
    assert results["after"].status is Status.PASS, results["after"]
    bad = results["misbehave"]
    assert bad.status is Status.ERROR, bad
    return bad


# -- the parts, alone ------------------------------------------------------------------------


def test_the_tail_keeps_the_last_bytes_and_counts_the_rest() -> None:
    tail = Tail(limit=10)
    for chunk in (b"abc", b"defghij", b"klmnop", b"q" * 50, b"rs"):
        tail.add(chunk)
        assert len(tail) <= 10
    assert tail.total == 3 + 7 + 6 + 50 + 2
    assert tail.text().endswith("qqqqqqqqrs")
    assert "58 earlier bytes not kept" in tail.text()


def test_lines_are_cut_where_they_end_and_a_long_one_is_refused() -> None:
    reader = LineReader(limit=8)
    reader.feed(b"ab")
    assert reader.line() is None
    reader.feed(b"c\nde\nf")
    assert reader.line() == b"abc"
    assert reader.line() == b"de"
    assert reader.line() is None
    reader.feed(b"g\n")
    assert reader.line() == b"fg"
    with pytest.raises(ReplyTooLong, match="passed 8 bytes"):
        reader.feed(b"123456789")
    with pytest.raises(ReplyTooLong, match="longer than the limit"):
        LineReader(limit=4).feed(b"123456\n")


def test_replies_that_cannot_be_decoded_say_why() -> None:
    assert decode_reply(b'{"a": [1, {"b": 2}]}') == {"a": [1, {"b": 2}]}
    assert nesting_depth({"a": [1, {"b": [2]}]}) == 4
    for line, why in ((b"[" * 100_000 + b"]" * 100_000, "deeper than"),
                      (b"[" * 300 + b"]" * 300, "300 levels deep"),
                      (b'"\xff"', "not UTF-8"), (b"{nope", "not JSON")):
        with pytest.raises(UndecodableReply, match=why):
            decode_reply(line)


# -- each misbehaviour, through the runner ---------------------------------------------------


def test_a_flood_of_stderr_is_kept_as_a_bounded_tail() -> None:
    impl = _hostile("stderr-flood", "16")
    bad = _errored_then_passed(_run(impl))
    assert "exited by itself (status 3)" in bad.message
    (crash,) = impl.crashes
    assert crash.stderr_tail.endswith("the end of the flood\n")
    assert "earlier bytes not kept" in crash.stderr_tail
    assert len(crash.stderr_tail.encode()) < STDERR_TAIL_BYTES + 100
    assert any("the end of the flood" in d for d in bad.diff)


def test_stderr_is_drained_while_a_reply_is_awaited() -> None:
    # 16 MiB of stderr before the reply: a runner that did not read stderr while waiting
    # would leave the adapter blocked on a full pipe, and the case would time out
    impl = _hostile("stderr-chatter", "16")
    results = _run(impl)
    assert results["misbehave"].status is Status.PASS, results["misbehave"]
    assert results["after"].status is Status.PASS
    assert not impl.crashes


_MEASURE = textwrap.dedent("""
    import json, resource, sys
    from loom_ref.conformance.case import Case, load_cases
    from loom_ref.conformance.impl import SubprocessImplementation
    from loom_ref.conformance.runner import Runner
    from loom_ref.conformance.suite import locate
    suite = locate()
    base = next(c for c in load_cases(suite.cases_dir, only=["journal.fold"])[0]
                if c.id == "journal.fold/empty")
    extra = [Case(data={**base.data, "id": "journal.fold/" + n}) for n in ("misbehave", "after")]
    impl = SubprocessImplementation([sys.executable, "-m", "tests.conformance.hostile_adapter",
                                     "stderr-flood", sys.argv[1]], start_timeout=60.0)
    runner = Runner(impl, suite, allow_all_skipped=True)
    runner.start()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    results = [runner.run_case(c).status.value for c in extra]
    runner.stop()
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"results": results, "grew_kib": after - before,
                      "tail": len(impl.crashes[0].stderr_tail)}))
""")


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss is in KiB on Linux")
def test_the_runners_memory_stays_bounded_whatever_stderr_brings() -> None:
    """256 MiB of stderr through a runner in a process of its own: its peak memory grows by
    a small bounded amount (the tail and one read), nowhere near what was written."""
    out = subprocess.run([sys.executable, "-c", _MEASURE, "256"], cwd=REPO, check=True,
                         capture_output=True, text=True).stdout
    seen = json.loads(out)
    assert seen["results"] == ["error", "pass"]
    assert seen["tail"] <= STDERR_TAIL_BYTES + 100
    assert seen["grew_kib"] < 32 * 1024, seen  # 32 MiB, an eighth of what was written


def test_a_reply_that_never_ends_is_refused_at_the_line_limit() -> None:
    impl = _hostile("no-newline", max_reply_bytes=1024 * 1024)
    bad = _errored_then_passed(_run(impl))
    assert "passed 1048576 bytes" in bad.message and "without its newline" in bad.message
    assert "killed by the runner" in bad.message


def test_the_deadline_holds_while_bytes_keep_arriving() -> None:
    impl = _hostile("trickle", timeout=2.0)
    bad = _errored_then_passed(_run(impl))
    assert "no reply within 2s" in bad.message and "killed by the runner" in bad.message


@pytest.mark.parametrize(("mode", "why"), [
    (("deep", "100000"), "deeper than 200"),
    (("deep", "500"), "502 levels deep"),
    (("not-utf8",), "not UTF-8"),
])
def test_an_undecodable_reply_is_that_cases_protocol_error(mode: tuple[str, ...],
                                                           why: str) -> None:
    impl = _hostile(*mode)
    bad = _errored_then_passed(_run(impl))
    assert why in bad.message


def test_a_child_left_behind_is_ended_with_the_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    impl = _hostile("fork-and-exit", str(pidfile), timeout=2.0)
    bad = _errored_then_passed(_run(impl))
    # it exited by itself (the runner did not kill it); its child held the output open
    assert "exited by itself (status 0)" in bad.message, bad.message
    assert "killed" not in bad.message
    assert "a process it started still held its output open" in bad.message
    child = int(pidfile.read_text())
    assert not _alive(child)


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for its reaper is not running)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


def test_a_hang_is_killed_and_said_to_be() -> None:
    impl = _hostile("hang", timeout=2.0)
    bad = _errored_then_passed(_run(impl))
    assert "no reply within 2s; killed by the runner (SIGKILL)" in bad.message


def test_a_signal_is_told_apart_from_an_exit() -> None:
    bad = _errored_then_passed(_run(_hostile("abort")))
    assert "ended by SIGABRT" in bad.message


def test_an_implementation_that_stops_reading_cannot_hold_a_write() -> None:
    big = _renamed("misbehave", description="x" * (4 * 1024 * 1024))
    impl = _hostile("deaf", timeout=2.0)
    results = _run(impl, big)
    assert results["misbehave"].status is Status.ERROR
    assert "read no request within 2s" in results["misbehave"].message


def test_ctrl_c_stops_the_implementation_and_prints_what_ran(tmp_path: Path) -> None:
    """Ctrl-C in the middle of a run: the implementation (in a process group of its own, so
    the terminal's SIGINT never reaches it) is ended by the runner, the summary of the cases
    that finished is printed, and the exit status is 130, with no traceback."""
    import signal
    import time

    pidfile = tmp_path / "adapter.pid"
    impl = f"{sys.executable} -m tests.conformance.hostile_adapter slow {pidfile}"
    # A terminal's Ctrl-C reaches a runner whose SIGINT is at its default. When this test runs
    # under a shell that started it in the background, SIGINT is ignored and the child would
    # inherit that (and rightly keep ignoring it), so the child is given the default back.
    runner = subprocess.Popen([sys.executable, "-m", "loom_ref.cli.main", "conformance",
                               "--impl", impl, "--only", "journal,kernel", "--quiet"],
                              cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True,
                              preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    for _ in range(600):  # until three cases were answered (at most a minute)
        if pidfile.exists() and pidfile.read_text():
            break
        time.sleep(0.1)
    adapter = int(pidfile.read_text())
    runner.send_signal(signal.SIGINT)
    out, err = runner.communicate(timeout=60)
    assert runner.returncode == 130, (out, err)
    assert "Traceback" not in out + err
    assert "loom-ref: interrupted" in err
    assert "sent " in out and "interrupted (Ctrl-C) after " in out
    assert not _alive(adapter)
