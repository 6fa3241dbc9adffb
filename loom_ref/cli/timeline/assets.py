"""The HTML timeline's style sheet and script, inline in every page (``html.py``).

The script is the page's only behaviour, and small on purpose: a click (or Enter) on an event
symbol selects it, copies its payload from the event table into the details panel, and lights
up the status it led to, and the arrow it took, in the state machine. Everything else is CSS
on the classes that ``svg.py`` and ``machine.py`` write. Colours always come with words or
shapes: nothing in the pictures is told by colour alone.
"""

from __future__ import annotations

__all__ = ["CSS", "SCRIPT"]

CSS = """
:root { --ink: #111827; --muted: #4b5563; --line: #d1d5db; }
body { font: 15px/1.45 "DejaVu Sans", "Liberation Sans", Arial, sans-serif; color: var(--ink);
       margin: 20px 28px; }
h1 { font-size: 22px; margin: 0 0 6px; }
h2 { font-size: 17px; margin: 22px 0 6px; }
p { margin: 4px 0 8px; max-width: 72em; }
code, pre { font-family: "DejaVu Sans Mono", monospace; }
.source { color: var(--muted); font-size: 13px; }
.story { margin: 6px 0 10px; padding-left: 22px; max-width: 80em; }
.story li { margin: 2px 0; }
table.counts { border-collapse: collapse; margin: 6px 0 12px; }
table.counts th, table.counts td { border: 1px solid var(--line); padding: 3px 10px;
                                   text-align: right; }
table.counts th:first-child, table.counts td:first-child { text-align: left; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 18px; margin: 8px 0 12px; padding: 8px 12px;
          border: 1px solid var(--line); border-radius: 8px; background: #fafafa;
          max-width: 100em; }
.legend span { display: inline-flex; align-items: center; gap: 6px; font-size: 14px; }
.legend svg { flex: none; }
.scroll { overflow-x: auto; border: 1px solid var(--line); border-radius: 8px;
          background: #fff; }
#details { border: 2px solid #2563eb; border-radius: 8px; padding: 8px 12px; margin: 12px 0;
           background: #eff6ff; max-width: 100em; }
#details pre { max-height: 24em; overflow: auto; background: #fff; padding: 8px;
               margin: 6px 0 0; border: 1px solid var(--line); font-size: 13px;
               white-space: pre-wrap; }
#details pre:empty { display: none; }
.diff { border-collapse: collapse; margin: 6px 0; font-size: 14px; }
.diff th, .diff td { border: 1px solid var(--line); padding: 3px 8px; text-align: left;
                     font-family: "DejaVu Sans Mono", monospace; }
.diff tr.differs td { background: #fee2e2; font-weight: bold; }
#divergence { border: 2px solid #b91c1c; border-radius: 8px; padding: 8px 12px;
              max-width: 100em; }
table.events { border-collapse: collapse; font-size: 13px; }
table.events td, table.events th { border-top: 1px solid var(--line); padding: 3px 8px;
                                   vertical-align: top; text-align: left; }
table.events pre { margin: 2px 0; white-space: pre-wrap; max-width: 90em; }

svg text { font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif; }
.lane-bg.lane-0 { fill: #ffffff; }
.lane-bg.lane-1 { fill: #f6f7f9; }
.lane-name { font-size: 13.5px; font-weight: bold; }
.lane-detail { font-size: 12px; fill: var(--muted); }
.row-label { font-size: 12.5px; fill: var(--muted); font-style: italic; }
.grid { stroke: #e5e7eb; stroke-width: 1; }
.seq { font-size: 13px; font-weight: bold; fill: #374151; }
.status-text { font-size: 11.5px; fill: #111827; }
.caption { font-size: 12.5px; fill: var(--muted); }
.status, .sm-box { stroke-width: 1.2; }
.st-not-started { fill: #f3f4f6; stroke: #6b7280; }
.st-running { fill: #dbeafe; stroke: #1d4ed8; }
.st-suspended { fill: #fef3c7; stroke: #b45309; }
.st-in-doubt { fill: #ede9fe; stroke: #6d28d9; }
.st-completed { fill: #dcfce7; stroke: #15803d; }
.st-failed { fill: #fee2e2; stroke: #b91c1c; }

.sym { stroke-width: 2; }
.sym-STEP_STARTED { fill: #fff; stroke: #1d4ed8; }
.sym-STEP_COMPLETED, .sym-EXECUTION_COMPLETED { fill: #15803d; stroke: #15803d; }
.sym-ring { fill: none; stroke: #15803d; stroke-width: 1.5; }
.sym-STEP_FAILED, .sym-EXECUTION_FAILED, .sym-DIVERGED { fill: #b91c1c; stroke: #b91c1c; }
.sym-STEP_IN_DOUBT { fill: #6d28d9; stroke: #6d28d9; }
.sym-DECISION_RECORDED { fill: #0f766e; stroke: #0f766e; }
.sym-STREAM_APPENDED { fill: #9ca3af; stroke: #4b5563; }
.sym-EXECUTION_STARTED, .sym-EXECUTION_RESUMED { fill: #1f2937; stroke: #1f2937; }
.sym-EXECUTION_SUSPENDED, .sym-RESUME_RECEIVED { fill: #d97706; stroke: #b45309; }
.glyph { fill: none; stroke: #fff; stroke-width: 2.2; stroke-linecap: round;
         stroke-linejoin: round; }
.glyph-fill { fill: #fff; }
.glyph-env { fill: none; stroke: #fff; stroke-width: 1.4; }
.glyph-text { fill: #fff; font-size: 14px; font-weight: bold; }
.word { font-size: 12px; fill: #1f2937; }
.word-STEP_IN_DOUBT { fill: #6d28d9; font-weight: bold; }
.word-STEP_FAILED, .word-EXECUTION_FAILED { fill: #b91c1c; font-weight: bold; }
.bar-step { stroke: #93c5fd; stroke-width: 6; stroke-linecap: round; }
.bar-failed { stroke: #fca5a5; stroke-width: 6; stroke-linecap: round; }
.bar-gate { stroke: #fcd34d; stroke-width: 6; stroke-linecap: round; }
.bar-doubt { stroke: #c4b5fd; stroke-width: 6; stroke-dasharray: 6 5; }
.bar-open { stroke: #9ca3af; stroke-width: 4; stroke-dasharray: 4 5; }
.ev { cursor: pointer; }
.ev .hit { fill: transparent; stroke: none; }
.ev:hover .hit, .ev:focus .hit { fill: #e0e7ff; }
.ev.selected .hit { fill: #bfdbfe; stroke: #2563eb; stroke-width: 2; }
.ev:focus { outline: none; }
.badge { stroke-width: 1; }
.badge-text { font-size: 11px; font-weight: bold; fill: #fff; }
.badge-ran-again { fill: #c2410c; stroke: #9a3412; }
.badge-resolved, .badge-in-doubt { fill: #6d28d9; stroke: #5b21b6; }
.badge-nondeterminism { fill: #b91c1c; }
.crash-line { stroke: #dc2626; stroke-width: 3; stroke-dasharray: 9 5; }
.crash-text { font-size: 15px; font-weight: bold; fill: #dc2626; }
.bolt { fill: #dc2626; }
.torn-col { fill: #fee2e2; stroke: #dc2626; stroke-dasharray: 4 3; }
.torn-text { font-size: 13px; font-weight: bold; fill: #b91c1c; }
.torn-tag { font-size: 11px; font-weight: bold; fill: #b91c1c; }
.served-chip { fill: #ecfdf5; stroke: #059669; stroke-width: 1.5; }
.served-text { font-size: 10.5px; font-weight: bold; fill: #047857; }
.served-arrow { fill: none; stroke: #047857; stroke-width: 1.6; }
.proc { stroke: #9ca3af; }
.proc-1 { fill: #e0f2fe; }
.proc-0 { fill: #dcfce7; }
.proc-text { font-size: 13px; font-weight: bold; }
.call-box { fill: #fff; stroke: #9ca3af; }
.call-text { font-size: 12px; }

.sm-box { stroke-width: 1.5; }
.sm-final { fill: none; stroke: #374151; stroke-width: 1; }
.sm-current .sm-box { stroke-width: 4.5; filter: drop-shadow(0 0 4px #2563eb); }
.sm-name { font-size: 14px; font-weight: bold; }
.sm-kind { font-family: "DejaVu Sans Mono", monospace; fill: #374151; }
.sm-arrow { fill: none; stroke: #6b7280; stroke-width: 1.5; }
.sm-headshape { fill: #6b7280; }
.sm-taken .sm-arrow { stroke: #2563eb; stroke-width: 3.5; }
.sm-taken .sm-kind { fill: #1d4ed8; font-weight: bold; }
.sm-start { fill: #111827; }
"""

