"""The power-loss matrix: cut power after every write and every fsync, recover on fresh
effects, and check the invariants the fsync policy promises (``spec/journal.md`` 1.8).

How one scenario is judged (:func:`run_power_loss`):

1. *The recorded run.* The scenario's client calls run one after the other, each as a new
   process (a fresh store over the same :class:`~loom_ref.journal.powerloss.SimulatedDisk`,
   a fresh runtime, fresh effect instances), with the process crashes the scenario asks for
   (:class:`~loom_ref.journal.faults.FaultInjectingStore`). Every moment of the disk (a file
   created, bytes appended, a truncation, a file or directory synced) is snapshotted with
   the outside world as it stood: the *timeline* of effects that ran (an external ledger:
   it survives every crash) and events appended, the calls acknowledged so far (a call
   returned a result: the caller saw it), and the world's own state.
2. *Every cut.* For every moment and every image a power loss then may leave (deduplicated),
   the machine boots: a fresh disk from the image, the world put back as it was at that
   moment, and the client carries on as a client would: it recovers every execution that
   has started, starts again one the store says never started (its start was never
   acknowledged, or was lost), and re-issues the call that was in flight and every later one
   (a refusal such as "already resumed" means the call had taken effect).
3. *The invariants* (:class:`~loom_ref.journal.durability.Invariant`), checked on every
   recovery: the journals read back (``readable``); every acknowledged call's events are
   still there (``acknowledged-kept``); no effect whose outcome an acknowledged result showed
   runs again (``seen-not-rerun``); no non-idempotent effect that ran runs again
   (``ran-once-or-in-doubt``: the kernel must find it completed or in doubt); and no decision
   that was acted on (an effect ran after it, or a call returned) is recorded again
   (``choice-kept``).

:func:`check_policy` then holds the outcome to the durability table: no invariant the policy
keeps is ever broken, and every invariant it gives up is broken somewhere (the simulation
can fail, and the weaker policies lose what the table says they may lose).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any, Protocol

import attrs

from loom_ref.errors import JournalError, LoomError
from loom_ref.journal import (
    GUARANTEES,
    Crash,
    Event,
    EventKind,
    FaultInjectingStore,
    FileSystem,
    FsyncPolicy,
    Invariant,
    JournalNotFoundError,
    ParsedJournal,
)
from loom_ref.journal.powerloss import DiskImage, DiskSnapshot, SimulatedDisk
from loom_ref.journal.store import JournalWrapper
from loom_ref.kernel import EffectHost, Runtime

__all__ = [
    "Action",
    "PowerLossReport",
    "PowerLossViolation",
    "Scenario",
    "StoreMaker",
    "World",
    "check_policy",
    "run_power_loss",
]

#: ``make(fs, policy)`` -> a journal store over the file layer ``fs`` (closed with ``close()``
#: if it has one): what a process opens when it starts.
StoreMaker = Callable[[FileSystem, FsyncPolicy], Any]


@attrs.frozen(kw_only=True)
class Action:
    """One client call: ``start``, ``resume``, ``recover`` or ``resolve``; with
    ``crash_after`` the process dies after that many appends of the call (``torn_bytes``:
    the last of them torn)."""

    do: str
    execution_id: str
    workflow: str = ""
    input: Any = None
    gate: str = ""
    payload: Any = None
    step: str = ""
    resolution: Mapping[str, Any] = attrs.field(factory=dict)
    crash_after: int = 0
    torn_bytes: int = 0


class World(Protocol):
    """One run of a scenario: its client calls, and the outside world its effects touch."""

    @property
    def actions(self) -> Sequence[Action]: ...

    def runtime(self, store: Any, wrap: Callable[[EffectHost], EffectHost]) -> Runtime:
        """A runtime over ``store`` with fresh effects, their host passed through ``wrap``."""
        ...

    def snapshot(self) -> Hashable:
        """The world's own state (scripted counters), to put back with :meth:`restore`."""
        ...

    def restore(self, state: Hashable) -> None: ...


class Scenario(Protocol):
    """A named scenario: each :meth:`begin` gives a fresh world."""

    @property
    def name(self) -> str: ...

    def begin(self) -> World: ...


