"""Generates and verifies the ``stream.anthropic`` conformance vectors (``stream.anthropic_map``:
an Anthropic Messages streaming body, cut into byte pieces, to chunks and the assembled message).

The bodies are written here by hand from Anthropic's public streaming documentation (event by
event), not copied from a recording. Each case states its expected answer by hand; ``verify``
runs loom_ref on every case, and on every cut variant checks that cutting the body changed
nothing. ``python -m tests.stream.gen_anthropic --write`` writes the files.
"""

from __future__ import annotations

import json
from typing import Any

from . import gen_vectors
from .gen_vectors import (
    MSG,
    J,
    RawInput,
    bs,
    call,
    fin,
    msg,
    rd,
    reason,
    reasoning,
    tc,
    td,
    text,
    usage,
)
from .gen_vectors import be as end

GROUP = "stream.anthropic"


def ev(kind: str, **fields: Any) -> str:
    """One event as the API writes it: ``event: <type>`` and its JSON data, then a blank line."""
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **fields}, ensure_ascii=False)}\n\n"


def start(usage_json: J | None = None) -> str:
    message: J = {"id": "msg_01", "type": "message", "role": "assistant", "content": [],
                  "model": "claude-x", "stop_reason": None, "stop_sequence": None}
    if usage_json is not None:
        message["usage"] = usage_json
    return ev("message_start", message=message)


def block(i: int, content_block: J) -> str:
    return ev("content_block_start", index=i, content_block=content_block)


def delta(i: int, kind: str, **fields: Any) -> str:
    return ev("content_block_delta", index=i, delta={"type": kind, **fields})


def stop(i: int) -> str:
    return ev("content_block_stop", index=i)


def message_delta(stop_reason: str | None, usage_json: J | None = None) -> str:
    fields: J = {"delta": {"stop_reason": stop_reason, "stop_sequence": None}}
    if usage_json is not None:
        fields["usage"] = usage_json
    return ev("message_delta", **fields)


END = ev("message_stop")
PING = ev("ping")
U25 = {"input_tokens": 25, "output_tokens": 1}


def text_block(i: int, *pieces: str) -> str:
    return (block(i, {"type": "text", "text": ""})
            + "".join(delta(i, "text_delta", text=p) for p in pieces) + stop(i))


HELLO_BODY = (start(U25) + block(0, {"type": "text", "text": ""}) + PING
              + delta(0, "text_delta", text="Hello") + delta(0, "text_delta", text="!")
              + stop(0) + message_delta("end_turn", {"output_tokens": 15}) + END)
HELLO_CHUNKS = [bs(0, "text"), td(0, "Hello"), td(0, "!"), end(0, text("Hello!")),
                usage(25, 15), fin("stop")]


def answer(chunks: list[J], message: J, finish: J, usage_json: J | None) -> J:
    return {"chunks": chunks, "message": message, "finish": finish, "usage": usage_json}


def hello(finish: J | None = None) -> J:
    return answer(HELLO_CHUNKS, msg(text("Hello!")), finish or reason("stop"),
                  {"inputTokens": 25, "outputTokens": 15})


THINK = "Let me solve this step by step: 27 * 453 = 12,231"
THINKING_BODY = (
    start({"input_tokens": 40, "output_tokens": 3})
    + block(0, {"type": "thinking", "thinking": ""})
    + delta(0, "thinking_delta", thinking=THINK[:20])
    + delta(0, "thinking_delta", thinking=THINK[20:])
    + delta(0, "signature_delta", signature="EqQBCgIYAhIM1gbcDa9GJwZA2b3h") + stop(0)
    + text_block(1, "27 * 453 = ", "12,231") + message_delta("end_turn", {"output_tokens": 120})
    + END)
TOOL_BODY = (
    start({"input_tokens": 472, "output_tokens": 2}) + text_block(0, "Okay, let's check.")
    + block(1, {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {}})
    + delta(1, "input_json_delta", partial_json="")
    + delta(1, "input_json_delta", partial_json='{"location":')
    + delta(1, "input_json_delta", partial_json=' "San Francisco, CA"}')
    + stop(1) + message_delta("tool_use", {"output_tokens": 89}) + END)
TOOL_ARGS = '{"location": "San Francisco, CA"}'
TOOL_CHUNKS = [bs(0, "text"), td(0, "Okay, let's check."), end(0, text("Okay, let's check.")),
               bs(1, "tool-call"), tc(1, "toolu_01", "", "get_weather"),
               tc(1, "toolu_01", '{"location":'), tc(1, "toolu_01", ' "San Francisco, CA"}'),
               end(1, call("toolu_01", "get_weather", TOOL_ARGS)), usage(472, 89),
               fin("tool-calls")]
INPUT_TEXT = '{"n":1.5,"e":100,"s":0.00001,"u":"\u00e9"}'
CUT = '{"path": "notes/x'
MAX_TOKENS_BODY = (
    start({"input_tokens": 30, "output_tokens": 1}) + text_block(0, "Saving.")
    + block(1, {"type": "tool_use", "id": "toolu_02", "name": "write", "input": {}})
    + delta(1, "input_json_delta", partial_json="")
    + delta(1, "input_json_delta", partial_json=CUT) + stop(1)
    + message_delta("max_tokens", {"output_tokens": 64}) + END)
UNICODE_BODY = (start(U25) + text_block(0, "Héllo, 日本 👋", " ok")
                + message_delta("end_turn", {"output_tokens": 9}) + END).replace("\n", "\r\n")
UNICODE = answer([bs(0, "text"), td(0, "Héllo, 日本 👋"), td(0, " ok"),
                  end(0, text("Héllo, 日本 👋 ok")), usage(25, 9), fin("stop")],
                 msg(text("Héllo, 日本 👋 ok")), reason("stop"),
                 {"inputTokens": 25, "outputTokens": 9})


