"""Real process kills: run workflows in a child process, ``SIGKILL`` it at seeded random
moments, restart, recover, and check the invariants against an outside-world log.

Spec: ``spec/journal.md`` 1.8 (``journal.write-before-act``: a process crash loses nothing
an append returned, under every fsync policy). Jepsen's shape, kept small and bounded: a
fixed number of kills and a time limit, a seed for the schedule, and every check made from
what the disk holds after the kill, never from what the dead process believed.

- The child (``os.fork``: no interpreter start-up per kill) opens the store with ``make()``
  and works through executions ``k0``, ``k1``, ...: it recovers the one its predecessor left
  unfinished, resumes a parked one, resolves an in-doubt step as an operator would (with the
  outcome the world log shows, else by retrying it), then starts the next.
- The outside world is one append-only log (JSON lines) that survives every kill: each
  effect appends ``{"effect": key, ...}`` and syncs it before it returns (the effect
  *is* that line); after each runtime call that returned, the child appends ``{"ack": ...}``
  with the number of events its execution then had and a checksum of them.
- After each kill the parent opens the store and checks, line by line: the journals read
  back (``readable``); every acknowledged prefix of events is still there
  (``acknowledged-kept``); no effect runs again after an acknowledged result showed its
  outcome (``seen-not-rerun``); no non-idempotent effect runs twice unless an operator
  retried it (``ran-once-or-in-doubt``); and every completed step in a journal was seen by
  the world (``journal-matches-world``).
"""

from __future__ import annotations

import json
import os
import random
import signal
import time
import traceback
import zlib
from collections.abc import Callable, Generator, Sequence
from typing import Any

import attrs

from loom_ref.effects import Effect, EffectContext
from loom_ref.errors import JournalError
from loom_ref.journal import Event, JournalStore, Status, fold
from loom_ref.kernel import EffectRegistry, ExecutionContext, Runtime, Workflow

__all__ = ["KillReport", "run_kills"]

_WORLD = "world.log"


def _kill_body(ctx: ExecutionContext, order: Any) -> Generator[Any, Any, Any]:
    held = yield ctx.execute("reserve", {"n": order["n"]})
    route = yield ctx.decide("route", lambda scope: "ground" if order["n"] % 2 else "air")
    charged = yield ctx.execute("charge", {"n": order["n"], "route": route})
    yield ctx.stream({"charged": charged})
    note = yield ctx.suspend("approve")
    sent = yield ctx.execute("notify", {"n": order["n"], "note": note})
    return {"held": held, "charged": charged, "sent": sent}


KILL_WORKFLOW = Workflow(name="kill", body=_kill_body)
_IDEMPOTENT = {"reserve": True, "charge": False, "notify": False}


def _output(tool: str, value: Any) -> Any:
    return f"{tool}:{json.dumps(value, sort_keys=True)}"


def _digest(events: Sequence[Event]) -> str:
    text = json.dumps([e.to_json() for e in events], sort_keys=True)
    return f"{zlib.crc32(text.encode('utf-8')):08x}"


def _read_world(path: str) -> tuple[list[dict[str, Any]], int]:
    """The world log's complete lines, and the size of its torn tail (0 if none)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return [], 0
    good = data.rfind(b"\n") + 1
    return [json.loads(line) for line in data[:good].splitlines()], len(data) - good


class _World:
    """The child's side of the world log."""

    def __init__(self, path: str) -> None:
        self.lines, torn = _read_world(path)
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o666)
        if torn:  # a kill in mid-line: the line did not happen
            os.ftruncate(self._fd, os.fstat(self._fd).st_size - torn)

    def write(self, record: dict[str, Any]) -> None:
        os.write(self._fd, (json.dumps(record, sort_keys=True) + "\n").encode("utf-8"))
        os.fsync(self._fd)
        self.lines.append(record)

    def effects(self) -> EffectRegistry:
        registry = EffectRegistry()
        for tool, idempotent in _IDEMPOTENT.items():
            def run(ctx: EffectContext, input: Any, tool: str = tool) -> Any:
                out = _output(tool, input)
                self.write({"effect": ctx.idempotency_key, "tool": tool, "output": out})
                return out
            registry.register(Effect(tool_id=tool, execute=run, idempotent=idempotent))
        return registry

    def ran(self, key: str) -> dict[str, Any] | None:
        return next((r for r in reversed(self.lines) if r.get("effect") == key), None)


