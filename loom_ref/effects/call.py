"""What one effect call is: the record the kernel (durable path) or a decide scope
(transient path) hands to an effect host.

Spec: ``spec/effects.md``. ADR 0119 decision 2: "The call otherwise takes the identical
path ... so governance is the same by construction: there is no second code path to keep in
step." One record type for both modes is how loom_ref makes that true: the host receives the
same :class:`EffectCall` whichever door the call came through, and only ``mode`` differs.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any

import attrs

from loom_ref.signals import Signal

__all__ = ["DeltaSink", "EffectCall", "Mode"]

#: A per-call delta sink (ADR 0119 decision 1: ``onDelta: DeltaSink = (chunk: EffectDelta)
#: => void``); the record is :class:`loom_ref.effects.deltas.EffectDelta`. Typed loosely so
#: this module does not import the channel; a sink is synchronous and fire-and-forget.
DeltaSink = Callable[[Any], None]


class Mode(enum.Enum):
    """Which door a call came through. An effect declares the modes it allows."""

    DURABLE = "durable"  #: ``ctx.execute``: journaled by the kernel.
    TRANSIENT = "transient"  #: ``invoke_transient``: never journaled; ``emit`` is a no-op.


@attrs.frozen(kw_only=True)
class EffectCall:
    """One call to the effect registered as ``tool_id``.

    ``principal`` is who the call runs as: for a decider's scope it is the deciding
    execution (the seeds' L30: "ctx.decide's scope runs AS the deciding execution").
    ``step_id`` and ``idempotency_key`` are set on the durable path only.
    """

    tool_id: str
    input: Any
    mode: Mode
    principal: str
    execution_id: str | None = None
    step_id: str | None = None
    idempotency_key: str | None = None
    signal: Signal | None = None
    on_delta: DeltaSink | None = None
    #: Durable path only: where ``ctx.emit(event)`` delivers the effect's events, so the
    #: kernel can journal them with the step (``effects.emit``). Ignored on the transient
    #: path, whose ``emit`` is a no-op.
    on_emit: Callable[[Any], None] | None = None
