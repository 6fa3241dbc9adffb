"""``loom-ref demo`` and ``loom-ref replay``: every crash point recovers, nothing runs twice."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from loom_ref.cli.demo import run_demo
from loom_ref.cli.main import main
from loom_ref.journal import read_journal_file

UNCRASHED_EVENTS = 15


def demo(tmp_path: Path, **options: object) -> tuple[int, str]:
    out = io.StringIO()
    settings = {"crash_after": None, "deny": False, "leak": False, "hold_back": False}
    settings.update(options)
    code = run_demo(directory=str(tmp_path), out=out, **settings)  # type: ignore[arg-type]
    return code, out.getvalue()


def runs(text: str) -> dict[str, int]:
    line = text.split("effects that really ran, over all processes: ")[1].splitlines()[0]
    return {name: int(n) for name, n in re.findall(r"(\w+) x(\d+)", line)}


def test_uncrashed_demo(tmp_path: Path) -> None:
    code, text = demo(tmp_path)
    assert code == 0
    assert "model> Refunded 30.00 EUR for order A-42." in text
    assert runs(text) == {"lookup_order": 1, "model": 3, "refund": 1}
    assert len(read_journal_file(tmp_path / "demo-1.jsonl").events) == UNCRASHED_EVENTS


@pytest.mark.parametrize("k", range(1, UNCRASHED_EVENTS + 1))
def test_every_crash_point_recovers_and_refunds_once(tmp_path: Path, k: int) -> None:
    # spec: kernel.recover, kernel.in-doubt
    code, text = demo(tmp_path, crash_after=k)
    assert code == 0, text
    assert f"simulated crash after journal event {k}" in text
    assert "process 2 (fresh runtime, fresh effects, same journal)" in text
    assert runs(text)["refund"] == 1
    # a STEP_STARTED of a non-idempotent step (a model turn or the refund) leaves it in doubt;
    # lookup_order (event 4) is idempotent and is simply invoked again
    assert ("is in doubt" in text) == (k in (2, 6, 11, 13))
    events = read_journal_file(tmp_path / "demo-1.jsonl").events
    assert events[-1].payload["output"]["text"].startswith("Refunded 30.00 EUR")


def test_deny_reaches_the_model_as_data(tmp_path: Path) -> None:
    code, text = demo(tmp_path, deny=True)
    assert code == 0
    assert "a human declines the refund" in text
    assert "I did not refund order A-42" in text
    assert "refund" not in runs(text)


def test_leak_is_severed_before_the_card_number_completes(tmp_path: Path) -> None:
    # spec: guards.before-delivery, guards.limit-prefix
    code, text = demo(tmp_path, leak=True)
    assert code == 1
    shown = text.split("model> ")[1].splitlines()[0]
    assert "4111 1111 1111 1111" not in shown and shown.startswith("Refunded 30.00 EUR to")
    assert "governance.delta-severed" in text


def test_leak_with_hold_back_shows_no_prefix(tmp_path: Path) -> None:
    code, text = demo(tmp_path, leak=True, hold_back=True)
    assert code == 1
    assert "4111" not in text.split("error:")[0]


def test_replay_reports_determinism_and_divergence(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    demo(tmp_path, crash_after=6)
    path = tmp_path / "demo-1.jsonl"
    assert main(["replay", str(path)]) == 0
    assert "deterministic: 6 commands served from the journal, none run; the history ends " \
           "completed" in capsys.readouterr().out
    lines = path.read_bytes().split(b"\n")
    # a journal whose first tool step names another tool: the demo body diverges from it
    import zlib

    body = lines[4][: lines[4].rindex(b',"crc":"')].replace(b'"lookup_order"', b'"refund"')
    lines[4] = body + b',"crc":"%08x"}' % zlib.crc32(body)
    path.write_bytes(b"\n".join(lines))
    assert main(["replay", str(path)]) == 1
    out = capsys.readouterr().out
    # spec: kernel.replay-compare -- once, as an expected/actual diff of JSON values
    assert out.splitlines() == [
        "NOT deterministic: the body diverged from its journal (kernel.nondeterminism)",
        "  at journal event 4:",
        "    where    journal holds     body did",
        '    command  "execute"         "execute"',
        '    id       "#turn:0:tool:0"  "#turn:0:tool:0"',
        '    toolId   "refund"          "lookup_order"    <- differs',
    ]


def test_replay_refuses_other_workflows(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                        ) -> None:
    from loom_ref.journal import FileStore

    from ..kernel.helpers import Counting, make_runtime, run_to_end

    store = FileStore(tmp_path)
    run_to_end(make_runtime(store, Counting()), "o1")
    assert main(["replay", store.path("o1")]) == 1
    assert "kernel.unknown-workflow" in capsys.readouterr().err


def test_bad_crash_point_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--crash-after", "0"]) == 2
    assert capsys.readouterr().err.startswith("loom-ref: argument.crash-after: ")
