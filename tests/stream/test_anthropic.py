"""The Anthropic Messages adapter: the request, the headers on the wire (a loopback server on
127.0.0.1), both error paths, and the mapping's contract under any cut of the body."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from loom_ref.errors import InvalidArgument
from loom_ref.signals import Signal
from loom_ref.stream import (
    APP_IDENTITY,
    AnthropicAdapter,
    AppIdentity,
    FinishKind,
    LlmRequest,
    Message,
    ProviderError,
    Role,
    StreamAborted,
    TextBlock,
    ToolCallBlock,
    assemble,
    build_messages_body,
    check,
    chunks_to_json,
    consume,
    map_messages_stream,
)

from ..loopback import Loopback, Response, pieces
from .gen_anthropic import (
    END,
    HELLO_BODY,
    PING,
    TOOL_BODY,
    U25,
    block,
    delta,
    ev,
    message_delta,
    start,
    stop,
    text_block,
)

KEY = "sk-ant-test"
HEADERS = {"user-agent": APP_IDENTITY.user_agent, "x-api-key": KEY,
           "anthropic-version": "2023-06-01", "content-type": "application/json"}
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def user(text: str) -> Message:
    return Message(role=Role.USER, content=[TextBlock(text=text)])


def run(adapter: AnthropicAdapter, request: LlmRequest, signal: Signal | None = None) -> Any:
    return chunks_to_json(list(adapter.stream(request, signal or Signal())))


REQUEST = LlmRequest(model="claude-x", messages=[user("Hello")])


def test_headers_and_body_on_the_wire() -> None:
    # spec: stream.anthropic.headers, stream.attribution.user-agent -- the server refuses a
    # request without them, so a stream at all proves them
    with Loopback([Response(pieces(HELLO_BODY, 7))], require=HEADERS) as server:
        adapter = AnthropicAdapter(api_key=KEY, base_url=server.base_url)
        chunks = run(adapter, REQUEST)
    assert chunks[-1] == {"type": "finish", "reason": {"kind": "stop"}}
    (received,) = server.requests
    assert received.path == "/v1/messages"
    assert received.headers["accept"] == "text/event-stream"
    assert received.body == {"model": "claude-x", "max_tokens": 4096, "stream": True,
                             "messages": [{"role": "user",
                                           "content": [{"type": "text", "text": "Hello"}]}]}


def test_a_missing_required_header_is_refused_by_the_server() -> None:
    # the loopback server is not lenient: another identity's User-Agent is a 400
    other = AppIdentity(product="other", version="1", url="https://other.example")
    with Loopback([Response(pieces(HELLO_BODY, 64))], require=HEADERS) as server:
        adapter = AnthropicAdapter(api_key=KEY, base_url=server.base_url, identity=other)
        with pytest.raises(ProviderError) as info:
            run(adapter, REQUEST)
    assert info.value.code == "stream.provider.http-status"
    assert info.value.details["status"] == 400 and "user-agent" in info.value.message


def test_the_in_band_error_event_ends_in_finish_error_never_a_raise() -> None:
    # spec: stream.anthropic.events -- the second sanctioned error path
    body = (start(U25) + text_block(0, "Par")
            + ev("error", error={"type": "overloaded_error", "message": "Overloaded"}))
    with Loopback([Response(pieces(body, 5))]) as server:
        adapter = AnthropicAdapter(api_key=KEY, base_url=server.base_url)
        chunks = list(adapter.stream(REQUEST, Signal()))
        through = list(consume(adapter, REQUEST, Signal()))
    assert chunks == through  # nothing for the wrapper to fold: the adapter did not raise
    reason = chunks[-1].reason
    assert reason.kind is FinishKind.ERROR and reason.failure is not None
    assert reason.failure.code == "stream.provider.in-band-error"
    assert reason.failure.message == "Overloaded"


def test_http_status_and_transport_raise() -> None:
    with Loopback([Response([b'{"type":"error"}'], status=529,
                            content_type="application/json")]) as server:
        adapter = AnthropicAdapter(api_key=KEY, base_url=server.base_url)
        with pytest.raises(ProviderError) as info:
            run(adapter, REQUEST)
    assert info.value.code == "stream.provider.http-status" and info.value.details["status"] == 529
    closed = AnthropicAdapter(api_key=KEY, base_url=server.base_url, timeout=2)
    with pytest.raises(ProviderError) as gone:
        run(closed, REQUEST)
    assert gone.value.code == "stream.provider.transport"


def test_an_aborted_signal_is_checked_before_the_request_and_between_reads() -> None:
    with Loopback([Response(pieces(HELLO_BODY, 3))]) as server:
        adapter = AnthropicAdapter(api_key=KEY, base_url=server.base_url)
        signal = Signal()
        signal.abort("user")
        with pytest.raises(StreamAborted):
            run(adapter, REQUEST, signal)
        assert server.requests == []  # nothing was sent
        signal = Signal()
        got = []
        for chunk in consume(adapter, REQUEST, signal):
            got.append(chunk)
            signal.abort("enough")
    assert got[-1].reason.kind is FinishKind.ABORTED and len(got) == 2


def test_request_body_defaults() -> None:
    # spec: stream.anthropic.request -- the cases of stream.anthropic/request-* pin the body
    body = build_messages_body(REQUEST, default_max_tokens=7)
    assert body["max_tokens"] == 7 and "system" not in body and "tools" not in body


@pytest.mark.parametrize("arguments", ["[1]", "{not json", '"x"'])
def test_arguments_that_are_not_a_json_object_are_refused(arguments: str) -> None:
    request = LlmRequest(model="m", messages=[user("x"), Message(
        role=Role.ASSISTANT, content=[ToolCallBlock(id="c", name="f", arguments=arguments)])])
    with pytest.raises(InvalidArgument):
        build_messages_body(request, default_max_tokens=1)


@pytest.mark.parametrize("kwargs", [
    {"api_key": ""}, {"api_key": "k\nx"}, {"api_key": KEY, "base_url": "ftp://x"},
    {"api_key": KEY, "timeout": 0}, {"api_key": KEY, "default_max_tokens": 0},
    {"api_key": KEY, "version": ""}, {"api_key": KEY, "identity": "loom"}])
def test_bad_configuration_is_refused(kwargs: dict[str, Any]) -> None:
    with pytest.raises(InvalidArgument):
        AnthropicAdapter(**kwargs)


def test_from_env_reads_only_the_injected_mapping() -> None:
    # spec: stream.anthropic.injected-config
    adapter = AnthropicAdapter.from_env({"ANTHROPIC_API_KEY": KEY,
                                         "LOOM_ANTHROPIC_BASE_URL": "http://127.0.0.1:9"})
    assert adapter.url == "http://127.0.0.1:9/v1/messages"
    assert AnthropicAdapter.from_env({"ANTHROPIC_API_KEY": KEY}).url == (
        "https://api.anthropic.com/v1/messages")
    with pytest.raises(InvalidArgument):
        AnthropicAdapter.from_env({})


def test_invalid_utf8_is_replaced_not_raised() -> None:
    # spec: stream.anthropic.sse -- an invalid sequence becomes U+FFFD
    body = (start(U25) + block(0, {"type": "text", "text": ""})).encode() + (
        b'event: content_block_delta\ndata: {"type": "content_block_delta", "index": 0, '
        b'"delta": {"type": "text_delta", "text": "a\xffb"}}\n\n') + (
        stop(0) + message_delta("end_turn", {"output_tokens": 2}) + END).encode()
    assert assemble(list(map_messages_stream([body]))).message.content == (
        TextBlock(text="a\ufffdb"),)


@SETTINGS
@given(st.data())
def test_any_cut_of_the_body_maps_alike(data: st.DataObject) -> None:
    # spec: stream.anthropic.sse -- bytes cut anywhere, a CRLF and a UTF-8 sequence included
    body = (TOOL_BODY + text_block(2, "日本 👋 é")).replace("\n", "\r\n").encode()
    cuts = sorted(data.draw(st.sets(st.integers(1, len(body) - 1), max_size=40)))
    bounds = [0, *cuts, len(body)]
    cut = [body[a:b] for a, b in itertools.pairwise(bounds)]
    assert list(map_messages_stream(cut)) == list(map_messages_stream([body]))


# -- the mapping keeps the adapter contract, whatever the provider sends ------------------------

_BLOCK = st.sampled_from(["text", "thinking", "tool_use", "redacted_thinking"])
_STOP = st.sampled_from(["end_turn", "tool_use", "max_tokens", "stop_sequence", "refusal",
                         "pause_turn", None])


@st.composite
def provider_bodies(draw: st.DrawFn) -> str:
    """A Messages stream as the API may send it, cut short or not, with an error or not."""
    events = [start(draw(st.sampled_from([U25, None, {"input_tokens": 3}])))]
    lives: list[list[str]] = []
    for i in range(draw(st.integers(0, 4))):
        kind = draw(_BLOCK)
        content: dict[str, Any] = {"type": kind}
        life = [block(i, {**content, "id": f"toolu_{i}", "name": "f", "input": {}}
                      if kind == "tool_use" else {**content, "text": "", "thinking": ""})]
        for fragment in draw(st.lists(st.text(max_size=3), max_size=3)):
            life.append(delta(i, {"text": "text_delta", "thinking": "thinking_delta",
                                  "tool_use": "input_json_delta"}.get(kind, "text_delta"),
                              text=fragment, thinking=fragment, partial_json=fragment))
        if kind == "thinking" and draw(st.booleans()):
            life.append(delta(i, "signature_delta", signature="sig"))
        if draw(st.booleans()):
            life.append(stop(i))
        lives.append(life)
    order = draw(st.permutations([i for i, life in enumerate(lives) for _ in life]))
    cursors = [0] * len(lives)
    for which in order:
        events.append(lives[which][cursors[which]])
        cursors[which] += 1
        if draw(st.integers(0, 9)) == 0:
            events.append(PING)
    if draw(st.booleans()):
        events.append(ev("error", error={"type": "overloaded_error", "message": "x"}))
    if draw(st.booleans()):
        events.append(message_delta(draw(_STOP), {"output_tokens": 9}))
    if draw(st.booleans()):
        events.append(END)
    return "".join(events)


@SETTINGS
@given(provider_bodies())
def test_any_provider_stream_maps_to_a_contract_valid_stream(body: str) -> None:
    chunks = list(map_messages_stream([body.encode()]))
    assert check(chunks) == (), json.dumps(chunks_to_json(chunks))


def test_a_body_cut_mid_read_is_a_transport_error() -> None:
    # http.read_pieces: a body the HTTP layer cannot read (chunked framing broken after the
    # first piece) is stream.provider.transport
    first = start(U25).encode("utf-8")
    framed = b"%x\r\n%s\r\n" % (len(first), first) + b"zz\r\n"
    with Loopback([Response([framed], headers={"Transfer-Encoding": "chunked"})]) as server:
        adapter = AnthropicAdapter(api_key=KEY, base_url=server.base_url)
        with pytest.raises(ProviderError) as info:
            run(adapter, REQUEST)
    assert info.value.code == "stream.provider.transport"
    assert "reading the stream failed" in info.value.message