def stopped(finish: J) -> J:
    """The hello stream ending in ``finish`` (a finish chunk)."""
    return answer([*HELLO_CHUNKS[:-1], finish], msg(text("Hello!")), finish["reason"],
                  {"inputTokens": 25, "outputTokens": 15})


def with_stop(stop_reason: str) -> str:
    return HELLO_BODY.replace('"stop_reason": "end_turn"', f'"stop_reason": "{stop_reason}"')


def failing(kind: str, code: str) -> J:
    return {"type": "finish", "reason": {"kind": kind, "failure": {"message": MSG, "code": code}}}


def failure_reason(code: str) -> J:
    return {"kind": "error", "failure": {"message": MSG, "code": code}}


Row = tuple[str, str, str, Any, Any]
CASES: list[Row] = [
    ("text-reply", "stream.anthropic.events",
     "a text reply: message_start usage, a text block with a ping inside it, message_delta's "
     "stop reason and cumulative usage, message_stop", HELLO_BODY, hello()),
    ("thinking-and-signature", "stream.anthropic.blocks",
     "a thinking block is a reasoning block; its signature_delta has no protocol form and "
     "gives nothing", THINKING_BODY,
     answer([bs(0, "reasoning"), rd(0, THINK[:20]), rd(0, THINK[20:]), end(0, reasoning(THINK)),
             bs(1, "text"), td(1, "27 * 453 = "), td(1, "12,231"),
             end(1, text("27 * 453 = 12,231")), usage(40, 120), fin("stop")],
            msg(reasoning(THINK), text("27 * 453 = 12,231")), reason("stop"),
            {"inputTokens": 40, "outputTokens": 120})),
    ("tool-use", "stream.anthropic.blocks",
     "a tool_use block is a tool-call block: its start gives the id and name with an empty "
     "fragment, the empty first input_json_delta gives nothing, the raw fragments follow",
     TOOL_BODY, answer(TOOL_CHUNKS, msg(text("Okay, let's check."),
                                        call("toolu_01", "get_weather", TOOL_ARGS)),
                       reason("tool-calls"), {"inputTokens": 472, "outputTokens": 89})),
    ("tool-use-without-fragments", "stream.anthropic.blocks",
     "a tool call that received no fragment gets its start's input re-stringified: {} for none",
     start(U25) + block(0, {"type": "tool_use", "id": "toolu_03", "name": "now", "input": {}})
     + stop(0) + block(1, {"type": "tool_use", "id": "toolu_04", "name": "f",
                           "input": {"q": 1, "a": [True, None]}}) + stop(1)
     + message_delta("tool_use", {"output_tokens": 5}) + END,
     answer([bs(0, "tool-call"), tc(0, "toolu_03", "", "now"), tc(0, "toolu_03", "{}"),
             end(0, call("toolu_03", "now", "{}")), bs(1, "tool-call"),
             tc(1, "toolu_04", "", "f"), tc(1, "toolu_04", '{"q":1,"a":[true,null]}'),
             end(1, call("toolu_04", "f", '{"q":1,"a":[true,null]}')), usage(25, 5),
             fin("tool-calls")],
            msg(call("toolu_03", "now", "{}"), call("toolu_04", "f", '{"q":1,"a":[true,null]}')),
            reason("tool-calls"), {"inputTokens": 25, "outputTokens": 5})),
    ("tool-use-without-id", "stream.anthropic.blocks",
     "a tool_use start without an id is named call-<protocol index>, without a name it has none",
     start(U25) + text_block(0, "x") + block(1, {"type": "tool_use", "input": {}})
     + delta(1, "input_json_delta", partial_json="{}") + stop(1)
     + message_delta("tool_use", {"output_tokens": 5}) + END,
     answer([bs(0, "text"), td(0, "x"), end(0, text("x")), bs(1, "tool-call"),
             tc(1, "call-1", ""), tc(1, "call-1", "{}"), end(1, call("call-1", "", "{}")),
             usage(25, 5), fin("tool-calls")],
            msg(text("x"), call("call-1", "", "{}")), reason("tool-calls"),
            {"inputTokens": 25, "outputTokens": 5})),
    ("tool-use-empty-id", "stream.anthropic.blocks",
     "a tool_use start whose id is the empty string is named call-<protocol index> too (an id "
     "must be a non-empty string), and so is one whose id is not a string",
     start(U25) + block(0, {"type": "tool_use", "id": "", "name": "f", "input": {}})
     + delta(0, "input_json_delta", partial_json="{}") + stop(0)
     + block(1, {"type": "tool_use", "id": 7, "name": "g", "input": {}})
     + delta(1, "input_json_delta", partial_json="{}") + stop(1)
     + message_delta("tool_use", {"output_tokens": 5}) + END,
     answer([bs(0, "tool-call"), tc(0, "call-0", "", "f"), tc(0, "call-0", "{}"),
             end(0, call("call-0", "f", "{}")), bs(1, "tool-call"), tc(1, "call-1", "", "g"),
             tc(1, "call-1", "{}"), end(1, call("call-1", "g", "{}")), usage(25, 5),
             fin("tool-calls")],
            msg(call("call-0", "f", "{}"), call("call-1", "g", "{}")), reason("tool-calls"),
            {"inputTokens": 25, "outputTokens": 5})),
    ("max-tokens-drops-the-cut-call", "stream.anthropic.stop-reason",
     "max_tokens is max-tokens: the API closes the cut call, whose arguments end mid-JSON; "
     "the assembled message drops it",
     MAX_TOKENS_BODY,
     answer([bs(0, "text"), td(0, "Saving."), end(0, text("Saving.")), bs(1, "tool-call"),
             tc(1, "toolu_02", "", "write"), tc(1, "toolu_02", CUT),
             end(1, call("toolu_02", "write", CUT)), usage(30, 64), fin("max-tokens")],
            msg(text("Saving.")), reason("max-tokens"), {"inputTokens": 30, "outputTokens": 64})),
    ("stop-sequence-is-stop", "stream.anthropic.stop-reason", "stop_sequence is stop",
     with_stop("stop_sequence"), hello()),
    ("context-window-is-max-tokens", "stream.anthropic.stop-reason",
     "model_context_window_exceeded cut the reply too: max-tokens",
     with_stop("model_context_window_exceeded"),
     stopped(fin("max-tokens"))),
    ("refusal-is-error", "stream.anthropic.stop-reason",
     "refusal is an error finish (the content filter), the blocks already closed",
     with_stop("refusal"),
     stopped(failing("error", "stream.provider.content-filter"))),
    ("unknown-stop-reason-is-error", "stream.anthropic.stop-reason",
     "a stop reason loom-ref does not know (pause_turn) fails closed",
     with_stop("pause_turn"),
     stopped(failing("error", "stream.provider.unknown-finish-reason"))),
    ("in-band-error", "stream.anthropic.events",
     "the error event ends the stream in finish error, never a raise; the open block stays "
     "open, usage known so far comes first, nothing after the error is read",
     start(U25) + block(0, {"type": "text", "text": ""}) + delta(0, "text_delta", text="Par")
     + ev("error", error={"type": "overloaded_error", "message": "Overloaded"})
     + delta(0, "text_delta", text="tial") + message_delta("end_turn") + END,
     answer([bs(0, "text"), td(0, "Par"), usage(25, 1),
             failing("error", "stream.provider.in-band-error")],
            msg(text("Par")), failure_reason("stream.provider.in-band-error"),
            {"inputTokens": 25, "outputTokens": 1})),
    ("error-first", "stream.anthropic.events",
     "an error event before anything else: a lone finish error, no usage",
     ev("error", error={"type": "api_error", "message": "Internal server error"}),
     answer([failing("error", "stream.provider.in-band-error")], msg(),
            failure_reason("stream.provider.in-band-error"), None)),
    ("ping-and-unknown-events", "stream.anthropic.events",
     "ping and unknown event types give nothing; blocks of no protocol form (redacted "
     "thinking, a server tool) are dropped with their deltas and stop",
     start(U25) + PING + ev("message_annotation", note="x")
     + block(0, {"type": "redacted_thinking", "data": "EmwKAhgB"}) + stop(0)
     + block(1, {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search",
                 "input": {}})
     + delta(1, "input_json_delta", partial_json='{"query": "x"}') + stop(1)
     + text_block(2, "Found it.") + message_delta("end_turn", {"output_tokens": 7}) + END,
     answer([bs(0, "text"), td(0, "Found it."), end(0, text("Found it.")), usage(25, 7),
             fin("stop")], msg(text("Found it.")), reason("stop"),
            {"inputTokens": 25, "outputTokens": 7})),
    ("stray-deltas-and-stops", "stream.anthropic.blocks",
     "a delta or stop for a block never started, a second start of an index, a delta of "
     "another block's type, and a second stop give nothing",
     start(U25) + delta(5, "text_delta", text="lost") + stop(5)
     + block(0, {"type": "text", "text": ""}) + block(0, {"type": "thinking", "thinking": ""})
     + delta(0, "input_json_delta", partial_json="{}") + delta(0, "text_delta", text="kept")
     + stop(0) + stop(0) + delta(0, "text_delta", text="late")
     + message_delta("end_turn", {"output_tokens": 2}) + END,
     answer([bs(0, "text"), td(0, "kept"), end(0, text("kept")), usage(25, 2), fin("stop")],
            msg(text("kept")), reason("stop"), {"inputTokens": 25, "outputTokens": 2})),
    ("start-text-is-the-first-delta", "stream.anthropic.blocks",
     "a text or thinking start that already holds text gives it as its first delta",
     start(U25) + block(0, {"type": "thinking", "thinking": "hm"}) + stop(0)
     + block(1, {"type": "text", "text": "Hi"}) + delta(1, "text_delta", text="!") + stop(1)
     + message_delta("end_turn", {"output_tokens": 2}) + END,
     answer([bs(0, "reasoning"), rd(0, "hm"), end(0, reasoning("hm")), bs(1, "text"),
             td(1, "Hi"), td(1, "!"), end(1, text("Hi!")), usage(25, 2), fin("stop")],
            msg(reasoning("hm"), text("Hi!")), reason("stop"),
            {"inputTokens": 25, "outputTokens": 2})),
    ("usage-updated-by-message-delta", "stream.anthropic.usage",
     "usage starts from message_start and each message_delta replaces the counts it carries; "
     "input_tokens already excludes the cache: cache reads and writes are reported apart",
     start({"input_tokens": 10, "output_tokens": 1, "cache_read_input_tokens": 90,
            "cache_creation_input_tokens": 5}) + text_block(0, "ok")
     + message_delta("end_turn", {"output_tokens": 30, "input_tokens": 10,
                                  "cache_read_input_tokens": 90}) + END,
     answer([bs(0, "text"), td(0, "ok"), end(0, text("ok")),
             usage(10, 30, cacheReadTokens=90, cacheWriteTokens=5), fin("stop")],
            msg(text("ok")), reason("stop"),
            {"inputTokens": 10, "outputTokens": 30, "cacheReadTokens": 90,
             "cacheWriteTokens": 5})),
    ("usage-null-counts", "stream.anthropic.usage",
     "a count of null (or not a non-negative integer) is not reported and changes nothing",
     start({"input_tokens": 12, "output_tokens": 1, "cache_read_input_tokens": None,
            "cache_creation_input_tokens": -1}) + text_block(0, "ok")
     + message_delta("end_turn", {"output_tokens": 4, "input_tokens": None}) + END,
     answer([bs(0, "text"), td(0, "ok"), end(0, text("ok")), usage(12, 4), fin("stop")],
            msg(text("ok")), reason("stop"), {"inputTokens": 12, "outputTokens": 4})),
    ("usage-absent", "stream.anthropic.usage",
     "usage is known once both totals were reported: none here, so no usage chunk",
     start(None) + text_block(0, "ok") + message_delta("end_turn", {"output_tokens": 4}) + END,
     answer([bs(0, "text"), td(0, "ok"), end(0, text("ok")), fin("stop")], msg(text("ok")),
            reason("stop"), None)),
    ("message-start-message-not-an-object", "stream.anthropic.usage",
     "a message_start whose message is not an object records no counts: the usage is the "
     "message_delta's alone",
     ev("message_start", message=None) + text_block(0, "ok")
     + message_delta("end_turn", {"input_tokens": 7, "output_tokens": 4}) + END,
     answer([bs(0, "text"), td(0, "ok"), end(0, text("ok")), usage(7, 4), fin("stop")],
            msg(text("ok")), reason("stop"), {"inputTokens": 7, "outputTokens": 4})),
    ("stop-reason-not-a-string-changes-nothing", "stream.anthropic.events",
     "a later message_delta whose stop_reason is null records nothing: the string before it "
     "stays the stop reason (the last string wins, not the last value)",
     HELLO_BODY[:-len(END)] + message_delta(None) + END, hello()),
    ("no-stop-reason", "stream.anthropic.events",
     "a body that ends without a stop reason ends in finish error, the open block left open",
     start(U25) + text_block(0, "done") + block(1, {"type": "text", "text": ""})
     + delta(1, "text_delta", text="par"),
     answer([bs(0, "text"), td(0, "done"), end(0, text("done")), bs(1, "text"), td(1, "par"),
             usage(25, 1), failing("error", "stream.provider.no-finish-reason")],
            msg(text("done"), text("par")), failure_reason("stream.provider.no-finish-reason"),
            {"inputTokens": 25, "outputTokens": 1})),
    ("no-message-stop", "stream.anthropic.events",
     "the connection closing after message_delta ends the stream too: its stop reason, the "
     "open block closed", start(U25) + block(0, {"type": "text", "text": ""})
     + delta(0, "text_delta", text="Hello!") + message_delta("end_turn", {"output_tokens": 15}),
     answer([bs(0, "text"), td(0, "Hello!"), end(0, text("Hello!")), usage(25, 15),
             fin("stop")], msg(text("Hello!")), reason("stop"),
            {"inputTokens": 25, "outputTokens": 15})),
    ("last-event-without-blank-line", "stream.anthropic.sse",
     "a body whose last event has no blank line (nor a final line end) still ends correctly",
     HELLO_BODY.rstrip("\n"), hello()),
    ("last-message-delta-without-blank-line", "stream.anthropic.sse",
     "the end of the body ends a last event whose lines all ended: message_delta's stop "
     "reason is taken", HELLO_BODY[:HELLO_BODY.index("event: message_delta")]
     + message_delta("end_turn", {"output_tokens": 15})[:-1], hello()),
    ("partial-last-line-dropped", "stream.anthropic.sse",
     "a last line without line end is a partial line: dropped, never parsed (no malformed "
     "event), so this body has no stop reason",
     HELLO_BODY[:HELLO_BODY.index("event: message_delta")] + 'event: message_delta\n'
     'data: {"type": "message_delta", "delta": {"stop_rea',
     answer([*HELLO_CHUNKS[:4], usage(25, 1), failing("error", "stream.provider.no-finish-reason")],
            msg(text("Hello!")), failure_reason("stream.provider.no-finish-reason"),
            {"inputTokens": 25, "outputTokens": 1})),
    ("nothing-after-message-stop", "stream.anthropic.events",
     "message_stop ends the provider's stream: later events are not read, not even bad ones",
     HELLO_BODY + text_block(1, "late") + "data: {not json\n\n", hello()),
    ("dispatch-on-data-type", "stream.anthropic.events",
     "an event is dispatched on its data's type, not its event: name (or its absence)",
     start(U25) + block(0, {"type": "text", "text": ""})
     + 'event: ping\ndata: {"type": "content_block_delta", "index": 0, "delta": '
       '{"type": "text_delta", "text": "Hello!"}}\n\n'
     + 'data: {"type": "content_block_stop", "index": 0}\n\n'
     + message_delta("end_turn", {"output_tokens": 15}) + END,
     answer([bs(0, "text"), td(0, "Hello!"), end(0, text("Hello!")), usage(25, 15),
             fin("stop")], msg(text("Hello!")), reason("stop"),
            {"inputTokens": 25, "outputTokens": 15})),
    ("sse-framing", "stream.anthropic.sse",
     "server-sent events as the OpenAI mapping reads them: a leading byte order mark, "
     "comments, CR and CRLF line ends, no space after the colon, data lines joined with LF",
     "\ufeff: comment\r\n" + start(U25).replace("\n", "\r")
     + 'data:{"type": "content_block_start", "index": 0,\ndata: "content_block": '
       '{"type": "text", "text": ""}}\n\n'
     + delta(0, "text_delta", text="Hello!").replace("\n", "\r\n") + stop(0)
     + message_delta("end_turn", {"output_tokens": 15}) + END,
     answer([bs(0, "text"), td(0, "Hello!"), end(0, text("Hello!")), usage(25, 15),
             fin("stop")], msg(text("Hello!")), reason("stop"),
            {"inputTokens": 25, "outputTokens": 15})),
    ("unicode-text", "stream.anthropic.sse",
     "multi-byte text (é, 日本, an emoji) with CRLF line ends, in one piece", UNICODE_BODY,
     UNICODE),
    ("partial-line-after-ended-lines", "stream.anthropic.sse",
     "at the end of the body the pending event is dispatched with its lines that ended; the "
     "last, partial line alone is dropped: message_delta's stop reason is taken",
     HELLO_BODY[:HELLO_BODY.index("event: message_delta")] + message_delta(
         "end_turn", {"output_tokens": 15})[:-1] + 'data: {"type": "ping", "x',
     stopped(fin("stop"))),
    ("boolean-index-is-none", "stream.anthropic.blocks",
     "a block index of true is no integer: its start, delta and stop give nothing",
     start(U25) + ev("content_block_start", index=True, content_block={"type": "text", "text": ""})
     + ev("content_block_delta", index=True, delta={"type": "text_delta", "text": "lost"})
     + ev("content_block_stop", index=True) + text_block(1, "Hello!")
     + message_delta("end_turn", {"output_tokens": 15}) + END,
     answer([bs(0, "text"), td(0, "Hello!"), end(0, text("Hello!")), usage(25, 15),
             fin("stop")], msg(text("Hello!")), reason("stop"),
            {"inputTokens": 25, "outputTokens": 15})),
    ("content-block-not-an-object", "stream.anthropic.blocks",
     "a content_block_start whose content_block is not an object is ignored and does not "
     "start its index: a later start of that index opens it",
     start(U25) + ev("content_block_start", index=0, content_block="text")
     + text_block(0, "Hello!") + message_delta("end_turn", {"output_tokens": 15}) + END,
     answer([bs(0, "text"), td(0, "Hello!"), end(0, text("Hello!")), usage(25, 15),
             fin("stop")], msg(text("Hello!")), reason("stop"),
            {"inputTokens": 25, "outputTokens": 15})),
    ("tool-use-input-not-an-object", "stream.anthropic.blocks",
     "a tool_use start's input that is absent, null or not an object is none: {} (the API's "
     "input is always an object)",
     start(U25) + block(0, {"type": "tool_use", "id": "t0", "name": "f", "input": "abc"})
     + stop(0) + block(1, {"type": "tool_use", "id": "t1", "name": "g", "input": None}) + stop(1)
     + block(2, {"type": "tool_use", "id": "t2", "name": "h", "input": [1, 2]}) + stop(2)
     + message_delta("tool_use", {"output_tokens": 5}) + END,
     answer([bs(0, "tool-call"), tc(0, "t0", "", "f"), tc(0, "t0", "{}"),
             end(0, call("t0", "f", "{}")), bs(1, "tool-call"), tc(1, "t1", "", "g"),
             tc(1, "t1", "{}"), end(1, call("t1", "g", "{}")), bs(2, "tool-call"),
             tc(2, "t2", "", "h"), tc(2, "t2", "{}"), end(2, call("t2", "h", "{}")),
             usage(25, 5), fin("tool-calls")],
            msg(call("t0", "f", "{}"), call("t1", "g", "{}"), call("t2", "h", "{}")),
            reason("tool-calls"), {"inputTokens": 25, "outputTokens": 5})),
    ("tool-use-input-as-json-stringify", "stream.anthropic.blocks",
     "a tool_use start's input is re-stringified as JSON.stringify writes it: numbers in "
     "ECMAScript's form, non-ASCII as it is",
     start(U25) + 'event: content_block_start\ndata: {"type": "content_block_start", "index": 0, '
     '"content_block": {"type": "tool_use", "id": "t", "name": "f", "input": '
     '{"n": 1.50, "e": 1E2, "s": 1e-5, "u": "\u00e9"}}}\n\n' + stop(0)
     + message_delta("tool_use", {"output_tokens": 5}) + END,
     answer([bs(0, "tool-call"), tc(0, "t", "", "f"), tc(0, "t", INPUT_TEXT),
             end(0, call("t", "f", INPUT_TEXT)), usage(25, 5), fin("tool-calls")],
            msg(call("t", "f", INPUT_TEXT)), reason("tool-calls"),
            {"inputTokens": 25, "outputTokens": 5})),
    ("open-tool-use-at-end", "stream.anthropic.blocks",
     "a tool call still open at a normal end, that received no fragment, is closed with its "
     "start's input as one more delta",
     start(U25) + block(0, {"type": "tool_use", "id": "t", "name": "f", "input": {"a": 1}})
     + message_delta("tool_use", {"output_tokens": 5}) + END,
     answer([bs(0, "tool-call"), tc(0, "t", "", "f"), tc(0, "t", '{"a":1}'),
             end(0, call("t", "f", '{"a":1}')), usage(25, 5), fin("tool-calls")],
            msg(call("t", "f", '{"a":1}')), reason("tool-calls"),
            {"inputTokens": 25, "outputTokens": 5})),
    ("nan-is-not-json", "stream.anthropic.events",
     "NaN is not JSON (RFC 8259): the event's data is malformed",
     start(U25) + 'data: {"type": "ping", "x": NaN}\n\n',
     ("error", "stream.provider.malformed-event")),
    ("number-out-of-range", "stream.anthropic.events",
     "a number beyond a double's range (1e400) is refused as on the OpenAI path "
     "(stream.openai.number-range): the event's data is malformed",
     start(U25) + 'data: {"type": "ping", "x": 1e400}\n\n',
     ("error", "stream.provider.malformed-event")),
    ("not-json", "stream.anthropic.events", "an event whose data is not JSON is raised",
     start(U25) + "data: {not json\n\n", ("error", "stream.provider.malformed-event")),
    ("not-an-object", "stream.anthropic.events",
     "an event whose data is JSON but not an object is raised",
     start(U25) + "data: [1, 2]\n\n", ("error", "stream.provider.malformed-event")),
]

