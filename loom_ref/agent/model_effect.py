"""The model call of one turn, as an effect: an ``LlmAdapter`` streamed through the assembler.

Spec: ``spec/agent.md`` § The model effect; ADR 0087 D3: *"The model call resolves through the
EffectRuntime, by modelToolId"* -- so the most expensive and least reliable call an agent
makes takes the governed route (authorization, metering, retry, idempotency key, in-doubt).

- ``agent.model-input``: the effect's input is the turn's ``{"messages": [wire messages],
  "tools": [{"name", "description", "parameters"}], "system": str}``. A non-empty ``system``
  is sent as a leading system message. Malformed input is ``InvalidArgument``. Before the
  adapter is called the input passes ``guard_request`` (ADR 0087 D3: "guardRequest, which
  createLlmEffect runs unconditionally"): a tainted value anywhere in it is refused with
  ``governance.tainted-request`` and the adapter is never called.
- ``agent.model-output``: the effect streams the adapter through ``consume`` (both sanctioned
  error paths folded into one finish, ``stream.adapter.consumer-wrapper``) and the
  ``BlockAssembler``, and returns the assembled assistant message in the wire form.
- ``agent.turn-error``: *"The agent loop translates a finish-error/aborted into a turn error
  -- it never logs a normal completed assistant message for a failed step"* (seed 001). A
  ``finish error`` raises ``ModelTurnError`` with code ``agent.turn-error``, a ``finish
  aborted`` with ``agent.turn-aborted``; the message names the failure's own code. The kernel
  journals it as the step's ``STEP_FAILED``.
- ``agent.model-deltas``: each text delta is handed on as it arrives, as a ``str``. On the
  governed path with the runtime's delta channel installed (``ctx.on_delta``) it goes there
  only: the runtime owns delivery and forwards to the per-call and configured sinks (ADR
  0119 #12). Without a runtime channel the effect calls the per-call sink, then its
  configured ``on_delta`` (ADR 0119 #4: "Both sinks still fire, per-call first"). A sink's
  exception is not caught (ADR 0119: "an effect MUST NOT catch it around the call").
- Usage, when the stream reports it, is reported to the governed context
  (``ctx.report_usage``) as ``inputTokens``/``outputTokens`` etc.; it is not returned.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from loom_ref.agent.errors import ModelTurnError
from loom_ref.agent.invocation import MISSING, Invocation, unpack
from loom_ref.errors import InvalidArgument
from loom_ref.governance.taint import guard_request
from loom_ref.stream.adapter import LlmAdapter, LlmRequest, ToolSpec, consume
from loom_ref.stream.assembler import AssembledStream, BlockAssembler
from loom_ref.stream.blocks import Message, Role, TextBlock
from loom_ref.stream.chunks import TextDelta
from loom_ref.stream.errors import WireError
from loom_ref.stream.wire import message_from_json, message_to_json, usage_to_json

if TYPE_CHECKING:
    from loom_ref.effects.call import EffectCall
    from loom_ref.effects.context import EffectContext

__all__ = ["AgentModelEffect", "create_agent_model_effect", "request_from_input",
           "run_model_stream"]

TURN_ERROR = "agent.turn-error"
TURN_ABORTED = "agent.turn-aborted"


def _tool_spec(value: Any, where: str) -> ToolSpec:
    if not isinstance(value, Mapping) or not isinstance(value.get("name"), str):
        raise InvalidArgument(f"{where} must be {{name, description?, parameters?}}")
    description = value.get("description", "")
    parameters = value.get("parameters", {})
    if not isinstance(description, str) or not isinstance(parameters, Mapping):
        raise InvalidArgument(f"{where}: description must be a string, parameters an object")
    return ToolSpec(name=value["name"], description=description, parameters=parameters)


def request_from_input(model: str, payload: Any, *, max_tokens: int | None = None,
                       temperature: float | None = None) -> LlmRequest:
    """The ``LlmRequest`` for a turn's input (spec: agent.model-input)."""
    if not isinstance(payload, Mapping):
        raise InvalidArgument("the model input must be {messages, tools, system}")
    unknown = sorted(set(payload) - {"messages", "tools", "system"})
    if unknown:
        raise InvalidArgument(f"unknown model input field(s) {unknown}")
    messages = payload.get("messages")
    tools = payload.get("tools", [])
    system = payload.get("system", "")
    if not isinstance(messages, list) or not isinstance(tools, list) or not isinstance(
            system, str):
        raise InvalidArgument("messages and tools must be arrays, system a string")
    try:
        decoded = [message_from_json(m, f"$.messages[{i}]") for i, m in enumerate(messages)]
    except WireError as exc:
        raise InvalidArgument(f"malformed model input: {exc.message}",
                              code="argument.agent-model-input") from None
    if system:
        decoded.insert(0, Message(role=Role.SYSTEM, content=[TextBlock(text=system)]))
    specs = [_tool_spec(t, f"$.tools[{i}]") for i, t in enumerate(tools)]
    return LlmRequest(model=model, messages=decoded, tools=specs, max_tokens=max_tokens,
                      temperature=temperature)


