"""A linear model of the kernel: the expected observations of a scenario, without replay.

Rules (``conformance/INTERPRETING.md`` section 11). The model runs the compiled body ONCE,
straight through: each command's effect is taken from the scripted world and its events are
written down as the journal chapter says (spec: journal.payload-shape,
kernel.step-identity, kernel.idempotency-key, kernel.step-failure, kernel.decider-throws,
kernel.resume-schema is not modelled). A suspend ends the action; a ``resume`` action sends
its payload on. The kernel, by contrast, drives the body from the start on every action and
serves what the journal holds, so the two agree only if replay is right: that is what the
seeded random scenarios check.

The model supports ``start`` and ``resume`` only, and bodies whose ids do not repeat; it is
the oracle of :mod:`loom_ref.conformance.random_cases`, not a second implementation.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Generator, Mapping
from typing import Any

from loom_ref.conformance.expressions import ScenarioBug
from loom_ref.conformance.interpreter import compile_body
from loom_ref.conformance.world import World
from loom_ref.errors import LoomError

__all__ = ["model_expectation"]


def _copy(value: Any) -> Any:
    return json.loads(json.dumps(value))


class _Ctx:
    """Builds the model's commands, deriving ids as kernel.step-identity says."""

    def __init__(self) -> None:
        self.per_tool: dict[str, int] = {}
        self.streams = 0

    def execute(self, tool: str, input: Any = None, *, step_id: str | None = None
                ) -> tuple[Any, ...]:
        if step_id is None:
            self.per_tool[tool] = self.per_tool.get(tool, 0) + 1
            step_id = f"{tool}#{self.per_tool[tool]}"
        return ("execute", step_id, tool, input)

    def decide(self, decision_id: str, decider: Callable[[Any], Any], **extra: Any
               ) -> tuple[Any, ...]:
        return ("decide", decision_id, decider, extra)

    def suspend(self, gate: str, *, on: str | None = None, correlation_key: str | None = None,
                resume_schema: Any = None) -> tuple[Any, ...]:
        # the generated bodies give no gate a schema (kernel.resume-schema is not modelled)
        return ("suspend", gate, on, correlation_key)

    def stream(self, data: Any) -> tuple[Any, ...]:
        self.streams += 1
        return ("stream", f"stream#{self.streams}", data)


class _Scope:
    def __init__(self, world: World) -> None:
        self.world = world

    def invoke_transient(self, tool: str, input: Any) -> Any:
        return self.world.transient(tool, input)


class _Model:
    def __init__(self, case: Mapping[str, Any]) -> None:
        self.eid = str(case.get("executionId", "e1"))
        self.world = World(case.get("effects", {}), case.get("deciders", {}))
        self.workflow = case["workflow"]
        self.events: list[dict[str, Any]] = []
        self.gen: Generator[Any, Any, Any] | None = None
        self.ids: set[str] = set()

    # hooks of the compiled body
    def decider(self, name: str, decision_id: str) -> Callable[[Any], Any]:
        return lambda scope: self.world.decide(name, decision_id, scope.invoke_transient)

    def drift(self, name: str, values: list[Any]) -> Any:
        return self.world.drift(name, values)

    def agent_loop(self, ctx: Any, config: Mapping[str, Any], input: Any, *, opaque: bool
                   ) -> Generator[Any, Any, Any]:
        raise ScenarioBug("the linear model does not run agent loops")

    def emit(self, kind: str, payload: dict[str, Any]) -> None:
        event = {"kind": kind, "payload": _copy(payload)}
        self.events.append(event)
        self.world.trace.append({"event": event})

    def act(self, action: Mapping[str, Any]) -> dict[str, Any]:
        self.world.trace = []
        if action["do"] == "start":
            self.emit("EXECUTION_STARTED", {"executionId": self.eid,
                                            "workflow": self.workflow["name"],
                                            "input": action.get("input")})
            self.gen = compile_body(self.workflow["body"], self)(_Ctx(), _copy(action.get("input")))
            result = self.drive(None, None)
        elif action["do"] == "resume":
            gate = action["gate"]
            self.emit("RESUME_RECEIVED", {"gateId": gate, "payload": action.get("payload")})
            self.emit("EXECUTION_RESUMED", {"gateId": gate})
            result = self.drive(_copy(action.get("payload")), None)
        else:
            raise ScenarioBug(f"the model does not support action {action['do']!r}")
        return {"result": result, "trace": self.world.trace, "warnings": []}

    def drive(self, send: Any, throw: LoomError | None) -> dict[str, Any]:
        assert self.gen is not None
        while True:
            try:
                cmd = self.gen.send(send) if throw is None else self.gen.throw(throw)
            except StopIteration as stop:
                self.emit("EXECUTION_COMPLETED", {"output": stop.value})
                return {"status": "completed", "output": _copy(stop.value)}
            except LoomError as exc:
                self.emit("EXECUTION_FAILED", {"error": exc.to_json()})
                return {"status": "failed", "error": {"code": exc.code}}
            send, throw = None, None
            if cmd[1] in self.ids:
                raise ScenarioBug(f"the model does not support a repeated id {cmd[1]!r}")
            self.ids.add(cmd[1])
            kind = cmd[0]
            if kind == "execute":
                _, step, tool, value = cmd
                key = f"{self.eid}/{step}"
                self.emit("STEP_STARTED", {"stepId": step, "toolId": tool, "input": value,
                                           "idempotencyKey": key})
                try:
                    output = self.world.call(tool, value, step_id=step, idempotency_key=key)
                except LoomError as exc:
                    self.emit("STEP_FAILED", {"stepId": step, "error": exc.to_json()})
                    throw = exc
                else:
                    self.emit("STEP_COMPLETED", {"stepId": step, "output": output})
                    send = _copy(output)
            elif kind == "decide":
                _, decision, decider, extra = cmd
                try:
                    answer = decider(_Scope(self.world))
                except LoomError as exc:
                    throw = exc
                    continue
                payload: dict[str, Any] = {"decisionId": decision, "choice": answer.value}
                if answer.policy is not None:
                    payload["policy"] = {"id": answer.policy, "propensity": answer.propensity}
                payload.update({k: v for k, v in extra.items() if v is not None})
                self.emit("DECISION_RECORDED", payload)
                send = _copy(answer.value)
            elif kind == "stream":
                self.emit("STREAM_APPENDED", {"streamId": cmd[1], "data": cmd[2]})
            else:
                _, gate, on, correlation = cmd
                self.emit("EXECUTION_SUSPENDED", {"gateId": gate, "on": on,
                                                  "correlationKey": correlation})
                return {"status": "suspended", "waitingOn": gate}


def model_expectation(case: Mapping[str, Any]) -> dict[str, Any]:
    """The ``expect`` member of a start/resume scenario, computed by the linear model."""
    model = _Model(case)
    actions = [model.act(action) for action in case["actions"]]
    return {"actions": actions, "journal": {"events": model.events, "tornTail": False}}
