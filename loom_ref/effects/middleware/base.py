"""The middleware protocol (R9): wrappers around the inner route, outermost first.

Spec: ``spec/effects.md``. Rules:

- ``effects.middleware-order``: *the runtime's middleware list runs outermost first*: the
  first middleware's ``handle`` is called with a ``next`` that runs the second, and the last
  one's ``next`` enters the inner route (mode check, metering admission, kill switch, signal,
  effect). A middleware calls ``next(ctx, input)`` zero or more times: zero refuses or
  short-circuits the call, several is a retry (each one a new attempt).
- ``effects.middleware-ctx``: a middleware MUST pass the context it received to ``next``; the
  chain is built once (when the effect is registered), so passing the context is what lets a
  call allocate nothing but its context.
- ``effects.inspects-output``: a middleware that rejects or rewrites the effect's output after
  ``next`` MUST set ``inspects_output = True`` (or provide a ``delta_guard``), otherwise
  streamed text bypasses it (ADR 0119 decision 13). Both attributes are optional on a
  middleware object; the runtime reads them with the defaults ``False`` and ``None``.

``delta_guard`` is a factory the runtime's delta channel calls once per attempt, at the
start of the attempt, to get a guard over that attempt's running text (ADR 0119 decision 10;
``spec/deltas.md``: deltas.guard-order). The guard is a callable ``guard(text)``, an object
with ``check(text)`` (a governance ``DeltaGuard``), or an object with ``feed(text) ->
released`` and ``flush() -> rest`` (a ``HoldBackGuard``, the hold-back extension); it raises
to sever. A factory may return ``None``: nothing to check in that attempt.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from loom_ref.effects.context import EffectContext

__all__ = [
    "DeltaGuardFactory",
    "Middleware",
    "Next",
    "delta_guard_of",
    "inspects_output",
]

#: ``next(ctx, input) -> output``: the rest of the chain, then the inner route.
Next = Callable[["EffectContext", Any], Any]

#: Called once per attempt with the call's context; returns that attempt's guard over the
#: running delta text, which raises to sever the stream (spec: deltas.guard-order). Its result
#: is typed loosely: a callable, a ``check`` object (``loom_ref.governance.DeltaGuard``) or a
#: ``feed``/``flush`` object (``loom_ref.governance.HoldBackGuard``), or ``None``.
DeltaGuardFactory = Callable[["EffectContext"], Any]


@runtime_checkable
class Middleware(Protocol):
    """An R9 middleware. Optional attributes: ``inspects_output: bool`` (default False) and
    ``delta_guard: DeltaGuardFactory | None`` (default None) (spec: effects.middleware-order)."""

    def handle(self, ctx: EffectContext, input: Any, next: Next) -> Any: ...


def inspects_output(middleware: object) -> bool:
    """The middleware's ``inspects_output`` marker (False when absent). The marker is opt-in:
    nothing detects a middleware that rewrites output without it (spec:
    deltas.inspects-obligation -- setting it is the middleware's obligation)."""
    return getattr(middleware, "inspects_output", False) is True


def delta_guard_of(middleware: object) -> DeltaGuardFactory | None:
    """The middleware's ``delta_guard`` factory (None when absent).
    (spec: effects.inspects-output)
    """
    guard = getattr(middleware, "delta_guard", None)
    return guard if callable(guard) else None
