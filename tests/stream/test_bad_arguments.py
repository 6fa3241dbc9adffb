"""Every public entry point of the stream layer answers a bad argument with a loom_ref error
carrying a stable code, never an internal exception (spec: errors.invalid-argument).

The model is ``tests/kernel/test_bad_arguments.py``: each entry point is called with one
argument replaced by each value of ``BAD`` (every other argument good). The call may accept
the value (some are valid for some parameters: ``None`` for an optional one, any value for a
field the contract checker judges); if it raises, the error MUST be a
:class:`~loom_ref.errors.LoomError` whose ``code`` is a non-empty string (a stream rule's code
is fine). Generators are drained, so an argument checked only when the stream is read counts.
Nothing here opens a connection or writes a file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import pytest

from loom_ref.errors import InvalidArgument
from loom_ref.signals import Signal
from loom_ref.stream import (
    VECTOR_FUNCTIONS,
    AppIdentity,
    AssembledStream,
    BlockAssembler,
    BlockEnd,
    BlockStart,
    BlockType,
    ChatCompletionsMapper,
    ContractChecker,
    Failure,
    FinishChunk,
    FinishKind,
    FinishReason,
    LlmRequest,
    Message,
    OpenAICompatAdapter,
    ReasoningBlock,
    ReasoningDelta,
    Role,
    Rule,
    Script,
    ScriptedAdapter,
    SseDecoder,
    SseEvent,
    StreamChunk,
    TextBlock,
    TextDelta,
    TokenUsage,
    ToolCallBlock,
    ToolCallDelta,
    ToolResultBlock,
    ToolSpec,
    UsageChunk,
    Violation,
    assemble,
    attribution_headers,
    block_from_json,
    block_to_json,
    build_chat_body,
    check,
    check_strict,
    chunk_from_json,
    chunk_to_json,
    chunks_from_json,
    chunks_to_json,
    consume,
    enforce,
    finish_reason_from_json,
    finish_reason_to_json,
    guard_stream,
    is_chunk,
    message_from_json,
    message_to_json,
    usage_from_json,
    usage_to_json,
)
from loom_ref.stream.openai_mapping import map_event_stream, map_finish_reason, map_usage

from ..badargs import leaks, try_call, with_member

USER = Message(role=Role.USER, content=[TextBlock(text="hi")])
REQUEST = LlmRequest(model="m", messages=[USER])
STOP = FinishChunk(reason=FinishReason.stop())
TEXT: list[StreamChunk] = [
    BlockStart(index=0, block_type=BlockType.TEXT),
    TextDelta(index=0, text="a"),
    BlockEnd(index=0, block=TextBlock(text="a")),
    UsageChunk(usage=TokenUsage(input_tokens=1, output_tokens=1)),
    STOP,
]

#: one good wire chunk of each variant, and a good wire message
WIRE_CHUNKS: list[dict[str, Any]] = [
    {"type": "block-start", "index": 0, "blockType": "tool-call"},
    {"type": "text-delta", "index": 0, "text": "a"},
    {"type": "reasoning-delta", "index": 0, "text": "a"},
    {"type": "tool-call-delta", "index": 0, "id": "c", "name": "f", "argumentsDelta": "{}"},
    {"type": "block-end", "index": 0,
     "block": {"type": "tool-call", "id": "c", "name": "f", "arguments": "{}"}},
    {"type": "block-end", "index": 0,
     "block": {"type": "tool-result", "callId": "c", "content": "r", "isError": True}},
    {"type": "usage", "usage": {"inputTokens": 1, "outputTokens": 1, "cacheReadTokens": 0,
                                "cacheWriteTokens": 0, "reasoningTokens": 0}},
    {"type": "finish", "reason": {"kind": "error", "failure": {"message": "m", "code": "c"}}},
]
WIRE_MESSAGE: dict[str, Any] = {"role": "assistant", "content": [{"type": "text", "text": "a"}]}


def drain(values: Iterable[Any]) -> list[Any]:
    return list(values)


def wire_mutations(value: Any) -> None:
    """Every member of every good wire chunk (nested objects too) replaced by ``value``."""
    for chunk in WIRE_CHUNKS:
        for name, member in chunk.items():
            try_call(chunk_from_json, with_member(chunk, name, value))
            if isinstance(member, dict):
                for inner, nested in member.items():
                    try_call(chunk_from_json, with_member(chunk, name, with_member(
                        member, inner, value)))
                    for leaf in nested if isinstance(nested, dict) else ():
                        try_call(chunk_from_json, with_member(chunk, name, with_member(
                            member, inner, with_member(nested, leaf, value))))
    for name in WIRE_MESSAGE:
        try_call(message_from_json, with_member(WIRE_MESSAGE, name, value))
    try_call(message_from_json, with_member(WIRE_MESSAGE, "content", [value]))


def _feed_and_end(payload: Any) -> None:
    mapper = ChatCompletionsMapper()
    mapper.feed(payload)
    mapper.end()


def mapper_mutations(value: Any) -> None:
    """ChatCompletionsMapper.feed with ``value`` at every place of a provider payload."""
    payloads: list[Any] = [
        {"error": value}, {"error": {"message": value}}, {"usage": value},
        {"usage": {"prompt_tokens": value, "completion_tokens": 1}},
        {"usage": {"prompt_tokens": 3, "completion_tokens": 2,
                   "prompt_tokens_details": {"cached_tokens": value},
                   "completion_tokens_details": {"reasoning_tokens": value}}},
        {"choices": value}, {"choices": [value]}, {"choices": [{"index": value}]},
        {"choices": [{"delta": value}]}, {"choices": [{"finish_reason": value}]},
        {"choices": [{"delta": {"content": value, "reasoning_content": value,
                                "reasoning": value}}]},
        {"choices": [{"delta": {"tool_calls": value}}]},
        {"choices": [{"delta": {"tool_calls": [value]}}]},
        {"choices": [{"delta": {"tool_calls": [{"index": value, "id": value,
                                                "function": value}]}}]},
        {"choices": [{"delta": {"tool_calls": [{"function": {"name": value,
                                                             "arguments": value}}]}}]},
    ]
    for payload in payloads:
        try_call(_feed_and_end, payload)


def assemble_with(chunk: Callable[[], StreamChunk]) -> Any:
    """A chunk built with the bad value, fed to the assembler and the checker."""
    built = chunk()
    try_call(check, [built, STOP])
    return assemble([built, STOP])


def scripted(script: Callable[[], Script]) -> list[StreamChunk]:
    return drain(consume(ScriptedAdapter([script()]), REQUEST, Signal()))


def aborted() -> Signal:
    """A signal aborted already: the adapter stops before it connects."""
    signal = Signal()
    signal.abort("test")
    return signal


def adapter(**override: Any) -> OpenAICompatAdapter:
    args: dict[str, Any] = {"base_url": "http://127.0.0.1:9/v1"}
    args.update(override)
    return OpenAICompatAdapter(**args)


def vectors(value: Any) -> None:
    """Every vector function with the whole input, and each input member, replaced."""
    inputs: dict[str, dict[str, Any]] = {
        "stream.check": {"chunks": []}, "stream.assemble": {"chunks": []},
        "stream.decode": {"chunks": []}, "stream.enforce": {"chunks": []},
        "stream.consume": {"scripts": [{"chunks": [], "raiseAfter": 0}], "calls": 1,
                           "abortAfter": 1},
        "stream.openai_map": {"sse": "data: [DONE]\n\n"},
        "stream.openai_fold": {"sse": "data: [DONE]\n\n"},
        "stream.sse_data": {"sse": "data: [DONE]\n\n"},
        "stream.attribution_headers": {"identity": {"product": "p", "version": "1",
                                                    "url": "u"}},
        "stream.anthropic_map": {"sse": "data: {}\n\n", "cuts": [2]},
        "stream.anthropic_request": {"request": {"model": "m", "messages": [], "tools": [],
                                                 "maxTokens": 1, "temperature": 0},
                                     "apiKey": "k", "identity": {"product": "p", "version": "1",
                                                                 "url": "u"},
                                     "defaultMaxTokens": 1, "version": "v"},
        "stream.openai_request": {"request": {"model": "m", "messages": [], "tools": [],
                                              "maxTokens": 1, "temperature": 0}},
        "stream.usage_billed": {"usage": {"inputTokens": 1, "outputTokens": 1,
                                          "cacheReadTokens": 0, "cacheWriteTokens": 0,
                                          "reasoningTokens": 0}},
    }
    assert set(inputs) == set(VECTOR_FUNCTIONS)
    for name, good in inputs.items():
        fn = VECTOR_FUNCTIONS[name]
        try_call(fn, value)
        for member, inner in good.items():
            if member == "calls" and type(value) is int and value > 9:
                continue  # a valid count: 2**64 calls would be accepted and run for ever
            try_call(fn, with_member(good, member, value))
            try_call(fn, with_member(good, member, [value]))
            for leaf in inner if isinstance(inner, dict) else ():
                try_call(fn, with_member(good, member, with_member(inner, leaf, value)))
    try_call(VECTOR_FUNCTIONS["stream.consume"], {"scripts": [{"chunks": [], "raiseAfter": value}]})
    try_call(VECTOR_FUNCTIONS["stream.check"], {"chunks": [value]})


#: entry point name -> a function of the bad value that calls it with that value in one place
ENTRY_POINTS: dict[str, Callable[[Any], Any]] = {
    # records
    "TokenUsage(input_tokens)": lambda v: TokenUsage(input_tokens=v, output_tokens=1),
    "TokenUsage(output_tokens)": lambda v: TokenUsage(input_tokens=1, output_tokens=v),
    "TokenUsage(cache_read_tokens)": lambda v: TokenUsage(
        input_tokens=1, output_tokens=1, cache_read_tokens=v),
    "TokenUsage(cache_write_tokens)": lambda v: TokenUsage(
        input_tokens=1, output_tokens=1, cache_write_tokens=v),
    "TokenUsage(reasoning_tokens)": lambda v: TokenUsage(
        input_tokens=1, output_tokens=1, reasoning_tokens=v),
    "Failure(message)": lambda v: Failure(message=v),
    "Failure(code)": lambda v: Failure(message="m", code=v),
    "FinishReason(kind)": lambda v: FinishReason(kind=v),
    "FinishReason(failure)": lambda v: FinishReason(kind=FinishKind.ERROR, failure=v),
    "FinishReason(failure) stop": lambda v: FinishReason(kind=FinishKind.STOP, failure=v),
    "FinishReason.error(message)": lambda v: FinishReason.error(v),
    "FinishReason.error(code)": lambda v: FinishReason.error("m", v),
    "FinishReason.aborted(message)": lambda v: FinishReason.aborted(v),
    "TextBlock(text)": lambda v: TextBlock(text=v),
    "ReasoningBlock(text)": lambda v: ReasoningBlock(text=v),
    "ToolCallBlock(id)": lambda v: ToolCallBlock(id=v, name="f", arguments="{}"),
    "ToolCallBlock(name)": lambda v: ToolCallBlock(id="c", name=v, arguments="{}"),
    "ToolResultBlock(call_id)": lambda v: ToolResultBlock(call_id=v, content="r"),
    "ToolResultBlock(content)": lambda v: ToolResultBlock(call_id="c", content=v),
    "ToolResultBlock(is_error)": lambda v: ToolResultBlock(call_id="c", content="r", is_error=v),
    "Message(role)": lambda v: Message(role=v, content=[]),
    "Message(content)": lambda v: Message(role=Role.USER, content=v),
    "Message(content[0])": lambda v: Message(role=Role.USER, content=[v]),
    "BlockStart(index)": lambda v: BlockStart(index=v, block_type=BlockType.TEXT),
    "BlockStart(block_type)": lambda v: BlockStart(index=0, block_type=v),
    "TextDelta(index)": lambda v: TextDelta(index=v, text="a"),
    "TextDelta(text)": lambda v: TextDelta(index=0, text=v),
    "ReasoningDelta(index)": lambda v: ReasoningDelta(index=v, text="a"),
    "ReasoningDelta(text)": lambda v: ReasoningDelta(index=0, text=v),
    "ToolCallDelta(index)": lambda v: ToolCallDelta(index=v, id="c", arguments_delta=""),
    "ToolCallDelta(id)": lambda v: ToolCallDelta(index=0, id=v, arguments_delta=""),
    "ToolCallDelta(name)": lambda v: ToolCallDelta(index=0, id="c", name=v, arguments_delta=""),
    "BlockEnd(index)": lambda v: BlockEnd(index=v, block=TextBlock(text="a")),
    "BlockEnd(block)": lambda v: BlockEnd(index=0, block=v),
    "UsageChunk(usage)": lambda v: UsageChunk(usage=v),
    "FinishChunk(reason)": lambda v: FinishChunk(reason=v),
    "is_chunk": lambda v: is_chunk(v),
    "AppIdentity(product)": lambda v: AppIdentity(product=v, version="1", url="u"),
    "AppIdentity(version)": lambda v: AppIdentity(product="p", version=v, url="u"),
    "AppIdentity(url)": lambda v: AppIdentity(product="p", version="1", url=v),
    "attribution_headers": lambda v: attribution_headers(v),
    "SseEvent(event)": lambda v: SseEvent(event=v),
    "SseEvent(data)": lambda v: SseEvent(data=v),
    "SseEvent(id)": lambda v: SseEvent(id=v),
    "Violation(rule)": lambda v: Violation(rule=v, index=0, message="m"),
    "Violation(index)": lambda v: Violation(rule=Rule.SINGLE_FINISH, index=v, message="m"),
    "Violation(message)": lambda v: Violation(rule=Rule.SINGLE_FINISH, index=0, message=v),
    "AssembledStream(message)": lambda v: AssembledStream(
        message=v, finish=FinishReason.stop(), usage=None),
    "AssembledStream(finish)": lambda v: AssembledStream(
        message=Message(role=Role.ASSISTANT, content=[]), finish=v, usage=None),
    "AssembledStream(usage)": lambda v: AssembledStream(
        message=Message(role=Role.ASSISTANT, content=[]), finish=FinishReason.stop(), usage=v),
    # the assembler and the checker, given the value or a chunk carrying it
    "BlockAssembler.feed": lambda v: BlockAssembler().feed(v),
    "BlockAssembler.feed_all": lambda v: BlockAssembler().feed_all(v),
    "BlockAssembler.feed_all([v])": lambda v: BlockAssembler().feed_all([v]),
    "BlockAssembler.blocks/message/result after a bad feed": lambda v: _after_bad_feed(v),
    "assemble": lambda v: assemble(v),
    "assemble([..., v])": lambda v: assemble([*TEXT[:3], v]),
    "assemble(ToolCallDelta(index))": lambda v: assemble_with(
        lambda: ToolCallDelta(index=v, id="c", arguments_delta="")),
    "assemble(ToolCallDelta(arguments_delta))": lambda v: assemble_with(
        lambda: ToolCallDelta(index=0, id="c", arguments_delta=v)),
    "assemble(BlockEnd(ToolCallBlock(arguments)))": lambda v: assemble_with(
        lambda: BlockEnd(index=0, block=ToolCallBlock(id="c", name="f", arguments=v))),
    "assemble(TextDelta(index))": lambda v: assemble_with(lambda: TextDelta(index=v, text="a")),
    "ContractChecker.feed": lambda v: ContractChecker().feed(v),
    "check": lambda v: check(v),
    "check([..., v])": lambda v: check([*TEXT[:3], v]),
    "check_strict": lambda v: check_strict(v),
    "check_strict([v])": lambda v: check_strict([v]),
    "enforce": lambda v: drain(enforce(v)),
    "enforce([v])": lambda v: drain(enforce([v])),
    # the wire codecs
    "chunk_to_json": lambda v: chunk_to_json(v),
    "chunks_to_json": lambda v: chunks_to_json(v),
    "chunks_to_json([v])": lambda v: chunks_to_json([v]),
    "chunk_to_json(ToolCallDelta(arguments_delta))": lambda v: chunk_to_json(
        ToolCallDelta(index=0, id="c", arguments_delta=v)),
    "block_to_json": lambda v: block_to_json(v),
    "block_to_json(ToolCallBlock(arguments))": lambda v: block_to_json(
        ToolCallBlock(id="c", name="f", arguments=v)),
    "message_to_json": lambda v: message_to_json(v),
    "usage_to_json": lambda v: usage_to_json(v),
    "finish_reason_to_json": lambda v: finish_reason_to_json(v),
    "chunk_from_json": lambda v: chunk_from_json(v),
    "chunk_from_json(path)": lambda v: chunk_from_json({"type": "x"}, v),
    "chunk_from_json members": wire_mutations,
    "chunks_from_json": lambda v: chunks_from_json(v),
    "chunks_from_json([v])": lambda v: chunks_from_json([v]),
    "block_from_json": lambda v: block_from_json(v),
    "message_from_json": lambda v: message_from_json(v),
    "message_from_json(path)": lambda v: message_from_json({}, v),
    "usage_from_json": lambda v: usage_from_json(v),
    "finish_reason_from_json": lambda v: finish_reason_from_json(v),
    # server-sent events and the OpenAI mapping
    "SseDecoder.feed": lambda v: SseDecoder().feed(v),
    "SseDecoder.feed_line": lambda v: SseDecoder().feed_line(v),
    "ChatCompletionsMapper.feed": lambda v: ChatCompletionsMapper().feed(v),
    "ChatCompletionsMapper.feed members": mapper_mutations,
    "map_event_stream": lambda v: drain(map_event_stream(v)),
    "map_event_stream([v])": lambda v: drain(map_event_stream([v])),
    "map_event_stream(data)": lambda v: drain(map_event_stream([f"data: {v!r}\n\n"])),
    "map_finish_reason": lambda v: map_finish_reason(v),
    "map_usage": lambda v: map_usage(v),
    # the adapter seam
    "ToolSpec(name)": lambda v: ToolSpec(name=v),
    "ToolSpec(description)": lambda v: build_chat_body(
        LlmRequest(model="m", messages=[USER], tools=[ToolSpec(name="f", description=v)])),
    "ToolSpec(parameters)": lambda v: build_chat_body(
        LlmRequest(model="m", messages=[USER], tools=[ToolSpec(name="f", parameters=v)])),
    "LlmRequest(model)": lambda v: LlmRequest(model=v, messages=[]),
    "LlmRequest(messages)": lambda v: LlmRequest(model="m", messages=v),
    "LlmRequest(messages[0])": lambda v: LlmRequest(model="m", messages=[v]),
    "LlmRequest(tools)": lambda v: LlmRequest(model="m", messages=[], tools=v),
    "LlmRequest(max_tokens)": lambda v: LlmRequest(model="m", messages=[], max_tokens=v),
    "LlmRequest(temperature)": lambda v: LlmRequest(model="m", messages=[], temperature=v),
    "build_chat_body": lambda v: build_chat_body(v),
    "consume(adapter)": lambda v: drain(consume(v, REQUEST, Signal())),
    "consume(request)": lambda v: drain(consume(ScriptedAdapter(TEXT), v, Signal())),
    "consume(signal)": lambda v: drain(consume(ScriptedAdapter(TEXT), REQUEST, v)),
    "guard_stream(source)": lambda v: drain(guard_stream(v, Signal())),
    "guard_stream(signal)": lambda v: drain(guard_stream(TEXT, v)),
    "Script(chunks)": lambda v: Script(chunks=v),
    "Script(chunks[0])": lambda v: Script(chunks=[v]),
    "Script(raise_after)": lambda v: scripted(lambda: Script(chunks=TEXT, raise_after=v)),
    "Script(error_message)": lambda v: scripted(
        lambda: Script(chunks=TEXT, raise_after=0, error_message=v)),
    "Script(honor_signal)": lambda v: scripted(lambda: Script(chunks=TEXT, honor_signal=v)),
    "ScriptedAdapter(scripts)": lambda v: ScriptedAdapter(v),
    "ScriptedAdapter(scripts[0])": lambda v: ScriptedAdapter([TEXT, v]),
    "ScriptedAdapter(raise_after)": lambda v: drain(consume(
        ScriptedAdapter(TEXT, raise_after=v), REQUEST, Signal())),
    "ScriptedAdapter(honor_signal)": lambda v: drain(consume(
        ScriptedAdapter(TEXT, honor_signal=v), REQUEST, Signal())),
    "ScriptedAdapter.stream(request)": lambda v: drain(ScriptedAdapter(TEXT).stream(v, Signal())),
    "ScriptedAdapter.stream(signal)": lambda v: drain(ScriptedAdapter(TEXT).stream(REQUEST, v)),
    "OpenAICompatAdapter(base_url)": lambda v: adapter(base_url=v),
    "OpenAICompatAdapter(api_key)": lambda v: adapter(api_key=v).request_headers(),
    "OpenAICompatAdapter(identity)": lambda v: adapter(identity=v),
    "OpenAICompatAdapter(timeout)": lambda v: adapter(timeout=v),
    "OpenAICompatAdapter.from_env(environ)": lambda v: OpenAICompatAdapter.from_env(v),
    "OpenAICompatAdapter.from_env(environ values)": lambda v: OpenAICompatAdapter.from_env(
        {"LOOM_LLM_BASE_URL": v, "LOOM_LLM_API_KEY": v}),
    "OpenAICompatAdapter.from_env(identity)": lambda v: OpenAICompatAdapter.from_env(
        {"LOOM_LLM_BASE_URL": "http://127.0.0.1:9"}, identity=v),
    "OpenAICompatAdapter.from_env(timeout)": lambda v: OpenAICompatAdapter.from_env(
        {"LOOM_LLM_BASE_URL": "http://127.0.0.1:9"}, timeout=v),
    "OpenAICompatAdapter.stream(request)": lambda v: drain(adapter().stream(v, aborted())),
    "OpenAICompatAdapter.stream(ToolSpec(parameters) member)": lambda v: drain(adapter().stream(
        LlmRequest(model="m", messages=[USER], tools=[ToolSpec(name="f", parameters={"a": v})]),
        aborted())),
    "OpenAICompatAdapter.stream(signal)": lambda v: drain(adapter().stream(REQUEST, v)),
    # the conformance vector functions
    "VECTOR_FUNCTIONS": vectors,
}


def _after_bad_feed(value: Any) -> None:
    assembler = BlockAssembler()
    try_call(assembler.feed, ToolCallDelta(index=0, id="c", arguments_delta=value))
    for read in (assembler.blocks, assembler.message, assembler.result):
        try_call(read)


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_a_bad_argument_is_a_loom_error_with_a_code(entry: str) -> None:
    leaked = leaks(entry, ENTRY_POINTS[entry])
    assert not leaked, f"{entry} leaked internal exceptions:\n" + "\n".join(leaked)


def test_values_that_failed_later_are_refused_where_they_are_given() -> None:
    # spec: errors.invalid-argument -- each of these was accepted and failed later, inside a
    # stream or a socket call (a NaN or huge timeout, a non-str error message, a truthy
    # honor_signal, a non-str tool description), or was silently misread
    for timeout in (float("nan"), float("inf"), 1e10):
        with pytest.raises(InvalidArgument):
            adapter(timeout=timeout)
    assert adapter(timeout=1e9).request_headers()["Accept"] == "text/event-stream"
    with pytest.raises(InvalidArgument):
        Script(chunks=TEXT, raise_after=0, error_message=1)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument):
        Script(chunks=TEXT, honor_signal=1)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument):
        ScriptedAdapter(TEXT, honor_signal=None)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument):
        ToolSpec(name="f", description=None)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument):
        ToolSpec(name="f", parameters=[("type", "object")])  # type: ignore[arg-type]
    # the guards read the arguments at the call, before any chunk is asked for
    with pytest.raises(InvalidArgument):
        guard_stream(TEXT, None)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument):
        ScriptedAdapter(TEXT).stream(REQUEST, None)  # type: ignore[arg-type]
    # a source that cannot be iterated is still the adapter's failure, not the caller's
    out = drain(guard_stream(None, Signal()))  # type: ignore[arg-type]
    assert len(out) == 1 and isinstance(out[0], FinishChunk) and out[0].reason.failed


def test_an_index_past_the_float_range_is_still_an_index() -> None:
    # a JSON integer of 400 digits is a non-negative integer (stream.index-non-negative-integer):
    # the checker and the assembler raised OverflowError keying their blocks by float(index)
    big = 10**400
    chunks: list[StreamChunk] = [
        BlockStart(index=big, block_type=BlockType.TEXT), TextDelta(index=big, text="a"),
        BlockEnd(index=big, block=TextBlock(text="a")), TextDelta(index=big, text="b"), STOP]
    assert [v.to_json() for v in check(chunks)] == [
        {"rule": "stream.delta-targets-open-block", "index": 3}]
    assert assemble(chunks).message.content == (TextBlock(text="a"),)


@pytest.mark.parametrize("value", [True, False, -1, 1.0, "1"])
def test_a_script_refuses_a_raise_after_that_is_no_count(value: object) -> None:
    # Script.raise_after is a non-negative int or None (a bool is no count); 0 and 3 are taken
    with pytest.raises(InvalidArgument) as caught:
        Script(chunks=TEXT, raise_after=value)  # type: ignore[arg-type]
    assert caught.value.code == "argument.invalid"
    assert Script(chunks=TEXT, raise_after=0).raise_after == 0
    assert Script(chunks=TEXT, raise_after=3).raise_after == 3


@pytest.mark.parametrize("value", [5, b"f", ["f"]])
def test_a_tool_call_delta_refuses_a_name_that_is_no_str(value: object) -> None:
    with pytest.raises(InvalidArgument) as caught:
        ToolCallDelta(index=0, id="c", name=value, arguments_delta="")  # type: ignore[arg-type]
    assert caught.value.code == "argument.invalid"
    assert ToolCallDelta(index=0, id="c", name="f", arguments_delta="").name == "f"
    assert ToolCallDelta(index=0, id="c", arguments_delta="").name is None
