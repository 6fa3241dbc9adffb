"""``loom-ref demo [--crash-after N [--torn]] [--html OUT]``: crash, recovery, governed streams.

Runs the scripted refund agent of :mod:`loom_ref.cli.demo_agent` against a file journal
(the story is :mod:`loom_ref.cli.demo_story`). The run stops at an approval gate before the
refund (a human approves, or with ``--deny`` declines), streams its answer through a PII
guard, and, with ``--crash-after N``, dies after the N-th journal event (with ``--torn``, while
writing it: its line is cut short, a torn tail). A second "process"
(a fresh runtime and fresh effects over the same journal) then recovers, and the demo prints
what each step of the way was served from the journal and what ran again, and how often each
effect really ran in total. ``--html OUT`` also writes the whole story as one page: the
timeline with the crash, the recovery, what was served and what ran again, and the counts of
effect calls before and after the crash.

``N`` must name an event the run writes: the demo counts them first (a silent run over an
in-memory journal; the agent is deterministic), and refuses a crash point past the end.
"""

from __future__ import annotations

import sys
import tempfile
from typing import Any, TextIO

from loom_ref.cli.demo_agent import PLAIN, Options, World
from loom_ref.cli.demo_matrix import cost, run_cut
from loom_ref.cli.demo_story import Silent, run_story
from loom_ref.cli.explorer import run_explorer
from loom_ref.cli.inputs import check_output_dir, check_output_file, open_output
from loom_ref.cli.timeline.html import render_html
from loom_ref.cli.timeline.model import build_timeline
from loom_ref.cli.timeline.text import render_timeline
from loom_ref.errors import InvalidArgument
from loom_ref.journal import FileStore, FsyncPolicy, MemoryStore, Status

__all__ = ["count_events", "register", "run_demo"]


def _free_id(store: FileStore) -> str:
    n = 1
    while store.exists(f"demo-{n}"):
        n += 1
    return f"demo-{n}"


class _Screen:
    """Prints the story; streamed text goes on one ``model>`` (the customer's chat) or
    ``desk>`` (the support desk's ticket view) line.

    A reader that goes away (``loom-ref demo | head``) must not turn into a warning: the
    delta sink cannot raise (ADR 0119 #6: the runtime swallows and reports a sink's throw),
    so a broken pipe met while streaming is remembered, and raised at the next line the
    demo says, outside the sink, where ``loom-ref`` ends quietly.
    """

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.streaming: str | None = None
        self.broken = False

    def say(self, text: str) -> None:
        if self.broken:
            raise BrokenPipeError("the reader of the demo went away")
        self.end_stream()
        print(text, file=self.out)

    def stream(self, who: str, text: str) -> None:
        if self.broken:
            return
        try:
            if self.streaming != who:
                self.end_stream()
                self.out.write(f"    {who}> ")
                self.streaming = who
            self.out.write(text)
            self.out.flush()
        except BrokenPipeError:
            self.broken = True

    def restart(self, who: str, attempt: int) -> None:
        if self.broken:
            return
        try:
            self.end_stream()
            self.out.write(f"    (the connection dropped; a reset for attempt {attempt} clears "
                           f"the {who}'s view)\n")
        except BrokenPipeError:
            self.broken = True

    def end_stream(self) -> None:
        if self.streaming:
            self.streaming = None
            self.out.write("\n")


def count_events(options: Options = PLAIN) -> int:
    """How many journal events an uncrashed demo with these options writes."""
    store = MemoryStore()
    run_story(store, "count", World(), Silent(), crash_after=None, options=options,
              on_warn=lambda message: None)
    return len(store.read("count").events)


#: What each sink of the demo is, for the page (``stream_html.SinkNames``).
SINK_NAMES = {("triage", "per-call"): "the support desk's ticket view",
              ("triage", "configured"): "the operations log",
              ("model", "configured"): "the customer's chat"}


def demo_title(options: Options, *, crash_after: int | None, torn: bool) -> str:
    """The heading of a demo page."""
    crashed = ("" if crash_after is None else
               f", crashed while writing journal event {crash_after}" if torn else
               f", crashed after journal event {crash_after}")
    flags = " ".join(options.flags())
    return f"loom-ref demo: a refund agent{crashed}" + (f" ({flags})" if flags else "")


INTRO = ("A scripted refund agent (no network). First a <b>triage</b> decision: a decider "
         "streams a note for the support desk from a governed model call (ADR 0119's subject: "
         "a per-call sink for the desk's ticket view, and the triage model's configured sink, "
         "the operations log); its connection drops once and the call is retried. Then the "
         "agent loop: a model, a read-only <code>lookup_order</code> tool, and a "
         "<code>refund</code> that waits for a human's approval at a gate; the answer is "
         "streamed to the customer's chat through a PII guard. Every step and decision is "
         "journaled, so after a crash a fresh process serves what is done from the journal and "
         "runs only what is not.")


def demo_page(timeline: Any, options: Options, *, crash_after: int | None, torn: bool) -> str:
    """The demo's page for ``timeline`` (built with its processes and its tape)."""
    intro = [INTRO]
    if options.leak:
        intro.append("<b>--leak</b>: the model tries to write a card number into the answer; "
                     "see where the guard cut the stream, and what reached the customer.")
    if options.redact:
        intro.append("<b>--redact</b>: a redaction middleware masks card numbers in the "
                     "output, but has no delta form, so the runtime refuses to stream at all "
                     "(fail-closed).")
    return render_html(timeline, title=demo_title(options, crash_after=crash_after, torn=torn),
                       intro=intro, sink_names=SINK_NAMES)


