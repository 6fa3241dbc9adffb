"""spec/stream.md and the code cannot drift: rule ids are anchors; cited anchors exist."""

from __future__ import annotations

import json
import re
from pathlib import Path

from loom_ref.conformance.provenance import ANCHOR_RE
from loom_ref.stream import Rule
from loom_ref.stream.rules import RULE_SUMMARIES

ROOT = Path(__file__).resolve().parents[2]
SPEC = (ROOT / "spec" / "stream.md").read_text(encoding="utf-8")
ANCHORS = [m.group(1) for m in ANCHOR_RE.finditer(SPEC)]


def test_anchors_are_unique() -> None:
    assert len(ANCHORS) == len(set(ANCHORS))


def test_every_rule_id_is_a_spec_anchor_on_a_must_line() -> None:
    for rule in Rule:
        assert rule.value in ANCHORS
        bullet = next(b for b in re.split(r"\n- |\n\n", SPEC)
                      if any(m.group(1) == rule.value for m in ANCHOR_RE.finditer(b)))
        assert "MUST" in bullet or "MAY" in bullet, bullet
    assert set(RULE_SUMMARIES) == set(Rule)


def test_every_anchor_cited_in_code_exists() -> None:
    cited: set[str] = set()
    for path in (ROOT / "loom_ref" / "stream").glob("*.py"):
        cited.update(re.findall(r"spec: (stream\.[a-z0-9.\-]*[a-z0-9])", path.read_text()))
    assert cited, "the code cites its rules"
    missing = sorted(a for a in cited if a not in ANCHORS)
    assert missing == []


def test_every_case_anchor_exists() -> None:
    for group in ("stream.checker", "stream.assembler"):
        for path in (ROOT / "conformance" / "cases" / group).glob("*.json"):
            anchor = json.loads(path.read_text())["anchor"]
            assert anchor in ANCHORS, f"{path.name}: {anchor}"
