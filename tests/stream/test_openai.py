"""The OpenAI-compatible adapter: chunk mapping, usage, request body, and the wire itself.

The wire-level tests start a mock chat-completions server on 127.0.0.1 in a thread (test code
only) that asserts the attribution User-Agent and streams SSE back.
"""

from __future__ import annotations

import http.client
import itertools
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from loom_ref.errors import InvalidArgument
from loom_ref.signals import Signal
from loom_ref.stream import (
    AppIdentity,
    BlockEnd,
    BlockStart,
    ChatCompletionsMapper,
    FinishChunk,
    FinishKind,
    LlmRequest,
    Message,
    OpenAICompatAdapter,
    ProviderError,
    ReasoningBlock,
    Role,
    SseDecoder,
    SseEvent,
    StreamChunk,
    TextBlock,
    TokenUsage,
    ToolCallBlock,
    ToolCallDelta,
    ToolResultBlock,
    ToolSpec,
    UsageChunk,
    assemble,
    attribution_headers,
    build_chat_body,
    check,
    consume,
)
from loom_ref.stream.http import Endpoint
from loom_ref.stream.openai_mapping import map_usage

from ..loopback import Loopback, Response

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
REQUEST = LlmRequest(
    model="test-model", messages=[Message(role=Role.USER, content=[TextBlock(text="hi")])]
)


def content(text: str) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}


def reasoning(text: str) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": {"reasoning_content": text}}]}


def tool(
    index: int, *, id: str | None = None, name: str | None = None, args: Any = None
) -> dict[str, Any]:
    call: dict[str, Any] = {"index": index, "function": {}}
    if id is not None:
        call["id"] = id
        call["type"] = "function"
    if name is not None:
        call["function"]["name"] = name
    if args is not None:
        call["function"]["arguments"] = args
    return {"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}


def finish(reason: str) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]}


def usage(prompt: int, completion: int, **extra: Any) -> dict[str, Any]:
    return {
        "choices": [],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion, **extra},
    }


def run(payloads: list[dict[str, Any]]) -> list[StreamChunk]:
    mapper = ChatCompletionsMapper()
    out: list[StreamChunk] = []
    for payload in payloads:
        out.extend(mapper.feed(payload))
    out.extend(mapper.end())
    return out


# --- mapping ---------------------------------------------------------------------------------


def test_usage_after_the_finish_chunk_is_emitted_before_finish() -> None:
    out = run([content("Hel"), content("lo"), finish("stop"), usage(12, 3)])
    assert check(out) == ()
    assert isinstance(out[-2], UsageChunk) and isinstance(out[-1], FinishChunk)
    result = assemble(out)
    assert result.message.content == (TextBlock(text="Hello"),)
    assert result.finish.kind is FinishKind.STOP
    assert result.usage == TokenUsage(input_tokens=12, output_tokens=3)


def test_missing_usage_is_absent_never_zero() -> None:
    out = run([content("x"), finish("stop")])
    assert not any(isinstance(c, UsageChunk) for c in out)
    assert assemble(out).usage is None


def test_cached_tokens_are_subtracted_out_and_reasoning_is_a_breakdown() -> None:
    # spec: stream.openai.disjoint-usage, stream.usage.reasoning-breakdown
    raw = usage(
        100,
        40,
        prompt_tokens_details={"cached_tokens": 64},
        completion_tokens_details={"reasoning_tokens": 30},
    )["usage"]
    assert map_usage(raw) == TokenUsage(
        input_tokens=36, output_tokens=40, cache_read_tokens=64, reasoning_tokens=30
    )
    # the deepseek-reasoner stream of the issue: 212 completion tokens, 198 of them reasoning
    reasoner = {"prompt_tokens": 1500, "completion_tokens": 212, "prompt_cache_hit_tokens": 1408,
                "completion_tokens_details": {"reasoning_tokens": 198}}
    assert map_usage(reasoner) == TokenUsage(input_tokens=92, output_tokens=212,
                                             cache_read_tokens=1408, reasoning_tokens=198)
    assert map_usage({**reasoner, "completion_tokens_details": {"reasoning_tokens": 213}}) is None
    deepseek = {"prompt_tokens": 50, "completion_tokens": 5, "prompt_cache_hit_tokens": 20}
    assert map_usage(deepseek) == TokenUsage(input_tokens=30, output_tokens=5, cache_read_tokens=20)
    zero_cached = {
        "prompt_tokens": 5,
        "completion_tokens": 1,
        "prompt_tokens_details": {"cached_tokens": 0},
    }
    assert map_usage(zero_cached) == TokenUsage(
        input_tokens=5, output_tokens=1, cache_read_tokens=0
    )


