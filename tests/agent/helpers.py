"""Shared pieces of the agent-loop tests: a turn-scripted adapter, a counting governed effect
host and message builders.

The adapter picks its reply by the number of assistant messages in the request (the turn
index as the transcript tells it), so a FRESH instance after a crash answers a recovered turn
exactly as the crashed process would have -- what the crash matrix needs.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import attrs

from loom_ref.agent import AgentLoopConfig, agent_loop, create_agent_model_effect
from loom_ref.effects import Effect, EffectContext, EffectRuntime, ExecuteFn
from loom_ref.journal import Crash, FaultInjectingStore, MemoryStore
from loom_ref.kernel import ExecutionContext, Runtime, Workflow
from loom_ref.signals import Signal
from loom_ref.stream import (
    BlockEnd,
    BlockStart,
    BlockType,
    FinishChunk,
    FinishReason,
    LlmAdapter,
    LlmRequest,
    StreamChunk,
    TextBlock,
    TextDelta,
    TokenUsage,
    ToolCallBlock,
    ToolCallDelta,
    ToolResultBlock,
    UsageChunk,
)


def reply(text: str = "", calls: Sequence[tuple[str, dict[str, Any] | str]] = (),
          *, finish: FinishReason | None = None, usage: bool = True) -> list[StreamChunk]:
    """Chunks of one assistant reply: optional text (streamed in 2 deltas), then tool calls."""
    chunks: list[StreamChunk] = []
    index = 0
    if text:
        half = len(text) // 2
        chunks += [BlockStart(index=0, block_type=BlockType.TEXT),
                   TextDelta(index=0, text=text[:half]), TextDelta(index=0, text=text[half:]),
                   BlockEnd(index=0, block=TextBlock(text=text))]
        index = 1
    for n, (name, args) in enumerate(calls):
        raw = args if isinstance(args, str) else json.dumps(args)
        call_id = f"call_{n}"
        chunks += [BlockStart(index=index, block_type=BlockType.TOOL_CALL),
                   ToolCallDelta(index=index, id=call_id, name=name, arguments_delta=raw),
                   BlockEnd(index=index, block=ToolCallBlock(id=call_id, name=name,
                                                              arguments=raw))]
        index += 1
    if usage:
        chunks.append(UsageChunk(usage=TokenUsage(input_tokens=10, output_tokens=5)))
    if finish is None:
        finish = FinishReason.tool_calls() if calls else FinishReason.stop()
    chunks.append(FinishChunk(reason=finish))
    return chunks


def _retag(chunk: StreamChunk, turn: int) -> StreamChunk:
    if isinstance(chunk, ToolCallDelta):
        return attrs.evolve(chunk, id=f"t{turn}_{chunk.id}")
    if isinstance(chunk, BlockEnd) and isinstance(chunk.block, ToolCallBlock):
        return attrs.evolve(chunk, block=attrs.evolve(chunk.block, id=f"t{turn}_{chunk.block.id}"))
    return chunk


class TurnScripted(LlmAdapter):
    """Replies ``scripts[k]`` for turn k. Tool call ids are tagged ``t<k>_call_<n>``; the turn
    is one past the newest tag in the request (0 without one), so it survives compaction."""

    def __init__(self, scripts: Sequence[Sequence[StreamChunk]]) -> None:
        self.scripts = [[_retag(c, k) for c in s] for k, s in enumerate(scripts)]
        self.requests: list[LlmRequest] = []

    def stream(self, request: LlmRequest, signal: Signal) -> Iterator[StreamChunk]:
        self.requests.append(request)
        tags = [b.id if isinstance(b, ToolCallBlock) else b.call_id
                for m in request.messages for b in m.content
                if isinstance(b, ToolCallBlock | ToolResultBlock)]
        turns = [int(t.split("_")[0][1:]) for t in tags if t.startswith("t")]
        turn = max(turns) + 1 if turns else 0
        return iter(self.scripts[min(turn, len(self.scripts) - 1)])


def _on_input(fn: Callable[[Any], Any]) -> ExecuteFn:
    return lambda ctx, input: fn(input)


class Host:
    """Fresh effect instances on the governed runtime (``host.effects``, the normal host of a
    model call, ADR 0087 D3), each effect call recorded as ``(tool_id, step_id)``; tools echo
    their input under ``"echo"``. ``summarize`` is an ``execute(ctx, input)`` or an Effect."""

    def __init__(self, scripts: Sequence[Sequence[StreamChunk]], *,
                 tools: dict[str, Callable[[Any], Any]] | None = None,
                 idempotent: Sequence[str] = ("llm", "lookup", "summarize"),
                 summarize: ExecuteFn | Effect | None = None) -> None:
        self.calls: list[tuple[str, str | None]] = []
        self.inputs: dict[str | None, Any] = {}
        self.adapter = TurnScripted(scripts)
        self.effects = EffectRuntime()
        model = create_agent_model_effect(self.adapter, tool_id="llm", model="test-model")
        self._add("llm", model, idempotent)
        default_tools: dict[str, Callable[[Any], Any]] = {
            "lookup": lambda args: {"echo": args, "price": 10},
            "write": lambda args: {"written": args},
        }
        for name, fn in {**default_tools, **(tools or {})}.items():
            self._add(name, _on_input(fn), idempotent)
        self._add("summarize", summarize or (lambda ctx, input: {
            "summary": f"{len(input['messages'])} messages folded"}), idempotent)

    def _add(self, tool_id: str, fn: ExecuteFn | Effect, idempotent: Sequence[str]) -> None:
        effect = fn if isinstance(fn, Effect) else Effect(tool_id=tool_id, execute=fn)
        inner = effect.execute

        def recorded(ctx: EffectContext, input: Any) -> Any:
            self.calls.append((ctx.tool_id, ctx.call.step_id))
            self.inputs[ctx.call.step_id] = input
            return inner(ctx, input)

        self.effects.register(attrs.evolve(effect, tool_id=tool_id, execute=recorded,
                                           idempotent=tool_id in idempotent))

    def steps(self, tool_id: str | None = None) -> list[str | None]:
        return [s for t, s in self.calls if tool_id is None or t == tool_id]


def loop_workflow(config: AgentLoopConfig, *, name: str = "agent",
                  resume_schemas: dict[str, Any] | None = None) -> Workflow:
    def body(ctx: ExecutionContext, input: Any) -> Any:
        answer = yield from agent_loop(ctx, config, input)
        return answer

    return Workflow(name=name, body=body, resume_schemas=resume_schemas or {})


def runtime(store: Any, host: Host, workflow: Workflow,
            warnings: list[str] | None = None) -> Runtime:
    sink = warnings if warnings is not None else []
    return Runtime(store=store, effects=host.effects, workflows=[workflow],
                   on_warn=sink.append)


def journal(store: MemoryStore, execution_id: str = "a1") -> list[dict[str, Any]]:
    return [e.to_json() for e in store.read(execution_id).events]


def started(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e["payload"] for e in events if e["kind"] == "STEP_STARTED"]


def crash_then(k: int, make: Callable[[], tuple[Host, Workflow]], run: Callable[[Runtime], Any]
               ) -> MemoryStore:
    """Run on a store that crashes after append ``k``; return what the store holds."""
    store = MemoryStore()
    host, wf = make()
    try:
        run(runtime(FaultInjectingStore(store, crash_after=k), host, wf))
    except Crash:
        pass
    return store
