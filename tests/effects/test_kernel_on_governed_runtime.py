"""The kernel driven over the governed EffectRuntime: the same bodies, the whole route.

spec: kernel.effect-seam, effects.scope-principal, effects.retry-attempts
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from loom_ref.effects import (
    Effect,
    EffectContext,
    EffectRuntime,
    Grant,
    GrantAuthorizer,
    ManualClock,
    Mode,
    RetryMiddleware,
)
from loom_ref.journal import EventKind, MemoryStore, Status
from loom_ref.kernel import ExecutionContext, Runtime, StepFailedError, Workflow


def test_durable_steps_and_decider_calls_take_the_governed_route() -> None:
    seen: list[tuple[str, str | None, int, str]] = []

    def flaky(ctx: EffectContext, inp: Any) -> Any:
        seen.append((ctx.tool_id, ctx.idempotency_key, ctx.attempt, ctx.principal))
        if ctx.attempt < 3:
            raise ConnectionError("try again")
        return {"ok": inp}

    def planner(ctx: EffectContext, inp: Any) -> Any:
        seen.append((ctx.tool_id, ctx.idempotency_key, ctx.attempt, ctx.principal))
        return "plan-b"

    def secret(ctx: EffectContext, inp: Any) -> Any:  # pragma: no cover - must not run
        raise AssertionError("a denied call reached the effect")

    host = EffectRuntime(
        [Effect(tool_id="flaky", execute=flaky), Effect(tool_id="planner", execute=planner),
         Effect(tool_id="secret", execute=secret)],
        authorizer=GrantAuthorizer([Grant(principal="x1", tool_id="flaky"),
                                    Grant(principal="x1", tool_id="planner",
                                          modes=[Mode.TRANSIENT])]),
        middleware=[RetryMiddleware(3, base_delay=0.5)],
        clock=ManualClock(),
    )

    def body(ctx: ExecutionContext, _: Any) -> Generator[Any, Any, Any]:
        out = yield ctx.execute("flaky", 7)
        plan = yield ctx.decide("plan", lambda scope: scope.invoke_transient("planner", None))
        try:
            yield ctx.execute("secret", None)
        except StepFailedError as err:
            return [out, plan, err.code]
        return None

    store = MemoryStore()
    rt = Runtime(store=store, effects=host, workflows=[Workflow(name="w", body=body)])
    result = rt.start("w", execution_id="x1")
    assert result.status is Status.COMPLETED
    assert result.output == [{"ok": 7}, "plan-b", "effect.denied"]
    assert seen == [("flaky", "x1/flaky#1", 1, "x1"), ("flaky", "x1/flaky#1", 2, "x1"),
                    ("flaky", "x1/flaky#1", 3, "x1"), ("planner", None, 1, "x1")]
    kinds = [e.kind for e in store.read("x1").events]
    # retries happen inside one step: one STEP_STARTED / STEP_COMPLETED pair for flaky
    assert kinds.count(EventKind.STEP_STARTED) == 2
    assert kinds.count(EventKind.STEP_FAILED) == 1
    # the transient call left no trace in the journal beyond the decision it fed
    assert kinds.count(EventKind.DECISION_RECORDED) == 1