UNICODE_BYTES = UNICODE_BODY.encode("utf-8")
#: The hello body whose text block's start is one event of two data lines, ended by CRLF.
CRLF_BODY = HELLO_BODY.replace(
    block(0, {"type": "text", "text": ""}),
    'event: content_block_start\r\ndata: {"type": "content_block_start", "index": 0,\r\n'
    'data: "content_block": {"type": "text", "text": ""}}\r\n\r\n')


def _inside_utf8(body: bytes) -> list[int]:
    """Every offset that cuts a UTF-8 sequence (before a continuation byte)."""
    return [i for i in range(1, len(body)) if body[i] & 0xC0 == 0x80]


def _between_cr_lf(body: bytes) -> list[int]:
    return [i for i in range(1, len(body)) if body[i - 1:i + 1] == b"\r\n"]


CUT_CASES: list[Row] = [
    ("cut-every-byte", "stream.anthropic.sse",
     "the body cut into one-byte pieces (every multi-byte character and CRLF split) maps to "
     "the chunks of the uncut body", {"sse": UNICODE_BODY,
                                       "cuts": list(range(1, len(UNICODE_BYTES)))}, UNICODE),
    ("cut-inside-utf8", "stream.anthropic.sse",
     "cuts inside each multi-byte character only", {"sse": UNICODE_BODY,
                                                    "cuts": _inside_utf8(UNICODE_BYTES)},
     UNICODE),
    ("cut-between-cr-and-lf", "stream.anthropic.sse",
     "cuts between every CR and its LF: the chunks of the uncut body (each CRLF here ends a "
     "one-line event or its blank line; cut-crlf-inside-data-event pins the one line end)",
     {"sse": UNICODE_BODY, "cuts": _between_cr_lf(UNICODE_BYTES)}, UNICODE),
    ("cut-crlf-inside-data-event", "stream.anthropic.sse",
     "a CRLF cut between its CR and LF inside a two-line data event is one line end: two "
     "would end the event after its first half, which is not JSON",
     {"sse": CRLF_BODY, "cuts": [CRLF_BODY.encode().index(b"\r\ndata: \"content") + 1]},
     hello()),
    ("cut-at-zero", "stream.vectors.input-order",
     "a cut is strictly inside the body: 0 is not", RawInput(sse=HELLO_BODY, cuts=[0]),
     ("error", "stream.wire.bad-value")),
    ("cut-tool-use", "stream.anthropic.sse",
     "a tool-use body cut at every 7th byte", {"sse": TOOL_BODY,
                                               "cuts": list(range(7, len(TOOL_BODY), 7))},
     answer(TOOL_CHUNKS, msg(text("Okay, let's check."),
                             call("toolu_01", "get_weather", TOOL_ARGS)),
            reason("tool-calls"), {"inputTokens": 472, "outputTokens": 89})),
    ("cut-last-event-without-blank-line", "stream.anthropic.sse",
     "a body without its final blank line, cut at every 5th byte, still ends correctly",
     {"sse": HELLO_BODY.rstrip("\n"),
      "cuts": list(range(5, len(HELLO_BODY.rstrip("\n")), 5))}, hello()),
    # the input object (spec: stream.vectors.input-order)
    ("input-unknown-member", "stream.vectors.input-order", "an unknown member: unknown-field",
     RawInput(sse=HELLO_BODY, chunks=[]), ("error", "stream.wire.unknown-field")),
    ("input-missing-sse", "stream.vectors.input-order", "no sse: missing-field",
     RawInput(cuts=[1]), ("error", "stream.wire.missing-field")),
    ("input-sse-not-text", "stream.vectors.input-order",
     "sse is one string (no list of pieces: the cuts say where)",
     RawInput(sse=[HELLO_BODY]), ("error", "stream.wire.field-type")),
    ("input-sse-lone-surrogate", "stream.vectors.input-order",
     "sse is encoded as UTF-8: a lone surrogate, which has none, is bad-value (not replaced)",
     RawInput(sse="data: {\"type\": \"ping\", \"x\": \"\ud800\"}\n\n"),
     ("error", "stream.wire.bad-value")),
    ("input-cuts-not-a-list", "stream.vectors.input-order", "cuts is an array",
     RawInput(sse=HELLO_BODY, cuts=3), ("error", "stream.wire.not-a-list")),
    ("input-cut-not-an-integer", "stream.vectors.input-order", "a cut is an integer",
     RawInput(sse=HELLO_BODY, cuts=[True]), ("error", "stream.wire.field-type")),
    ("input-cuts-not-increasing", "stream.vectors.input-order",
     "cuts are strictly increasing", RawInput(sse=HELLO_BODY, cuts=[9, 9]),
     ("error", "stream.wire.bad-value")),
    ("input-cut-outside-the-body", "stream.vectors.input-order",
     "a cut is strictly inside the body's bytes",
     RawInput(sse="data: {}\n\n", cuts=[10]), ("error", "stream.wire.bad-value")),
]


