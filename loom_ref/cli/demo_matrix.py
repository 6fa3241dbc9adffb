"""The demo's crash matrix: the story crashed at every cut point, and what each cut cost.

For every journal event k the uncrashed demo writes, :func:`crash_matrix` runs the story of
:mod:`loom_ref.cli.demo_story` with process 1 dying right after event k (or, ``torn``, while
writing it: its line cut short), lets a fresh process recover, and keeps what a class wants
to see (:class:`Cut`): the journal as it stood when the process died, the torn line if any,
the processes (what each call served from the journal and what it ran), the warnings, the
tape of the streams, the journal at the end, and how often each effect really ran. The
tests hold every cut to the rules (``tests/cli/test_demo.py``: the refund runs once, the
journal ends as the uncrashed one, in-doubt steps exactly where a non-idempotent step had
started); the crash explorer (``loom-ref demo --explore``, :mod:`loom_ref.cli.explorer`)
draws the very same cuts, so what the page shows is what the tests checked.

Each run is in memory (a ``MemoryStore``); the agent is deterministic, so the matrix is too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from loom_ref.cli.demo_agent import PLAIN, Options, World
from loom_ref.cli.demo_story import Silent, Story, run_story
from loom_ref.journal import MemoryStore
from loom_ref.journal.events import Event
from loom_ref.journal.reader import TornTail, parse_journal

__all__ = ["EXECUTION", "Cut", "crash_matrix", "run_cut"]

#: The execution id every run of the matrix uses.
EXECUTION = "demo-1"


@attrs.frozen(kw_only=True)
class Cut:
    """One run of the story: ``after`` is the event the crash came after (``torn``: the
    event whose write it tore; None: no crash); ``written`` the journal's events when
    process 1 died, ``torn_tail`` and ``torn_text`` the half-written line it left; ``story``
    the processes, the result and the tape; ``events`` the journal at the end; ``runs`` how
    often each effect really ran over all processes; ``warnings`` what the runtimes warned."""

    after: int | None
    torn: bool
    written: tuple[Event, ...]
    torn_tail: TornTail | None
    torn_text: str
    story: Story
    events: tuple[Event, ...]
    runs: Mapping[str, int]
    warnings: tuple[str, ...]

    @property
    def status(self) -> str:
        """How the execution ended."""
        assert self.story.result is not None
        return self.story.result.status.value

    def in_doubt(self) -> list[str]:
        """The steps a recovery found in doubt (their STEP_IN_DOUBT events)."""
        return [str(e.payload["stepId"]) for e in self.events
                if e.kind.value == "STEP_IN_DOUBT"]


def run_cut(options: Options = PLAIN, after: int | None = None, *, torn: bool = False
            ) -> Cut:
    """The story crashed after event ``after`` (None: not crashed), ``torn`` or not."""
    store = MemoryStore()
    world = World()
    warnings: list[str] = []
    snapshot: list[bytes] = []

    def crashed() -> None:
        snapshot.append(bytes(store.data.get(EXECUTION, b"")))

    story = run_story(store, EXECUTION, world, Silent(), crash_after=after, options=options,
                      torn=torn, on_warn=warnings.append, on_crash=crashed)
    written: tuple[Event, ...] = ()
    torn_tail, torn_text = None, ""
    if snapshot:
        parsed = parse_journal(snapshot[0], source="crash")
        written, torn_tail = tuple(parsed.events), parsed.torn
        if torn_tail is not None:
            torn_text = snapshot[0][parsed.good_size:].decode("utf-8", errors="replace")
    return Cut(after=after, torn=torn, written=written, torn_tail=torn_tail,
               torn_text=torn_text, story=story,
               events=tuple(store.read(EXECUTION).events), runs=dict(world.runs),
               warnings=tuple(warnings))


def crash_matrix(options: Options = PLAIN, *, torn: bool = False) -> list[Cut]:
    """Every cut point of the demo with ``options``: a crash after each event it writes (with
    ``torn``, while writing each), in order."""
    total = len(run_cut(options).events)
    return [run_cut(options, k, torn=torn) for k in range(1, total + 1)]


def cost(cut: Cut, baseline: Cut) -> dict[str, Any]:
    """What the crash cost against the uncrashed run: the effect runs beyond it, by effect."""
    return {name: n - baseline.runs.get(name, 0) for name, n in sorted(cut.runs.items())
            if n != baseline.runs.get(name, 0)}


__all__ += ["cost"]
