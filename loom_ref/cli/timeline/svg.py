"""The timeline as SVG: time runs left to right, one column per journal event.

The picture is four SVGs in a grid (:func:`picture`), so that the page can keep the head and
the lane names in sight while the lanes scroll (``position: sticky``):

- the **head** and its **corner** (``svg_head.py``): the boundary markers' words, the
  processes and their calls, the sequence numbers, the folded status after each event;
- the **gutter**: the name of each lane, of the group rows, and of each open group;
- the **body**: the lanes, in the groups of ``layout.py``: the lanes always drawn (the
  execution's), the group rows (each group a named segment marked with its events; a click
  opens it), and the open groups' lanes. Every event is a symbol with a word under it; every
  marker has words, not only a colour; a streamed call's deltas are ticks inside its step, on
  the same time axis (a click leads to the stream's table, ``stream_html.py``).

Each event symbol is a ``<g class="ev" data-seq=N>`` with a ``<title>`` (the hover text);
the page's script shows its payload on click. Elements that span the body's height carry
``data-full``, so the script can follow the open groups' height.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from loom_ref.cli.timeline.layout import COL, GROUP_H, LANE_H, Group, Layout
from loom_ref.cli.timeline.model import Lane, LaneKind, Marker, MarkerKind, Point, Timeline
from loom_ref.cli.timeline.streams import StreamCall
from loom_ref.cli.timeline.svg_head import GUTTER, Head, corner_svg, head_svg, svg_element
from loom_ref.cli.timeline.svgkit import attrs_of, esc, line, rect, text, text_width
from loom_ref.cli.timeline.symbols import symbol
from loom_ref.cli.timeline.text import describe
from loom_ref.journal.events import Event, EventKind

__all__ = ["GUTTER", "picture", "symbol"]

K = EventKind
SYM_DY = 26  # a symbol's centre below its lane's top
WORD_DY = 50  # the baseline of its word

_KIND_LABEL = {LaneKind.EXECUTION: "execution", LaneKind.STEP: "step",
               LaneKind.DECISION: "decision", LaneKind.GATE: "gate", LaneKind.STREAM: "stream"}


# -- the gutter -------------------------------------------------------------------------------
def _lane_label(lay: Layout, lane: Lane, top: float) -> str:
    index = lay.lane_index[lane.id]
    name = (f"execution {lay.t.execution_id}" if lane.kind is LaneKind.EXECUTION else lane.name)
    name = name if len(name) <= 26 else name[:25] + "…"
    detail = {LaneKind.STEP: "step, tool ", LaneKind.GATE: "gate, waits on ",
              LaneKind.EXECUTION: "workflow "}.get(lane.kind, _KIND_LABEL[lane.kind])
    detail += lane.detail or ""
    return (rect(0, top, GUTTER, LANE_H, class_=f"lane-bg lane-{index % 2}")
            + f"<g {attrs_of(class_='lane-label', data_lane=lane.id)}>"
            f"<title>{esc(_KIND_LABEL[lane.kind] + ' ' + lane.name)}</title>"
            + text(12, top + 24, name, class_="lane-name")
            + text(12, top + 44, detail, class_="lane-detail") + "</g>")


Lazy = dict[str, dict[str, str]]


def _block_g(group: Group, y: int, inner: str, lazy: Lazy | None, side: str) -> str:
    """An open group's block (or a closed one's, hidden), in the gutter or the body. With
    ``lazy``, a closed group's markup is kept there (the page's data) instead of in the SVG,
    and the script draws it when the group is opened: a long run's page opens with only what
    shows."""
    held = lazy is not None and group.collapsed
    if held:
        assert lazy is not None
        lazy.setdefault(group.id, {})[side] = inner
    at = attrs_of(class_="grp" + (" grp-closed" if group.collapsed else ""),
                  data_group=group.id, data_open_h=group.open_height,
                  transform=f"translate(0,{y})",
                  display="none" if group.collapsed else None, data_lazy="1" if held else None)
    return f"<g {at}>{'' if held else inner}</g>"


def _gutter(lay: Layout, lazy: Lazy | None) -> str:
    out = []
    for group in lay.fixed:
        top = lay.group_top(group)
        out += [_lane_label(lay, lane, top + lay.lane_offset(lane.id)) for lane in group.lanes]
    if lay.rows:
        top = lay.rows_top
        out.append(rect(0, top, GUTTER, GROUP_H * len(lay.rows), class_="rows-bg")
                   + text(12, top + 13, "groups of lanes", class_="rows-name")
                   + f"<title>{len(lay.segments)} groups: each is a segment of these rows, "
                   "from its first event to its last; click a segment to open it</title>")
        out.append(text(12, top + 26, "click one to open it", class_="rows-hint"))
    for group in lay.segments:
        words = group.label if len(group.label) <= 24 else group.label[:23] + "…"
        title = (f'<g class="grp-toggle" tabindex="0" role="button" aria-expanded="'
                 f'{"false" if group.collapsed else "true"}" '
                 f'aria-label="{esc("close the group " + group.label)}">'
                 f"<title>{esc(group.label)}: events {group.first}-{group.last}; click to "
                 "close</title>"
                 + rect(2, 2, GUTTER - 4, GROUP_H - 4, rx=5, class_="grp-box")
                 + text(10, 20, "▾", class_="grp-mark") + text(26, 20, words, class_="grp-name")
                 + text(GUTTER - 8, 20, f"{group.first}-{group.last}", class_="grp-count",
                        text_anchor="end") + "</g>")
        lanes = "".join(_lane_label(lay, lane, lay.lane_offset(lane.id)) for lane in group.lanes)
        out.append(_block_g(group, lay.group_top(group), title + lanes, lazy, "gutter"))
    return svg_element("tl-gutter-svg", GUTTER, max(lay.height, 1), "".join(out))


# -- the body ---------------------------------------------------------------------------------
def _marks(lay: Layout, points: Sequence[Point], y: float) -> str:
    """Every event of a group as a small mark at its column, one path per kind."""
    paths: dict[str, list[str]] = {}
    for p in points:
        x = lay.x(p.seq)
        cls = ("m-fail" if p.kind in (K.STEP_FAILED, K.EXECUTION_FAILED) else
               "m-doubt" if p.kind is K.STEP_IN_DOUBT else
               "m-done" if p.kind in (K.STEP_COMPLETED, K.EXECUTION_COMPLETED) else
               "m-gate" if p.kind in (K.EXECUTION_SUSPENDED, K.RESUME_RECEIVED,
                                      K.EXECUTION_RESUMED) else
               "m-decision" if p.kind is K.DECISION_RECORDED else "m-other")
        paths.setdefault(cls, []).append(f"M{x - 3.5:g},{y - 3.5:g}h7v7h-7z")
    return "".join(f'<path class="{cls}" d="{"".join(d)}"/>' for cls, d in paths.items())


def _segment(lay: Layout, group: Group, points: Sequence[Point]) -> str:
    """A group in the group rows: named, marked with its events; a click opens it."""
    if not points:
        return ""
    y = lay.rows_top + GROUP_H * group.row
    x0, x1 = lay.boundary(group.first - 1) + 3, lay.boundary(group.last) - 3
    width = x1 - x0
    name = group.label
    fits = text_width(name, 11.5) + 10 <= width
    at = attrs_of(class_="seg" + ("" if group.collapsed else " seg-open"), data_group=group.id,
                  tabindex="0", role="button", aria_label=f"open the group {group.label}")
    failed = any(p.kind in (K.STEP_FAILED, K.EXECUTION_FAILED, K.STEP_IN_DOUBT) for p in points)
    return (f"<g {at}><title>{esc(group.label)}: {len(group.lanes)} lane(s), events "
            f"{group.first}-{group.last}" + (" (a failure or an in-doubt step)" if failed else "")
            + "; click to open or close</title>"
            + rect(x0, y + 3, width, GROUP_H - 6, rx=6,
                   class_="seg-box" + (" seg-alert" if failed else ""))
            + (text(x0 + 6, y + 13, name, class_="seg-name") if fits else "")
            + _marks(lay, points, y + (21 if fits else GROUP_H / 2)) + "</g>")


def _group_title(lay: Layout, group: Group) -> str:
    """An open group's title row in the body."""
    x = lay.boundary(group.first - 1)
    return (rect(0, 0, lay.width, GROUP_H, class_="grp-row")
            + text(x + 6, 20, f"{group.label} (open: its lanes below; close it in the gutter)",
                   class_="grp-title"))


