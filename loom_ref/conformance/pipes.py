"""Reading an untrusted implementation's output: bounded, linear, and never crashing the runner.

The runner drives programs it does not trust (``conformance/INTERPRETING.md`` section 4,
"Limits"); what they write is parsed as hostile input:

- **stderr** is kept as a bounded tail (:class:`Tail`): the last :data:`STDERR_TAIL_BYTES`
  bytes, however much is written. Nothing goes to a temporary file; memory is bounded by
  construction (the tail, plus one read of at most :data:`READ_BYTES`).
- **Reply lines** are cut by :class:`LineReader`, which looks for the newline only in the bytes
  that have just arrived (reading is linear in what was written, never a rescan of the
  buffer) and refuses a line longer than its limit (:data:`MAX_REPLY_BYTES` by default) with
  :class:`ReplyTooLong` as soon as the limit is passed, so a reply stream with no newline
  (``cat /dev/zero``) costs the limit and no more.
- **Decoding** a line (:func:`decode_reply`) turns every way it can fail into
  :class:`UndecodableReply`: bytes that are not UTF-8, text that is not JSON, a value nested
  deeper than :data:`MAX_REPLY_DEPTH` (Python's own parser raises ``RecursionError`` on a reply
  nested 100,000 deep; the depth is then counted without recursion).
- :func:`describe_exit` tells an implementation that exited by itself from one the runner
  killed and from one a signal ended.
"""

from __future__ import annotations

import json
import signal
from typing import Any

__all__ = ["MAX_REPLY_BYTES", "MAX_REPLY_DEPTH", "READ_BYTES", "STDERR_TAIL_BYTES",
           "LineReader", "ReplyTooLong", "Tail", "UndecodableReply", "decode_reply",
           "describe_exit", "nesting_depth"]

#: The longest reply line the runner reads (bytes, without the newline): the largest reply
#: of the suite is a few hundred kilobytes, so 64 MiB is generous and still bounded.
MAX_REPLY_BYTES = 64 * 1024 * 1024
#: The deepest nesting of arrays and objects a reply may have; the suite's deepest case is
#: 16 levels deep and a reply's observations add a few.
MAX_REPLY_DEPTH = 200
#: How much of an implementation's stderr is kept (the last bytes).
STDERR_TAIL_BYTES = 4096
#: The most bytes one read takes from a pipe.
READ_BYTES = 1 << 20


class ReplyTooLong(ValueError):
    """A reply line passed the limit before its newline came."""


class UndecodableReply(ValueError):
    """A reply line that is not a JSON value the runner can hold (message: why)."""


class Tail:
    """The last ``limit`` bytes written to a stream; older bytes are dropped as they come."""

    def __init__(self, limit: int = STDERR_TAIL_BYTES) -> None:
        self.limit = limit
        self.total = 0
        self._data = bytearray()

    def add(self, chunk: bytes) -> None:
        """Keep the end of ``chunk`` after what was kept (at most ``limit`` bytes in all)."""
        self.total += len(chunk)
        if len(chunk) >= self.limit:
            self._data[:] = chunk[-self.limit:]
            return
        self._data += chunk
        extra = len(self._data) - self.limit
        if extra > 0:
            del self._data[:extra]

    def __len__(self) -> int:
        return len(self._data)

    def text(self) -> str:
        """The tail as text (bytes that are not UTF-8 replaced), with how much was dropped."""
        body = bytes(self._data).decode("utf-8", errors="replace")
        dropped = self.total - len(self._data)
        return f"[... {dropped} earlier bytes not kept]\n{body}" if dropped else body

    def clear(self) -> None:
        self.total = 0
        self._data.clear()


class LineReader:
    """Cuts a byte stream into lines of at most ``limit`` bytes, linearly.

    :meth:`feed` adds what arrived and looks for a newline only in it; :meth:`line` hands out
    the next whole line (None until one is there). A line that passes ``limit`` bytes before
    its newline raises :class:`ReplyTooLong` from :meth:`feed`.
    """

    def __init__(self, limit: int = MAX_REPLY_BYTES) -> None:
        self.limit = limit
        self._buf = bytearray()
        self._newline = -1  # the index of the first newline in _buf, -1 when none is known

    def feed(self, chunk: bytes) -> None:
        start = len(self._buf)
        self._buf += chunk
        if self._newline < 0:
            found = self._buf.find(b"\n", start)
            if found >= 0:
                self._newline = found
            elif len(self._buf) > self.limit:
                size = len(self._buf)
                self._buf.clear()
                raise ReplyTooLong(f"a reply line passed {self.limit} bytes ({size} read) "
                                   "without its newline")
        if self._newline > self.limit:
            raise ReplyTooLong(f"a reply line of {self._newline} bytes is longer than the "
                               f"limit of {self.limit} bytes")

    @property
    def has_line(self) -> bool:
        return self._newline >= 0

    def line(self) -> bytes | None:
        """The next whole line without its newline, or None."""
        end = self._newline
        if end < 0:
            return None
        line = bytes(self._buf[:end])
        del self._buf[:end + 1]
        self._newline = self._buf.find(b"\n")  # the rest is small: at most one read's worth
        return line

    def clear(self) -> None:
        self._buf.clear()
        self._newline = -1


def nesting_depth(value: Any) -> int:
    """How deeply arrays and objects nest in ``value`` (a scalar: 0), level by level,
    without recursion."""
    depth = 0
    level = [value] if isinstance(value, (dict, list)) else []
    while level:
        depth += 1
        below: list[Any] = []
        for item in level:
            for child in (item.values() if isinstance(item, dict) else item):
                if isinstance(child, (dict, list)):
                    below.append(child)
        level = below
    return depth


def decode_reply(line: bytes, max_depth: int = MAX_REPLY_DEPTH) -> Any:
    """The JSON value of one reply line, or :class:`UndecodableReply` saying why not."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UndecodableReply(f"the reply is not UTF-8 ({exc.reason} at byte {exc.start}): "
                               f"{line[:200]!r}") from None
    try:
        value = json.loads(text)
    except RecursionError:
        raise UndecodableReply(f"the reply nests arrays or objects deeper than {max_depth} "
                               f"levels (too deep to parse): {line[:80]!r}...") from None
    except ValueError as exc:
        raise UndecodableReply(f"the reply is not JSON ({exc}): {line[:200]!r}") from None
    # a line with no more brackets than the limit cannot nest deeper (the cheap common case)
    if line.count(b"[") + line.count(b"{") <= max_depth:
        return value
    depth = nesting_depth(value)
    if depth > max_depth:
        raise UndecodableReply(f"the reply nests arrays or objects {depth} levels deep, deeper "
                               f"than the limit of {max_depth}")
    return value


def describe_exit(status: int | None, *, killed: bool) -> str:
    """How a process ended, from its return code (negative: the signal that ended it) and
    whether the runner sent that signal."""
    if status is None:
        return "still running"
    if status >= 0:
        return f"exited by itself (status {status})"
    try:
        name = signal.Signals(-status).name
    except ValueError:
        name = f"signal {-status}"
    return f"killed by the runner ({name})" if killed else f"ended by {name}"
