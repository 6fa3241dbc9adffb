"""``loom-ref journal show FILE``, ``loom-ref journal check FILE``, ``loom-ref journal schema``.

Teaching and debugging views of one execution's journal file, or of one execution in a store
log (``--execution ID``; ``spec/journal.md`` 1.7):

- ``show`` draws the execution's timeline (:mod:`loom_ref.cli.timeline`) up to the end, or
  to ``--at SEQ`` (``journal.fold``: folding any prefix gives the state at that point), in
  one of four formats: ``text`` (one line per event and the folded state; ``--full`` prints
  whole payloads), ``json`` (the same timeline as data, described by ``journal schema``),
  ``html`` (one self-contained page with the picture) and ``mermaid`` (a sequence diagram).
  ``--out FILE`` writes it there instead of to standard output. A journal file with a
  corrupt line is drawn up to its last good line, the bad line marked (``journal.corrupt-line``),
  and ``show`` exits 1 (a negative verdict, as every command reports one).
- ``check`` verifies checksums, the sequence, payload shapes and the transition table, and
  reports a torn tail (``journal.torn-tail``) or the first corrupt line
  (``journal.corrupt-line``) by number. Exit status (the table of every command,
  ``loom_ref.cli.main.EXIT_STATUSES``): 0 clean (``ok: ...`` on stdout); 1 a torn tail, a
  corrupt line or an empty file (``loom-ref: <code>: ...`` on stderr); 2 a path that cannot
  be read (missing, a directory, no permission), as from every command.
- ``schema`` prints the JSON Schema of ``show --format json``.

Both read without taking the writer's lock. ``check`` of a store log without ``--execution``
checks every execution in it.
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from loom_ref.cli.inputs import (
    open_output,
    read_execution,
    read_good_prefix,
    read_journal_or_log,
)
from loom_ref.cli.timeline.html import render_html
from loom_ref.cli.timeline.json_form import TIMELINE_SCHEMA, dumps
from loom_ref.cli.timeline.mermaid import render_mermaid
from loom_ref.cli.timeline.model import Corrupt, build_timeline, line_words
from loom_ref.cli.timeline.text import describe, render_state, render_text, render_timeline
from loom_ref.errors import InvalidArgument
from loom_ref.journal.fold import fold
from loom_ref.journal.logstore import ParsedLog
from loom_ref.journal.reader import CorruptJournalError

__all__ = ["FORMATS", "check", "describe", "register", "render_state", "render_timeline",
           "show"]

#: The formats of ``journal show``.
FORMATS = ("text", "json", "html", "mermaid")


def show(path: str, at: int | None, out: TextIO, execution: str | None = None, *,
         format: str = "text", full: bool = False, output: str | None = None) -> int:
    """Draw the timeline up to ``at`` (all by default) in ``format``, to ``out`` or to the
    file ``output``."""
    if format not in FORMATS:
        raise InvalidArgument(f"--format must be one of {', '.join(FORMATS)}, got {format!r}",
                              code="argument.format")
    if full and format != "text":
        raise InvalidArgument("--full is for --format text (the other formats hold every "
                              "payload whole)", code="argument.full")
    corrupt = None
    try:
        parsed = read_execution(path, execution)
    except CorruptJournalError as error:  # spec: journal.corrupt-line -- drawn up to it
        if at is not None:
            raise
        parsed, line, text = read_good_prefix(path, error)
        if execution is not None and parsed.execution_id not in (None, execution):
            raise
        corrupt = Corrupt(line=line, reason=str(error.details.get("reason", error.code)),
                          message=error.message.split(": ", 1)[-1], text=text)
    events = list(parsed.events)
    if at is not None:
        if not 0 <= at <= len(events):
            raise InvalidArgument(f"--at must be between 0 and {len(events)}, got {at}",
                                  code="argument.seq")
        events = events[:at]
    timeline = build_timeline(events, source=path, execution_id=parsed.execution_id,
                              torn=parsed.torn if at is None else None, corrupt=corrupt)
    if format == "json":
        rendered = dumps(timeline)
    elif format == "html":
        rendered = render_html(timeline)
    elif format == "mermaid":
        rendered = render_mermaid(timeline) + "\n"
    else:
        rendered = render_text(timeline, full=full) + "\n"
    code = 0 if corrupt is None else 1  # a corrupt journal is a negative verdict (EXIT_STATUSES)
    if output is None:
        out.write(rendered)
        out.flush()
        return code
    with open_output(output) as f:
        f.write(rendered)
    print(f"wrote {format} of {len(events)} events to {output}"
          + ("" if corrupt is None else f" (up to {line_words(corrupt.line, len(events))}, "
             "which is corrupt)"), file=out)
    return code


def check(path: str, out: TextIO, execution: str | None = None) -> int:
    """Verify the whole file; 0 clean, 1 torn tail. A corrupt line or an empty file is a
    JournalError (``loom-ref`` prints it, status 1), a path that cannot be read one too
    (status 2)."""
    parsed = read_journal_or_log(path)  # spec: journal.corrupt-line -- one line, file and line
    if execution is not None:
        parsed = read_execution(path, execution, parsed=parsed)
    journals = parsed.journals.values() if isinstance(parsed, ParsedLog) else [parsed]
    states = [fold(j.events) for j in journals]  # spec: journal.transitions
    events = sum(len(j.events) for j in journals)
    if parsed.torn is not None:
        where = (f"line {parsed.torn.line}" if isinstance(parsed, ParsedLog)
                 else line_words(parsed.torn.line, events))
        sys.stderr.write(f"loom-ref: journal.torn-tail: {path}: {where} is torn "
                         f"({parsed.torn.size} bytes); {events} events before it are "
                         "intact\n")
        return 1
    if isinstance(parsed, ParsedLog):
        print(f"ok: {path}: store log of {len(states)} execution(s), {events} events, "
              f"checksums and sequences valid", file=out)
        return 0
    print(f"ok: {path}: {events} events, checksums and sequence valid, "
          f"status {states[0].status.value}", file=out)
    return 0


def schema(out: TextIO) -> int:
    """Print the JSON Schema of ``journal show --format json``."""
    out.write(json.dumps(TIMELINE_SCHEMA, indent=2) + "\n")
    out.flush()
    return 0


def register(subparsers: Any) -> None:
    """Add the ``journal`` command and its ``show`` / ``check`` / ``schema`` subcommands to an
    argparse subparsers object; each sets ``func(args) -> exit status``."""
    parser = subparsers.add_parser("journal", help="inspect a journal file",
                                   description="Inspect one execution's journal file.")
    sub = parser.add_subparsers(dest="journal_command", required=True)
    p_show = sub.add_parser(
        "show", help="timeline and folded state, as text, JSON, HTML or Mermaid",
        description="Draw an execution's timeline: one line per event and the folded state "
                    "(text), the same as data (json), one self-contained page with the "
                    "picture (html), or a Mermaid sequence diagram (mermaid).")
    p_show.add_argument("file")
    p_show.add_argument("--at", type=int, default=None, metavar="SEQ",
                        help="fold only the first SEQ events (the state at that point)")
    p_show.add_argument("--execution", default=None, metavar="ID",
                        help="the execution to show, in a store log")
    p_show.add_argument("--format", default="text", choices=FORMATS,
                        help="text (default), json, html or mermaid")
    p_show.add_argument("--full", action="store_true",
                        help="text: print every payload whole instead of cutting it short")
    p_show.add_argument("--out", "-o", default=None, metavar="FILE",
                        help="write to FILE instead of standard output")
    p_show.set_defaults(func=lambda a: show(a.file, a.at, sys.stdout, a.execution,
                                            format=a.format, full=a.full, output=a.out))
    p_check = sub.add_parser("check", help="verify checksums, sequence and schema",
                             description="Verify a journal; exit 0 clean, 1 a torn tail, a "
                                         "corrupt line or an empty file, 2 a path that "
                                         "cannot be read.")
    p_check.add_argument("file")
    p_check.add_argument("--execution", default=None, metavar="ID",
                         help="check one execution of a store log (default: all of them)")
    p_check.set_defaults(func=lambda a: check(a.file, sys.stdout, a.execution))
    p_schema = sub.add_parser("schema", help="the JSON Schema of show --format json",
                              description="Print the JSON Schema that a timeline written by "
                                          "'journal show --format json' satisfies.")
    p_schema.set_defaults(func=lambda a: schema(sys.stdout))