def _spans(lay: Layout, lane_points: Mapping[str, list[Point]]) -> dict[str, list[str]]:
    """The bars per lane: a step from its start to its outcome, a gate from suspend to
    resume; a step with no outcome (yet) gets a dashed bar to the end."""
    out: dict[str, list[str]] = {}
    last = len(lay.t.points)
    for lane, points in lane_points.items():
        top = lay.lane_offset(lane) + SYM_DY
        bars = out.setdefault(lane, [])
        opened: Point | None = None
        doubt: Point | None = None
        for point in points:
            if point.kind in (K.STEP_STARTED, K.EXECUTION_SUSPENDED):
                opened = point
            elif point.kind is K.STEP_IN_DOUBT and opened is not None:
                bars.append(line(lay.x(opened.seq), top, lay.x(point.seq), top,
                                 class_="bar-doubt"))
                doubt = point
            elif point.kind in (K.STEP_COMPLETED, K.STEP_FAILED, K.EXECUTION_RESUMED) and (
                    opened is not None):
                start = doubt or opened
                cls = "bar-gate" if point.kind is K.EXECUTION_RESUMED else (
                    "bar-step" if point.kind is K.STEP_COMPLETED else "bar-failed")
                bars.append(line(lay.x(start.seq), top, lay.x(point.seq), top, class_=cls))
                opened = doubt = None
        if opened is not None:
            since = doubt or opened
            if since.seq < last:
                bars.append(line(lay.x(since.seq), top, lay.x(last) + COL / 2 - 6, top,
                                 class_="bar-open"))
    return out


