"""The conformance suite's scenarios as power-loss scenarios (loom_ref.testing.powerloss).

Every scenario case of the kernel, journal and agent groups (the cases' bodies, scripted
effects, deciders, drift and agent loops, run by the conformance interpreter) becomes a
:class:`~loom_ref.testing.powerloss.Scenario`: its actions become client calls (a case's
``crash`` stays a process crash), its scripted world is the outside world, rewound to the
moment power was cut. Cases that edit the journal's bytes by hand (``tear``, ``corrupt``,
``appendBytes``) or hold a second writer are left out: they test the reader, not a power
loss, and run on every store in the conformance suite itself. ``replay`` actions write
nothing and are dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

import attrs

from loom_ref.conformance.case import Case, Family
from loom_ref.conformance.expressions import ScenarioBug
from loom_ref.conformance.scenario import TORN_BYTES, ScenarioRun
from loom_ref.errors import KernelError
from loom_ref.journal import MemoryStore
from loom_ref.kernel import EffectHost, Runtime
from loom_ref.testing.powerloss import Action

from ..conformance.helpers import cases

RAW = frozenset({"tear", "appendBytes", "corrupt", "holdWriter", "releaseWriter"})
GROUPS = ("kernel.", "journal.", "agent.")


def _action(case: Case, data: dict[str, Any], workflow: str) -> Action:
    eid = str(case.data.get("executionId", "e1"))
    crash = data.get("crash") or {}
    common: dict[str, Any] = {
        "execution_id": eid, "crash_after": crash.get("afterEvent", 0),
        "torn_bytes": TORN_BYTES if crash.get("torn") else 0}
    do = data["do"]
    if do == "start":
        return Action(do="start", workflow=data.get("workflow", workflow),
                      input=data.get("input"), **common)
    if do == "resume":
        return Action(do="resume", gate=data["gate"], payload=data.get("payload"), **common)
    if do == "resolve":
        return Action(do="resolve", step=data["step"], resolution={
            k: data[k] for k in ("output", "error", "retry") if k in data}, **common)
    return Action(do="recover", **common)


class CannotGoOn(KernelError):
    """The case's body met a state its author did not write it for (a variable it binds on
    one path only, read on another): the client gives up on this execution."""

    code = "conformance.cannot-go-on"


class _Guarded:
    """A runtime whose calls turn a case's :class:`ScenarioBug` into a refusal: a power loss
    under a weak policy can send a recovered body down a path the case never meant, and
    that is the policy's loss (the invariants judge it), not the case's bug."""

    def __init__(self, runtime: Any, world: _World) -> None:
        self._runtime = runtime
        self._world = world

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._runtime, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return method(*args, **kwargs)
            except ScenarioBug as bug:
                self._world.gave_up += 1
                raise CannotGoOn(str(bug)) from None
        return call


class _World:
    def __init__(self, case: Case) -> None:
        self.run = ScenarioRun(case.data, runtime_factory=Runtime, store=MemoryStore())
        self.gave_up = 0
        name = self.run.workflow_spec["name"]
        self.actions: Sequence[Action] = [
            _action(case, a, name) for a in case.data["actions"] if a["do"] != "replay"]

    def runtime(self, store: Any, wrap: Callable[[EffectHost], EffectHost]) -> Any:
        return _Guarded(self.run.runtime(store, wrap(self.run.effects())), self)

    def snapshot(self) -> Hashable:
        world = self.run.world
        return tuple(tuple(sorted(counts.items())) for counts in (
            world.effect_counts, world.decider_counts, world.drift_counts))

    def restore(self, state: Hashable) -> None:
        world = self.run.world
        effects, deciders, drift = state  # type: ignore[misc]
        world.effect_counts, world.decider_counts, world.drift_counts = (
            dict(effects), dict(deciders), dict(drift))


@attrs.frozen
class CaseScenario:
    case: Case

    @property
    def name(self) -> str:
        return self.case.id

    def begin(self) -> _World:
        return _World(self.case)


def case_scenarios() -> list[CaseScenario]:
    """Every kernel, journal and agent scenario case that a power loss can be cut into."""
    return [CaseScenario(c) for c in cases() if c.family is Family.SCENARIO
            and c.group.startswith(GROUPS)
            and not any(a["do"] in RAW for a in c.data["actions"])]
