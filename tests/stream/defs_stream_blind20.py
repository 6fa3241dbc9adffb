"""Cases for the stream chapter's fourth fresh blind reading (issue 29, ``spec/blind/stream.md``
§ Fourth fresh blind reading): the points the text had left open, now decided in
``spec/stream.md``, each pinned here with a hand-written answer.

``gen_vectors.cases()`` and ``gen_anthropic.cases()`` append these rows to their groups, so
``python -m tests.stream.gen_vectors --write`` and ``python -m tests.stream.gen_anthropic
--write`` write them with the rest.
"""

from __future__ import annotations

from typing import Any

from .gen_vectors import (
    HI,
    HI_USER,
    RawInput,
    be,
    bs,
    call,
    chat_body,
    chat_req,
    delta,
    fin,
    msg,
    out,
    provider_usage,
    reason,
    sse,
    tc,
    text,
    v,
)

Row = tuple[str, str, str, Any, Any]

CHECKER: list[Row] = [
    ("empty-id-then-id-is-a-change", "stream.tool-call-identity-stable",
     "every tool-call delta gives its call's id, the empty one included: ids \"\" then c1 is "
     "a change, and so is a block-end with c1 (both compared with the first id, \"\")",
     [bs(0, "tool-call"), tc(0, "", "{", "f"), tc(0, "c1", "}"), be(0, call("c1", "f", "{}")),
      fin("stop")],
     [v("tool-call-identity-stable", 2), v("tool-call-identity-stable", 3)]),
]
ASSEMBLER: list[Row] = [
    ("empty-delta-id-kept", "stream.assembler.deltas-by-block-type",
     "the last delta's id wins, the empty one included: an open tool call whose last delta "
     "had the id \"\" assembles with the id \"\", not call-<index>",
     [bs(0, "tool-call"), tc(0, "c1", "{", "f"), tc(0, "", "}"), fin("error", "cut")],
     out(msg(call("", "f", "{}")), reason("error", "cut"))),
    ("unnamed-call-integral-float-index", "stream.assembler.unnamed-call",
     "call-<index> writes the index in decimal digits however it was written: an index 3.0 "
     "is the integer 3, so the open call that received no delta is call-3",
     [bs(3.0, "tool-call"), fin("error", "cut")],
     out(msg(call("call-3", "", "")), reason("error", "cut"))),
    ("strict-null-refused", "stream.vectors",
     "strict has no null-as-absent reading: null is no boolean, field-type",
     RawInput(chunks=[fin("stop")], strict=None), ("error", "stream.wire.field-type")),
]
OPENAI: list[Row] = [
    ("usage-not-an-object-ignored", "stream.openai.usage-checked",
     "a usage member that is not an object (a number, an array) is a missing report: "
     "ignored, the earlier report stays",
     sse(provider_usage(5, 2), {**delta(content="Hi"), "usage": 7},
         {**delta("stop"), "usage": [5, 2]}),
     [*HI, {"type": "usage", "usage": {"inputTokens": 5, "outputTokens": 2}}, fin("stop")]),
]
OPENAI_REQUEST: list[Row] = [
    ("request-max-tokens-sent-as-given", "stream.openai.request",
     "the OpenAI-compatible body carries maxTokens as it is, not range-checked: 0 is sent as "
     "max_tokens 0 (the provider judges it)",
     chat_req([HI_USER], maxTokens=0),
     chat_body([{"role": "user", "content": "Hi"}], max_tokens=0)),
]


def vector_rows() -> dict[str, list[Row]]:
    """The rows of each ``gen_vectors`` table this reading adds to."""
    return {"CHECKER": CHECKER, "ASSEMBLER": ASSEMBLER, "OPENAI": OPENAI,
            "OPENAI_REQUEST": OPENAI_REQUEST}


def anthropic_rows() -> tuple[list[Row], list[Row]]:
    """The rows this reading adds to ``gen_anthropic``: (``stream.anthropic_map`` rows,
    ``stream.anthropic_request`` rows)."""
    from .gen_anthropic import END, U25, answer, block, ev, failing, failure_reason, start
    from .gen_anthropic import delta as block_delta
    from .gen_anthropic import stop as block_stop
    from .gen_vectors import td, usage

    body = (start(U25) + block(0, {"type": "text", "text": ""})
            + block_delta(0, "text_delta", text="Hi") + block_stop(0)
            + ev("message_delta", delta="end_turn", usage={"output_tokens": 7}) + END)
    no_reason = "stream.provider.no-finish-reason"
    mapping: list[Row] = [
        ("message-delta-not-an-object", "stream.anthropic.events",
         "a message_delta whose delta is not an object (here the string end_turn) records no "
         "stop reason, so the stream ends without one, and its usage is still read",
         body,
         answer([bs(0, "text"), td(0, "Hi"), be(0, text("Hi")), usage(25, 7),
                 failing("error", no_reason)],
                msg(text("Hi")), failure_reason(no_reason),
                {"inputTokens": 25, "outputTokens": 7})),
    ]
    return mapping, []
