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
    err = capsys.readouterr().err
    assert err.startswith("loom-ref: journal.torn-tail: ") and "line 12 (event 11) is torn (" in err
    lines = data.split(b"\n")
    lines[4] = lines[4].replace(b"card", b"cash")  # a complete line with a bad checksum
    journal_file.write_bytes(b"\n".join(lines))
    assert main(["journal", "check", str(journal_file)]) == 1  # a negative verdict, as torn
    seen = capsys.readouterr()
    assert seen.err.startswith("loom-ref: journal.corrupt: ") and "line 5" in seen.err
    assert seen.out == ""


@pytest.mark.parametrize("command", [["journal", "show"], ["journal", "check"], ["replay"]])
def test_missing_file_is_one_line_with_the_code_and_status_2(
        command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A path that is not there is a usage error, the same from every command."""
    assert main([*command, str(tmp_path / "nope.jsonl")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("loom-ref: journal.not-found: ") and err.count("\n") == 1


@pytest.fixture
def store_log(tmp_path: Path) -> Path:
    from loom_ref.journal import LogStore
    path = tmp_path / "store.log"
    with LogStore(path, fsync=FsyncPolicy.NEVER) as store:
        for eid in ("o1", "o2"):
            run_to_end(make_runtime(store, Counting()), eid)
    return path


def test_show_and_check_one_execution_of_a_store_log(
        store_log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # spec: journal.log-executions
    assert main(["journal", "show", str(store_log), "--execution", "o2"]) == 0
    out = capsys.readouterr().out
    assert "(execution o2)" in out and "started order as o2" in out
    assert "status: completed (at seq 11)" in out
    assert main(["journal", "check", str(store_log), "--execution", "o1"]) == 0
    assert "11 events" in capsys.readouterr().out
    assert main(["journal", "check", str(store_log)]) == 0
    assert "store log of 2 execution(s), 22 events" in capsys.readouterr().out


def test_a_store_log_needs_an_execution_to_show(
        store_log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["journal", "show", str(store_log)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("loom-ref: argument.execution-id: ") and "(o1, o2)" in err
    assert main(["journal", "show", str(store_log), "--execution", "o9"]) == 2
    assert "holds no execution 'o9'" in capsys.readouterr().err


def test_a_torn_store_log_is_reported_by_check(
        store_log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # spec: journal.log-torn-tail
    store_log.write_bytes(store_log.read_bytes()[:-10])
    assert main(["journal", "check", str(store_log)]) == 1
    assert "loom-ref: journal.torn-tail: " in capsys.readouterr().err


def test_execution_must_match_a_journal_file(
        journal_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["journal", "show", str(journal_file), "--execution", "o2"]) == 2
    assert "is the journal of 'o1', not 'o2'" in capsys.readouterr().err
