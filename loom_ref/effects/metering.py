"""Metering: budget admission before the effect, usage records after it.

Spec: ``spec/effects.md``. Rules enforced here and in the runtime:

- ``effects.metering-admission``: *on every attempt, after the mode check and before the kill
  switch, the runtime MUST ask the meter to admit the call; a refusal raises*
  ``effect.over-budget`` *and the effect does not run*.
- ``effects.metering-record``: *every attempt that reached the effect MUST be recorded with
  the usage the effect reported* (``ctx.report_usage``; empty if none), whether the attempt
  returned or raised: a failed attempt spent what it spent. On the durable path the record is
  authoritative (``advisory=False``); on the transient path it is advisory (``advisory=True``):
  nothing journals a transient call, so its record is what the provider reported and nothing
  more (ADR 0119: "The terminal chunk's usage is advisory ... not a metering record").
  A refused call is never recorded: it spent nothing.

:class:`BudgetMeter` is the simple meter: a budget in units, an ``estimate(call)`` of what a
call needs (default 1 unit), and a charge of ``sum(usage.values())`` per record. It charges
advisory records too (a transient call's spend is still spend); the flag is kept on each
:class:`MeterRecord` so an auditor can tell journaled spend from reported spend.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol, runtime_checkable

import attrs

from loom_ref.effects.call import EffectCall, Mode
from loom_ref.effects.decision import ALLOW, Decision
from loom_ref.errors import InvalidArgument

__all__ = ["BudgetMeter", "Meter", "MeterRecord"]


@runtime_checkable
class Meter(Protocol):
    """Budget admission and usage recording (spec: effects.metering-admission,
    effects.metering-record)."""

    def admit(self, call: EffectCall) -> Decision: ...

    def record(self, call: EffectCall, usage: Mapping[str, int], advisory: bool) -> None: ...


@attrs.frozen(kw_only=True)
class MeterRecord:
    """One recorded attempt (spec: effects.metering-record)."""

    tool_id: str
    principal: str
    mode: Mode
    usage: Mapping[str, int]
    charged: int
    advisory: bool


def _one(_call: EffectCall) -> int:
    return 1


class BudgetMeter:
    """A fixed budget: admit while ``spent + estimate(call) <= budget``; charge the sum of
    each record's usage values (spec: effects.metering-admission)."""

    __slots__ = ("budget", "estimate", "records", "spent")

    def __init__(self, budget: int, *, estimate: Callable[[EffectCall], int] = _one) -> None:
        if isinstance(budget, bool) or not isinstance(budget, int) or budget < 0:
            raise InvalidArgument(f"budget must be a non-negative int, got {budget!r}")
        if not callable(estimate):
            raise InvalidArgument("estimate must be callable")
        self.budget = budget
        self.estimate = estimate
        self.spent = 0
        self.records: list[MeterRecord] = []

    @property
    def remaining(self) -> int:
        return self.budget - self.spent

    def admit(self, call: EffectCall) -> Decision:
        if not isinstance(call, EffectCall):  # spec: errors.invalid-argument
            raise InvalidArgument(f"admit takes an EffectCall, got {type(call).__name__}")
        need = self.estimate(call)
        if type(need) is not int or need < 0:
            raise InvalidArgument(f"estimate returned {need!r}; expected an int >= 0")
        if self.spent + need <= self.budget:
            return ALLOW
        return Decision.deny(
            f"budget cannot cover {call.tool_id!r}: needs {need}, {self.remaining} remaining"
        )

    def record(self, call: EffectCall, usage: Mapping[str, int], advisory: bool) -> None:
        # spec: errors.invalid-argument -- usage as report_usage accepts it (spec: effects.usage)
        if not isinstance(call, EffectCall):
            raise InvalidArgument(f"record takes an EffectCall, got {type(call).__name__}")
        if not isinstance(usage, Mapping) or not all(
                isinstance(k, str) and type(v) is int and v >= 0 for k, v in usage.items()):
            raise InvalidArgument(f"usage must map counter names to ints >= 0, got {usage!r}")
        if not isinstance(advisory, bool):
            raise InvalidArgument(f"advisory must be a bool, got {advisory!r}")
        charged = sum(usage.values())
        self.spent += charged
        self.records.append(
            MeterRecord(
                tool_id=call.tool_id,
                principal=call.principal,
                mode=call.mode,
                usage=dict(usage),
                charged=charged,
                advisory=advisory,
            )
        )
