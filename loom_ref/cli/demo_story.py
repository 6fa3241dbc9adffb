"""The demo's story: process 1 starts the refund agent, may crash, and later processes recover.

Drives :mod:`loom_ref.cli.demo_agent` against one journal store, as a teacher would tell it:
a human approves (or declines) the refund at its gate, an operator resolves an in-doubt
step, and a simulated crash after the N-th journal event (``FaultInjectingStore``,
``journal.crash-model``) ends process 1 and hands over to process 2: a fresh runtime with
fresh effects over the same journal.

While it runs it records every process and every call it made to the runtime
(:class:`~loom_ref.cli.timeline.model.Process`, ``Call``): the journal events each call
appended, what it served from the journal and what it ran, and how often each effect really
ran in each process; and, on a :class:`~loom_ref.effects.DeltaRecorder` shared by every
process (``deltas.recorder``, an extension), every stream: what each effect wrote, what the
guards saw and what each sink received. The journal cannot hold these facts (a recovered
journal equals an uncrashed one, ``kernel.recover``; deltas are live-only, ADR 0119 #5); the
picture of ``loom-ref demo --html`` draws them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import attrs

from loom_ref.cli.demo_agent import (
    ORDER,
    PLAIN,
    WORKFLOW,
    Options,
    World,
    build_host,
    build_workflow,
)
from loom_ref.cli.timeline.model import Call, Process
from loom_ref.effects import DeltaRecorder, EffectDelta
from loom_ref.governance import unwrap_tainted
from loom_ref.journal import Crash, FaultInjectingStore, JournalNotFoundError, JournalStore, Status
from loom_ref.kernel import ExecutionResult, Runtime

__all__ = ["REQUEST", "TORN_BYTES", "Silent", "Story", "Teller", "run_story"]

REQUEST = "Please refund order A-42: it arrived broken."
#: How much of the crashing event's line a torn write leaves (every line is longer).
TORN_BYTES = 24


class Teller(Protocol):
    """Where the story is told: ``say`` a line; ``stream`` a delta the guard let through to
    ``who`` (``model``: the customer's chat, ``desk``: the support desk's ticket view);
    ``restart`` the view of ``who`` when a reset chunk for ``attempt`` arrives."""

    def say(self, text: str) -> None: ...

    def stream(self, who: str, text: str) -> None: ...

    def restart(self, who: str, attempt: int) -> None: ...


class Silent:
    """A teller that tells nothing: for runs whose story is read from the journal and the
    tape, not from the terminal (the crash matrix, the page's counts, tests)."""

    def say(self, text: str) -> None:
        pass

    def stream(self, who: str, text: str) -> None:
        pass

    def restart(self, who: str, attempt: int) -> None:
        pass


@attrs.define(kw_only=True)
class Story:
    """What a run of the story leaves: the final result, the record of its processes, and
    the tape of its streams (``deltas.recorder``)."""

    result: ExecutionResult | None = None
    processes: list[Process] = attrs.field(factory=list)
    tape: DeltaRecorder = attrs.field(factory=DeltaRecorder)


class _Recorder:
    """Records each call a process makes, and the effect runs of each process."""

    def __init__(self, store: JournalStore, execution_id: str, world: World) -> None:
        self.store = store
        self.execution_id = execution_id
        self.world = world
        self.processes: list[Process] = []
        self.calls: list[Call] = []
        self.number = 0
        self.runs_before: dict[str, int] = {}

    def length(self) -> int:
        try:
            return len(self.store.read(self.execution_id).events)
        except JournalNotFoundError:
            return 0

    def begin(self, number: int) -> None:
        self.number, self.calls, self.runs_before = number, [], dict(self.world.runs)

    def end(self, *, crashed: bool) -> None:
        effects = {name: n - self.runs_before.get(name, 0)
                   for name, n in self.world.runs.items() if n > self.runs_before.get(name, 0)}
        torn = None
        if crashed:
            try:
                torn = self.store.read(self.execution_id).torn
            except JournalNotFoundError:
                pass
        self.processes.append(Process(number=self.number, calls=tuple(self.calls),
                                      effects=effects, torn=torn,
                                      crashed_after=self.length() if crashed else None))

    def call(self, action: str, fn: Callable[..., ExecutionResult], *args: Any,
             **kwargs: Any) -> ExecutionResult:
        """``fn(*args, **kwargs)``, recorded as the call ``action``."""
        first = self.length() + 1
        try:
            result = fn(*args, **kwargs)
        except Crash:
            self.calls.append(Call(action=action, first_seq=first, last_seq=self.length(),
                                   outcome="crashed"))
            raise
        self.calls.append(Call(action=action, first_seq=first, last_seq=self.length(),
                               served=result.served, ran=result.ran,
                               outcome=result.status.value))
        return result


def _report(tell: Teller, what: str, result: ExecutionResult, *, hold_back: bool,
            streamed: Callable[[], int]) -> None:
    tell.say(f"  {what}: {result.status.value}")
    if result.served:
        tell.say(f"    served from the journal: {', '.join(result.served)}")
    if result.ran:
        tell.say(f"    ran: {', '.join(result.ran)}")
    if result.status is Status.SUSPENDED:
        tell.say(f"    waiting on gate {result.waiting_on}")
    if result.status is Status.IN_DOUBT:
        tell.say(f"    in doubt: {result.in_doubt_step}")
    if result.status is Status.FAILED:
        tell.say(f"    error: {result.error['code']}: {result.error['message']}")
        if result.error["code"] == "governance.delta-severed":
            tell.say(_severed(hold_back, streamed()))
    if result.status is Status.COMPLETED:
        tell.say(f"    answer: {result.output['text']}")


def _severed(hold_back: bool, streamed: int) -> str:
    """What the guard did to the leaking answer, in words that match the flags given."""
    if not hold_back:
        return ("    the PII guard severed the stream before the delta that completed the "
                "card number reached the screen;\n    the digits shown before it are ADR "
                "0119's stated limit (try --hold-back, an extension)")
    shown = ("none of the answer reached the screen" if streamed == 0 else
             f"only the {streamed} characters that could not begin a card number reached "
             "the screen")
    return ("    with --hold-back (an extension) the guard kept back every delta that could "
            f"begin a card number, so no digit\n    of it was shown: {shown}")


def run_story(store: JournalStore, execution_id: str, world: World, tell: Teller, *,
              crash_after: int | None, options: Options = PLAIN, torn: bool = False,
              on_warn: Callable[[str], None] | None = None,
              on_crash: Callable[[], None] | None = None) -> Story:
    """Run the story to its end. ``crash_after`` crashes process 1 after that many events;
    with ``torn`` the last of them is only partly written (a torn tail). ``on_crash`` is
    called when process 1 has died, before another process opens the journal."""
    recorder = _Recorder(store, execution_id, world)
    deny, hold_back = options.deny, options.hold_back
    streamed = [0]
    tape = DeltaRecorder(position=lambda: {"process": recorder.number,
                                           "journal": recorder.length()})

    def stream(text: str) -> None:
        streamed[0] += len(text)
        tell.stream("model", text)

    def desk(chunk: EffectDelta) -> None:  # the triage decision's per-call sink
        if chunk.reset:
            assert chunk.attempt is not None
            tell.restart("desk", chunk.attempt)
        elif not chunk.done:
            tell.stream("desk", unwrap_tainted(chunk.delta))

    def runtime(process: int) -> Runtime:
        used: Any = store
        if process == 1 and crash_after is not None:
            used = FaultInjectingStore(store, crash_after=crash_after,
                                       torn_bytes=TORN_BYTES if torn else 0)
        warn = on_warn or (lambda message: tell.say(f"    warning: {message}"))
        host = build_host(world, on_text=stream, options=options, recorder=tape, on_warn=warn)
        return Runtime(store=used, effects=host, workflows=[build_workflow(desk)], on_warn=warn)

    def report(what: str, result: ExecutionResult) -> None:
        _report(tell, what, result, hold_back=hold_back, streamed=lambda: streamed[0])

    process = 1
    tell.say("\nprocess 1")
    recorder.begin(process)
    rt = runtime(process)
    result: ExecutionResult | None = None
    while True:
        try:
            if result is None:
                if process == 1:
                    result = recorder.call("start", rt.start, WORKFLOW, REQUEST,
                                           execution_id=execution_id)
                    report(f"start {WORKFLOW} ({REQUEST!r})", result)
                elif recorder.length() == 0:  # the crash tore the first event: start over
                    result = recorder.call("start", rt.start, WORKFLOW, REQUEST,
                                           execution_id=execution_id)
                    report("start again (the journal holds no event)", result)
                else:
                    result = recorder.call("recover", rt.recover, execution_id)
                    report("recover", result)
            if result.status is Status.IN_DOUBT:
                step = str(result.in_doubt_step)
                tool = rt.state(execution_id).frames[step].tool_id
                tell.say(f"  step {step} ({tool}) is in doubt: it started, but the journal "
                         f"holds no outcome, and {tool} is not idempotent, so nothing "
                         "re-runs it on its own")
                made = world.refunds.get(ORDER) if tool == "refund" else None
                if made is not None:  # the refund ran; only its outcome's write was lost
                    tell.say(f"  an operator checks with the payment provider: the refund WAS "
                             f"made ({made['refund']}) before the crash")
                    tell.say("  and resolves the step by completing it with the provider's "
                             "record, so the customer is not refunded twice")
                    result = recorder.call("resolve (complete)", rt.resolve, execution_id,
                                           step, output=made)
                    report("resolve (complete)", result)
                    continue
                tell.say("  an operator checks with the payment provider that no refund was "
                         "made" if tool == "refund" else "  an operator accepts paying for "
                         "the model call again")
                tell.say("  and resolves the step by retrying it with the same idempotency "
                         "key")
                result = recorder.call("resolve (retry)", rt.resolve, execution_id, step,
                                       retry=True)
                report("resolve (retry)", result)
                continue
            if result.status is not Status.SUSPENDED:
                break
            verdict: dict[str, object] = {"approved": not deny}
            if deny:
                verdict["reason"] = "refunds over 20 EUR need a manager"
            tell.say(f"  a human {'declines' if deny else 'approves'} the refund")
            result = recorder.call("resume", rt.resume, execution_id, str(result.waiting_on),
                                   verdict)
            report("resume", result)
        except Crash as crash:
            recorder.end(crashed=True)
            if on_crash is not None:
                on_crash()
            if torn:
                tell.say(f"  ** the process dies while writing journal event {crash.after}: "
                         f"only {TORN_BYTES} bytes of its line (line {crash.after + 1}: line 1 "
                         "is the header) reached the file (a torn tail) **")
            else:
                tell.say(f"  ** the process dies: a simulated crash after journal event "
                         f"{crash.after} **")
            process += 1
            tell.say(f"\nprocess {process} (fresh runtime, fresh effects, same journal)")
            recorder.begin(process)
            rt = runtime(process)
            result = None
    recorder.end(crashed=False)
    return Story(result=result, processes=recorder.processes, tape=tape)
