"""Seeded random scenarios: programs in the body language, with the model's expectations.

Rules (``conformance/INTERPRETING.md`` section 11): ``random_case(rng, seed, index)`` draws
a program (scripted tools that return, echo or fail; scripted deciders, some calling a tool
transiently; a body of executes, decisions, stream appends, gates and try/catch, threading
values through variables), starts it, and resumes each gate it reaches. Its expectation is
:func:`~loom_ref.conformance.model.model_expectation`. The same seed gives the same cases in
every run and on every machine (``random.Random`` is seeded explicitly, and nothing else is
drawn), so ``loom-ref conformance --generate N --seed S`` exports them as ordinary case files
for other implementations, and the runner derives their crash matrices like any others.
"""

from __future__ import annotations

import random
from typing import Any

from loom_ref.conformance.case import Case
from loom_ref.conformance.model import model_expectation

__all__ = ["random_case", "random_cases"]

_MAX_RESUMES = 8


def _json(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(7 if depth < 2 else 5)
    if kind == 0:
        return rng.randint(-5, 100)
    if kind == 1:
        return rng.choice(["a", "b", "ok", "x y", "é", ""])
    if kind == 2:
        return rng.random() < 0.5
    if kind == 3:
        return None
    if kind == 4:
        return rng.choice([0.5, 2.25, -1.5])
    if kind == 5:
        return [_json(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {rng.choice("kpqr") + str(i): _json(rng, depth + 1) for i in range(rng.randint(0, 3))}


def _tool_script(rng: random.Random, n: int) -> list[Any]:
    script: list[Any] = []
    for i in range(rng.randint(1, 3)):
        roll = rng.random()
        if roll < 0.2:
            script.append({"raise": {"code": f"tool.failed-{n}", "message": f"boom {n}.{i}"}})
        elif roll < 0.5:
            script.append({"echo": True})
        else:
            script.append({"return": _json(rng)})
    return script


def _decider_script(rng: random.Random, tools: list[str]) -> list[Any]:
    script: list[Any] = []
    for _ in range(rng.randint(1, 3)):
        roll = rng.random()
        if roll < 0.4:
            script.append({"return": _json(rng)})
        elif roll < 0.75:
            script.append({"choice": rng.choice(["left", "right", 3]), "policy": "pol",
                           "propensity": rng.choice([0.25, 0.5, 1])})
        else:
            script.append({"invokeTransient": {"tool": rng.choice(tools), "input": _json(rng)}})
    return script


class _Program:
    def __init__(self, rng: random.Random, tools: list[str], deciders: list[str]) -> None:
        self.rng = rng
        self.tools = tools
        self.deciders = deciders
        self.vars: list[str] = []
        self.ids = 0

    def value(self) -> Any:
        if self.vars and self.rng.random() < 0.5:
            ref = {"$var": self.rng.choice(self.vars)}
            return ref if self.rng.random() < 0.5 else {"from": ref, "n": self.rng.randint(0, 9)}
        return _json(self.rng)

    def bind(self) -> str:
        name = f"v{len(self.vars)}"
        return name

    def instruction(self) -> list[Any]:
        rng = self.rng
        roll = rng.random()
        self.ids += 1
        if roll < 0.4:
            var = self.bind()
            ins = {"op": "execute", "tool": rng.choice(self.tools), "input": self.value(),
                   "as": var}
            if rng.random() < 0.2:
                ins["stepId"] = f"s{self.ids}"
            if rng.random() < 0.35:
                err = f"e{self.ids}"
                self.vars.append(var)
                return [{"op": "set", "var": var, "value": None},
                        {"op": "try", "body": [ins],
                         "catch": {"as": err, "body": [{"op": "set", "var": var,
                                                        "value": {"$var": err}}]}}]
            self.vars.append(var)
            return [ins]
        if roll < 0.6:
            var = self.bind()
            ins = {"op": "decide", "id": f"d{self.ids}", "decider": rng.choice(self.deciders),
                   "as": var}
            if rng.random() < 0.3:
                ins["alternatives"] = ["left", "right"]
            self.vars.append(var)
            return [ins]
        if roll < 0.78:
            return [{"op": "stream", "data": self.value()}]
        var = self.bind()
        ins = {"op": "suspend", "gate": f"g{self.ids}", "as": var}
        if rng.random() < 0.3:
            ins["on"] = "Approval"
        self.vars.append(var)
        return [ins]


def random_case(rng: random.Random, seed: int, index: int) -> dict[str, Any]:
    """One random scenario case (with its expectation)."""
    tools = [f"t{i}" for i in range(rng.randint(1, 3))]
    effects = {t: {"idempotent": rng.random() < 0.4, "script": _tool_script(rng, i)}
               for i, t in enumerate(tools)}
    decider_names = [f"p{i}" for i in range(rng.randint(1, 2))]
    deciders = {d: {"script": _decider_script(rng, tools)} for d in decider_names}
    program = _Program(rng, tools, decider_names)
    body: list[Any] = []
    for _ in range(rng.randint(1, 8)):
        body += program.instruction()
    body.append({"op": "return", "value": {v: {"$var": v} for v in program.vars}})
    case: dict[str, Any] = {
        "id": f"random.s{seed}/case-{index:04d}",
        "anchor": "kernel.recover",
        # loom-ref's own generator and model: its programs lean on loom-ref's choices too
        # (scripted failures' codes, try/catch, transient calls in deciders)
        "provenance": "loom-ref",
        "tier": "must",
        "description": f"Seeded random program (seed {seed}, #{index}): the kernel agrees with "
                       "the linear model, and recovers from a crash at every event.",
        "family": "scenario",
        "workflow": {"name": "random", "body": body},
        "effects": effects,
        "deciders": deciders,
        "actions": [{"do": "start", "input": _json(rng)}],
    }
    for _ in range(_MAX_RESUMES):
        expect = model_expectation(case)
        last = expect["actions"][-1]["result"]
        if last["status"] != "suspended":
            break
        case["actions"].append({"do": "resume", "gate": last["waitingOn"],
                                "payload": {"answer": _json(rng)}})
    case["expect"] = model_expectation(case)
    return case


def random_cases(count: int, seed: int) -> list[Case]:
    """``count`` cases drawn from ``random.Random(seed)``."""
    rng = random.Random(seed)
    return [Case(data=random_case(rng, seed, i)) for i in range(count)]
