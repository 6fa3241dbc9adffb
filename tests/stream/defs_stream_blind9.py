"""Cases for the stream chapter's second fresh blind reading (issue 29, ``spec/blind/stream.md``
§ Second fresh blind reading): the points the text had left open, now decided in
``spec/stream.md``, each pinned here with a hand-written answer.

``gen_vectors.cases()`` and ``gen_anthropic.cases()`` append these rows to their groups, so
``python -m tests.stream.gen_vectors --write`` and ``python -m tests.stream.gen_anthropic
--write`` write them with the rest.
"""

from __future__ import annotations

import json
from typing import Any

from .gen_vectors import (
    MSG,
    J,
    RawInput,
    be,
    bs,
    call,
    chat_body,
    chat_req,
    fin,
    msg,
    tc,
    td,
    text,
    usage,
    v,
    wire_msg,
)

Row = tuple[str, str, str, Any, Any]


def _data(payload: Any) -> str:
    return f"data: {json.dumps(payload, separators=(',', ':'), ensure_ascii=False)}\n\n"


def _choice(delta: J, finish: Any = None) -> J:
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _calls(*items: J, finish: Any = None) -> str:
    return _data(_choice({"tool_calls": list(items)}, finish))


def _failed(code: str) -> J:
    return {"type": "finish", "reason": {"kind": "error",
                                         "failure": {"message": MSG, "code": code}}}


A = [bs(0, "text"), td(0, "a"), be(0, text("a"))]
DONE = "data: [DONE]\n\n"

CHECKER: list[Row] = [
    ("changed-id-and-name-reported-twice", "stream.checker.every-violation",
     "one tool-call delta that changes both the id and the name breaks the identity rule "
     "twice: two equal entries",
     [bs(0, "tool-call"), tc(0, "c1", "{", "f"), tc(0, "c2", "}", "g"),
      be(0, call("c1", "f", "{}")), fin("tool-calls")],
     [v("tool-call-identity-stable", 2), v("tool-call-identity-stable", 2)]),
    ("identity-not-judged-on-closed-block", "stream.checker.every-violation",
     "a tool-call delta with a new id after its block's block-end breaks the block table "
     "alone, not the identity rule",
     [bs(0, "tool-call"), tc(0, "c1", "{}", "f"), be(0, call("c1", "f", "{}")),
      tc(0, "c2", "x"), fin("tool-calls")],
     [v("delta-targets-open-block", 3)]),
]

ASSEMBLER: list[Row] = [
    ("strict-before-chunk-items", "stream.vectors",
     "strict is read before the chunk items: a strict that is no boolean (field-type) wins "
     "over a chunk with an unknown member (unknown-field)",
     RawInput(chunks=[{"type": "finish", "reason": {"kind": "stop"}, "extra": 1}],
              strict="yes"),
     ("error", "stream.wire.field-type")),
]

OPENAI: list[Row] = [
    ("trailing-cr-ends-line", "stream.openai.sse",
     "a CR that is the body's last character ends its line: the blank line it ends "
     "dispatches the event",
     _data(_choice({"content": "a"}, "stop"))[:-1] + "\r",
     [*A, fin("stop")]),
    ("in-band-error-payload-still-read", "stream.openai.payload",
     "the payload that carries an in-band error is read like any other: its choices and its "
     "usage are emitted before the failed finish",
     _data({"error": {"message": "overloaded"}, **_choice({"content": "a"}),
            "usage": {"prompt_tokens": 5, "completion_tokens": 2}}) + DONE,
     [bs(0, "text"), td(0, "a"), usage(5, 2), _failed("stream.provider.in-band-error")]),
    ("tool-calls-not-an-array-ignored", "stream.openai.payload",
     "a tool_calls member that is not an array gives no tool call",
     _data(_choice({"content": "a", "tool_calls": {"index": 0, "id": "c", "function": {
         "name": "f", "arguments": "{}"}}}, "stop")),
     [*A, fin("stop")]),
    ("data-line-without-colon", "stream.openai.sse",
     "a line data with no colon is the field data with the value \"\": its event is "
     "dispatched with the data \"\", which is not JSON",
     _data(_choice({"content": "a"}, "stop")) + "data\n\n",
     ("error", "stream.provider.malformed-event")),
    ("done-marker-with-trailing-lf", "stream.openai.done-whitespace",
     "data lines [DONE] and an empty one make the data [DONE] and an LF: still the marker, "
     "nothing after it is read",
     _data(_choice({"content": "a"}, "stop")) + "data: [DONE]\ndata:\n\n"
     + _data(_choice({"content": "b"})),
     [*A, fin("stop")]),
    ("negative-tool-call-index-is-a-key", "stream.openai.payload",
     "a negative integer index is an integer, so it is the call's key: the item at position 1 "
     "with index -1 is not the call with index 1",
     _calls({"index": 1, "id": "a", "function": {"name": "f", "arguments": "{}"}},
            {"index": -1, "id": "b", "function": {"name": "g", "arguments": "[]"}},
            finish="tool_calls"),
     [bs(0, "tool-call"), tc(0, "a", "{}", "f"), bs(1, "tool-call"), tc(1, "b", "[]", "g"),
      be(0, call("a", "f", "{}")), be(1, call("b", "g", "[]")), fin("tool-calls")]),
    ("later-fragment-with-only-the-name", "stream.openai.payload",
     "a later fragment that brings only the call's first name gives a delta with that name "
     "and argumentsDelta \"\"",
     _calls({"index": 0, "id": "c", "function": {"arguments": "{"}})
     + _calls({"index": 0, "function": {"name": "f"}})
     + _calls({"index": 0, "function": {"arguments": "}"}}, finish="tool_calls"),
     [bs(0, "tool-call"), tc(0, "c", "{"), tc(0, "c", "", "f"), tc(0, "c", "}"),
      be(0, call("c", "f", "{}")), fin("tool-calls")]),
    ("choice-index-minus-zero-is-zero", "stream.openai.payload",
     "a choice whose index is written -0 is choice 0: it is read",
     'data: {"choices":[{"index":-0,"delta":{"content":"a"},"finish_reason":"stop"}]}\n\n',
     [*A, fin("stop")]),
    ("arguments-false-and-zero-restringified", "stream.openai.restringify-form",
     "function.arguments of false and of 0 are JSON values but not strings: re-stringified "
     "as \"false\" and \"0\"",
     _calls({"index": 0, "id": "a", "function": {"name": "f", "arguments": False}},
            {"index": 1, "id": "b", "function": {"name": "g", "arguments": 0}},
            finish="tool_calls"),
     [bs(0, "tool-call"), tc(0, "a", "false", "f"), bs(1, "tool-call"), tc(1, "b", "0", "g"),
      be(0, call("a", "f", "false")), be(1, call("b", "g", "0")), fin("tool-calls")]),
]

