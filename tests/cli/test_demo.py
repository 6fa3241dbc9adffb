"""``loom-ref demo`` and ``loom-ref replay``: every crash point recovers, nothing runs twice.

The crash matrix here is :func:`loom_ref.cli.demo_matrix.crash_matrix`, the one the crash
explorer (``loom-ref demo --explore``) draws: the page shows the cuts these tests checked."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from loom_ref.cli.demo import run_demo
from loom_ref.cli.demo_agent import NOTE, Options
from loom_ref.cli.demo_matrix import Cut, crash_matrix, run_cut
from loom_ref.cli.main import main
from loom_ref.journal import read_journal_file

UNCRASHED_EVENTS = 16
#: The STEP_STARTED events of the non-idempotent steps (the model turns and the refund): a
#: crash right after one leaves its step in doubt; lookup_order (event 5) is idempotent.
IN_DOUBT_AT = (3, 7, 12, 14)


def demo(tmp_path: Path, crash_after: int | None = None, torn: bool = False,
         **options: bool) -> tuple[int, str]:
    out = io.StringIO()
    code = run_demo(directory=str(tmp_path), out=out, crash_after=crash_after, torn=torn,
                    options=Options(**options))
    return code, out.getvalue()


def runs(text: str) -> dict[str, int]:
    line = text.split("effects that really ran, over all processes: ")[1].splitlines()[0]
    return {name: int(n) for name, n in re.findall(r"(\w+) x(\d+)", line)}


def test_uncrashed_demo(tmp_path: Path) -> None:
    code, text = demo(tmp_path)
    assert code == 0
    assert "model> Refunded 30.00 EUR for order A-42." in text
    # the triage decision streams to the desk; its first attempt drops and is retried
    assert f"desk> {NOTE}" in text and "a reset for attempt 2 clears the desk's view" in text
    assert runs(text) == {"lookup_order": 1, "model": 3, "refund": 1, "triage": 2}
    assert len(read_journal_file(tmp_path / "demo-1.jsonl").events) == UNCRASHED_EVENTS


def _without_in_doubt(cut: Cut) -> list[tuple[str, object]]:
    return [(e.kind.value, e.payload) for e in cut.events if e.kind.value != "STEP_IN_DOUBT"]


@pytest.fixture(scope="module")
def uncrashed() -> Cut:
    return run_cut(Options())


@pytest.mark.parametrize("torn", [False, True], ids=["crash", "torn"])
def test_every_cut_of_the_crash_matrix_recovers_and_refunds_once(uncrashed: Cut,
                                                                 torn: bool) -> None:
    # spec: kernel.recover, kernel.in-doubt, journal.torn-tail
    cuts = crash_matrix(Options(), torn=torn)
    assert [c.after for c in cuts] == list(range(1, UNCRASHED_EVENTS + 1))
    for cut in cuts:
        k = cut.after
        assert cut.status == "completed", k
        assert cut.runs["refund"] == 1, k
        # the journal as it stood: k events (a torn write: k - 1, and the torn line)
        assert len(cut.written) == (k - 1 if torn else k), k
        assert [e.seq for e in cut.written] == list(range(1, len(cut.written) + 1))
        assert (cut.torn_tail is not None) == torn, k
        if torn:
            assert cut.torn_tail is not None and cut.torn_tail.line == k + 1
            assert cut.torn_text.startswith(f'{{"seq":{k},')
        # a recovered journal equals the uncrashed one, but for an in-doubt step's event
        assert _without_in_doubt(cut) == _without_in_doubt(uncrashed), k
        # a non-idempotent step whose STEP_STARTED was the last event written is in doubt
        assert bool(cut.in_doubt()) == (len(cut.written) in IN_DOUBT_AT), k
        # the triage decision streams once: a recovery is served its record (deltas are
        # live-only, ADR 0119 #5), unless the crash tore that record, so it is decided again
        streamed = [r["where"]["process"] for r in cut.story.tape.to_json()
                    if r["kind"] == "open" and r["toolId"] == "triage"]
        assert streamed == ([1, 2] if torn and k == 2 else [2] if k == 1 else [1]), k


@pytest.mark.parametrize("k", [3, 7])
def test_a_crash_point_as_the_terminal_tells_it(tmp_path: Path, k: int) -> None:
    # spec: kernel.recover, kernel.in-doubt
    code, text = demo(tmp_path, crash_after=k)
    assert code == 0, text
    assert f"simulated crash after journal event {k}" in text
    assert "process 2 (fresh runtime, fresh effects, same journal)" in text
    assert runs(text)["refund"] == 1
    assert "is in doubt" in text
    events = read_journal_file(tmp_path / "demo-1.jsonl").events
    assert events[-1].payload["output"]["text"].startswith("Refunded 30.00 EUR")


def test_deny_reaches_the_model_as_data(tmp_path: Path) -> None:
    code, text = demo(tmp_path, deny=True)
    assert code == 0
    assert "a human declines the refund" in text
    assert "I did not refund order A-42" in text
    assert "refund" not in runs(text)


def test_redact_refuses_every_stream_and_says_so(tmp_path: Path) -> None:
    # spec: deltas.fail-closed
    code, text = demo(tmp_path, redact=True, leak=True)
    assert code == 0
    assert "model>" not in text and "desk>" not in text
    assert text.count("warning: streaming disabled: inspects output without a delta form") == 4
    assert "answer: Refunded 30.00 EUR to card [redacted] for order A-42." in text


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
    assert "deterministic: 7 commands served from the journal, none run; the history ends " \
           "completed" in capsys.readouterr().out
    lines = path.read_bytes().split(b"\n")
    # a journal whose first tool step names another tool: the demo body diverges from it
    import zlib

    body = lines[5][: lines[5].rindex(b',"crc":"')].replace(b'"lookup_order"', b'"refund"')
    lines[5] = body + b',"crc":"%08x"}' % zlib.crc32(body)
    path.write_bytes(b"\n".join(lines))
    assert main(["replay", str(path)]) == 1
    out = capsys.readouterr().out
    # spec: kernel.replay-compare -- once, as an expected/actual diff of JSON values
    assert out.splitlines() == [
        "NOT deterministic: the body diverged from its journal (kernel.nondeterminism)",
        "  at journal event 5:",
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
