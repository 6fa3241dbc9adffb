"""``loom-ref demo [--crash-after N]``: crash, recovery and governed streaming, on screen.

Runs the scripted refund agent of :mod:`loom_ref.cli.demo_agent` against a file journal.
The run stops at an approval gate before the refund (a human approves, or with ``--deny``
declines), streams its answer through a PII guard, and, with ``--crash-after N``, dies after
the N-th journal event. A second "process" (a fresh runtime and fresh effects over the same
journal) then recovers, and the demo prints what each step of the way was served from the
journal and what ran again, and how often each effect really ran in total.
"""

from __future__ import annotations

import os
import sys
import tempfile
from typing import Any, TextIO

from loom_ref.cli.demo_agent import WORKFLOW, World, build_host, build_workflow
from loom_ref.cli.journal import render_timeline
from loom_ref.errors import InvalidArgument
from loom_ref.journal import Crash, FaultInjectingStore, FileStore, FsyncPolicy, Status
from loom_ref.kernel import ExecutionResult, Runtime

__all__ = ["register", "run_demo"]

REQUEST = "Please refund order A-42: it arrived broken."


def _free_id(store: FileStore) -> str:
    n = 1
    while store.exists(f"demo-{n}"):
        n += 1
    return f"demo-{n}"


class _Screen:
    """Prints the story; streamed text goes on one ``model>`` line."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.streaming = False

    def say(self, text: str) -> None:
        self.end_stream()
        print(text, file=self.out)

    def stream(self, text: str) -> None:
        if not self.streaming:
            self.out.write("    model> ")
            self.streaming = True
        self.out.write(text)
        self.out.flush()

    def end_stream(self) -> None:
        if self.streaming:
            self.out.write("\n")
            self.streaming = False


def _report(screen: _Screen, what: str, result: ExecutionResult) -> None:
    screen.say(f"  {what}: {result.status.value}")
    if result.served:
        screen.say(f"    served from the journal: {', '.join(result.served)}")
    if result.ran:
        screen.say(f"    ran: {', '.join(result.ran)}")
    if result.status is Status.SUSPENDED:
        screen.say(f"    waiting on gate {result.waiting_on}")
    if result.status is Status.IN_DOUBT:
        screen.say(f"    in doubt: {result.in_doubt_step}")
    if result.status is Status.FAILED:
        screen.say(f"    error: {result.error['code']}: {result.error['message']}")
        if result.error["code"] == "governance.delta-severed":
            screen.say("    the PII guard severed the stream before the delta that completed "
                       "the card number reached the screen;\n    the digits shown before it "
                       "are ADR 0119's stated limit (try --hold-back, an extension)")
    if result.status is Status.COMPLETED:
        screen.say(f"    answer: {result.output['text']}")


def run_demo(*, directory: str | None, crash_after: int | None, deny: bool, leak: bool,
             hold_back: bool, out: TextIO) -> int:
    """Run the demo; return 0 when the execution completed, 1 otherwise."""
    if crash_after is not None and crash_after < 1:
        raise InvalidArgument(f"--crash-after must be >= 1, got {crash_after}",
                              code="argument.crash-after")
    directory = directory or tempfile.mkdtemp(prefix="loom-demo-")
    os.makedirs(directory, exist_ok=True)
    store = FileStore(directory, fsync=FsyncPolicy.AT_BOUNDARIES)
    execution_id = _free_id(store)
    world = World()
    screen = _Screen(out)
    screen.say(f"loom-ref demo: a refund agent journaled to {store.path(execution_id)}")

    def runtime(process: int) -> Runtime:
        used: Any = store
        if process == 1 and crash_after is not None:
            used = FaultInjectingStore(store, crash_after=crash_after)
        host = build_host(world, on_text=screen.stream, leak=leak, hold_back=hold_back)
        return Runtime(store=used, effects=host, workflows=[build_workflow()],
                       on_warn=lambda message: screen.say(f"    warning: {message}"))

    process = 1
    screen.say("\nprocess 1")
    rt = runtime(process)
    result: ExecutionResult | None = None
    while True:
        try:
            if result is None:
                what = f"start {WORKFLOW} ({REQUEST!r})" if process == 1 else "recover"
                result = (rt.start(WORKFLOW, REQUEST, execution_id=execution_id)
                          if process == 1 else rt.recover(execution_id))
                _report(screen, what, result)
            if result.status is Status.IN_DOUBT:
                step = str(result.in_doubt_step)
                tool = rt.state(execution_id).frames[step].tool_id
                screen.say(f"  step {step} ({tool}) is in doubt: it started, but the journal "
                           f"holds no outcome, and {tool} is not idempotent, so nothing "
                           "re-runs it on its own")
                screen.say("  an operator checks with the payment provider that no refund was "
                           "made" if tool == "refund" else "  an operator accepts paying for "
                           "the model call again")
                screen.say("  and resolves the step by retrying it with the same idempotency "
                           "key")
                result = rt.resolve(execution_id, step, retry=True)
                _report(screen, "resolve (retry)", result)
                continue
            if result.status is not Status.SUSPENDED:
                break
            verdict: dict[str, object] = {"approved": not deny}
            if deny:
                verdict["reason"] = "refunds over 20 EUR need a manager"
            screen.say(f"  a human {'declines' if deny else 'approves'} the refund")
            result = rt.resume(execution_id, str(result.waiting_on), verdict)
            _report(screen, "resume", result)
        except Crash as crash:
            screen.say(f"  ** the process dies: a simulated crash after journal event "
                       f"{crash.after} **")
            process += 1
            screen.say(f"\nprocess {process} (fresh runtime, fresh effects, same journal)")
            rt = runtime(process)
            result = None
    screen.say("\njournal:")
    screen.say(render_timeline(list(store.read(execution_id).events)))
    runs = ", ".join(f"{name} x{count}" for name, count in sorted(world.runs.items()))
    screen.say(f"\neffects that really ran, over all processes: {runs}")
    screen.say(f"explore: loom-ref journal show {store.path(execution_id)} --at 5\n"
               f"         loom-ref replay {store.path(execution_id)}")
    return 0 if result.status is Status.COMPLETED else 1


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
    p.add_argument("--deny", action="store_true", help="the human declines the refund")
    p.add_argument("--leak", action="store_true",
                   help="the model tries to stream a card number: watch the guard sever it")
    p.add_argument("--hold-back", action="store_true",
                   help="extension: hold text back until it cannot start a match")
    p.set_defaults(func=lambda a: run_demo(
        directory=a.dir, crash_after=a.crash_after, deny=a.deny, leak=a.leak,
        hold_back=a.hold_back, out=sys.stdout))
