"""Real adapters over a loopback provider (127.0.0.1), through the governed runtime's guarded
delta channel, into the durable agent loop.

- An Anthropic conversation with thinking, text and a tool call streams through the channel
  (a safety middleware's delta guard in front of the sinks) into ``agent_loop``: the tool
  runs on the parsed arguments, the sink sees the text only, the journal holds the turns.
- A delta that completes a PII match is severed before any sink sees it.
- A length-truncated tool call, through either adapter, never reaches a tool effect
  (``agent.max-tokens-turn``, ``stream.assembler.max-tokens-drops-tool-calls``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from loom_ref.agent import MAX_TOKENS_NOTICE, AgentLoopConfig, AgentTool, create_agent_model_effect
from loom_ref.effects import Effect, EffectDelta, EffectRuntime, safety_middleware
from loom_ref.governance import pii_validator, unwrap_tainted
from loom_ref.journal import MemoryStore, Status
from loom_ref.kernel import Runtime
from loom_ref.stream import APP_IDENTITY, AnthropicAdapter, LlmAdapter, OpenAICompatAdapter

from ..loopback import Loopback, Response, pieces
from ..stream.gen_anthropic import END, block, delta, message_delta, start, stop, text_block
from .helpers import journal, loop_workflow

KEY = "sk-ant-test"
ANTHROPIC_HEADERS = {"user-agent": APP_IDENTITY.user_agent, "x-api-key": KEY,
                     "anthropic-version": "2023-06-01", "content-type": "application/json"}
THOUGHT = "The user wants a price; the lookup tool has it."
LOOKUP = AgentTool(name="lookup", description="Look up a price", parameters={
    "type": "object", "properties": {"item": {"type": "string"}}})


def tool_turn(arguments: list[str], stop_reason: str = "tool_use") -> str:
    """An Anthropic turn: thinking (with its signature), text, then a lookup call."""
    return (start({"input_tokens": 120, "output_tokens": 2})
            + block(0, {"type": "thinking", "thinking": ""})
            + delta(0, "thinking_delta", thinking=THOUGHT[:20])
            + delta(0, "thinking_delta", thinking=THOUGHT[20:])
            + delta(0, "signature_delta", signature="EqQBCgIYAhIM") + stop(0)
            + text_block(1, "Let me ", "look that up.")
            + block(2, {"type": "tool_use", "id": "toolu_01", "name": "lookup", "input": {}})
            + delta(2, "input_json_delta", partial_json="")
            + "".join(delta(2, "input_json_delta", partial_json=a) for a in arguments)
            + stop(2) + message_delta(stop_reason, {"output_tokens": 61}) + END)


def answer_turn(*texts: str) -> str:
    return (start({"input_tokens": 200, "output_tokens": 1, "cache_read_input_tokens": 120})
            + text_block(0, *texts) + message_delta("end_turn", {"output_tokens": 8}) + END)


class Seen:
    """The model effect's configured sink (``on_delta``): what the guarded channel delivered."""

    def __init__(self) -> None:
        self.chunks: list[EffectDelta] = []

    def __call__(self, chunk: EffectDelta) -> None:
        self.chunks.append(chunk)

    @property
    def text(self) -> str:
        return "".join(unwrap_tainted(c.delta) for c in self.chunks)


def loop_runtime(adapter: LlmAdapter, seen: Seen, calls: list[Any]
                 ) -> tuple[Runtime, MemoryStore]:
    model = create_agent_model_effect(adapter, tool_id="llm", model="claude-x",
                                      on_delta=seen, idempotent=True)

    def lookup(ctx: Any, args: Any) -> Any:
        calls.append(args)
        return {"price": 10}

    effects = EffectRuntime([model, Effect(tool_id="lookup", execute=lookup)],
                            middleware=[safety_middleware([pii_validator()])])
    config = AgentLoopConfig(model_tool_id="llm", system="Be brief.", tools=[LOOKUP])
    store = MemoryStore()
    return Runtime(store=store, effects=effects, workflows=[loop_workflow(config)]), store


