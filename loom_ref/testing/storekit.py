"""The store kit: the journal store contract as a pytest suite any store can run
(``docs/store-kit.md``).

Subclass :class:`StoreContract` in a test module (its name must start with ``Test`` for
pytest to collect it) and give it one fixture, ``loom_store``, returning a
:class:`StoreUnderTest`: how to open your store, and what else the kit may do with it. Every
test says which rule of ``spec/journal.md`` it holds the store to. A test that needs what
your :class:`StoreUnderTest` does not give is *skipped with the reason*, never passed:

========================= =================================================================
always                    append and read back, the sequence, JSON values, create / open /
                          exists, one writer (in a store, and across two stores on the same
                          place), a torn write reported and truncated, a process crash keeps
                          every returned append, the kernel's crash matrix
``corrupt``               a corrupt line is an error naming the line (``journal.corrupt-line``)
``on_disk``               the fsync policy honoured, event by event, and the power-loss
                          invariants of the durability table, for every policy, through the
                          simulated disk (:mod:`loom_ref.journal.powerloss`)
``persistent``            real process kills (:func:`~loom_ref.testing.kills.run_kills`)
========================= =================================================================
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import attrs
import pytest

from loom_ref.journal import (
    SYNC_AFTER,
    CorruptJournalError,
    Crash,
    EventKind,
    FaultInjectingStore,
    FsyncPolicy,
    JournalExistsError,
    JournalLockedError,
    JournalNotFoundError,
    MemoryStore,
    PayloadError,
    Status,
)
from loom_ref.journal.powerloss import SimulatedDisk
from loom_ref.kernel import Runtime
from loom_ref.testing.kills import run_kills
from loom_ref.testing.powerloss import StoreMaker, check_policy, run_power_loss
from loom_ref.testing.workloads import KIT_SCENARIOS, KitScenario, kit_runtime

__all__ = ["StoreContract", "StoreUnderTest", "check_power_loss"]

K = EventKind


@attrs.frozen(kw_only=True)
class StoreUnderTest:
    """What the kit may do with your store.

    - ``make()``: open the store over the place under test. Each call is what a new process
      opens; the kit closes a store (``close()``, if it has one) before making the next, and
      a store made again MUST see what earlier ones wrote. A store with nothing to reopen
      (memory) returns the same object every time and says ``persistent=False``.
    - ``corrupt(execution_id, line)``: while no store is open, change the checksum of that
      1-based line of the execution's journal (its header is line 1); return the line
      number the store's error must name (for a store log: the line of the log file).
    - ``on_disk(fs, policy)``: the store, with ``policy``, reaching the disk only through the
      :class:`~loom_ref.journal.fs.FileSystem` ``fs``, in the directory ``/disk``.
    - ``kills``: how many real process kills the kill test makes.
    - ``why_not``: for a capability left out (``"corrupt"``, ``"on_disk"``, ``"persistent"``),
      the reason, which the skipped tests report.
    """

    make: Callable[[], Any]
    name: str = "store"
    persistent: bool = True
    corrupt: Callable[[str, int], int] | None = None
    on_disk: StoreMaker | None = None
    kills: int = 30
    why_not: Mapping[str, str] = attrs.field(factory=dict)

    def skip_without(self, capability: str, given: object) -> None:
        """Skip the calling test, with the reason, if ``capability`` was not given."""
        if not given:
            pytest.skip(f"{self.name}: no {capability}: "
                        f"{self.why_not.get(capability, 'StoreUnderTest did not give it')}")


def _close(store: Any) -> None:
    close = getattr(store, "close", None)
    if callable(close):
        close()


@contextmanager
def _opened(make: Callable[[], Any]) -> Iterator[Any]:
    """A store from ``make()``, closed when the block ends (a process's lifetime)."""
    store = make()
    try:
        yield store
    finally:
        _close(store)


def check_power_loss(on_disk: StoreMaker, policy: FsyncPolicy,
                     scenarios: Sequence[KitScenario] = KIT_SCENARIOS) -> list[str]:
    """Run the power-loss matrix of ``scenarios`` on the store ``on_disk`` builds and hold it
    to the durability table's row for ``policy``: the problems, none if it keeps exactly
    its promises (:func:`~loom_ref.testing.powerloss.check_policy`)."""
    return check_policy([run_power_loss(s, on_disk, policy) for s in scenarios], policy)


def _start(execution_id: str) -> dict[str, Any]:
    return {"executionId": execution_id, "workflow": "w", "input": {"n": 1}}


#: Events of one execution, every kind the fsync policies tell apart.
_SEQUENCE: tuple[tuple[EventKind, dict[str, Any]], ...] = (
    (K.EXECUTION_STARTED, _start("e1")),
    (K.STEP_STARTED, {"stepId": "s#1", "toolId": "s", "input": [1, "two", None],
                      "idempotencyKey": "e1/s#1"}),
    (K.STEP_COMPLETED, {"stepId": "s#1", "output": {"ok": True, "n": 1.5}}),
    (K.EXECUTION_SUSPENDED, {"gateId": "g", "on": None, "correlationKey": None}),
    (K.RESUME_RECEIVED, {"gateId": "g", "payload": "yes"}),
    (K.EXECUTION_RESUMED, {"gateId": "g"}),
    (K.STREAM_APPENDED, {"streamId": "stream#1", "data": "é ☃ \U0001f600"}),
    (K.EXECUTION_COMPLETED, {"output": {"done": [1, 2]}}),
)


class StoreContract:
    """The journal store contract (module rules). Provide the ``loom_store`` fixture."""

    # -- helpers ------------------------------------------------------------------------
    @staticmethod
    def _write(sut: StoreUnderTest, execution_id: str, count: int) -> list[dict[str, Any]]:
        with _opened(sut.make) as store:
            journal = store.create(execution_id)
            for kind, payload in _SEQUENCE[:count]:
                journal.append(kind, payload)
            journal.close()
            return [e.to_json() for e in journal.events]

    @staticmethod
    def _read(sut: StoreUnderTest, execution_id: str) -> list[dict[str, Any]]:
        with _opened(sut.make) as store:
            return [e.to_json() for e in store.read(execution_id).events]

    # -- always ---------------------------------------------------------------------------
    def test_append_and_read_back(self, loom_store: StoreUnderTest) -> None:
        """journal.line-shape, journal.json-values: what an append returns is what is read."""
        written = self._write(loom_store, "e1", len(_SEQUENCE))
        assert [e["kind"] for e in written] == [k.value for k, _ in _SEQUENCE]
        assert [e["payload"] for e in written] == [p for _, p in _SEQUENCE]
        assert self._read(loom_store, "e1") == written
        with _opened(loom_store.make) as store:
            journal = store.open("e1")
            assert [e.to_json() for e in journal.events] == written and journal.torn is None
            journal.close()

    def test_sequence_runs_on_after_reopen(self, loom_store: StoreUnderTest) -> None:
        """journal.seq: 1, 2, 3, ... across writers."""
        self._write(loom_store, "e1", 2)
        with _opened(loom_store.make) as store:
            journal = store.open("e1")
            kind, payload = _SEQUENCE[2]
            assert journal.append(kind, payload).seq == 3
            journal.close()
        assert [e["seq"] for e in self._read(loom_store, "e1")] == [1, 2, 3]

    def test_a_bad_payload_writes_nothing(self, loom_store: StoreUnderTest) -> None:
        """journal.payload-shape, journal.json-values: refused, nothing written."""
        with _opened(loom_store.make) as store:
            journal = store.create("e1")
            journal.append(K.EXECUTION_STARTED, _start("e1"))
            for payload in ({"streamId": "s", "data": float("nan")}, {"streamId": "s"},
                            {"streamId": "s", "data": {1, 2}}):
                with pytest.raises(PayloadError):
                    journal.append(K.STREAM_APPENDED, payload)
            journal.close()
        assert len(self._read(loom_store, "e1")) == 1

    def test_create_open_exists(self, loom_store: StoreUnderTest) -> None:
        """A journal is created once; a missing one is not found."""
        self._write(loom_store, "e1", 1)
        with _opened(loom_store.make) as store:
            assert store.exists("e1") and not store.exists("nope")
            with pytest.raises(JournalExistsError):
                store.create("e1")
            with pytest.raises(JournalNotFoundError):
                store.open("nope")
            with pytest.raises(JournalNotFoundError):
                store.read("nope")

    def test_one_writer(self, loom_store: StoreUnderTest) -> None:
        """journal.single-writer: a second writer is refused until the first closes."""
        self._write(loom_store, "e1", 1)
        with _opened(loom_store.make) as store:
            first = store.open("e1")
            with pytest.raises(JournalLockedError) as info:
                store.open("e1")
            assert info.value.code == "journal.locked"
            first.close()
            first.close()  # closing twice is harmless
            store.open("e1").close()

    def test_one_writer_across_stores(self, loom_store: StoreUnderTest) -> None:
        """journal.single-writer: a second store on the same place (a second process) gets no
        writer while the first holds one: the store or the journal is refused."""
        self._write(loom_store, "e1", 1)
        with _opened(loom_store.make) as store:
            held = store.open("e1")
            with pytest.raises(JournalLockedError):
                other = loom_store.make()
                try:
                    other.open("e1")
                finally:
                    if other is not store:
                        _close(other)
            held.close()

    def test_torn_write_is_reported_and_truncated(self, loom_store: StoreUnderTest) -> None:
        """journal.torn-tail: a crash in mid-write leaves a tail that the next reader
        reports (line and size) and the next writer truncates before appending."""
        with _opened(loom_store.make) as store:
            journal = FaultInjectingStore(store, crash_after=3, torn_bytes=30).create("e1")
            if not callable(getattr(journal.inner, "write_torn", None)):
                pytest.skip("the store's journals have no write_torn (not LineJournal)")
            journal.append(*_SEQUENCE[0])
            journal.append(*_SEQUENCE[1])
            with pytest.raises(Crash):
                journal.append(*_SEQUENCE[2])
            journal.close()
        with _opened(loom_store.make) as store:
            parsed = store.read("e1")
            assert len(parsed.events) == 2
            assert parsed.torn is not None and parsed.torn.size == 30
            journal = store.open("e1")
            assert journal.torn == parsed.torn
            assert journal.append(*_SEQUENCE[2]).seq == 3
            journal.close()
        with _opened(loom_store.make) as store:
            parsed = store.read("e1")
            assert len(parsed.events) == 3 and parsed.torn is None

    def test_a_process_crash_keeps_every_returned_append(
            self, loom_store: StoreUnderTest) -> None:
        """journal.write-before-act, journal.crash-model."""
        with _opened(loom_store.make) as store:
            journal = FaultInjectingStore(store, crash_after=4).create("e1")
            with pytest.raises(Crash):
                for kind, payload in _SEQUENCE:
                    journal.append(kind, payload)
            journal.close()
        assert [e["seq"] for e in self._read(loom_store, "e1")] == [1, 2, 3, 4]

    def test_the_kernel_crash_matrix(self, loom_store: StoreUnderTest) -> None:
        """kernel.recover: crash after every append of the kit's order scenario, recover on
        a store made again: the same journal as an uncrashed run (an in-doubt step aside),
        and no completed step run again."""
        scenario = KIT_SCENARIOS[0]
        reference = MemoryStore()
        _run(reference, scenario, "o1", [])
        for k in range(1, len(reference.read("o1").events) + 1):
            eid = f"crash-{k}"
            expected = MemoryStore()
            _run(expected, scenario, eid, [])
            want = [e.to_json() for e in expected.read(eid).events]
            calls: list[str] = []
            with _opened(loom_store.make) as store:
                _run(FaultInjectingStore(store, crash_after=k), scenario, eid, calls)
            before = list(calls)
            with _opened(loom_store.make) as store:
                result = _finish(store, scenario, eid, calls)
                got = [e.to_json() for e in store.read(eid).events]
            if result is Status.IN_DOUBT:  # kernel.in-doubt: a non-idempotent step, cut
                assert got[:k] == want[:k] and got[k]["kind"] == "STEP_IN_DOUBT", k
                assert calls == before, k
                continue
            assert result is Status.COMPLETED and got == want, k
            completed = {e["payload"]["stepId"] for e in want[:k] if e["kind"] == "STEP_COMPLETED"}
            again = [c for c in calls[len(before):] if c in completed]
            assert again == [], (k, again)

    # -- corrupt -----------------------------------------------------------------------------
    def test_a_corrupt_line_is_named(self, loom_store: StoreUnderTest) -> None:
        """journal.corrupt-line: a hard error naming the line; nothing after it is read."""
        loom_store.skip_without("corrupt", loom_store.corrupt)
        assert loom_store.corrupt is not None
        self._write(loom_store, "e1", 4)
        line = loom_store.corrupt("e1", 3)
        errors = []
        for attempt in ("read", "open"):
            with pytest.raises(CorruptJournalError) as info, _opened(loom_store.make) as store:
                getattr(store, attempt)("e1")
            errors.append(info.value)
        for error in errors:
            assert error.code == "journal.corrupt"
            assert error.details["line"] == line
            assert error.details["reason"] == "journal.bad-checksum"

    # -- on_disk ---------------------------------------------------------------------------
    @pytest.mark.parametrize("policy", list(FsyncPolicy), ids=lambda p: p.value)
    def test_the_fsync_policy_is_honoured(self, loom_store: StoreUnderTest,
                                          policy: FsyncPolicy) -> None:
        """journal.fsync-policy, journal.dir-sync: after each append, a power loss keeps
        exactly what the policy syncs, the journal's name included."""
        loom_store.skip_without("on_disk", loom_store.on_disk)
        on_disk = loom_store.on_disk
        assert on_disk is not None
        disk = SimulatedDisk()
        store = on_disk(disk, policy)
        journal = store.create("e1")
        durable = 0
        for n, (kind, payload) in enumerate(_SEQUENCE, start=1):
            journal.append(kind, payload)
            if kind in SYNC_AFTER[policy]:
                durable = n
            survived = SimulatedDisk(image=disk.snapshot().images()[0])  # the "synced" image
            with _opened(partial(on_disk, survived, policy)) as after:
                kept = len(after.read("e1").events) if after.exists("e1") else 0
            assert kept == durable, f"after {kind.value}: {kept} events survive, {durable} promised"
        journal.close()
        _close(store)
        if policy is FsyncPolicy.NEVER:
            assert disk.syncs == disk.dir_syncs == 0

    @pytest.mark.parametrize("policy", list(FsyncPolicy), ids=lambda p: p.value)
    def test_the_power_loss_invariants(self, loom_store: StoreUnderTest,
                                       policy: FsyncPolicy) -> None:
        """journal.power-loss: every cut of every kit scenario keeps exactly the table's
        promises for the policy."""
        loom_store.skip_without("on_disk", loom_store.on_disk)
        assert loom_store.on_disk is not None
        problems = check_power_loss(loom_store.on_disk, policy)
        assert problems == [], "\n".join(problems[:10])

    # -- persistent --------------------------------------------------------------------------
    def test_real_process_kills(self, loom_store: StoreUnderTest, tmp_path: Path) -> None:
        """journal.write-before-act: SIGKILL at random moments loses nothing returned."""
        loom_store.skip_without("persistent", loom_store.persistent)
        report = run_kills(loom_store.make, str(tmp_path), name=loom_store.name,
                           kills=loom_store.kills, seconds=60.0, seed=20)
        print(report.summary())
        assert report.problems == [], report.problems[:5]
        assert report.kills == loom_store.kills


def _run(store: Any, scenario: KitScenario, execution_id: str, calls: list[str]) -> None:
    """The scenario's calls on ``execution_id``, until the first crash."""
    try:
        for action in scenario.actions:
            runtime = kit_runtime(store, calls)
            if action.do == "start":
                runtime.start(action.workflow, action.input, execution_id=execution_id)
            else:
                runtime.resume(execution_id, action.gate, action.payload)
    except Crash:
        pass


def _finish(store: Any, scenario: KitScenario, execution_id: str, calls: list[str]) -> Status:
    """Carry on after a crash: start if the crash left nothing, recover, resume."""
    runtime: Runtime = kit_runtime(store, calls)
    start, resume = scenario.actions
    if not store.exists(execution_id) or not store.read(execution_id).events:
        result = runtime.start(start.workflow, start.input, execution_id=execution_id)
    else:
        result = runtime.recover(execution_id)
    if result.status is Status.SUSPENDED:
        result = runtime.resume(execution_id, resume.gate, resume.payload)
    return result.status