def _event(lay: Layout, point: Point, before: str, badges: Sequence[Marker]) -> str:
    x, top = lay.x(point.seq), lay.lane_offset(point.lane)
    y = top + SYM_DY
    diverged = point.label == "diverged"
    hover = f"{point.seq} {point.kind.value}: " + describe(
        Event(seq=point.seq, kind=point.kind, payload=point.payload))
    group = attrs_of(class_=f"ev ev-{point.kind.value}", data_seq=point.seq,
                     data_kind=point.kind.value, data_status=point.status.value,
                     data_before=before, data_lane=point.lane, tabindex="0",
                     role="button", aria_label=f"event {point.seq}: {point.kind.value}")
    parts = [f"<g {group}><title>{esc(hover)}</title>",
             rect(x - COL / 2 + 3, top + 3, COL - 6, LANE_H - 6, rx=6, class_="hit"),
             symbol("DIVERGED" if diverged else point.kind, x, y),
             text(x, top + WORD_DY, point.label, class_=f"word word-{point.kind.value}",
                  text_anchor="middle")]
    for i, marker in enumerate(badges):
        width = max(52.0, len(marker.label) * 6.6 + 12)
        by = top + 1 - 16 * i
        parts.append(rect(x - width / 2, by, width, 15, rx=7,
                          class_=f"badge badge-{marker.kind.value}")
                     + text(x, by + 11, marker.label, class_="badge-text", text_anchor="middle"))
    parts.append("</g>")
    return "".join(parts)


