"""Cases that close the stream survivors of a fresh mutation sample (issue 30, seed 803808):
a reasoning fragment that is an empty string, under the spelling ``reasoning``, is skipped
like any fragment that is not a non-empty string (``stream.openai.payload`` rule 4).

``gen_vectors.cases()`` appends these rows to its groups, so ``python -m
tests.stream.gen_vectors --write`` writes them with the rest.
"""

from __future__ import annotations

from typing import Any

from .gen_vectors import HI, delta, fin, sse

Row = tuple[str, str, str, Any, Any]

OPENAI: list[Row] = [
    ("reasoning-empty-skipped", "stream.openai.payload",
     "a reasoning fragment (the spelling reasoning) that is the empty string is skipped: it "
     "opens no reasoning block, so the text is block 0",
     sse(delta("stop", reasoning="", content="Hi")), [*HI, fin("stop")]),
    ("reasoning-not-a-string-skipped", "stream.openai.payload",
     "a reasoning fragment (the spelling reasoning) that is not a string (5) is skipped: it "
     "opens no reasoning block, so the text is block 0",
     sse(delta("stop", reasoning=5, content="Hi")), [*HI, fin("stop")]),
]


def vector_rows() -> dict[str, list[Row]]:
    """The rows of each ``gen_vectors`` table this module adds to."""
    return {"OPENAI": OPENAI}
