"""The durability table and the file layer (spec: journal.power-loss, journal.dir-sync,
journal.fsync-policy): the page holds exactly the table the code and the simulation use,
the sync counts it states are the ones measured, and the real file layer does what the
stores rely on."""

from __future__ import annotations

import inspect
import re
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from loom_ref import InvalidArgument
from loom_ref.effects import Effect
from loom_ref.journal import (
    GUARANTEES,
    SYNC_AFTER,
    FileStore,
    FsyncPolicy,
    Invariant,
    LogStore,
    OsFileSystem,
    SqliteStore,
)
from loom_ref.journal.durability import (
    ALL_INVARIANTS,
    BEFORE_EFFECTS,
    BOUNDARIES,
    DEFAULT_POLICY,
    durability_table,
)
from loom_ref.journal.fs import check_fs
from loom_ref.journal.powerloss import SimulatedDisk
from loom_ref.kernel import EffectRegistry, ExecutionContext, Runtime, Workflow

SPEC = (Path(__file__).parents[2] / "spec" / "journal.md").read_text()


def test_the_page_holds_the_table_the_code_uses() -> None:
    # spec: journal.power-loss -- one table, drawn from loom_ref.journal.GUARANTEES
    found = re.search(r"<!-- durability-table: .*? -->\n(.*?)<!-- end durability-table -->",
                      SPEC, re.S)
    assert found is not None
    assert found.group(1) == durability_table()
    assert set(GUARANTEES) == set(FsyncPolicy) == set(SYNC_AFTER)


def test_the_page_names_every_invariant() -> None:
    rows = re.findall(r"^\| `([a-z-]+)` \| ", SPEC.split("The invariants, checked")[1], re.M)
    assert rows[:len(Invariant)] == [i.value for i in Invariant]


def test_the_table_only_weakens_downwards() -> None:
    every, ahead, boundaries, never = (GUARANTEES[p].holds for p in FsyncPolicy)
    assert every == ahead == ALL_INVARIANTS and never < boundaries < every
    assert all(Invariant.READABLE in g.holds for g in GUARANTEES.values())


def test_the_default_is_write_ahead_and_keeps_what_every_event_keeps() -> None:
    # spec: journal.write-ahead -- the default only because it keeps every invariant
    assert DEFAULT_POLICY is FsyncPolicy.WRITE_AHEAD
    assert GUARANTEES[DEFAULT_POLICY].holds == GUARANTEES[FsyncPolicy.EVERY_EVENT].holds
    # it syncs before an effect runs and before a call returns, and nowhere else
    assert SYNC_AFTER[DEFAULT_POLICY] == BEFORE_EFFECTS | BOUNDARIES
    for store in (FileStore, LogStore, SqliteStore):
        default = inspect.signature(store).parameters["fsync"].default
        assert default is DEFAULT_POLICY, store.__name__


def _one_step(ctx: ExecutionContext, x: Any) -> Generator[Any, Any, Any]:
    return (yield ctx.execute("echo", x))


@pytest.mark.parametrize("policy, syncs", [
    (FsyncPolicy.EVERY_EVENT, 4), (FsyncPolicy.WRITE_AHEAD, 2), (FsyncPolicy.AT_BOUNDARIES, 1),
    (FsyncPolicy.NEVER, 0)])
def test_the_syncs_per_execution_the_page_states(policy: FsyncPolicy, syncs: int) -> None:
    for name, make in (("file", lambda fs: FileStore("/disk", fsync=policy, fs=fs)),
                       ("log", lambda fs: LogStore("/disk/s.log", fsync=policy, fs=fs))):
        disk = SimulatedDisk()
        effects = EffectRegistry([Effect(tool_id="echo", execute=lambda ctx, input: 1)])
        runtime = Runtime(store=make(disk), effects=effects,
                          workflows=[Workflow(name="one", body=_one_step)])
        runtime.start("one", 1, execution_id="a")
        first = (disk.syncs, disk.dir_syncs)
        runtime.start("one", 1, execution_id="b")
        second = (disk.syncs - first[0], disk.dir_syncs - first[1])
        directory = 1 if syncs else 0  # spec: journal.dir-sync
        assert first == (syncs, directory), name
        assert second == (syncs, directory if name == "file" else 0), name


# -- the real file layer ---------------------------------------------------------------------

def test_the_os_file_layer(tmp_path: Path) -> None:
    fs = OsFileSystem()
    path = str(tmp_path / "f")
    handle = fs.create(path)
    with pytest.raises(FileExistsError):
        fs.create(path)
    with pytest.raises(FileNotFoundError):
        fs.open(str(tmp_path / "missing"))
    handle.append(b"one\n")
    handle.append(b"two\n")
    handle.truncate(4)
    handle.append(b"three\n")  # appends go to the end, after a truncation too
    handle.sync()
    fs.sync_dir(str(tmp_path))
    assert fs.read(path) == handle.read_all() == b"one\nthree\n"
    assert handle.lock()
    other = fs.open(path)
    assert not other.lock()  # journal.single-writer: one flock at a time
    handle.close()
    handle.close()
    assert other.lock()
    other.close()
    created = fs.open(str(tmp_path / "new"), create=True)
    assert created.read_all() == b"" and fs.exists(str(tmp_path / "new"))
    created.close()
    assert fs.is_dir(str(tmp_path)) and not fs.is_dir(path)


def test_a_file_layer_is_checked() -> None:
    assert isinstance(check_fs(None), OsFileSystem)
    disk = SimulatedDisk()
    assert check_fs(disk) is disk
    with pytest.raises(InvalidArgument):
        check_fs(object())
