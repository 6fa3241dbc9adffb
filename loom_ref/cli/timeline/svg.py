"""The timeline as an SVG picture: time runs left to right, one column per journal event.

Rows, from the top: the boundary markers (a crash, a torn tail), the processes and their
calls (when known), the sequence numbers, the folded status after each event, then one lane
per execution / step / decision / gate / stream. Every event is a symbol with a word under
it; every marker has words, not only a colour. Symbols are drawn as shapes, never as font
glyphs, so the picture looks the same wherever it is opened.

Each event symbol is a ``<g class="ev" data-seq=N>`` with a ``<title>`` (the hover text);
the page's script (``html.py``) shows its payload on click.
"""

from __future__ import annotations

from collections.abc import Mapping

from loom_ref.cli.timeline.model import (
    Call,
    LaneKind,
    Marker,
    MarkerKind,
    Point,
    Timeline,
)
from loom_ref.cli.timeline.svgkit import attrs_of, esc, line, rect, text, text_width
from loom_ref.cli.timeline.text import describe
from loom_ref.journal.events import Event, EventKind

__all__ = ["COL", "symbol", "timeline_svg"]

K = EventKind
GUTTER = 232  # the lane names
COL = 64  # one journal event
LANE_H = 60
BANNER_H = 30  # boundary markers
PROC_H = 50  # processes and their calls
AXIS_H = 22
STATUS_H = 28
SYM_DY = 26  # a symbol's centre below its lane's top
WORD_DY = 50  # the baseline of its word

_KIND_LABEL = {LaneKind.EXECUTION: "execution", LaneKind.STEP: "step",
               LaneKind.DECISION: "decision", LaneKind.GATE: "gate", LaneKind.STREAM: "stream"}


def _check(x: float, y: float) -> str:
    return (f'<path d="M{x - 4.5:g},{y:g} L{x - 1:g},{y + 3.5:g} L{x + 5:g},{y - 4:g}" '
            'class="glyph"/>')


def _cross(x: float, y: float) -> str:
    return (f'<path d="M{x - 4:g},{y - 4:g} L{x + 4:g},{y + 4:g} M{x + 4:g},{y - 4:g} '
            f'L{x - 4:g},{y + 4:g}" class="glyph"/>')


def _diamond(x: float, y: float, r: float, cls: str) -> str:
    return (f'<path d="M{x:g},{y - r:g} L{x + r:g},{y:g} L{x:g},{y + r:g} L{x - r:g},{y:g} z" '
            f'class="{cls}"/>')


def symbol(kind: EventKind | str, x: float, y: float) -> str:
    """The shape of an event kind (or of the pseudo-kind ``DIVERGED``), centred on x, y."""
    name = kind.value if isinstance(kind, EventKind) else kind
    circle = f'<circle cx="{x:g}" cy="{y:g}" r="9" class="sym sym-{name}"/>'
    if name == "STEP_STARTED":
        return circle
    if name in ("STEP_COMPLETED", "EXECUTION_COMPLETED"):
        ring = (f'<circle cx="{x:g}" cy="{y:g}" r="12" class="sym-ring"/>'
                if name == "EXECUTION_COMPLETED" else "")
        return ring + circle + _check(x, y)
    if name in ("STEP_FAILED", "EXECUTION_FAILED", "DIVERGED"):
        box = rect(x - 9, y - 9, 18, 18, class_=f"sym sym-{name}", rx=2)
        if name == "DIVERGED":
            bars = (f'<path d="M{x - 5:g},{y - 2.5:g} L{x + 5:g},{y - 2.5:g} M{x - 5:g},'
                    f'{y + 2.5:g} L{x + 5:g},{y + 2.5:g} M{x + 3:g},{y - 7:g} L{x - 3:g},'
                    f'{y + 7:g}" class="glyph"/>')
            return box + bars
        return box + _cross(x, y)
    if name == "STEP_IN_DOUBT":
        return (_diamond(x, y, 11, f"sym sym-{name}")
                + text(x, y + 4.5, "?", class_="glyph-text", text_anchor="middle"))
    if name == "DECISION_RECORDED":
        return _diamond(x, y, 10, f"sym sym-{name}")
    if name == "STREAM_APPENDED":
        return rect(x - 8, y - 6, 16, 12, class_=f"sym sym-{name}", rx=2)
    if name in ("EXECUTION_STARTED", "EXECUTION_RESUMED"):
        return (circle + f'<path d="M{x - 3:g},{y - 5:g} L{x + 5:g},{y:g} L{x - 3:g},'
                f'{y + 5:g} z" class="glyph-fill"/>')
    if name == "EXECUTION_SUSPENDED":
        return circle + rect(x - 4, y - 5, 2.6, 10, class_="glyph-fill") + rect(
            x + 1.4, y - 5, 2.6, 10, class_="glyph-fill")
    if name == "RESUME_RECEIVED":  # a payload arrives: an envelope
        return (circle + rect(x - 5, y - 3.5, 10, 7, class_="glyph-env")
                + f'<path d="M{x - 5:g},{y - 3.5:g} L{x:g},{y + 0.5:g} L{x + 5:g},'
                f'{y - 3.5:g}" class="glyph-env"/>')
    return circle


