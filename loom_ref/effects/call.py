"""What one effect call is: the record the kernel (durable path) or a decide scope
(transient path) hands to an effect host.

Spec: ``spec/effects.md``. ADR 0119 decision 2: "The call otherwise takes the identical
path ... so governance is the same by construction: there is no second code path to keep in
step." One record type for both modes is how loom_ref makes that true: the host receives the
same :class:`EffectCall` whichever door the call came through, and only ``mode`` differs
(spec: effects.host-seam). A per-call sink travels on the record as ``on_delta`` (spec:
deltas.per-call-sink); :data:`DeltaSink` is the type of every sink (spec: deltas.sink-names).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs

from loom_ref.enums import LoomEnum
from loom_ref.errors import InvalidArgument
from loom_ref.signals import Signal

if TYPE_CHECKING:
    from loom_ref.effects.deltas import EffectDelta

__all__ = ["DeltaSink", "EffectCall", "Mode", "is_text"]

#: A delta sink (ADR 0119 decision 1: ``onDelta: DeltaSink = (chunk: EffectDelta) => void``):
#: what a caller passes as ``on_delta`` (per call) and what an effect declares as
#: ``Effect.delta_sink`` (configured); it receives
#: :class:`~loom_ref.effects.deltas.EffectDelta` records, synchronously and fire-and-forget
#: (spec: deltas.sink-names).
DeltaSink = Callable[["EffectDelta"], object]


def is_text(value: str) -> bool:
    """Whether UTF-8 can carry ``value``: it holds no lone surrogate (an unpaired code point
    in U+D800-U+DFFF, which a JSON escape can spell but no Unicode text holds)."""
    if value.isascii():
        return True
    try:
        value.encode()
    except UnicodeEncodeError:
        return False
    return True


class Mode(LoomEnum):
    """Which door a call came through. An effect declares the modes it allows.
    (spec: effects.registration)
    """

    DURABLE = "durable"  #: ``ctx.execute``: journaled by the kernel.
    TRANSIENT = "transient"  #: ``invoke_transient``: never journaled; ``emit`` is a no-op.



@attrs.frozen(kw_only=True)
class EffectCall:
    """One call to the effect registered as ``tool_id``.

    ``principal`` is who the call runs as: for a decider's scope it is the deciding
    execution (the seeds' L30: "ctx.decide's scope runs AS the deciding execution").
    ``step_id`` and ``idempotency_key`` are set on the durable path only. The fields are
    checked when the record is built: a bad one is ``argument.invalid`` there, never an
    internal error further along the route (spec: errors.invalid-argument).
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

    def __attrs_post_init__(self) -> None:
        # spec: errors.invalid-argument -- a call is refused where it is built, not where a
        # field is first used on the route; one combined test, so a good call pays one branch
        # (the kernel and invoke_transient build a record per call: effects.lean-route)
        if not (
            isinstance(self.tool_id, str) and self.tool_id and type(self.mode) is Mode
            and isinstance(self.principal, str) and self.principal
            and (self.execution_id is None or isinstance(self.execution_id, str))
            and (self.step_id is None or isinstance(self.step_id, str))
            and (self.idempotency_key is None or (
                isinstance(self.idempotency_key, str) and is_text(self.idempotency_key)))
            and (self.signal is None or isinstance(self.signal, Signal))
            and (self.on_delta is None or callable(self.on_delta))
            and (self.on_emit is None or callable(self.on_emit))
        ):
            raise InvalidArgument(_problem(self))


def _problem(call: EffectCall) -> str:
    """What is wrong with ``call`` (see ``EffectCall.__attrs_post_init__``)."""
    for name in ("tool_id", "principal"):
        value = getattr(call, name)
        if not isinstance(value, str) or not value:
            return f"{name} must be a non-empty string, got {value!r}"
    if type(call.mode) is not Mode:
        return f"mode must be a Mode, got {call.mode!r}"
    for name in ("execution_id", "step_id", "idempotency_key"):
        value = getattr(call, name)
        if value is not None and not isinstance(value, str):
            return f"{name} must be a string or None, got {value!r}"
    if call.idempotency_key is not None and not is_text(call.idempotency_key):
        # spec: effects.retry-backoff -- the key is hashed as UTF-8 (and journaled)
        return f"idempotency_key must be text UTF-8 can carry, got {call.idempotency_key!r}"
    if call.signal is not None and not isinstance(call.signal, Signal):
        return f"signal must be a Signal or None, got {call.signal!r}"
    name = "on_delta" if call.on_delta is not None and not callable(call.on_delta) else "on_emit"
    return f"{name} must be callable or None"
