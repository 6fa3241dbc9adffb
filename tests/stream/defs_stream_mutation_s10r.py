"""Cases that close the stream survivors of the fresh mutation samples 252125, 13564 and
97256 (issue 30, helper s10r):

- a number written with a fraction of zeros whose digits are all integer digits (``15.0``,
  ``1.5e1``, ``-125.0``, ``100.5e1``) is re-stringified as an integer, ``15``, with no point
  (``stream.openai.restringify-form``: JSON.stringify's form; the fixed form with no fraction
  runs exactly up to the last digit, not one before);
- an identity's ``url`` is single-line printable ASCII as its other fields are
  (``stream.attribution.static``): a line break, a control character or a non-ASCII letter in
  the url is ``argument.invalid``, though the url is no RFC 9110 token.

``gen_vectors.cases()`` appends these rows, so ``python -m tests.stream.gen_vectors --write``
writes them with the rest.
"""

from __future__ import annotations

from typing import Any

from .gen_vectors import be, bs, call, delta, fin, identity, sse, tc

Row = tuple[str, str, str, Any, Any]

#: what JSON.stringify writes for {"a":15.0,"b":1.5e1,"c":-125.0,"d":100.5e1}
INTEGRAL_TEXT = '{"a":15,"b":15,"c":-125,"d":1005}'

OPENAI: list[Row] = [
    ("restringified-integral-fraction", "stream.openai.restringify-form",
     "a number whose fraction is zeros, with as many integer digits as significant ones "
     "(15.0, 1.5e1, -125.0, 100.5e1), is written as the integer, with no point: 15, 15, "
     "-125, 1005, as JSON.stringify writes them",
     'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":'
     '{"name":"f","arguments":{"a":15.0,"b":1.5e1,"c":-125.0,"d":100.5e1}}}]}}]}\n\n'
     + sse(delta("tool_calls")),
     [bs(0, "tool-call"), tc(0, "a", INTEGRAL_TEXT, "f"), be(0, call("a", "f", INTEGRAL_TEXT)),
      fin("tool-calls")]),
]

ATTRIBUTION: list[Row] = [
    ("url-one-line", "stream.attribution.static",
     "the url is single-line too: a CR LF in it (no '(', ')' or '\\') is refused, so no "
     "header can be smuggled in through it",
     identity(url="https://acme.example\r\nX-User: bob"), ("error", "argument.invalid")),
    ("url-printable", "stream.attribution.static",
     "the url is printable too: a tab (a control character) in it is refused",
     identity(url="https://acme.example/\tx"), ("error", "argument.invalid")),
    ("url-ascii", "stream.attribution.static",
     "the url is ASCII too: a non-ASCII letter in it is refused (an IRI is written "
     "percent-encoded)",
     identity(url="https://acmé.example"), ("error", "argument.invalid")),
]


def vector_rows() -> dict[str, list[Row]]:
    """The rows of each ``gen_vectors`` table this module adds to."""
    return {"OPENAI": OPENAI, "ATTRIBUTION": ATTRIBUTION}
