"""The demo's refund agent: a scripted model, two tools, an approval gate, a guarded stream.

Everything here is deterministic and offline, so a teacher can crash it anywhere and show
what recovery serves from the journal and what it runs again:

- the **model** is a pure function of the transcript it is sent (which tool results it
  already holds), so a fresh process after a crash answers exactly as the first would have;
- ``lookup_order`` is idempotent (a read); ``refund`` is not, and needs a human's approval:
  the loop parks on a gate *before* the refund runs (ADR 0087 D4);
- before the loop, a **triage** decision streams a note for the support desk from a decider's
  governed call (ADR 0119's subject): ``scope.invoke_transient("triage", ..., on_delta=desk)``
  feeds the desk's ticket view (the per-call sink) and the operations log (the triage
  effect's configured sink). The triage model's connection drops on a call's first attempt;
  the retry middleware re-enters the effect and the runtime sends both sinks a reset first
  (#11). The decision records only the note: a recovery serves it and streams nothing (#5);
- the final answer is streamed through the runtime's guarded delta channel with a PII
  validator (ADR 0119 #10, #12); ``leak=True`` makes the model try to print a card number, and
  the guard severs the stream before that delta reaches the screen; ``redact=True`` adds a
  redaction middleware with no delta form, so the runtime refuses to stream at all
  (fail-closed, #10, #12).

Effects count their invocations in a :class:`World`, which outlives simulated processes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Generator, Iterator
from typing import Any

import attrs

from loom_ref.agent import APPROVAL_RESUME_SCHEMA, AgentLoopConfig, AgentTool, agent_loop
from loom_ref.effects import (
    DecideScope,
    DeltaRecorder,
    DeltaSink,
    Effect,
    EffectContext,
    EffectDelta,
    EffectRuntime,
    LlmStreamFailed,
    RetryMiddleware,
    create_llm_effect,
    pattern_redactor,
    redaction_middleware,
    safety_middleware,
)
from loom_ref.governance import pii_validator, unwrap_tainted
from loom_ref.kernel import ExecutionContext, Workflow
from loom_ref.signals import Signal
from loom_ref.stream import (
    BlockEnd,
    BlockStart,
    BlockType,
    FinishChunk,
    FinishReason,
    LlmAdapter,
    LlmRequest,
    TextBlock,
    TextDelta,
    TokenUsage,
    ToolCallBlock,
    ToolCallDelta,
    ToolResultBlock,
    UsageChunk,
)
from loom_ref.stream.chunks import StreamChunk

__all__ = ["NOTE", "ORDER", "PLAIN", "WORKFLOW", "Options", "RefundModel", "TriageModel",
           "World", "build_host", "build_workflow"]

WORKFLOW = "demo-refund"
ORDER = "A-42"
ANSWER = "Refunded 30.00 EUR for order A-42. The customer will see it within five days."
LEAK = "Refunded 30.00 EUR to card 4111 1111 1111 1111 for order A-42."
NOTE = "Order A-42 arrived broken; the customer wants a refund of 30.00 EUR."
#: How many words of the note the triage model's first attempt sends before its connection drops.
DROP_AFTER = 3


@attrs.frozen(kw_only=True)
class Options:
    """The demo's switches: the human declines (``deny``), the model tries to leak a card
    number (``leak``), the guard holds text back (``hold_back``, an extension), a redaction
    middleware without a delta form disables streaming (``redact``)."""

    deny: bool = False
    leak: bool = False
    hold_back: bool = False
    redact: bool = False

    def flags(self) -> list[str]:
        """The command-line flags that give these options."""
        return [f"--{name.replace('_', '-')}" for name in ("deny", "leak", "hold_back", "redact")
                if getattr(self, name)]


#: No switch given: the human approves, the model does not leak, nothing is held or redacted.
PLAIN = Options()


@attrs.define
class World:
    """What outlives a simulated process: how often each effect really ran, and the refunds
    the payment provider made (what an operator checks an in-doubt refund against)."""

    runs: dict[str, int] = attrs.field(factory=dict)
    refunds: dict[str, dict[str, Any]] = attrs.field(factory=dict)

    def ran(self, name: str) -> None:
        self.runs[name] = self.runs.get(name, 0) + 1


def _tool_results(request: LlmRequest) -> list[dict[str, Any]]:
    results = []
    for message in request.messages:
        for block in message.content:
            if isinstance(block, ToolResultBlock):
                results.append(json.loads(block.content))
    return results


def _words(text: str) -> list[str]:
    out, word = [], ""
    for ch in text:
        word += ch
        if ch == " ":
            out.append(word)
            word = ""
    return [*out, word] if word else out


class RefundModel(LlmAdapter):
    """A scripted model: look the order up, ask to refund it, then answer in words."""

    def __init__(self, world: World, *, leak: bool = False) -> None:
        self.world = world
        self.leak = leak

    def stream(self, request: LlmRequest, signal: Signal) -> Iterator[StreamChunk]:
        self.world.ran("model")
        results = _tool_results(request)
        usage = TokenUsage(input_tokens=40 * (len(results) + 1), output_tokens=12)
        if not results:
            yield from _tool_call("c1", "lookup_order", {"order": ORDER})
        elif len(results) == 1:
            yield from _tool_call("c2", "refund", {"order": ORDER, "amount": 30})
        else:
            refused = results[-1].get("result", {}).get("refused")
            text = ("I did not refund order A-42: the refund was declined." if refused
                    else LEAK if self.leak else ANSWER)
            yield BlockStart(index=0, block_type=BlockType.TEXT)
            for word in _words(text):
                yield TextDelta(index=0, text=word)
            yield BlockEnd(index=0, block=TextBlock(text=text))
            yield UsageChunk(usage=usage)
            yield FinishChunk(reason=FinishReason.stop())
            return
        yield UsageChunk(usage=usage)
        yield FinishChunk(reason=FinishReason.tool_calls())


class TriageModel(LlmAdapter):
    """A scripted triage model: it writes the desk's note word by word; on every odd call
    (a call's first attempt: a fresh process makes fresh effects) the connection drops after
    :data:`DROP_AFTER` words, a failed finish the retry middleware retries."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.calls = 0

    def stream(self, request: LlmRequest, signal: Signal) -> Iterator[StreamChunk]:
        self.world.ran("triage")
        self.calls += 1
        words = _words(NOTE)
        yield BlockStart(index=0, block_type=BlockType.TEXT)
        if self.calls % 2 == 1:
            for word in words[:DROP_AFTER]:
                yield TextDelta(index=0, text=word)
            yield FinishChunk(reason=FinishReason.error("the connection to the model dropped",
                                                        "connection-reset"))
            return
        for word in words:
            yield TextDelta(index=0, text=word)
        yield BlockEnd(index=0, block=TextBlock(text=NOTE))
        yield UsageChunk(usage=TokenUsage(input_tokens=24, output_tokens=17))
        yield FinishChunk(reason=FinishReason.stop())


def _tool_call(call_id: str, name: str, arguments: dict[str, Any]) -> Iterator[StreamChunk]:
    raw = json.dumps(arguments, separators=(",", ":"))
    yield BlockStart(index=0, block_type=BlockType.TOOL_CALL)
    yield ToolCallDelta(index=0, id=call_id, name=name, arguments_delta=raw)
    yield BlockEnd(index=0, block=ToolCallBlock(id=call_id, name=name, arguments=raw))


def build_host(world: World, *, on_text: Callable[[str], None],
               options: Options = PLAIN, on_log: DeltaSink | None = None,
               recorder: DeltaRecorder | None = None,
               on_warn: Callable[[str], None] | None = None) -> EffectRuntime:
    """The governed effect runtime: the model (streaming through a PII guard), the triage
    model (behind a retry), and the tools; ``recorder`` tapes every stream (an extension).

    ``on_text`` receives each delta of the answer the guard let through, unwrapped at this one
    audit point (ADR 0119 #9: "A UI tail unwraps explicitly ... the call site is the audit
    trail"); ``on_log`` is the triage effect's configured sink (the operations log).
    """

    def show(chunk: EffectDelta) -> None:
        if not chunk.reset:
            on_text(unwrap_tainted(chunk.delta))

    def lookup_order(ctx: EffectContext, args: Any) -> Any:
        world.ran("lookup_order")
        return {"order": args["order"], "total": 30, "status": "delivered"}

    def refund(ctx: EffectContext, args: Any) -> Any:
        world.ran("refund")
        made = {"refund": f"rf-{args['order']}", "amount": args["amount"]}
        world.refunds[args["order"]] = made
        return made

    model = create_llm_effect(RefundModel(world, leak=options.leak), tool_id="model",
                              model="scripted-refund", on_delta=show)
    triage = create_llm_effect(TriageModel(world), tool_id="triage", model="scripted-triage",
                               on_delta=on_log or (lambda chunk: None))
    middleware: list[Any] = [
        RetryMiddleware(2, retry_on=(LlmStreamFailed,), base_delay=0),
        safety_middleware([pii_validator()], hold_back=options.hold_back)]
    if options.redact:  # no delta form: the runtime refuses every stream (deltas.fail-closed)
        middleware.append(redaction_middleware(
            redact_output=pattern_redactor([pii_validator()])))
    return EffectRuntime(
        [model, triage, Effect(tool_id="lookup_order", execute=lookup_order, idempotent=True),
         Effect(tool_id="refund", execute=refund)],
        middleware=middleware, recorder=recorder, on_warn=on_warn,
    )


_CONFIG = AgentLoopConfig(
    model_tool_id="model",
    system="You are a careful refund assistant.",
    tools=(AgentTool(name="lookup_order", description="Read an order",
                     parameters={"type": "object"}),
           AgentTool(name="refund", description="Refund an order (needs approval)",
                     parameters={"type": "object"})),
    needs_approval=lambda call, turn: call.name == "refund",
    approval_resume_schema=APPROVAL_RESUME_SCHEMA,
    max_iterations=6,
)


def _triage(scope: DecideScope, request: Any, desk: DeltaSink | None) -> str:
    """The triage decider: a governed transient call streaming to the desk (ADR 0119 #1)."""
    message = scope.invoke_transient(
        "triage", {"messages": [{"role": "user", "content": [{"type": "text",
                                                               "text": request}]}]},
        on_delta=desk)
    return "".join(block["text"] for block in message["content"] if block["type"] == "text")


def build_workflow(desk: DeltaSink | None = None) -> Workflow:
    """The demo workflow (the same definition every simulated process uses); ``desk`` is the
    per-call sink of the triage decision (the support desk's ticket view)."""

    def body(ctx: ExecutionContext, request: Any) -> Generator[Any, Any, Any]:
        note = yield ctx.decide("triage", lambda scope: _triage(scope, request, desk))
        answer = yield from agent_loop(ctx, _CONFIG, request)
        return {"text": answer["text"], "turns": answer["turns"], "triage": note}

    return Workflow(name=WORKFLOW, body=body)
