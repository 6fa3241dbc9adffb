"""The files a command reads and writes, refused with one clear line instead of a traceback.

Every ``loom-ref`` command that takes a path goes through here, so a wrong path, a directory,
an unreadable or empty file and an unwritable output all end the same way: a
:class:`~loom_ref.errors.LoomError` with a stable code, which ``loom-ref`` prints as
``loom-ref: <code>: <message>`` (``cli/main.py``).

Reading (a journal file or a store log):

- ``journal.not-found``: nothing exists at the path;
- ``journal.is-a-directory``: the path is a directory (the message names the ``.jsonl`` and
  ``.log`` files in it, since a directory store keeps one ``<executionId>.jsonl`` per
  execution and a store log is a ``.log`` file);
- ``journal.unreadable``: the file exists but cannot be read (permissions, a device error);
- ``journal.not-a-file``: the path names a FIFO, a socket or a device (read without waiting
  on it: ``journal.regular-files``); a link the user names is followed;
- ``journal.empty``: the file holds no bytes at all: no header, no events (a journal whose
  creation was cut short before its header, or not a journal). A journal with a header and no
  events is not empty.

Writing (``--out``, ``--html``, ``--dir``): ``argument.path``, an :class:`InvalidArgument`,
for a directory where a file is wanted, a missing parent directory, a file where a directory
is wanted, or a place that cannot be written.
"""

from __future__ import annotations

import os
from typing import TextIO

from loom_ref.errors import InvalidArgument
from loom_ref.journal.fs import NotRegularFileError, read_regular
from loom_ref.journal.logstore import LOG_SCHEMA_NAME, ParsedLog, parse_log
from loom_ref.journal.oserrors import JournalFileError, os_error
from loom_ref.journal.reader import CorruptJournalError, ParsedJournal, parse_journal
from loom_ref.journal.store import JournalNotFoundError

__all__ = ["JournalFileError", "check_output_dir", "check_output_file", "open_output",
           "read_bytes", "read_execution", "read_good_prefix", "read_journal_or_log"]

# how a store log's first line starts (spec: journal.log-format); anything else is parsed as
# one execution's journal file, as loom_ref.journal.read_log_file does
_LOG_START = b'{"schema":"' + LOG_SCHEMA_NAME.encode() + b'",'


def _journals_in(path: str) -> str:
    try:
        names = sorted(n for n in os.listdir(path) if n.endswith((".jsonl", ".log")))
    except OSError:
        return ""
    if not names:
        return " (it holds no .jsonl journal file and no .log store log)"
    shown = ", ".join(names[:5]) + (f", ... ({len(names)} in all)" if len(names) > 5 else "")
    return f"; the journal files and store logs in it (.jsonl, .log): {shown}"


def read_bytes(path: str) -> bytes:
    """The whole content of the file at ``path``, or a JournalError with a stable code."""
    try:
        data = read_regular(path, follow=True)  # spec: journal.regular-files -- never waits
    except FileNotFoundError:
        raise JournalNotFoundError(f"{path} does not exist", file=path) from None
    except (IsADirectoryError, NotRegularFileError) as exc:
        if isinstance(exc, NotRegularFileError) and exc.kind != "directory":
            raise os_error(exc, path, "read") from None
        raise JournalFileError(f"{path} is a directory, not a journal file{_journals_in(path)}",
                               code="journal.is-a-directory", file=path) from None
    except PermissionError:
        raise JournalFileError(f"{path} cannot be read: permission denied",
                               file=path) from None
    except OSError as exc:
        raise JournalFileError(f"{path} cannot be read: {exc.strerror or exc}",
                               file=path) from None
    if not data:
        raise JournalFileError(f"{path} is empty (0 bytes): no header and no events",
                               code="journal.empty", file=path)
    return data


def read_journal_or_log(path: str) -> ParsedJournal | ParsedLog:
    """A journal file or a store log (told apart by the first line), read once, unlocked."""
    data = read_bytes(path)
    if data.startswith(_LOG_START):
        return parse_log(data, source=path)
    return parse_journal(data, source=path)


def read_execution(path: str, execution: str | None = None, *,
                   parsed: ParsedJournal | ParsedLog | None = None) -> ParsedJournal:
    """One execution's journal: the journal file at ``path`` (whose execution must be
    ``execution`` if given), or the execution ``execution`` of the store log at ``path``
    (``argument.execution-id`` when it is not named or not there). ``parsed`` is the file
    already read."""
    parsed = read_journal_or_log(path) if parsed is None else parsed
    if isinstance(parsed, ParsedJournal):
        if execution is not None and execution != parsed.execution_id:
            raise InvalidArgument(f"{path} is the journal of {parsed.execution_id!r}, "
                                  f"not {execution!r}", code="argument.execution-id")
        return parsed
    if execution is None:
        names = ", ".join(list(parsed.journals)[:10]) + (
            ", ..." if len(parsed.journals) > 10 else "")
        raise InvalidArgument(f"{path} is a store log of {len(parsed.journals)} "
                              f"execution(s); name one with --execution ({names})",
                              code="argument.execution-id")
    try:
        return parsed.journals[execution]
    except KeyError:
        raise InvalidArgument(f"store log {path} holds no execution {execution!r}",
                              code="argument.execution-id") from None


def read_good_prefix(path: str, error: CorruptJournalError
                     ) -> tuple[ParsedJournal, int, str]:
    """For a journal file (not a store log) that ``error`` found corrupt: the journal up to
    its last good line, the bad line's number and its first bytes (decoded leniently), so a
    picture can show "lines 1-4 good, line 5 bad" (spec: journal.corrupt-line). Re-raises
    ``error`` for a store log."""
    data = read_bytes(path)
    line = error.details.get("line")
    if data.startswith(_LOG_START) or not isinstance(line, int) or line < 1:
        raise error
    lines = data.split(b"\n")
    good = b"".join(piece + b"\n" for piece in lines[: line - 1])
    bad = lines[line - 1][:160].decode("utf-8", errors="replace") if line <= len(lines) else ""
    if line == 1:
        return ParsedJournal(execution_id=None, events=(), torn=None, good_size=0), line, bad
    return parse_journal(good, source=path), line, bad


def _refuse(path: str, why: str) -> InvalidArgument:
    return InvalidArgument(f"cannot write {path}: {why}", code="argument.path", path=path)


def check_output_file(path: str) -> str:
    """``path`` if a file can be written there, else ``argument.path`` saying why (nothing
    is created)."""
    if os.path.isdir(path):
        raise _refuse(path, "it is a directory; name a file in it, for example "
                            f"{os.path.join(path, 'timeline.html')}")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise _refuse(path, f"{parent} is not a directory")
    if not os.access(path if os.path.exists(path) else parent, os.W_OK):
        raise _refuse(path, "permission denied")
    return path


def open_output(path: str) -> TextIO:
    """``path`` opened for writing text (UTF-8), or ``argument.path`` saying why not."""
    check_output_file(path)
    try:
        return open(path, "w", encoding="utf-8")  # the caller closes it
    except PermissionError:
        raise _refuse(path, "permission denied") from None
    except OSError as exc:
        raise _refuse(path, exc.strerror or str(exc)) from None


def check_output_dir(path: str) -> str:
    """``path`` as a directory that exists (created if need be) and can be written."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise _refuse(path, "it is a file, not a directory")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as exc:
        raise _refuse(path, exc.strerror or str(exc)) from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise _refuse(path, "permission denied")
    return path
