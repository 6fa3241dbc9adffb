"""What the operating system refuses, as the journal's stable codes: no store and no reader
lets a raw ``OSError`` out.

Spec: ``spec/journal.md`` section 1.12 (``journal.os-errors``, ``journal.regular-files``,
``journal.held-file``). Every error names the file (``details["file"]``), what was being
done (``details["op"]``) and, when the system gave one, the ``errno`` name
(``details["errno"]``: ``"ENOSPC"``, ``"EIO"``, ``"EROFS"``, ...):

- ``journal.not-a-file`` (:class:`NotAFileError`): a symbolic link, a FIFO, a directory, a
  socket or a device where a store would open a journal (or a store log, or a database);
  refused before a byte is read or written, the link never followed;
- ``journal.unreadable`` (:class:`JournalFileError`): a journal that exists could not be
  read (permissions, an I/O error);
- ``journal.write-failed`` (:class:`JournalWriteError`): writing, truncating or syncing a
  journal failed (a full disk, an I/O error, a file system gone read-only); the journal
  takes no more appends and has let go of its lock;
- ``journal.replaced`` (:class:`JournalReplacedError`): the file a writer holds was unlinked,
  or another file put at its path, since it was opened; found at the next sync, and the
  journal closed, so nothing is written on as if it were still there;
- ``journal.io-failed`` (:class:`JournalIOError`): anything else: creating or opening a
  journal or a store, taking its lock, listing or syncing its directory.
"""

from __future__ import annotations

import errno as errno_names
from collections.abc import Callable
from typing import TypeVar

from loom_ref.errors import JournalError

__all__ = ["JournalFileError", "JournalIOError", "JournalReplacedError", "JournalWriteError",
           "NotAFileError", "NotRegularFileError", "io_call", "os_error"]

_T = TypeVar("_T")


class JournalIOError(JournalError):
    """The operating system refused an operation on a journal's file (module rules)
    (spec: journal.os-errors)."""

    code = "journal.io-failed"


class JournalWriteError(JournalIOError):
    """Writing, truncating or syncing a journal failed; the journal is closed
    (spec: journal.os-errors)."""

    code = "journal.write-failed"


class JournalFileError(JournalIOError):
    """A journal's file cannot be read: permissions, an I/O error, or (on the command line)
    a path that names no readable journal file (spec: journal.os-errors)."""

    code = "journal.unreadable"


class NotAFileError(JournalIOError):
    """A link, a FIFO, a directory, a socket or a device where a journal's file should be
    (spec: journal.regular-files)."""

    code = "journal.not-a-file"


class NotRegularFileError(NotAFileError, OSError):
    """What a file layer raises from ``open`` and ``read`` when the path holds no regular
    file: a symbolic link, a FIFO, a directory, a socket or a device (``kind`` says which),
    before it reads or writes a byte. An ``OSError`` too, so that a file layer raises it
    among its other operating-system errors (spec: journal.regular-files)."""

    def __init__(self, path: str, kind: str) -> None:
        super().__init__(f"{path} is a {kind}, not a regular file", file=path, kind=kind)
        self.errno = errno_names.ELOOP if kind == "symbolic link" else (
            errno_names.EISDIR if kind == "directory" else errno_names.EINVAL)
        self.strerror = f"a {kind}, not a regular file"
        self.filename = path
        self.kind = kind


class JournalReplacedError(JournalWriteError):
    """The file a writer holds was unlinked or replaced while it held it
    (spec: journal.held-file)."""

    code = "journal.replaced"


#: What a store was doing, by the error it becomes when the system refuses.
_WRITES = frozenset({"append to", "sync", "truncate", "write the header of"})
_READS = frozenset({"read"})


def os_error(exc: OSError, path: str, doing: str) -> JournalError:
    """The journal error for ``exc``, raised while a store tried to ``doing`` the file
    ``path`` ("create", "open", "read", "lock", "append to", "sync", "truncate", "write the
    header of", "list", "sync the directory of") (spec: journal.os-errors)."""
    name = errno_names.errorcode.get(exc.errno) if isinstance(exc.errno, int) else None
    if isinstance(exc, NotAFileError):
        kind = exc.details.get("kind")
        return NotAFileError(
            f"{path} is a {kind}, not a regular file: a journal store opens only regular "
            f"files, and never follows a symbolic link", file=path, op=doing, kind=kind)
    why = exc.strerror or str(exc)
    if doing in _WRITES:
        return JournalWriteError(f"cannot {doing} {path}: {why}", file=path, op=doing,
                                 errno=name)
    if doing in _READS:
        return JournalFileError(f"{path} cannot be read: {why}", file=path, op=doing,
                                errno=name)
    return JournalIOError(f"cannot {doing} {path}: {why}", file=path, op=doing, errno=name)


def io_call(call: Callable[[], _T], path: str, doing: str) -> _T:
    """``call()``, an OSError it raises made the journal error for ``doing`` ``path``
    (spec: journal.os-errors)."""
    try:
        return call()
    except OSError as exc:
        raise os_error(exc, path, doing) from None
