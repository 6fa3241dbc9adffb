"""Where everything of the timeline picture goes: columns, lane groups, rows.

Time runs left to right, one column per journal event (``seq``). Lanes are stacked top to
bottom in the order they first appear, in **groups**:

- a small execution (at most :data:`GROUP_LANES` lanes and :data:`GROUP_EVENTS` events) gets
  one group per lane and nothing else: the picture is a plain lane per step;
- a larger one groups its lanes: an agent's by turn (``#turn:<i>`` with its tools, gates,
  compaction and decisions, ADR 0087's step identity), others by the step id's family (the
  part before its first ``:``), and runs of lanes that are alone in their family in blocks
  of :data:`BLOCK` lanes. The execution's own lane stays on top, always drawn. Every other
  group is a **segment** of the *group rows* just under it, from its first event to its
  last, named, and marked with its events; groups that do not overlap in time share a row (a
  turn follows a turn), so a long run takes a few rows whatever its length, and wherever the
  picture is scrolled the groups in view are named in it. A click on a segment **opens** the
  group: its lanes are drawn below the group rows, one lane per step, with its name in the
  gutter (a click there closes it). At first the groups that hold something to look at (an
  in-doubt step, a failure, a divergence, a step run again) are open, at most
  :data:`OPEN_AT_MOST` of them.

The page's script re-stacks the open groups when one is opened or closed (``script.py``);
the layout here is the one a page opens with, and the one a page without JavaScript keeps.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import attrs

from loom_ref.cli.timeline.model import Lane, LaneKind, MarkerKind, Timeline

__all__ = ["BLOCK", "COL", "GROUP_EVENTS", "GROUP_H", "GROUP_LANES", "LANE_H", "OPEN_AT_MOST",
           "Group", "Layout", "group_lanes"]

COL = 64  # one journal event
LANE_H = 60  # one lane
GROUP_H = 30  # a group row, and an open group's title row
GROUP_LANES = 16  # more lanes than this: grouped
GROUP_EVENTS = 160  # more events than this: grouped
BLOCK = 8  # lanes alone in their family, per block
OPEN_AT_MOST = 3  # groups open at first because they hold something to look at
ROWS_GAP = 8  # between the group rows and the open groups

_TURN = re.compile(r"^(#turn:\d+)(?::|$)")
_ATTENTION = {MarkerKind.IN_DOUBT, MarkerKind.NONDETERMINISM, MarkerKind.RAN_AGAIN}


@attrs.define(kw_only=True)
class Group:
    """Lanes drawn together: ``label`` names them; ``header`` says whether the group is a
    segment of the group rows, opened on demand (grouped timelines), or always drawn (the
    execution's lane, and every lane of a small timeline); ``collapsed`` whether it is closed
    now; ``first`` and ``last`` the seqs its events span; ``row`` its group row."""

    id: str
    label: str
    lanes: list[Lane]
    header: bool
    collapsed: bool = False
    first: int = 0
    last: int = 0
    row: int = 0

    @property
    def open_height(self) -> int:
        """Its height when drawn: a title row (a segment group), then its lanes."""
        return (GROUP_H if self.header else 0) + LANE_H * len(self.lanes)

    @property
    def height(self) -> int:
        """Its height now: a closed segment group takes no room under the group rows."""
        return 0 if self.header and self.collapsed else self.open_height


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
    column): the groups always drawn, the group rows, then the open groups."""

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
        spans: dict[str, list[int]] = {}
        for point in timeline.points:
            span = spans.setdefault(self.group_of[point.lane].id, [point.seq, point.seq])
            span[1] = point.seq
        for group in self.groups:
            group.first, group.last = spans.get(group.id, [0, 0])
        #: The group rows: segment groups that do not overlap in time share a row.
        self.rows: list[list[Group]] = []
        for group in (g for g in self.groups if g.header):
            for i, row in enumerate(self.rows):
                if row[-1].last < group.first:
                    row.append(group)
                    group.row = i
                    break
            else:
                group.row = len(self.rows)
                self.rows.append([group])
        if self.grouped:
            self._open_what_matters()
        self._tops: dict[str, int] | None = None  # computed once the groups are opened
        self.width = max(COL * self.columns + 24, 960)  # room for a marker's words

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
    @property
    def fixed(self) -> list[Group]:
        """The groups always drawn, on top."""
        return [g for g in self.groups if not g.header]

    @property
    def segments(self) -> list[Group]:
        """The groups of the group rows."""
        return [g for g in self.groups if g.header]

    @property
    def rows_top(self) -> int:
        """The top of the group rows."""
        return sum(g.open_height for g in self.fixed)

    @property
    def blocks_top(self) -> int:
        """The top of the open groups, under the group rows."""
        return self.rows_top + GROUP_H * len(self.rows) + (ROWS_GAP if self.rows else 0)

    def group_top(self, group: Group) -> int:
        """The top of ``group`` as the page opens (fixed groups on top; the open segment
        groups under the group rows, in order)."""
        if self._tops is None:
            self._tops = {}
            tops = {False: 0, True: self.blocks_top}
            for g in self.groups:
                self._tops[g.id] = tops[g.header]
                tops[g.header] += g.height
        return self._tops[group.id]

    def lane_offset(self, lane_id: str) -> int:
        """The top of lane ``lane_id`` within its group."""
        return self._offsets[lane_id]

    @property
    def height(self) -> int:
        """The body's height as the page opens."""
        return self.blocks_top + sum(g.height for g in self.segments)
