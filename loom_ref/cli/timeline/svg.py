"""The timeline as SVG: time runs left to right, one column per journal event.

The picture is four SVGs in a grid (``picture``), so that the page can keep the head and the
lane names in sight while the lanes scroll (``position: sticky``):

- the **head**: the boundary markers' words (a crash, a torn tail, a corrupt line), the
  processes and their calls (when known), the sequence numbers, and the folded status after
  each event;
- the **corner**: the names of the head's rows;
- the **gutter**: the name of each lane and each group (``layout.py``);
- the **body**: one lane per execution / step / decision / gate / stream, in groups. Every
  event is a symbol with a word under it; every marker has words, not only a colour; a
  streamed call's deltas are ticks inside its step, on the same time axis (a click leads to
  the stream's table, ``stream_html.py``).

Each event symbol is a ``<g class="ev" data-seq=N>`` with a ``<title>`` (the hover text);
the page's script shows its payload on click. Elements that span the body's height carry
``data-full``, so the script can follow the groups' height when one opens or closes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from loom_ref.cli.timeline.layout import COL, GROUP_H, LANE_H, Group, Layout
from loom_ref.cli.timeline.model import (
    Call,
    Lane,
    LaneKind,
    Marker,
    MarkerKind,
    Point,
    Timeline,
    line_words,
)
from loom_ref.cli.timeline.streams import StreamCall
from loom_ref.cli.timeline.svgkit import attrs_of, esc, line, rect, text, text_width
from loom_ref.cli.timeline.symbols import symbol
from loom_ref.cli.timeline.text import describe
from loom_ref.journal.events import Event, EventKind

__all__ = ["GUTTER", "picture", "symbol"]

K = EventKind
GUTTER = 236  # the lane names
BANNER_H = 30  # boundary markers' words
PROC_H = 50  # processes and their calls
AXIS_H = 22
STATUS_H = 28
SYM_DY = 26  # a symbol's centre below its lane's top
WORD_DY = 50  # the baseline of its word

_KIND_LABEL = {LaneKind.EXECUTION: "execution", LaneKind.STEP: "step",
               LaneKind.DECISION: "decision", LaneKind.GATE: "gate", LaneKind.STREAM: "stream"}


def _svg(cls: str, width: float, height: float, body: str, label: str = "") -> str:
    aria = f' role="img" aria-label="{esc(label)}"' if label else ""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="{cls}"{aria} '
            f'width="{width:g}" height="{height:g}" viewBox="0 0 {width:g} {height:g}" '
            f'data-w="{width:g}" data-h="{height:g}">{body}</svg>')


def _fit(word: str) -> dict[str, object]:
    """The attributes that squeeze a status word longer than 8 letters into its column."""
    return {"textLength": COL - 12, "lengthAdjust": "spacingAndGlyphs"} if len(word) > 8 else {}


# -- the head ---------------------------------------------------------------------------------
class _Head:
    def __init__(self, lay: Layout) -> None:
        self.proc_y = BANNER_H
        self.axis_y = BANNER_H + (PROC_H if lay.t.processes else 0)
        self.status_y = self.axis_y + AXIS_H
        self.height = self.status_y + STATUS_H + 6


def _head(lay: Layout, head: _Head) -> str:
    out = []
    for point in lay.t.points:
        x0 = lay.boundary(point.seq - 1)
        out.append(text(lay.x(point.seq), head.axis_y + 15, str(point.seq), class_="seq",
                        text_anchor="middle"))
        out.append(rect(x0 + 2, head.status_y + 2, COL - 4, STATUS_H - 4, rx=4,
                        class_=f"status st-{point.status.value}"))
        out.append(text(lay.x(point.seq), head.status_y + 18, point.status.value,
                        class_="status-text", text_anchor="middle", **_fit(point.status.value)))
    if lay.t.processes:
        out += _processes(lay, head.proc_y)
    out += _banners(lay, head)
    return _svg("tl-head-svg", lay.width, head.height, "".join(out))


def _corner(lay: Layout, head: _Head) -> str:
    rows = [(head.axis_y + 15, "journal event (seq)"),
            (head.status_y + 18, "status after the event")]
    if lay.t.processes:
        rows += [(head.proc_y + 16, "process"), (head.proc_y + 39, "call to the runtime")]
    body = "".join(text(12, y, words, class_="row-label") for y, words in rows)
    return _svg("tl-corner-svg", GUTTER, head.height, body)


def _banners(lay: Layout, head: _Head) -> list[str]:
    """The words of the crash, a torn tail, a corrupt line, over the lanes."""
    out = []
    torn_at = {m.after_seq for m in lay.t.markers if m.kind is MarkerKind.TORN_TAIL}
    end = len(lay.t.points)
    for marker in lay.t.markers:
        if marker.after_seq is None:
            continue
        x = lay.boundary(marker.after_seq)
        title = f"<title>{esc(marker.detail)}</title>"
        if marker.kind is MarkerKind.CRASH:
            words = (f"CRASH while writing event {marker.after_seq + 1}: its line is torn"
                     if marker.after_seq in torn_at and marker.after_seq < end
                     else f"CRASH after event {marker.after_seq}")
            room = lay.width - x - 14 >= text_width(words, 15.5)
            out.append(f'<g class="marker marker-crash">{title}'
                       + line(x, BANNER_H - 6, x, head.height, class_="crash-line")
                       + _bolt(x, 4)
                       + text(x + 14 if room else x - 12, 19, words, class_="crash-text",
                              text_anchor="start" if room else "end") + "</g>")
        elif marker.kind is MarkerKind.TORN_TAIL and marker.after_seq < end:
            # a torn write that recovery truncated: a tag on the boundary, in the axis row
            out.append(f'<g class="marker marker-torn">{title}'
                       + rect(x - 17, head.axis_y + 1, 34, AXIS_H - 3, rx=3, class_="torn-col")
                       + text(x, head.axis_y + 15, "torn", class_="torn-tag",
                              text_anchor="middle") + "</g>")
        elif marker.kind in (MarkerKind.TORN_TAIL, MarkerKind.CORRUPT) and isinstance(
                marker.data, dict):
            torn = marker.kind is MarkerKind.TORN_TAIL
            cls = "torn" if torn else "corrupt"
            where = line_words(int(marker.data["line"]), marker.after_seq)
            words = (f"TORN TAIL: {where}, {marker.data.get('size')} bytes, not written"
                     if torn else f"CORRUPT: {where}, {marker.data.get('reason')}; "
                     "nothing after it is read")
            room = lay.width - x - 8 >= text_width(words, 13)
            out.append(f'<g class="marker marker-{cls}">{title}'
                       + rect(x + 2, head.axis_y, COL - 4, head.height - head.axis_y,
                              class_=f"{cls}-col")
                       + text(x + COL / 2, head.axis_y + 15, "torn" if torn else "bad",
                              class_=f"seq {cls}-text", text_anchor="middle")
                       + text(x + COL / 2, head.status_y + 18,
                              "not written" if torn else "corrupt", class_="status-text",
                              text_anchor="middle", **_fit("not written"))
                       + text(x + 6 if room else x + COL - 4, 19, words,
                              class_=f"{cls}-text", text_anchor="start" if room else "end")
                       + "</g>")
    return out


def _bolt(x: float, y: float) -> str:
    """A lightning bolt over the crash line."""
    return (f'<path d="M{x + 3:g},{y:g} L{x - 4:g},{y + 11:g} L{x + 1:g},{y + 11:g} '
            f'L{x - 3:g},{y + 22:g} L{x + 6:g},{y + 8:g} L{x + 1:g},{y + 8:g} z" '
            'class="bolt"/>')


def _processes(lay: Layout, y: float) -> list[str]:
    out = []
    crash_recovered = {m.after_seq for m in lay.t.markers if m.kind is MarkerKind.RECOVERY}
    for process in lay.t.processes:
        first = min((c.first_seq for c in process.calls), default=1)
        last = max((c.last_seq for c in process.calls), default=0)
        if last < first:
            continue
        x0, x1 = lay.boundary(first - 1), lay.boundary(last)
        label = f"process {process.number}"
        if process.number > 1 and (first - 1) in crash_recovered:
            for more in (": a fresh runtime, fresh effects, the same journal", " (fresh)"):
                if text_width(label + more, 13.5) <= x1 - x0 - 16:
                    label += more
                    break
        out.append(rect(x0 + 2, y + 2, x1 - x0 - 4, 20, rx=4,
                        class_=f"proc proc-{process.number % 2}"))
        out.append(text(x0 + 8, y + 16, label, class_="proc-text"))
        pending = ""
        for call in process.calls:
            if call.last_seq < call.first_seq:  # appended nothing: named with the next call
                pending += call.action + ", "
                continue
            c0, c1 = lay.boundary(call.first_seq - 1), lay.boundary(call.last_seq)
            full = pending + call.action + (" (crashed)" if call.outcome == "crashed" else "")
            pending = ""
            name = next((n for n in (full, call.action) if text_width(n, 12) <= c1 - c0 - 8),
                        call.action[: max(1, int((c1 - c0 - 8) / 7.2) - 1)] + "…")
            out.append(f"<g class=\"call\"><title>{esc(_call_title(call))}</title>"
                       + rect(c0 + 2, y + 25, c1 - c0 - 4, 20, rx=4, class_="call-box")
                       + text((c0 + c1) / 2, y + 39, name, class_="call-text",
                              text_anchor="middle") + "</g>")
    return out


def _call_title(call: Call) -> str:
    served = ", ".join(call.served) or "nothing"
    ran = ", ".join(call.ran) or "nothing"
    if call.outcome == "crashed":
        return f"{call.action}: events {call.first_seq}-{call.last_seq}, then the crash"
    return (f"{call.action}: events {call.first_seq}-{call.last_seq}; served from the "
            f"journal: {served}; ran: {ran}; ended {call.outcome}")


# -- the gutter -------------------------------------------------------------------------------
def _gutter(lay: Layout) -> str:
    out = []
    y = 0
    counts: dict[str, int] = {}
    for point in lay.t.points:
        group = lay.group_of[point.lane]
        counts[group.id] = counts.get(group.id, 0) + 1
    for group in lay.groups:
        parts = []
        if group.header:
            mark = "▸" if group.collapsed else "▾"
            words = (f"{group.label}" if len(group.label) <= 24 else group.label[:23] + "…")
            parts.append(
                f'<g class="grp-toggle" tabindex="0" role="button" '
                f'aria-expanded="{"false" if group.collapsed else "true"}" '
                f'aria-label="{esc("group " + group.label)}">'
                f"<title>{esc(group.label)}: {len(group.lanes)} lane(s), "
                f"{counts.get(group.id, 0)} event(s); click to open or close</title>"
                + rect(2, 2, GUTTER - 4, GROUP_H - 4, rx=5, class_="grp-box")
                + text(10, 20, mark, class_="grp-mark")
                + text(26, 20, words, class_="grp-name")
                + text(GUTTER - 8, 20, f"{len(group.lanes)}·{counts.get(group.id, 0)}",
                       class_="grp-count", text_anchor="end") + "</g>")
        lanes = [_lane_label(lay, lane, lay.lane_offset(lane.id)) for lane in group.lanes]
        parts.append(_lanes_g(group, "".join(lanes)))
        out.append(_group_g(group, y, "".join(parts)))
        y += group.height
    return _svg("tl-gutter-svg", GUTTER, max(lay.height, 1), "".join(out))


def _lanes_g(group: Group, inner: str) -> str:
    hidden = ' display="none"' if group.collapsed else ""
    return f'<g class="grp-lanes"{hidden}>{inner}</g>'


def _group_g(group: Group, y: int, inner: str) -> str:
    at = attrs_of(class_="grp" + (" grp-closed" if group.collapsed else ""),
                  data_group=group.id, data_open_h=group.open_height,
                  data_closed_h=group.closed_height, transform=f"translate(0,{y})")
    return f"<g {at}>{inner}</g>"


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


# -- the body ---------------------------------------------------------------------------------
def _summary_marks(lay: Layout, seqs: Sequence[Point]) -> str:
    """A group's own row: every event of its lanes as a small mark, one path per kind."""
    if not seqs:
        return ""
    seqs = sorted(seqs, key=lambda p: p.seq)
    paths: dict[str, list[str]] = {}
    y = GROUP_H / 2
    for p in seqs:
        x = lay.x(p.seq)
        cls = ("m-fail" if p.kind in (K.STEP_FAILED, K.EXECUTION_FAILED) else
               "m-doubt" if p.kind is K.STEP_IN_DOUBT else
               "m-done" if p.kind in (K.STEP_COMPLETED, K.EXECUTION_COMPLETED) else
               "m-gate" if p.kind in (K.EXECUTION_SUSPENDED, K.RESUME_RECEIVED,
                                      K.EXECUTION_RESUMED) else
               "m-decision" if p.kind is K.DECISION_RECORDED else "m-other")
        paths.setdefault(cls, []).append(f"M{x - 4:g},{y - 4:g}h8v8h-8z")
    first, last = lay.x(seqs[0].seq), lay.x(seqs[-1].seq)
    return (f'<g class="grp-sum"><title>{len(seqs)} event(s), {seqs[0].seq}-{seqs[-1].seq}'
            f"</title>" + rect(first - 6, 4, last - first + 12, GROUP_H - 8, rx=6,
                               class_="grp-span")
            + "".join(f'<path class="{cls}" d="{"".join(d)}"/>' for cls, d in paths.items())
            + "</g>")


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


