"""Where everything of the timeline picture goes: columns, lane groups, rows.

Time runs left to right, one column per journal event (``seq``). Lanes are stacked top to
bottom in the order they first appear, in **groups**:

- a small execution (at most :data:`GROUP_LANES` lanes and :data:`GROUP_EVENTS` events) gets
  one group per lane and no group rows: the picture is a plain lane per step;
- a larger one groups its lanes: an agent's by turn (``#turn:<i>`` with its tools, gates,
  compaction and decisions, ADR 0087's step identity), others by the step id's family (the
  part before its first ``:``), and runs of lanes that are alone in their family in blocks
  of :data:`BLOCK` lanes. The execution's own lane stays a group of its own. Each group has
  a row of its own that summarises every event of its lanes, and is **collapsed** (only that
  row shows) unless it holds something to look at (an in-doubt step, a failure, a
  divergence, a step run again), at most :data:`OPEN_AT_MOST` of them.

The page's script re-stacks the groups when one is opened or closed (``script.py``); the
layout here is the one a page opens with, and the one a page without JavaScript keeps.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import attrs

from loom_ref.cli.timeline.model import Lane, LaneKind, MarkerKind, Timeline

__all__ = [
    "BLOCK",
    "COL",
    "GROUP_EVENTS",
    "GROUP_H",
    "GROUP_LANES",
    "LANE_H",
    "OPEN_AT_MOST",
    "Group",
    "Layout",
    "group_lanes",
]

COL = 64  # one journal event
LANE_H = 60  # one lane
GROUP_H = 30  # a group's own row
GROUP_LANES = 16  # more lanes than this: grouped
GROUP_EVENTS = 160  # more events than this: grouped
BLOCK = 8  # lanes alone in their family, per block
OPEN_AT_MOST = 3  # groups open at first because they hold something to look at

_TURN = re.compile(r"^(#turn:\d+)(?::|$)")
_ATTENTION = {MarkerKind.IN_DOUBT, MarkerKind.NONDETERMINISM, MarkerKind.RAN_AGAIN}


@attrs.define(kw_only=True)
class Group:
    """Lanes drawn together: ``label`` names them; ``header`` says whether the group has a
    row of its own (grouped timelines only); ``collapsed`` whether only that row shows."""

    id: str
    label: str
    lanes: list[Lane]
    header: bool
    collapsed: bool = False

    @property
    def open_height(self) -> int:
        """Its height with its lanes shown."""
        return (GROUP_H if self.header else 0) + LANE_H * len(self.lanes)

    @property
    def closed_height(self) -> int:
        """Its height collapsed (a group without a row of its own never collapses)."""
        return GROUP_H if self.header else self.open_height

    @property
    def height(self) -> int:
        """Its height now."""
        return self.closed_height if self.collapsed else self.open_height


def _family(lane: Lane) -> str:
    match = _TURN.match(lane.name)
    if match:
        return match.group(1)
    return lane.name.split(":", 1)[0] or lane.name


def group_lanes(lanes: Iterable[Lane], *, grouped: bool) -> list[Group]:
    """The lanes in groups (see the module docstring)."""
    lanes = list(lanes)
    if not grouped:
        return [Group(id=f"g{i}", label=lane.name, lanes=[lane], header=False)
                for i, lane in enumerate(lanes)]
    families: dict[str, list[Lane]] = {}
    for lane in lanes:
        key = "execution" if lane.kind is LaneKind.EXECUTION else _family(lane)
        families.setdefault(key, []).append(lane)
    groups: list[Group] = []
    loose: list[Lane] = []

    def flush() -> None:
        for start in range(0, len(loose), BLOCK):
            block = loose[start:start + BLOCK]
            names = ", ".join(lane.name for lane in block[:3]) + (
                f", … ({len(block)} lanes)" if len(block) > 3 else "")
            groups.append(Group(id=f"g{len(groups)}", label=names, lanes=block, header=True))
        loose.clear()

    for key, members in families.items():
        if key == "execution":
            flush()
            groups.append(Group(id=f"g{len(groups)}", label="execution", lanes=members,
                                header=False))
        elif len(members) == 1 and not _TURN.match(key):
            loose.append(members[0])
        else:
            flush()
            groups.append(Group(id=f"g{len(groups)}", label=key, lanes=members, header=True))
    flush()
    return groups


class Layout:
    """The picture's geometry: the body's columns and rows (its x from 0 at the first
    column), and the head's rows above it."""

    def __init__(self, timeline: Timeline) -> None:
        self.t = timeline
        self.columns = len(timeline.points) + (
            1 if timeline.torn is not None or timeline.corrupt is not None else 0)
        self.grouped = (len(timeline.lanes) > GROUP_LANES
                        or len(timeline.points) > GROUP_EVENTS)
        self.groups = group_lanes(timeline.lanes, grouped=self.grouped)
        self.group_of = {lane.id: g for g in self.groups for lane in g.lanes}
        self.lane_index = {lane.id: i for i, lane in enumerate(timeline.lanes)}
        self._offsets = {lane.id: (GROUP_H if g.header else 0) + LANE_H * i
                         for g in self.groups for i, lane in enumerate(g.lanes)}
        if self.grouped:
            self._open_what_matters()
        self.width = max(COL * self.columns + 24, 640)

    def _open_what_matters(self) -> None:
        for group in self.groups:
            group.collapsed = group.header
        opened = 0
        lanes = [m.lane for m in self.t.markers if m.kind in _ATTENTION and m.lane]
        lanes += [p.lane for p in self.t.points if p.label == "failed"]
        for lane in lanes:
            found = self.group_of.get(lane)
            if found is not None and found.collapsed and opened < OPEN_AT_MOST:
                found.collapsed = False
                opened += 1

    # -- x ------------------------------------------------------------------------------
    def x(self, seq: int) -> float:
        """The centre of event ``seq``'s column."""
        return COL * (seq - 0.5)

    def boundary(self, after: int) -> float:
        """The line between event ``after`` and the next."""
        return float(COL * after)

    # -- y ------------------------------------------------------------------------------
    def group_top(self, group: Group) -> int:
        """The top of ``group`` as the page opens."""
        y = 0
        for g in self.groups:
            if g is group:
                return y
            y += g.height
        raise KeyError(group.id)

    def lane_offset(self, lane_id: str) -> int:
        """The top of lane ``lane_id`` within its group."""
        return self._offsets[lane_id]

    @property
    def height(self) -> int:
        """The body's height as the page opens."""
        return sum(g.height for g in self.groups)
