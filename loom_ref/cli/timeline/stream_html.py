"""The streams of a run drawn for a class: one table per streamed call, delta by delta.

Each table is one call (:class:`~loom_ref.cli.timeline.streams.StreamCall`); time runs left to
right, one column per thing that happened (a delta the effect wrote, a reset, the held end
chunk, a flush, the terminal chunk, the settlement). Its rows: what the effect wrote; what
the guard checked (the running text ending in that delta, ADR 0119 #10); what hold-back
still held (an extension); and one row per sink with what it received at that moment (ADR
0119 #4, #12: per-call first, then configured). Under the table, in words: what each sink
shows in the end, why the stream was cut where it was (the window with the match marked, and
the seed's stated limit), a reset and why, a refusal and why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from loom_ref.cli.timeline.streams import SINKS, Moment, StreamCall, reconstruct
from loom_ref.cli.timeline.svgkit import esc

__all__ = ["SinkNames", "sink_name", "streams_section"]

#: ``{(tool id, "per-call" | "configured"): words}``: what each sink is, for the page.
SinkNames = Mapping[tuple[str, str], str]

LIMIT = ("ADR 0119 #10, limits stated plainly: “text before a match completes is delivered (a "
         "card number is severed at its last digit)”")
TAIL = 15  # characters of the running text shown in a cell


def sink_name(names: SinkNames, call: StreamCall, sink: str) -> str:
    """The words for ``sink`` of ``call``."""
    return names.get((call.tool_id, sink), f"the {sink} sink")


def _visible(text: str) -> str:
    """Text in a chip: spaces kept (the chip is ``white-space: pre``)."""
    return esc(text)


def _usage(usage: Mapping[str, Any] | None) -> str:
    if not usage:
        return "no usage reported"
    return f"usage {usage.get('inputTokens', '?')} in / {usage.get('outputTokens', '?')} out"


def _heading(m: Moment, i: int) -> str:
    return {"write": f"delta {i}", "reset": f"attempt {m.attempt} begins",
            "end": "end chunk", "flush": "flush", "terminal": "terminal chunk",
            "settle": "settled"}[m.kind]


def _wrote(m: Moment) -> str:
    if m.kind == "write":
        cls = {"severed": "chip chip-severed", "refused": "chip chip-refused",
               "late": "chip chip-refused", "after-sever": "chip chip-refused"}.get(
            m.verdict, "chip")
        note = {"severed": "severed: never delivered", "refused": "streaming refused",
                "late": "written after the call settled", "after-sever":
                "written after the sever"}.get(m.verdict, "")
        return (f'<span class="{cls}" title="{esc(note or "a text delta")}">{_visible(m.text)}'
                f"</span>" + (f'<div class="cell-note">{esc(note)}</div>' if note else ""))
    if m.kind == "end":
        kept = {"held": "held by the runtime", "refused": "dropped (refused)",
                "late": "late: dropped", "after-sever": "after the sever"}.get(m.verdict, "")
        return f'<span class="chip chip-end">end · {esc(_usage(m.usage))}</span>' \
               f'<div class="cell-note">{esc(kept)}</div>'
    if m.kind == "reset":
        return '<span class="cell-note">the connection dropped; the retry re-enters the ' \
               "effect</span>"
    if m.kind == "settle":
        if m.verdict == "succeeded":
            return '<span class="outcome outcome-ok">call succeeded</span>'
        code = (m.error or {}).get("code") or (m.error or {}).get("message", "")
        return f'<span class="outcome outcome-failed">call failed: {esc(code)}</span>'
    return ""


def _window(m: Moment) -> str:
    if m.kind != "write" or m.window is None:
        return ""
    window, text = m.window, m.text
    before = window[: len(window) - len(text)]
    shown = before[-(TAIL - min(len(text), TAIL)):] if len(before) + len(text) > TAIL else before
    cut = "…" if len(shown) < len(before) else ""
    size = f" (its window: the last {m.window_size} characters, then the delta)" \
        if m.window_size else ""
    title = f"the running text the guard checked{size}: {window}"
    mark = ('<span class="verdict verdict-severed">✗ match: sever</span>'
            if m.verdict == "severed" else '<span class="verdict verdict-ok">✓ passed</span>')
    return (f'<span class="window" title="{esc(title)}">{cut}{esc(shown)}'
            f"<b>{esc(text)}</b></span>{mark}")


def _held(m: Moment) -> str:
    if m.dropped:
        return f'<span class="chip chip-dropped" title="dropped with the sever, never ' \
               f'delivered">{_visible(m.dropped[-TAIL:])}</span>' \
               '<div class="cell-note">dropped with the sever</div>'
    if m.held:
        return f'<span class="chip chip-held" title="held back: received, not yet ' \
               f'released: {esc(m.held)}">{_visible(m.held[-TAIL:])}</span>' \
               f'<div class="cell-note">{len(m.held)} characters held</div>'
    return ""


def _received(m: Moment, sink: str) -> str:
    out = []
    for chunk in m.received.get(sink, []):
        if chunk.get("reset"):
            out.append(f'<span class="chip chip-reset" title="a reset chunk: clear the view">'
                       f"⟲ reset · attempt {chunk.get('attempt')}</span>")
        elif chunk.get("done"):
            out.append(f'<span class="chip chip-done" title="the terminal chunk">■ done · '
                       f"{esc(_usage(chunk.get('usage')))}</span>")
        else:
            out.append(f'<span class="chip chip-got">{_visible(str(chunk.get("delta")))}</span>')
    return "".join(out)


def _table(call: StreamCall, names: SinkNames) -> str:
    moments = call.moments
    n = 0
    heads = []
    for m in moments:
        n = 0 if m.kind == "reset" else n + (m.kind == "write")
        heads.append(f'<th class="col-{m.kind}">{esc(_heading(m, n))}</th>')
    rows = [f'<tr><th class="row-label">time →</th>{"".join(heads)}</tr>']

    def row(label: str, cells: Sequence[str], cls: str = "") -> None:
        tds = "".join(f'<td class="col-{m.kind}">{c}</td>' for m, c in zip(moments, cells,
                                                                             strict=True))
        rows.append(f'<tr class="{cls}"><th class="row-label">{label}</th>{tds}</tr>')

    row("the effect wrote", [_wrote(m) for m in moments], "r-wrote")
    if any(m.window is not None for m in moments):
        row("the guard checked<br><small>the running text, this delta last</small>",
            [_window(m) for m in moments], "r-window")
    if any(m.held or m.dropped for m in moments):
        row("held back<br><small>hold-back, an extension</small>",
            [_held(m) for m in moments], "r-held")
    for sink in SINKS:
        had = call.per_call if sink == "per-call" else call.configured
        label = f"{esc(sink)} sink:<br><small>{esc(sink_name(names, call, sink))}</small>"
        if not had:
            label = (f"{esc(sink)} sink:<br><small>none"
                     + (" (a durable step has none)" if call.mode == "durable" else "")
                     + "</small>")
        row(label, [_received(m, sink) for m in moments], f"r-sink r-{sink}")
    return f'<div class="stream-scroll"><table class="stream">{"".join(rows)}</table></div>'


def _where(call: StreamCall, lane: str | None) -> str:
    kind = ("a durable step" + (f" <code>{esc(call.step_id)}</code>" if call.step_id else "")
            if call.mode == "durable" else "a decider's transient call"
            + (f" (decision <code>{esc(lane.split(':', 1)[1])}</code>)"
               if lane and lane.startswith("decision:") else ""))
    when = ""
    if call.after is not None:
        when = (f", between journal events {call.after} and {call.after + 1}" if call.after
                else ", before the first journal event")
    process = f", process {call.process}" if call.process is not None else ""
    return f"<code>{esc(call.tool_id)}</code>, {kind}{process}{when}"


def _sever_words(call: StreamCall, names: SinkNames) -> str:
    m = call.sever
    if m is None:
        return ""
    details = (m.error or {}).get("details") or {}
    span = details.get("span")
    window = m.window or ""
    marked = esc(window)
    # the span counts from the attempt's first character; the window is the attempt's last
    # characters (all of them, until the text outgrows the guard's window)
    written = sum(len(w.text) for w in call.writes if w.attempt == m.attempt
                  and w.verdict != "after-sever" and call.moments.index(w)
                  <= call.moments.index(m))
    start = written - len(window)
    if isinstance(span, list) and len(span) == 2 and 0 <= span[0] - start <= span[1] - start \
            <= len(window):
        a, b = span[0] - start, span[1] - start
        marked = f"{esc(window[:a])}<mark>{esc(window[a:b])}</mark>{esc(window[b:])}"
    got = [reconstruct(call.received(s)) for s in SINKS]
    reached = max(got, key=len)
    rule = details.get("rule") or details.get("cause") or ""
    parts = [f'<div class="why why-sever"><strong>Why the stream was cut here.</strong> The '
             f"guard checks the running text before any sink sees a delta. The delta "
             f'<span class="chip chip-severed">{_visible(m.text)}</span> completed a match '
             f"of the PII rule <code>{esc(rule)}</code> in:"
             f'<div class="window-full">{marked}</div>']
    if m.dropped or not reached:
        parts.append("With <b>hold-back</b> (an extension, off by default) the text that could "
                     "begin a match was held, and dropped with the sever: "
                     + ("<b>no sink received any of it</b>." if not reached else
                        f"the sinks received only «{esc(reached)}», no digit of the match."))
    else:
        parts.append(f"So the delta was <b>never delivered</b>; but the text before it had "
                     f"been: the sinks show «{esc(reached)}». That is the seed's stated "
                     f"limit, {LIMIT}. <code>--hold-back</code> (an extension) closes it.")
    parts.append("</div>")
    return "".join(parts)


def _reset_words(call: StreamCall) -> str:
    resets = [m for m in call.moments if m.kind == "reset"
              and any(c.get("reset") for chunks in m.received.values() for c in chunks)]
    if not resets:
        return ""
    first = [m for m in call.writes if m.attempt == 1]
    return (f'<div class="why why-reset"><strong>A reset on retry.</strong> Attempt 1 '
            f"wrote {len(first)} delta(s), then failed ({esc(_failure(call))}); the retry "
            f"middleware re-entered the effect, and before attempt {resets[0].attempt} wrote "
            "anything the runtime sent each sink a reset chunk (ADR 0119 #11, “sent EAGERLY”), "
            "so each view was cleared and shows only what the last attempt wrote.</div>")


def _failure(call: StreamCall) -> str:
    return "the connection to the model dropped" if call.tool_id == "triage" else "it failed"


def _refused_words(call: StreamCall) -> str:
    if call.refused is None:
        return ""
    wrote = len(call.writes)
    return (f'<div class="why why-refused"><strong>Streaming refused (fail-closed).</strong> '
            f"The runtime warned <code>{esc(call.refused)}</code>: a middleware rewrites or "
            "rejects the output and has no delta form, so streamed text would bypass it; "
            "the runtime gave the call a silent channel (ADR 0119 #10, #12). The effect wrote "
            f"{wrote} delta(s); <b>neither sink received any</b>; the call completed "
            "non-streamed and its result went through the middleware whole.</div>")


def _summary(call: StreamCall, names: SinkNames) -> str:
    items = []
    for sink in SINKS:
        had = call.per_call if sink == "per-call" else call.configured
        if not had:
            continue
        chunks = call.received(sink)
        texts = sum(1 for c in chunks if not c.get("reset") and not c.get("done"))
        resets = sum(1 for c in chunks if c.get("reset"))
        done = next((c for c in chunks if c.get("done")), None)
        shown = reconstruct(chunks)
        extra = [f"{texts} text chunk(s)"] + ([f"{resets} reset(s)"] if resets else [])
        if done is not None:
            extra.append(f"the terminal chunk ({_usage(done.get('usage'))})")
        elif sink == "configured" and call.outcome == "succeeded" and call.streamed:
            extra.append("never the terminal chunk: it goes to the per-call sink only (ADR "
                         "0119 #12)")
        elif call.outcome == "failed":
            extra.append("no terminal chunk: the call failed (ADR 0119 #6)"
                         if sink == "per-call" else "then the call failed")
        items.append(f"<li><b>{esc(sink_name(names, call, sink))}</b> ({esc(sink)} sink) "
                     + (f"shows «{esc(shown)}»" if shown else "shows <b>nothing</b>")
                     + f": {esc(', '.join(extra))}.</li>")
    return f'<ul class="reached">{"".join(items)}</ul>' if items else ""


def streams_section(calls: Sequence[StreamCall], names: SinkNames,
                    lanes: Mapping[int, str | None], served: Mapping[int, str]) -> str:
    """The section: ``lanes`` maps a call to its timeline lane, ``served`` a call to words
    saying which later process was served its result from the journal."""
    shown = [c for c in calls if c.streamed]
    if not shown:
        return ""
    quiet = [c for c in calls if c not in shown and (c.per_call or c.configured)]
    parts = ['<section id="streams"><h2>The streams, delta by delta</h2>'
             "<p>Deltas are never journaled (ADR 0119 #5: “Deltas are never journaled and are "
             "not called on replay”), so the journal above cannot show them. The demo recorded "
             "each stream live, beside the journal (a delta recorder, an extension). In each "
             "table time runs left to right: one column per delta the effect wrote, then the "
             "end of the call. A guard checks every delta <b>before</b> any sink sees it; the "
             "per-call sink gets each chunk first, then the configured sink.</p>"]
    if quiet:
        words = ", ".join(f"<code>{esc(c.step_id or c.tool_id)}</code>" for c in quiet)
        refused = " (their streaming was refused too)" if any(c.refused for c in quiet) else ""
        parts.append(f"<p class=\"muted\">Calls that streamed no text (a model turn that "
                     f"asked for a tool){refused}: {words}.</p>")
    for number, call in enumerate(shown, start=1):
        outcome = "succeeded" if call.outcome == "succeeded" else "failed"
        title = (f"Stream {number}: {_where(call, lanes.get(call.number))} · "
                 f"{call.attempts} attempt(s) · {outcome}")
        parts.append(f'<article class="stream-call" id="stream-{call.number}">'
                     f"<h3>{title}</h3>{_table(call, names)}"
                     f"{_refused_words(call)}{_reset_words(call)}{_sever_words(call, names)}"
                     f"{_summary(call, names)}"
                     + (f'<p class="served-note">{served[call.number]}</p>'
                        if call.number in served else "")
                     + "</article>")
    parts.append("</section>")
    return "".join(parts)
