"""The store kit's own scenarios: small workflows that touch every kind of event, written
against the kernel's public API, for the power-loss matrix (:mod:`loom_ref.testing.powerloss`).

Each scenario is a list of client calls (:class:`~loom_ref.testing.powerloss.Action`) over
workflows whose effects are pure functions of their input, so a recovered run can be held
to the invariants without a script to rewind. Between them they journal every event kind
but ``STEP_IN_DOUBT`` and ``EXECUTION_RESUMED``'s crash-before-resume variant, which the
power cuts themselves produce:

- ``order``: an idempotent lookup, a decision acted on by a non-idempotent charge, a stream
  append, a gate, a resume, a second non-idempotent step, completion;
- ``two-executions``: one execution parks on a gate while a second one runs to completion,
  then the first is resumed (one store, two journals: what one sync covers and another
  does not);
- ``failure``: a non-idempotent step that fails, a fallback the body runs instead, and a
  body that fails in the end;
- ``crash-then-start``: the process dies tearing the first event, the client starts again
  (a journal opened, not created, by the writer that must make its name durable), then a
  process crash mid-run and a recovery.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Hashable, Sequence
from typing import Any

import attrs

from loom_ref.effects import Effect, EffectContext, ExecuteFn
from loom_ref.kernel import EffectHost, EffectRegistry, ExecutionContext, Runtime, Workflow
from loom_ref.kernel.errors import StepFailedError
from loom_ref.testing.powerloss import Action

__all__ = ["KIT_SCENARIOS", "KitScenario", "kit_runtime"]


def _order(ctx: ExecutionContext, order: Any) -> Generator[Any, Any, Any]:
    quote = yield ctx.execute("lookup", {"qty": order["qty"]})
    route = yield ctx.decide("route", lambda scope: "fast" if quote["price"] > 5 else "slow")
    receipt = yield ctx.execute("charge", {"amount": quote["price"], "route": route})
    yield ctx.stream({"charged": receipt})
    answer = yield ctx.suspend("ship", on="HumanApproval")
    shipped = yield ctx.execute("ship", {"receipt": receipt, "to": answer["to"]})
    return {"receipt": receipt, "shipped": shipped}


def _pair(ctx: ExecutionContext, name: Any) -> Generator[Any, Any, Any]:
    first = yield ctx.execute("charge", {"amount": len(name), "route": name})
    if name == "a":
        yield ctx.suspend("go")
    second = yield ctx.execute("ship", {"receipt": first, "to": name})
    return [first, second]


def _failure(ctx: ExecutionContext, _: Any) -> Generator[Any, Any, Any]:
    try:
        yield ctx.execute("flaky", {"n": 1})
    except StepFailedError:
        yield ctx.execute("lookup", {"qty": 1})
    raise ValueError("the order could not be placed")


def _effects(calls: list[str] | None = None) -> EffectRegistry:
    """The kit's effects (pure functions of their input); each durable call's step id is
    appended to ``calls`` if given."""
    def lookup(ctx: EffectContext, input: Any) -> Any:
        return {"price": 3 * input["qty"]}

    def charge(ctx: EffectContext, input: Any) -> Any:
        return f"r-{input['amount']}-{input['route']}"

    def ship(ctx: EffectContext, input: Any) -> Any:
        return f"shipped {input['receipt']} to {input['to']}"

    def flaky(ctx: EffectContext, input: Any) -> Any:
        raise ConnectionError("the payment service is down")

    def counted(fn: ExecuteFn) -> ExecuteFn:
        if calls is None:
            return fn

        def run(ctx: EffectContext, input: Any) -> Any:
            calls.append(ctx.call.step_id or "")
            return fn(ctx, input)
        return run

    return EffectRegistry([
        Effect(tool_id="lookup", execute=counted(lookup), idempotent=True),
        Effect(tool_id="charge", execute=counted(charge)),
        Effect(tool_id="ship", execute=counted(ship)),
        Effect(tool_id="flaky", execute=counted(flaky)),
    ])


def kit_runtime(store: Any, calls: list[str]) -> Runtime:
    """A runtime over ``store`` with the kit's workflows and fresh effects that append each
    durable call's step id to ``calls``."""
    return Runtime(store=store, effects=_effects(calls), workflows=_WORKFLOWS,
                   on_warn=lambda message: None)


_WORKFLOWS = (Workflow(name="order", body=_order), Workflow(name="pair", body=_pair),
              Workflow(name="failure", body=_failure))


@attrs.frozen(kw_only=True)
class _KitWorld:
    actions: Sequence[Action]

    def runtime(self, store: Any, wrap: Callable[[EffectHost], EffectHost]) -> Runtime:
        return Runtime(store=store, effects=wrap(_effects()), workflows=_WORKFLOWS,
                       on_warn=lambda message: None)

    def snapshot(self) -> Hashable:
        return ()  # the effects are pure: the outside world has no state to rewind

    def restore(self, state: Hashable) -> None:
        pass


@attrs.frozen(kw_only=True)
class KitScenario:
    """A named list of client calls over the kit's workflows."""

    name: str
    actions: Sequence[Action]

    def begin(self) -> _KitWorld:
        return _KitWorld(actions=self.actions)


def _start(eid: str, workflow: str, input: Any, *, crash_after: int = 0,
           torn_bytes: int = 0) -> Action:
    return Action(do="start", execution_id=eid, workflow=workflow, input=input,
                  crash_after=crash_after, torn_bytes=torn_bytes)


KIT_SCENARIOS: tuple[KitScenario, ...] = (
    KitScenario(name="order", actions=(
        _start("o1", "order", {"qty": 3}),
        Action(do="resume", execution_id="o1", gate="ship", payload={"to": "Oslo"}))),
    KitScenario(name="two-executions", actions=(
        _start("a", "pair", "a"), _start("b", "pair", "b"),
        Action(do="resume", execution_id="a", gate="go"))),
    KitScenario(name="failure", actions=(_start("f1", "failure", None),)),
    KitScenario(name="crash-then-start", actions=(
        _start("c1", "order", {"qty": 1}, crash_after=1, torn_bytes=9),
        _start("c1", "order", {"qty": 1}, crash_after=3),
        Action(do="recover", execution_id="c1"),
        Action(do="resume", execution_id="c1", gate="ship", payload={"to": "Lima"}))),
)
