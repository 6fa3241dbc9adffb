"""The governance conformance case files are current (consensus-specs pattern).

``gen_vectors.py`` defines the cases with hand-written intents and writes the files; this test
checks that the files on disk are exactly what it writes now (one canonical file per case,
loom_ref's current answer as ``expect``, no stray file). The whole-suite test runs every file
through the protocol; the trace test checks every anchor against ``spec/governance.md``.
Rewrite the files with ``python -m tests.governance.gen_vectors --write``.
"""

from __future__ import annotations

from .. import vectorkit
from . import gen_vectors as gv

FILES = sorted(p for g in gv.GROUPS for p in (vectorkit.ROOT / g).glob("*.json"))


def test_the_case_files_are_what_the_generator_writes() -> None:
    vectorkit.assert_files_current(gv.CASES, gv.GROUPS, gv.check_intent)
    assert len(FILES) >= 30
