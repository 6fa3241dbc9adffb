"""The state machine drawn from the table the code enforces (spec/journal.md 1.3.1): the
spec's Mermaid copy is regenerated from ``TRANSITIONS`` and compared, and the SVG has every
status and every arrow of the table."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from loom_ref.cli.timeline.machine import (
    BEGIN,
    END,
    edges,
    final_states,
    initial_state,
    mermaid_block,
    mermaid_state_diagram,
    replace_block,
    state_svg,
)
from loom_ref.journal import TRANSITIONS, EventKind, Status

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "spec" / "journal.md"


def test_the_spec_diagram_is_generated_from_the_table() -> None:
    # spec: journal.transitions
    page = SPEC.read_text()
    assert page.count(BEGIN) == 1 and page.count(END) == 1
    assert replace_block(page) == page, (
        "spec/journal.md's state machine differs from loom_ref.journal.fold.TRANSITIONS; "
        "regenerate it with: python -m loom_ref.cli.timeline.machine --write spec/journal.md")


def test_the_comparison_fails_when_the_table_changes() -> None:
    page = SPEC.read_text()
    changed = {status: dict(row) for status, row in TRANSITIONS.items()}
    del changed[Status.SUSPENDED][EventKind.RESUME_RECEIVED]
    changed[Status.COMPLETED][EventKind.STREAM_APPENDED] = Status.COMPLETED
    assert replace_block(page, changed) != page
    assert "suspended --> suspended" not in mermaid_state_diagram(changed)
    assert "completed --> completed: STREAM_APPENDED" in mermaid_state_diagram(changed)


def test_every_transition_is_one_arrow_label() -> None:
    drawn = {(e.source, k): e.target for e in edges() for k in e.kinds}
    table = {(s, k): t for s, row in TRANSITIONS.items() for k, t in row.items()}
    assert drawn == table
    assert len({(e.source, e.target) for e in edges()}) == len(edges())
    assert initial_state() is Status.NOT_STARTED
    assert final_states() == [Status.COMPLETED, Status.FAILED]
    text = mermaid_state_diagram()
    for edge in edges():
        src, dst = (s.value.replace("-", "_") for s in (edge.source, edge.target))
        assert f"    {src} --> {dst}: {'<br/>'.join(k.value for k in edge.kinds)}" in text
    assert "    [*] --> not_started" in text and "    failed --> [*]" in text


def test_the_svg_draws_every_status_and_arrow() -> None:
    svg = state_svg(current=Status.IN_DOUBT)
    statuses = re.findall(r'class="sm-state( sm-current)?" data-status="([a-z-]+)"', svg)
    assert sorted(s for _, s in statuses) == sorted(s.value for s in Status)
    assert [s for current, s in statuses if current] == ["in-doubt"]
    arrows = re.findall(r'data-from="([a-z-]+)" data-to="([a-z-]+)" data-kinds="([A-Z_ ]+)"',
                        svg)
    assert {(f, t, k) for f, t, k in arrows} == {
        (e.source.value, e.target.value, " ".join(k.value for k in e.kinds)) for e in edges()}
    for kind in EventKind:  # every kind the table allows is written on an arrow
        if any(kind in row for row in TRANSITIONS.values()):
            assert f">{kind.value}<" in svg


def test_the_generator_prints_and_writes(tmp_path: Path) -> None:
    run = [sys.executable, "-m", "loom_ref.cli.timeline.machine"]
    printed = subprocess.run(run, capture_output=True, text=True, check=True).stdout
    assert printed == mermaid_block() + "\n"
    copy = tmp_path / "journal.md"
    copy.write_text(SPEC.read_text().replace("running --> failed", "running --> lost"))
    subprocess.run([*run, "--write", str(copy)], capture_output=True, check=True)
    assert copy.read_text() == SPEC.read_text()