@pytest.mark.parametrize(
    "raw",
    [
        None,
        {},
        {"prompt_tokens": 1},
        {"prompt_tokens": -1, "completion_tokens": 0},
        {"prompt_tokens": 1, "completion_tokens": 0, "prompt_tokens_details": {"cached_tokens": 5}},
    ],
)
def test_malformed_usage_is_absent(raw: object) -> None:
    assert map_usage(raw) is None


def test_close_without_finish_reason_is_an_error_never_stop() -> None:
    out = run([content("partial"), usage(3, 1)])
    assert check(out) == ()
    result = assemble(out)
    assert result.finish.kind is FinishKind.ERROR
    assert result.finish.failure is not None
    assert result.finish.failure.code == "stream.provider.no-finish-reason"
    assert result.message.content == (TextBlock(text="partial"),)  # interrupted, kept
    assert result.usage == TokenUsage(input_tokens=3, output_tokens=1)


def test_parallel_tool_calls_keep_their_own_indexes() -> None:
    out = run(
        [
            content("Let me check."),
            tool(0, id="call_a", name="weather", args=""),
            tool(1, id="call_b", name="time", args=""),
            tool(0, args='{"city":'),
            tool(1, args='{"tz":"UTC"}'),
            tool(0, args='"Oslo"}'),
            finish("tool_calls"),
        ]
    )
    assert check(out) == ()
    result = assemble(out)
    assert result.finish.kind is FinishKind.TOOL_CALLS
    assert result.message.content == (
        TextBlock(text="Let me check."),
        ToolCallBlock(id="call_a", name="weather", arguments='{"city":"Oslo"}'),
        ToolCallBlock(id="call_b", name="time", arguments='{"tz":"UTC"}'),
    )


def test_a_resent_id_or_name_is_not_concatenated() -> None:
    out = run(
        [
            tool(0, id="call_1", name="search", args='{"q"'),
            tool(0, id="call_1", name="search", args=':"x"}'),
            finish("tool_calls"),
        ]
    )
    assert check(out) == ()
    names = [c.name for c in out if isinstance(c, ToolCallDelta)]
    assert names == ["search", None]
    assert assemble(out).message.content == (
        ToolCallBlock(id="call_1", name="search", arguments='{"q":"x"}'),
    )


def test_parsed_arguments_are_restringified() -> None:
    out = run([tool(0, id="c", name="f", args={"a": [1, 2]}), finish("tool_calls")])
    assert assemble(out).message.content == (
        ToolCallBlock(id="c", name="f", arguments='{"a":[1,2]}'),
    )


def test_reasoning_then_text_are_separate_blocks() -> None:
    out = run([reasoning("think "), reasoning("more"), content("answer"), finish("stop")])
    assert check(out) == ()
    assert isinstance(out[0], BlockStart) and out[0].index == 0
    assert assemble(out).message.content == (
        ReasoningBlock(text="think more"),
        TextBlock(text="answer"),
    )


def test_length_is_max_tokens_with_blocks_closed() -> None:
    out = run([content("trunc"), finish("length")])
    assert check(out) == ()
    assert any(isinstance(c, BlockEnd) for c in out)
    assert assemble(out).finish.kind is FinishKind.MAX_TOKENS


@pytest.mark.parametrize(
    ("payload", "code"),
    [
        (finish("content_filter"), "stream.provider.content-filter"),
        (finish("weird"), "stream.provider.unknown-finish-reason"),
        ({"error": {"message": "overloaded"}}, "stream.provider.in-band-error"),
    ],
)
def test_failures_in_band_end_in_finish_error(payload: dict[str, Any], code: str) -> None:
    out = run([content("x"), payload])
    assert check(out) == ()
    reason = assemble(out).finish
    assert reason.kind is FinishKind.ERROR and reason.failure is not None
    assert reason.failure.code == code


