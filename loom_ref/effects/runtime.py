"""EffectRuntime: the governed effect host. Every call takes one fixed route.

Spec: ``spec/effects.md``. Theory of operation, rule by rule:

- ``effects.route-order``: every call, durable (``invoke``) or transient (``invoke_transient``,
  or the seam's ``invoke_transient_call``), takes the identical route, in this order (ADR
  0119 decision 2):

  1. lookup: an unregistered tool id fails with ``effect.unknown-tool`` (``effects.unknown-tool``);
  2. authorizer (K2), once per call: a deny raises ``effect.denied``;
  3. the middleware chain (R9), outermost first; the last ``next`` enters the inner route,
     which runs once per attempt:
  4. effect-mode check: ``effect.mode-refused``;
  5. metering admission: ``effect.over-budget``;
  6. kill switch: ``effect.killed``;
  7. signal: an aborted signal raises ``effect.aborted`` with the abort reason;
  8. ``effect.execute(ctx, input)``.

  Stages 1, 2 and 4-7 are fixed checks the runtime runs itself (configured with
  ``authorizer=``, ``meter=``, ``kill_switch=``); the ``middleware=`` list holds only R9
  wrappers (retry, rate limit, envelope, ...). There is no second code path: the three doors
  differ only in the mode they accept and in who builds the :class:`EffectCall`.
- ``effects.refusal-untouched``: a call refused at any stage never reaches the effect, so the
  effect's execute, its sinks and the meter's record are not called for it.
- ``effects.signal-abort``: an abort observed during the attempt (the signal aborted while the
  effect ran, whether it then returned or raised) rejects the call with ``effect.aborted`` and
  the abort reason: settlement after an abort is never success.
- ``effects.signal-abort-cause`` (loom-ref's choice): the effect's own error is chained as the
  abort's cause (``raise ... from error``).
- ``effects.lean-route``: the chain is composed once per effect at registration (the
  middleware list is fixed when the runtime is built), so a call allocates only its context.
- ``effects.streaming-refused`` / ``deltas.fail-closed``: while a middleware marked
  ``inspects_output`` has no ``delta_guard``, every call's channel is the silent one: neither
  the per-call sink nor the effect's configured sink receives anything, the call completes
  non-streamed, and a call that had a sink to refuse warns once through ``on_warn``
  ("streaming disabled: inspects output without a delta form", ADR 0119 decisions 10, 12).
- ``deltas.channel``: otherwise the runtime puts the call's guarded delta channel on
  ``ctx.on_delta`` (``loom_ref.effects.deltas``), on durable and transient calls alike,
  starts each attempt on it (``deltas.reset``), raises a sever the effect swallowed
  (``deltas.sever-sticky``), and after the whole route succeeded flushes and sends the
  terminal chunk (``deltas.terminal``); once the call settles it delivers nothing more
  (``deltas.live-window``). A call with no sink and no delta guard gets the shared silent
  channel (``effects.lean-route``).

``deltas.recorder`` (**extension**, off by default): with ``recorder=`` a
:class:`~loom_ref.effects.recorder.DeltaRecorder`, every call that gets a channel (or whose
streaming is refused) is taped beside its work; without one nothing is taped and nothing
changes.

``effects.transient-door``: the public transient call is ADR 0119's
``EffectRuntime.invokeTransient(toolId, input, {signal, onDelta})``:
:meth:`EffectRuntime.invoke_transient` ``(tool_id, input, *, principal, signal=None,
on_delta=None)``, which builds the transient :class:`EffectCall` and takes the route. The
runtime satisfies ``loom_ref.kernel.seam.EffectHost`` structurally through the record doors
``invoke(call)`` (durable) and ``invoke_transient_call(call)`` (transient), and
``is_idempotent(tool_id)``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, cast

from loom_ref.effects.authorizer import AllowAll, Authorizer
from loom_ref.effects.call import DeltaSink, EffectCall, Mode
from loom_ref.effects.clock import Clock, ManualClock
from loom_ref.effects.context import EffectContext, route_context
from loom_ref.effects.decision import Decision
from loom_ref.effects.deltas import SILENT, DeltaChannel
from loom_ref.effects.effect import Effect, check_registration
from loom_ref.effects.errors import (
    AbortedError,
    EffectDenied,
    EffectKilled,
    ModeRefused,
    OverBudget,
    UnknownEffectError,
)
from loom_ref.effects.kill_switch import KillSwitch
from loom_ref.effects.metering import Meter
from loom_ref.effects.middleware.base import (
    DeltaGuardFactory,
    Middleware,
    Next,
    delta_guard_of,
    inspects_output,
)
from loom_ref.effects.recorder import DeltaRecorder, RecordingSilent
from loom_ref.errors import InvalidArgument, warn
from loom_ref.signals import NEVER, Signal

__all__ = ["STREAMING_DISABLED", "EffectRuntime"]

# Enum member lookups through the class cost a Python-level descriptor call per access;
# the hot path compares against these module constants instead (spec: effects.lean-route).
_DURABLE = Mode.DURABLE
_TRANSIENT = Mode.TRANSIENT

#: The warning text of ``effects.streaming-refused`` (ADR 0119 decision 12's wording).
STREAMING_DISABLED = "streaming disabled: inspects output without a delta form"


def _warn(message: str) -> None:
    warn(message, stacklevel=4)  # spec: errors.warning-category -- LoomWarning, as the kernel's


def _link(middleware: Middleware, next: Next) -> Next:
    handle = middleware.handle

    def linked(ctx: EffectContext, input: Any) -> Any:
        return handle(ctx, input, next)

    return linked


class EffectRuntime:
    """The governed effect host (spec: effects.route-order)."""

    __slots__ = (
        "_authorize",
        "_effects",
        "_guard_factories",
        "_routes",
        "authorizer",
        "clock",
        "kill_switch",
        "meter",
        "middleware",
        "on_warn",
        "recorder",
        "streaming_blocked_by",
    )

    def __init__(
        self,
        effects: Iterable[Effect] = (),
        *,
        authorizer: Authorizer | None = None,
        middleware: Iterable[Middleware] = (),
        meter: Meter | None = None,
        kill_switch: KillSwitch | None = None,
        clock: Clock | None = None,
        on_warn: Callable[[str], None] | None = None,
        recorder: DeltaRecorder | None = None,
    ) -> None:
        self.authorizer: Authorizer = AllowAll() if authorizer is None else authorizer
        if not callable(getattr(self.authorizer, "authorize", None)):
            raise InvalidArgument("authorizer must have an authorize(principal, tool_id, mode)")
        for name, items in (("effects", effects), ("middleware", middleware)):
            if isinstance(items, str | bytes) or not isinstance(items, Iterable):
                raise InvalidArgument(f"{name} must be an iterable, got {items!r}")
        self.middleware: tuple[Middleware, ...] = tuple(middleware)
        for mw in self.middleware:
            if not callable(getattr(mw, "handle", None)):
                raise InvalidArgument(f"middleware {mw!r} has no handle(ctx, input, next)")
        if meter is not None and not (
            callable(getattr(meter, "admit", None)) and callable(getattr(meter, "record", None))
        ):
            raise InvalidArgument("meter must have admit(call) and record(call, usage, advisory)")
        if kill_switch is not None and not isinstance(kill_switch, KillSwitch):
            raise InvalidArgument(f"kill_switch must be a KillSwitch, got {kill_switch!r}")
        self.meter = meter
        self.kill_switch = kill_switch
        self.clock: Clock = ManualClock() if clock is None else clock
        if not (
            callable(getattr(self.clock, "now", None))
            and callable(getattr(self.clock, "sleep", None))
        ):
            raise InvalidArgument("clock must have now() and sleep(seconds)")
        if on_warn is not None and not callable(on_warn):
            raise InvalidArgument("on_warn must be callable")
        self.on_warn: Callable[[str], None] = _warn if on_warn is None else on_warn
        if recorder is not None and not isinstance(recorder, DeltaRecorder):
            raise InvalidArgument(f"recorder must be a DeltaRecorder, got {recorder!r}")
        #: The tape of every streamed call, or None (spec: deltas.recorder, extension).
        self.recorder = recorder
        #: Middleware whose ``inspects_output`` is uncovered by a ``delta_guard``
        #: (spec: effects.streaming-refused).
        self.streaming_blocked_by: tuple[Middleware, ...] = tuple(
            mw for mw in self.middleware if inspects_output(mw) and delta_guard_of(mw) is None
        )
        #: Per-attempt delta guard factories, in middleware order (spec: deltas.guard-order).
        self._guard_factories: tuple[DeltaGuardFactory, ...] = tuple(
            factory for factory in map(delta_guard_of, self.middleware) if factory is not None
        )
        # spec: effects.lean-route -- the default authorizer allows everything: nothing to ask
        self._authorize: Callable[[str, str, Mode], Decision] | None = (
            None if type(self.authorizer) is AllowAll else self.authorizer.authorize)
        self._effects: dict[str, Effect] = {}
        self._routes: dict[str, tuple[Next, DeltaSink | None, bool]] = {}
        for effect in effects:
            self.register(effect)

    # -- registration ---------------------------------------------------------------

    def register(self, effect: Effect) -> Effect:
        """Register ``effect`` under its tool id and compose its route once
        (spec: effects.registration, effects.lean-route)."""
        check_registration(effect, self._effects)
        entry = self._inner_route(effect)
        for mw in reversed(self.middleware):
            entry = _link(mw, entry)
        self._effects[effect.tool_id] = effect
        # spec: effects.lean-route -- whether a call can stream without a per-call sink is
        # known now: a route with no configured sink and no delta guard has nothing to deliver
        # or check, so such a call gets the silent channel without building one
        quiet = effect.delta_sink is None and not self._guard_factories
        self._routes[effect.tool_id] = (entry, effect.delta_sink, quiet)
        return effect

    def get_effect(self, tool_id: str) -> Effect:
        """The effect registered as ``tool_id`` (``effect.unknown-tool`` if none)."""
        if not isinstance(tool_id, str):
            raise InvalidArgument(f"tool_id must be a string, got {tool_id!r}")
        try:
            return self._effects[tool_id]
        except KeyError:
            raise UnknownEffectError(
                f"no effect registered as {tool_id!r}", tool_id=tool_id
            ) from None

    def __contains__(self, tool_id: object) -> bool:
        return isinstance(tool_id, str) and tool_id in self._effects

    def _inner_route(self, effect: Effect) -> Next:
        """Stages 4-8, run once per attempt (spec: effects.route-order)."""
        tool_id = effect.tool_id
        execute = effect.execute
        # A tuple, compared by identity: Enum hashing is a Python-level call (lean route).
        modes = tuple(effect.modes)
        meter = self.meter
        kill_switch = self.kill_switch
        transient = _TRANSIENT

        def inner(ctx: EffectContext, input: Any) -> Any:
            call = ctx.call
            if call.mode not in modes:  # spec: effects.route-order (4: mode check)
                raise ModeRefused(
                    f"{tool_id!r} does not allow {call.mode.value} calls",
                    tool_id=tool_id,
                    mode=call.mode.value,
                )
            if meter is not None:  # spec: effects.metering-admission (5)
                decision = meter.admit(call)
                if not decision.allowed:
                    raise OverBudget(decision.reason, tool_id=tool_id)
            if kill_switch is not None:  # spec: effects.kill-switch (6)
                reason = kill_switch.check(tool_id)
                if reason is not None:
                    raise EffectKilled(reason, tool_id=tool_id)
            signal = ctx.signal
            if signal.aborted:  # spec: effects.signal-abort (7)
                raise AbortedError(signal.reason)
            ctx.attempt += 1  # spec: effects.retry-attempts
            if ctx._usage is not None:
                ctx._usage = None
            channel = ctx._channel
            if channel is not None:
                channel.begin_attempt(ctx)  # spec: deltas.reset
            try:
                output = execute(ctx, input)  # (8)
            except Exception as error:
                if meter is not None:  # spec: effects.metering-record
                    meter.record(call, ctx.usage, call.mode is transient)
                if signal.aborted:  # spec: effects.signal-abort, effects.signal-abort-cause
                    raise AbortedError(signal.reason) from error
                raise
            if meter is not None:
                meter.record(call, ctx.usage, call.mode is transient)
            if signal.aborted:
                raise AbortedError(signal.reason)
            if channel is not None and channel.severed is not None:
                raise channel.severed  # spec: deltas.sever-sticky -- the effect swallowed it
            return output

        return inner

    # -- the route --------------------------------------------------------------------

    def _run(self, call: EffectCall) -> Any:
        route = self._routes.get(call.tool_id)
        if route is None:  # spec: effects.unknown-tool
            raise UnknownEffectError(
                f"no effect registered as {call.tool_id!r}", tool_id=call.tool_id
            )
        authorize = self._authorize
        if authorize is not None:
            decision = authorize(call.principal, call.tool_id, call.mode)
            if not decision.allowed:  # spec: effects.authorizer
                raise EffectDenied(
                    decision.reason,
                    tool_id=call.tool_id,
                    principal=call.principal,
                    mode=call.mode.value,
                )
        # spec: deltas.refused-call -- no channel exists before lookup and authorization, and
        # a refusal inside the chain (stages 4-7) comes before begin_attempt: no sink is called
        entry, configured, quiet = route
        signal = NEVER if call.signal is None else call.signal
        ctx = route_context(call, signal, self.clock)
        per_call = call.on_delta
        if per_call is None and quiet:  # spec: effects.lean-route -- nothing to deliver or guard
            ctx.on_delta = SILENT
            return entry(ctx, call.input)  # the lean route: no channel is built
        recorder = self.recorder
        tape = None if recorder is None else recorder.open(
            call, per_call=per_call is not None, configured=configured is not None)
        if self.streaming_blocked_by:  # spec: deltas.fail-closed, effects.streaming-refused
            if per_call is not None or configured is not None:
                self.on_warn(STREAMING_DISABLED)
            if tape is None:
                ctx.on_delta = SILENT
                return entry(ctx, call.input)
            return self._refused(entry, ctx, call, tape)
        channel = DeltaChannel(  # spec: deltas.channel
            tool_id=call.tool_id,
            signal=signal,
            per_call=per_call,
            configured=configured,
            factories=self._guard_factories,
            on_warn=self.on_warn,
            tape=tape,
        )
        ctx.on_delta = channel
        ctx._channel = channel
        try:
            output = entry(ctx, call.input)
        except BaseException as error:
            channel.settle(error)  # spec: deltas.live-window -- never a terminal on failure
            raise
        channel.succeed()  # spec: deltas.terminal -- after the middleware output phase
        return output

    def _refused(self, entry: Next, ctx: EffectContext, call: EffectCall, tape: Any) -> Any:
        """A refused stream with a recorder listening: silent, and taped (spec:
        deltas.fail-closed, deltas.recorder)."""
        had_sink = call.on_delta is not None or self._routes[call.tool_id][1] is not None
        tape.refused(STREAMING_DISABLED if had_sink else "nothing to refuse: no sink",
                     [repr(mw) for mw in self.streaming_blocked_by])
        silent = RecordingSilent(tape)
        ctx.on_delta = silent
        ctx._channel = cast(Any, silent)  # started per attempt like a channel; never severs
        try:
            output = entry(ctx, call.input)
        except BaseException as error:
            tape.settle(error)
            raise
        tape.settle(None)
        return output

    def invoke(self, call: EffectCall) -> Any:
        """The kernel's durable path (spec: effects.host-seam): run ``call`` (mode DURABLE) on
        the route and return the output. The kernel journals around it;
        ``call.idempotency_key`` reaches the effect as ``ctx.idempotency_key``."""
        if not isinstance(call, EffectCall) or call.mode is not _DURABLE:
            raise InvalidArgument(f"invoke takes a durable EffectCall, got {call!r}")
        return self._run(call)

    def invoke_transient_call(self, call: EffectCall) -> Any:
        """The ``EffectHost`` transient record door (spec: effects.host-seam), which a
        ``DecideScope`` uses: run ``call`` (mode TRANSIENT); never journaled, and the
        effect's ``emit`` is a no-op."""
        if not isinstance(call, EffectCall) or call.mode is not _TRANSIENT:
            raise InvalidArgument(
                f"invoke_transient_call takes a transient EffectCall, got {call!r}")
        return self._run(call)

    def invoke_transient(
        self,
        tool_id: str,
        input: Any,
        *,
        principal: str,
        signal: Signal | None = None,
        on_delta: DeltaSink | None = None,
    ) -> Any:
        """A transient call of ``tool_id`` as ``principal`` (spec: effects.transient-door;
        ADR 0119 decision 1: ``EffectRuntime.invokeTransient(toolId, input, {signal,
        onDelta})``): build the transient :class:`EffectCall` and take the route. Never
        journaled; ``on_delta`` is the per-call sink (spec: deltas.per-call-sink)."""
        call = EffectCall(  # which checks its arguments (spec: errors.invalid-argument)
            tool_id=tool_id,
            input=input,
            mode=_TRANSIENT,
            principal=principal,
            signal=signal,
            on_delta=on_delta,
        )
        return self._run(call)

    def is_idempotent(self, tool_id: str) -> bool:
        """Whether ``tool_id`` declared itself idempotent; False for an unknown tool id (it
        cannot be re-invoked, so the kernel parks the step as in-doubt). spec:
        effects.host-seam"""
        if not isinstance(tool_id, str):
            raise InvalidArgument(f"tool_id must be a string, got {tool_id!r}")
        effect = self._effects.get(tool_id)
        return effect is not None and effect.idempotent
