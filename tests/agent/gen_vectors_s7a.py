"""Agent vector cases that close the agent survivors of an 80-mutant sample left to branch
s7a (issue 30).

- ``agent.kept-suffix/after-bytes-one``: ``afterBytes`` 1 is the least value
  ``agent.kept_suffix`` accepts (spec/agent.md § Conformance vectors: "``afterBytes`` and
  ``keepRecent`` are ints >= 1"), the accept side of ``agent.kept-suffix/after-bytes-zero``.
  The kept suffix is then the newest messages totalling at most ``1 / 2`` byte
  (``agent.kept-suffix-bytes``): the two newest, of size 0, fit; the message of size 1 does
  not (``2 * 1 > 1``).

They are registered with ``gen_vectors.py``'s cases (``CASES`` below, in the same shape as
``gen_vectors_reach.py``'s) and written by it; the intent is hand-written from the spec.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CASES"]

Case = dict[str, Any]
CASES: list[Case] = [
    {"group": "agent.kept-suffix", "name": "after-bytes-one", "anchor": "agent.kept-suffix-bytes",
     "tier": "must", "function": "agent.kept_suffix",
     "description": "afterBytes 1, the least value it may take, is accepted (0 is refused, "
     "agent.kept-suffix/after-bytes-zero): the newest messages totalling at most half a byte "
     "are kept, the two of size 0, and the one of size 1 before them is not.",
     "input": {"sizes": [1, 0, 0], "afterBytes": 1, "keepRecent": 5},
     "intent": {"keep": 2}, "requires": ()},
]