# -- stream.anthropic_request: what the adapter sends ------------------------------------------
IDENTITY = {"product": "acme", "version": "1.2", "url": "https://acme.example"}
SENT_HEADERS = {"user-agent": "acme/1.2 (+https://acme.example)", "x-api-key": "sk-ant-k",
                "anthropic-version": "2023-06-01", "content-type": "application/json",
                "accept": "text/event-stream"}


def wire_msg(role: str, *blocks: J) -> J:
    return {"role": role, "content": list(blocks)}


def sent(body: J, headers: J | None = None) -> J:
    return {"method": "POST", "path": "/v1/messages", "headers": headers or SENT_HEADERS,
            "body": body}


def req(messages: list[J], **extra: Any) -> J:
    return {"request": {"model": "claude-x", "messages": messages, **extra},
            "apiKey": "sk-ant-k", "identity": IDENTITY}


CONVERSATION = [
    wire_msg("system", text("Be brief.")), wire_msg("user", text("Tea?")),
    wire_msg("assistant", reasoning("hm"), text(""), text("Checking."),
             call("toolu_1", "lookup", '{"item": "tea"}'), call("toolu_2", "now", "")),
    wire_msg("tool", {"type": "tool-result", "callId": "toolu_1", "content": "10"},
             {"type": "tool-result", "callId": "toolu_2", "content": "boom", "isError": True}),
    wire_msg("user", text("Thanks.")), wire_msg("assistant", reasoning("only thinking"))]
