"""The crash explorer: ``loom-ref demo --explore --html OUT``, one page, a slider over every cut.

The demo's story is crashed at every journal event it writes, and torn at each, by the crash
matrix the tests run (:func:`loom_ref.cli.demo_matrix.crash_matrix`; ``tests/cli/test_demo.py``
holds every cut to the rules), and the page shows, for the cut the slider is on:

- the journal as it stood when process 1 died, line by line, the torn line if any;
- what the recovering process served from the journal and what it ran again, the steps it
  found in doubt and how an operator resolved them, and which streams played again;
- how often each effect really ran, against the uncrashed run;
- the whole story's timeline for that cut (the picture of ``demo --html``).

Above the slider, a chart of every cut at once: what each crash point cost (the effect runs
beyond the uncrashed run's, an in-doubt step, a torn line), so a class sees where a crash is
free and where it costs a model call or an operator's check. Everything is precomputed: the
page is self-contained, needs no server, and opens from ``file://``; without JavaScript every
cut is shown one after the other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from loom_ref.cli.demo_agent import Options
from loom_ref.cli.demo_matrix import EXECUTION, Cut, cost, crash_matrix, run_cut
from loom_ref.cli.timeline.html import page, stream_lanes
from loom_ref.cli.timeline.model import build_timeline
from loom_ref.cli.timeline.streams import read_tape
from loom_ref.cli.timeline.svg import picture
from loom_ref.cli.timeline.svgkit import esc, rect, text
from loom_ref.cli.timeline.symbols import symbol
from loom_ref.cli.timeline.text import describe

__all__ = ["EXPLORER_SCRIPT", "explorer_page", "run_explorer"]

CELL = 44  # one cut in the chart


def _id(cut: Cut) -> str:
    return f"{'torn' if cut.torn else 'cut'}-{cut.after}"


def _journal_lines(cut: Cut) -> str:
    rows = ['<li class="jl jl-header"><span class="ln">line 1</span> the header '
            f"(execution <code>{EXECUTION}</code>)</li>"]
    for event in cut.written:
        rows.append(f'<li class="jl"><span class="ln">line {event.seq + 1}</span> '
                    f"<b>event {event.seq}</b> <code>{esc(event.kind.value)}</code> "
                    f"{esc(describe(event))}</li>")
    if cut.torn_tail is not None:
        n = len(cut.written) + 1
        rows.append(f'<li class="jl jl-torn"><span class="ln">line {cut.torn_tail.line}</span> '
                    f"<b>event {n}, torn</b>: only {cut.torn_tail.size} bytes reached the file: "
                    f"<code>{esc(cut.torn_text)}</code>… A reader treats them as not written "
                    "(<code>journal.torn-tail</code>); the next writer cuts them off.</li>")
    return f'<ol class="journal-lines">{"".join(rows)}</ol>'


def _recovery(cut: Cut) -> str:
    items = []
    for process in cut.story.processes[1:]:
        for call in process.calls:
            served = ", ".join(call.served) or "nothing"
            ran = ", ".join(call.ran) or "nothing"
            items.append(f"<li>process {process.number}, <b>{esc(call.action)}</b>: served "
                         f"from the journal <i>{esc(served)}</i>; ran <i>{esc(ran)}</i>; "
                         f"then <b>{esc(call.outcome)}</b>.</li>")
    doubt = cut.in_doubt()
    if doubt:
        how = [c.action for p in cut.story.processes for c in p.calls
               if c.action.startswith("resolve")]
        items.append(f'<li class="doubt">In doubt: <code>{esc(", ".join(doubt))}</code> had '
                     "started, the journal held no outcome, and its effect is not idempotent: "
                     "nothing re-ran it on its own. An operator resolved it: "
                     f"<b>{esc(', '.join(how))}</b>.</li>")
    return f'<ul class="recovery">{"".join(items)}</ul>'


def _streams(cut: Cut) -> str:
    calls = [c for c in read_tape(cut.story.tape.to_json()) if c.streamed]
    if not calls:
        return ""
    words = []
    for call in calls:
        what = call.step_id or f"the {call.tool_id} decision"
        words.append(f"<code>{esc(what)}</code> in process {call.process}")
    return ("<p>Streams that played (live, never journaled): " + ", ".join(words)
            + ". A decision or step the recovery was served did not stream again (ADR 0119 "
            "#5).</p>")


def _counts(cut: Cut, base: Cut) -> str:
    names = sorted(set(cut.runs) | set(base.runs))
    rows = []
    for name in names:
        n, b = cut.runs.get(name, 0), base.runs.get(name, 0)
        extra = n - b
        mark = f' <b class="extra">+{extra}</b>' if extra > 0 else ""
        rows.append(f"<tr><td><code>{esc(name)}</code></td><td>{b}</td>"
                    f'<td class="{"costly" if extra > 0 else ""}">{n}{mark}</td></tr>')
    return ('<table class="counts"><caption>How often each effect really ran</caption>'
            "<tr><th>effect</th><th>uncrashed</th><th>this cut</th></tr>"
            f"{''.join(rows)}</table>")


def _heading(cut: Cut, base: Cut) -> str:
    assert cut.after is not None
    event = base.events[cut.after - 1]
    what = f"<code>{esc(event.kind.value)}</code> " + esc(describe(event)[:60])
    if cut.torn:
        return (f"Cut {cut.after}, torn: the process dies <b>while writing</b> event "
                f"{cut.after} ({what}): its line, line {cut.after + 1}, is cut short")
    return f"Cut {cut.after}: the process dies right <b>after</b> event {cut.after} ({what})"


def _panel(cut: Cut, base: Cut) -> str:
    timeline = build_timeline(cut.events, source=f"{_id(cut)}/{EXECUTION}.jsonl",
                              processes=cut.story.processes, tape=cut.story.tape.to_json())
    calls = read_tape(timeline.tape)
    drawn, _ = picture(timeline, calls, stream_lanes(timeline, calls), suffix=f"-{_id(cut)}")
    extra = cost(cut, base)
    summary = ("it cost nothing: no effect ran more often than without the crash"
               if not extra else "it cost " + ", ".join(
                   f"{n:+d} run(s) of {esc(name)}" for name, n in extra.items()))
    if cut.in_doubt():
        summary += ("; but a step was left <b>in doubt</b>, and an operator had to check and "
                    "resolve it")
    return (f'<section class="cut" id="{_id(cut)}" data-after="{cut.after}" '
            f'data-torn="{int(cut.torn)}"><h2>{_heading(cut, base)}</h2>'
            f'<p class="verdict-line">The execution ended <b>{esc(cut.status)}</b>; '
            f"{summary}.</p>"
            '<div class="cut-cols"><div><h3>The journal when process 1 died</h3>'
            f"{_journal_lines(cut)}</div><div><h3>What recovery did</h3>{_recovery(cut)}"
            f"{_streams(cut)}{_counts(cut, base)}</div></div>"
            f"<h3>The whole story of this cut</h3>{drawn}</section>")


def _chart(cuts: Sequence[Cut], base: Cut, torn: bool) -> str:
    """Every cut at once: the event written last, what the crash cost, in-doubt steps."""
    names = sorted({name for cut in cuts for name in cut.runs} | set(base.runs))
    label_w = 150
    rows = ["event torn" if torn else "last event written", *names, "in doubt"]
    height = 34 + 30 * len(rows)
    out = [text(8, 22, "cut (crash after event)" if not torn else "cut (torn while writing)",
                class_="ch-label")]
    for i, name in enumerate(rows):
        out.append(text(8, 52 + 30 * i, name, class_="ch-label"))
    for j, cut in enumerate(cuts):
        assert cut.after is not None
        x = label_w + CELL * j
        extra = cost(cut, base)
        out.append(f'<g class="ch-col" data-cut="{cut.after}" tabindex="0" role="button" '
                   f'aria-label="cut {cut.after}"><title>cut {cut.after}: '
                   f'{esc(", ".join(f"{k} {v:+d}" for k, v in extra.items()) or "no cost")}'
                   "</title>" + rect(x + 1, 4, CELL - 2, height - 6, rx=4, class_="ch-hit")
                   + text(x + CELL / 2, 22, str(cut.after), class_="ch-k", text_anchor="middle")
                   + symbol(base.events[cut.after - 1].kind, x + CELL / 2, 47))
        for i, name in enumerate(names, start=1):
            n = extra.get(name, 0)
            if n:
                out.append(rect(x + 5, 36 + 30 * i, CELL - 10, 22, rx=4, class_="ch-cost")
                           + text(x + CELL / 2, 52 + 30 * i, f"{n:+d}", class_="ch-cost-text",
                                  text_anchor="middle"))
            else:
                out.append(text(x + CELL / 2, 52 + 30 * i, "·", class_="ch-zero",
                                text_anchor="middle"))
        doubt = cut.in_doubt()
        if doubt:
            y = 36 + 30 * (len(rows) - 1)
            out.append(rect(x + 5, y, CELL - 10, 22, rx=4, class_="ch-doubt")
                       + text(x + CELL / 2, y + 16, "?", class_="ch-doubt-text",
                              text_anchor="middle"))
        out.append("</g>")
    width = label_w + CELL * len(cuts) + 8
    return (f'<svg class="chart" data-torn="{int(torn)}" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img" aria-label="what each cut cost">'
            + "".join(out) + "</svg>")


EXPLORER_CSS = """
.explorer-controls { position: sticky; top: 0; z-index: 5; background: #fff; padding: 8px 0;
                     border-bottom: 1px solid var(--line); display: flex; flex-wrap: wrap;
                     gap: 10px 22px; align-items: center; font-size: 15px; }