def _full(lay: Layout, height: int) -> list[str]:
    """What spans the body's height: the column grid, crash lines, torn and corrupt columns."""
    out = [f'<rect x="0" y="0" width="{COL * lay.columns:g}" height="{height}" '
           'fill="url(#tl-cols)" data-full="1"/>']
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


def _body(lay: Layout, streams: Sequence[StreamCall], stream_lanes: Mapping[int, str | None]
          ) -> str:
    own = {p.seq: p.label for p in lay.t.points}
    badges: dict[int, list[Marker]] = {}
    served: dict[str, list[Marker]] = {}
    for marker in lay.t.markers:
        if marker.at_seq is not None and marker.label != own.get(marker.at_seq):
            badges.setdefault(marker.at_seq, []).append(marker)
        if marker.kind is MarkerKind.SERVED and marker.lane is not None:
            served.setdefault(marker.lane, []).append(marker)
    lane_points: dict[str, list[Point]] = {}
    before: dict[int, str] = {}
    previous = "not-started"
    for point in lay.t.points:
        lane_points.setdefault(point.lane, []).append(point)
        before[point.seq] = previous
        previous = point.status.value
    spans = _spans(lay, lane_points)
    ticks: dict[str, list[str]] = {}
    for call in streams:
        lane = stream_lanes.get(call.number)
        if lane is not None and call.after is not None and lane in lay.group_of:
            ticks.setdefault(lane, []).append(_ticks(lay, call, lane))
    groups = []
    y = 0
    for group in lay.groups:
        lanes = []
        for member in group.lanes:
            index = lay.lane_index[member.id]
            top = lay.lane_offset(member.id)
            lanes.append(rect(0, top, lay.width, LANE_H, class_=f"lane-bg lane-{index % 2}")
                         + "".join(spans.get(member.id, [])) + "".join(ticks.get(member.id, []))
                         + "".join(_served(lay, m) for m in served.get(member.id, []))
                         + "".join(_event(lay, p, before[p.seq], badges.get(p.seq, []))
                                   for p in lane_points.get(member.id, [])))
        head = ""
        if group.header:
            head = (rect(0, 0, lay.width, GROUP_H, class_="grp-row")
                    + _summary_marks(lay, [p for lane in group.lanes
                                           for p in lane_points.get(lane.id, [])]))
        inner = head + _lanes_g(group, "".join(lanes))
        groups.append(_group_g(group, y, inner))
        y += group.height
    height = max(lay.height, 1)
    defs = (f'<defs><pattern id="tl-cols" width="{COL}" height="8" '
            f'patternUnits="userSpaceOnUse"><line x1="0" y1="0" x2="0" y2="8" class="grid"/>'
            "</pattern></defs>")
    body = defs + "".join(groups) + "".join(_full(lay, height))
    if not lay.t.lanes:
        body += text(12, 20, "(no events)", class_="caption")
    return _svg("tl-body-svg", lay.width, height, body,
                f"timeline of execution {lay.t.execution_id}")


def picture(timeline: Timeline, streams: Sequence[StreamCall] = (),
            stream_lanes: Mapping[int, str | None] | None = None) -> str:
    """The whole picture: the grid of the corner, the head, the gutter and the body, in a
    scrolling box whose head and lane names stay in sight."""
    lay = Layout(timeline)
    head = _Head(lay)
    return (f'<div class="tl-scroll" id="tl-scroll" data-grouped="{int(lay.grouped)}" '
            f'data-col="{COL}" data-gutter="{GUTTER}" data-events="{len(timeline.points)}">'
            '<div class="tl-grid">'
            f'<div class="tl-corner">{_corner(lay, head)}</div>'
            f'<div class="tl-head">{_head(lay, head)}</div>'
            f'<div class="tl-gutter">{_gutter(lay)}</div>'
            f'<div class="tl-body">{_body(lay, streams, stream_lanes or {})}</div>'
            "</div></div>"
            f'<p class="caption-line">Time runs left to right: one column per journal event '
            "(events carry no clock; their order is the sequence number).</p>")