OPENAI_REQUEST: list[Row] = [
    ("request-empty-tools-no-member", "stream.openai.request",
     "tools [] is no tools: the body has no tools member",
     chat_req([wire_msg("user", text("Hi"))], tools=[]),
     chat_body([{"role": "user", "content": "Hi"}])),
]


def vector_rows() -> dict[str, list[Row]]:
    """The rows of each ``gen_vectors`` table this reading adds to."""
    return {"CHECKER": CHECKER, "ASSEMBLER": ASSEMBLER, "OPENAI": OPENAI,
            "OPENAI_REQUEST": OPENAI_REQUEST}


def anthropic_rows() -> tuple[list[Row], list[Row]]:
    """The rows this reading adds to ``gen_anthropic``: (``stream.anthropic_map`` rows,
    ``stream.anthropic_request`` rows)."""
    from .gen_anthropic import (
        END,
        U25,
        answer,
        block,
        delta,
        failing,
        message_delta,
        req,
        sent,
        start,
    )
    from .gen_vectors import reason, result

    mapping: list[Row] = [
        ("empty-reply-is-stop", "stream.anthropic.events",
         "an end_turn reply that opened no block ends in finish stop with an empty message: "
         "the Anthropic mapping has no empty-response rule",
         start(U25) + message_delta("end_turn", {"output_tokens": 1}) + END,
         answer([usage(25, 1), fin("stop")], msg(), reason("stop"),
                {"inputTokens": 25, "outputTokens": 1})),
        ("refusal-leaves-blocks-open", "stream.anthropic.events",
         "refusal is a failed finish: the open block is left open, usage comes before the "
         "finish",
         start(U25) + block(0, {"type": "text", "text": ""})
         + delta(0, "text_delta", text="Par") + message_delta("refusal", {"output_tokens": 3})
         + END,
         answer([bs(0, "text"), td(0, "Par"), usage(25, 3),
                 failing("error", "stream.provider.content-filter")],
                msg(text("Par")),
                {"kind": "error", "failure": {"message": MSG,
                                              "code": "stream.provider.content-filter"}},
                {"inputTokens": 25, "outputTokens": 3})),
        ("cuts-item-judged-whole", "stream.vectors.input-order",
         "each cut is judged whole, its type then its place, before the next is read: "
         "[99999, \"x\"] on a shorter body is bad-value",
         RawInput(sse=END, cuts=[99999, "x"]), ("error", "stream.wire.bad-value")),
    ]
    hi = wire_msg("user", text("Hi"))
    hi_sent = {"role": "user", "content": [{"type": "text", "text": "Hi"}]}
    request: list[Row] = [
        ("request-empty-text-in-tool-message-refused", "stream.anthropic.roles",
         "blocks are judged by their role before empty text blocks are dropped: an empty "
         "text block in a tool message is refused",
         req([hi, wire_msg("assistant", call("c", "f", "{}")),
              wire_msg("tool", text(""), result("c", "1"))]),
         ("error", "argument.invalid")),
        ("request-empty-tools-no-member", "stream.anthropic.request",
         "tools [] is no tools: the body has no tools member",
         req([hi], tools=[]),
         sent({"model": "claude-x", "max_tokens": 4096, "stream": True,
               "messages": [hi_sent]})),
        ("request-tools-null", "stream.vectors.input-order",
         "tools null is a value, not an absence: not-a-list (only maxTokens and temperature "
         "read null as absent)",
         {**req([hi]), "request": {**req([hi])["request"], "tools": None}},
         ("error", "stream.wire.not-a-list")),
        ("request-no-messages", "stream.anthropic.request",
         "a request with no message sends messages [] (the adapter does not judge it)",
         req([]), sent({"model": "claude-x", "max_tokens": 4096, "stream": True,
                        "messages": []})),
        ("request-is-error-false-not-sent", "stream.anthropic.request",
         "a tool result whose isError is false gets no is_error member",
         req([hi, wire_msg("assistant", call("c", "f", "{}")),
              wire_msg("tool", {"type": "tool-result", "callId": "c", "content": "1",
                                "isError": False})]),
         sent({"model": "claude-x", "max_tokens": 4096, "stream": True, "messages": [
             hi_sent,
             {"role": "assistant", "content": [
                 {"type": "tool_use", "id": "c", "name": "f", "input": {}}]},
             {"role": "user", "content": [
                 {"type": "tool_result", "tool_use_id": "c", "content": "1"}]}]})),
    ]
    return mapping, request
