"""One effect function, both hosts: the kernel's plain registry and the governed runtime.

Spec: ``spec/agent.md`` (``agent.effect-forms``). The kernel's
:class:`~loom_ref.kernel.seam.EffectRegistry` calls an effect as ``fn(call: EffectCall)``;
the governed :class:`~loom_ref.effects.runtime.EffectRuntime` calls ``Effect.execute(ctx:
EffectContext, input)``. Every effect this package builds (the model effect, the summarizer,
a claim-checked tool, the opaque ``agent_step``) accepts both, so it registers unchanged with
either host (``kernel.effect-seam``): ``registry.add(tool_id, fn)`` or ``Effect(tool_id=...,
execute=fn)``.

:func:`unpack` reads the call either way. The delta sink it reports is the runtime's guarded
channel (``ctx.on_delta``, ADR 0119 #12) on the governed path, and the call's per-call sink on
the plain path (where no runtime stands between the effect and the sink).
"""

from __future__ import annotations

from typing import Any

import attrs

from loom_ref.effects.call import DeltaSink, EffectCall
from loom_ref.effects.context import EffectContext
from loom_ref.errors import InvalidArgument
from loom_ref.signals import NEVER, Signal

__all__ = ["MISSING", "Invocation", "unpack"]

MISSING: Any = object()
"""Default of an effect function's second parameter: absent on the registry's call form."""


@attrs.frozen(kw_only=True)
class Invocation:
    """An effect call as either host delivered it. ``context`` is the governed context (None
    on the plain path); ``runtime_channel`` says whether ``on_delta`` is the runtime's."""

    tool_id: str
    input: Any
    principal: str
    signal: Signal
    on_delta: DeltaSink | None
    runtime_channel: bool
    context: EffectContext | None
    call: EffectCall


def unpack(target: EffectCall | EffectContext, input: Any = MISSING) -> Invocation:
    """Read ``fn(call)`` (plain registry) or ``fn(ctx, input)`` (governed runtime)."""
    if isinstance(target, EffectContext):
        if input is MISSING:
            raise InvalidArgument("an effect called with an EffectContext needs its input")
        return Invocation(tool_id=target.tool_id, input=input, principal=target.principal,
                          signal=target.signal, on_delta=target.on_delta,
                          runtime_channel=target.on_delta is not None, context=target,
                          call=target.call)
    if isinstance(target, EffectCall):
        if input is not MISSING:
            raise InvalidArgument("an effect called with an EffectCall takes no second argument")
        return Invocation(tool_id=target.tool_id, input=target.input, principal=target.principal,
                          signal=NEVER if target.signal is None else target.signal,
                          on_delta=target.on_delta, runtime_channel=False, context=None,
                          call=target)
    raise InvalidArgument(
        f"an effect is called with an EffectCall or (EffectContext, input), got "
        f"{type(target).__name__}")
