"""``loom-ref conformance report A.json [B.json ...] --html OUT``: one page, rules against
implementations.

Rules (``conformance/INTERPRETING.md`` section 9):

- The page is one self-contained HTML file: inline CSS and a few lines of inline script, no
  network, no framework; it works opened from ``file://``, and without script every cell
  still opens (``<details>``).
- One column per report (implementation name, version, language, the suite version it ran),
  with its verdict per tier and its totals; one row per spec rule that some report's cases
  pin, grouped by spec chapter: the anchor, the tier, the rule's own words.
- A cell sums the cases (and generated variants) of that rule in that report: ``fail`` when
  any failed or errored, else ``partial`` when some passed and some were skipped, else
  ``pass`` when any passed, else ``skip``; ``none`` when the report has no case of the rule.
  A failing cell opens to each failing case: its id, what went wrong, every mismatch's
  expected and actual value as JSON, and the case as sent.
- Each rule shows its provenance (section 9a) and each column both profiles' verdicts; a
  filter shows the core profile's rules only. Columns whose implementation name and version
  collide are told apart by their report's file name.
- The interop line, in the manner of web-platform-tests' Interop score: of the cases every
  report ran or skipped (base cases, by id), how many pass in every implementation shown, for
  the whole suite and for the core profile.
- Everything an implementation sent back is escaped; nothing in a report is trusted as HTML.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from typing import Any

from loom_ref.conformance.case import utf8_json
from loom_ref.errors import ConformanceError

__all__ = ["render_html"]

_TIER_ORDER = {"must": 0, "should": 1, "may": 2}
_MAX_FAILURES_PER_CELL = 20

_CSS = """
:root { --pass: #1a7f37; --fail: #cf222e; --skip: #8c959f; --ink: #1f2328; --line: #d0d7de; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink);
       margin: 0; padding: 24px 32px; background: #f6f8fa; }
h1 { font-size: 24px; margin: 0 0 4px; } h2 { font-size: 18px; margin: 28px 0 8px; }
.sub { color: #57606a; margin: 0 0 20px; }
.impls { display: flex; flex-wrap: wrap; gap: 12px; margin-bottom: 16px; }
.impl { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px;
        min-width: 260px; }
.impl h3 { margin: 0 0 6px; font-size: 16px; }
.impl .meta { color: #57606a; font-size: 13px; }
.badge { display: inline-block; border-radius: 12px; padding: 1px 9px; font-size: 12px;
         font-weight: 600; color: #fff; margin: 2px 4px 2px 0; }
.conforms, .pass { background: var(--pass); } .fails, .fail { background: var(--fail); }
.untested, .skip, .none { background: var(--skip); } .partial { background: #9a6700; }
.prov { display: inline-block; border: 1px solid var(--line); border-radius: 10px;
        padding: 0 7px; font-size: 11px; color: #57606a; margin-left: 4px; }
.prov.core { border-color: #0969da; color: #0969da; }
.interop { background: #fff; border: 1px solid var(--line); border-radius: 8px;
           padding: 10px 16px; margin-bottom: 12px; }
.tier-must { background: #0969da; } .tier-should { background: #6e40c9; }
.tier-may { background: #8c959f; }
.open-hint { color: var(--fail); font-size: 12px; margin-left: 6px; text-decoration: underline; }
details[open] .open-hint { display: none; }
.tools { margin: 8px 0 12px; display: flex; gap: 16px; align-items: center; }
.tools input[type=search] { padding: 5px 8px; width: 320px; border: 1px solid var(--line);
                            border-radius: 6px; font-size: 14px; }
table { border-collapse: collapse; width: 100%; background: #fff; table-layout: fixed; }
col.rule-col { width: 44%; }
th, td { border: 1px solid var(--line); padding: 6px 8px; vertical-align: top; text-align: left; }
th { background: #eaeef2; position: sticky; top: 0; z-index: 1; }
tr.chapter td { background: #eaeef2; font-weight: 600; }
td.rule code { font-size: 13px; font-weight: 600; }
td.rule .words { color: #424a53; font-size: 13px; display: -webkit-box; overflow: hidden;
                 -webkit-box-orient: vertical; -webkit-line-clamp: 2; cursor: pointer; }
td.rule .words.whole { display: block; }
td.rule .hint { color: #8c959f; font-size: 11px; }
details.cell > summary { cursor: pointer; list-style: none; }
details.cell > summary::-webkit-details-marker { display: none; }
.status { display: inline-block; min-width: 52px; text-align: center; border-radius: 4px;
          color: #fff; font-weight: 700; font-size: 12px; padding: 2px 6px; }
.counts { color: #57606a; font-size: 12px; margin-left: 6px; }
.failure { margin-top: 8px; padding: 8px; background: #fff8f8; border: 1px solid #ffcecb;
           border-radius: 6px; font-size: 13px; }
.failure .id { font-weight: 600; word-break: break-all; }
.mismatch { margin: 6px 0; } .mismatch .path { font-family: ui-monospace, monospace; }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: 8px; }
.pair div > b { display: block; font-size: 12px; color: #57606a; }
pre { margin: 2px 0; padding: 6px; background: #f6f8fa; border: 1px solid var(--line);
      border-radius: 4px; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 260px;
      overflow: auto; font-size: 12px; }
.expected pre { border-color: #8dd69d; } .actual pre { border-color: #ff9a9a; }
.problems { color: var(--fail); font-size: 13px; }
"""

_SCRIPT = """
const q = document.getElementById('filter'), only = document.getElementById('only-failing');
const core = document.getElementById('only-core');
function apply() {
  const text = q.value.toLowerCase();
  let chapter = null, shown = 0;
  const close = () => { if (chapter) chapter.hidden = shown === 0; };
  for (const row of document.querySelectorAll('tr.rule-row, tr.chapter')) {
    if (row.classList.contains('chapter')) { close(); chapter = row; shown = 0; continue; }
    const hit = !text || row.dataset.search.includes(text);
    const failing = row.dataset.failing === 'true';
    const outside = core.checked && row.dataset.core !== 'true';
    row.hidden = !hit || (only.checked && !failing) || outside;
    if (!row.hidden) shown++;
  }
  close();
}
q.addEventListener('input', apply); only.addEventListener('change', apply);
core.addEventListener('change', apply);
for (const w of document.querySelectorAll('td.rule .words')) {
  w.title = 'click to show the whole rule';
  w.addEventListener('click', () => w.classList.toggle('whole'));
}
"""


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _json(value: Any) -> str:
    return _e(utf8_json(json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)))


def _check(report: Any, name: str) -> Mapping[str, Any]:
    needed = ("suite", "implementation", "verdict", "totals", "rules", "cases")
    if not isinstance(report, Mapping) or any(k not in report for k in needed):
        raise ConformanceError(f"{name}: not a report of loom-ref conformance --json "
                               f"(it needs {', '.join(needed)})", code="conformance.bad-report")
    return report


def _cell_status(results: Sequence[Mapping[str, Any]]) -> str:
    statuses = {r.get("status") for r in results}
    if statuses & {"fail", "error"}:
        return "fail"
    if "pass" in statuses:
        return "partial" if "skip" in statuses else "pass"
    return "skip" if results else "none"


def _failure(r: Mapping[str, Any]) -> str:
    parts = [f'<div class="failure"><div class="id">{_e(r.get("status", "").upper())} '
             f'{_e(r.get("id"))}</div>']
    if r.get("description"):
        parts.append(f'<div>{_e(r["description"])}</div>')
    if r.get("message"):
        parts.append(f'<div><i>{_e(r["message"])}</i></div>')
    for m in r.get("mismatches", ()):
        expected = _json(m["expected"]) if "expected" in m else "<i>absent</i>"
        actual = _json(m["actual"]) if "actual" in m else "<i>absent</i>"
        note = f' ({_e(m["note"])})' if m.get("note") else ""
        parts.append(
            f'<div class="mismatch"><span class="path">{_e(m.get("path") or "$")}</span>{note}'
            f'<div class="pair"><div class="expected"><b>expected</b><pre>{expected}</pre></div>'
            f'<div class="actual"><b>actual</b><pre>{actual}</pre></div></div></div>')
    for d in r.get("details", ()):
        parts.append(f"<pre>{_e(d)}</pre>")
    if "sent" in r:
        parts.append(f'<details><summary>the case as sent</summary><pre>{_json(r["sent"])}</pre>'
                     '</details>')
    parts.append("</div>")
    return "".join(parts)


def _cell(results: Sequence[Mapping[str, Any]]) -> str:
    status = _cell_status(results)
    counts = {s: sum(1 for r in results if r.get("status") == s)
              for s in ("pass", "fail", "error", "skip")}
    label = {"pass": "PASS", "partial": "PARTIAL", "fail": "FAIL", "skip": "SKIP",
             "none": "-"}[status]
    tally = (f'<span class="counts">{counts["pass"]} pass · {counts["fail"] + counts["error"]} '
             f'fail · {counts["skip"]} skip</span>' if results else "")
    head = f'<span class="status {status}">{label}</span>{tally}'
    if status != "fail":
        return f'<td class="cell" data-status="{status}">{head}</td>'
    bad = [r for r in results if r.get("status") in ("fail", "error")]
    body = "".join(_failure(r) for r in bad[:_MAX_FAILURES_PER_CELL])
    if len(bad) > _MAX_FAILURES_PER_CELL:
        body += f"<div>... and {len(bad) - _MAX_FAILURES_PER_CELL} more in the JSON report</div>"
    return (f'<td class="cell" data-status="fail"><details class="cell"><summary>{head}'
            f'<span class="open-hint">show what differs</span></summary>{body}</details></td>')


def _impl_card(report: Mapping[str, Any], name: str) -> str:
    impl = report["implementation"]
    lang = f" ({impl['language']})" if impl.get("language") else ""
    profiles = report.get("profiles") or {"loom-ref": {"verdict": report["verdict"]}}
    judged = report.get("profile")
    badges = "".join(
        f'<div class="meta">{_e(p)} profile{" (judged)" if p == judged else ""}: '
        + "".join(f'<span class="badge {_e(v)}">{_e(t.upper())} {_e(v)}</span>'
                  for t, v in body["verdict"].items()) + "</div>"
        for p, body in profiles.items())
    totals = report["totals"]
    line = " · ".join(f"{kind}: {c['pass']} pass, {c['fail']} fail, {c['skip']} skip, "
                      f"{c['error']} error" for kind, c in totals.items())
    problems = "".join(f"<div>problem: {_e(p)}</div>" for p in report.get("problems", ()))
    runner = report.get("runner", {})
    return (f'<div class="impl"><h3>{_e(impl.get("name", "?"))} {_e(impl.get("version", ""))}'
            f'{_e(lang)}</h3><div class="meta">suite {_e(report["suite"].get("version", "?"))}'
            f', runner {_e(runner.get("name", "loom-ref"))} {_e(runner.get("version", "?"))}, '
            f'file {_e(name)}</div>{badges}<div class="meta">{_e(line)}</div>'
            f'<div class="problems">{problems}</div></div>')


_CORE = frozenset({"seed", "upstream", "convention"})


def _column_labels(reports: Sequence[Mapping[str, Any]], names: Sequence[str]) -> list[str]:
    """Each column's heading: the implementation's name and version, and the report's file
    name too where two columns would otherwise read the same."""
    plain = [f"{r['implementation'].get('name', '?')} {r['implementation'].get('version', '')}"
             .strip() for r in reports]
    return [f"{label} ({name})" if plain.count(label) > 1 else label
            for label, name in zip(plain, names, strict=True)]


def _interop(reports: Sequence[Mapping[str, Any]]) -> str:
    """How many cases pass in every implementation shown (base cases, by id, among those every
    report holds), for the whole suite and for the core profile."""
    if len(reports) < 2:
        return ""
    statuses = [{c["id"]: c for c in r["cases"] if c.get("mode", "base") == "base"}
                for r in reports]
    shared = set.intersection(*(set(s) for s in statuses))
    every = {i for i in shared if all(s[i]["status"] == "pass" for s in statuses)}
    core = {i for i in shared if statuses[0][i].get("provenance") in _CORE}
    return (f'<div class="interop"><b>Interop</b>: {len(every)} of {len(shared)} cases pass in '
            f"all {len(reports)} implementations; core profile: {len(every & core)} of "
            f"{len(core)}. (A case counts when every report holds it; a skip is not a pass.)"
            "</div>")


def render_html(reports: Sequence[Any], *, names: Sequence[str] | None = None) -> str:
    """The page for ``reports`` (parsed JSON reports), named by ``names`` (their files)."""
    if not reports:
        raise ConformanceError("no report given", code="conformance.bad-report")
    names = list(names) if names is not None else [f"report {i + 1}" for i in range(len(reports))]
    checked = [_check(r, n) for r, n in zip(reports, names, strict=True)]
    rules: dict[str, Mapping[str, Any]] = {}
    tiers: dict[str, str] = {}
    by_rule: list[dict[str, list[Mapping[str, Any]]]] = []
    for report in checked:
        rules.update({a: w for a, w in report["rules"].items() if a not in rules})
        cells: dict[str, list[Mapping[str, Any]]] = {}
        for case in report["cases"]:
            cells.setdefault(case["anchor"], []).append(case)
            old = tiers.get(case["anchor"])
            if old is None or _TIER_ORDER.get(case["tier"], 3) < _TIER_ORDER.get(old, 3):
                tiers[case["anchor"]] = case["tier"]
        by_rule.append(cells)
    anchors = sorted(tiers, key=lambda a: (rules.get(a, {}).get("file", "~"), a))
    heads = "".join(f"<th>{_e(label)}</th>" for label in _column_labels(checked, names))
    rows: list[str] = []
    chapter = None
    for anchor in anchors:
        rule = rules.get(anchor, {})
        file = rule.get("file", "(no spec text in the report)")
        if file != chapter:
            chapter = file
            rows.append(f'<tr class="chapter"><td colspan="{1 + len(checked)}">{_e(file)}'
                        "</td></tr>")
        row_cells = [_cell(cells.get(anchor, [])) for cells in by_rule]
        failing = any('data-status="fail"' in c for c in row_cells)
        words = rule.get("words", "")
        provenance = rule.get("provenance") or "?"
        core = provenance in _CORE
        search = _e(f"{anchor} {provenance} {words}".lower())
        rows.append(
            f'<tr class="rule-row" data-anchor="{_e(anchor)}" data-failing="{str(failing).lower()}"'
            f' data-core="{str(core).lower()}" data-search="{search}"><td class="rule">'
            f'<code>{_e(anchor)}</code> <span class="badge tier-{_e(tiers[anchor])}">'
            f'{_e(tiers[anchor].upper())}</span><span class="prov{" core" if core else ""}" '
            f'title="where the rule comes from (INTERPRETING.md section 9a)">'
            f'{_e(provenance)}</span><div class="words">{_e(words)}</div></td>'
            f'{"".join(row_cells)}</tr>')
    cards = "".join(_impl_card(r, n) for r, n in zip(checked, names, strict=True))
    versions = sorted({str(r["suite"].get("version")) for r in checked})
    title = ", ".join(str(r["implementation"].get("name", "?")) for r in checked)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        f"<title>Loom conformance: {_e(title)}</title><style>{_CSS}</style></head><body>"
        "<h1>Loom conformance report</h1>"
        f'<p class="sub">suite {_e(", ".join(versions))} · {len(anchors)} spec rules · '
        f"{len(checked)} implementation(s). Each cell sums the cases pinning that rule; "
        "click a red cell to see what was expected and what came back.</p>"
        f'<div class="impls">{cards}</div>{_interop(checked)}'
        '<div class="tools"><input type="search" id="filter" placeholder="filter rules '
        '(anchor, provenance or words)"><label><input type="checkbox" id="only-failing"> only '
        'rules with failures</label><label><input type="checkbox" id="only-core"> only the '
        "core profile's rules (what Loom requires)</label></div>"
        f'<table><colgroup><col class="rule-col">{"<col>" * len(checked)}</colgroup>'
        f"<thead><tr><th>rule</th>{heads}</tr></thead><tbody>{''.join(rows)}</tbody>"
        f"</table><script>{_SCRIPT}</script></body></html>\n")
