"""The model call of one turn, as an effect: a thin wrapper over ``create_llm_effect``.

Spec: ``spec/agent.md`` § The model effect; ADR 0087 D3: *"The model call resolves through the
EffectRuntime, by modelToolId"*; ADR 0119 #4: *"createAgentModelEffect is a thin wrapper over
createLlmEffect and needs no change"*. So the agent's model call and any other governed LLM
call share ONE implementation (``loom_ref.effects.llm_effect``): request parsing, the taint
fence, streaming through ``collect_stream``, the delta channel and the end-of-stream chunk.

- ``agent.effect-forms``: the result is an :class:`~loom_ref.effects.effect.Effect`,
  registered under its ``tool_id`` (the config's ``model_tool_id``) with the governed
  ``EffectRuntime`` (``EffectRuntime([effect])``), the host a model call is meant for, or with
  the plain registry, where its deltas reach the sinks unguarded.
- ``agent.model-input``: the input is the LLM effect's (``deltas.llm-input``); the loop sends
  ``{"messages", "tools", "system"}``. ``max_tokens`` / ``temperature`` given here fill
  ``maxTokens`` / ``temperature`` when the input does not set them (the only code of its
  own this module adds). The taint fence (``guard_request``) is the LLM effect's, first.
- ``agent.model-output``: the assembled assistant message in the wire form; a failed finish
  raises ``effect.llm-error`` / ``effect.llm-aborted`` (``deltas.collect-finish``), which the
  LOOP turns into its turn error (``agent.turn-error``, in ``loom_ref.agent.loop``).
- ``agent.model-deltas``: ``on_delta`` is the effect's configured sink (``Effect.delta_sink``,
  receiving :class:`~loom_ref.effects.deltas.EffectDelta` chunks), so the runtime owns its
  delivery (ADR 0119 #12); ``on_reset(attempt)`` is ``create_llm_effect``'s.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from loom_ref.effects.call import DeltaSink
from loom_ref.effects.effect import Effect
from loom_ref.effects.llm_effect import create_llm_effect
from loom_ref.errors import InvalidArgument
from loom_ref.stream.adapter import LlmAdapter

if TYPE_CHECKING:
    from loom_ref.effects.context import EffectContext

__all__ = ["create_agent_model_effect"]


def _check_number(name: str, value: object, kind: type | tuple[type, ...]) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, kind)):
        raise InvalidArgument(f"{name} must be a number or None, got {value!r}")


def create_agent_model_effect(
    adapter: LlmAdapter,
    *,
    tool_id: str,
    model: str,
    on_delta: DeltaSink | None = None,
    on_reset: Callable[[int], object] | None = None,
    max_tokens: int | None = None,
    temperature: float | None = None,
    idempotent: bool = False,
) -> Effect:
    """The ``model_tool_id`` effect over ``adapter``: ``create_llm_effect`` with the turn's
    request defaults (see the module rules) (spec: agent.model-input)."""
    if not isinstance(model, str) or not model:
        raise InvalidArgument("model must be a non-empty string")
    _check_number("max_tokens", max_tokens, int)
    _check_number("temperature", temperature, (int, float))
    effect = create_llm_effect(adapter, tool_id=tool_id, model=model, on_delta=on_delta,
                               on_reset=on_reset, idempotent=idempotent)
    defaults = {k: v for k, v in (("maxTokens", max_tokens), ("temperature", temperature))
                if v is not None}
    if not defaults:
        return effect
    inner = effect.execute

    def execute(ctx: EffectContext, input: Any) -> Any:
        if isinstance(input, Mapping):  # spec: agent.model-input -- the input's own win;
            # a null one is not set (deltas.llm-input: "may be absent or null")
            input = {**input, **{k: v for k, v in defaults.items() if input.get(k) is None}}
        return inner(ctx, input)

    return attrs.evolve(effect, execute=execute)
