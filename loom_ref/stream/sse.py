"""A line-fed decoder for server-sent events (the WHATWG ``text/event-stream`` format).

Rules (``spec/stream.md`` § The OpenAI-compatible adapter, spec: stream.openai.sse): lines end at
LF, CRLF or CR; a line starting with ``:`` is a comment; ``field: value`` loses one space after
the colon; ``data`` lines of one event join with LF; a blank line dispatches an event that has
data; a partial event at end of input is discarded, as the standard requires; one leading
U+FEFF (byte order mark) at the start of the stream is ignored.

:meth:`SseDecoder.feed` takes text in pieces of any size (a CRLF split between two pieces is one
line end); :meth:`SseDecoder.feed_line` takes one line at a time.
"""

from __future__ import annotations

import re

import attrs

from loom_ref.errors import InvalidArgument

__all__ = ["SseDecoder", "SseEvent"]

_LINE_END = re.compile(r"\r\n|\r|\n")


@attrs.frozen(kw_only=True)
class SseEvent:
    """One dispatched event (spec: stream.openai.sse)."""

    event: str = "message"
    data: str = ""
    id: str | None = None


class SseDecoder:
    """Feed lines (with or without their terminator); get an event at each blank line.
    (spec: stream.openai.sse)
    """

    def __init__(self) -> None:
        self._data: list[str] = []
        self._event = ""
        self._id: str | None = None
        self._partial = ""  # text after the last line end seen by feed()
        self._after_cr = False  # the last piece fed ended with CR: a leading LF is its pair
        self._at_start = True  # nothing fed yet: a leading byte order mark is dropped

    def feed(self, text: str) -> list[SseEvent]:
        """Consume a piece of the stream; return the events it completes, in order.

        spec: stream.openai.sse -- lines end at LF, CRLF or CR, wherever the pieces are cut; the
        text after the last line end waits for the next piece (and is discarded if none comes).
        """
        if not isinstance(text, str):
            raise InvalidArgument(f"text must be a str, got {type(text).__name__}")
        if self._at_start and text:  # spec: stream.openai.sse -- one leading BOM is ignored
            text, self._at_start = text.removeprefix("\ufeff"), False
        if self._after_cr and text.startswith("\n"):
            text = text[1:]  # the LF of a CRLF cut between two pieces
        if text:
            self._after_cr = text.endswith("\r")
        *lines, self._partial = _LINE_END.split(self._partial + text)
        events = []
        for line in lines:
            event = self.feed_line(line)
            if event is not None:
                events.append(event)
        return events

    def feed_line(self, line: str) -> SseEvent | None:
        """Consume one line; return the event it completes, if any."""
        if not isinstance(line, str):
            raise InvalidArgument(f"line must be a str, got {type(line).__name__}")
        if self._at_start:  # the first line of the stream: a leading BOM is ignored
            line, self._at_start = line.removeprefix("\ufeff"), False
        line = line.rstrip("\r\n")
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id" and "\0" not in value:
            self._id = value
        return None  # "retry" and unknown fields are ignored

    def close(self) -> SseEvent | None:
        """The end of input for a body whose last event may lack its blank line (spec:
        stream.anthropic.sse): the pending event is dispatched when every one of its lines
        ended; the text after the last line end is a partial line and is dropped. (A WHATWG
        reader, :meth:`feed` alone, discards the whole pending event.)"""
        self._partial = ""
        self._after_cr = False
        return self._dispatch()

    def _dispatch(self) -> SseEvent | None:
        data, event = self._data, self._event
        self._data, self._event = [], ""
        if not data:
            return None
        return SseEvent(event=event or "message", data="\n".join(data), id=self._id)
