"""Cases that close the stream survivors of a fresh mutation sample (issue 30, seed 456059):
a number below 1 whose first significant digit is its first fractional digit (0.5, 0.25,
0.1: a decimal exponent of 0 in ``0.<digits> * 10**n``) is written with its leading ``0``, as
``JSON.stringify`` writes it (``stream.openai.restringify-form``).

``gen_vectors.cases()`` appends these rows to its groups, so ``python -m
tests.stream.gen_vectors --write`` writes them with the rest.
"""

from __future__ import annotations

from typing import Any

from .gen_vectors import be, bs, call, delta, fin, sse, tc

Row = tuple[str, str, str, Any, Any]

BELOW_ONE_TEXT = '{"a":0.5,"b":-0.25,"c":0.1,"d":0.999}'

OPENAI: list[Row] = [
    ("restringified-fraction-below-one", "stream.openai.restringify-form",
     "a number between 0.1 and 1 (its first digit is the first after the point) is written "
     "with a 0 before the point: 0.5, -0.25, 0.1 and 0.999, as JSON.stringify writes them "
     "(never .5)",
     'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":'
     '{"name":"f","arguments":{"a":5e-1,"b":-0.250,"c":0.1,"d":0.999}}}]}}]}\n\n'
     + sse(delta("tool_calls")),
     [bs(0, "tool-call"), tc(0, "a", BELOW_ONE_TEXT, "f"),
      be(0, call("a", "f", BELOW_ONE_TEXT)), fin("tool-calls")]),
]


def vector_rows() -> dict[str, list[Row]]:
    """The rows of each ``gen_vectors`` table this module adds to."""
    return {"OPENAI": OPENAI}