def _served(lay: Layout, marker: Marker) -> str:
    """A tag at the top of the lane, just past the boundary: read back from the journal."""
    assert marker.lane is not None and marker.after_seq is not None
    x = lay.boundary(marker.after_seq)
    y = lay.lane_offset(marker.lane) + 9
    return (f'<g class="marker marker-served" {attrs_of(data_lane=marker.lane)}>'
            f"<title>{esc(marker.detail)}</title>"
            + rect(x + 2, y - 7.5, COL - 4, 15, rx=7.5, class_="served-chip")
            + f'<path d="M{x + 14:g},{y - 3:g} A4.5,4.5 0 1 0 {x + 14.5:g},{y + 2:g}" '
            f'class="served-arrow"/><path d="M{x + 11.5:g},{y - 5:g} L{x + 15.5:g},{y - 3.5:g} '
            f'L{x + 13:g},{y:g}" class="served-arrow"/>'
            + text(x + 18, y + 3.8, "served", class_="served-text") + "</g>")


def _ticks(lay: Layout, call: StreamCall, lane: str) -> str:
    """A streamed call's deltas inside its step, on the journal's time axis."""
    assert call.after is not None
    x0 = lay.x(call.after) + 12
    x1 = lay.x(call.after + 1) - 12 if call.after < len(lay.t.points) else x0 + COL - 24
    moments = [m for m in call.moments if m.kind in ("write", "reset", "terminal")]
    if not moments:
        return ""
    y = lay.lane_offset(lane) + SYM_DY + 10
    step = (x1 - x0) / max(len(moments), 1)
    marks = []
    for i, m in enumerate(moments):
        x = x0 + step * (i + 0.5)
        cls = ("tick-reset" if m.kind == "reset" else "tick-done" if m.kind == "terminal" else
               f"tick-{m.verdict}")
        marks.append(rect(x - 1.2, y - 4, 2.4, 8, class_=f"tick {cls}"))
    words = (f"stream {call.number}: {len(call.writes)} delta(s) written"
             + (", severed" if call.sever else "") + (", refused" if call.refused else "")
             + (f", {call.attempts} attempts" if call.attempts > 1 else "")
             + "; click to see it delta by delta")
    return (f'<a href="#stream-{call.number}" class="stream-ticks" '
            f'{attrs_of(data_stream=call.number)}><title>{esc(words)}</title>'
            + rect(x0 - 3, y - 7, x1 - x0 + 6, 14, rx=3, class_="tick-box")
            + "".join(marks) + "</a>")


def _full(lay: Layout, height: int, suffix: str) -> list[str]:
    """What spans the body's height: the column grid, crash lines, torn and corrupt columns."""
    out = [f'<rect x="0" y="0" width="{COL * lay.columns:g}" height="{height}" '
           f'fill="url(#tl-cols{suffix})" data-full="1"/>']
    end = len(lay.t.points)
    for marker in lay.t.markers:
        if marker.after_seq is None:
            continue
        x = lay.boundary(marker.after_seq)
        if marker.kind is MarkerKind.CRASH:
            out.append(f'<line class="crash-line" x1="{x:g}" y1="0" x2="{x:g}" '
                       f'y2="{height}" data-full="1"><title>{esc(marker.detail)}</title></line>')
        elif marker.kind in (MarkerKind.TORN_TAIL, MarkerKind.CORRUPT) and (
                marker.after_seq >= end):
            cls = "torn" if marker.kind is MarkerKind.TORN_TAIL else "corrupt"
            out.append(f'<rect class="{cls}-col" x="{x + 2:g}" y="0" width="{COL - 4}" '
                       f'height="{height}" data-full="1"><title>{esc(marker.detail)}</title>'
                       "</rect>")
    return out