@attrs.frozen(kw_only=True)
class PowerLossViolation:
    """An invariant broken by a recovery: where power was cut, what the disk kept, why
    (spec: journal.power-loss). Not ``stream.Violation``, a broken chunk contract."""

    invariant: Invariant
    scenario: str
    policy: FsyncPolicy
    moment: int
    op: str
    variant: str
    detail: str

    def __str__(self) -> str:
        return (f"{self.invariant.value}: {self.scenario} under {self.policy.value}, power cut "
                f"after moment {self.moment} ({self.op}), disk {self.variant}: {self.detail}")


@attrs.define(kw_only=True)
class PowerLossReport:
    """What :func:`run_power_loss` did and found."""

    scenario: str
    policy: FsyncPolicy
    moments: int = 0
    recoveries: int = 0
    checks: int = 0
    violations: list[PowerLossViolation] = attrs.field(factory=list)


# -- the timeline: the outside world's record, which no crash takes back ---------------------
_Entry = tuple[str, str, str, str, bool]  # (what, execution id, id, tool or kind, idempotent)


class _RecordingHost:
    """An effect host that writes every durable invocation to the timeline (module rules)."""

    def __init__(self, inner: EffectHost, timeline: list[_Entry]) -> None:
        self._inner = inner
        self._timeline = timeline

    def invoke(self, call: Any) -> Any:
        try:
            return self._inner.invoke(call)
        finally:  # it ran, whatever it returned
            self._timeline.append(("effect", call.execution_id or "", call.step_id or "",
                                   call.tool_id, self._inner.is_idempotent(call.tool_id)))

    def invoke_transient_call(self, call: Any) -> Any:
        return self._inner.invoke_transient_call(call)

    def is_idempotent(self, tool_id: str) -> bool:
        return self._inner.is_idempotent(tool_id)


def _item_id(kind: EventKind, payload: Mapping[str, Any]) -> str:
    for key in ("stepId", "decisionId", "gateId", "streamId"):
        if key in payload:
            return str(payload[key])
    return ""


class _TracingJournal(JournalWrapper):
    def __init__(self, inner: Any, timeline: list[_Entry]) -> None:
        super().__init__(inner)
        self._timeline = timeline

    def append(self, kind: EventKind, payload: Mapping[str, Any]) -> Event:
        event = self._inner.append(kind, payload)
        self._timeline.append(("append", self.execution_id, _item_id(kind, payload),
                               kind.value, False))
        return event


class _TracingStore:
    def __init__(self, inner: Any, timeline: list[_Entry]) -> None:
        self._inner = inner
        self._timeline = timeline

    def exists(self, execution_id: str) -> bool:
        return bool(self._inner.exists(execution_id))

    def read(self, execution_id: str) -> ParsedJournal:
        return self._inner.read(execution_id)  # type: ignore[no-any-return]

    def create(self, execution_id: str) -> _TracingJournal:
        return _TracingJournal(self._inner.create(execution_id), self._timeline)

    def open(self, execution_id: str) -> _TracingJournal:
        return _TracingJournal(self._inner.open(execution_id), self._timeline)


def _close(store: Any) -> None:
    close = getattr(store, "close", None)
    if callable(close):
        close()


def _events(store: Any, execution_id: str) -> list[dict[str, Any]]:
    if not store.exists(execution_id):
        return []
    return [e.to_json() for e in store.read(execution_id).events]


@attrs.frozen(kw_only=True)
class _Ack:
    """A call that returned: the events its execution had then, and the timeline's length."""

    timeline: int
    execution_id: str
    events: tuple[dict[str, Any], ...]


def _do(runtime: Runtime, action: Action) -> None:
    eid = action.execution_id
    if action.do == "start":
        runtime.start(action.workflow, action.input, execution_id=eid)
    elif action.do == "resume":
        runtime.resume(eid, action.gate, action.payload)
    elif action.do == "recover":
        runtime.recover(eid)
    elif action.do == "resolve":
        runtime.resolve(eid, action.step, **dict(action.resolution))
    else:
        raise ValueError(f"unknown action {action.do!r}")


