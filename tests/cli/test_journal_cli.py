"""``loom-ref journal show`` / ``check``: timelines, state at a seq, torn tails, corruption."""

from __future__ import annotations

from pathlib import Path

import pytest

from loom_ref.cli.main import main
from loom_ref.journal import FileStore, FsyncPolicy

from ..kernel.helpers import Counting, make_runtime, run_to_end


@pytest.fixture
def journal_file(tmp_path: Path) -> Path:
    store = FileStore(tmp_path, fsync=FsyncPolicy.NEVER)
    run_to_end(make_runtime(store, Counting()), "o1")
    return Path(store.path("o1"))


def test_show_prints_the_timeline_and_the_final_state(
        journal_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["journal", "show", str(journal_file)]) == 0
    out = capsys.readouterr().out
    assert "EXECUTION_SUSPENDED  suspended on gate approval (HumanApproval)" in out
    assert "status: completed (at seq 11)" in out
    assert 'output: {"status":"paid","receipt":"r-30"}' in out


def test_show_at_a_seq_folds_the_prefix(journal_file: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    # spec: journal.fold
    assert main(["journal", "show", str(journal_file), "--at", "6"]) == 0
    out = capsys.readouterr().out
    assert "status: suspended (at seq 6)" in out and "waiting on gate: approval" in out
    assert "STEP_STARTED         step charge#1" not in out


def test_show_rejects_a_seq_out_of_range(journal_file: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["journal", "show", str(journal_file), "--at", "99"]) == 2
    assert capsys.readouterr().err.startswith("loom-ref: argument.seq: ")


def test_check_clean_torn_and_corrupt(journal_file: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["journal", "check", str(journal_file)]) == 0
    assert "ok: " in capsys.readouterr().out
    data = journal_file.read_bytes()
    journal_file.write_bytes(data[:-10])  # spec: journal.torn-tail
    assert main(["journal", "check", str(journal_file)]) == 1
    out = capsys.readouterr().out
    assert "journal.torn-tail" in out and "line 12 is torn (" in out
    lines = data.split(b"\n")
    lines[4] = lines[4].replace(b"card", b"cash")  # a complete line with a bad checksum
    journal_file.write_bytes(b"\n".join(lines))
    assert main(["journal", "check", str(journal_file)]) == 2
    out = capsys.readouterr().out
    assert out.startswith("journal.corrupt: ") and "line 5" in out


def test_missing_file_is_one_line_with_the_code(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["journal", "show", str(tmp_path / "nope.jsonl")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("loom-ref: journal.not-found: ") and err.count("\n") == 1
