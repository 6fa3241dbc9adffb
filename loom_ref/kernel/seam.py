"""The seam between the kernel and whatever runs effects.

Spec: ``spec/kernel.md`` (``kernel.effect-seam``): the kernel MUST reach effects only
through :class:`EffectHost`, so the plain :class:`EffectRegistry` below and the governed
``loom_ref.effects.EffectRuntime`` are interchangeable and runner bodies do not change.

The kernel journals around ``invoke`` (STEP_STARTED before, STEP_COMPLETED / STEP_FAILED
after); it never journals a transient call. ``is_idempotent`` feeds the in-doubt rule
(``kernel.in-doubt``): an idempotent effect whose step has no outcome at recovery is invoked
again with the same idempotency key.

``kernel.effect-forms``: both hosts host the same thing, an
:class:`~loom_ref.effects.effect.Effect` record whose ``execute(ctx, input)`` receives an
:class:`~loom_ref.effects.context.EffectContext`; an effect written for one registers
unchanged with the other. The registry is the host with no governance at all: it looks the
tool id up, refuses a mode the effect does not allow, and runs ``execute`` once. It is *no
runtime* in ADR 0119's sense: ``ctx.on_delta`` is a
:class:`~loom_ref.effects.deltas.DirectWriter` that hands the effect's deltas straight to the
per-call and configured sinks, unguarded (``deltas.no-runtime``; the silent channel when
there is no sink), so an effect writes its deltas the same way under either host.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol, runtime_checkable

from loom_ref.effects.call import DeltaSink, EffectCall, Mode
from loom_ref.effects.clock import Clock, ManualClock
from loom_ref.effects.context import route_context
from loom_ref.effects.deltas import SILENT, DirectWriter
from loom_ref.effects.effect import Effect, check_registration
from loom_ref.effects.errors import ModeRefused, UnknownEffectError
from loom_ref.errors import InvalidArgument
from loom_ref.signals import NEVER, Signal

__all__ = ["EffectHost", "EffectRegistry", "check_effect_host"]

_DOORS = ("invoke", "invoke_transient_call", "is_idempotent")
_DURABLE = Mode.DURABLE  # module constants: Enum class attribute lookups are slow
_TRANSIENT = Mode.TRANSIENT


@runtime_checkable
class EffectHost(Protocol):
    """What the kernel needs from an effect runner (spec: kernel.effect-seam)."""

    def invoke(self, call: EffectCall) -> Any:
        """Run a durable call and return its output (raise to fail the step)."""
        ...

    def invoke_transient_call(self, call: EffectCall) -> Any:
        """Run a transient call (never journaled) and return its output."""
        ...

    def is_idempotent(self, tool_id: str) -> bool:
        """Whether re-invoking ``tool_id`` with the same idempotency key is safe."""
        ...


def check_effect_host(effects: object) -> EffectHost:
    """Return ``effects`` if it provides the :class:`EffectHost` methods, else raise
    InvalidArgument (spec: kernel.effect-seam)."""
    for name in _DOORS:
        if not callable(getattr(effects, name, None)):
            raise InvalidArgument(f"effects must provide {name}() (see EffectHost), got "
                                  f"{type(effects).__name__}")
    return effects  # type: ignore[return-value]


class EffectRegistry:
    """The plain effect host: :class:`~loom_ref.effects.effect.Effect` records by tool id, no
    governance (spec: kernel.effect-forms).

    ``EffectRegistry([Effect(tool_id="charge", execute=charge)])`` hosts what
    ``EffectRuntime([...])`` hosts; use it to teach the kernel on its own, and the governed
    runtime for everything a model call needs (authorizer, middleware, metering, the delta
    channel). ``clock`` is what ``ctx.clock`` reads (default: a ``ManualClock``).
    """

    __slots__ = ("_effects", "_modes", "clock")

    def __init__(self, effects: Iterable[Effect] = (), *, clock: Clock | None = None) -> None:
        if isinstance(effects, str | bytes) or not isinstance(effects, Iterable):
            raise InvalidArgument(f"effects must be an iterable of Effect, got {effects!r}")
        self.clock: Clock = ManualClock() if clock is None else clock
        if not (callable(getattr(self.clock, "now", None))
                and callable(getattr(self.clock, "sleep", None))):
            raise InvalidArgument("clock must have now() and sleep(seconds)")
        self._effects: dict[str, Effect] = {}
        #: Each effect's modes as a tuple, compared by identity (Enum hashing is a Python-level
        #: call; spec: effects.lean-route).
        self._modes: dict[str, tuple[Mode, ...]] = {}
        for effect in effects:
            self.register(effect)

    def register(self, effect: Effect) -> Effect:
        """Register ``effect`` under its tool id; a second registration of a tool id is
        ``argument.invalid`` (spec: effects.registration)."""
        check_registration(effect, self._effects)
        self._effects[effect.tool_id] = effect
        self._modes[effect.tool_id] = tuple(effect.modes)
        return effect

    def get_effect(self, tool_id: str) -> Effect:
        """The effect registered as ``tool_id`` (``effect.unknown-tool`` if none;
        spec: effects.unknown-tool)."""
        if not isinstance(tool_id, str):
            raise InvalidArgument(f"tool_id must be a string, got {tool_id!r}")
        try:
            return self._effects[tool_id]
        except KeyError:
            raise UnknownEffectError(  # the same code as the governed runtime's
                f"no effect registered as {tool_id!r}", tool_id=tool_id
            ) from None

    def __contains__(self, tool_id: object) -> bool:
        return isinstance(tool_id, str) and tool_id in self._effects

    def _run(self, call: EffectCall) -> Any:
        effect = self._effects.get(call.tool_id)
        if effect is None:
            effect = self.get_effect(call.tool_id)  # which raises effect.unknown-tool
        if call.mode not in self._modes[call.tool_id]:  # the effect's own declaration
            raise ModeRefused(f"{call.tool_id!r} does not allow {call.mode.value} calls",
                              tool_id=call.tool_id, mode=call.mode.value)
        # the call checked its fields, the registry its clock (spec: effects.lean-route)
        ctx = route_context(call, NEVER if call.signal is None else call.signal, self.clock)
        ctx.attempt = 1  # spec: effects.retry-attempts -- one execute, no retry here
        if call.on_delta is not None or effect.delta_sink is not None:  # deltas.no-runtime
            ctx.on_delta = DirectWriter(tool_id=call.tool_id, per_call=call.on_delta,
                                        configured=effect.delta_sink)
        else:
            ctx.on_delta = SILENT
        return effect.execute(ctx, call.input)

    def invoke(self, call: EffectCall) -> Any:
        """The durable record door (spec: effects.host-seam)."""
        if not isinstance(call, EffectCall) or call.mode is not _DURABLE:
            raise InvalidArgument(f"invoke takes a durable EffectCall, got {call!r}")
        return self._run(call)

    def invoke_transient_call(self, call: EffectCall) -> Any:
        """The transient record door (spec: effects.host-seam)."""
        if not isinstance(call, EffectCall) or call.mode is not _TRANSIENT:
            raise InvalidArgument(
                f"invoke_transient_call takes a transient EffectCall, got {call!r}")
        return self._run(call)

    def invoke_transient(self, tool_id: str, input: Any, *, principal: str,
                         signal: Signal | None = None, on_delta: DeltaSink | None = None
                         ) -> Any:
        """A transient call, as ``EffectRuntime.invoke_transient`` takes it
        (spec: effects.transient-door)."""
        return self._run(EffectCall(tool_id=tool_id, input=input, mode=_TRANSIENT,
                                    principal=principal, signal=signal, on_delta=on_delta))

    def is_idempotent(self, tool_id: str) -> bool:
        """Whether ``tool_id`` declared itself idempotent; False for an unknown tool id
        (spec: effects.host-seam)."""
        if not isinstance(tool_id, str):
            raise InvalidArgument(f"tool_id must be a string, got {tool_id!r}")
        effect = self._effects.get(tool_id)
        return effect is not None and effect.idempotent
