"""The commands a runner body yields, built by :class:`~loom_ref.kernel.context.ExecutionContext`.

Spec: ``spec/kernel.md`` (``kernel.commands``): a body MUST interact with the outside world
only by yielding these four commands; the closed set is what makes a body replayable.

- :class:`Execute` -- run an effect durably as a step (``ctx.execute``);
- :class:`Decide` -- record a decision, served on replay (``ctx.decide``);
- :class:`Suspend` -- park on a named gate until resumed (``ctx.suspend``);
- :class:`Stream` -- append one durable stream event (``ctx.stream``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

from loom_ref.signals import Signal

__all__ = ["Choice", "Command", "Decide", "Execute", "Stream", "Suspend"]


@attrs.frozen(kw_only=True)
class Execute:
    """Run ``tool_id`` with ``input`` as the step ``step_id`` (spec: kernel.commands)."""

    step_id: str
    tool_id: str
    input: Any
    signal: Signal | None = None


@attrs.frozen(kw_only=True)
class Choice:
    """A decider's answer with its policy: ``propensity`` is the probability the policy gave
    to ``value`` (journaled as ``policy: {id, propensity}``, ADR 0087 D1 "carrying ...
    propensity") (spec: kernel.commands)."""

    value: Any
    policy_id: str
    propensity: float | None = None


@attrs.frozen(kw_only=True)
class Decide:
    """Ask ``decider(scope)`` for a choice, once; replay serves the recorded choice.
    (spec: kernel.commands)
    """

    decision_id: str
    decider: Callable[[Any], Any]
    context: Any = None
    alternatives: Any = None


@attrs.frozen(kw_only=True)
class Suspend:
    """Park on ``gate_id`` until :meth:`Runtime.resume` delivers its payload; a resume payload
    must satisfy ``resume_schema`` when one is given (journaled with the gate).
    (spec: kernel.commands)"""

    gate_id: str
    on: str | None = None
    correlation_key: str | None = None
    resume_schema: Any = None


@attrs.frozen(kw_only=True)
class Stream:
    """Append ``data`` to the execution's durable stream as ``stream_id``.
    (spec: kernel.commands)
    """

    stream_id: str
    data: Any


Command = Execute | Decide | Suspend | Stream
