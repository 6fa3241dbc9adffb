"""The disk-fault matrix: fail every write and every sync of a run in turn, as a full disk, a
failing device or a file system gone read-only would, and check what is left.

Spec: ``spec/journal.md`` section 1.12 (``journal.os-errors``). Beside the power-loss matrix
(:mod:`loom_ref.testing.powerloss`), which cuts power, this one keeps the machine running and
makes the disk refuse. Through the :class:`~loom_ref.journal.fs.FileSystem` layer
(:class:`FaultyDisk`), for one scenario, one store and one fsync policy:

1. *The clean run* counts the file layer's writes (a file created, an append, a truncation)
   and syncs (a file's, a directory's).
2. *Every fault.* For each write and each sync in turn, and each error of
   :data:`FAULT_ERRORS` (``ENOSPC``: the first half of the append reaches the file, as a
   short ``write`` then a refusal leaves it; ``EIO`` and ``EROFS``: nothing does), the
   scenario runs again, each client call a new process, and that one operation fails, once.
3. *The checks*, on the call the fault met: it failed with a stable journal code
   (:data:`FAULT_CODES`) whose details name the file (a raw ``OSError`` is a violation);
   when its process is over, no file of the disk is open and no lock is held. Then the disk
   has room again, and the client carries on as after a crash: it recovers every execution
   that started, starts again one whose start was never acknowledged, re-issues the failed
   call and every later one. Every journal reads back, every call acknowledged before the
   fault still finds its events, and no effect runs twice that it must not (the
   power-loss matrix's invariants, :class:`~loom_ref.journal.durability.Invariant`).

:func:`run_disk_faults` is the matrix; it runs on the simulated disk or the real one (the
store maker chooses), and ``leaks`` lets a caller count what the operating system holds
(descriptors, locks) after each fault as well.
"""

from __future__ import annotations

import errno
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import attrs

from loom_ref.errors import JournalError, LoomError
from loom_ref.journal import Crash, FaultInjectingStore, FileSystem, FsyncPolicy, Invariant
from loom_ref.testing.powerloss import (
    Action,
    Scenario,
    World,
    _Ack,
    _call,
    _checks,
    _close,
    _do,
    _events,
    _first_difference,
    _RecordingHost,
    _TracingStore,
)

__all__ = ["FAULT_CODES", "FAULT_ERRORS", "DiskFaultReport", "FaultyDisk", "run_disk_faults"]

#: The errors each write and each sync is failed with, in turn.
FAULT_ERRORS: tuple[int, ...] = (errno.ENOSPC, errno.EIO, errno.EROFS)
#: The codes a call may fail with when the disk refuses (spec: journal.os-errors).
FAULT_CODES = frozenset({"journal.write-failed", "journal.io-failed"})

_WRITES = ("create", "append", "truncate")
_SYNCS = ("sync", "sync_dir")