def explore(*, html: str | None, options: Options, out: TextIO) -> int:
    """``demo --explore --html OUT``: crash the story at every cut (and torn at each), by the
    crash matrix the tests run, and write the crash explorer's page; 0 when every cut ended
    as the uncrashed run did."""
    if html is None:
        raise InvalidArgument("--explore writes a page: give --html OUT too",
                              code="argument.explore")
    check_output_file(html)
    page, cuts = run_explorer(options)
    base = count_events(options)
    print(f"loom-ref demo --explore: the story crashed after each of its {base} journal "
          "events, and torn while writing each; a fresh process recovered every time", file=out)
    print("cut  crash: what it cost                      torn: what it cost", file=out)
    baseline = run_cut(options)
    for plain, torn in zip(cuts["crash"], cuts["torn"], strict=True):
        words = [", ".join([f"{name} {n:+d}" for name, n in cost(c, baseline).items()]
                           + ["an in-doubt step" for _ in c.in_doubt()]) or "nothing"
                 for c in (plain, torn)]
        print(f"{plain.after:>3}  {words[0]:<40} {words[1]}", file=out)
    with open_output(html) as f:
        f.write(page)
    print(f"wrote the crash explorer: {html} (open it in a browser)", file=out)
    ended = {c.status for group in cuts.values() for c in group}
    return 0 if ended == {baseline.status} else 1


def run_demo(*, directory: str | None, crash_after: int | None, out: TextIO,
             options: Options = PLAIN, html: str | None = None, torn: bool = False
             ) -> int:
    """Run the demo; return 0 when the execution completed, 1 otherwise."""
    if torn and crash_after is None:
        raise InvalidArgument("--torn tears the write of the --crash-after event: give "
                              "--crash-after N too", code="argument.torn")
    if crash_after is not None:
        if crash_after < 1:
            raise InvalidArgument(f"--crash-after must be >= 1, got {crash_after}",
                                  code="argument.crash-after")
        total = count_events(options)
        if crash_after > total:
            flags = " ".join(options.flags())
            raise InvalidArgument(
                f"--crash-after {crash_after} would never crash: the demo"
                + (f" with {flags}" if flags else "") + f" writes {total} journal events; "
                f"choose 1 to {total}", code="argument.crash-after")
    if html is not None:
        check_output_file(html)  # before anything runs
    directory = check_output_dir(directory) if directory else tempfile.mkdtemp(
        prefix="loom-demo-")
    store = FileStore(directory, fsync=FsyncPolicy.AT_BOUNDARIES)
    execution_id = _free_id(store)
    world = World()
    screen = _Screen(out)
    path = store.path(execution_id)
    screen.say(f"loom-ref demo: a refund agent journaled to {path}")
    story = run_story(store, execution_id, world, screen, crash_after=crash_after,
                      options=options, torn=torn)
    parsed = store.read(execution_id)
    screen.say("\njournal:")
    screen.say(render_timeline(list(parsed.events)))
    runs = ", ".join(f"{name} x{count}" for name, count in sorted(world.runs.items()))
    screen.say(f"\neffects that really ran, over all processes: {runs}")
    if html is not None:
        timeline = build_timeline(parsed.events, source=path, torn=parsed.torn,
                                  processes=story.processes, tape=story.tape.to_json())
        with open_output(html) as f:
            f.write(demo_page(timeline, options, crash_after=crash_after, torn=torn))
        screen.say(f"wrote the story as one page: {html} (open it in a browser)")
    screen.say(f"explore: loom-ref journal show {path} --at 5\n"
               f"         loom-ref journal show {path} --format html --out timeline.html\n"
               f"         loom-ref replay {path}")
    assert story.result is not None
    return 0 if story.result.status is Status.COMPLETED else 1


def register(subparsers: Any) -> None:
    """Add ``loom-ref demo``."""
    p = subparsers.add_parser(
        "demo", help="crash and recover a scripted agent (no network)",
        description="Run a scripted refund agent (no network) with a tool that needs "
                    "approval and a streamed answer; crash it where told, recover, and show "
                    "what was served from the journal and what ran again.")
    p.add_argument("--crash-after", type=int, default=None, metavar="N",
                   help="simulate a crash after the N-th journal event")
    p.add_argument("--dir", default=None, metavar="DIR",
                   help="where to write the journal (default: a new temporary directory)")
    p.add_argument("--torn", action="store_true",
                   help="the crash tears the N-th event's line: a torn tail, not written")
    p.add_argument("--html", default=None, metavar="OUT",
                   help="also write the whole story as one HTML page to OUT")
    p.add_argument("--explore", action="store_true",
                   help="crash the story at every point (and torn at each) and write the "
                        "crash explorer, one page with a slider over every cut, to --html OUT")
    p.add_argument("--deny", action="store_true", help="the human declines the refund")
    p.add_argument("--leak", action="store_true",
                   help="the model tries to stream a card number: watch the guard sever it")
    p.add_argument("--hold-back", action="store_true",
                   help="extension: hold text back until it cannot start a match")
    p.add_argument("--redact", action="store_true",
                   help="add a redaction middleware with no delta form: the runtime refuses "
                        "to stream (fail-closed)")
    p.set_defaults(func=_main)


def _main(a: Any) -> int:
    options = Options(deny=a.deny, leak=a.leak, hold_back=a.hold_back, redact=a.redact)
    if a.explore:
        if a.crash_after is not None or a.torn or a.dir is not None:
            raise InvalidArgument("--explore runs every crash point in memory: it takes no "
                                  "--crash-after, --torn or --dir", code="argument.explore")
        return explore(html=a.html, options=options, out=sys.stdout)
    return run_demo(directory=a.dir, crash_after=a.crash_after, out=sys.stdout, html=a.html,
                    torn=a.torn, options=options)

