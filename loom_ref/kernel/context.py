"""The execution context a runner body receives: it builds commands and derives their ids.

Spec: ``spec/kernel.md``.

- ``kernel.step-identity``: the sequence of ids an execution produces MUST be a pure function
  of its logged inputs (ADR 0087 D2, quoting ADR 0061 D1). An explicit ``step_id`` is used as
  given; otherwise ``execute`` derives ``"<tool_id>#<n>"``, ``n`` counting this execution's
  derived steps for that tool from 1, and ``stream`` derives ``"stream#<n>"``. Both counters
  depend only on the order of commands, which a replay reproduces.
- ``kernel.commands``: the context only *builds* commands; nothing happens until the body
  yields one and the runtime drives it. A body never calls an effect itself.

A fresh context is made for every drive of the body, so counters restart with the replay.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from loom_ref.errors import InvalidArgument
from loom_ref.kernel.commands import Decide, Execute, Stream, Suspend
from loom_ref.schema import check_schema
from loom_ref.signals import Signal

__all__ = ["ExecutionContext"]


def _check_id(kind: str, value: object) -> str:
    """``value`` if it is an id a body may give ``ctx``: a non-empty string (spec: kernel.ids)."""
    if not isinstance(value, str) or not value:
        raise InvalidArgument(f"{kind} must be a non-empty string, got {value!r}",
                              code="argument.id")
    return value


class ExecutionContext:
    """What a body ``body(ctx, input)`` uses to build the commands it yields.

    ``execution_id`` is the running execution; ``signal`` is its cancel signal, composed into
    every effect call it makes.
    (spec: kernel.step-identity)
    """

    __slots__ = ("_derived", "_streams", "execution_id", "signal")

    def __init__(self, execution_id: str) -> None:
        self.execution_id = execution_id
        self.signal = Signal()
        self._derived: dict[str, int] = {}
        self._streams = 0

    def execute(
        self, tool_id: str, input: Any = None, *, step_id: str | None = None,
        signal: Signal | None = None,
    ) -> Execute:
        """A command to run effect ``tool_id`` durably; ``yield`` it to get the output."""
        _check_id("tool_id", tool_id)
        if step_id is None:  # spec: kernel.step-identity, kernel.derived-counters
            n = self._derived.get(tool_id, 0) + 1
            self._derived[tool_id] = n
            step_id = f"{tool_id}#{n}"
        else:
            _check_id("step_id", step_id)
        if signal is not None and not isinstance(signal, Signal):
            raise InvalidArgument(f"signal must be a Signal, got {type(signal).__name__}")
        return Execute(step_id=step_id, tool_id=tool_id, input=input, signal=signal)

    def decide(
        self, decision_id: str, decider: Callable[[Any], Any], *, context: Any = None,
        alternatives: Any = None,
    ) -> Decide:
        """A command to record ``decider(scope)``'s choice; replay serves it instead."""
        _check_id("decision_id", decision_id)
        if not callable(decider):
            raise InvalidArgument("decider must be callable", code="argument.decider")
        return Decide(decision_id=decision_id, decider=decider, context=context,
                      alternatives=alternatives)

    def suspend(self, gate_id: str, *, on: str | None = None,
                correlation_key: str | None = None, resume_schema: Any = None) -> Suspend:
        """A command to park on ``gate_id``; ``yield`` it to get the resume payload.

        ``resume_schema`` (a schema of :mod:`loom_ref.schema`'s subset) is journaled with the
        gate, and a resume payload must satisfy it (spec: kernel.resume-schema)."""
        _check_id("gate_id", gate_id)
        for name, value in (("on", on), ("correlation_key", correlation_key)):
            if value is not None and not isinstance(value, str):
                raise InvalidArgument(f"{name} must be a string or None, got {value!r}")
        if resume_schema is not None:
            check_schema(resume_schema, where="resume_schema")  # fail closed, at the call
        return Suspend(gate_id=gate_id, on=on, correlation_key=correlation_key,
                       resume_schema=resume_schema)

    def stream(self, data: Any) -> Stream:
        """A command to append ``data`` as one durable STREAM_APPENDED event; its id counts
        on a counter of its own (spec: kernel.derived-counters)."""
        self._streams += 1
        return Stream(stream_id=f"stream#{self._streams}", data=data)