class _FaultyFile:
    """A file of a :class:`FaultyDisk`: its writes and syncs counted, one of them failed."""

    def __init__(self, disk: FaultyDisk, inner: Any, path: str) -> None:
        self._disk = disk
        self._inner = inner
        self.path = path
        disk.open_files.add(self)

    @property
    def closed(self) -> bool:
        return bool(self._inner.closed)

    def read_all(self) -> bytes:
        return bytes(self._inner.read_all())

    def append(self, data: bytes) -> None:
        error = self._disk._tick("append")
        if error is not None:
            if error == errno.ENOSPC and len(data) > 1:
                self._inner.append(data[:len(data) // 2])  # a short write, then the refusal
            raise OSError(error, _strerror(error), self.path)
        self._inner.append(data)

    def truncate(self, size: int) -> None:
        error = self._disk._tick("truncate")
        if error is not None:
            raise OSError(error, _strerror(error), self.path)
        self._inner.truncate(size)

    def sync(self) -> None:
        error = self._disk._tick("sync")
        if error is not None:
            raise OSError(error, _strerror(error), self.path)
        self._inner.sync()

    def lock(self) -> bool:
        return bool(self._inner.lock())

    def still_named(self) -> bool:
        return bool(self._inner.still_named())

    def close(self) -> None:
        self._disk.open_files.discard(self)
        self._inner.close()


def _strerror(error: int) -> str:
    return {errno.ENOSPC: "No space left on device", errno.EIO: "Input/output error",
            errno.EROFS: "Read-only file system"}.get(error, errno.errorcode.get(error, "?"))


class FaultyDisk:
    """A :class:`~loom_ref.journal.fs.FileSystem` over ``inner`` that counts its writes
    (``create``, ``append``, ``truncate``) and syncs (``sync``, ``sync_dir``) and fails the
    ``at``-th of ``kind`` ("write" or "sync") with ``error``, once; ``open_files`` are the
    files opened through it and not closed (module rules). ``kind=None`` fails nothing."""

    def __init__(self, inner: FileSystem, *, kind: str | None = None, at: int = 0,
                 error: int = errno.ENOSPC) -> None:
        self.inner = inner
        self.kind = kind
        self.at = at
        self.error = error
        self.writes = 0
        self.syncs = 0
        self.fired = False
        self.open_files: set[_FaultyFile] = set()

    def _tick(self, op: str) -> int | None:
        """Count ``op``; the error to fail it with, if it is the chosen one."""
        if op in _WRITES:
            self.writes += 1
            hit = self.kind == "write" and self.writes == self.at
        else:
            self.syncs += 1
            hit = self.kind == "sync" and self.syncs == self.at
        if hit and not self.fired:
            self.fired = True
            return self.error
        return None

    def create(self, path: str) -> _FaultyFile:
        error = self._tick("create")
        if error is not None:
            raise OSError(error, _strerror(error), path)
        return _FaultyFile(self, self.inner.create(path), path)

    def open(self, path: str, *, create: bool = False) -> _FaultyFile:
        if create and not self.inner.exists(path):
            error = self._tick("create")
            if error is not None:
                raise OSError(error, _strerror(error), path)
        return _FaultyFile(self, self.inner.open(path, create=create), path)

    def read(self, path: str) -> bytes:
        return self.inner.read(path)

    def exists(self, path: str) -> bool:
        return self.inner.exists(path)

    def is_dir(self, path: str) -> bool:
        return self.inner.is_dir(path)

    def list_dir(self, path: str) -> list[str]:
        return self.inner.list_dir(path)

    def sync_dir(self, path: str) -> None:
        error = self._tick("sync_dir")
        if error is not None:
            raise OSError(error, _strerror(error), path)
        self.inner.sync_dir(path)


#: ``make(fs, policy)`` -> a store over ``fs`` (closed with ``close()`` if it has one).
StoreMaker = Callable[[FileSystem, FsyncPolicy], Any]


@attrs.define(kw_only=True)
class DiskFaultReport:
    """What :func:`run_disk_faults` did and found: the faults made (``faults``), how many met
    a call (``refused``: the rest fell where a failing operation is not a refusal, such as
    the last close), the codes the calls failed with, and every violation in words."""

    scenario: str
    policy: FsyncPolicy
    faults: int = 0
    refused: int = 0
    recoveries: int = 0
    codes: dict[str, int] = attrs.field(factory=dict)
    violations: list[str] = attrs.field(factory=list)


def _count(scenario: Scenario, make: StoreMaker, policy: FsyncPolicy,
           disk: Callable[[], FileSystem]) -> tuple[int, int]:
    """How many writes and syncs a clean run of ``scenario`` makes."""
    faulty = FaultyDisk(disk())
    world = scenario.begin()
    timeline: list[Any] = []
    for action in world.actions:
        _call(world, make, faulty, policy, action, timeline)  # type: ignore[arg-type]
    return faulty.writes, faulty.syncs


def run_disk_faults(scenario: Scenario, make: StoreMaker, policy: FsyncPolicy, *,
                    disk: Callable[[], FileSystem],
                    errors: Sequence[int] = FAULT_ERRORS,
                    leaks: Callable[[], Iterable[str]] | None = None) -> DiskFaultReport:
    """Fail every write and every sync of ``scenario`` in turn with each of ``errors``, on a
    fresh ``disk()`` each time, and check each run (module rules). ``leaks()``, if given,
    names whatever the operating system still holds after a fault's process is over (it is
    called once before the first fault, and what it names then is taken as the baseline)."""
    report = DiskFaultReport(scenario=scenario.name, policy=policy)
    writes, syncs = _count(scenario, make, policy, disk)
    baseline = set(leaks()) if leaks is not None else set()
    for kind, total in (("write", writes), ("sync", syncs)):
        for at in range(1, total + 1):
            for error in errors:
                report.faults += 1
                where = (f"{scenario.name} under {policy.value}, {kind} {at} failed with "
                         f"{errno.errorcode[error]}")
                for problem in _one_fault(scenario, make, policy, FaultyDisk(
                        disk(), kind=kind, at=at, error=error), report):
                    report.violations.append(f"{where}: {problem}")
                if leaks is not None:
                    held = sorted(set(leaks()) - baseline)
                    if held:
                        report.violations.append(f"{where}: the OS still holds {held}")
    return report


def _one_fault(scenario: Scenario, make: StoreMaker, policy: FsyncPolicy, faulty: FaultyDisk,
               report: DiskFaultReport) -> Iterable[str]:
    world = scenario.begin()
    actions = list(world.actions)
    timeline: list[Any] = []
    acks: list[_Ack] = []
    failed_at = None
    for i, action in enumerate(actions):
        fired = faulty.fired
        outcome = _process(world, make, faulty, policy, action, timeline)
        if isinstance(outcome, _Ack):
            acks.append(outcome)
        elif isinstance(outcome, str):
            yield outcome
            return
        if faulty.open_files:  # spec: journal.os-errors -- nothing left behind
            yield (f"after {action.do} {action.execution_id!r}, files left open: "
                   f"{sorted(f.path for f in faulty.open_files)}")
            return
        if faulty.fired and not fired:
            if isinstance(outcome, JournalError):
                report.refused += 1
                report.codes[outcome.code] = report.codes.get(outcome.code, 0) + 1
            failed_at = i
            break
    if failed_at is None:
        return  # the fault fell where nothing refuses (or the run ended before it)
    # the disk has room again: the client carries on as after a crash
    report.recoveries += 1
    yield from _carry_on(world, make, faulty, policy, actions, failed_at, acks, timeline)


def _process(world: World, make: StoreMaker, fs: FaultyDisk, policy: FsyncPolicy,
             action: Action, timeline: list[Any]) -> _Ack | JournalError | str | None:
    """One client call as one process: its acknowledgement, the journal error it failed
    with (checked: a stable code naming a file), a violation in words, or None."""
    fired = fs.fired
    try:
        store = make(fs, policy)
    except JournalError as exc:
        return _judge(exc, fired, fs)
    except OSError as exc:
        return f"opening the store raised a raw {type(exc).__name__}: {exc}"
    try:
        target: Any = _TracingStore(store, timeline)
        if action.crash_after:
            target = FaultInjectingStore(target, crash_after=action.crash_after,
                                         torn_bytes=action.torn_bytes)
        runtime = world.runtime(target, lambda host: _RecordingHost(host, timeline))
        try:
            _do(runtime, action)
        except Crash:
            return None
        except JournalError as exc:
            return _judge(exc, fired, fs)
        except LoomError:
            return None  # a refusal (already resumed, not in doubt): no progress
        except OSError as exc:
            return f"{action.do} {action.execution_id!r} raised a raw {type(exc).__name__}: {exc}"
        if fs.fired and not fired:
            return (f"{action.do} {action.execution_id!r} returned although the disk refused "
                    f"one of its operations")
        return _Ack(timeline=len(timeline), execution_id=action.execution_id,
                    events=tuple(_events(store, action.execution_id)))
    finally:
        try:
            _close(store)
        except OSError as exc:  # pragma: no cover - a close that fails is reported, not raised
            timeline.append(("close-failed", str(exc), "", "", False))


def _judge(exc: JournalError, fired_before: bool, fs: FaultyDisk) -> JournalError | str:
    if fs.fired and not fired_before:
        if exc.code not in FAULT_CODES:
            return f"refused with {exc.code}, not one of {sorted(FAULT_CODES)}: {exc}"
        if not isinstance(exc.details.get("file"), str) and not exc.details.get("execution_id"):
            return f"{exc.code} names no file: {exc.details}"
        return exc
    if exc.code in ("journal.exists", "journal.locked", "journal.not-found"):
        return exc
    return f"a call the fault did not meet failed: {exc}"


def _carry_on(world: World, make: StoreMaker, fs: FaultyDisk, policy: FsyncPolicy,
              actions: Sequence[Action], failed_at: int, acks: Sequence[_Ack],
              recorded: list[Any]) -> Iterable[str]:
    """Recover, re-issue, and check the invariants (module rules)."""
    pre = list(recorded)
    ids = list(dict.fromkeys(a.execution_id for a in actions if a.do == "start"))
    try:
        store = make(fs, policy)
        try:
            journals = {eid: _events(store, eid) for eid in ids}
        finally:
            _close(store)
    except JournalError as exc:
        yield f"{Invariant.READABLE.value}: the store cannot be read back: {exc}"
        return
    for ack in acks:
        now = journals.get(ack.execution_id, [])
        if now[:len(ack.events)] != list(ack.events):
            first = _first_difference(now, ack.events)
            yield (f"{Invariant.ACKNOWLEDGED_KEPT.value}: {ack.execution_id!r} was acknowledged "
                   f"with {len(ack.events)} events, event {first} is not there")
    plan = []
    for eid in ids:
        start = next(a for a in actions if a.do == "start" and a.execution_id == eid)
        if journals[eid]:
            plan.append(Action(do="recover", execution_id=eid))
        elif actions.index(start) <= failed_at:
            plan.append(attrs.evolve(start, crash_after=0, torn_bytes=0))
    plan += [attrs.evolve(a, crash_after=0, torn_bytes=0) for a in actions[failed_at:]]
    for action in plan:
        try:
            _call(world, make, fs, policy, action, recorded)  # type: ignore[arg-type]
        except JournalError as exc:
            yield f"{Invariant.READABLE.value}: {action.do} {action.execution_id!r} failed: {exc}"
            return
        except Exception as exc:
            yield (f"after the fault, {action.do} {action.execution_id!r} raised "
                   f"{type(exc).__name__}: {exc}")
            return
    retried = {(a.execution_id, a.step) for a in actions
               if a.do == "resolve" and a.resolution.get("retry")}
    for invariant, detail in _checks(acks, pre, recorded[len(pre):], retried):
        yield f"{invariant.value}: {detail}"
