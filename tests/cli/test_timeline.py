"""The timeline (``loom_ref.cli.timeline``) and ``loom-ref journal show --format
text|json|html|mermaid``: one record, four renderings, the markers a teacher points at."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from loom_ref.cli.main import main
from loom_ref.cli.timeline.json_form import TIMELINE_SCHEMA, timeline_json
from loom_ref.cli.timeline.model import MarkerKind, Timeline, build_timeline
from loom_ref.journal import Status, read_journal_file
from loom_ref.schema import check_schema, validate

from .timelines import crashed_demo, demo_journal, diverged_journal, torn_journal

ROOT = Path(__file__).resolve().parents[2]


def markers(timeline: Timeline) -> list[tuple[str, str | None, int | None, int | None]]:
    return [(m.kind.value, m.lane, m.at_seq, m.after_seq) for m in timeline.markers]


TRIAGE, TURN0, LOOKUP = "decision:triage", "step:#turn:0", "step:#turn:0:tool:0"


def test_a_crashed_and_recovered_demo(tmp_path: Path) -> None:
    # spec: kernel.recover, kernel.in-doubt, kernel.resolve
    t = crashed_demo(tmp_path, 7)
    assert [lane.id for lane in t.lanes] == [
        "execution", TRIAGE, TURN0, LOOKUP, "step:#turn:1",
        "gate:#turn:1:tool:0:approval", "step:#turn:1:tool:0", "step:#turn:2"]
    assert t.lane(LOOKUP).detail == "lookup_order"
    assert t.lane("gate:#turn:1:tool:0:approval").detail == "AgentToolApproval"
    # every call that drives the body again from its start (a recovery, a resolve, a
    # resume) is served what the journal holds: a served tag on each of those lanes
    assert markers(t) == [
        ("crash", None, None, 7),
        ("recovery", None, None, 7),
        ("served", TRIAGE, None, 7), ("served", TURN0, None, 7), ("served", LOOKUP, None, 7),
        ("in-doubt", "step:#turn:1", 8, None),
        ("served", TRIAGE, None, 8), ("served", TURN0, None, 8), ("served", LOOKUP, None, 8),
        ("resolved", "step:#turn:1", 9, None),
        ("ran-again", "step:#turn:1", 9, None),
        ("served", TRIAGE, None, 10), ("served", TURN0, None, 10), ("served", LOOKUP, None, 10),
        ("served", "step:#turn:1", None, 10), ("served", "gate:#turn:1:tool:0:approval", None, 10),
    ]
    # journal.fold: each point carries the folded status after it
    statuses = [p.status for p in t.points]
    assert statuses[7] is Status.IN_DOUBT and statuses[9] is Status.SUSPENDED
    assert statuses[-1] is Status.COMPLETED and t.state.status is Status.COMPLETED
    assert [p.process for p in t.points] == [1] * 7 + [2] * 10
    one, two = t.processes
    assert (one.crashed_after, [c.action for c in one.calls]) == (7, ["start"])
    assert [c.action for c in two.calls] == ["recover", "resolve (retry)", "resume"]
    # the counts of calls made before and after the crash
    assert dict(one.effects) == {"triage": 2, "model": 1, "lookup_order": 1}
    assert dict(two.effects) == {"model": 2, "refund": 1}
    # the streams, recorded beside the journal (deltas.recorder): in process 1 only
    opened = [r for r in t.tape if r["kind"] == "open"]
    assert [(r["toolId"], r["where"]["process"]) for r in opened] == [
        ("triage", 1), ("model", 1), ("lookup_order", 1), ("model", 2), ("refund", 2),
        ("model", 2)]


def test_a_resume_marks_what_it_served_without_a_crash(tmp_path: Path) -> None:
    # spec: kernel.resume -- the body is driven again from its start; what is journaled is
    # handed back, so the lanes before the gate are served
    t = crashed_demo(tmp_path, None)
    assert markers(t) == [("served", lane, None, 9) for lane in (
        TRIAGE, TURN0, LOOKUP, "step:#turn:1", "gate:#turn:1:tool:0:approval")]


def test_an_idempotent_step_cut_by_a_crash_runs_again_and_nothing_is_in_doubt(
        tmp_path: Path) -> None:
    t = crashed_demo(tmp_path, 5)  # event 5: STEP_STARTED of lookup_order (idempotent)
    kinds = [m.kind for m in t.markers]
    assert MarkerKind.IN_DOUBT not in kinds
    assert ("ran-again", LOOKUP, 6, None) in markers(t)
    assert ("served", TURN0, None, 5) in markers(t)


def test_a_torn_write_at_the_crash_is_marked_where_it_happened(tmp_path: Path) -> None:
    # spec: journal.torn-tail -- one numbering: event 7's line is line 8 (line 1: the header)
    t = crashed_demo(tmp_path, 7, torn=True)
    torn = [m for m in t.markers if m.kind is MarkerKind.TORN_TAIL]
    assert [(m.after_seq, m.data) for m in torn] == [(6, {"line": 8, "size": 24, "event": 7})]
    assert "24 bytes of line 8 (event 7) reached the file" in torn[0].detail
    assert t.torn is None  # the next writer truncated it: the final journal is whole
    assert len(t.points) == 16 and MarkerKind.IN_DOUBT not in {m.kind for m in t.markers}


def test_a_torn_tail_at_the_end_of_a_file(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    path = torn_journal(tmp_path)
    parsed = read_journal_file(path)
    t = build_timeline(parsed.events, source=str(path), torn=parsed.torn)
    assert markers(t)[-1] == ("torn-tail", None, None, 16)
    assert main(["journal", "show", str(path)]) == 0
    assert "  torn tail: line 18 (event 17), 26 bytes (not written)" in capsys.readouterr().out
    assert main(["journal", "show", str(path), "--format", "html"]) == 0
    assert "TORN TAIL: line 18 (event 17), 26 bytes, not written" in capsys.readouterr().out
    assert main(["journal", "check", str(path)]) == 1
    assert "line 18 (event 17) is torn" in capsys.readouterr().err


def test_a_corrupt_journal_is_drawn_up_to_its_last_good_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # spec: journal.corrupt-line -- lines 1-4 good (the header, events 1-3), line 5 bad
    path = demo_journal(tmp_path)
    lines = path.read_bytes().split(b"\n")
    lines[4] = lines[4].replace(b'"STEP_COMPLETED"', b'"STEP_COMPLETE"')
    path.write_bytes(b"\n".join(lines))
    assert main(["journal", "show", str(path)]) == 1  # a negative verdict, drawn all the same
    out = capsys.readouterr().out
    assert "    3  STEP_STARTED" in out and "    4  " not in out
    assert "  CORRUPT: line 5 (event 4): journal.bad-checksum: checksum mismatch; " in out
    assert main(["journal", "show", str(path), "--format", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert validate(doc, TIMELINE_SCHEMA) == []
    assert len(doc["events"]) == 3 and doc["corrupt"]["line"] == 5
    assert doc["corrupt"]["text"].startswith('{"seq":4,"kind":"STEP_COMPLETE"')
    assert doc["markers"][-1]["kind"] == "corrupt"
    page = tmp_path / "corrupt.html"
    assert main(["journal", "show", str(path), "--format", "html", "--out", str(page)]) == 1
    assert capsys.readouterr().out == (f"wrote html of 3 events to {page} (up to line 5 "
                                       "(event 4), which is corrupt)\n")
    assert "CORRUPT: line 5 (event 4), journal.bad-checksum" in page.read_text()
    # --at reads a prefix of a whole journal: a corrupt one is refused, as check refuses it
    assert main(["journal", "show", str(path), "--at", "2"]) == 1
    assert "journal.corrupt" in capsys.readouterr().err


def test_a_journal_whose_header_is_unreadable_names_no_execution(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # spec: journal.header -- nothing is read after a bad header, so no execution is known;
    # every form says so in words rather than printing a Python ``None``
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b"root:x:0:0:root:/root:/bin/bash\n")
    assert main(["journal", "show", str(path)]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"journal {path} (execution unknown (no readable header))\n"), out
    assert "None" not in out and "CORRUPT: line 1 (the header)" in out
    for form in ("html", "mermaid"):
        assert main(["journal", "show", str(path), "--format", form]) == 1
        drawn = capsys.readouterr().out
        assert "unknown (no readable header)" in drawn and "None" not in drawn, form


def test_a_divergence_shows_expected_and_actual(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    # spec: kernel.replay-compare
    path = diverged_journal(tmp_path)
    parsed = read_journal_file(path)
    t = build_timeline(parsed.events, source=str(path))
    (marker,) = [m for m in t.markers if m.kind is MarkerKind.NONDETERMINISM]
    assert (marker.at_seq, marker.lane) == (7, LOOKUP)
    assert marker.data == {
        "expected": {"command": "execute", "id": "#turn:0:tool:0", "toolId": "refund"},
        "actual": {"command": "execute", "id": "#turn:0:tool:0", "toolId": "lookup_order"},
        "journalSeq": 5}
    assert t.points[-1].label == "diverged"
    assert main(["journal", "show", str(path)]) == 0
    out = capsys.readouterr().out
    assert re.search(r'toolId +"refund" +"lookup_order" +<- differs', out), out
    assert main(["journal", "show", str(path), "--format", "html"]) == 0
    page = capsys.readouterr().out
    assert 'id="divergence"' in page and "the body diverged from its journal at event 5" in page


def test_full_prints_whole_payloads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = demo_journal(tmp_path)
    assert main(["journal", "show", str(path)]) == 0
    short = capsys.readouterr().out
    assert 'model({"messages":[{"role":"user","content":[…)' in short
    assert main(["journal", "show", str(path), "--full"]) == 0
    full = capsys.readouterr().out
    assert "…" not in full
    first_model_call = read_journal_file(path).events[2].payload["input"]
    assert json.dumps(first_model_call, ensure_ascii=False, separators=(",", ":")) in full


def test_full_is_for_text_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = demo_journal(tmp_path)
    assert main(["journal", "show", str(path), "--format", "json", "--full"]) == 2
    assert capsys.readouterr().err.startswith("loom-ref: argument.full: ")


def test_json_is_the_timeline_and_satisfies_its_schema(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    check_schema(TIMELINE_SCHEMA)
    path = torn_journal(tmp_path)
    assert main(["journal", "show", str(path), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert validate(doc, TIMELINE_SCHEMA) == []
    assert (doc["schema"], doc["version"], doc["executionId"]) == ("loom-ref.timeline", 2,
                                                                     "demo-1")
    assert [e["seq"] for e in doc["events"]] == list(range(1, 17))
    assert doc["events"][0]["payload"]["input"] == "Please refund order A-42: it arrived broken."
    assert doc["torn"] == {"line": 18, "size": 26} and doc["state"]["status"] == "completed"
    assert doc["streams"] == [] and doc["corrupt"] is None  # a journal holds no delta
    # the demo's timeline, processes and streams and all, satisfies it too
    (tmp_path / "crash").mkdir()
    demo = timeline_json(crashed_demo(tmp_path / "crash", 7, torn=True))
    assert validate(demo, TIMELINE_SCHEMA) == []
    assert demo["processes"][0]["torn"] == {"line": 8, "size": 24}
    assert demo["streams"][0]["kind"] == "open" and demo["streams"][0]["toolId"] == "triage"
    # and the check can fail
    doc["events"][0]["status"] = "sleeping"
    del doc["lanes"][0]["kind"]
    problems = {p["path"] for p in validate(doc, TIMELINE_SCHEMA)}
    assert {"/events/0/status", "/lanes/0"} <= problems


def test_the_published_schema_is_the_code_schema(capsys: pytest.CaptureFixture[str]) -> None:
    published = json.loads((ROOT / "docs" / "timeline.schema.json").read_text())
    assert published == TIMELINE_SCHEMA, (
        "regenerate with: loom-ref journal schema > docs/timeline.schema.json")
    assert main(["journal", "schema"]) == 0
    assert json.loads(capsys.readouterr().out) == TIMELINE_SCHEMA


def test_at_draws_the_prefix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # spec: journal.fold
    path = demo_journal(tmp_path)
    assert main(["journal", "show", str(path), "--at", "9", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["events"]) == 9 and doc["state"]["status"] == "suspended"
    assert doc["state"]["waitingOn"] == "#turn:1:tool:0:approval"


def test_mermaid_is_a_sequence_diagram_with_one_participant_per_lane(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = diverged_journal(tmp_path)
    assert main(["journal", "show", str(path), "--format", "mermaid"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "sequenceDiagram"
    participants = [ln for ln in lines if ln.startswith("    participant ")]
    assert participants[2] == "    participant L2 as step #35;turn:0 (model)"
    assert len(participants) == 4
    assert "    L0->>L3: 5 STEP_STARTED" in lines
    assert "    L3-->>L0: 6 STEP_COMPLETED" in lines
    assert "    Note over L0: 7 EXECUTION_FAILED (diverged)" in lines
    # what Mermaid reads specially never reaches it raw: only as its entity codes
    for line in lines[1:]:
        label = (line.split(" as ", 1)[1] if " as " in line else
                 line.split("title ", 1)[1] if "title " in line else line.split(": ", 1)[1])
        assert not set(re.sub(r"#[0-9a-z]+;", "", label)) & set("#;{}<>\""), line


def test_out_writes_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = demo_journal(tmp_path)
    page = tmp_path / "timeline.html"
    assert main(["journal", "show", str(path), "--format", "html", "--out", str(page)]) == 0
    assert capsys.readouterr().out == f"wrote html of 16 events to {page}\n"
    html = page.read_text()
    assert html.startswith("<!DOCTYPE html>") and html.count("<svg") >= 2
    # self-contained: nothing is fetched from anywhere
    assert not re.search(r"""(src|href)=["'](https?:)?//""", html)
    assert "<link" not in html and "@import" not in html


def test_a_journal_without_events_has_an_empty_timeline(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    header = demo_journal(tmp_path).read_bytes().split(b"\n")[0]
    path = tmp_path / "header-only.jsonl"
    path.write_bytes(header + b"\n")
    for fmt in ("text", "json", "html", "mermaid"):
        assert main(["journal", "show", str(path), "--format", fmt]) == 0
        out = capsys.readouterr().out
        assert "demo-1" in out, fmt