def _call(world: World, make: StoreMaker, disk: SimulatedDisk, policy: FsyncPolicy,
          action: Action, timeline: list[_Entry]) -> _Ack | None:
    """Run one client call as one process; the acknowledgement if it returned a result."""
    store = make(disk, policy)
    try:
        target: Any = _TracingStore(store, timeline)
        if action.crash_after:
            target = FaultInjectingStore(target, crash_after=action.crash_after,
                                         torn_bytes=action.torn_bytes)
        try:  # a runtime the process cannot build (a workflow it refuses) is a refusal too
            runtime = world.runtime(target, lambda host: _RecordingHost(host, timeline))
            _do(runtime, action)
        except Crash:  # the process died: nothing was acknowledged
            return None
        except LoomError as exc:
            if isinstance(exc, JournalError) and not isinstance(exc, JournalNotFoundError) and (
                    exc.code not in ("journal.exists", "journal.locked")):
                raise
            return None  # a refusal acknowledges no progress
        return _Ack(timeline=len(timeline), execution_id=action.execution_id,
                    events=tuple(_events(store, action.execution_id)))
    finally:
        _close(store)


@attrs.frozen(kw_only=True)
class _Moment:
    snapshot: DiskSnapshot
    world: Hashable
    timeline: int
    acks: int
    action: int


def _checks(acks: Sequence[_Ack], pre: Sequence[_Entry], post: Sequence[_Entry],
            retried: set[tuple[str, str]]) -> Iterable[tuple[Invariant, str]]:
    """The broken invariants among seen-not-rerun, ran-once-or-in-doubt, choice-kept."""
    post_effects = [(e[1], e[2], e[4]) for e in post if e[0] == "effect"]
    seen = {(a.execution_id, ev["payload"]["stepId"]) for a in acks for ev in a.events
            if ev["kind"] in ("STEP_COMPLETED", "STEP_FAILED")}
    for eid, step, _ in post_effects:
        if (eid, step) in seen:
            yield Invariant.SEEN_NOT_RERUN, f"step {step!r} of {eid!r} ran again"
    ran = {(e[1], e[2]) for e in pre if e[0] == "effect" and not e[4]}
    for eid, step, idempotent in post_effects:
        if not idempotent and (eid, step) in ran - retried:
            yield Invariant.RAN_ONCE_OR_IN_DOUBT, (
                f"non-idempotent step {step!r} of {eid!r} ran again, not found in doubt")
    acted = set()
    for i, entry in enumerate(pre):
        if entry[0] == "append" and entry[3] == "DECISION_RECORDED":
            later = pre[i + 1:]
            if any(e[0] == "effect" and e[1] == entry[1] for e in later) or any(
                    a.timeline > i for a in acks):
                acted.add((entry[1], entry[2]))
    for entry in post:
        if entry[0] == "append" and entry[3] == "DECISION_RECORDED" and (
                (entry[1], entry[2]) in acted):
            yield Invariant.CHOICE_KEPT, f"decision {entry[2]!r} of {entry[1]!r} made again"


