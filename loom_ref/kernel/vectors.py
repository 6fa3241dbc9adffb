"""Vector functions that need the kernel, for the conformance adapter's registry.

``deltas.replay`` (``spec/deltas.md`` §3a.10) pins ``deltas.live-only``: deltas are never
journaled and are not delivered again on replay; with ``"host": "registry"`` it runs on the
kernel's plain :class:`EffectRegistry`, whose channel delivers straight to the sinks
(``deltas.no-runtime``, ``kernel.effect-forms``). It runs a small kernel execution, so it
lives in the kernel layer, which may use the effect runtime below it.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping
from typing import Any

from loom_ref.effects.clock import ManualClock
from loom_ref.effects.context import EffectContext
from loom_ref.effects.effect import Effect
from loom_ref.effects.runtime import EffectRuntime
from loom_ref.effects.scope import DecideScope
from loom_ref.effects.vector_input import items, obj, string
from loom_ref.effects.vectors_llm import REPLAY_FIELDS, RecordingSink
from loom_ref.errors import InvalidArgument
from loom_ref.journal.store import MemoryStore
from loom_ref.kernel.runtime import Runtime
from loom_ref.kernel.seam import EffectHost, EffectRegistry
from loom_ref.kernel.workflow import Workflow

__all__ = ["VECTOR_FUNCTIONS", "vector_deltas_replay"]


def vector_deltas_replay(data: object) -> dict[str, Any]:
    """``deltas.replay`` (``spec/deltas.md`` §3a.10): a kernel execution whose durable step
    ``llm`` and decision ``plan`` (a transient call through the decide scope, with a per-call
    sink) stream ``deltas``; started, resumed on gate ``approve`` with ``"ok"``, then
    replayed read-only, on an ``EffectRuntime`` or (``"host": "registry"``) the plain
    ``EffectRegistry``. Reports the journal and, per phase, what reached the sinks. What
    the workflow leaves unstated takes the kernel's defaults: input ``None`` for the start,
    the step and the scoped call, no ``on`` or correlation key for the gate (spec:
    deltas.vector-replay)."""
    data = obj(data, "input", REPLAY_FIELDS)
    host_kind = string(data, "host", "runtime")
    if host_kind not in ("runtime", "registry"):
        raise InvalidArgument('"host" is "runtime" or "registry"')
    deltas = items(data, "deltas", "input")
    if not deltas or not all(isinstance(d, str) and d for d in deltas):
        raise InvalidArgument('"deltas" must be a non-empty list of non-empty strings')
    per_call = RecordingSink("collect", "perCall")
    configured_kind = data.get("configured", "collect")
    if configured_kind not in ("collect", "none"):  # spec: deltas.vector-replay
        raise InvalidArgument('"configured" is "collect" or "none"')
    configured = RecordingSink(configured_kind, '"configured"')
    executions: list[str] = []

    def execute(ctx: EffectContext, _input: Any) -> str:
        executions.append(ctx.mode.value)
        assert ctx.on_delta is not None
        for text in deltas:
            ctx.on_delta(text)
        ctx.on_delta.end()
        return "".join(deltas)

    effect = Effect(tool_id="llm", execute=execute,
                    delta_sink=None if configured.mode == "none" else configured)
    host: EffectHost = (EffectRegistry([effect], clock=ManualClock()) if host_kind == "registry"
                        else EffectRuntime([effect], clock=ManualClock()))

    def decider(scope: DecideScope) -> Any:
        return scope.invoke_transient("llm", None, on_delta=per_call)

    def body(ctx: Any, _input: Any) -> Generator[Any, Any, Any]:
        step = yield ctx.execute("llm")
        plan = yield ctx.decide("plan", decider)
        payload = yield ctx.suspend("approve")
        return [step, plan, payload]

    store = MemoryStore()
    kernel = Runtime(store=store, effects=host, workflows=[Workflow(name="w", body=body)],
                     on_warn=lambda _w: None)
    phases: list[dict[str, Any]] = []
    acts: list[Callable[[], Any]] = [
        lambda: kernel.start("w", execution_id="x1"),
        lambda: kernel.resume("x1", "approve", "ok"),
        lambda: kernel.replay("x1"),
    ]
    for act in acts:
        marks = (len(per_call.seen), len(configured.seen), len(executions))
        result = act()
        phases.append({
            "status": result.status.value,
            "output": result.output,
            "perCall": per_call.seen[marks[0]:],
            "configured": configured.seen[marks[1]:] if configured.mode != "none" else None,
            "executions": executions[marks[2]:],
        })
    journal = [{"kind": e.to_json()["kind"], "payload": e.payload}
               for e in store.read("x1").events]
    return {"start": phases[0], "resume": phases[1], "replay": phases[2], "journal": journal}



VECTOR_FUNCTIONS: Mapping[str, Callable[[Any], Any]] = {"deltas.replay": vector_deltas_replay}
