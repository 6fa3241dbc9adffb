"""Cases for the stream chapter's fresh blind reading (issue 29, ``spec/blind/stream.md``
§ Fresh blind reading): the points the text had left open and the reference decided, now
decided in ``spec/stream.md``, each pinned here with a hand-written answer.

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
    fin,
    msg,
    out,
    reason,
    result,
    script,
    tc,
    td,
    text,
    usage,
)

Row = tuple[str, str, str, Any, Any]


def _data(payload: Any) -> str:
    return f"data: {json.dumps(payload, separators=(',', ':'), ensure_ascii=False)}\n\n"


def _choice(delta: J, finish: Any = None, **extra: Any) -> J:
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish, **extra}]}


def _failed(code: str) -> J:
    return {"type": "finish", "reason": {"kind": "error",
                                         "failure": {"message": MSG, "code": code}}}


A = [bs(0, "text"), td(0, "a"), be(0, text("a"))]

WIRE: list[Row] = [
    ("tool-call-delta-needs-id", "stream.chunks.required",
     "a tool-call-delta's id is required (only its name is optional): missing-field",
     [{"type": "tool-call-delta", "index": 0, "argumentsDelta": "{}"}],
     ("error", "stream.wire.missing-field")),
    ("is-error-false-omitted", "stream.vectors",
     "stream.decode writes a tool-result's isError only when true: false is read and omitted",
     [be(0, {"type": "tool-result", "callId": "c", "content": "x", "isError": False})],
     [be(0, result("c", "x"))]),
]

ASSEMBLER: list[Row] = [
    ("max-tokens-judged-by-assembled-type", "stream.assembler.max-tokens-drops-tool-calls",
     "max-tokens drops the blocks assembled as tool calls: an index opened as a tool call "
     "and ended with a text block is text and stays; one opened as text and ended with a "
     "tool call is dropped",
     [bs(0, "tool-call"), be(0, text("hi")), bs(1, "text"), be(1, call("c", "f", "{}")),
      fin("max-tokens")],
     out(msg(text("hi")), reason("max-tokens"), interrupted=[text("hi")])),
]

CONSUME: list[Row] = [
    ("zero-calls", "stream.vectors",
     "calls 0 makes no call: the result is an empty list of calls",
     {"scripts": [script([fin("stop")])], "calls": 0}, []),
    ("scripts-null", "stream.vectors.input-order",
     "scripts of null is not a list (scripts has no null-as-absent reading): not-a-list",
     {"scripts": None}, ("error", "stream.wire.not-a-list")),
]

OPENAI: list[Row] = [
    ("event-field-not-read", "stream.openai.payload",
     "an event's event: field is not read: its data is a payload like any other",
     "event: error\n" + _data(_choice({"content": "a"}, "stop")) + "data: [DONE]\n\n",
     [*A, fin("stop")]),
    ("in-band-error-before-empty-response", "stream.openai.payload",
     "an in-band error in a reply that opened no block ends as the in-band error, not as an "
     "empty response",
     _data({"error": {"message": "overloaded"}}) + "data: [DONE]\n\n",
     [_failed("stream.provider.in-band-error")]),
    ("tool-call-function-not-an-object", "stream.openai.payload",
     "a tool-call item whose function is not an object: no name, arguments \"\"",
     _data(_choice({"tool_calls": [{"index": 0, "id": "c", "function": "x"}]}, "tool_calls")),
     [bs(0, "tool-call"), tc(0, "c", ""), be(0, call("c", "", "")), fin("tool-calls")]),
    ("zero-cached-and-reasoning-written", "stream.openai.usage-checked",
     "a cached or reasoning count reported as 0 is reported: written 0, not omitted",
     _data({**_choice({"content": "a"}, "stop"),
            "usage": {"prompt_tokens": 5, "completion_tokens": 2,
                      "prompt_tokens_details": {"cached_tokens": 0},
                      "completion_tokens_details": {"reasoning_tokens": 0}}}),
     [*A, usage(5, 2, cacheReadTokens=0, reasoningTokens=0), fin("stop")]),
    ("choice-index-null-ignored", "stream.openai.payload",
     "a choice whose index is null is not choice 0 (only an absent index is): it is ignored, "
     "so the reply is empty",
     _data({"choices": [{"index": None, "delta": {"content": "a"}, "finish_reason": "stop"}]}),
     [_failed("stream.provider.empty-response")]),
    ("empty-finish-reason-is-unknown", "stream.openai.payload",
     "finish_reason \"\" is a string, so it is the first one and maps as an unknown value",
     _data(_choice({"content": "a"}, "")) + _data(_choice({}, "stop")),
     [bs(0, "text"), td(0, "a"),
      _failed("stream.provider.unknown-finish-reason")]),
    ("tool-call-position-counts-every-item", "stream.openai.payload",
     "a tool call without an index is keyed by its position, every item counted (a number "
     "included), in the key space of the indexes: position 1 and index 1 are one call",
     _data(_choice({"tool_calls": [5, {"id": "a", "function": {"name": "f", "arguments": "{}"}},
                                   {"index": 1, "function": {"arguments": "x"}}]},
                   "tool_calls")),
     [bs(0, "tool-call"), tc(0, "a", "{}", "f"), tc(0, "a", "x"), be(0, call("a", "f", "{}x")),
      fin("tool-calls")]),
    ("underflow-is-in-range", "stream.openai.number-range",
     "a number too small for a double (1e-400) is within the range: it reads as 0, the "
     "payload is mapped",
     'data: {"x":1e-400,"choices":[{"index":0,"delta":{"content":"a"},'
     '"finish_reason":"stop"}]}\n\n',
     [*A, fin("stop")]),
    ("restringify-control-characters", "stream.openai.restringify-form",
     "re-stringified strings escape as JSON.stringify does: U+0008 as \\b, other controls as "
     "\\u00xx in lowercase hex; U+007F and U+2028 as they are",
     _data(_choice({"tool_calls": [{"index": 0, "id": "c", "function": {
         "name": "f", "arguments": {"s": "a\bb\u0001\u001f\t\u007f\u2028"}}}]}, "tool_calls")),
     [bs(0, "tool-call"), tc(0, "c", '{"s":"a\\bb\\u0001\\u001f\\t\u007f\u2028"}', "f"),
      be(0, call("c", "f", '{"s":"a\\bb\\u0001\\u001f\\t\u007f\u2028"}')), fin("tool-calls")]),
]

ATTRIBUTION: list[Row] = [
    ("identity-value-not-a-string", "stream.vectors.input-order",
     "an identity member that is not a string is judged by AppIdentity: argument.invalid, "
     "not a wire code",
     {"identity": {"product": 5, "version": "1.2", "url": "https://acme.example"}},
     ("error", "argument.invalid")),
]


def vector_rows() -> dict[str, list[Row]]:
    """The rows of each ``gen_vectors`` table this reading adds to."""
    return {"WIRE": WIRE, "ASSEMBLER": ASSEMBLER, "CONSUME": CONSUME, "OPENAI": OPENAI,
            "ATTRIBUTION": ATTRIBUTION}


def anthropic_rows() -> tuple[list[Row], list[Row]]:
    """The rows this reading adds to ``gen_anthropic``: (``stream.anthropic_map`` rows,
    ``stream.anthropic_request`` rows)."""
    from .gen_anthropic import END, answer, block, ev, message_delta, req, sent, stop, wire_msg

    hi = block(0, {"type": "text", "text": "hi"})
    hi_chunks = [bs(0, "text"), td(0, "hi"), be(0, text("hi"))]
    stopped = message_delta("end_turn") + END
    mapping: list[Row] = [
        ("data-without-type-ignored", "stream.anthropic.events",
         "event data with no type, or a type that is not a string, is an unknown type: nothing",
         'data: {"index":0}\n\n' + hi + 'data: {"type":5,"index":0}\n\n' + stop(0) + stopped,
         answer([*hi_chunks, fin("stop")], msg(text("hi")), reason("stop"), None)),
        ("dropped-block-starts-its-index", "stream.anthropic.blocks",
         "a block of a type with no protocol form (redacted_thinking) is dropped but starts its "
         "index: a later start of that index is ignored",
         block(0, {"type": "redacted_thinking", "data": "x"}) + hi + stop(0) + stopped,
         answer([fin("stop")], msg(), reason("stop"), None)),
        ("second-message-start-updates-usage", "stream.anthropic.usage",
         "a second message_start updates the counts it carries, as a message_delta does; the "
         "others stay",
         ev("message_start", message={"usage": {"input_tokens": 5, "output_tokens": 1,
                                                "cache_read_input_tokens": 2}})
         + ev("message_start", message={"usage": {"input_tokens": 7, "output_tokens": 1}})
         + hi + stop(0) + stopped,
         answer([*hi_chunks, usage(7, 1, cacheReadTokens=2), fin("stop")], msg(text("hi")),
                reason("stop"), {"inputTokens": 7, "outputTokens": 1, "cacheReadTokens": 2})),
        ("trailing-cr-ends-line", "stream.anthropic.sse",
         "a CR at the very end of the body ends its line: the line is not partial, its event "
         "is dispatched",
         hi + stop(0) + 'data: {"type":"message_delta","delta":{"stop_reason":"end_turn"}}\r',
         answer([*hi_chunks, fin("stop")], msg(text("hi")), reason("stop"), None)),
        ("cuts-null", "stream.vectors.input-order",
         "cuts of null is not a list (null is no absence for cuts): not-a-list",
         RawInput(sse=END, cuts=None), ("error", "stream.wire.not-a-list")),
        ("done-marker-is-malformed", "stream.anthropic.events",
         "[DONE] means nothing to the Messages API: data that is not JSON, malformed-event",
         hi + "data: [DONE]\n\n", ("error", "stream.provider.malformed-event")),
    ]
    one = {"type": "text", "text": "a"}
    two = {"type": "text", "text": "b"}
    request: list[Row] = [
        ("request-merge-across-system", "stream.anthropic.request",
         "system messages are taken out first: user messages a system message separated are "
         "consecutive and merged",
         req([wire_msg("user", text("a")), wire_msg("system", text("s")),
              wire_msg("user", text("b"))]),
         sent({"model": "claude-x", "max_tokens": 4096, "stream": True, "system": "s",
               "messages": [{"role": "user", "content": [one, two]}]})),
        ("request-arguments-not-a-string", "stream.anthropic.request",
         "tool-call arguments that are a JSON object rather than its text: argument.invalid",
         req([wire_msg("assistant", call("c", "f", {"a": 1}))]), ("error", "argument.invalid")),
        ("request-description-null", "stream.vectors.input-order",
         "a tool's description of null is no absence: argument.invalid",
         req([], tools=[{"name": "t", "description": None}]), ("error", "argument.invalid")),
        ("request-values-before-identity", "stream.vectors.input-order",
         "the request's values are judged before the identity is read: an empty model "
         "(argument.invalid) before an identity without url (missing-field)",
         {**req([]), "request": {"model": "", "messages": []},
          "identity": {"product": "acme", "version": "1.2"}},
         ("error", "argument.invalid")),
    ]
    return mapping, request