def test_an_anthropic_conversation_streams_through_the_guarded_channel_into_the_loop() -> None:
    turns = [Response(pieces(tool_turn(['{"item":', ' "tea"}']), 5)),
             Response(pieces(answer_turn("Tea costs ", "10."), 3))]
    seen, calls = Seen(), []
    with Loopback(turns, require=ANTHROPIC_HEADERS) as server:
        runtime, store = loop_runtime(AnthropicAdapter(api_key=KEY, base_url=server.base_url),
                                      seen, calls)
        result = runtime.start("agent", "What does tea cost?", execution_id="a1")
    assert result.status is Status.COMPLETED
    assert result.output["text"] == "Tea costs 10." and result.output["turns"] == 2
    assert calls == [{"item": "tea"}]  # the raw JSON fragments, parsed once by the loop
    # the channel delivered the text deltas of both turns, never the thinking
    assert seen.text == "Let me look that up.Tea costs 10."
    assert THOUGHT[:10] not in seen.text
    events = journal(store)
    turn0 = next(e["payload"]["output"] for e in events if e["kind"] == "STEP_COMPLETED"
                 and e["payload"]["stepId"] == "#turn:0")
    assert turn0 == {"role": "assistant", "content": [
        {"type": "reasoning", "text": THOUGHT}, {"type": "text", "text": "Let me look that up."},
        {"type": "tool-call", "id": "toolu_01", "name": "lookup", "arguments": '{"item": "tea"}'}]}
    first, second = server.requests
    assert first.body["system"] == "Be brief."
    assert first.body["tools"] == [{"name": "lookup", "description": "Look up a price",
                                    "input_schema": dict(LOOKUP.parameters)}]
    assert second.body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "What does tea cost?"}]},
        {"role": "assistant", "content": [  # the thinking is not sent back
            {"type": "text", "text": "Let me look that up."},
            {"type": "tool_use", "id": "toolu_01", "name": "lookup", "input": {"item": "tea"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01",
                                      "content": '{"tool":"lookup","result":{"price":10}}'}]}]


def test_a_pii_delta_is_severed_before_any_sink_sees_it() -> None:
    # ADR 0119 #10: the delta guard checks the running text and severs BEFORE the delta that
    # completes a match is delivered ("text before a match completes is delivered")
    turns = [Response(pieces(answer_turn("Write to ", "bob@example", ".com for prices."), 4))]
    seen, calls = Seen(), []
    with Loopback(turns, require=ANTHROPIC_HEADERS) as server:
        runtime, _ = loop_runtime(AnthropicAdapter(api_key=KEY, base_url=server.base_url),
                                  seen, calls)
        result = runtime.start("agent", "Who sells tea?", execution_id="a2")
    assert result.status is Status.FAILED
    assert result.error is not None and result.error["code"] == "governance.delta-severed"
    assert seen.text == "Write to bob@example"  # the delta completing the address: severed


def openai_turn(arguments: str, finish: str) -> str:
    chunks = [{"choices": [{"index": 0, "delta": {"content": "Saving."}}]},
              {"choices": [{"index": 0, "delta": {"tool_calls": [{
                  "index": 0, "id": "call_1",
                  "function": {"name": "lookup", "arguments": arguments}}]}}]},
              {"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
              {"choices": [], "usage": {"prompt_tokens": 20, "completion_tokens": 64}}]
    return "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"


def openai_answer(text: str) -> str:
    return (f"data: {json.dumps({'choices': [{'index': 0, 'delta': {'content': text}}]})}\n\n"
            f"data: {json.dumps({'choices': [{'index': 0, 'delta': {}, 'finish_reason': 'stop'}]})}"
            "\n\ndata: [DONE]\n\n")


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_length_truncated_tool_call_never_reaches_a_tool_effect(provider: str) -> None:
    # spec: agent.max-tokens-turn -- the provider closes the cut call: a block-end proves nothing
    cut = '{"item": "te'
    if provider == "openai":
        turns = [Response(pieces(openai_turn(cut, "length"), 6)),
                 Response(pieces(openai_answer("Tea costs 10."), 6))]
    else:
        turns = [Response(pieces(tool_turn([cut], "max_tokens"), 6)),
                 Response(pieces(answer_turn("Tea costs 10."), 6))]
    seen, calls = Seen(), []
    with Loopback(turns) as server:
        adapter: LlmAdapter = (OpenAICompatAdapter(base_url=server.base_url + "/v1")
                               if provider == "openai"
                               else AnthropicAdapter(api_key=KEY, base_url=server.base_url))
        runtime, store = loop_runtime(adapter, seen, calls)
        result = runtime.start("agent", "What does tea cost?", execution_id="t1")
    assert result.status is Status.COMPLETED and result.output["text"] == "Tea costs 10."
    assert calls == []  # the truncated call never ran
    events = journal(store, "t1")
    assert [e["payload"]["stepId"] for e in events if e["kind"] == "STEP_STARTED"] == [
        "#turn:0", "#turn:1"]
    turn0 = next(e["payload"]["output"] for e in events if e["kind"] == "STEP_COMPLETED"
                 and e["payload"]["stepId"] == "#turn:0")
    assert turn0["finish"] == {"kind": "max-tokens"}
    assert all(b["type"] != "tool-call" for b in turn0["content"])
    # what the model saw next: the reply without its call, then the notice
    sent = server.requests[1].body["messages"]
    if provider == "openai":
        assert sent == [{"role": "system", "content": "Be brief."},
                        {"role": "user", "content": "What does tea cost?"},
                        {"role": "assistant", "content": "Saving."},
                        {"role": "user", "content": MAX_TOKENS_NOTICE}]
    else:
        assert sent == [
            {"role": "user", "content": [{"type": "text", "text": "What does tea cost?"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "Let me look that up."}]},
            {"role": "user", "content": [{"type": "text", "text": MAX_TOKENS_NOTICE}]}]
