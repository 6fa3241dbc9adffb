"""The shapes of the timeline's events: one symbol per event kind, drawn as shapes, never as
font glyphs, so the picture looks the same wherever it is opened (``svg.py``, the legend)."""

from __future__ import annotations

from loom_ref.cli.timeline.svgkit import rect, text
from loom_ref.journal.events import EventKind

__all__ = ["symbol"]


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
