"""create_llm_effect: an ``LlmAdapter`` as a governed, streaming effect.

Spec: ``spec/deltas.md`` § The LLM effect. Rules enforced here:

- ``deltas.llm-input``: the effect's input is an ``LlmRequest`` or the JSON form ``{"messages":
  [wire messages], "system"?: str, "tools"?: [{name, description?, parameters?}], "model"?:
  str, "maxTokens"?: int, "temperature"?: number}`` (``model`` defaults to the one the effect
  was created with). Before anything else the input passes ``guard_request``: a prompt that
  holds a tainted value (a delta a sink fed back) is refused with
  ``governance.tainted-request`` and the adapter is never called (ADR 0119 #9).
- ``deltas.llm-output``: the effect streams ``consume(adapter, request, ctx.signal)`` (both
  sanctioned error paths folded into one finish) through :func:`collect_stream` and returns
  the assembled message in the stream package's wire form (``message_to_json``). A failed
  finish raises (``effect.llm-error`` / ``effect.llm-aborted``), never returns a message.
- ``deltas.llm-output-finish``: a reply cut at the output-token ceiling (finish
  ``max-tokens``) is returned with one more member, ``"finish": {"kind": "max-tokens"}``, so
  that whoever reads the journaled output knows it is incomplete and that its tool calls were
  removed (``stream.assembler.max-tokens-drops-tool-calls``); :func:`llm_output_from_json`
  reads the form back.
- ``deltas.llm-sinks``: ``on_delta`` (the seed's ``createLlmEffect({ onDelta })``) is the
  effect's configured sink, declared as ``Effect.delta_sink``, so the runtime owns its
  delivery (ADR 0119 #12; ``deltas.sink-names``). ``on_reset(attempt)``, when given, receives
  the reset chunks and ``on_delta`` then sees text chunks only; without ``on_reset``,
  ``on_delta`` sees both. Without a runtime (``ctx.on_delta`` is ``None``) the effect calls
  the per-call sink and then its configured sink directly (``deltas.no-runtime``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from loom_ref.effects.call import DeltaSink, Mode
from loom_ref.effects.collect import collect_stream
from loom_ref.effects.deltas import EffectDelta
from loom_ref.effects.effect import ALL_MODES, Effect
from loom_ref.errors import InvalidArgument
from loom_ref.governance.taint import guard_request
from loom_ref.stream.adapter import LlmAdapter, LlmRequest, ToolSpec, consume
from loom_ref.stream.assembler import AssembledStream
from loom_ref.stream.blocks import Message, Role, TextBlock
from loom_ref.stream.errors import WireError
from loom_ref.stream.finish import FinishKind, FinishReason
from loom_ref.stream.wire import (
    finish_reason_from_json,
    finish_reason_to_json,
    message_from_json,
    message_to_json,
)

if TYPE_CHECKING:
    from loom_ref.effects.context import EffectContext

__all__ = ["create_llm_effect", "llm_output_from_json", "llm_output_to_json", "llm_request"]

_FIELDS = frozenset({"messages", "system", "tools", "model", "maxTokens", "temperature"})


_TOOL_FIELDS = frozenset({"name", "description", "parameters"})


def _tool(value: object, where: str) -> ToolSpec:
    if not isinstance(value, Mapping) or not isinstance(value.get("name"), str) or (
            not set(value) <= _TOOL_FIELDS):
        raise InvalidArgument(f"{where} must be {{name, description?, parameters?}}")
    description = value.get("description", "")
    parameters = value.get("parameters", {})
    if not isinstance(description, str) or not isinstance(parameters, Mapping):
        raise InvalidArgument(f"{where}: description must be a string, parameters an object")
    return ToolSpec(name=value["name"], description=description, parameters=parameters)


def llm_request(input: object, *, model: str | None) -> LlmRequest:
    """The ``LlmRequest`` an LLM effect sends for ``input`` (spec: deltas.llm-input)."""
    if isinstance(input, LlmRequest):
        return input
    if not isinstance(input, Mapping):
        raise InvalidArgument("an LLM effect's input is an LlmRequest or {messages, ...}")
    unknown = sorted(set(input) - _FIELDS)
    if unknown:
        raise InvalidArgument(f"unknown LLM input field(s) {unknown}")
    messages = input.get("messages")
    system = input.get("system", "")
    tools = input.get("tools", [])
    chosen = input.get("model", model)
    if not isinstance(messages, list) or not isinstance(tools, list):
        raise InvalidArgument("messages and tools must be arrays")
    if not isinstance(system, str) or not isinstance(chosen, str) or not chosen:
        raise InvalidArgument("system must be a string and model a non-empty string")
    try:
        decoded = [message_from_json(m, f"$.messages[{i}]") for i, m in enumerate(messages)]
    except WireError as error:
        raise InvalidArgument(f"malformed LLM input: {error.message}") from None
    if system:
        decoded.insert(0, Message(role=Role.SYSTEM, content=[TextBlock(text=system)]))
    return LlmRequest(
        model=chosen,
        messages=decoded,
        tools=[_tool(t, f"$.tools[{i}]") for i, t in enumerate(tools)],
        max_tokens=input.get("maxTokens"),
        temperature=input.get("temperature"),
    )


def llm_output_to_json(result: AssembledStream) -> dict[str, Any]:
    """What an LLM effect returns for ``result`` (spec: deltas.llm-output,
    deltas.llm-output-finish): the message's wire form, with ``finish`` for ``max-tokens``."""
    out = message_to_json(result.message)
    if result.finish.kind is FinishKind.MAX_TOKENS:
        out["finish"] = finish_reason_to_json(result.finish)
    return out