SCRIPT = """
(function () {
  var panel = document.getElementById('details');
  function attr(e, name) { return e.getAttribute(name); }
  function select(seq) {
    var ev = document.querySelector('.ev[data-seq="' + seq + '"]');
    var row = document.getElementById('event-' + seq);
    if (!ev || !row) return;
    document.querySelectorAll('.ev.selected').forEach(function (e) {
      e.classList.remove('selected');
    });
    ev.classList.add('selected');
    panel.querySelector('.d-title').textContent = attr(row, 'data-title');
    panel.querySelector('.d-note').textContent = 'status after it: ' + attr(ev, 'data-status')
      + ' (the state machine below shows the arrow it took)';
    panel.querySelector('pre').textContent = row.querySelector('pre').textContent;
    document.querySelectorAll('.sm-state').forEach(function (s) {
      s.classList.toggle('sm-current', attr(s, 'data-status') === attr(ev, 'data-status'));
    });
    document.querySelectorAll('.sm-edge').forEach(function (e) {
      e.classList.toggle('sm-taken', attr(e, 'data-from') === attr(ev, 'data-before')
        && attr(e, 'data-kinds').split(' ').indexOf(attr(ev, 'data-kind')) >= 0);
    });
  }
  document.querySelectorAll('.ev').forEach(function (e) {
    e.addEventListener('click', function () { select(attr(e, 'data-seq')); });
    e.addEventListener('keydown', function (k) {
      if (k.key === 'Enter' || k.key === ' ') { k.preventDefault(); select(attr(e, 'data-seq')); }
    });
  });
})();
"""
