"""The legend of a timeline page: an entry for every mark the page shows, and no other.

A page drawn from a journal alone can never show a crash, so its legend does not list one;
a page with no stream has no stream ticks to explain. :func:`legend` looks at the timeline
(its event kinds, markers, bars, statuses, groups and streams) and names only what is there.
"""

from __future__ import annotations

from collections.abc import Sequence

from loom_ref.cli.timeline.layout import Layout
from loom_ref.cli.timeline.model import MarkerKind, Timeline
from loom_ref.cli.timeline.streams import StreamCall
from loom_ref.cli.timeline.svgkit import esc
from loom_ref.cli.timeline.symbols import symbol
from loom_ref.journal.events import EventKind

__all__ = ["legend"]

K = EventKind
_KINDS: tuple[tuple[str, str, tuple[EventKind, ...]], ...] = (
    ("EXECUTION_STARTED", "execution started / resumed",
     (K.EXECUTION_STARTED, K.EXECUTION_RESUMED)),
    ("STEP_STARTED", "step started (effect called)", (K.STEP_STARTED,)),
    ("STEP_COMPLETED", "step done (outcome journaled)", (K.STEP_COMPLETED,)),
    ("STEP_FAILED", "step or execution failed", (K.STEP_FAILED, K.EXECUTION_FAILED)),
    ("STEP_IN_DOUBT", "in doubt: started, no outcome", (K.STEP_IN_DOUBT,)),
    ("DECISION_RECORDED", "decision recorded", (K.DECISION_RECORDED,)),
    ("STREAM_APPENDED", "stream data appended", (K.STREAM_APPENDED,)),
    ("EXECUTION_SUSPENDED", "suspended on a gate", (K.EXECUTION_SUSPENDED,)),
    ("RESUME_RECEIVED", "resume payload received", (K.RESUME_RECEIVED,)),
    ("EXECUTION_COMPLETED", "execution completed", (K.EXECUTION_COMPLETED,)),
)


def _icon(svg: str, words: str) -> str:
    return f"<span>{svg}{esc(words)}</span>"


def _bar(cls: str) -> str:
    return (f'<svg width="40" height="14"><line x1="4" y1="7" x2="36" y2="7" class="{cls}"/>'
            "</svg>")


def legend(timeline: Timeline, streams: Sequence[StreamCall] = ()) -> str:
    """The legend's HTML (``id="legend"``)."""
    kinds = {p.kind for p in timeline.points}
    labels = {p.label for p in timeline.points}
    markers = {m.kind for m in timeline.markers}
    items = []
    for name, words, shown_by in _KINDS:
        if kinds & set(shown_by) and not (name == "STEP_FAILED" and labels == {"diverged"}):
            items.append(_icon(f'<svg width="28" height="28" viewBox="0 0 28 28">'
                               f"{symbol(name, 14, 14)}</svg>", words))
    if "diverged" in labels:
        items.append(_icon(f'<svg width="28" height="28" viewBox="0 0 28 28">'
                           f'{symbol("DIVERGED", 14, 14)}</svg>', "diverged from the journal"))
    if MarkerKind.SERVED in markers:
        items.append(_icon(
            '<svg width="58" height="20"><rect x="2" y="1" width="54" height="18" rx="9" '
            'class="served-chip"/><text x="29" y="14" text-anchor="middle" '
            'class="served-text">served</text></svg>',
            "served from the journal by a recovery or a resume: not run again"))
    for kind, words in ((MarkerKind.RAN_AGAIN, "invoked again after the crash"),
                        (MarkerKind.RESOLVED, "an in-doubt step an operator resolved")):
        if kind in markers:
            label = "ran again" if kind is MarkerKind.RAN_AGAIN else "resolved"
            items.append(_icon(
                f'<svg width="66" height="18"><rect x="1" y="1" width="64" height="15" rx="7" '
                f'class="badge badge-{kind.value}"/><text x="33" y="12" text-anchor="middle" '
                f'class="badge-text">{label}</text></svg>', words))
    if MarkerKind.CRASH in markers:
        items.append(_icon('<svg width="30" height="30"><line x1="15" y1="0" x2="15" y2="30" '
                           'class="crash-line"/></svg>', "CRASH: the process died here"))
    if MarkerKind.TORN_TAIL in markers:
        items.append(_icon('<svg width="30" height="22"><rect x="2" y="2" width="26" '
                           'height="18" class="torn-col"/></svg>',
                           "torn: a half-written line, not written"))
    if MarkerKind.CORRUPT in markers:
        items.append(_icon('<svg width="30" height="22"><rect x="2" y="2" width="26" '
                           'height="18" class="corrupt-col"/></svg>',
                           "corrupt line: nothing after it is read"))
    bars = []
    if K.STEP_COMPLETED in kinds:
        bars.append(_icon(_bar("bar-step"), "a step from start to outcome"))
    if K.STEP_FAILED in kinds:
        bars.append(_icon(_bar("bar-failed"), "a step that failed"))
    if K.STEP_IN_DOUBT in kinds:
        bars.append(_icon(_bar("bar-doubt"), "a step in doubt"))
    if K.EXECUTION_RESUMED in kinds:
        bars.append(_icon(_bar("bar-gate"), "a gate waiting for its resume"))
    items += bars
    if any(c.streamed for c in streams):
        items.append(_icon(
            '<svg width="44" height="16"><rect x="1" y="1" width="42" height="14" rx="3" '
            'class="tick-box"/><rect x="8" y="4" width="2.4" height="8" class="tick '
            'tick-delivered"/><rect x="18" y="4" width="2.4" height="8" class="tick '
            'tick-delivered"/><rect x="28" y="4" width="2.4" height="8" class="tick '
            'tick-severed"/></svg>', "a stream's deltas (click: the stream, delta by delta)"))
    if Layout(timeline).grouped:
        items.append(_icon('<svg width="40" height="18"><rect x="1" y="2" width="38" '
                           'height="14" rx="6" class="seg-box"/></svg>',
                           "a group of lanes, from its first event to its last (a turn with "
                           "its tools): click it to open its lanes"))
    statuses = sorted({p.status.value for p in timeline.points},
                      key=["not-started", "running", "suspended", "in-doubt", "completed",
                           "failed"].index)
    status_items = "".join(
        f'<span><svg width="20" height="16"><rect x="1" y="1" width="18" height="14" rx="3" '
        f'class="status st-{s}"/></svg>{esc(s)}</span>' for s in statuses)
    return (f'<div class="legend" id="legend"><strong>Legend</strong>{"".join(items)}'
            + (f"<strong>status</strong>{status_items}" if statuses else "") + "</div>")
