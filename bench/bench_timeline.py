"""How fast a long execution's timeline page opens and answers in headless Chromium.

Prints (never asserts), for an agent journal of about 1,000 and of about 10,000 events
(``tests/cli/long_journal.py``: a turn is a model step and a tool step, every seventh tool
behind an approval gate, compaction steps, one failed tool) and, as the baseline measured in
the same run, the demo's 17-event page:

- the journal's events and bytes, the time ``journal show --format html`` takes to write the
  page, and the page's bytes;
- in headless Chromium (``tests/browser.py``), best of the rounds: the page's load
  (navigation start to the load event's end: parsing, layout and the page's script), as
  milliseconds and as a ratio to the demo page's;
- what answering a reader takes inside the page, timed by the page itself
  (``performance.now()`` around each call): opening a closed group (drawn from the page's
  data), a search by kind over every event, stepping to a hit, zoom to fit;
- the DOM's size after load.

Targets (issue 33): the 1,000-event page loads in under 2 s and stays navigable; the
10,000-event page still opens. The machines these run on are shared: the load average is
printed beside the figures, and the ratio to the demo page is the figure to compare.

Run from the checkout: ``python bench/bench_timeline.py`` (about a minute; needs Chromium).
``--events 1000,10000`` picks the sizes, ``--rounds 3`` the rounds.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from loom_ref.cli.demo import run_demo  # noqa: E402
from loom_ref.cli.main import main as loom_ref  # noqa: E402
from tests.browser import Browser, find_chromium  # noqa: E402
from tests.cli.long_journal import long_agent_journal  # noqa: E402

LOAD = ("(() => { const t = performance.timing; return [t.loadEventEnd - t.navigationStart, "
        "t.domInteractive - t.navigationStart, document.getElementsByTagName('*').length]; "
        "})()")
ACTIONS = """(() => {
  const api = window.loomTimeline, out = {};
  let t = performance.now();
  const seg = document.querySelector('.seg:not(.seg-open)');
  if (seg) { seg.dispatchEvent(new MouseEvent('click')); out.open = performance.now() - t; }
  const box = document.getElementById('search');
  box.value = 'STEP_COMPLETED';
  t = performance.now(); api.search(); out.search = performance.now() - t;
  t = performance.now(); api.go(1); out.step = performance.now() - t;
  t = performance.now();
  document.querySelector('[data-zoom="fit"]').click(); out.fit = performance.now() - t;
  out.nodes = document.getElementsByTagName('*').length;
  return out;
})()"""


def page_for(journal: Path, where: Path) -> tuple[Path, float]:
    page = where / f"{journal.parent.name}.html"
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        loom_ref(["journal", "show", str(journal), "--format", "html", "--out", str(page)])
    return page, time.perf_counter() - t0


def measure(browser: Browser, page: Path, rounds: int) -> dict[str, float]:
    best: dict[str, float] = {}
    for _ in range(rounds):
        tab = browser.open(page.as_uri())
        load, interactive, nodes = tab.evaluate(LOAD)
        acted = tab.evaluate(ACTIONS) if tab.evaluate("!!window.loomTimeline") else {}
        tab.close()
        figures = {"load": load, "interactive": interactive, "nodes": nodes,
                   **{k: float(v) for k, v in acted.items() if k != "nodes"}}
        for key, value in figures.items():
            best[key] = min(best.get(key, value), value)
    return best


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", default="1000,10000")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    if find_chromium() is None:
        print("no Chromium (/usr/bin/chromium or $LOOM_REF_CHROMIUM): nothing measured")
        return 1
    where = Path(tempfile.mkdtemp(prefix="loom-bench-timeline-"))
    print("(fsync policy: never -- the journals are written once, then only read)")
    print(f"load average at the start: {' '.join(f'{x:.1f}' for x in os.getloadavg())} "
          f"on {os.cpu_count()} cores")
    demo_dir = where / "demo"
    demo_dir.mkdir()
    run_demo(directory=str(demo_dir), crash_after=None, out=io.StringIO())
    pages = [("demo (baseline)", demo_dir / "demo-1.jsonl")]
    for n in (int(x) for x in args.events.split(",")):
        target = where / f"long-{n}"
        target.mkdir()
        pages.append((f"agent, {n:,} events", long_agent_journal(target, n)))
    with Browser(width=1400, height=900, timeout=120) as browser:
        rows = []
        for name, journal in pages:
            events = sum(1 for _ in journal.open("rb")) - 1
            page, written = page_for(journal, where)
            rows.append((name, events, journal.stat().st_size, written, page.stat().st_size,
                         measure(browser, page, args.rounds)))
    base = rows[0][5]["load"]
    print(f"{'page':<22}{'events':>8}{'journal':>10}{'write':>8}{'page':>10}{'load':>9}"
          f"{'x demo':>8}{'DOM':>8}  in the page (ms): open group, search, step, fit")
    for name, events, jbytes, written, pbytes, m in rows:
        inside = ", ".join(f"{m[k]:.0f}" if k in m else "-" for k in ("open", "search", "step",
                                                                      "fit"))
        print(f"{name:<22}{events:>8}{jbytes / 1e6:>9.2f}M{written:>7.2f}s"
              f"{pbytes / 1e6:>9.2f}M{m['load']:>7.0f}ms{m['load'] / base:>7.1f}x"
              f"{m['nodes']:>8.0f}  {inside}")
    print(f"load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    verdict = next((m["load"] for name, e, *_, m in rows if 1000 <= e < 2000), None)
    if verdict is not None:
        print(f"target (issue 33): the 1,000-event page loads in under 2000 ms: "
              f"{verdict:.0f} ms, {'met' if verdict < 2000 else 'NOT met'} in this run")
    print(json.dumps({name: m for name, *_, m in rows}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