def run_power_loss(scenario: Scenario, make: StoreMaker, policy: FsyncPolicy, *,
                   directories: Sequence[str] = ("/disk",)) -> PowerLossReport:
    """Run ``scenario`` on a simulated disk under ``policy``, cut power after every moment,
    recover and check the invariants (module rules)."""
    report = PowerLossReport(scenario=scenario.name, policy=policy)
    world = scenario.begin()
    timeline: list[_Entry] = []
    acks: list[_Ack] = []
    moments: list[_Moment] = []
    current = [0]

    def observe(disk: SimulatedDisk) -> None:
        moments.append(_Moment(snapshot=disk.snapshot(), world=world.snapshot(),
                               timeline=len(timeline), acks=len(acks), action=current[0]))

    disk = SimulatedDisk(directories=directories, observer=observe)
    actions = list(world.actions)
    for i, action in enumerate(actions):
        current[0] = i
        ack = _call(world, make, disk, policy, action, timeline)
        if ack is not None:
            acks.append(ack)
    report.moments = len(moments)

    first_start: dict[str, tuple[int, Action]] = {}
    for i, action in enumerate(actions):
        if action.do == "start":
            first_start.setdefault(action.execution_id, (i, action))
    retried = {(a.execution_id, a.step) for a in actions
               if a.do == "resolve" and a.resolution.get("retry")}
    seen_keys: set[Hashable] = set()
    for moment in moments:
        for image in moment.snapshot.images():
            key = (tuple(sorted(image.files.items())), moment.world, moment.timeline,
                   moment.acks, moment.action)
            if key in seen_keys:
                continue
            seen_keys.add(key)
            report.recoveries += 1
            for invariant, detail in _recover(world, make, policy, moment, image, actions,
                                              acks, timeline, first_start, retried):
                report.violations.append(PowerLossViolation(
                    invariant=invariant, scenario=scenario.name, policy=policy,
                    moment=moment.snapshot.moment, op=moment.snapshot.op,
                    variant=image.variant, detail=detail))
            report.checks += len(Invariant)
    return report


def _recover(world: World, make: StoreMaker, policy: FsyncPolicy, moment: _Moment,
             image: DiskImage, actions: Sequence[Action], acks: Sequence[_Ack],
             recorded: Sequence[_Entry], first_start: Mapping[str, tuple[int, Action]],
             retried: set[tuple[str, str]]) -> Iterable[tuple[Invariant, str]]:
    """Boot from ``image``, carry on as the client would, and yield what broke."""
    world.restore(moment.world)
    timeline = list(recorded[:moment.timeline])
    disk = SimulatedDisk(image=image)
    ids = list(first_start)
    try:  # spec: journal.power-loss -- readable
        store = make(disk, policy)
        try:
            journals = {eid: _events(store, eid) for eid in ids}
        finally:
            _close(store)
    except JournalError as exc:
        yield Invariant.READABLE, f"the store cannot be read back: {exc}"
        return
    acked = acks[:moment.acks]
    for ack in acked:  # acknowledged-kept
        now = journals.get(ack.execution_id, [])
        if now[:len(ack.events)] != list(ack.events):
            first = _first_difference(now, ack.events)
            yield Invariant.ACKNOWLEDGED_KEPT, (
                f"{ack.execution_id!r} was acknowledged with {len(ack.events)} events, and "
                + (f"only {len(now)} survive" if first > len(now) else f"event {first} differs"))
    plan = []
    for eid in ids:
        index, start = first_start[eid]
        if journals[eid]:
            plan.append(Action(do="recover", execution_id=eid))
        elif index <= moment.action:  # its start was issued: the client issues it again
            plan.append(attrs.evolve(start, crash_after=0, torn_bytes=0))
    plan += [attrs.evolve(a, crash_after=0, torn_bytes=0) for a in actions[moment.action:]]
    for action in plan:
        try:
            _call(world, make, disk, policy, action, timeline)
        except JournalError as exc:
            yield Invariant.READABLE, f"{action.do} {action.execution_id!r} failed: {exc}"
            return
    yield from _checks(acked, recorded[:moment.timeline], timeline[moment.timeline:], retried)


def _first_difference(now: Sequence[Any], then: Sequence[Any]) -> int:
    for i, (a, b) in enumerate(zip(now, then, strict=False)):
        if a != b:
            return i + 1
    return min(len(now), len(then)) + 1


def check_policy(reports: Sequence[PowerLossReport], policy: FsyncPolicy) -> list[str]:
    """Hold ``reports`` (all under ``policy``) to the durability table: the problems found,
    none if every kept invariant held everywhere and every given-up one broke somewhere."""
    guarantee = GUARANTEES[policy]
    problems = [str(v) for r in reports for v in r.violations if v.invariant in guarantee.holds]
    broken = {v.invariant for r in reports for v in r.violations}
    for invariant in sorted(guarantee.gives_up - broken, key=lambda i: i.value):
        problems.append(f"{invariant.value}: the table says {policy.value} may lose it, but no "
                        f"cut of {len(reports)} scenarios broke it (can the simulation fail?)")
    return problems
