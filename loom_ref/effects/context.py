"""EffectContext: what an effect's ``execute(ctx, input)`` receives, one per call.

Spec: ``spec/effects.md``. Rules enforced here:

- ``effects.context``: the context carries the call's tool id, mode, principal, composed
  signal, attempt number, idempotency key (durable path only), ``emit`` and ``on_delta``.
- ``effects.retry-attempts``: ``attempt`` counts ``effect.execute`` invocations of this call
  (ADR 0119 decision 11: "the runtime counts effect.execute invocations of the call (a retry
  middleware re-enters it)"). Inside the effect it is the 1-based number of the running
  attempt; a middleware that reads it before the first attempt sees 0. The runtime alone
  writes it.
- ``effects.emit``: on the durable path ``emit(event)`` appends to :attr:`emitted` and
  forwards to the call's ``on_emit`` (the kernel's journal hook); on the transient path it is
  a no-op (ADR 0119 decision 3: "a transient call's emit is a no-op").
- ``effects.usage``: ``report_usage`` accumulates what the effect spent in this attempt; the
  runtime hands it to the meter when the attempt ends.
- ``deltas.channel``: under a host ``on_delta`` is never ``None``: under the runtime it is the
  call's guarded delta channel (``spec/deltas.md``), or the shared silent channel when there
  is nothing to deliver or streaming was refused; under the plain registry it is the direct
  writer (``deltas.no-runtime``). ``None`` means a context built by hand, with no host: only
  then may an effect call its sinks itself (ADR 0119 #12).
- ``deltas.writer``: an effect writes to ``on_delta`` in one shape (:class:`DeltaWriter`):
  ``ctx.on_delta(text)`` for each text delta, ``ctx.on_delta.end(usage)`` for its
  end-of-stream chunk.

The context is a live per-call handle, not a record: the runtime mutates ``attempt`` and the
usage between attempts. It is deliberately small, because it is the one object the route
allocates per call (``effects.lean-route``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from loom_ref.effects.call import EffectCall, Mode
from loom_ref.effects.clock import Clock
from loom_ref.errors import InvalidArgument
from loom_ref.signals import Signal

if TYPE_CHECKING:
    from loom_ref.effects.deltas import DeltaChannel
    from loom_ref.stream.usage import TokenUsage

__all__ = ["DeltaWriter", "EffectContext", "route_context"]


class DeltaWriter(Protocol):
    """What an effect writes its deltas to: ``ctx.on_delta`` (spec: deltas.writer).

    ``writer(text)`` writes one text delta (a ``str``; an empty one is ignored);
    ``writer.end(usage=None)`` writes the effect's end-of-stream chunk, with the usage the
    provider reported (a ``TokenUsage``). The host stamps the taint origin and builds the
    :class:`~loom_ref.effects.deltas.EffectDelta` records the sinks receive.
    """

    def __call__(self, text: str) -> None: ...

    def end(self, usage: TokenUsage | None = None) -> None: ...

_DURABLE = Mode.DURABLE  # a module constant: Enum class attribute lookups are slow


class EffectContext:
    """The per-call context of one governed effect call.

    ``call`` is the :class:`EffectCall` as received; ``tool_id``, ``mode``, ``principal``,
    ``execution_id`` and ``idempotency_key`` read through to it. ``clock`` is the runtime's
    injected clock (middleware and effects read time only from it).
    (spec: effects.context)
    """

    __slots__ = (
        "_channel",
        "_emitted",
        "_usage",
        "attempt",
        "call",
        "clock",
        "on_delta",
        "signal",
    )

    def __init__(self, call: EffectCall, signal: Signal, clock: Clock) -> None:
        # spec: errors.invalid-argument (the runtime builds its contexts with route_context)
        if not isinstance(call, EffectCall):
            raise InvalidArgument(f"call must be an EffectCall, got {type(call).__name__}")
        if not isinstance(signal, Signal):
            raise InvalidArgument(f"signal must be a Signal, got {type(signal).__name__}")
        if not (callable(getattr(clock, "now", None)) and callable(getattr(clock, "sleep", None))):
            raise InvalidArgument(f"clock must have now() and sleep(), got {type(clock).__name__}")
        self._fill(call, signal, clock)

    def _fill(self, call: EffectCall, signal: Signal, clock: Clock) -> None:
        """Set every slot: the one place that does (``__init__`` and :func:`route_context`)."""
        self.call = call
        self.signal = signal
        self.clock = clock
        self.attempt = 0
        #: The delta channel (ADR 0119 decision 12; spec: deltas.channel, deltas.writer). A
        #: host installs it on every call; ``None`` only on a context built by hand.
        self.on_delta: DeltaWriter | None = None
        #: The live channel the runtime drives per attempt (``None`` when silent).
        self._channel: DeltaChannel | None = None
        self._emitted: list[Any] | None = None
        self._usage: dict[str, int] | None = None

    @property
    def tool_id(self) -> str:
        return self.call.tool_id

    @property
    def mode(self) -> Mode:
        return self.call.mode

    @property
    def principal(self) -> str:
        """Who the call runs as (for a decider's scope: the deciding execution's id)."""
        return self.call.principal

    @property
    def execution_id(self) -> str | None:
        return self.call.execution_id

    @property
    def idempotency_key(self) -> str | None:
        """The durable step's idempotency key; always ``None`` on the transient path."""
        call = self.call
        return call.idempotency_key if call.mode is _DURABLE else None

    @property
    def emitted(self) -> list[Any]:
        """Events emitted on the durable path, in order (a copy)."""
        return list(self._emitted or ())

    @property
    def usage(self) -> dict[str, int]:
        """What the running (or last) attempt reported through :meth:`report_usage` (a copy)."""
        return dict(self._usage or {})

    def emit(self, event: Any) -> None:
        """Durable: record ``event`` and forward it to the call's ``on_emit``. Transient:
        no-op. spec: effects.emit"""
        call = self.call
        if call.mode is not _DURABLE:
            return
        if self._emitted is None:
            self._emitted = []
        self._emitted.append(event)
        if call.on_emit is not None:
            call.on_emit(event)

    def report_usage(self, usage: Mapping[str, int]) -> None:
        """Add ``usage`` (counter name -> non-negative int, e.g. ``{"inputTokens": 12}``)
        to this attempt's usage. spec: effects.usage"""
        if not isinstance(usage, Mapping):
            raise InvalidArgument(f"usage must be a mapping, got {type(usage).__name__}")
        for key, value in usage.items():  # the whole report first: a refused one adds nothing
            if not isinstance(key, str) or isinstance(value, bool) or not isinstance(value, int):
                raise InvalidArgument(f"usage entries must be str -> int, got {key!r}: {value!r}")
            if value < 0:
                raise InvalidArgument(f"usage {key!r} must be non-negative, got {value}")
        total = self._usage if self._usage is not None else {}
        for key, value in usage.items():
            total[key] = total.get(key, 0) + value
        self._usage = total

    def __repr__(self) -> str:
        return (
            f"EffectContext(tool_id={self.tool_id!r}, mode={self.mode.value}, "
            f"principal={self.principal!r}, attempt={self.attempt})"
        )


_new = object.__new__


def route_context(call: EffectCall, signal: Signal, clock: Clock) -> EffectContext:
    """An :class:`EffectContext` built without the constructor's checks, for the runtime,
    which checked ``call`` (an :class:`EffectCall` checks its fields), its signal and its
    clock already (spec: effects.lean-route -- the route allocates only this per call).
    The result equals ``EffectContext(call, signal, clock)``."""
    ctx: EffectContext = _new(EffectContext)
    ctx._fill(call, signal, clock)
    return ctx
