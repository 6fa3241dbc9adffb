"""Traceability (spec/README.md): every rule of spec/ is cited at the code that enforces it
and pinned by a conformance case, or exempted with a reason and proved by a test; the
generated table spec/TRACE.md is current."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from loom_ref.conformance.provenance import ANCHOR_RE
from loom_ref.conformance.trace import problems, render, rule_anchors, trace

REPO = Path(__file__).parents[1]


def test_every_rule_is_cited_and_pinned() -> None:
    assert problems(trace(REPO)) == []


def test_the_generated_table_is_current() -> None:
    assert (REPO / "spec" / "TRACE.md").read_text() == render(trace(REPO)), (
        "regenerate with: loom-ref conformance trace --write")


def test_the_check_can_fail(tmp_path: Path) -> None:
    """A rule with no case and no exemption, and a case naming an unknown anchor, are both
    reported (so the check above is not vacuous)."""
    for part in ("spec", "loom_ref", "tests", "conformance"):
        (tmp_path / part).mkdir()
    (tmp_path / "spec" / "x.md").write_text("# X {#x}\n\n- A rule. {#x.rule}\n")
    (tmp_path / "loom_ref" / "m.py").write_text("# spec: x.rule\n")
    cases = tmp_path / "conformance" / "cases" / "x.g"
    cases.mkdir(parents=True)
    (cases / "c.json").write_text(json.dumps({"id": "x.g/c", "anchor": "x.nope"}))
    found = problems(trace(tmp_path))
    assert "x.rule (x.md) is pinned by no conformance case" in found
    assert "case anchor x.nope is not defined in spec/" in found
    assert not any(p.startswith("x ") for p in found)  # a heading anchor is not a rule
    shutil.rmtree(tmp_path / "conformance" / "cases")


def _blocks(text: str) -> list[str]:
    """Bullets and paragraphs of a chapter (headings and table rows apart)."""
    blocks: list[str] = []
    current: list[str] = []
    for line in text.splitlines():
        starts = line.lstrip().startswith(("- ", "* ")) or not line.strip() or \
            line.startswith(("#", "|"))
        if starts and current:
            blocks.append(" ".join(current))
            current = []
        if line.startswith(("#", "|")):
            blocks.append(line)
        elif line.strip():
            current.append(line)
    if current:
        blocks.append(" ".join(current))
    return blocks


def test_every_must_and_should_carries_an_anchor() -> None:
    """spec/README.md: every rule in RFC 2119 words has an anchor in the same bullet. Quoted
    seed text and inline code do not count; the sentences that define the words are exempt."""
    import re

    missing = []
    for chapter in sorted((REPO / "spec").glob("*.md")):
        if chapter.name == "SEEDS.md":  # generated: it quotes the seeds' own MUSTs
            continue
        for block in _blocks(chapter.read_text()):
            plain = re.sub(r'`[^`]*`|"[^"]*"|“[^”]*”', "", block)
            if "RFC 2119" in plain or not re.search(r"\b(MUST|SHOULD)\b", plain):
                continue
            if not ANCHOR_RE.search(block):
                missing.append(f"{chapter.name}: {block[:90]}")
    assert missing == []


def test_code_spans_hide_example_anchors_and_nothing_else(tmp_path: Path) -> None:
    # A code span closes with a backtick run as long as the one that opened it, so a span
    # holding a lone backtick (``a`b``) does not swallow the anchors after it.
    (tmp_path / "x.md").write_text(
        "- tokens ``!#$%&'*+-.^_`|~`` are fine. {#x.one}\n"
        "- an example `{#x.example}` is no rule. {#x.two}\n"
        "- later, `code` then a rule. {#x.three}\n")
    assert rule_anchors(tmp_path) == {"x.one": "x.md", "x.two": "x.md", "x.three": "x.md"}


def test_the_boundary_table_is_current_and_sound() -> None:
    """spec/BOUNDARIES.md is generated from conformance/boundaries.json (issue 30), every
    boundary names a defined rule and existing cases."""
    from loom_ref.conformance import boundaries
    from loom_ref.conformance.lint import spec_anchors

    listed = boundaries.load(str(REPO / "conformance"))
    assert listed, "conformance/boundaries.json lists no boundary"
    chapters = {r.anchor: r.chapter for r in trace(REPO).rows}
    assert (REPO / "spec" / "BOUNDARIES.md").read_text() == boundaries.render(listed, chapters), (
        "regenerate with: loom-ref conformance trace --write")
    wrong, _ = boundaries.check(str(REPO / "conformance"), str(REPO / "conformance" / "cases"),
                                spec_anchors(str(REPO / "spec")))
    assert wrong == []


def test_the_boundary_check_can_fail(tmp_path: Path) -> None:
    """A one-sided boundary is a warning; an unknown rule or case is a problem."""
    from loom_ref.conformance import boundaries

    cases = tmp_path / "cases" / "x.g"
    cases.mkdir(parents=True)
    (cases / "in.json").write_text(json.dumps({"id": "x.g/in", "anchor": "x.rule"}))
    (tmp_path / "boundaries.json").write_text(json.dumps({"boundaries": [
        {"anchor": "x.rule", "boundary": "N in, N+1 out", "accept": ["x.g/in"], "refuse": []},
        {"anchor": "x.nope", "boundary": "b", "accept": ["x.g/gone"], "refuse": ["x.g/in"]},
    ]}))
    wrong, warnings = boundaries.check(str(tmp_path), str(tmp_path / "cases"), {"x.rule"})
    assert warnings == ["boundary x.rule (N in, N+1 out): no case on the refuse side"]
    assert any("anchor x.nope is not defined" in w for w in wrong)
    assert any("accept case x.g/gone does not exist" in w for w in wrong)
    assert "1 with one side only" in boundaries.render(boundaries.load(str(tmp_path)), {})