def llm_output_from_json(value: object, path: str = "$") -> tuple[Message, FinishReason | None]:
    """Read an LLM effect's output back (spec: deltas.llm-output-finish): the message, and the
    ``finish`` member when there is one (``None`` otherwise). Malformed JSON raises the
    ``stream.wire.*`` :class:`WireError` of the message or the finish reason; a ``finish``
    member is read before the message's own members."""
    finish: FinishReason | None = None
    if isinstance(value, Mapping) and "finish" in value:
        finish = finish_reason_from_json(value["finish"], f"{path}.finish")
        value = {k: v for k, v in value.items() if k != "finish"}
    return message_from_json(value, path), finish


def _configured(
    on_delta: DeltaSink | None, on_reset: Callable[[int], object] | None
) -> DeltaSink | None:
    """The ``Effect.delta_sink`` for ``on_delta`` and ``on_reset`` (spec: deltas.llm-sinks)."""
    if on_reset is None:
        return on_delta

    def configured(chunk: EffectDelta) -> None:
        if chunk.reset:
            assert chunk.attempt is not None
            on_reset(chunk.attempt)
        elif on_delta is not None:
            on_delta(chunk)

    return configured


def create_llm_effect(
    adapter: LlmAdapter,
    *,
    tool_id: str,
    model: str | None = None,
    on_delta: DeltaSink | None = None,
    on_reset: Callable[[int], object] | None = None,
    modes: frozenset[Mode] = ALL_MODES,
    idempotent: bool = False,
) -> Effect:
    """An :class:`Effect` that streams ``adapter`` through the runtime's delta channel and
    returns the assembled message (spec: deltas.llm-input, deltas.llm-output,
    deltas.llm-sinks). ``on_delta`` is its configured sink (``Effect.delta_sink``)."""
    if not isinstance(adapter, LlmAdapter):
        raise InvalidArgument(f"adapter must be an LlmAdapter, got {type(adapter).__name__}")
    if model is not None and (not isinstance(model, str) or not model):
        raise InvalidArgument(f"model must be a non-empty string or None, got {model!r}")
    for name, value in (("on_delta", on_delta), ("on_reset", on_reset)):
        if value is not None and not callable(value):
            raise InvalidArgument(f"{name} must be callable or None")
    configured = _configured(on_delta, on_reset)

    def execute(ctx: EffectContext, input: Any) -> Any:
        guard_request(input)  # spec: deltas.llm-input -- the taint fence, before the adapter
        request = llm_request(input, model=model)
        chunks = consume(adapter, request, ctx.signal)
        result = collect_stream(chunks, ctx, configured=configured)
        return llm_output_to_json(result)  # spec: deltas.llm-output, deltas.llm-output-finish

    return Effect(
        tool_id=tool_id,
        execute=execute,
        modes=modes,
        idempotent=idempotent,
        delta_sink=configured,
    )
