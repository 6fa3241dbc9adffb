"""One effect function, both hosts: the kernel's plain registry and the governed runtime.

Spec: ``spec/agent.md`` (``agent.effect-forms``). The kernel's
:class:`~loom_ref.kernel.seam.EffectRegistry` calls an effect as ``fn(call: EffectCall)``;
the governed :class:`~loom_ref.effects.runtime.EffectRuntime` calls ``Effect.execute(ctx:
EffectContext, input)``. The two callables this package builds that are not LLM calls -- the
opaque ``agent_step`` effect and a claim-checked plain function
(:meth:`~loom_ref.agent.claim_check.ClaimCheckMiddleware.wrap`) -- accept both, so they
register unchanged with either host (``kernel.effect-seam``). The model effect and the
summarizer are :class:`~loom_ref.effects.effect.Effect` records (they stream through the
runtime's delta channel) and have no plain form.

:func:`unpack` reads the call either way: the input, who it runs as, its signal and the
:class:`EffectCall` itself.
"""

from __future__ import annotations

from typing import Any

import attrs

from loom_ref.effects.call import EffectCall
from loom_ref.effects.context import EffectContext
from loom_ref.errors import InvalidArgument
from loom_ref.signals import NEVER, Signal

__all__ = ["MISSING", "Invocation", "unpack"]

MISSING: Any = object()
"""Default of an effect function's second parameter: absent on the registry's call form."""


@attrs.frozen(kw_only=True)
class Invocation:
    """An effect call as either host delivered it."""

    input: Any
    principal: str
    signal: Signal
    call: EffectCall


def unpack(target: EffectCall | EffectContext, input: Any = MISSING) -> Invocation:
    """Read ``fn(call)`` (plain registry) or ``fn(ctx, input)`` (governed runtime)."""
    if isinstance(target, EffectContext):
        if input is MISSING:
            raise InvalidArgument("an effect called with an EffectContext needs its input")
        return Invocation(input=input, principal=target.principal, signal=target.signal,
                          call=target.call)
    if isinstance(target, EffectCall):
        if input is not MISSING:
            raise InvalidArgument("an effect called with an EffectCall takes no second argument")
        return Invocation(input=target.input, principal=target.principal,
                          signal=NEVER if target.signal is None else target.signal,
                          call=target)
    raise InvalidArgument(
        f"an effect is called with an EffectCall or (EffectContext, input), got "
        f"{type(target).__name__}")
