"""Differential test of the ``portable-1`` pattern dialect: Python and ECMAScript agree.

Rules (``spec/governance.md`` § 4.2.1, patterns.semantics; issue 16's "Done when"):

- Patterns drawn in the dialect (``dialect_strategies.patterns``), with and without
  IGNORECASE, are compiled by loom_ref (``compile_portable``: Python's ``re``, re-emitted only
  under IGNORECASE) and natively by Node (``new RegExp(p, "gu")`` / ``"giu"``). For every
  drawn text and every code point offset ``pos`` of it, the leftmost match at or after
  ``pos`` must have the same span on both sides, in code points, or be absent on both. That
  is every span a scan can report: a validator resumes from some offset after every match.
- Every pattern of the shipped rules and of the conformance cases that is in the dialect is
  run the same way over texts made for it.
- The two dialect checkers (``loom_ref.governance.dialect`` and the Node adapter's
  ``dialect.mjs``) agree on strings drawn from a syntax-heavy alphabet: in the dialect with
  the same widths, or outside it for the same reason.
- One long-lived node process answers every request (``regex_oracle.mjs``); at least 2,000
  pattern/text pairs are compared. Skipped when ``node`` is not installed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from loom_ref.governance.dialect import PatternError, check_pattern
from loom_ref.governance.pii import pii_rules
from loom_ref.governance.portable import compile_portable

from .dialect_strategies import CHECKER_ALPHABET, patterns, texts

NODE = shutil.which("node")
ORACLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "regex_oracle.mjs")
CASES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__)))), "conformance", "cases")
EXAMPLES = int(os.environ.get("LOOM_DIALECT_EXAMPLES", "600"))

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")


class Oracle:
    """The node process: one JSON line in, one JSON line out."""

    def __init__(self) -> None:
        assert NODE is not None
        self.proc = subprocess.Popen([NODE, ORACLE], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, encoding="utf-8")

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        reply: dict[str, Any] = json.loads(self.proc.stdout.readline())
        assert "error" not in reply, (request, reply)
        return reply

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


@pytest.fixture(scope="module")
def oracle() -> Iterator[Oracle]:
    o = Oracle()
    yield o
    o.close()


def python_spans(pattern: str, ignore_case: bool, text: str) -> list[list[int] | None]:
    rx = compile_portable(check_pattern(pattern), re.IGNORECASE if ignore_case else 0)
    out: list[list[int] | None] = []
    for pos in range(len(text) + 1):
        m = rx.search(text, pos)
        out.append(None if m is None else [m.start(), m.end()])
    return out


def compare(oracle: Oracle, pattern: str, ignore_case: bool, sample: list[str]) -> int:
    """Assert both engines give every span alike; the number of pattern/text pairs."""
    node = oracle.ask({"op": "match", "pattern": pattern, "ignoreCase": ignore_case,
                       "texts": sample})["spans"]
    for text, theirs in zip(sample, node, strict=True):
        ours = python_spans(pattern, ignore_case, text)
        assert ours == theirs, (pattern, ignore_case, text, ours, theirs)
    return len(sample)


def test_python_and_node_agree_on_every_match_span(oracle: Oracle) -> None:
    pairs: list[int] = []

    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(pattern=patterns(), ignore_case=st.booleans(),
           sample=st.lists(texts(), min_size=3, max_size=5))
    def agree(pattern: str, ignore_case: bool, sample: list[str]) -> None:
        try:
            check_pattern(pattern)
        except PatternError as err:  # only a nested-count product over the limit
            assert err.details["reason"] == "repeat", (pattern, err)
            assume(False)
        pairs.append(compare(oracle, pattern, ignore_case, sample))

    agree()
    print(f"{sum(pairs)} pattern/text pairs agree")  # shown with pytest -s
    assert sum(pairs) >= 2000, sum(pairs)


def _case_patterns() -> set[str]:
    """Every deny pattern of the case files that is in the dialect."""
    found: set[str] = set()

    def walk(v: Any) -> None:
        if isinstance(v, dict):
            if v.get("kind") == "deny" and "dialect" not in v:
                p = v.get("patterns")
                found.update(x for x in (p.values() if isinstance(p, dict) else p or [])
                             if isinstance(x, str))
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    for group in os.listdir(CASES):
        for name in os.listdir(os.path.join(CASES, group)):
            with open(os.path.join(CASES, group, name), encoding="utf-8") as f:
                walk(json.load(f))
    ok = set()
    for p in found:
        try:
            check_pattern(p)
        except PatternError:
            continue
        ok.add(p)
    return ok


PII_TEXTS = ["4111 1111 1111 1111", "44111 1111 1111 1111", "4111-1111-1111-1111 2",
             "x 378282246310005.", "123-45-6789", "1123-45-6789", "a.b@example.com",
             "SSN 078-05-1120 card 5555555555554444", "4" * 25, "1 2 3 4 5 6 7 8 9 0 1 2 3",
             "pw secret S3CR3T sk-abcdefgh KEY-12345 password=hunter2", "é@x.yz \U0001F600"]


def test_shipped_and_case_patterns_agree(oracle: Oracle) -> None:
    sources = {rule.pattern.pattern for rule in pii_rules()} | _case_patterns()
    assert len(sources) >= 10
    for pattern in sorted(sources):
        for ignore_case in (False, True):
            compare(oracle, pattern, ignore_case, PII_TEXTS)


def _ours(pattern: str) -> dict[str, Any]:
    try:
        checked = check_pattern(pattern)
    except PatternError as err:
        return {"reason": err.details["reason"]}
    return {"min": checked.min_width, "max": checked.max_width}


def test_the_two_checkers_agree(oracle: Oracle) -> None:
    seen: list[int] = []

    @settings(max_examples=max(EXAMPLES // 3, 50), deadline=None, derandomize=True)
    @given(st.lists(st.text(alphabet=CHECKER_ALPHABET, max_size=14), min_size=10, max_size=10))
    def agree(sample: list[str]) -> None:
        theirs = oracle.ask({"op": "check", "patterns": sample})["checks"]
        assert [_ours(p) for p in sample] == theirs, list(zip(sample, theirs, strict=True))
        seen.append(len(sample))

    agree()
    assert sum(seen) >= 500
