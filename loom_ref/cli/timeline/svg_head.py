"""The head of the timeline picture, and its corner: the rows over the lanes.

From the top: the words of the boundary markers (a crash, a torn tail, a corrupt line), the
processes and their calls (when known), the sequence numbers, and the folded status after
each event. The corner names those rows. Both stay in sight while the lanes scroll
(``svg.py``'s grid).
"""

from __future__ import annotations

from loom_ref.cli.timeline.layout import COL, Layout
from loom_ref.cli.timeline.model import Call, MarkerKind, line_words
from loom_ref.cli.timeline.svgkit import esc, line, rect, text, text_width

__all__ = ["GUTTER", "Head", "corner_svg", "fit", "head_svg", "svg_element"]

GUTTER = 236  # the lane names
BANNER_H = 30  # boundary markers' words
PROC_H = 50  # processes and their calls
AXIS_H = 22
STATUS_H = 28


def svg_element(cls: str, width: float, height: float, body: str, label: str = "") -> str:
    aria = f' role="img" aria-label="{esc(label)}"' if label else ""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="{cls}"{aria} '
            f'width="{width:g}" height="{height:g}" viewBox="0 0 {width:g} {height:g}" '
            f'data-w="{width:g}" data-h="{height:g}">{body}</svg>')


def fit(word: str) -> dict[str, object]:
    """The attributes that squeeze a status word longer than 8 letters into its column."""
    return {"textLength": COL - 12, "lengthAdjust": "spacingAndGlyphs"} if len(word) > 8 else {}


# -- the head ---------------------------------------------------------------------------------
class Head:
    def __init__(self, lay: Layout) -> None:
        self.proc_y = BANNER_H
        self.axis_y = BANNER_H + (PROC_H if lay.t.processes else 0)
        self.status_y = self.axis_y + AXIS_H
        self.height = self.status_y + STATUS_H + 6


#: On a grouped (long) picture, a run of one status is one box, its word every this many
#: columns: the page stays light, and the word is in sight wherever it is scrolled.
WORD_EVERY = 6


def _status_runs(lay: Layout, head: Head) -> list[str]:
    out = []
    points = lay.t.points
    start = 0
    for i in range(1, len(points) + 1):
        if i < len(points) and points[i].status is points[start].status:
            continue
        status = points[start].status.value
        x0, x1 = lay.boundary(points[start].seq - 1), lay.boundary(points[i - 1].seq)
        out.append(rect(x0 + 2, head.status_y + 2, x1 - x0 - 4, STATUS_H - 4, rx=4,
                        class_=f"status st-{status}"))
        for seq in range(points[start].seq, points[i - 1].seq + 1, WORD_EVERY):
            out.append(text(lay.x(seq), head.status_y + 18, status, class_="status-text",
                            text_anchor="middle", **fit(status)))
        start = i
    return out


def head_svg(lay: Layout, head: Head) -> str:
    out = []
    for point in lay.t.points:
        out.append(text(lay.x(point.seq), head.axis_y + 15, str(point.seq), class_="seq",
                        text_anchor="middle"))
        if lay.grouped:
            continue
        x0 = lay.boundary(point.seq - 1)
        out.append(rect(x0 + 2, head.status_y + 2, COL - 4, STATUS_H - 4, rx=4,
                        class_=f"status st-{point.status.value}"))
        out.append(text(lay.x(point.seq), head.status_y + 18, point.status.value,
                        class_="status-text", text_anchor="middle", **fit(point.status.value)))
    if lay.grouped:
        out += _status_runs(lay, head)
    if lay.t.processes:
        out += _processes(lay, head.proc_y)
    out += _banners(lay, head)
    return svg_element("tl-head-svg", lay.width, head.height, "".join(out))


def corner_svg(lay: Layout, head: Head) -> str:
    rows = [(head.axis_y + 15, "journal event (seq)"),
            (head.status_y + 18, "status after the event")]
    if lay.t.processes:
        rows += [(head.proc_y + 16, "process"), (head.proc_y + 39, "call to the runtime")]
    body = "".join(text(12, y, words, class_="row-label") for y, words in rows)
    return svg_element("tl-corner-svg", GUTTER, head.height, body)


def _banners(lay: Layout, head: Head) -> list[str]:
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
                              text_anchor="middle", **fit("not written"))
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
