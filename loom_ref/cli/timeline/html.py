"""The timeline as one self-contained HTML page: ``journal show --format html``, ``demo --html``.

One file, no network, no framework: inline CSS, inline SVG (the picture of ``svg.py``, the
state machine of ``machine.py``), and inline JavaScript (``script.py``) that shows the
payload of a clicked event beside the state machine, opens and closes groups of lanes, zooms,
searches, and follows the overview strip. Without JavaScript the page still reads: every
event's payload is in the table at the end, and every symbol has a hover title. It opens from
``file://``.

Reading order, top to bottom: what happened in words (and, for the demo, how often each
effect really ran before and after the crash), the legend (only what the page shows), zoom,
search and the overview strip, the picture, the clicked event beside the state machine, the
streams delta by delta (when recorded), a divergence's expected/actual diff, every event.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from loom_ref.cli.jsondiff import diff_rows
from loom_ref.cli.timeline.assets import CSS
from loom_ref.cli.timeline.legend import legend
from loom_ref.cli.timeline.machine import state_svg
from loom_ref.cli.timeline.model import MarkerKind, Point, Process, Timeline, line_words
from loom_ref.cli.timeline.overview import toolbar
from loom_ref.cli.timeline.script import SCRIPT
from loom_ref.cli.timeline.stream_html import SinkNames, streams_section
from loom_ref.cli.timeline.streams import StreamCall, read_tape
from loom_ref.cli.timeline.svg import picture
from loom_ref.cli.timeline.svgkit import esc
from loom_ref.cli.timeline.text import describe
from loom_ref.journal.events import Event, EventKind

__all__ = ["PAYLOAD_CHARS", "page", "render_html", "stream_lanes"]

#: A payload longer than this is cut in the page (the JSON form holds it whole).
PAYLOAD_CHARS = 4000
#: More events than this (or a grouped picture): the events are listed as text lines and
#: their payloads kept in the page's data, so that a long run's page stays light.
LONG_EVENTS = 160
#: More events than this: payloads are cut shorter still in the page's data.
HUGE_EVENTS = 2000
PAYLOAD_CHARS_HUGE = 1200


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
    n = len(timeline.points)
    if MarkerKind.TORN_TAIL in markers and timeline.torn is not None:
        notes.append(f"The journal ends in a <b>torn tail</b> "
                     f"({line_words(timeline.torn.line, n)}, {timeline.torn.size} bytes): a "
                     "crash cut the last write short; it is treated as not written.")
    if timeline.corrupt is not None:
        bad = timeline.corrupt
        good = ("no line is good: the header itself" if bad.line == 1 else
                f"lines 1-{bad.line - 1} are good (the header and events 1-{n})" if n else
                "line 1 (the header) is good")
        notes.append(f'<span class="corrupt-note">The journal is <b>corrupt</b> at '
                     f"{line_words(bad.line, n)}: {esc(bad.reason)} ({esc(bad.message)}). "
                     f"{good} and drawn; the bad line is marked, and nothing after it is read "
                     "(a bad line anywhere but the last is a hard error, "
                     "<code>journal.corrupt-line</code>): no runtime will recover this "
                     f"journal.</span> The bad line begins: <code>{esc(bad.text[:120])}</code>")
    if MarkerKind.IN_DOUBT in markers:
        resolved = [m for m in timeline.markers if m.kind is MarkerKind.RESOLVED]
        if resolved:
            notes.append("A step <b>was in doubt</b>: it had started, but the journal held no "
                         "outcome (a crash came in between), and its effect is not idempotent, "
                         "so nothing re-ran it on its own; an operator <b>resolved</b> it "
                         f"(event {resolved[-1].at_seq}).")
        else:
            notes.append("A step <b>is in doubt</b>: it started, but the journal holds no "
                         "outcome (a crash came in between), and its effect is not "
                         "idempotent, so the execution waits for an operator to resolve it.")
    if MarkerKind.NONDETERMINISM in markers:
        notes.append("The body <b>diverged</b> from its journal: see the expected/actual "
                     "diff below.")
    if not timeline.processes:
        notes.append("This picture is drawn from the journal alone, which does not record "
                     "where a process died: a recovered journal equals an uncrashed one. "
                     "<code>loom-ref demo --html OUT</code> draws the processes too.")
    return "".join(f"<p>{note}</p>" for note in notes)


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


def _payload(p: Point, limit: int = PAYLOAD_CHARS, *, compact: bool = False) -> str:
    """The payload as JSON text, cut at ``limit`` characters (saying so); ``compact`` for the
    page's data (the script indents it when it shows it)."""
    text = json.dumps(dict(p.payload), ensure_ascii=False,
                      **({"separators": (",", ":")} if compact else {"indent": 2}))
    if len(text) > limit:
        more = len(text) - limit
        text = (text[:limit] + f"\n… cut here: {more} more characters (journal show "
                "--format json holds every payload whole)")
    return text


def _event_rows(points: Iterable[Point], timeline: Timeline) -> str:
    lanes = {lane.id: lane for lane in timeline.lanes}
    rows = []
    for p in points:
        lane = lanes[p.lane]
        summary = describe(Event(seq=p.seq, kind=p.kind, payload=p.payload))
        title = f"event {p.seq}: {p.kind.value} ({lane.kind.value} {lane.name})"
        rows.append(f'<tr id="event-{p.seq}" data-title="{esc(title)}"><td>{p.seq}</td>'
                    f"<td><code>{esc(p.kind.value)}</code></td><td>{esc(p.status.value)}</td>"
                    f"<td>{esc(summary)}<details><summary>payload</summary>"
                    f"<pre>{esc(_payload(p))}</pre></details></td></tr>")
    return ('<table class="events"><tr><th>seq</th><th>kind</th><th>status after</th>'
            f"<th>what happened</th></tr>{''.join(rows)}</table>")


