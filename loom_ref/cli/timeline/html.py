"""The timeline as one self-contained HTML page: ``journal show --format html``, ``demo --html``.

One file, no network, no framework: inline CSS, inline SVG (the timeline of ``svg.py`` and
the state machine of ``machine.py``), and a few lines of inline JavaScript that show the
payload of a clicked event and light up the status it led to. Without JavaScript the page
still reads: every event's payload is in the table at the end, and every symbol has a hover
title. It opens from ``file://``.

Reading order, top to bottom: what happened in words (and, for the demo, how often each
effect really ran before and after the crash), the legend, the picture, the clicked event's
payload, a divergence's expected/actual diff, the state machine, every event.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from loom_ref.cli.jsondiff import diff_rows
from loom_ref.cli.timeline.assets import CSS, SCRIPT
from loom_ref.cli.timeline.machine import state_svg
from loom_ref.cli.timeline.model import MarkerKind, Point, Process, Timeline
from loom_ref.cli.timeline.svg import symbol, timeline_svg
from loom_ref.cli.timeline.svgkit import esc
from loom_ref.cli.timeline.text import describe
from loom_ref.journal.events import Event

__all__ = ["render_html"]

_LEGEND: tuple[tuple[str, str], ...] = (
    ("EXECUTION_STARTED", "execution started / resumed"),
    ("STEP_STARTED", "step started (effect called)"),
    ("STEP_COMPLETED", "step done (outcome journaled)"),
    ("STEP_FAILED", "step or execution failed"),
    ("STEP_IN_DOUBT", "in doubt: started, no outcome"),
    ("DECISION_RECORDED", "decision recorded"),
    ("STREAM_APPENDED", "stream data appended"),
    ("EXECUTION_SUSPENDED", "suspended on a gate"),
    ("RESUME_RECEIVED", "resume payload received"),
    ("EXECUTION_COMPLETED", "execution completed"),
    ("DIVERGED", "diverged from the journal"),
)


def _legend() -> str:
    items = []
    for kind, words in _LEGEND:
        icon = symbol(kind, 14, 14)
        items.append(f'<span><svg width="28" height="28" viewBox="0 0 28 28">{icon}</svg>'
                     f"{esc(words)}</span>")
    extra = [
        ('<svg width="58" height="20"><rect x="2" y="1" width="54" height="18" rx="9" '
         'class="served-chip"/><text x="29" y="14" text-anchor="middle" class="served-text">'
         "served</text></svg>", "served from the journal by a recovery: not run again"),
        ('<svg width="66" height="18"><rect x="1" y="1" width="64" height="15" rx="7" '
         'class="badge badge-ran-again"/><text x="33" y="12" text-anchor="middle" '
         'class="badge-text">ran again</text></svg>', "invoked again after the crash"),
        ('<svg width="30" height="30"><line x1="15" y1="0" x2="15" y2="30" class="crash-line"/>'
         "</svg>", "CRASH: the process died here"),
        ('<svg width="30" height="22"><rect x="2" y="2" width="26" height="18" '
         'class="torn-col"/></svg>', "torn tail: a half-written last line, not written"),
        ('<svg width="40" height="14"><line x1="4" y1="7" x2="36" y2="7" class="bar-step"/>'
         "</svg>", "a step from start to outcome"),
        ('<svg width="40" height="14"><line x1="4" y1="7" x2="36" y2="7" class="bar-gate"/>'
         "</svg>", "a gate waiting for its resume"),
    ]
    items += [f"<span>{icon}{esc(words)}</span>" for icon, words in extra]
    statuses = "".join(
        f'<span><svg width="20" height="16"><rect x="1" y="1" width="18" height="14" rx="3" '
        f'class="status st-{s}"/></svg>{esc(s)}</span>'
        for s in ("running", "suspended", "in-doubt", "completed", "failed"))
    return (f'<div class="legend" id="legend"><strong>Legend</strong>{"".join(items)}'
            f'<strong>status</strong>{statuses}</div>')


def _counts(processes: Iterable[Process]) -> str:
    procs = [p for p in processes if p.calls]
    if not procs:
        return ""
    names = sorted({name for p in procs for name in p.effects})
    crashed = {p.number for p in procs if p.crashed_after is not None}

    def heading(p: Process) -> str:
        when = ("before the crash" if p.number in crashed else
                "after the crash" if p.number > 1 else "")
        return f"process {p.number}" + (f" ({when})" if when else "")

    head = "".join(f"<th>{esc(heading(p))}</th>" for p in procs)
    rows = []
    for name in names:
        cells = "".join(f"<td>{p.effects.get(name, 0)}</td>" for p in procs)
        total = sum(p.effects.get(name, 0) for p in procs)
        rows.append(f"<tr><td><code>{esc(name)}</code></td>{cells}<td>{total}</td></tr>")
    return ('<table class="counts" id="counts"><caption>How often each effect really ran'
            f"</caption><tr><th>effect</th>{head}<th>total</th></tr>{''.join(rows)}</table>")


def _story(timeline: Timeline) -> list[str]:
    """Sentences for the processes, when they are known."""
    out = []
    for process in timeline.processes:
        for call in process.calls:
            events = (f"events {call.first_seq}-{call.last_seq}" if call.last_seq > call.first_seq
                      else f"event {call.first_seq}" if call.last_seq == call.first_seq
                      else "no new event")
            who = f"Process {process.number}, <b>{esc(call.action)}</b> ({events})"
            if call.outcome == "crashed":
                out.append(f"{who}: then the process <b>dies</b> after journal event "
                           f"{process.crashed_after}: what it held in memory is lost.")
                continue
            served = (f"served {len(call.served)} from the journal "
                      f"({esc(', '.join(call.served))})" if call.served else
                      "served nothing from the journal")
            ran = f"ran {esc(', '.join(call.ran))}" if call.ran else "ran nothing"
            out.append(f"{who}: {served}; {ran}; now <b>{esc(call.outcome)}</b>.")
    return out


def _summary(timeline: Timeline) -> str:
    markers = {m.kind for m in timeline.markers}
    notes = []
    if MarkerKind.TORN_TAIL in markers and timeline.torn is not None:
        notes.append(f"The journal ends in a <b>torn tail</b> (line {timeline.torn.line}, "
                     f"{timeline.torn.size} bytes): a crash cut the last write short; it is "
                     "treated as not written.")
    if MarkerKind.IN_DOUBT in markers:
        notes.append("A step is <b>in doubt</b>: it started, but the journal holds no outcome "
                     "(a crash came in between), and its effect is not idempotent, so an "
                     "operator resolves it.")
    if MarkerKind.NONDETERMINISM in markers:
        notes.append("The body <b>diverged</b> from its journal: see the expected/actual "
                     "diff below.")
    if not timeline.processes:
        notes.append("This picture is drawn from the journal alone, which does not record "
                     "where a process died: a recovered journal equals an uncrashed one. "
                     "<code>loom-ref demo --html OUT</code> draws the processes too.")
    return "".join(f"<p>{n}</p>" for n in notes)


def _divergence(timeline: Timeline) -> str:
    out = []
    for marker in timeline.markers:
        if marker.kind is not MarkerKind.NONDETERMINISM or not isinstance(marker.data, dict):
            continue
        expected = marker.data.get("expected")
        rows = "".join(
            f'<tr class="{"differs" if r.differs else "same"}"><td>{esc(r.path)}</td>'
            f"<td>{esc(r.expected)}</td><td>{esc(r.actual)}</td>"
            f"<td>{'differs' if r.differs else ''}</td></tr>"
            for r in diff_rows(expected, marker.data.get("actual")))
        where = marker.data.get("journalSeq")
        out.append(f'<section id="divergence"><h2>Event {marker.at_seq}: the body diverged '
                   "from its journal" + (f" at event {where}" if where is not None else "")
                   + f"</h2><p>{esc(marker.detail)}</p>"
                   '<table class="diff"><tr><th>where</th><th>the journal holds</th>'
                   f"<th>the body did</th><th></th></tr>{rows}</table></section>")
    return "".join(out)


def _event_rows(points: Iterable[Point], timeline: Timeline) -> str:
    rows = []
    for p in points:
        lane = timeline.lane(p.lane)
        summary = describe(Event(seq=p.seq, kind=p.kind, payload=p.payload))
        title = f"event {p.seq}: {p.kind.value} ({lane.kind.value} {lane.name})"
        payload = json.dumps(dict(p.payload), ensure_ascii=False, indent=2)
        rows.append(f'<tr id="event-{p.seq}" data-title="{esc(title)}"><td>{p.seq}</td>'
                    f"<td><code>{esc(p.kind.value)}</code></td><td>{esc(p.status.value)}</td>"
                    f"<td>{esc(summary)}<details><summary>payload</summary>"
                    f"<pre>{esc(payload)}</pre></details></td></tr>")
    return ('<table class="events"><tr><th>seq</th><th>kind</th><th>status after</th>'
            f"<th>what happened</th></tr>{''.join(rows)}</table>")


def render_html(timeline: Timeline, *, title: str | None = None,
                intro: Iterable[str] = ()) -> str:
    """The page. ``title`` replaces the default heading; ``intro`` paragraphs (HTML) open it."""
    status = timeline.state.status.value
    heading = title or (f"Execution {timeline.execution_id} ({timeline.workflow}): {status}")
    story = _story(timeline)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(heading)}</title><style>{CSS}</style></head><body>",
        f"<h1>{esc(heading)}</h1>",
        f'<p class="source">journal <code>{esc(timeline.source)}</code>: '
        f"{len(timeline.points)} events, folded status <b>{esc(status)}</b></p>",
        *(f"<p>{p}</p>" for p in intro),
        (f'<ol class="story" id="story">{"".join(f"<li>{s}</li>" for s in story)}</ol>'
         if story else ""),
        _counts(timeline.processes),
        _summary(timeline),
        _legend(),
        f'<div class="scroll" id="timeline">{timeline_svg(timeline)}</div>',
        '<section id="details" aria-live="polite"><strong class="d-title">Click an event '
        "in the picture to see its payload.</strong> <span class=\"d-note\"></span>"
        "<pre></pre></section>",
        _divergence(timeline),
        '<section id="machine"><h2>The state machine</h2><p>Drawn from the transition table '
        "the code enforces (<code>loom_ref.journal.fold.TRANSITIONS</code>): a box is a "
        "status, an arrow the event kinds allowed in it. Click an event above: its status "
        "lights up here, and so does the arrow it took.</p>"
        f'<div class="scroll">{state_svg(current=timeline.state.status)}</div></section>',
        f'<section id="events"><h2>Every event</h2>{_event_rows(timeline.points, timeline)}'
        "</section>",
        f"<script>{SCRIPT}</script>",
        "</body></html>",
    ]
    return "\n".join(p for p in parts if p) + "\n"