CONVERSATION_BODY = {
    "model": "claude-x", "max_tokens": 99, "stream": True, "system": "Be brief.",
    "messages": [
        {"role": "user", "content": [{"type": "text", "text": "Tea?"}]},
        {"role": "assistant", "content": [
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"item": "tea"}},
            {"type": "tool_use", "id": "toolu_2", "name": "now", "input": {}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "10"},
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": "boom",
             "is_error": True},
            {"type": "text", "text": "Thanks."}]}],
    "tools": [{"name": "lookup", "description": "Look up",
               "input_schema": {"type": "object", "properties": {"item": {"type": "string"}}}},
              {"name": "now", "description": "", "input_schema": {"type": "object"}}],
    "temperature": 0.5}
REQUEST_CASES: list[Row] = [
    ("request-conversation", "stream.anthropic.request",
     "the transcript as the Messages API takes it: system top-level, tool results in a user "
     "message merged with the next one, tool_use input parsed, reasoning and empty text not "
     "sent, an empty message left out; tools with input_schema",
     req(CONVERSATION, maxTokens=99, temperature=0.5, tools=[
         {"name": "lookup", "description": "Look up",
          "parameters": {"type": "object", "properties": {"item": {"type": "string"}}}},
         {"name": "now"}]), sent(CONVERSATION_BODY)),
    ("request-headers", "stream.anthropic.headers",
     "the attribution User-Agent and the required x-api-key, anthropic-version and "
     "content-type, names in lowercase; max_tokens from the default when the request sets none",
     {**req([wire_msg("user", text("Hi"))]), "defaultMaxTokens": 512, "version": "2024-01-01"},
     sent({"model": "claude-x", "max_tokens": 512, "stream": True,
           "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}]},
          {**SENT_HEADERS, "anthropic-version": "2024-01-01"})),
    ("request-default-max-tokens-one", "stream.anthropic.injected-config",
     "the default max_tokens may be 1, the least the API takes: it is sent as it is",
     {**req([wire_msg("user", text("Hi"))]), "defaultMaxTokens": 1},
     sent({"model": "claude-x", "max_tokens": 1, "stream": True,
           "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}]})),
    ("request-default-max-tokens-zero", "stream.anthropic.injected-config",
     "a default max_tokens below 1 is refused when the adapter is built",
     {**req([wire_msg("user", text("Hi"))]), "defaultMaxTokens": 0},
     ("error", "argument.invalid")),
    ("request-systems-joined", "stream.anthropic.request",
     "several system messages are one system text, joined by a blank line",
     req([wire_msg("system", text("A.")), wire_msg("user", text("Hi")),
          wire_msg("system", text("B."))]),
     sent({"model": "claude-x", "max_tokens": 4096, "stream": True, "system": "A.\n\nB.",
           "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}]})),
    ("request-system-blocks-joined", "stream.anthropic.request",
     "each text block of a system message is one text: two blocks, an empty one and another "
     "message's block give three texts, the empty one left out, joined by a blank line",
     req([wire_msg("system", text("A."), text(""), text("B.")), wire_msg("user", text("Hi")),
          wire_msg("system", text("C."))]),
     sent({"model": "claude-x", "max_tokens": 4096, "stream": True,
           "system": "A.\n\nB.\n\nC.",
           "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}]})),
    ("request-arguments-not-an-object", "stream.anthropic.request",
     "tool_use input must be an object: arguments that are not a JSON object are refused",
     req([wire_msg("user", text("Hi")), wire_msg("assistant", call("c", "f", "[1]"))]),
     ("error", "argument.invalid")),
    ("request-arguments-number-out-of-range", "stream.openai.number-range",
     "tool-call arguments holding a number beyond a double's range (1e400) are refused: the "
     "body would hold Infinity, which is not JSON",
     req([wire_msg("user", text("Hi")), wire_msg("assistant", call("c", "f", '{"a":1e400}'))]),
     ("error", "argument.invalid")),
    ("request-arguments-integer-out-of-range", "stream.openai.number-range",
     "tool-call arguments holding a 400-digit integer are refused as 1e400 is (I-JSON)",
     req([wire_msg("user", text("Hi")),
          wire_msg("assistant", call("c", "f", '{"a":1' + "0" * 400 + "}"))]),
     ("error", "argument.invalid")),
    ("request-arguments-nan-refused", "stream.openai.json-payload",
     "tool-call arguments holding NaN are not JSON (RFC 8259 section 6): refused",
     req([wire_msg("user", text("Hi")), wire_msg("assistant", call("c", "f", '{"a":NaN}'))]),
     ("error", "argument.invalid")),
    ("request-bad-api-key", "stream.anthropic.injected-config",
     "the API key is non-empty printable ASCII: no line end",
     {**req([wire_msg("user", text("Hi"))]), "apiKey": "k\nX-Other: 1"},
     ("error", "argument.invalid")),
    ("request-bad-version", "stream.anthropic.headers",
     "the anthropic-version is non-empty printable ASCII: no line end",
     {**req([wire_msg("user", text("Hi"))]), "version": "2023-06-01\r\nX-Other: 1"},
     ("error", "argument.invalid")),
    ("request-max-tokens-below-one", "stream.anthropic.request",
     "a request's maxTokens below 1 is refused, as the default is (the least the API takes)",
     req([wire_msg("user", text("Hi"))], maxTokens=0), ("error", "argument.invalid")),
    ("request-null-is-absent", "stream.vectors.input-order",
     "a request's maxTokens and temperature of null are absent: the default max_tokens, no "
     "temperature",
     req([wire_msg("user", text("Hi"))], maxTokens=None, temperature=None),
     sent({"model": "claude-x", "max_tokens": 4096, "stream": True,
           "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}]})),
    ("request-blank-arguments", "stream.anthropic.request",
     "arguments of JSON whitespace alone are {}; U+00A0 is not JSON whitespace, so such "
     "arguments are no JSON object and are refused",
     req([wire_msg("user", text("Hi")), wire_msg("assistant", call("c", "f", " \t\r\n"))]),
     sent({"model": "claude-x", "max_tokens": 4096, "stream": True,
           "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}]},
                        {"role": "assistant", "content": [
                            {"type": "tool_use", "id": "c", "name": "f", "input": {}}]}]})),
    ("request-nbsp-arguments-refused", "stream.anthropic.request",
     "arguments of U+00A0 alone are not blank (not JSON whitespace): no JSON object, refused",
     req([wire_msg("user", text("Hi")), wire_msg("assistant", call("c", "f", "\u00a0"))]),
     ("error", "argument.invalid")),
    ("request-empty-parameters", "stream.anthropic.request",
     "a tool with parameters {} gets the input_schema {\"type\": \"object\"}, and no "
     "description is \"\"",
     req([wire_msg("user", text("Hi"))], tools=[{"name": "t", "parameters": {}}]),
     sent({"model": "claude-x", "max_tokens": 4096, "stream": True,
           "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}],
           "tools": [{"name": "t", "description": "", "input_schema": {"type": "object"}}]})),
    ("request-system-holds-text-only", "stream.anthropic.roles",
     "a system message holding a reasoning block is refused",
     req([wire_msg("system", reasoning("Be brief.")), wire_msg("user", text("Hi"))]),
     ("error", "argument.invalid")),
    ("request-user-holds-no-tool-call", "stream.anthropic.roles",
     "a user message holding a tool call is refused",
     req([wire_msg("user", text("Hi"), call("c", "f", "{}"))]), ("error", "argument.invalid")),
    ("request-user-holds-no-reasoning", "stream.anthropic.roles",
     "a user message holding reasoning is refused",
     req([wire_msg("user", reasoning("hm"), text("Hi"))]), ("error", "argument.invalid")),
    ("request-assistant-holds-no-tool-result", "stream.anthropic.roles",
     "an assistant message holding a tool result is refused",
     req([wire_msg("user", text("Hi")),
          wire_msg("assistant", {"type": "tool-result", "callId": "c", "content": "x"})]),
     ("error", "argument.invalid")),
    ("request-tool-holds-tool-results-only", "stream.anthropic.roles",
     "a tool message holding text is refused",
     req([wire_msg("user", text("Hi")), wire_msg("tool", text("10"))]),
     ("error", "argument.invalid")),
    ("request-identity-before-roles", "stream.vectors.input-order",
     "the identity is read before the body is judged: an identity of null is not-an-object, "
     "though a user message also holds a tool call",
     {**req([wire_msg("user", call("c", "f", "[1]"), text("Hi"))]), "identity": None},
     ("error", "stream.wire.not-an-object")),
    ("request-missing-api-key", "stream.vectors.input-order", "apiKey is required",
     {"request": {"model": "m", "messages": []}, "identity": IDENTITY},
     ("error", "stream.wire.missing-field")),
    ("request-malformed-message", "stream.vectors.input-order",
     "a message of the request is read as wire JSON: its stream.wire code",
     req([{"role": "user", "content": [{"type": "image"}]}]),
     ("error", "stream.wire.unknown-variant")),
    ("request-messages-not-a-list", "stream.vectors.input-order",
     "a request's messages is an array: a string is not-a-list",
     {**req([]), "request": {"model": "claude-x", "messages": "Hi"}},
     ("error", "stream.wire.not-a-list")),
    ("request-tool-description-not-a-string", "stream.vectors.input-order",
     "a tool's description is judged as ToolSpec judges it: a string, else argument.invalid",
     req([wire_msg("user", text("Hi"))], tools=[{"name": "t", "description": 5}]),
     ("error", "argument.invalid")),
    ("request-tool-parameters-not-an-object", "stream.vectors.input-order",
     "a tool's parameters are judged as ToolSpec judges them: an object, else "
     "argument.invalid (an array is none)",
     req([wire_msg("user", text("Hi"))], tools=[{"name": "t", "parameters": [1]}]),
     ("error", "argument.invalid")),
    ("request-message-unknown-member", "stream.vectors.input-order",
     "a message is read as wire JSON, whose members are role and content only: a member "
     "beyond them is stream.wire.unknown-field, never ignored",
     req([{**wire_msg("user", text("Hi")), "name": "ann"}]),
     ("error", "stream.wire.unknown-field")),
]


#: Cases that need a reading beyond their function (INTERPRETING.md section 15): a JSON reader
#: that keeps a lone surrogate, so the refusal can be asked at all.
REQUIRES = {"input-sse-lone-surrogate": ["text.lone-surrogates"]}


def cases() -> list[J]:
    from .defs_stream_blind5 import anthropic_rows  # the fresh blind reading's (issue 29)
    from .defs_stream_blind9 import anthropic_rows as second_rows  # the second fresh reading's
    from .defs_stream_blind20 import anthropic_rows as fourth_rows  # the fourth fresh reading's

    more_map, more_request = anthropic_rows()
    second_map, second_request = second_rows()
    fourth_map, fourth_request = fourth_rows()
    more_map = [*more_map, *second_map, *fourth_map]
    more_request = [*more_request, *second_request, *fourth_request]
    built = []
    rows = [("stream.anthropic_map", row) for row in [*CASES, *CUT_CASES, *more_map]] + [
        ("stream.anthropic_request", row) for row in [*REQUEST_CASES, *more_request]]
    for function, (name, anchor, description, body, expected) in rows:
        input_ = dict(body) if isinstance(body, dict) else {"sse": body}
        expect = ({"error": {"code": expected[1]}} if isinstance(expected, tuple)
                  else {"result": expected})
        case = {"id": f"{GROUP}/{name}", "anchor": anchor, "tier": "must",
                "description": description, "family": "vector",
                "function": function, "input": input_, "expect": expect}
        if name in REQUIRES:
            case["requires"] = REQUIRES[name]
        built.append(case)
    return built


def verify() -> list[str]:
    """Problems: a case whose hand-written answer loom_ref does not give."""
    return gen_vectors.verify(cases)


if __name__ == "__main__":
    gen_vectors.main((GROUP,), cases)