def _event_list(points: Sequence[Point], timeline: Timeline) -> str:
    """A long run's events as one listing (``journal show``'s text lines): the page stays
    light, and the payloads are in the page's data, shown on a click."""
    lines = [f"{p.seq:>6}  {p.kind.value:<20} "
             + describe(Event(seq=p.seq, kind=p.kind, payload=p.payload)) for p in points]
    return (f"<p class=\"muted\">{len(points)} events, one line each (click an event in the "
            "picture for its payload; <code>journal show --format json</code> holds them "
            f'all).</p><pre class="event-list">{esc(chr(10).join(lines))}</pre>')


def _data(data: dict[str, Any]) -> str:
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    return f'<script type="application/json" id="tl-data">{text}</script>'


def stream_lanes(timeline: Timeline, calls: Sequence[StreamCall]) -> dict[int, str | None]:
    """Each streamed call's lane: its step's, or, for a decider's transient call, the lane of
    the decision recorded right after it (None when there is none: the crash came first)."""
    lanes = {lane.id for lane in timeline.lanes}
    by_seq = {p.seq: p for p in timeline.points}
    out: dict[int, str | None] = {}
    for call in calls:
        lane = None
        if call.mode == "durable" and call.step_id and f"step:{call.step_id}" in lanes:
            lane = f"step:{call.step_id}"
        elif call.after is not None:
            nxt = by_seq.get(call.after + 1)
            if nxt is not None and nxt.kind is EventKind.DECISION_RECORDED:
                lane = nxt.lane
        out[call.number] = lane
    return out


def _served_notes(timeline: Timeline, calls: Sequence[StreamCall],
                  lanes: Mapping[int, str | None]) -> dict[int, str]:
    out = {}
    for call in calls:
        lane = lanes.get(call.number)
        if lane is None or call.process is None:
            continue
        name = lane.split(":", 1)[1]
        later = [p.number for p in timeline.processes if p.number > call.process
                 and any(name in c.served for c in p.calls)]
        if later:
            what = "decision" if lane.startswith("decision:") else "step"
            out[call.number] = (f"Later, process {later[0]} was served {what} "
                                f"<code>{esc(name)}</code> from the journal: it did not run "
                                "again, so this stream was not played again (ADR 0119 #5: "
                                "deltas are “not called on replay”).")
    return out


def _machine(timeline: Timeline) -> str:
    return ('<section id="machine"><h2>The state machine</h2><p class="muted">From the '
            "transition table the code enforces (<code>loom_ref.journal.fold.TRANSITIONS"
            "</code>): a box is a status, an arrow the event kinds allowed in it; a clicked "
            "event lights up its status and the arrow it took.</p>"
            f'<div class="machine-fit">{state_svg(current=timeline.state.status)}</div>'
            "</section>")


def page(title: str, body: Sequence[str], *, script: str = SCRIPT, css: str = "") -> str:
    """A self-contained page: ``body`` parts (HTML) under an ``h1`` of ``title``; ``css``
    is added to the shared style sheet."""
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f"<title>{esc(title)}</title><style>{CSS}{css}</style></head><body>",
             f"<h1>{esc(title)}</h1>", *body, f"<script>{script}</script>", "</body></html>"]
    return "\n".join(p for p in parts if p) + "\n"


def render_html(timeline: Timeline, *, title: str | None = None, intro: Iterable[str] = (),
                sink_names: SinkNames | None = None) -> str:
    """The page. ``title`` replaces the default heading; ``intro`` paragraphs (HTML) open it;
    ``sink_names`` names the sinks of the recorded streams."""
    status = timeline.state.status.value
    heading = title or (f"{timeline.title[0].upper()}{timeline.title[1:]}: {status}")
    story = _story(timeline)
    calls = read_tape(timeline.tape)
    lanes = stream_lanes(timeline, calls)
    streams = streams_section(calls, sink_names or {}, lanes,
                              _served_notes(timeline, calls, lanes))
    drawn, data = picture(timeline, calls, lanes)
    long = bool(data["lazy"]) or len(timeline.points) > LONG_EVENTS
    if long:
        limit = PAYLOAD_CHARS if len(timeline.points) <= HUGE_EVENTS else PAYLOAD_CHARS_HUGE
        data["payloads"] = {p.seq: _payload(p, limit, compact=True) for p in timeline.points}
    events = (_event_list(timeline.points, timeline) if long
              else _event_rows(timeline.points, timeline))
    return page(heading, [
        f'<p class="source">journal <code>{esc(timeline.source)}</code>: '
        f"{len(timeline.points)} events, folded status <b>{esc(status)}</b></p>",
        *(f"<p>{p}</p>" for p in intro),
        (f'<ol class="story" id="story">{"".join(f"<li>{s}</li>" for s in story)}</ol>'
         if story else ""),
        _counts(timeline.processes),
        _summary(timeline),
        legend(timeline, calls),
        toolbar(timeline),
        f'<div id="timeline">{drawn}</div>',
        '<div class="inspector" id="inspector"><section id="details" aria-live="polite">'
        '<strong class="d-title">Click an event in the picture to see its payload.</strong> '
        '<span class="d-note"></span><pre></pre></section>'
        f"{_machine(timeline)}</div>",
        streams,
        _divergence(timeline),
        f'<section id="events"><h2>Every event</h2>{events}</section>',
        _data(data),
    ])