@pytest.mark.parametrize(
    ("payloads", "kind", "code"),
    [
        ([finish("stop")], FinishKind.ERROR, "stream.provider.empty-response"),
        ([content("")], FinishKind.ERROR, "stream.provider.empty-response"),
        ([], FinishKind.ERROR, "stream.provider.empty-response"),
        ([reasoning("hm"), finish("stop")], FinishKind.STOP, None),
        ([finish("tool_calls")], FinishKind.TOOL_CALLS, None),
        ([finish("length")], FinishKind.MAX_TOKENS, None),
        ([{"error": {"message": "x"}}, finish("stop")], FinishKind.ERROR,
         "stream.provider.in-band-error"),
    ],
)
def test_an_empty_stop_is_an_empty_response(
    payloads: list[dict[str, Any]], kind: FinishKind, code: str | None
) -> None:
    # spec: stream.openai.empty-response -- a stop (or absent) finish with no block opened
    reason = assemble(run(payloads)).finish
    assert reason.kind is kind
    assert (reason.failure.code if reason.failure else None) == code


def test_an_in_band_error_message_is_never_the_payload_s_text() -> None:
    for error in ({"message": ""}, {"code": 5}, "boom", [1]):
        reason = assemble(run([content("x"), {"error": error}])).finish
        assert reason.failure is not None
        assert reason.failure.message == "the provider reported an error in the stream"


def test_a_choice_of_index_false_is_not_choice_0() -> None:
    payload = {"choices": [{"index": False, "delta": {"content": "x"}},
                           {"index": 0, "delta": {"content": "y"}, "finish_reason": "stop"}]}
    assert assemble(run([payload])).message.content == (TextBlock(text="y"),)


def test_missing_tool_call_id_gets_a_deterministic_one() -> None:
    out = run([tool(0, name="f", args="{}"), finish("tool_calls")])
    assert assemble(out).message.content == (ToolCallBlock(id="call-0", name="f", arguments="{}"),)


def test_non_object_payload_raises() -> None:
    with pytest.raises(ProviderError) as caught:
        ChatCompletionsMapper().feed([1])
    assert caught.value.code == "stream.provider.malformed-event"


FRAGMENTS = st.one_of(
    st.builds(content, st.text(max_size=4)),
    st.builds(reasoning, st.text(max_size=4)),
    st.builds(
        tool,
        st.integers(min_value=0, max_value=2),
        id=st.none() | st.sampled_from(["a", "b"]),
        name=st.none() | st.sampled_from(["f", "g"]),
        args=st.none() | st.sampled_from(["{", "}", '"x"', ""]),
    ),
    st.builds(finish, st.sampled_from(["stop", "length", "tool_calls", "content_filter"])),
    st.builds(usage, st.integers(0, 50), st.integers(0, 50)),
    st.just({"error": {"message": "boom"}}),
    st.just({"choices": [{"index": 1, "delta": {"content": "other choice"}}]}),
)


@SETTINGS
@given(st.lists(FRAGMENTS, max_size=12))
def test_any_provider_sequence_maps_to_a_contract_valid_stream(
    payloads: list[dict[str, Any]],
) -> None:
    out = run(payloads)
    assert check(out) == ()
    assemble(out)


# --- request body and configuration ----------------------------------------------------------


def test_request_body() -> None:
    request = LlmRequest(
        model="m",
        messages=[
            Message(role=Role.SYSTEM, content=[TextBlock(text="be brief")]),
            Message(role=Role.USER, content=[TextBlock(text="weather?")]),
            Message(
                role=Role.ASSISTANT,
                content=[
                    ReasoningBlock(text="hidden"),
                    ToolCallBlock(id="c1", name="weather", arguments='{"city":"Oslo"}'),
                ],
            ),
            Message(
                role=Role.USER,
                content=[ToolResultBlock(call_id="c1", content="sunny"), TextBlock(text="thanks")],
            ),
        ],
        tools=[ToolSpec(name="weather", parameters={"type": "object"})],
        max_tokens=100,
        temperature=0.0,
    )
    body = build_chat_body(request)
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["messages"] == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "weather?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "weather", "arguments": '{"city":"Oslo"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        {"role": "user", "content": "thanks"},
    ]
    assert body["tools"] == [
        {
            "type": "function",
            "function": {"name": "weather", "description": "", "parameters": {"type": "object"}},
        }
    ]
    assert body["max_tokens"] == 100 and body["temperature"] == 0.0