.explorer-controls input[type=range] { width: min(60vw, 720px); }
.explorer-controls button { font: inherit; padding: 1px 10px; }
#cut-label { font-weight: bold; }
.charts { overflow-x: auto; border: 1px solid var(--line); border-radius: 8px; margin: 8px 0; }
.chart { display: block; }
.ch-label { font-size: 12.5px; fill: #374151; }
.ch-k { font-size: 13px; font-weight: bold; }
.ch-hit { fill: transparent; stroke: none; }
.ch-col { cursor: pointer; }
.ch-col:hover .ch-hit { fill: #eef2ff; }
.ch-col.current .ch-hit { fill: #dbeafe; stroke: #2563eb; stroke-width: 2.5; }
.ch-cost { fill: #fed7aa; stroke: #c2410c; }
.ch-cost-text { font-size: 13px; font-weight: bold; fill: #9a3412; }
.ch-zero { font-size: 16px; fill: #9ca3af; }
.ch-doubt { fill: #ede9fe; stroke: #6d28d9; }
.ch-doubt-text { font-size: 14px; font-weight: bold; fill: #5b21b6; }
.cut .tl-scroll { max-height: none; }
.cut { border-top: 3px solid #2563eb; margin-top: 14px; padding-top: 4px;
       scroll-margin-top: 90px; }
.cut h2 { font-size: 18px; }
.cut h3 { font-size: 15px; margin: 10px 0 4px; }
.cut-cols { display: flex; flex-wrap: wrap; gap: 8px 28px; }
.cut-cols > div { flex: 1 1 460px; min-width: 380px; }
.journal-lines { list-style: none; padding: 0; margin: 0; font-size: 13px; }
.jl { padding: 1px 4px; border-bottom: 1px solid #f3f4f6; }
.jl .ln { display: inline-block; width: 4.6em; color: var(--muted); }
.jl-header { color: var(--muted); }
.jl-torn { background: #fee2e2; border: 1px dashed #dc2626; }
.verdict-line { font-size: 16px; }
.extra { color: #c2410c; }
td.costly { background: #ffedd5; }
.doubt { background: #f5f3ff; }
"""

EXPLORER_SCRIPT = r"""
(function () {
  var slider = document.getElementById('cut'), torn = document.getElementById('torn');
  var label = document.getElementById('cut-label');
  var cuts = Array.prototype.slice.call(document.querySelectorAll('section.cut'));
  var charts = Array.prototype.slice.call(document.querySelectorAll('svg.chart'));
  function show(initial) {
    var k = slider.value, t = torn.checked ? '1' : '0', shown = null;
    cuts.forEach(function (c) {
      var on = c.getAttribute('data-after') === k && c.getAttribute('data-torn') === t;
      c.hidden = !on;
      if (on) shown = c;
    });
    charts.forEach(function (ch) {
      ch.parentNode.hidden = ch.getAttribute('data-torn') !== t;
      Array.prototype.forEach.call(ch.querySelectorAll('.ch-col'), function (g) {
        g.classList.toggle('current', g.getAttribute('data-cut') === k);
      });
    });
    label.textContent = shown ? shown.querySelector('h2').textContent : '';
    if (shown && initial !== true && location.hash !== '#' + shown.id) {
      history.replaceState(null, '', '#' + shown.id);  // a link to this cut
    }
  }
  function step(n) {
    slider.value = Math.max(+slider.min, Math.min(+slider.max, +slider.value + n));
    show();
  }
  slider.addEventListener('input', function () { show(); });
  torn.addEventListener('change', function () { show(); });
  document.getElementById('prev').addEventListener('click', function () { step(-1); });
  document.getElementById('next').addEventListener('click', function () { step(1); });
  Array.prototype.forEach.call(document.querySelectorAll('.ch-col'), function (g) {
    function pick() { slider.value = g.getAttribute('data-cut'); show(); }
    g.addEventListener('click', pick);
    g.addEventListener('keydown', function (k) { if (k.key === 'Enter') pick(); });
  });
  var m = /^#(cut|torn)-(\d+)$/.exec(location.hash);
  if (m) { torn.checked = m[1] === 'torn'; slider.value = m[2]; }
  show(true);
  window.loomExplorer = {show: show, step: step};
})();
"""


def explorer_page(options: Options, crashed: Sequence[Cut], torn: Sequence[Cut],
                  base: Cut) -> str:
    """The page for the cuts (crashed after each event, torn while writing each)."""
    total = len(base.events)
    flags = " ".join(options.flags())
    title = "Crash explorer: the refund agent crashed at every point" + (
        f" ({flags})" if flags else "")
    intro = (f"<p>The demo's story (<code>loom-ref demo{' ' + flags if flags else ''}</code>) "
             f"writes {total} journal events. Here it was crashed after each of them (and, "
             "with <i>torn write</i> checked, while writing each: its line cut short), and "
             "each time a fresh process (fresh runtime, fresh effects, the same journal) "
             "recovered it. Every cut below was computed before this page was written, by the "
             "crash matrix the tests run (<code>loom_ref.cli.demo_matrix.crash_matrix</code>, "
             "checked by <code>tests/cli/test_demo.py</code>): the refund runs once at every "
             "cut, and the journal ends as the uncrashed one. Slide to a cut, or click a "
             "column of the chart.</p>")
    controls = ('<div class="explorer-controls"><label for="cut">cut</label>'
                f'<input type="range" id="cut" min="1" max="{total}" value="1" step="1">'
                '<button type="button" id="prev">◀</button>'
                '<button type="button" id="next">▶</button>'
                '<label><input type="checkbox" id="torn"> torn write (the crash cuts the '
                'line it is writing)</label><span id="cut-label"></span></div>')
    charts = "".join(
        f'<div class="charts"{" hidden" if t else ""}><p class="muted" style="margin:4px 8px">'
        f"What a crash at each point costs{' (torn writes)' if t else ''}: the event written "
        "last, the effect runs beyond the uncrashed run's, and an in-doubt step an operator "
        f"had to resolve.</p>{_chart(cuts, base, t)}</div>"
        for t, cuts in ((False, crashed), (True, torn)))
    panels = "".join(_panel(cut, base) for cut in (*crashed, *torn))
    return page(title, [intro, charts, controls, panels], script=EXPLORER_SCRIPT,
                css=EXPLORER_CSS)


def run_explorer(options: Options) -> tuple[str, Mapping[str, list[Cut]]]:
    """The page, and the cuts it shows (``crash`` and ``torn``)."""
    base = run_cut(options)
    crashed = crash_matrix(options)
    torn = crash_matrix(options, torn=True)
    return explorer_page(options, crashed, torn, base), {"crash": crashed, "torn": torn}
