"""A small multi-step workflow and a counting effect host shared by the kernel tests."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from loom_ref.effects import Effect, EffectContext
from loom_ref.journal import Crash, FaultInjectingStore, MemoryStore, Status
from loom_ref.kernel import Choice, EffectRegistry, ExecutionContext, Runtime, Workflow

APPROVAL = {"type": "object", "required": ["approved"],
            "properties": {"approved": {"type": "boolean"}}, "additionalProperties": False}


class Counting:
    """Fresh effect instances: records every call made to them."""

    def __init__(self, *, charge_idempotent: bool = False) -> None:
        self.calls: list[tuple[str, str | None, Any]] = []
        self.deciders = 0
        self.registry = EffectRegistry([
            Effect(tool_id="lookup", execute=self.lookup, idempotent=True),
            Effect(tool_id="charge", execute=self.charge, idempotent=charge_idempotent),
        ])

    def lookup(self, ctx: EffectContext, input: Any) -> Any:
        self.calls.append(("lookup", ctx.idempotency_key, input))
        return {"price": 10 * input["qty"]}

    def charge(self, ctx: EffectContext, input: Any) -> Any:
        self.calls.append(("charge", ctx.idempotency_key, input))
        return {"receipt": f"r-{input['amount']}"}

    def decider(self, scope: Any) -> Any:
        self.deciders += 1
        return Choice(value="card", policy_id="pay-policy", propensity=0.8)


def order_body(effects: Counting) -> Workflow:
    def body(ctx: ExecutionContext, order: Any) -> Generator[Any, Any, Any]:
        quote = yield ctx.execute("lookup", {"qty": order["qty"]})
        method = yield ctx.decide("method", effects.decider, alternatives=["card", "invoice"])
        yield ctx.stream({"quoted": quote["price"]})
        answer = yield ctx.suspend("approval", on="HumanApproval")
        if not answer["approved"]:
            return {"status": "refused"}
        receipt = yield ctx.execute("charge", {"amount": quote["price"], "method": method})
        return {"status": "paid", "receipt": receipt["receipt"]}

    return Workflow(name="order", body=body, resume_schemas={"approval": APPROVAL})


def run_to_end(runtime: Runtime, execution_id: str, *, recover: bool = False) -> Any:
    result = runtime.recover(execution_id) if recover else runtime.start(
        "order", {"qty": 3}, execution_id=execution_id)
    if result.status is Status.SUSPENDED:
        result = runtime.resume(execution_id, "approval", {"approved": True})
    return result


def make_runtime(store: Any, effects: Counting, warnings: list[str] | None = None) -> Runtime:
    sink = warnings if warnings is not None else []
    return Runtime(store=store, effects=effects.registry, workflows=[order_body(effects)],
                   on_warn=sink.append)


def crash_run(k: int, *, charge_idempotent: bool = False) -> tuple[MemoryStore, Counting]:
    """Run the order workflow on a store that crashes after append ``k``."""
    store = MemoryStore()
    effects = Counting(charge_idempotent=charge_idempotent)
    runtime = make_runtime(FaultInjectingStore(store, crash_after=k), effects)
    try:
        run_to_end(runtime, "o1")
    except Crash:
        pass
    return store, effects