def _drive(runtime: Runtime, world: _World, eid: str, n: int, store: JournalStore) -> None:
    """Take execution ``eid`` to completion (the child's loop body)."""
    def ack(call: str) -> None:
        events = store.read(eid).events
        world.write({"ack": eid, "call": call, "events": len(events), "digest": _digest(events),
                     "status": fold(events).status.value})

    if not store.exists(eid) or not store.read(eid).events:
        runtime.start("kill", {"n": n}, execution_id=eid)
        ack("start")
    while True:
        state = runtime.state(eid)
        if state.status in (Status.COMPLETED, Status.FAILED):
            return
        if state.status is Status.SUSPENDED and not state.pending_resume:
            runtime.resume(eid, "approve", f"ok {n}")
            ack("resume")
        elif state.status is Status.IN_DOUBT:
            step = state.in_doubt_step or ""
            record = world.ran(f"{eid}/{step}")
            if record is not None:
                world.write({"resolve": f"{eid}/{step}", "with": "output"})
                runtime.resolve(eid, step, output=record["output"])
            else:  # the effect never ran (its line would be there): run it
                world.write({"resolve": f"{eid}/{step}", "with": "retry"})
                runtime.resolve(eid, step, retry=True)
            ack("resolve")
        else:
            runtime.recover(eid)
            ack("recover")


def _child(make: Callable[[], JournalStore], directory: str, executions: int) -> None:
    world = _World(os.path.join(directory, _WORLD))
    store = make()
    runtime = Runtime(store=store, effects=world.effects(), workflows=[KILL_WORKFLOW],
                      on_warn=lambda message: None)
    done = {r["ack"] for r in world.lines if r.get("status") == Status.COMPLETED.value}
    for n in range(executions):
        if f"k{n}" not in done:  # an acknowledged completion needs no second look
            _drive(runtime, world, f"k{n}", n, store)


@attrs.define(kw_only=True)
class KillReport:
    """What :func:`run_kills` did and found: ``kills`` (SIGKILLs that hit a working child),
    ``recoveries`` (calls a restarted child made to carry on an unfinished execution:
    recover, resolve), ``resolved`` (in-doubt steps an operator resolved: kills between an
    effect and its outcome), ``checks`` (individual invariant checks), ``completed``
    executions, the world log's ``effects`` lines, and ``problems`` (empty if every check
    held)."""

    store: str
    kills: int = 0
    restarts: int = 0
    recoveries: int = 0
    resolved: int = 0
    checks: int = 0
    completed: int = 0
    effects: int = 0
    seconds: float = 0.0
    max_delay: float = 0.0
    problems: list[str] = attrs.field(factory=list)

    def summary(self) -> str:
        return (f"{self.store}: {self.kills} kills, {self.restarts} restarts, "
                f"{self.recoveries} recoveries ({self.resolved} in doubt, resolved), "
                f"{self.checks} invariant checks, "
                f"{self.completed} executions completed, {self.effects} effects, "
                f"{len(self.problems)} problems, {self.seconds:.1f}s "
                f"(kills within {self.max_delay * 1000:.0f} ms of a start)")