def test_from_env_reads_only_the_injected_mapping() -> None:
    # spec: stream.openai.injected-config -- only from_env reads an environment, the mapping given
    adapter = OpenAICompatAdapter.from_env(
        {"LOOM_LLM_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_API_KEY": "k"}
    )
    assert adapter.url == "http://127.0.0.1:9/v1/chat/completions"
    assert adapter.request_headers()["Authorization"] == "Bearer k"
    assert "Authorization" not in OpenAICompatAdapter(base_url="http://h/v1").request_headers()
    with pytest.raises(InvalidArgument):
        OpenAICompatAdapter.from_env({})


@pytest.mark.parametrize(
    "kwargs",
    [
        {"base_url": "ftp://x"},
        {"base_url": "not a url"},
        {"base_url": "http://h", "api_key": ""},
        {"base_url": "http://h", "timeout": 0},
        {"base_url": 3},
    ],
)
def test_bad_configuration_is_rejected(kwargs: dict[str, Any]) -> None:
    with pytest.raises(InvalidArgument):
        OpenAICompatAdapter(**kwargs)


def test_sse_decoder() -> None:
    decoder = SseDecoder()
    lines = [
        ": comment\n",
        "event: x\r\n",
        "data: a\n",
        "data:b\n",
        "id: 7\n",
        "\n",
        "\n",
        "data: tail",
    ]
    events = [e for e in (decoder.feed_line(line) for line in lines) if e is not None]
    assert events == [SseEvent(event="x", data="a\nb", id="7")]



SSE_TEXT = ": c\r\nevent: x\rdata: a\r\ndata:b\n\r\ndata: 2\r\rid: 7\ndata: 3\n\ndata: tail"


@settings(max_examples=200)
@given(st.lists(st.integers(0, len(SSE_TEXT)), max_size=6))
def test_sse_feed_is_independent_of_where_the_text_is_cut(cuts: list[int]) -> None:
    # spec: stream.openai.sse -- LF, CRLF or CR, even a CRLF cut between two pieces
    bounds = [0, *sorted(cuts), len(SSE_TEXT)]
    decoder = SseDecoder()
    events = [e for a, b in itertools.pairwise(bounds) for e in decoder.feed(SSE_TEXT[a:b])]
    assert events == [
        SseEvent(event="x", data="a\nb"),
        SseEvent(event="message", data="2"),
        SseEvent(event="message", data="3", id="7"),
    ]

# --- the wire --------------------------------------------------------------------------------


IDENTITY = AppIdentity(product="loom-ref-test", version="9.9", url="https://example.test")
UA = "loom-ref-test/9.9 (+https://example.test)"


def mock(events: list[str], *, status: int = 200) -> Loopback:
    """A chat-completions endpoint on 127.0.0.1 that refuses a request without :data:`UA`."""
    return Loopback([Response([e.encode("utf-8") for e in events], status=status)],
                    require={"user-agent": UA})


def v1(server: Loopback) -> str:
    return server.base_url + "/v1"


def sse(*payloads: dict[str, Any], done: bool = True) -> list[str]:
    events = [f"data: {json.dumps(p)}\n\n" for p in payloads]
    return [*events, "data: [DONE]\n\n"] if done else events




def test_wire_every_request_carries_the_user_agent() -> None:
    events = sse(
        content("Hi"),
        content(" there"),
        finish("stop"),
        usage(7, 2, prompt_tokens_details={"cached_tokens": 4}),
    )
    with mock(events) as server:
        adapter = OpenAICompatAdapter(
            base_url=v1(server), api_key="sk-test", identity=IDENTITY, timeout=5
        )
        out = list(consume(adapter, REQUEST, Signal()))
        again = list(consume(adapter, REQUEST, Signal()))
    assert attribution_headers(IDENTITY) == {"User-Agent": UA}
    assert len(server.requests) == 2
    for seen in server.requests:
        assert seen.headers["user-agent"] == UA
        assert seen.headers["authorization"] == "Bearer sk-test"
        assert seen.path == "/v1/chat/completions"
        assert seen.body["model"] == "test-model" and seen.body["stream"] is True
    assert out == again
    assert check(out) == ()
    result = assemble(out)
    assert result.message.content == (TextBlock(text="Hi there"),)
    assert result.usage == TokenUsage(input_tokens=3, output_tokens=2, cache_read_tokens=4)
    assert result.finish.kind is FinishKind.STOP


