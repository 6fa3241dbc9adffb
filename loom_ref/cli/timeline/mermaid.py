"""The timeline as a Mermaid sequence diagram: ``loom-ref journal show FILE --format mermaid``.

Paste it into a Markdown page (GitHub and most documentation tools draw ```` ```mermaid ````
blocks). One participant per lane; the execution's own events are notes over it, a step's
start is an arrow from the execution to the step and its outcome an arrow back, a gate's
suspend and resume likewise; the markers become notes. Every message begins with the event's
``seq``, so the diagram reads in journal order.

Mermaid reads ``;`` and ``#`` specially and HTML in labels, so :func:`label` writes them as
its entity codes (``#59;``, ``#35;``, ``#lt;``, ...).
"""

from __future__ import annotations

from loom_ref.cli.timeline.model import (
    DEFAULT_LABELS,
    EXECUTION_LANE,
    LaneKind,
    MarkerKind,
    Timeline,
)
from loom_ref.journal.events import EventKind

__all__ = ["label", "render_mermaid"]

K = EventKind
_ENTITIES = {"#": "#35;", ";": "#59;", "<": "#lt;", ">": "#gt;", '"': "#quot;",
             "&": "#amp;", "{": "#123;", "}": "#125;", "\n": " ", "\r": " "}
_TOWARD_LANE = {K.STEP_STARTED, K.EXECUTION_SUSPENDED, K.RESUME_RECEIVED}
_TOWARD_EXECUTION = {K.STEP_COMPLETED, K.STEP_FAILED, K.EXECUTION_RESUMED}
_WIDTH = 60
_SPANNING = {MarkerKind.TORN_TAIL, MarkerKind.CORRUPT, MarkerKind.CRASH, MarkerKind.RECOVERY}


def label(text: str) -> str:
    """``text`` safe in a Mermaid label, on one line, cut to about 60 characters."""
    if len(text) > _WIDTH:
        text = text[: _WIDTH - 1] + "…"
    return "".join(_ENTITIES.get(c, c) for c in text)


def render_mermaid(timeline: Timeline) -> str:
    """The diagram, without the surrounding code fence."""
    ids = {lane.id: f"L{i}" for i, lane in enumerate(timeline.lanes)}
    lines = ["sequenceDiagram",
             f"    title {label(timeline.title)}"]
    for lane in timeline.lanes:
        name = "execution" if lane.kind is LaneKind.EXECUTION else f"{lane.kind.value} {lane.name}"
        if lane.detail and lane.kind is not LaneKind.EXECUTION:
            name += f" ({lane.detail})"
        lines.append(f"    participant {ids[lane.id]} as {label(name)}")
    if not timeline.lanes:
        lines.append("    participant L0 as execution")
    execution = ids.get(EXECUTION_LANE, "L0")
    span = (f"{ids[timeline.lanes[0].id]},{ids[timeline.lanes[-1].id]}"
            if len(timeline.lanes) > 1 else execution)
    own = {p.seq: p.label for p in timeline.points}
    on: dict[int, list[str]] = {}  # seq -> notes to write after the event
    for marker in timeline.markers:
        words = label(f"{marker.label}: {marker.detail}")
        if marker.at_seq is not None and marker.label != own.get(marker.at_seq):
            on.setdefault(marker.at_seq, []).append(
                f"    Note over {ids.get(marker.lane or '', execution)}: {words}")
        elif marker.after_seq is not None and marker.kind in _SPANNING:
            on.setdefault(marker.after_seq, []).append(f"    Note over {span}: {words}")
    lines.extend(on.get(0, []))
    for point in timeline.points:
        where = ids[point.lane]
        extra = "" if point.label == DEFAULT_LABELS[point.kind] else f" ({point.label})"
        words = label(f"{point.seq} {point.kind.value}{extra}")
        if point.kind in _TOWARD_LANE and where != execution:
            lines.append(f"    {execution}->>{where}: {words}")
        elif point.kind in _TOWARD_EXECUTION and where != execution:
            arrow = "--x" if point.kind is K.STEP_FAILED else "-->>"
            lines.append(f"    {where}{arrow}{execution}: {words}")
        else:
            lines.append(f"    Note over {where}: {words}")
        lines.extend(on.get(point.seq, []))
    return "\n".join(lines)