def _check(make: Callable[[], JournalStore], directory: str, report: KillReport) -> int:
    """The parent's checks after a kill (module rules); returns how many executions exist
    (the child starts ``k0``, ``k1``, ... in order, each after finishing the one before)."""
    lines, _ = _read_world(os.path.join(directory, _WORLD))
    journals: dict[str, Sequence[Event]] = {}
    store = make()
    try:
        while store.exists(f"k{len(journals)}"):
            eid = f"k{len(journals)}"
            report.checks += 1
            try:
                journals[eid] = store.read(eid).events
            except JournalError as exc:
                report.problems.append(f"readable: {eid}: {exc}")
                journals[eid] = ()
    finally:
        close = getattr(store, "close", None)
        if callable(close):
            close()
    seen: set[str] = set()
    ran: set[str] = set()
    retried: set[str] = set()
    world_keys = {r["effect"] for r in lines if "effect" in r} | {
        r["resolve"] for r in lines if "resolve" in r}
    for record in lines:
        report.checks += 1
        if "effect" in record:
            key = record["effect"]
            if key in seen:
                report.problems.append(f"seen-not-rerun: {key} ran after its outcome was seen")
            if not _IDEMPOTENT[record["tool"]] and key in ran and key not in retried:
                report.problems.append(f"ran-once-or-in-doubt: {key} ran twice")
            ran.add(key)
        elif "resolve" in record and record["with"] == "retry":
            retried.add(record["resolve"])
        elif "ack" in record:
            events = journals.get(record["ack"], ())[:record["events"]]
            if len(events) < record["events"] or _digest(events) != record["digest"]:
                report.problems.append(f"acknowledged-kept: {record['ack']} lost events "
                                       f"acknowledged after its {record['call']}")
            seen |= {f"{record['ack']}/{e.payload['stepId']}" for e in events
                     if e.kind.value == "STEP_COMPLETED"}
    for eid, events in journals.items():
        for e in events:
            if e.kind.value == "STEP_COMPLETED":
                report.checks += 1
                if f"{eid}/{e.payload['stepId']}" not in world_keys:
                    report.problems.append(f"journal-matches-world: {eid} completed "
                                           f"{e.payload['stepId']} that never ran")
    report.completed = sum(1 for events in journals.values()
                           if fold(events).status is Status.COMPLETED)
    report.effects = sum(1 for r in lines if "effect" in r)
    report.recoveries = sum(1 for r in lines if r.get("call") in ("recover", "resolve"))
    report.resolved = sum(1 for r in lines if "resolve" in r)
    return len(journals)


def _spawn(make: Callable[[], JournalStore], directory: str, executions: int) -> int:
    pid = os.fork()
    if pid == 0:  # the child: work, and never return into the parent's code
        status = 0
        try:
            _child(make, directory, executions)
        except BaseException:
            with open(os.path.join(directory, "child-error.txt"), "a") as f:
                f.write(traceback.format_exc())
            status = 1
        os._exit(status)
    return pid


def _unkilled(make: Callable[[], JournalStore], directory: str, executions: int,
              report: KillReport) -> None:
    """Run a child to its end (it works through ``executions`` executions)."""
    pid = _spawn(make, directory, executions)
    report.restarts += 1
    _, status = os.waitpid(pid, 0)
    if not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0):
        report.problems.append(f"an unkilled child failed: {_child_error(directory)}")


def run_kills(make: Callable[[], JournalStore], directory: str, *, name: str = "store",
              kills: int = 100, seconds: float = 30.0, seed: int = 0, executions: int = 10_000,
              max_delay: float = 0.04) -> KillReport:
    """Kill a working child ``kills`` times (or until ``seconds`` pass), each after a seeded
    random delay of up to ``max_delay`` seconds; then let a last child finish the executions
    started, and one more, and check everything once more (module rules). ``make()`` opens the
    store under test over the same place every time; ``directory`` holds the world log.

    The default ``max_delay`` lets a child on an unloaded machine start and run a few
    executions, so the kills fall on every part of the work. It is fixed, not measured: a
    loaded machine makes a run do less work in the same time, never take longer."""
    rng = random.Random(seed)
    report = KillReport(store=name, max_delay=max_delay)
    began = time.monotonic()
    started = 0
    while not report.problems and report.kills < kills and time.monotonic() - began < seconds:
        pid = _spawn(make, directory, executions)
        report.restarts += 1
        time.sleep(rng.uniform(0.0, max_delay))
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL:
            report.kills += 1
        elif not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0):
            report.problems.append(f"the child failed: {_child_error(directory)}")
            break
        started = _check(make, directory, report)
    if not report.problems:  # the last child finishes what was started, and one more
        _unkilled(make, directory, started + 1, report)
        started = _check(make, directory, report)
        if report.completed != started:
            report.problems.append(f"{started - report.completed} of {started} executions "
                                   f"were not completed by the last child")
    report.seconds = time.monotonic() - began
    return report


def _child_error(directory: str) -> str:
    try:
        with open(os.path.join(directory, "child-error.txt")) as f:
            return f.read()[-2000:]
    except FileNotFoundError:
        return "(no traceback)"
