"""The deltas conformance case files are current (consensus-specs pattern).

``gen_vectors.py`` defines the cases with hand-written intents and writes the files; this test
checks that the files on disk are exactly what it writes now (one canonical file per case,
loom_ref's current answer as ``expect``, no stray file). The whole-suite test runs every file
through the protocol; the trace test checks every anchor against ``spec/deltas.md``.
Rewrite the files with ``python -m tests.deltas.gen_vectors --write``.
"""

from __future__ import annotations

import json
import re

from .. import vectorkit
from . import gen_vectors as gv

FILES = sorted(p for g in gv.GROUPS for p in (vectorkit.ROOT / g).glob("*.json"))


def test_the_case_files_are_what_the_generator_writes() -> None:
    vectorkit.assert_files_current(gv.CASES, gv.GROUPS, gv.check_intent)
    assert len(FILES) >= 25


def test_every_decision_has_a_case() -> None:
    # each ADR 0119 decision 1-13 is named by at least one case description
    named: set[int] = set()
    for path in FILES:
        description = json.loads(path.read_text(encoding="utf-8"))["description"]
        for match in re.finditer(r"Decisions? ([0-9]+)(?: and ([0-9]+))?", description):
            named.update(int(n) for n in match.groups() if n)
    # decision 5 (replay) is a kernel scenario: tests/deltas/test_decisions.py pins it
    assert named >= set(range(1, 14)) - {5}, sorted(set(range(1, 14)) - named)


def test_every_anchor_cited_in_code_is_defined() -> None:
    spec = (vectorkit.ROOT.parents[1] / "spec" / "deltas.md").read_text(encoding="utf-8")
    package = vectorkit.ROOT.parents[1] / "loom_ref" / "effects"
    cited: set[str] = set()
    for module in package.rglob("*.py"):
        # an anchor is a dotted id not followed by "_" (``effects.deltas.delta_to_json`` is not)
        cited.update(re.findall(r"(?<![\w.])deltas\.[a-z][a-z-]*[a-z](?![\w])",
                                module.read_text()))
    # not anchors: the function name, file names, and warning codes of deltas.run
    cited -= {"deltas.run", "deltas.llm", "deltas.replay", "deltas.py", "deltas.md",
              "deltas.sink-raised", "deltas.streaming-disabled", "deltas.warning"}
    assert len(cited) >= 25
    missing = sorted(a for a in cited  # an anchor may carry its provenance class
                     if f"{{#{a}}}" not in spec and f"{{#{a} ." not in spec)
    assert missing == []