def test_wire_a_missing_user_agent_would_be_refused() -> None:
    # the mock really checks: a different identity gets a 400, raised as http-status
    with mock(sse(finish("stop"))) as server:
        adapter = OpenAICompatAdapter(base_url=v1(server), timeout=5)
        with pytest.raises(ProviderError) as caught:
            list(adapter.stream(REQUEST, Signal()))
    assert caught.value.code == "stream.provider.http-status"
    assert caught.value.details["status"] == 400


def test_wire_connection_closed_without_finish_is_error() -> None:
    with mock(sse(content("cut"), done=False)) as server:
        adapter = OpenAICompatAdapter(base_url=v1(server), identity=IDENTITY, timeout=5)
        out = list(consume(adapter, REQUEST, Signal()))
    assert check(out) == ()
    reason = assemble(out).finish
    assert reason.kind is FinishKind.ERROR and reason.failure is not None
    assert reason.failure.code == "stream.provider.no-finish-reason"


def test_wire_http_error_status_becomes_error_finish_through_consume() -> None:
    with mock([], status=503) as server:
        adapter = OpenAICompatAdapter(base_url=v1(server), identity=IDENTITY, timeout=5)
        out = list(consume(adapter, REQUEST, Signal()))
    assert len(out) == 1
    reason = assemble(out).finish
    assert reason.failure is not None and reason.failure.code == "stream.provider.http-status"


def test_wire_malformed_event_raises() -> None:
    with mock(["data: {not json\n\n"]) as server:
        adapter = OpenAICompatAdapter(base_url=v1(server), identity=IDENTITY, timeout=5)
        with pytest.raises(ProviderError) as caught:
            list(adapter.stream(REQUEST, Signal()))
    assert caught.value.code == "stream.provider.malformed-event"


def test_wire_abort_between_events() -> None:
    events = sse(content("a"), content("b"), content("c"), finish("stop"))
    with mock(events) as server:
        adapter = OpenAICompatAdapter(base_url=v1(server), identity=IDENTITY, timeout=5)
        signal = Signal()
        out: list[StreamChunk] = []
        for chunk in consume(adapter, REQUEST, signal):
            out.append(chunk)
            if len(out) == 2:
                signal.abort("user")
    reason = assemble(out).finish
    assert reason.kind is FinishKind.ABORTED
    assert check(out) == ()


def test_wire_connection_refused_is_a_transport_error() -> None:
    with mock([]) as server:
        url = v1(server)
    adapter = OpenAICompatAdapter(base_url=url, identity=IDENTITY, timeout=2)
    with pytest.raises(ProviderError) as caught:
        list(adapter.stream(REQUEST, Signal()))
    assert caught.value.code == "stream.provider.transport"


def test_wire_a_body_cut_mid_read_is_a_transport_error() -> None:
    # http.read_lines: a body the HTTP layer cannot read (after the first event, a chunk
    # size line longer than http.client reads) is stream.provider.transport, never the
    # chunks read so far taken as a whole stream
    first = "".join(sse(content("half"), done=False)).encode("utf-8")
    framed = b"%x\r\n%s\r\n" % (len(first), first) + b"0" * 70_000 + b"1\r\n"
    with Loopback([Response([framed], headers={"Transfer-Encoding": "chunked"})],
                  require={"user-agent": UA}) as server:
        adapter = OpenAICompatAdapter(base_url=v1(server), identity=IDENTITY, timeout=5)
        with pytest.raises(ProviderError) as caught:
            list(adapter.stream(REQUEST, Signal()))
    assert caught.value.code == "stream.provider.transport"
    assert "reading the stream failed" in caught.value.message


def test_an_https_base_url_connects_over_tls() -> None:
    # http.Endpoint.connect: the scheme chooses the connection (nothing is sent until a POST)
    endpoint = Endpoint.parse("https://api.example.test:8443/v1", 7)
    connection = endpoint.connect()
    assert isinstance(connection, http.client.HTTPSConnection)
    assert (connection.host, connection.port, connection.timeout) == (
        "api.example.test", 8443, 7.0)
    plain = Endpoint.parse("http://127.0.0.1:9/v1", 7).connect()
    assert not isinstance(plain, http.client.HTTPSConnection)
