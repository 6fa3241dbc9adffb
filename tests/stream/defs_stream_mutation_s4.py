"""Cases that close the stream survivors of the fresh mutation samples 473986, 321483 and
238680 (issue 30):

- an in-band error whose ``error.message`` is a number, an array or an object still ends the
  stream in ``finish error`` with the implementation's message (``stream.openai.payload``
  rule 1: only a non-empty string is the failure's message);
- a U+FEFF at the start of a piece that is not the stream's first text is data, kept
  (``stream.openai.sse``: one *leading* U+FEFF is ignored).

``gen_vectors.cases()`` appends these rows, so ``python -m tests.stream.gen_vectors --write``
writes them with the rest.
"""

from __future__ import annotations

from typing import Any

from .gen_vectors import bs, failed, fin, sse, td, text

Row = tuple[str, str, str, Any, Any]

OPENAI: list[Row] = [
    ("in-band-error-message-not-a-string", "stream.openai.payload",
     "an in-band error whose message is a number, an array or an object (no non-empty string) "
     "still ends the stream in error, with the implementation's message; the first error wins",
     sse({"choices": [{"index": 0, "delta": {"content": "Hi"}}]},
         {"error": {"message": 5}}, {"error": {"message": ["x"]}},
         {"error": {"message": {"text": "x"}}}),
     [bs(0, "text"), td(0, "Hi"), failed("error", "stream.provider.in-band-error")]),
    ("bom-after-a-cut-is-data", "stream.openai.sse",
     "a U+FEFF at the start of a piece that is not the start of the stream is data, kept: "
     "only one leading U+FEFF of the whole stream is ignored",
     ['data: {"choices":[{"index":0,"delta":{"content":"',
      '\ufeffHi"},"finish_reason":"stop"}]}\n\n', "data: [DONE]\n\n"],
     [bs(0, "text"), td(0, "\ufeffHi"),
      {"type": "block-end", "index": 0, "block": text("\ufeffHi")}, fin("stop")]),
]


def vector_rows() -> dict[str, list[Row]]:
    """The rows of each ``gen_vectors`` table this module adds to."""
    return {"OPENAI": OPENAI}