def _sinks(inv: Invocation, configured: Callable[[str], object] | None
           ) -> list[Callable[[str], object]]:
    if inv.runtime_channel:  # ADR 0119 #12: the runtime owns delivery
        assert inv.on_delta is not None
        return [inv.on_delta]
    return [s for s in (inv.on_delta, configured) if s is not None]


def run_model_stream(adapter: LlmAdapter, request: LlmRequest, inv: Invocation,
                     on_delta: Callable[[str], object] | None = None) -> AssembledStream:
    """Stream ``request`` through the assembler, handing text deltas on; raise a turn error
    for a failed finish (spec: agent.turn-error). Shared with the summarizer."""
    sinks = _sinks(inv, on_delta)
    assembler = BlockAssembler()
    for chunk in consume(adapter, request, inv.signal):
        assembler.feed(chunk)
        if sinks and isinstance(chunk, TextDelta) and chunk.text:
            for sink in sinks:
                sink(chunk.text)
    result = assembler.result()
    failure = result.finish.failure
    if result.finish.failed and failure is not None:
        code = TURN_ABORTED if result.finish.kind.value == "aborted" else TURN_ERROR
        raise ModelTurnError(
            f"model call ended with finish {result.finish.kind.value}"
            + (f" ({failure.code})" if failure.code else "") + f": {failure.message}",
            code=code, failure={"code": failure.code, "message": failure.message})
    if inv.context is not None and result.usage is not None:
        inv.context.report_usage({k: v for k, v in usage_to_json(result.usage).items()
                                  if isinstance(v, int) and not isinstance(v, bool)})
    return result


class AgentModelEffect:
    """The model effect (see the module rules). Callable as ``fn(call)`` (kernel registry) or
    ``fn(ctx, input)`` (``Effect(execute=fn)`` on the governed runtime)."""

    def __init__(self, adapter: LlmAdapter, *, model: str,
                 on_delta: Callable[[str], object] | None = None,
                 max_tokens: int | None = None, temperature: float | None = None) -> None:
        if not isinstance(adapter, LlmAdapter):
            raise InvalidArgument(f"adapter must be an LlmAdapter, got {type(adapter).__name__}")
        if not isinstance(model, str) or not model:
            raise InvalidArgument("model must be a non-empty string")
        if on_delta is not None and not callable(on_delta):
            raise InvalidArgument("on_delta must be callable or None")
        self.adapter = adapter
        self.model = model
        self.on_delta = on_delta
        self.max_tokens = max_tokens
        self.temperature = temperature

    def __call__(self, target: EffectCall | EffectContext, input: Any = MISSING) -> Any:
        inv = unpack(target, input)
        guard_request(inv.input)  # spec: agent.model-input -- the taint fence, first
        request = request_from_input(self.model, inv.input, max_tokens=self.max_tokens,
                                     temperature=self.temperature)
        result = run_model_stream(self.adapter, request, inv, self.on_delta)
        return message_to_json(result.message)


def create_agent_model_effect(adapter: LlmAdapter, *, model: str,
                              on_delta: Callable[[str], object] | None = None,
                              max_tokens: int | None = None,
                              temperature: float | None = None) -> AgentModelEffect:
    """A ready ``model_tool_id`` effect over ``adapter`` (ADR 0087 D3)."""
    return AgentModelEffect(adapter, model=model, on_delta=on_delta, max_tokens=max_tokens,
                            temperature=temperature)