class _Layout:
    def __init__(self, timeline: Timeline) -> None:
        self.t = timeline
        self.columns = len(timeline.points) + (1 if timeline.torn is not None else 0)
        self.has_processes = bool(timeline.processes)
        y = BANNER_H
        self.proc_y = y
        if self.has_processes:
            y += PROC_H
        self.axis_y = y
        self.status_y = y + AXIS_H
        self.lanes_y = self.status_y + STATUS_H + 6
        self.lane_index = {lane.id: i for i, lane in enumerate(timeline.lanes)}
        self.height = self.lanes_y + LANE_H * len(timeline.lanes) + 34
        self.width = GUTTER + max(COL * self.columns + 24, 660)  # room for the caption

    def x(self, seq: int) -> float:
        """The centre of event ``seq``'s column."""
        return GUTTER + COL * (seq - 0.5)

    def boundary(self, after: int) -> float:
        """The line between event ``after`` and the next."""
        return GUTTER + COL * after

    def lane_top(self, lane: str) -> float:
        return self.lanes_y + LANE_H * self.lane_index[lane]


def _grid(lay: _Layout) -> list[str]:
    out = []
    for i, lane in enumerate(lay.t.lanes):
        top = lay.lanes_y + LANE_H * i
        out.append(rect(0, top, lay.width, LANE_H, class_=f"lane-bg lane-{i % 2}"))
        name = (f"execution {lay.t.execution_id}" if lane.kind is LaneKind.EXECUTION
                else lane.name)
        name = name if len(name) <= 26 else name[:25] + "…"
        detail = {LaneKind.STEP: "step, tool ", LaneKind.GATE: "gate, waits on ",
                  LaneKind.EXECUTION: "workflow "}.get(lane.kind, _KIND_LABEL[lane.kind])
        detail += lane.detail or ""
        out.append(f"<g {attrs_of(class_='lane-label', data_lane=lane.id)}>"
                   f"<title>{esc(_KIND_LABEL[lane.kind] + ' ' + lane.name)}</title>"
                   + text(12, top + 24, name, class_="lane-name")
                   + text(12, top + 44, detail, class_="lane-detail")
                   + "</g>")
    bottom = lay.lanes_y + LANE_H * len(lay.t.lanes)
    for seq in range(lay.columns + 1):
        out.append(line(lay.boundary(seq), lay.axis_y, lay.boundary(seq), bottom,
                        class_="grid"))
    out.append(text(12, lay.axis_y + 15, "journal event (seq)", class_="row-label"))
    for point in lay.t.points:
        out.append(text(lay.x(point.seq), lay.axis_y + 15, str(point.seq),
                        class_="seq", text_anchor="middle"))
    out.append(text(12, lay.status_y + 18, "status after the event", class_="row-label"))
    for point in lay.t.points:
        x0 = lay.boundary(point.seq - 1)
        out.append(rect(x0 + 2, lay.status_y + 2, COL - 4, STATUS_H - 4, rx=4,
                        class_=f"status st-{point.status.value}"))
        out.append(text(lay.x(point.seq), lay.status_y + 18, point.status.value,
                        class_="status-text", text_anchor="middle",
                        **_fit(point.status.value)))
    out.append(text(GUTTER, bottom + 24, "time runs left to right: one column per journal "
                    "event (events carry no clock; their order is the sequence number)",
                    class_="caption"))
    return out


