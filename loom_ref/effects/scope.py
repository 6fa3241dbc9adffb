"""DecideScope: the handle a decider receives, over any effect host.

Spec: ``spec/effects.md``. Rules enforced here:

- ``effects.scope-principal``: the scope runs AS the deciding execution (the seeds' L30), so
  every call it forwards has ``principal`` = the deciding execution's id.
- ``effects.signal-compose``: the call's signal is ``any_of(execution cancel, the caller's
  signal, the scope's lifetime)`` (ADR 0119 decision 8); the composite is detached from its
  inputs once the call settles (``effects.signal-detach``).
- ``effects.scope-closed``: ``close()`` aborts the lifetime with reason ``"scope closed"``
  once the decision settles; a call through a closed scope is rejected with
  ``effect.aborted`` (reason ``"scope closed"``).
- ``effects.scope-closed-early`` (loom-ref's choice): that refusal is made here, before the
  call reaches the host: no tool lookup, no middleware, nothing traced.

The scope is userspace over the host's transient door (ADR 0119: "the scope is a userspace
handle over EffectRuntime.invokeTransient"): its :meth:`DecideScope.invoke_transient` has the
runtime's signature less ``principal`` (the scope supplies it), and it hands the record it
builds to the host's ``invoke_transient_call(call: EffectCall)`` (spec: effects.transient-door),
so it works with the governed :class:`~loom_ref.effects.runtime.EffectRuntime` and with the
kernel's plain registry alike; with the runtime every call takes the full governed route.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any, Protocol

from loom_ref.effects.call import DeltaSink, EffectCall, Mode
from loom_ref.effects.errors import AbortedError
from loom_ref.errors import InvalidArgument
from loom_ref.signals import Signal, any_of

__all__ = ["SCOPE_CLOSED", "DecideScope", "TransientHost"]

#: The lifetime's abort reason once the decision settles.
SCOPE_CLOSED = "scope closed"


class TransientHost(Protocol):
    """Anything with the ``EffectHost`` transient record door (spec: effects.host-seam)."""

    def invoke_transient_call(self, call: EffectCall) -> Any: ...


class DecideScope:
    """What a decider receives: governed transient calls as the deciding execution
    (spec: effects.scope-principal)."""

    __slots__ = ("execution_id", "execution_signal", "host", "lifetime")

    def __init__(
        self,
        host: TransientHost,
        execution_id: str,
        *,
        execution_signal: Signal | None = None,
    ) -> None:
        if not callable(getattr(host, "invoke_transient_call", None)):
            raise InvalidArgument("host must have invoke_transient_call(call) (an EffectHost)")
        if not isinstance(execution_id, str) or not execution_id:
            raise InvalidArgument(f"execution_id must be a non-empty string, got {execution_id!r}")
        if execution_signal is not None and not isinstance(execution_signal, Signal):
            raise InvalidArgument("execution_signal must be a Signal or None")
        self.host = host
        self.execution_id = execution_id
        self.execution_signal = execution_signal
        self.lifetime = Signal()

    @property
    def closed(self) -> bool:
        """Whether the decision has settled (spec: effects.scope-closed)."""
        return self.lifetime.aborted

    def invoke_transient(
        self,
        tool_id: str,
        input: Any,
        *,
        signal: Signal | None = None,
        on_delta: DeltaSink | None = None,
    ) -> Any:
        """Forward a transient call to the host as the deciding execution, with the
        composed signal (ADR 0119 decision 1: ``DecideScope.invokeTransient(toolId, input,
        { signal?, onDelta? })``; spec: effects.transient-door)."""
        if self.lifetime.aborted:  # spec: effects.scope-closed, effects.scope-closed-early
            raise AbortedError(self.lifetime.reason)
        if not isinstance(tool_id, str) or not tool_id:
            raise InvalidArgument(f"tool_id must be a non-empty string, got {tool_id!r}")
        if signal is not None and not isinstance(signal, Signal):
            raise InvalidArgument(f"signal must be a Signal or None, got {signal!r}")
        if on_delta is not None and not callable(on_delta):
            raise InvalidArgument("on_delta must be callable or None")
        # spec: deltas.cancellation -- a streaming call's signal is this composition, unchanged
        composed = any_of(self.execution_signal, signal, self.lifetime)
        call = EffectCall(
            tool_id=tool_id,
            input=input,
            mode=Mode.TRANSIENT,
            principal=self.execution_id,  # spec: effects.scope-principal
            execution_id=self.execution_id,
            signal=composed,
            on_delta=on_delta,  # spec: deltas.per-call-sink -- the scope only forwards it
        )
        try:
            return self.host.invoke_transient_call(call)
        finally:
            composed.detach()  # spec: effects.signal-detach

    def close(self) -> None:
        """Abort the lifetime (reason ``"scope closed"``); idempotent."""
        self.lifetime.abort(SCOPE_CLOSED)

    def __enter__(self) -> DecideScope:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
