"""Cases for the stream chapter's fifth fresh blind reading (issue 29, ``spec/blind/stream.md``
§ Fifth fresh blind reading): the points the text had left open, now decided in
``spec/stream.md``, each pinned here with a hand-written answer.

``gen_vectors.cases()`` appends these rows to its groups, so ``python -m
tests.stream.gen_vectors --write`` writes them with the rest.
"""

from __future__ import annotations

from typing import Any

from .gen_vectors import failed, sse

Row = tuple[str, str, str, Any, Any]

OPENAI: list[Row] = [
    ("non-string-finish-reason-no-block", "stream.openai.empty-response",
     "a finish_reason that is not a string is none: a stream that opened no block and whose "
     "only finish_reason is 5 is an empty response, not a missing finish reason",
     sse({"choices": [{"index": 0, "delta": {}, "finish_reason": 5}]}),
     [failed("error", "stream.provider.empty-response")]),
]


def vector_rows() -> dict[str, list[Row]]:
    """The rows of each ``gen_vectors`` table this reading adds to."""
    return {"OPENAI": OPENAI}
