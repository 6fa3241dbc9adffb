"""The scripted world of a scenario: effects, deciders and drift, and the trace they leave.

Rules (``conformance/INTERPRETING.md`` section 6):

- A scripted effect answers its n-th invocation *in the whole case* (durable and transient
  calls alike, across crashes, recoveries and restarts) with entry ``n`` of its script, the
  last entry repeating: ``{"return": v}``, ``{"raise": {code, message}}`` (without
  ``code``: an error that carries none, :class:`ScriptedFailure`), ``{"echo": true}``
  (return the call's input) or ``{"attempt": true}`` (return the attempt number the host's
  context gave the call: the kernel's plain host gives every call 1, spec:
  kernel.effect-forms). An effect may list the modes it allows (``modes``, default
  both): the host refuses a call in another mode with ``effect.mode-refused`` before the
  effect runs, so the refused call is not traced and uses no script entry. The count
  belongs to the world, not to the process: "fresh effects" after a crash are fresh
  instances talking to the same world, so a recovered run sees exactly what an uncrashed
  one would have seen at that point.
- A scripted decider answers its n-th invocation in the whole case the same way:
  ``{"return": v}``, ``{"raise": ...}``, ``{"choice": v, "policy": p, "propensity": x}`` (a
  choice with its policy), or ``{"invokeTransient": {"tool", "input"}}`` (call ``tool``
  through the decide scope, transiently, and return its output). A decider whose answers
  change with the count is a *drifting* decider: a replay that re-ran it would be visible.
- Every invocation is recorded in the current action's trace, in order:
  ``{"call": {tool, stepId, idempotencyKey, input}}`` (a durable call),
  ``{"transient": {tool, input}}``, ``{"decider": {decisionId}}``.

Nothing here knows loom_ref's kernel: the in-process adapter and the linear model both drive
this same world.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from loom_ref.conformance.expressions import ScenarioBug
from loom_ref.errors import LoomError

__all__ = ["Answer", "ScriptedError", "ScriptedFailure", "World"]


class ScriptedError(LoomError):
    """The error a script raises: its code and message are the script's."""

    code = "conformance.scripted"


class ScriptedFailure(Exception):
    """What a script raises without a code: an error that carries none (in Python, an
    ``Exception`` that is no ``LoomError``)."""


def _raise(err: Mapping[str, Any]) -> None:
    if "code" in err:
        raise ScriptedError(err["message"], code=err["code"])
    raise ScriptedFailure(err["message"])


@attrs.frozen(kw_only=True)
class Answer:
    """A decider's answer: ``value``, with ``policy`` and ``propensity`` for a choice."""

    value: Any
    policy: str | None = None
    propensity: float | None = None


def _copy(value: Any) -> Any:
    return json.loads(json.dumps(value))


def _entry(script: list[Any], n: int) -> Mapping[str, Any]:
    return script[min(n, len(script) - 1)]  # type: ignore[no-any-return]


class World:
    """One case's scripted effects and deciders, with their case-wide counters."""

    def __init__(self, effects: Mapping[str, Any], deciders: Mapping[str, Any]) -> None:
        self.effects = effects
        self.deciders = deciders
        self.effect_counts: dict[str, int] = {}
        self.decider_counts: dict[str, int] = {}
        self.drift_counts: dict[str, int] = {}
        self.trace: list[dict[str, Any]] = []

    def has_tool(self, tool: str) -> bool:
        return tool in self.effects

    def is_idempotent(self, tool: str) -> bool:
        spec = self.effects.get(tool)
        return bool(spec and spec.get("idempotent", False))

    def modes(self, tool: str) -> list[str]:
        """The modes ``tool`` allows: its ``modes`` member, both when it has none."""
        return list(self.effects.get(tool, {}).get("modes", ("durable", "transient")))

    def _answer(self, tool: str, input: Any, attempt: int) -> Any:
        n = self.effect_counts.get(tool, 0)
        self.effect_counts[tool] = n + 1
        entry = _entry(self.effects[tool]["script"], n)
        if "raise" in entry:
            _raise(entry["raise"])
        if "echo" in entry:
            return _copy(input)
        if "attempt" in entry:
            return attempt
        return _copy(entry["return"])

    def call(self, tool: str, input: Any, *, step_id: str, idempotency_key: str,
             attempt: int = 1) -> Any:
        """A durable invocation of ``tool`` (the kernel journals around it); ``attempt`` is
        the one the host's context gave the call (a host that never retries: 1)."""
        self.record_call(tool, input, step_id=step_id, idempotency_key=idempotency_key)
        return self._answer(tool, input, attempt)

    def record_call(self, tool: str, input: Any, *, step_id: str, idempotency_key: str
                    ) -> None:
        """Trace a durable invocation of ``tool`` (answered by someone else)."""
        self.trace.append({"call": {"tool": tool, "stepId": step_id,
                                    "idempotencyKey": idempotency_key, "input": _copy(input)}})

    def transient(self, tool: str, input: Any, *, attempt: int = 1) -> Any:
        """A transient invocation of ``tool`` (never journaled); ``attempt`` as for
        :meth:`call`."""
        self.trace.append({"transient": {"tool": tool, "input": _copy(input)}})
        return self._answer(tool, input, attempt)

    def decide(self, name: str, decision_id: str,
               invoke_transient: Callable[[str, Any], Any]) -> Answer:
        """Run decider ``name`` for ``decision_id``; raise what its script raises."""
        self.trace_decider(decision_id)
        return self.answer(name, invoke_transient)

    def trace_decider(self, decision_id: str) -> None:
        """Record that a decider runs for ``decision_id`` (before its decision is journaled)."""
        self.trace.append({"decider": {"decisionId": decision_id}})

    def answer(self, name: str, invoke_transient: Callable[[str, Any], Any]) -> Answer:
        """The next answer of scripted decider ``name``, untraced (the agent loop's deciders
        are traced by the decision they run under, see ``trace_decider``)."""
        if name not in self.deciders:
            raise ScenarioBug(f"no decider named {name!r} in the case")
        n = self.decider_counts.get(name, 0)
        self.decider_counts[name] = n + 1
        entry = _entry(self.deciders[name]["script"], n)
        if "raise" in entry:
            _raise(entry["raise"])
        if "choice" in entry:
            return Answer(value=_copy(entry["choice"]), policy=entry["policy"],
                          propensity=entry.get("propensity"))
        if "invokeTransient" in entry:
            spec = entry["invokeTransient"]
            return Answer(value=invoke_transient(spec["tool"], _copy(spec.get("input"))))
        return Answer(value=_copy(entry["return"]))

    def drift(self, name: str, values: list[Any]) -> Any:
        """The next value of drift source ``name`` (see ``$drift``)."""
        n = self.drift_counts.get(name, 0)
        self.drift_counts[name] = n + 1
        return _copy(values[min(n, len(values) - 1)])
