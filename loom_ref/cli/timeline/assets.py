"""The HTML pages' style sheet, inline in every page (``html.py``, ``explorer.py``).

CSS on the classes that ``svg.py``, ``machine.py``, ``stream_html.py``, ``overview.py`` and
``explorer.py`` write. Colours always come with words or shapes: nothing in the pictures is
told by colour alone. The page's behaviour is in ``script.py``.
"""

from __future__ import annotations

__all__ = ["CSS"]

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
.muted { color: var(--muted); }
.tl-scroll { overflow: auto; max-height: max(340px, calc(100vh - 330px));
             border: 1px solid var(--line);
             border-radius: 8px; background: #fff; overscroll-behavior: contain; }
.tl-grid { display: grid; grid-template-columns: max-content max-content; width: max-content; }
.tl-grid svg { display: block; }
.tl-corner { position: sticky; top: 0; left: 0; z-index: 3; background: #fff;
             border-right: 1px solid var(--line); border-bottom: 1px solid var(--line); }
.tl-head { position: sticky; top: 0; z-index: 2; background: rgba(255, 255, 255, 0.96);
           border-bottom: 1px solid var(--line); }
.tl-gutter { position: sticky; left: 0; z-index: 1; background: #fff;
             border-right: 1px solid var(--line); }
.caption-line { color: var(--muted); font-size: 13px; margin: 4px 0 0; }
.toolbar { display: flex; flex-wrap: wrap; gap: 8px 22px; align-items: center;
           margin: 8px 0 4px; font-size: 14px; }
.toolbar button { font: inherit; padding: 1px 9px; margin: 0 1px; border: 1px solid #9ca3af;
                  border-radius: 5px; background: #f9fafb; cursor: pointer; }
.toolbar button:hover { background: #e0e7ff; }
.toolbar input { font: inherit; padding: 2px 6px; }
.toolbar output { color: var(--muted); margin-left: 6px; }
.overview { display: block; width: 100%; height: 26px; margin: 2px 0 6px; cursor: pointer;
            border: 1px solid var(--line); border-radius: 4px; }
.overview .ov-band { stroke: none; }
.ov-tick { fill: none; stroke-width: 2.5; vector-effect: non-scaling-stroke; }
.ov-crash, .ov-fail, .ov-corrupt, .ov-torn { stroke: #dc2626; }
.ov-doubt { stroke: #6d28d9; }
.ov-again { stroke: #c2410c; }
.ov-hit { stroke: #d97706; stroke-width: 3; }
.ov-view { fill: rgba(37, 99, 235, 0.12); stroke: #2563eb; stroke-width: 2;
           vector-effect: non-scaling-stroke; }
.inspector { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start;
             margin: 12px 0; }
#details { flex: 1 1 380px; border: 2px solid #2563eb; border-radius: 8px; padding: 8px 12px;
           background: #eff6ff; min-width: 300px; }
#details pre { max-height: 22em; overflow: auto; background: #fff; padding: 8px;
               margin: 6px 0 0; border: 1px solid var(--line); font-size: 13px;
               white-space: pre-wrap; }
#details pre:empty { display: none; }
#machine { flex: 2 1 560px; border: 1px solid var(--line); border-radius: 8px;
           padding: 2px 10px 4px; min-width: 420px; }
#machine h2 { margin: 4px 0 0; font-size: 15px; }
#machine p { margin: 0; font-size: 12.5px; }
.machine-fit svg { display: block; height: 250px; width: auto; max-width: 100%; }
#details .d-note b { white-space: nowrap; }
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
.sm-back .sm-arrow { stroke-dasharray: 7 4; }

.grp-box { fill: #eef2ff; stroke: #6366f1; stroke-width: 1.2; cursor: pointer; }
.grp-toggle { cursor: pointer; }
.grp-toggle:focus { outline: none; }
.grp-toggle:hover .grp-box, .grp-toggle:focus .grp-box { fill: #c7d2fe; }
.grp-mark { font-size: 13px; fill: #3730a3; }
.grp-name { font-size: 13px; font-weight: bold; fill: #1e1b4b; }
.grp-count { font-size: 11px; fill: #4338ca; }
.grp-row { fill: #eef2ff; }
.grp-title { font-size: 12.5px; font-weight: bold; fill: #312e81; }
.rows-bg { fill: #f5f3ff; }
.rows-name { font-size: 13px; font-weight: bold; fill: #3730a3; }
.rows-hint { font-size: 10.5px; fill: #4338ca; font-style: italic; }
.seg { cursor: pointer; }
.seg:focus { outline: none; }
.seg-box { fill: #e0e7ff; stroke: #6366f1; stroke-width: 1; }
.seg-alert { stroke: #b91c1c; stroke-width: 2; }
.seg:hover .seg-box, .seg:focus .seg-box { fill: #c7d2fe; }
.seg-open .seg-box { fill: #fff; stroke-width: 2.5; }
.seg-name { font-size: 11.5px; font-weight: bold; fill: #1e1b4b; }
.seg path { stroke-width: 1; }
.m-other { fill: #fff; stroke: #1d4ed8; }
.m-done { fill: #15803d; stroke: #15803d; }
.m-fail { fill: #b91c1c; stroke: #b91c1c; }
.m-doubt { fill: #6d28d9; stroke: #6d28d9; }
.m-gate { fill: #d97706; stroke: #b45309; }
.m-decision { fill: #0f766e; stroke: #0f766e; }
.ev.found .hit { fill: #fef3c7; stroke: #d97706; stroke-width: 2; }
.ev.found.selected .hit { fill: #bfdbfe; stroke: #2563eb; }
.corrupt-col { fill: #fde68a; stroke: #b91c1c; stroke-width: 2; stroke-dasharray: 2 3; }
.corrupt-text { font-size: 13px; font-weight: bold; fill: #991b1b; }
.corrupt-note { background: #fef3c7; }
.tick-box { fill: #fff; stroke: #9ca3af; stroke-width: 1; }
.stream-ticks:hover .tick-box { fill: #e0e7ff; stroke: #2563eb; }
.tick { stroke: none; }
.tick-delivered { fill: #15803d; }
.tick-held { fill: #9ca3af; }
.tick-severed, .tick-after-sever { fill: #dc2626; }
.tick-refused, .tick-late { fill: #6b7280; }
.tick-reset { fill: #d97706; }
.tick-done { fill: #1d4ed8; }

#streams { margin-top: 18px; }
.stream-call { border: 1px solid var(--line); border-radius: 8px; padding: 6px 12px 8px;
               margin: 10px 0; max-width: 100%; }
.stream-call h3 { font-size: 15px; margin: 4px 0 6px; }
.stream-call:target { border: 2px solid #2563eb; }
.stream-scroll { overflow-x: auto; }
table.stream { border-collapse: collapse; font-size: 13px; }
table.stream th, table.stream td { border: 1px solid #e5e7eb; padding: 3px 5px;
                                   vertical-align: top; text-align: left; }
table.stream th { background: #f9fafb; font-weight: normal; color: #374151;
                  white-space: nowrap; }
table.stream th.row-label { position: sticky; left: 0; z-index: 1; background: #f3f4f6;
                            font-weight: bold; min-width: 11em; }
table.stream th.row-label small { font-weight: normal; color: var(--muted); }
table.stream .col-reset, table.stream .col-terminal { background: #fffbeb; }
table.stream .col-settle { background: #f9fafb; }
.chip { display: inline-block; white-space: pre; font-family: "DejaVu Sans Mono", monospace;
        font-size: 12.5px; padding: 1px 4px; border: 1px solid #9ca3af; border-radius: 4px;
        background: #fff; margin: 1px 0; }
.chip-got { background: #dcfce7; border-color: #15803d; }
.chip-severed { background: #fee2e2; border-color: #dc2626; text-decoration: line-through;
                text-decoration-color: #dc2626; }
.chip-refused { background: #f3f4f6; border-color: #9ca3af; color: #6b7280;
                text-decoration: line-through; }
.chip-held { background: #f3f4f6; border-style: dashed; color: #374151; }
.chip-dropped { background: #fee2e2; border-style: dashed; text-decoration: line-through; }
.chip-reset { background: #fef3c7; border-color: #d97706; font-family: inherit; }
.chip-done { background: #dbeafe; border-color: #1d4ed8; font-family: inherit; }
.chip-end { background: #f9fafb; font-family: inherit; }
.cell-note { font-size: 11.5px; color: var(--muted); white-space: nowrap; }
.col-reset .cell-note { white-space: normal; display: block; max-width: 11em; }
.window { font-family: "DejaVu Sans Mono", monospace; font-size: 12px; white-space: pre; }
.window b { background: #e0e7ff; font-weight: normal; }
.verdict { display: block; font-size: 11.5px; font-weight: bold; }
.verdict-ok { color: #15803d; }
.verdict-severed { color: #dc2626; }
.outcome { font-weight: bold; white-space: nowrap; }
.outcome-ok { color: #15803d; }
.outcome-failed { color: #b91c1c; }
.why { border-left: 4px solid #9ca3af; background: #f9fafb; padding: 6px 10px; margin: 8px 0;
       max-width: 72em; }
.why-sever { border-color: #dc2626; background: #fef2f2; }
.why-reset { border-color: #d97706; background: #fffbeb; }
.why-refused { border-color: #6b7280; }
.window-full { font-family: "DejaVu Sans Mono", monospace; font-size: 14px; margin: 6px 0;
               padding: 4px 8px; background: #fff; border: 1px solid var(--line);
               white-space: pre-wrap; }
.window-full mark { background: #fecaca; color: #7f1d1d; font-weight: bold; }
ul.reached { margin: 6px 0; }
.served-note { color: #047857; }
"""
