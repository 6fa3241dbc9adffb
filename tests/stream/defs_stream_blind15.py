"""Cases for the stream chapter's third fresh blind reading (issue 29, ``spec/blind/stream.md``
§ Third fresh blind reading): the points the text had left open, now decided in
``spec/stream.md``, each pinned here with a hand-written answer.

``gen_vectors.cases()`` appends these rows to their groups, so ``python -m
tests.stream.gen_vectors --write`` writes them with the rest.
"""

from __future__ import annotations

from typing import Any

from .gen_vectors import (
    HELLO,
    HI,
    RawInput,
    be,
    bs,
    chat_req,
    delta,
    failed,
    fin,
    script,
    sse,
    td,
    text,
    wire_msg,
)

Row = tuple[str, str, str, Any, Any]


def _strict(chunks: list[Any]) -> RawInput:
    return RawInput(chunks=chunks, strict=True)


A = [bs(0, "text"), td(0, "a")]

ASSEMBLER: list[Row] = [
    ("strict-error-carries-index", "stream.assembler.strict",
     "the strict assembler's error carries the chunk index of the first violation, as "
     "enforce raises it: a delta for a block never started, at chunk 2",
     _strict([*A, td(1, "b"), be(0, text("a")), fin("stop")]),
     ("error", "stream.delta-targets-open-block", {"index": 2})),
    ("strict-missing-finish-index", "stream.assembler.strict",
     "reading the result of a strict stream without its finish raises stream.single-finish "
     "at index len(chunks)",
     _strict(HELLO), ("error", "stream.single-finish", {"index": 4})),
]
WIRE: list[Row] = [
    ("failure-empty-message", "stream.finish.failure-form",
     "a failure's message is any string, the empty one included: it decodes and is written "
     "back as it is",
     [{"type": "finish", "reason": {"kind": "error", "failure": {"message": ""}}}],
     [{"type": "finish", "reason": {"kind": "error", "failure": {"message": ""}}}]),
]
CONSUME: list[Row] = [
    ("abort-on-the-finish-adds-nothing", "stream.adapter.consumer-wrapper",
     "a signal that aborts once the adapter's own finish was taken adds nothing: the stream "
     "is over, no aborted finish follows",
     {"scripts": [script([*A, fin("stop")])], "abortAfter": 3}, [[*A, fin("stop")]]),
    ("raise-after-equals-abort-after", "stream.adapter.consumer-wrapper",
     "raiseAfter and abortAfter at the same k: the signal is checked before the read that "
     "would raise, so the call ends aborted (stream.aborted), not error",
     {"scripts": [script([*A, fin("stop")], 2)], "abortAfter": 2},
     [[*A, failed("aborted", "stream.aborted")]]),
]
OPENAI: list[Row] = [
    ("leading-bom-after-empty-piece", "stream.openai.sse",
     "the start of the stream is the start of the pieces joined: a byte order mark after an "
     "empty first piece is at the very start, and ignored",
     ["", "\ufeff" + sse(delta("stop", content="Hi"))], [*HI, fin("stop")]),
]

HI_USER = wire_msg("user", text("Hi"))
OPENAI_REQUEST: list[Row] = [
    ("request-temperature-true-refused", "stream.vectors.input-order",
     "a temperature of true is no finite number (booleans are not numbers): argument.invalid",
     chat_req([HI_USER], temperature=True), ("error", "argument.invalid")),
    ("request-parameters-null-refused", "stream.vectors.input-order",
     "a tool's parameters of null are no object (only maxTokens and temperature read null as "
     "absent): argument.invalid",
     chat_req([HI_USER], tools=[{"name": "t", "parameters": None}]),
     ("error", "argument.invalid")),
]


def vector_rows() -> dict[str, list[Row]]:
    """The rows of each ``gen_vectors`` table this reading adds to."""
    return {"ASSEMBLER": ASSEMBLER, "WIRE": WIRE, "CONSUME": CONSUME, "OPENAI": OPENAI,
            "OPENAI_REQUEST": OPENAI_REQUEST}