def _body(lay: Layout, streams: Sequence[StreamCall], stream_lanes: Mapping[int, str | None],
          lazy: Lazy | None, suffix: str) -> str:
    own = {p.seq: p.label for p in lay.t.points}
    badges: dict[int, list[Marker]] = {}
    served: dict[str, list[Marker]] = {}
    for marker in lay.t.markers:
        if marker.at_seq is not None and marker.label != own.get(marker.at_seq):
            badges.setdefault(marker.at_seq, []).append(marker)
        if marker.kind is MarkerKind.SERVED and marker.lane is not None:
            served.setdefault(marker.lane, []).append(marker)
    lane_points: dict[str, list[Point]] = {}
    group_points: dict[str, list[Point]] = {}
    before: dict[int, str] = {}
    previous = "not-started"
    for point in lay.t.points:
        lane_points.setdefault(point.lane, []).append(point)
        group_points.setdefault(lay.group_of[point.lane].id, []).append(point)
        before[point.seq] = previous
        previous = point.status.value
    spans = _spans(lay, lane_points)
    ticks: dict[str, list[str]] = {}
    for call in streams:
        lane = stream_lanes.get(call.number)
        if lane is not None and call.after is not None and lane in lay.group_of:
            ticks.setdefault(lane, []).append(_ticks(lay, call, lane))

    def lanes_of(group: Group) -> str:
        out = []
        for member in group.lanes:
            index = lay.lane_index[member.id]
            top = lay.lane_offset(member.id)
            out.append(rect(0, top, lay.width, LANE_H, class_=f"lane-bg lane-{index % 2}")
                       + "".join(spans.get(member.id, [])) + "".join(ticks.get(member.id, []))
                       + "".join(_served(lay, m) for m in served.get(member.id, []))
                       + "".join(_event(lay, p, before[p.seq], badges.get(p.seq, []))
                                 for p in lane_points.get(member.id, [])))
        return "".join(out)

    parts = [f'<g transform="translate(0,{lay.group_top(g)})">{lanes_of(g)}</g>'
             for g in lay.fixed]
    if lay.rows:
        parts.append(rect(0, lay.rows_top, lay.width, GROUP_H * len(lay.rows), class_="rows-bg"))
        parts += [_segment(lay, g, group_points.get(g.id, [])) for g in lay.segments]
    parts += [_block_g(g, lay.group_top(g), _group_title(lay, g) + lanes_of(g), lazy, "body")
              for g in lay.segments]
    height = max(lay.height, 1)
    defs = (f'<defs><pattern id="tl-cols{suffix}" width="{COL}" height="8" '
            f'patternUnits="userSpaceOnUse"><line x1="0" y1="0" x2="0" y2="8" class="grid"/>'
            "</pattern></defs>")
    grid, *spanning = _full(lay, height, suffix)
    body = defs + grid + "".join(parts) + "".join(spanning)
    if not lay.t.lanes:
        body += text(12, 20, "(no events)", class_="caption")
    return svg_element("tl-body-svg", lay.width, height, body,
                       f"timeline of {lay.t.title}")


def picture(timeline: Timeline, streams: Sequence[StreamCall] = (),
            stream_lanes: Mapping[int, str | None] | None = None, *, suffix: str = ""
            ) -> tuple[str, dict[str, Any]]:
    """The whole picture: the grid of the corner, the head, the gutter and the body, in a
    scrolling box whose head and lane names stay in sight; and the data the page's script
    needs beside it: every event's seq, kind, status, lane and group (for search), and, for
    a grouped timeline, the markup of the closed groups (drawn when opened). ``suffix`` keeps
    the ids of several pictures on one page apart (the crash explorer)."""
    lay = Layout(timeline)
    head = Head(lay)
    lazy: Lazy | None = {} if lay.grouped else None
    gutter = _gutter(lay, lazy)
    body = _body(lay, streams, stream_lanes or {}, lazy, suffix)
    data: dict[str, Any] = {
        "events": [[p.seq, p.kind.value, p.status.value, p.lane, lay.group_of[p.lane].id]
                   for p in timeline.points],
        "lazy": lazy or {}}
    return (f'<div class="tl-scroll" id="tl-scroll{suffix}" data-grouped="{int(lay.grouped)}" '
            f'data-col="{COL}" data-gutter="{GUTTER}" data-events="{len(timeline.points)}" '
            f'data-blocks-top="{lay.blocks_top}">'
            '<div class="tl-grid">'
            f'<div class="tl-corner">{corner_svg(lay, head)}</div>'
            f'<div class="tl-head">{head_svg(lay, head)}</div>'
            f'<div class="tl-gutter">{gutter}</div>'
            f'<div class="tl-body">{body}</div>'
            "</div></div>"
            f'<p class="caption-line">Time runs left to right: one column per journal event '
            "(events carry no clock; their order is the sequence number).</p>"), data
