"""``smoke``, ``init`` and ``--jobs`` (issue 15)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from loom_ref.cli.main import main
from loom_ref.conformance.impl import SubprocessImplementation
from loom_ref.conformance.report import dump_json
from loom_ref.conformance.runner import Status
from loom_ref.conformance.smoke import smoke

from .helpers import SUITE, cases, run

ADAPTER = f"{sys.executable} -m loom_ref.conformance.adapter"
HERE = Path(__file__).parent
NODE = shutil.which("node")


def test_smoke_passes_a_sound_harness(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conformance", "smoke", "--impl", ADAPTER]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("ok   start: loom-ref")
    assert "ok   malformed request: answered errored" in out
    assert "ok   stop: ok" in out
    ran = [line for line in out if line.startswith("ok   journal.fold:")]
    assert ran and ran[0].endswith(" pass")
    assert out[-1].startswith("smoke: ") and "steps ok" in out[-1]


def test_smoke_fails_a_misspelt_capability(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conformance", "smoke", "--impl",
                 f"{sys.executable} {HERE / 'misspelt_adapter.py'}"]) == 1
    out = capsys.readouterr().out
    assert "FAIL start: the implementation declares capability 'journal-parse'" in out


def test_smoke_fails_a_harness_that_dies_on_a_request_it_cannot_read() -> None:
    impl = SubprocessImplementation([sys.executable, "-m", "tests.conformance.flaky_adapter"],
                                    timeout=5.0, cwd=str(HERE.parent.parent))
    steps = smoke(impl, SUITE, cases(["journal.fold"]))
    malformed = next(s for s in steps if s.what.startswith("malformed request"))
    assert not malformed.ok, malformed
    assert any(s.ok and s.what.startswith("stop") for s in steps)


def test_init_refuses_a_file_as_directory_and_an_unknown_language(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "f").write_text("x")
    assert main(["conformance", "init", "--lang", "python", str(tmp_path / "f")]) == 2
    assert "loom-ref: argument.path: " in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["conformance", "init", "--lang", "cobol", str(tmp_path)])


def test_jobs_give_the_verdict_and_report_of_one_process() -> None:
    only = ["journal.fold", "kernel.gates", "kernel.in-doubt", "stream.checker"]
    argv = [sys.executable, "-m", "tests.conformance.flaky_adapter"]
    cwd = str(HERE.parent.parent)
    from .test_subprocess import _renamed  # cases that crash, hang and answer garbage

    extra = [_renamed(n) for n in ("crash-me", "after-1", "garbage", "after-2")]
    one = run(SubprocessImplementation(argv, cwd=cwd, timeout=5.0), only, extra=extra)
    three = run([SubprocessImplementation(argv, cwd=cwd, timeout=5.0) for _ in range(3)],
                only, extra=extra)
    assert one.count(Status.PASS) > 300 and one.count(Status.ERROR) == 2
    assert dump_json(one) == dump_json(three)
    assert [r.id for r in one.results] == [r.id for r in three.results]


def test_jobs_through_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conformance", "--jobs", "2", "--only", "journal.fold", "--quiet",
                 "--profile", "loom-ref"]) == 0
    assert "implementation loom-ref" in capsys.readouterr().out
    assert main(["conformance", "--jobs", "0"]) == 2
    assert "--jobs" in capsys.readouterr().err


def test_where_names_the_suite(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conformance", "where"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"suite {SUITE.version} (protocol 1)")
    assert os.path.join("adapters", "node", "loom-adapter.mjs") in out


class _Terminal:
    """A stream that says it is a terminal and keeps what is written to it."""

    def __init__(self) -> None:
        self.written: list[str] = []

    def isatty(self) -> bool:
        return True

    def write(self, text: str) -> None:
        self.written.append(text)

    def flush(self) -> None:
        pass


def test_a_terminal_shows_progress_and_a_pipe_does_not() -> None:
    from loom_ref.cli.conformance import _Progress

    tty = _Terminal()
    progress = _Progress(tty, enabled=True)
    for done in range(1, 101):
        progress(done, 100, f"g/case-{done}")
    progress(100, 100, "")
    text = "".join(tty.written)
    assert "[25/100] g/case-25" in text and "[100/100] g/case-100" in text
    assert text.endswith("\r")  # the line is wiped at the end, so the summary starts clean
    quiet = _Terminal()
    _Progress(quiet, enabled=False)(25, 100, "g/x")
    assert quiet.written == []
