"""Hold loom-ref's portable-1 matching to Go's regexp (RE2) or Rust's regex on generated patterns.

Not part of CI (it needs a Go or Rust toolchain): the CI test is Python against Node,
``tests/governance/test_dialect_differential.py``. This is the same comparison against the two
RE2-family engines, for a reviewer who wants to see ``spec/governance.md``'s claim checked:

    (cd tools/dialect-oracles/go && go build -o dialectoracle .)
    python tools/dialect-oracles/hunt.py go 1500
    (cd tools/dialect-oracles/rust && cargo build --release)
    python tools/dialect-oracles/hunt.py rust 1500

Every shipped rule and every case pattern in the dialect is run over fixed texts first, then
``N`` drawn patterns (with and without IGNORECASE) over drawn texts; each pair must give the
same span at every code point offset. Prints the number of pairs compared.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

from hypothesis import HealthCheck, assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from loom_ref.governance.dialect import PatternError, check_pattern  # noqa: E402
from loom_ref.governance.pii import pii_rules  # noqa: E402
from tests.governance.dialect_strategies import patterns, texts  # noqa: E402
from tests.governance.test_dialect_differential import (  # noqa: E402
    PII_TEXTS,
    _case_patterns,
    python_spans,
)

COMMANDS = {"go": [os.path.join(HERE, "go", "dialectoracle")],
            "rust": [os.path.join(HERE, "rust", "target", "release", "dialect-oracle")]}


def main(engine: str, examples: int) -> None:
    proc = subprocess.Popen(COMMANDS[engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, encoding="utf-8")
    assert proc.stdin is not None and proc.stdout is not None

    def ask(pattern: str, ignore_case: bool, sample: list[str]) -> list[Any]:
        assert proc.stdin is not None and proc.stdout is not None
        if engine == "go":
            proc.stdin.write(json.dumps({"pattern": pattern, "ignoreCase": ignore_case,
                                         "texts": sample}) + "\n")
            proc.stdin.flush()
            reply = json.loads(proc.stdout.readline())
            assert "error" not in reply, (pattern, reply)
            return list(reply["spans"])
        hexed = ",".join(t.encode("utf-8").hex() for t in sample)
        proc.stdin.write(f"{int(ignore_case)}\t{pattern.encode('utf-8').hex()}\t{hexed}\n")
        proc.stdin.flush()
        line = proc.stdout.readline().rstrip("\n")
        assert not line.startswith("ERROR"), (pattern, line)
        return [[None if x == "-" else [int(n) for n in x.split(":")] for x in chunk.split(" ")]
                for chunk in line.split("|")]

    pairs = [0]

    def compare(pattern: str, ignore_case: bool, sample: list[str]) -> None:
        for text, theirs in zip(sample, ask(pattern, ignore_case, sample), strict=True):
            ours = python_spans(pattern, ignore_case, text)
            assert ours == theirs, (pattern, ignore_case, text, ours, theirs)
            pairs[0] += 1

    for pattern in sorted({r.pattern.pattern for r in pii_rules()} | _case_patterns()):
        for ignore_case in (False, True):
            compare(pattern, ignore_case, PII_TEXTS)

    @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck))
    @given(patterns(), st.booleans(), st.lists(texts(), min_size=3, max_size=5))
    def agree(pattern: str, ignore_case: bool, sample: list[str]) -> None:
        try:
            check_pattern(pattern)
        except PatternError:
            assume(False)
        compare(pattern, ignore_case, sample)

    agree()
    print(f"{engine}: {pairs[0]} pattern/text pairs agree")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1000)