def _fit(word: str) -> dict[str, object]:
    """The attributes that squeeze a status word longer than 8 letters into its column."""
    return {"textLength": COL - 12, "lengthAdjust": "spacingAndGlyphs"} if len(word) > 8 else {}


def _spans(lay: _Layout) -> list[str]:
    """The bars: a step from its start to its outcome, a gate from suspend to resume."""
    out = []
    opened: dict[str, Point] = {}
    doubt: dict[str, Point] = {}
    last = len(lay.t.points)
    for point in lay.t.points:
        top = lay.lane_top(point.lane) + SYM_DY
        if point.kind in (K.STEP_STARTED, K.EXECUTION_SUSPENDED):
            opened[point.lane] = point
        elif point.kind is K.STEP_IN_DOUBT and point.lane in opened:
            start = opened[point.lane]
            out.append(line(lay.x(start.seq), top, lay.x(point.seq), top, class_="bar-doubt"))
            doubt[point.lane] = point
        elif point.kind in (K.STEP_COMPLETED, K.STEP_FAILED, K.EXECUTION_RESUMED) and (
                point.lane in opened):
            start = doubt.pop(point.lane) if point.lane in doubt else opened[point.lane]
            cls = "bar-gate" if point.kind is K.EXECUTION_RESUMED else (
                "bar-step" if point.kind is K.STEP_COMPLETED else "bar-failed")
            out.append(line(lay.x(start.seq), top, lay.x(point.seq), top, class_=cls))
            del opened[point.lane]
    for lane, start in opened.items():  # no outcome (yet): a dashed bar to the end
        top = lay.lane_top(lane) + SYM_DY
        since = doubt.get(lane, start)
        if since.seq < last:
            out.append(line(lay.x(since.seq), top, lay.x(last) + COL / 2 - 6, top,
                            class_="bar-open"))
    return out


def _events(lay: _Layout, badges: Mapping[int, list[Marker]]) -> list[str]:
    out = []
    previous = "not-started"
    for point in lay.t.points:
        x, top = lay.x(point.seq), lay.lane_top(point.lane)
        y = top + SYM_DY
        diverged = point.label == "diverged"
        hover = f"{point.seq} {point.kind.value}: " + describe(
            Event(seq=point.seq, kind=point.kind, payload=point.payload))
        group = attrs_of(class_=f"ev ev-{point.kind.value}", data_seq=point.seq,
                         data_kind=point.kind.value, data_status=point.status.value,
                         data_before=previous, data_lane=point.lane, tabindex="0",
                         role="button", aria_label=f"event {point.seq}: {point.kind.value}")
        parts = [f"<g {group}><title>{esc(hover)}</title>",
                 rect(x - COL / 2 + 3, top + 3, COL - 6, LANE_H - 6, rx=6, class_="hit"),
                 symbol("DIVERGED" if diverged else point.kind, x, y),
                 text(x, top + WORD_DY, point.label, class_=f"word word-{point.kind.value}",
                      text_anchor="middle")]
        for i, marker in enumerate(badges.get(point.seq, [])):
            parts.append(_badge(x, top + 1 - 16 * i, marker))
        parts.append("</g>")
        out.append("".join(parts))
        previous = point.status.value
    return out


def _badge(x: float, y: float, marker: Marker) -> str:
    width = max(52.0, len(marker.label) * 6.6 + 12)
    return (rect(x - width / 2, y, width, 15, rx=7, class_=f"badge badge-{marker.kind.value}")
            + text(x, y + 11, marker.label, class_="badge-text", text_anchor="middle"))


