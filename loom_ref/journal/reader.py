"""Reading a journal's bytes back into events: the torn-tail rule and corruption by line.

Spec: ``spec/journal.md``.

- ``journal.torn-tail``: bytes after the last ``\\n`` are a torn tail, left by a crash in the
  middle of a write. They MUST be treated as not written, and MUST be reported (how many
  bytes), never skipped silently. A writer that opens the journal truncates them before its
  first append.
- ``journal.corrupt-line``: any complete line that fails its checksum, is not well-formed, or
  breaks the sequence MUST be a hard error naming the file and the 1-based line number.
  Nothing after a bad line is read.
- ``journal.seq``: event ``seq`` values MUST run 1, 2, 3, ... with no gaps.
- ``journal.header``: the header names the execution by an id of the id rule
  (``journal.execution-ids``), else it is a bad header: a reader never hands on a name
  that is not a safe file name.
- ``journal.started-names-header``: an ``EXECUTION_STARTED`` names the execution its
  journal's header names, else the line is corrupt (``journal.bad-payload``): a line pasted
  from another execution's journal, however valid its checksum, is never run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from loom_ref.errors import InvalidArgument, JournalError
from loom_ref.journal.codec import (
    SCHEMA_NAME,
    SCHEMA_VERSION,
    MalformedLineError,
    decode_line,
    is_schema_version,
    may_escape_surrogate,
)
from loom_ref.journal.events import (
    Event,
    EventKind,
    PayloadError,
    check_payload,
    kind_from_name,
)
from loom_ref.journal.ids import ID_RULE, is_execution_id

__all__ = ["CorruptJournalError", "ParsedJournal", "TornTail", "bad_id_message", "check_bytes",
           "event_from_line", "parse_journal"]


class CorruptJournalError(JournalError):
    """A complete line of the journal is bad; ``details`` name the file and line.

    ``details["reason"]`` is the code of the underlying problem (``journal.bad-checksum``,
    ``journal.malformed-line``, ``journal.bad-payload``, ``journal.seq-gap``,
    ``journal.bad-header``).
    (spec: journal.corrupt-line)
    """

    code = "journal.corrupt"


@attrs.frozen(kw_only=True)
class TornTail:
    """A torn last line: ``line`` is its 1-based number, ``size`` its length in bytes.
    (spec: journal.torn-tail)
    """

    line: int
    size: int


@attrs.frozen(kw_only=True)
class ParsedJournal:
    """What :func:`parse_journal` found: the execution id, the events, a torn tail if any,
    and ``good_size``: the byte length of the journal up to the last complete line.
    (spec: journal.torn-tail)"""

    execution_id: str | None
    events: Sequence[Event]
    torn: TornTail | None
    good_size: int


_STARTED = EventKind.EXECUTION_STARTED


def event_from_line(obj: dict[str, Any], seq: int, execution_id: str | None = None) -> Event:
    """The event a decoded line holds, checked as event number ``seq`` of the journal of
    ``execution_id`` (which an ``EXECUTION_STARTED`` must name: ``journal.started-names-header``).

    ``obj`` is what :func:`~loom_ref.journal.codec.decode_line` returned, minus any member a
    layout adds (a store log's ``executionId``). Raises a JournalError whose ``code`` is the
    reason, checked in the order of ``journal.corrupt-line``: ``journal.bad-payload`` (kind,
    payload), ``journal.seq-gap`` (``journal.seq``), ``journal.malformed-line`` (members).
    """
    kind = kind_from_name(obj.get("kind"))
    payload = obj.get("payload")
    check_payload(kind, payload)
    if kind is _STARTED and execution_id is not None and (
            payload["executionId"] != execution_id):  # type: ignore[index]
        raise PayloadError(f"EXECUTION_STARTED names execution {payload['executionId']!r}, "  # type: ignore[index]
                           f"but the journal is {execution_id!r}'s", kind=kind.value)
    found = obj.get("seq")
    if found != seq or type(found) is not int:  # spec: journal.seq
        raise JournalError(f"expected seq {seq}, found {found!r}", code="journal.seq-gap")
    if len(obj) != 3:  # spec: journal.line-shape -- exactly seq, kind, payload (and crc)
        raise MalformedLineError(f"unexpected members {sorted(obj)}")
    return Event(seq=seq, kind=kind, payload=payload)  # type: ignore[arg-type]


def bad_id_message(execution_id: str) -> str:
    """Why a header's execution id is refused (``journal.header``)."""
    shown = execution_id if len(execution_id) <= 60 else execution_id[:57] + "..."
    return f"header names execution {shown!r}, which is not an execution id ({ID_RULE})"


def check_bytes(data: object) -> None:
    """Raise InvalidArgument unless ``data`` is ``bytes`` (a journal is read as bytes)."""
    if not isinstance(data, bytes | bytearray):
        raise InvalidArgument(f"a journal is read from bytes, got {type(data).__name__}")


def parse_journal(data: bytes, *, source: str = "<memory>") -> ParsedJournal:
    """Parse a whole journal. An empty input has no header and no events.
    (spec: journal.corrupt-line)
    """
    check_bytes(data)
    last_nl = data.rfind(b"\n")
    good_size = last_nl + 1
    lines = data.split(b"\n")[:-1]  # the piece after the last \n is the torn tail, or empty
    torn = None
    if good_size < len(data):  # spec: journal.torn-tail
        torn = TornTail(line=len(lines) + 1, size=len(data) - good_size)
    if not lines:
        return ParsedJournal(execution_id=None, events=(), torn=torn, good_size=good_size)

    def corrupt(lineno: int, reason: str, message: str) -> CorruptJournalError:
        # spec: journal.corrupt-line
        return CorruptJournalError(
            f"{source}, line {lineno}: {message}", file=source, line=lineno, reason=reason
        )

    try:
        header = decode_line(lines[0])
    except JournalError as exc:
        raise corrupt(1, exc.code, exc.message) from None
    if header.get("schema") != SCHEMA_NAME or not is_schema_version(header.get("version")):
        raise corrupt(1, "journal.bad-header", f"not a {SCHEMA_NAME} v{SCHEMA_VERSION} header")
    execution_id = header.get("executionId")
    if not isinstance(execution_id, str):
        raise corrupt(1, "journal.bad-header", "header has no executionId")
    if not is_execution_id(execution_id):  # spec: journal.header, journal.execution-ids
        raise corrupt(1, "journal.bad-header", bad_id_message(execution_id))

    events: list[Event] = []
    append = events.append
    escapes = may_escape_surrogate(data)  # one search, not one per line
    for lineno, line in enumerate(lines[1:], start=2):
        try:
            append(event_from_line(decode_line(line, surrogate_escapes=escapes), lineno - 1,
                                   execution_id))
        except JournalError as exc:
            raise corrupt(lineno, exc.code, exc.message) from None
    return ParsedJournal(execution_id=execution_id, events=events, torn=torn, good_size=good_size)


__all__ += ["PayloadError"]
