"""``loom-ref journal show FILE [--at SEQ]`` and ``loom-ref journal check FILE``.

Teaching and debugging views of one execution's journal file, or of one execution in a store
log (``--execution ID``; ``spec/journal.md`` 1.7):

- ``show`` prints a timeline (one line per event) and the folded state at the end, or at
  ``--at SEQ`` (``journal.fold``: folding any prefix gives the state at that point);
- ``check`` verifies checksums, the sequence, payload shapes and the transition table, and
  reports a torn tail (``journal.torn-tail``) or the first corrupt line
  (``journal.corrupt-line``) by number. Exit status: 0 clean, 1 torn tail, 2 corrupt.

Both read without taking the writer's lock. ``check`` of a store log without ``--execution``
checks every execution in it.
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from loom_ref.errors import InvalidArgument, JournalError
from loom_ref.journal.events import Event, EventKind
from loom_ref.journal.fold import ExecutionState, fold
from loom_ref.journal.logstore import ParsedLog, read_log_file
from loom_ref.journal.reader import ParsedJournal
from loom_ref.journal.store import read_journal_file

__all__ = ["check", "describe", "register", "render_state", "render_timeline", "show"]

K = EventKind


def _short(value: Any, width: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= width else text[: width - 1] + "…"


def describe(event: Event) -> str:
    """One readable line for one event."""
    p = event.payload
    k = event.kind
    if k is K.EXECUTION_STARTED:
        return f"started {p['workflow']} as {p['executionId']} with {_short(p['input'])}"
    if k is K.STEP_STARTED:
        return f"step {p['stepId']} -> {p['toolId']}({_short(p['input'], 40)})"
    if k is K.STEP_COMPLETED:
        return f"step {p['stepId']} completed: {_short(p['output'])}"
    if k is K.STEP_FAILED:
        return f"step {p['stepId']} failed: {p['error'].get('code')}: {p['error'].get('message')}"
    if k is K.STEP_IN_DOUBT:
        return f"step {p['stepId']} is in doubt (started, no outcome)"
    if k is K.DECISION_RECORDED:
        policy = p.get("policy")
        extra = f" (policy {policy['id']}, propensity {policy['propensity']})" if policy else ""
        return f"decision {p['decisionId']} = {_short(p['choice'])}{extra}"
    if k is K.STREAM_APPENDED:
        return f"stream {p['streamId']}: {_short(p['data'])}"
    if k is K.EXECUTION_SUSPENDED:
        return f"suspended on gate {p['gateId']}" + (f" ({p['on']})" if p.get("on") else "")
    if k is K.RESUME_RECEIVED:
        return f"resume for gate {p['gateId']}: {_short(p['payload'])}"
    if k is K.EXECUTION_RESUMED:
        return f"resumed from gate {p['gateId']}"
    if k is K.EXECUTION_COMPLETED:
        return f"completed: {_short(p['output'])}"
    return f"failed: {p['error'].get('code')}: {p['error'].get('message')}"


def render_timeline(events: list[Event]) -> str:
    """The timeline: ``seq  KIND  description`` per event."""
    return "\n".join(f"{e.seq:>5}  {e.kind.value:<20} {describe(e)}" for e in events)


def render_state(state: ExecutionState) -> str:
    """The folded state, one fact per line."""
    lines = [f"status: {state.status.value} (at seq {state.seq})"]
    if state.waiting_gate:
        lines.append(f"waiting on gate: {state.waiting_gate}"
                     + (" (resume received)" if state.pending_resume else ""))
    if state.in_doubt_step:
        lines.append(f"in-doubt step: {state.in_doubt_step}")
    for frame in state.frames.values():
        lines.append(f"frame {frame.step_id} [{frame.tool_id}]: {frame.status.value}")
    for decision_id, choice in state.decisions.items():
        lines.append(f"decision {decision_id}: {_short(choice)}")
    if state.status.value == "completed":
        lines.append(f"output: {_short(state.output, 200)}")
    if state.error is not None:
        lines.append(f"error: {state.error.get('code')}: {state.error.get('message')}")
    return "\n".join(lines)


def _read(path: str, execution: str | None) -> ParsedJournal | ParsedLog:
    """A journal file, or a store log (one execution of it if ``execution`` is given)."""
    log = read_log_file(path)
    if log is None:
        parsed = read_journal_file(path)
        if execution is not None and execution != parsed.execution_id:
            raise InvalidArgument(f"{path} is the journal of {parsed.execution_id!r}, "
                                  f"not {execution!r}", code="argument.execution-id")
        return parsed
    if execution is None:
        return log
    try:
        return log.journals[execution]
    except KeyError:
        raise InvalidArgument(f"store log {path} holds no execution {execution!r}",
                              code="argument.execution-id") from None


def _executions(path: str, log: ParsedLog) -> InvalidArgument:
    names = ", ".join(list(log.journals)[:10]) + (", ..." if len(log.journals) > 10 else "")
    return InvalidArgument(f"{path} is a store log of {len(log.journals)} execution(s); "
                           f"name one with --execution ({names})", code="argument.execution-id")


def show(path: str, at: int | None, out: TextIO, execution: str | None = None) -> int:
    """Print the timeline up to ``at`` (all by default) and the state there."""
    parsed = _read(path, execution)
    if isinstance(parsed, ParsedLog):
        raise _executions(path, parsed)
    events = list(parsed.events)
    if at is not None:
        if not 0 <= at <= len(events):
            raise InvalidArgument(f"--at must be between 0 and {len(events)}, got {at}",
                                  code="argument.seq")
        events = events[:at]
    print(f"journal {path} (execution {parsed.execution_id})", file=out)
    print(render_timeline(events), file=out)
    if parsed.torn is not None and at is None:
        print(f"  torn tail: line {parsed.torn.line}, {parsed.torn.size} bytes (not written)",
              file=out)
    print("--", file=out)
    print(render_state(fold(events)), file=out)
    return 0


def check(path: str, out: TextIO, execution: str | None = None) -> int:
    """Verify the whole file; exit 0 clean, 1 torn tail, 2 corrupt or unreadable."""
    try:
        parsed = _read(path, execution)
        journals = parsed.journals.values() if isinstance(parsed, ParsedLog) else [parsed]
        states = [fold(j.events) for j in journals]  # spec: journal.transitions
    except JournalError as err:  # spec: journal.corrupt-line -- one line, file and line
        print(f"{err}", file=out)
        return 2
    events = sum(len(j.events) for j in journals)
    if parsed.torn is not None:
        print(f"journal.torn-tail: {path}: line {parsed.torn.line} is torn "
              f"({parsed.torn.size} bytes); {events} events before it are intact", file=out)
        return 1
    if isinstance(parsed, ParsedLog):
        print(f"ok: {path}: store log of {len(states)} execution(s), {events} events, "
              f"checksums and sequences valid", file=out)
        return 0
    print(f"ok: {path}: {events} events, checksums and sequence valid, "
          f"status {states[0].status.value}", file=out)
    return 0


def register(subparsers: Any) -> None:
    """Add the ``journal`` command and its ``show`` / ``check`` subcommands to an argparse
    subparsers object; each sets ``func(args) -> exit status``."""
    parser = subparsers.add_parser("journal", help="inspect a journal file",
                                   description="Inspect one execution's journal file.")
    sub = parser.add_subparsers(dest="journal_command", required=True)
    p_show = sub.add_parser("show", help="timeline and folded state",
                            description="Print a readable timeline and the folded state.")
    p_show.add_argument("file")
    p_show.add_argument("--at", type=int, default=None, metavar="SEQ",
                        help="fold only the first SEQ events (the state at that point)")
    p_show.add_argument("--execution", default=None, metavar="ID",
                        help="the execution to show, in a store log")
    p_show.set_defaults(func=lambda a: show(a.file, a.at, sys.stdout, a.execution))
    p_check = sub.add_parser("check", help="verify checksums, sequence and schema",
                             description="Verify a journal; exit 0 clean, 1 torn tail, "
                                         "2 corrupt.")
    p_check.add_argument("file")
    p_check.add_argument("--execution", default=None, metavar="ID",
                         help="check one execution of a store log (default: all of them)")
    p_check.set_defaults(func=lambda a: check(a.file, sys.stdout, a.execution))

