"""The tools over a long picture: the overview strip, zoom and search.

- The **overview strip** draws the whole execution in the page's width: the folded status
  after each event as a band of colour (runs of one status as one rectangle), a tick for each
  thing to look at (a crash, a torn or corrupt line, an in-doubt step, a failure, a
  divergence), the search's hits, and a frame showing the part of the picture in view. A
  click on it scrolls the picture there (``script.py``).
- **Zoom** scales the whole picture, from 20% to 300% (``−``, ``+``, ``fit``: every column
  in the width, or as many as fit at 20%; ``100%``).
- **Search** finds events by seq (``17``), kind (``STEP_FAILED``, ``suspended``) or id
  (``#turn:12``, ``refund``): it marks the hits in the picture and on the strip, opens
  their groups, and steps from hit to hit.

Without JavaScript the strip is still drawn; the buttons do nothing.
"""

from __future__ import annotations

from loom_ref.cli.timeline.model import MarkerKind, Timeline
from loom_ref.cli.timeline.svgkit import esc
from loom_ref.journal.events import EventKind

__all__ = ["overview", "toolbar"]

_TICKS = {MarkerKind.CRASH: "ov-crash", MarkerKind.TORN_TAIL: "ov-torn",
          MarkerKind.CORRUPT: "ov-corrupt", MarkerKind.IN_DOUBT: "ov-doubt",
          MarkerKind.NONDETERMINISM: "ov-fail", MarkerKind.RAN_AGAIN: "ov-again"}


def overview(timeline: Timeline) -> str:
    """The strip: one unit of width per event column."""
    n = max(len(timeline.points) + (1 if timeline.torn or timeline.corrupt else 0), 1)
    runs = []
    start = 0
    points = timeline.points
    for i in range(1, len(points) + 1):
        if i == len(points) or points[i].status is not points[start].status:
            runs.append(f'<rect x="{start}" y="4" width="{i - start}" height="14" '
                        f'class="st-{points[start].status.value} ov-band"/>')
            start = i
    ticks: dict[str, list[str]] = {}
    for marker in timeline.markers:
        cls = _TICKS.get(marker.kind)
        at = marker.at_seq - 1 if marker.at_seq is not None else marker.after_seq
        if cls is not None and at is not None:
            ticks.setdefault(cls, []).append(f"M{at + 0.5:g},0V22")
    for p in points:
        if p.kind in (EventKind.STEP_FAILED, EventKind.EXECUTION_FAILED):
            ticks.setdefault("ov-fail", []).append(f"M{p.seq - 0.5:g},0V22")
    marks = "".join(f'<path class="ov-tick {cls}" d="{"".join(d)}"/>'
                    for cls, d in ticks.items())
    return (f'<svg id="overview" class="overview" viewBox="0 0 {n} 22" '
            f'preserveAspectRatio="none" data-columns="{n}" role="img" '
            f'aria-label="{esc("the whole execution: status after each event")}">'
            f"<title>the whole execution, {len(points)} events: click to go there</title>"
            f'{"".join(runs)}{marks}<path id="ov-hits" class="ov-tick ov-hit" d=""/>'
            '<rect id="ov-view" x="0" y="0" width="0" height="22" class="ov-view"/></svg>')


def toolbar(timeline: Timeline) -> str:
    """Zoom and search, and the strip under them."""
    return ('<div class="toolbar" id="toolbar">'
            '<span class="tool-group" role="group" aria-label="zoom">zoom '
            '<button type="button" data-zoom="out" title="zoom out">−</button>'
            '<button type="button" data-zoom="in" title="zoom in">+</button>'
            '<button type="button" data-zoom="fit" title="every column in the width (a long '
            'run: as many as fit at 20%)">fit</button>'
            '<button type="button" data-zoom="1" title="actual size">100%</button>'
            '<output id="zoom-level">100%</output></span>'
            '<span class="tool-group"><label for="search">find</label> '
            '<input id="search" type="search" size="26" placeholder="seq, kind or id: 17, '
            'STEP_FAILED, #turn:3" autocomplete="off">'
            '<button type="button" id="search-prev" title="previous hit">◀</button>'
            '<button type="button" id="search-next" title="next hit">▶</button>'
            '<output id="search-count"></output></span>'
            '<span class="tool-group" id="groups-tools">'
            '<button type="button" data-groups="open">open all groups</button>'
            '<button type="button" data-groups="close">close all</button></span>'
            f"</div>{overview(timeline)}")
