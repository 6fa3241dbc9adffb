"""Journals and timelines worth drawing, for the timeline and browser tests: a crashed and
recovered demo, a torn journal, a diverged one."""

from __future__ import annotations

import io
import zlib
from pathlib import Path

from loom_ref.cli.demo_agent import World, build_host, build_workflow
from loom_ref.cli.demo_story import Silent, run_story
from loom_ref.cli.timeline.model import Timeline, build_timeline
from loom_ref.journal import FileStore, FsyncPolicy, read_journal_file
from loom_ref.kernel import NondeterminismError, Runtime


def crashed_demo(where: Path, crash_after: int | None = 7, *, torn: bool = False) -> Timeline:
    """The demo crashed after ``crash_after`` events (None: not crashed) and recovered, with
    its processes and the tape of its streams."""
    store = FileStore(where, fsync=FsyncPolicy.NEVER)
    story = run_story(store, "demo-1", World(), Silent(), crash_after=crash_after, torn=torn,
                      on_warn=lambda m: None)
    parsed = store.read("demo-1")
    return build_timeline(parsed.events, source=store.path("demo-1"), torn=parsed.torn,
                          processes=story.processes, tape=story.tape.to_json())


def demo_journal(where: Path) -> Path:
    """An uncrashed demo's journal file (16 events)."""
    from loom_ref.cli.demo import run_demo

    run_demo(directory=str(where), crash_after=None, out=io.StringIO())
    return where / "demo-1.jsonl"


def torn_journal(where: Path) -> Path:
    """A demo journal whose last line is cut short (16 events intact, line 18 torn)."""
    path = demo_journal(where)
    path.write_bytes(path.read_bytes() + b'{"seq":17,"kind":"STEP_STA')
    return path


def rewrite_line(path: Path, number: int, old: bytes, new: bytes) -> None:
    """Replace ``old`` by ``new`` in line ``number`` (1-based) and fix its checksum."""
    lines = path.read_bytes().split(b"\n")
    body = lines[number - 1][: lines[number - 1].rindex(b',"crc":"')].replace(old, new)
    lines[number - 1] = body + b',"crc":"%08x"}' % zlib.crc32(body)
    path.write_bytes(b"\n".join(lines))


def diverged_journal(where: Path) -> Path:
    """A demo journal cut after event 6 whose lookup step names another tool: recovering it
    makes the body diverge, and the kernel journals EXECUTION_FAILED with expected/actual."""
    path = demo_journal(where)
    lines = path.read_bytes().split(b"\n")
    path.write_bytes(b"\n".join(lines[:7]) + b"\n")  # the header and events 1-6
    rewrite_line(path, 6, b'"lookup_order"', b'"refund"')
    store = FileStore(where, fsync=FsyncPolicy.NEVER)
    runtime = Runtime(store=store, effects=build_host(World(), on_text=lambda t: None),
                      workflows=[build_workflow()], on_warn=lambda m: None)
    try:
        runtime.recover("demo-1")
    except NondeterminismError:
        pass
    assert read_journal_file(path).events[-1].payload["error"]["code"] == (
        "kernel.nondeterminism")
    return path