def _boundaries(lay: _Layout) -> list[str]:
    """Crash lines, recovery labels, served chips, torn tails."""
    out = []
    bottom = lay.lanes_y + LANE_H * len(lay.t.lanes)
    torn_at = {m.after_seq for m in lay.t.markers if m.kind is MarkerKind.TORN_TAIL}
    end = len(lay.t.points)
    crashes_first = sorted(lay.t.markers, key=lambda m: m.kind is not MarkerKind.CRASH)
    for marker in crashes_first:  # so that what sits on a crash line is drawn over it
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
                       + line(x, BANNER_H - 6, x, bottom, class_="crash-line")
                       + _zigzag(x, 4)
                       + text(x + 14 if room else x - 12, 19, words, class_="crash-text",
                              text_anchor="start" if room else "end") + "</g>")
        elif marker.kind is MarkerKind.TORN_TAIL and marker.after_seq < end:
            # a torn write that recovery truncated: a tag on the boundary, in the axis row
            out.append(f'<g class="marker marker-torn">{title}'
                       + rect(x - 17, lay.axis_y + 1, 34, AXIS_H - 3, rx=3, class_="torn-col")
                       + text(x, lay.axis_y + 15, "torn", class_="torn-tag",
                              text_anchor="middle") + "</g>")
        elif marker.kind is MarkerKind.TORN_TAIL and isinstance(marker.data, dict):
            out.append(f'<g class="marker marker-torn">{title}'
                       + rect(x + 2, lay.axis_y, COL - 4, bottom - lay.axis_y,
                              class_="torn-col")
                       + text(x + COL / 2, lay.axis_y + 15, "torn", class_="seq torn-text",
                              text_anchor="middle")
                       + text(x + COL / 2, lay.status_y + 18, "not written",
                              class_="status-text", text_anchor="middle",
                              **_fit("not written"))
                       + text(x + COL - 4, 19, f"TORN TAIL: line {marker.data.get('line')}, "
                              f"{marker.data.get('size')} bytes, not written",
                              class_="torn-text", text_anchor="end")
                       + "</g>")
        elif marker.kind is MarkerKind.SERVED and marker.lane is not None:
            # a tag at the top of the lane, just past the boundary: above any symbol there
            y = lay.lane_top(marker.lane) + 9
            out.append(f'<g class="marker marker-served" {attrs_of(data_lane=marker.lane)}>'
                       f"{title}" + rect(x + 2, y - 7.5, COL - 4, 15, rx=7.5,
                                         class_="served-chip")
                       + _loop_arrow(x + 10, y)
                       + text(x + 18, y + 3.8, "served", class_="served-text") + "</g>")
    return out


def _zigzag(x: float, y: float) -> str:
    """A lightning bolt over the crash line."""
    return (f'<path d="M{x + 3:g},{y:g} L{x - 4:g},{y + 11:g} L{x + 1:g},{y + 11:g} '
            f'L{x - 3:g},{y + 22:g} L{x + 6:g},{y + 8:g} L{x + 1:g},{y + 8:g} z" '
            'class="bolt"/>')


def _loop_arrow(x: float, y: float) -> str:
    """A small circular arrow: read back from the journal."""
    return (f'<path d="M{x + 4:g},{y - 3:g} A4.5,4.5 0 1 0 {x + 4.5:g},{y + 2:g}" '
            f'class="served-arrow"/><path d="M{x + 1.5:g},{y - 5:g} L{x + 5.5:g},{y - 3.5:g} '
            f'L{x + 3:g},{y:g}" class="served-arrow"/>')


def _processes(lay: _Layout) -> list[str]:
    out = []
    y = lay.proc_y
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
    out.append(text(12, y + 16, "process", class_="row-label"))
    out.append(text(12, y + 39, "call to the runtime", class_="row-label"))
    return out


def _call_title(call: Call) -> str:
    served = ", ".join(call.served) or "nothing"
    ran = ", ".join(call.ran) or "nothing"
    if call.outcome == "crashed":
        return f"{call.action}: events {call.first_seq}-{call.last_seq}, then the crash"
    return (f"{call.action}: events {call.first_seq}-{call.last_seq}; served from the "
            f"journal: {served}; ran: {ran}; ended {call.outcome}")


def timeline_svg(timeline: Timeline) -> str:
    """The whole picture, one ``<svg>`` element."""
    lay = _Layout(timeline)
    own = {p.seq: p.label for p in timeline.points}
    badges: dict[int, list[Marker]] = {}
    for marker in timeline.markers:
        if marker.at_seq is not None and marker.label != own.get(marker.at_seq):
            badges.setdefault(marker.at_seq, []).append(marker)
    body = [*_grid(lay), *(_processes(lay) if lay.has_processes else []), *_spans(lay),
            *_boundaries(lay), *_events(lay, badges)]
    if not timeline.lanes:
        body.append(text(GUTTER, lay.lanes_y + 20, "(no events)", class_="caption"))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="timeline" role="img" '
            f'aria-label="timeline of execution {esc(timeline.execution_id)}" '
            f'width="{lay.width:g}" height="{lay.height:g}" '
            f'viewBox="0 0 {lay.width:g} {lay.height:g}">' + "".join(body) + "</svg>")

