"""Every public entry point of the journal and the kernel answers a bad argument with a loom_ref
error carrying a stable code, never an internal exception (spec: errors.invalid-argument).

Each entry point is called with one argument replaced by each value of ``BAD`` (every other
argument good). The call may accept the value (some are valid for some parameters: ``None``
for an optional one); if it raises, the error MUST be a :class:`~loom_ref.errors.LoomError`
whose ``code`` is a non-empty string. A ``TypeError``, ``KeyError`` or ``AttributeError`` from
inside loom_ref fails the test. Nothing here writes outside a temporary directory.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

import pytest

from loom_ref.effects import Effect
from loom_ref.journal import (
    EventKind,
    FaultInjectingStore,
    FileStore,
    FsyncPolicy,
    LogStore,
    MemoryStore,
    Status,
    decode_line,
    encode_line,
    fold,
    parse_journal,
    parse_log,
    read_journal_file,
)
from loom_ref.journal.powerloss import SimulatedDisk
from loom_ref.journal.sqlitestore import SqliteStore
from loom_ref.kernel import EffectRegistry, ExecutionContext, Runtime, Workflow, replay

from ..badargs import BAD, leaks


def body(ctx: ExecutionContext, inp: Any) -> Generator[Any, Any, Any]:
    out = yield ctx.execute("echo", inp)
    payload = yield ctx.suspend("gate")
    return [out, payload]


WF = Workflow(name="wf", body=body)


def registry() -> EffectRegistry:
    return EffectRegistry([Effect(tool_id="echo", execute=lambda ctx, input: input)])


def runtime(**override: Any) -> Runtime:
    args: dict[str, Any] = {"store": MemoryStore(), "effects": registry(), "workflows": [WF],
                            "on_warn": lambda message: None}
    args.update(override)
    return Runtime(**args)


def suspended() -> Runtime:
    rt = runtime()
    rt.start("wf", {"n": 1}, execution_id="e1")
    return rt


def events() -> Any:
    store = MemoryStore()
    runtime(store=store).start("wf", {"n": 1}, execution_id="e1")
    return store.read("e1").events


def journal_bytes() -> bytes:
    store = MemoryStore()
    runtime(store=store).start("wf", {"n": 1}, execution_id="e1")
    return bytes(store.data["e1"])


def in_body(build: Callable[[ExecutionContext], Any]) -> Callable[[], Any]:
    """Run a body that yields ``build(ctx)``: the command builders are entry points too."""
    def run() -> Any:
        def b(ctx: ExecutionContext, inp: Any) -> Generator[Any, Any, Any]:
            return (yield build(ctx))
        return runtime(workflows=[Workflow(name="b", body=b)]).start(
            "b", None, execution_id="e1")
    return run


#: entry point name -> a function of the bad value that calls it with that value in one place
ENTRY_POINTS: dict[str, Callable[[Any, Path], Any]] = {
    "Runtime(store=)": lambda v, _: runtime(store=v).start("wf", 1, execution_id="e1"),
    "Runtime(effects=)": lambda v, _: runtime(effects=v),
    "Runtime(workflows=)": lambda v, _: runtime(workflows=v),
    "Runtime(on_warn=)": lambda v, _: runtime(on_warn=v),
    "Runtime.start(workflow)": lambda v, _: runtime().start(v, 1, execution_id="e1"),
    "Runtime.start(input)": lambda v, _: runtime().start("wf", v, execution_id="e1"),
    "Runtime.start(execution_id)": lambda v, _: runtime().start("wf", 1, execution_id=v),
    "Runtime.recover": lambda v, _: suspended().recover(v),
    "Runtime.resume(execution_id)": lambda v, _: suspended().resume(v, "gate", 1),
    "Runtime.resume(gate_id)": lambda v, _: suspended().resume("e1", v, 1),
    "Runtime.resume(payload)": lambda v, _: suspended().resume("e1", "gate", v),
    "Runtime.resolve(step_id)": lambda v, _: suspended().resolve("e1", v, output=1),
    "Runtime.resolve(output)": lambda v, _: suspended().resolve("e1", "echo#1", output=v),
    "Runtime.resolve(error)": lambda v, _: suspended().resolve("e1", "echo#1", error=v),
    "Runtime.state": lambda v, _: suspended().state(v),
    "Runtime.replay": lambda v, _: suspended().replay(v),
    "Runtime.workflow": lambda v, _: runtime().workflow(v),
    "replay(workflow)": lambda v, _: replay(v, events()),
    "replay(events)": lambda v, _: replay(WF, v),
    "replay(effects)": lambda v, _: replay(WF, events(), effects=v),
    "replay(on_warn)": lambda v, _: replay(WF, events(), on_warn=v),
    "Workflow(name)": lambda v, _: Workflow(name=v, body=body),
    "Workflow(body)": lambda v, _: Workflow(name="wf", body=v),
    "Workflow(resume_schemas)": lambda v, _: Workflow(name="wf", body=body, resume_schemas=v),
    "EffectRegistry(effects)": lambda v, _: EffectRegistry(v),
    "EffectRegistry.register(effect)": lambda v, _: EffectRegistry().register(v),
    "EffectRegistry(clock)": lambda v, _: EffectRegistry(clock=v),
    "EffectRegistry.invoke(call)": lambda v, _: registry().invoke(v),
    "EffectRegistry.invoke_transient_call(call)": lambda v, _: registry().invoke_transient_call(v),
    "EffectRegistry.invoke_transient(tool_id)": lambda v, _: registry().invoke_transient(
        v, 1, principal="p"),
    "EffectRegistry.is_idempotent(tool_id)": lambda v, _: registry().is_idempotent(v),
    "ExecutionContext(execution_id)": lambda v, _: ExecutionContext(v),
    "ctx.execute(tool_id)": lambda v, _: in_body(lambda ctx: ctx.execute(v))(),
    "ctx.execute(input)": lambda v, _: in_body(lambda ctx: ctx.execute("echo", v))(),
    "ctx.execute(step_id)": lambda v, _: in_body(lambda ctx: ctx.execute("echo", step_id=v))(),
    "ctx.execute(signal)": lambda v, _: in_body(lambda ctx: ctx.execute("echo", signal=v))(),
    "ctx.decide(decision_id)": lambda v, _: in_body(lambda ctx: ctx.decide(v, len))(),
    "ctx.decide(decider)": lambda v, _: in_body(lambda ctx: ctx.decide("d", v))(),
    "ctx.decide(context)": lambda v, _: in_body(
        lambda ctx: ctx.decide("d", lambda scope: 1, context=v))(),
    "ctx.suspend(gate_id)": lambda v, _: in_body(lambda ctx: ctx.suspend(v))(),
    "ctx.suspend(on)": lambda v, _: in_body(lambda ctx: ctx.suspend("g", on=v))(),
    "ctx.suspend(correlation_key)": lambda v, _: in_body(
        lambda ctx: ctx.suspend("g", correlation_key=v))(),
    "ctx.stream(data)": lambda v, _: in_body(lambda ctx: ctx.stream(v))(),
    "body yields": lambda v, _: in_body(lambda ctx: v)(),
    "MemoryStore.create": lambda v, _: MemoryStore().create(v),
    "MemoryStore.open": lambda v, _: MemoryStore().open(v),
    "MemoryStore.read": lambda v, _: MemoryStore().read(v),
    "MemoryStore.exists": lambda v, _: MemoryStore().exists(v),
    "FileStore(directory)": lambda v, _: FileStore(v),
    "FileStore(fsync)": lambda v, tmp: FileStore(tmp, fsync=v),
    "FileStore.create": lambda v, tmp: FileStore(tmp).create(v),
    "FileStore.open": lambda v, tmp: FileStore(tmp).open(v),
    "LogStore(path)": lambda v, _: LogStore(v).close(),
    "LogStore(fsync)": lambda v, tmp: LogStore(tmp / "s.log", fsync=v).close(),
    "FileStore(fs)": lambda v, tmp: FileStore(tmp, fs=v).create("e").close(),
    "LogStore(fs)": lambda v, tmp: LogStore(tmp / "s.log", fs=v).close(),
    "SqliteStore(path)": lambda v, _: SqliteStore(v).close(),
    "SqliteStore(fsync)": lambda v, tmp: SqliteStore(tmp / "s.db", fsync=v).close(),
    "SqliteStore(fs)": lambda v, tmp: SqliteStore(tmp / "s.db", fs=v).close(),
    "SqliteStore.create": lambda v, tmp: _with_sqlite(tmp, lambda db: db.create(v)),
    "SqliteStore.open": lambda v, tmp: _with_sqlite(tmp, lambda db: db.open(v)),
    "SqliteStore.read": lambda v, tmp: _with_sqlite(tmp, lambda db: db.read(v)),
    "SqliteStore.exists": lambda v, tmp: _with_sqlite(tmp, lambda db: db.exists(v)),
    "SimulatedDisk(directories)": lambda v, _: SimulatedDisk(directories=v),
    "SimulatedDisk(image)": lambda v, _: SimulatedDisk(image=v),
    "SimulatedDisk(observer)": lambda v, _: SimulatedDisk(observer=v),
    "SimulatedDisk(tear_at)": lambda v, _: SimulatedDisk(tear_at=v),
    "LogStore.create": lambda v, tmp: _with_log(tmp, lambda log: log.create(v)),
    "LogStore.read": lambda v, tmp: _with_log(tmp, lambda log: log.read(v)),
    "FaultInjectingStore(inner)": lambda v, _: FaultInjectingStore(v, crash_after=9).create("e"),
    "FaultInjectingStore(crash_after)": lambda v, _: FaultInjectingStore(
        MemoryStore(), crash_after=v),
    "FaultInjectingStore(torn_bytes)": lambda v, _: FaultInjectingStore(
        MemoryStore(), crash_after=1, torn_bytes=v),
    "Journal.append(kind)": lambda v, _: MemoryStore().create("e").append(v, {"a": 1}),
    "Journal.append(payload)": lambda v, _: MemoryStore().create("e").append(
        EventKind.EXECUTION_STARTED, v),
    "parse_journal(data)": lambda v, _: parse_journal(v),
    "parse_journal(source)": lambda v, _: parse_journal(b"garbage\n", source=v),
    "parse_log(data)": lambda v, _: parse_log(v),
    "read_journal_file": lambda v, _: read_journal_file(v),
    "EventKind(value)": lambda v, _: EventKind(v),
    "Status(value)": lambda v, _: Status(v),
    "FsyncPolicy(value)": lambda v, _: FsyncPolicy(v),
    "fold(events)": lambda v, _: fold(v),
    "fold(events[i])": lambda v, _: fold([*events()[:2], v]),
    "encode_line(seq)": lambda v, _: encode_line(v, "STEP_COMPLETED", {}),
    "encode_line(kind)": lambda v, _: encode_line(1, v, {}),
    "encode_line(payload)": lambda v, _: encode_line(1, "STEP_COMPLETED", v),
    "decode_line": lambda v, _: decode_line(v),
    "parse_journal(data) mutated": lambda v, _: parse_journal(
        journal_bytes().replace(b'"n":1', b'"n":' + repr(v).encode(), 1)),
}


def _with_log(tmp: Path, act: Callable[[LogStore], Any]) -> Any:
    with LogStore(tmp / "s.log", fsync=FsyncPolicy.NEVER) as log:
        return act(log)


def _with_sqlite(tmp: Path, act: Callable[[SqliteStore], Any]) -> Any:
    with SqliteStore(tmp / "s.db", fsync=FsyncPolicy.NEVER) as db:
        return act(db)


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_a_bad_argument_is_a_loom_error_with_a_code(
    entry: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # a relative path ("x") names a file in the temporary directory
    call = ENTRY_POINTS[entry]
    places = iter(range(len(BAD)))

    def in_a_fresh_directory(value: Any) -> Any:
        where = tmp_path / str(next(places))
        where.mkdir()
        return call(value, where)

    leaked = leaks(entry, in_a_fresh_directory)
    assert not leaked, f"{entry} leaked internal exceptions:\n" + "\n".join(leaked)


def test_caller_events_are_checked_as_a_reader_checks_them() -> None:
    # spec: errors.invalid-argument -- fold and replay take events from a caller: an event
    # that is not an Event, has no EventKind, or lacks a required payload field is refused
    # before anything is folded or driven
    from loom_ref.errors import InvalidArgument
    from loom_ref.journal import Event

    good = list(events())
    bad_events = [
        [*good, "EXECUTION_COMPLETED"],
        [*good[:-1], Event(seq=len(good), kind="EXECUTION_SUSPENDED",  # type: ignore[arg-type]
                           payload=good[-1].payload)],
        [*good[:2], Event(seq=3, kind=EventKind.STEP_COMPLETED, payload={"stepId": "echo#1"})],
        [*good[:2], Event(seq=3, kind=EventKind.STEP_COMPLETED, payload=[1])],  # type: ignore[arg-type]
    ]
    for bad in bad_events:
        for entry in (fold, lambda evs: replay(WF, evs)):
            with pytest.raises(InvalidArgument) as info:
                entry(bad)
            assert info.value.code == "argument.invalid"
            assert f"events[{len(bad) - 1}]" in info.value.message
    assert fold(iter(good)).status == fold(good).status  # any iterable, a generator too


def test_two_workflows_of_one_name_are_refused() -> None:
    """A workflow name picks one body: two registered under the same name are refused when
    the Runtime is built (tools/coverage/python-only.toml names this file for it)."""
    from loom_ref.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match="two workflows are named 'wf'"):
        runtime(workflows=[WF, Workflow(name="wf", body=body)])
