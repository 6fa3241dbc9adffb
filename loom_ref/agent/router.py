"""Routed model access: a reasoning router that decides through the real ``ctx.decide``.

Spec: ``spec/agent.md`` § Model access; ADR 0087 D6: *"Reasoning-runtime routing now passes
the real ctx.decide into reason(), so the route and every elevation are decisions replay
serves. AgentRunner fakes the seam -- it hand-emits DECISION_RECORDED through emit, which
records the route as a fact but cannot have it served, so a re-run re-routes."*

- ``agent.router``: a router is an object with ``reason(decide, request)``, a generator the
  loop drives with ``yield from``; ``decide`` is a :class:`DecideSeam`: ``ctx.decide`` with
  ids namespaced to the turn (``#turn:<i>:<name>``). It returns the assistant message (wire
  JSON), which the loop checks like a model step's output.
- :class:`ReasoningRouter` is the ready router. ``routes`` are effect tool ids, cheapest
  first. Turn ``i`` records ``#turn:<i>:route`` (the selector's choice, alternatives: the
  routes), then ``#turn:<i>:call:<k>`` whose decider makes the model call with
  ``scope.invoke_transient(route, request)`` (the recorded choice is the message), then, if
  an ``elevate`` predicate is set and a stronger route remains, ``#turn:<i>:elevate:<k>``
  (a boolean); true moves to the next route and calls again. A route outside ``routes`` is
  ``agent.unknown-route``.
- ``agent.router-tradeoff`` (stated, as the seed states it): on the routed path the model
  call is a governed *transient* call made inside a decision, so it takes the effect route
  (authorizer, middleware, metering, kill switch, guarded deltas) but has no idempotency key
  and no in-doubt handling (K9): a crash during the call records nothing, and recovery calls
  again. ``model_tool_id`` gets the durable step and the full ring, and no routing. They are
  alternatives; exactly one is required (``agent.model-access``).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import attrs

from loom_ref.agent.errors import UnknownRouteError
from loom_ref.agent.identity import turn_decision_id
from loom_ref.effects.scope import DecideScope
from loom_ref.errors import InvalidArgument
from loom_ref.kernel.commands import Choice, Decide

if TYPE_CHECKING:
    from loom_ref.kernel.context import ExecutionContext

__all__ = ["DecideSeam", "ReasoningRouter", "Router"]


class DecideSeam:
    """The real ``ctx.decide`` for one turn: ``seam(name, decider, ...)`` builds the Decide
    command ``#turn:<i>:<name>``; yield it to get the (recorded, replay-served) choice.
    (spec: agent.router)"""

    __slots__ = ("_ctx", "turn")

    def __init__(self, ctx: ExecutionContext, turn: int) -> None:
        # spec: errors.invalid-argument
        if not callable(getattr(ctx, "decide", None)):
            raise InvalidArgument(f"ctx must be an ExecutionContext, got {type(ctx).__name__}")
        if type(turn) is not int or turn < 0:
            raise InvalidArgument(f"turn must be an int >= 0, got {turn!r}")
        self._ctx = ctx
        self.turn = turn

    def __call__(self, name: str, decider: Callable[[DecideScope], Any], *,
                 context: Any = None, alternatives: Any = None) -> Decide:
        if not isinstance(name, str) or not name:
            raise InvalidArgument(f"a decision name must be a non-empty string, got {name!r}")
        return self._ctx.decide(turn_decision_id(self.turn, name), decider, context=context,
                                alternatives=alternatives)


@runtime_checkable
class Router(Protocol):
    """Routed model access (spec: agent.router)."""

    def reason(self, decide: DecideSeam, request: dict[str, Any]
               ) -> Generator[Any, Any, Any]: ...


def _routes(value: Any) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise InvalidArgument("routes must be a sequence of tool ids")
    routes = tuple(value)
    if not routes or not all(isinstance(r, str) and r for r in routes):
        raise InvalidArgument("routes must be non-empty tool ids (at least one)")
    if len(set(routes)) != len(routes):
        raise InvalidArgument("routes must be distinct")
    return routes


def _opt_callable(inst: Any, attr: attrs.Attribute[Any], value: Any) -> None:
    if value is not None and not callable(value):
        raise InvalidArgument(f"{attr.name} must be callable")


def _callable(inst: Any, attr: attrs.Attribute[Any], value: Any) -> None:
    if not callable(value):
        raise InvalidArgument(f"{attr.name} must be callable")


@attrs.frozen(kw_only=True)
class ReasoningRouter:
    """Route each turn to one of ``routes`` (cheapest first), elevating when ``elevate`` says
    so. ``select(scope, request)`` returns a route (or a ``Choice`` of one);
    ``elevate(scope, message, route)`` returns whether to retry on the next stronger route.
    (spec: agent.router)"""

    routes: tuple[str, ...] = attrs.field(converter=_routes)
    select: Callable[[DecideScope, dict[str, Any]], Any] = attrs.field(validator=_callable)
    elevate: Callable[[DecideScope, Any, str], bool] | None = attrs.field(
        default=None, validator=_opt_callable)

    def reason(self, decide: DecideSeam, request: dict[str, Any]
               ) -> Generator[Any, Any, Any]:
        if not isinstance(decide, DecideSeam):  # spec: errors.invalid-argument
            raise InvalidArgument(f"decide must be a DecideSeam, got {type(decide).__name__}")
        route = yield decide("route", lambda scope: self.select(scope, request),
                             context={"turn": decide.turn}, alternatives=list(self.routes))
        k = 0
        while True:
            if route not in self.routes:
                raise UnknownRouteError(f"route {route!r} is not one of {list(self.routes)}",
                                        route=route)
            message = yield decide(f"call:{k}", _caller(route, request),
                                   context={"route": route})
            stronger = self.routes.index(route) + 1
            if self.elevate is None or stronger >= len(self.routes):
                return message
            up = yield decide(f"elevate:{k}", _elevator(self.elevate, message, route),
                              context={"route": route}, alternatives=[False, True])
            if up is not True:
                return message
            route = self.routes[stronger]
            k += 1


def _caller(route: str, request: dict[str, Any]) -> Callable[[DecideScope], Any]:
    """The decider of ``call:<k>``: the model call, a governed transient call."""
    return lambda scope: scope.invoke_transient(route, request)


def _elevator(elevate: Callable[[DecideScope, Any, str], Any], message: Any, route: str
              ) -> Callable[[DecideScope], Any]:
    """The decider of ``elevate:<k>``."""
    return lambda scope: _as_bool(elevate(scope, message, route))


def _as_bool(value: Any) -> Any:
    return value if isinstance(value, Choice) else bool(value)
