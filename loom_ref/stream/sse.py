"""A line-fed decoder for server-sent events (the WHATWG ``text/event-stream`` format).

Rules (``spec/stream.md`` § The OpenAI-compatible adapter, spec: stream.openai.sse): lines end at
LF, CRLF or CR; a line starting with ``:`` is a comment; ``field: value`` loses one space after
the colon; ``data`` lines of one event join with LF; a blank line dispatches an event that has
data; a partial event at end of input is discarded, as the standard requires.
"""

from __future__ import annotations

import attrs

from loom_ref.errors import InvalidArgument

__all__ = ["SseDecoder", "SseEvent"]


@attrs.frozen(kw_only=True)
class SseEvent:
    """One dispatched event."""

    event: str = "message"
    data: str = ""
    id: str | None = None


class SseDecoder:
    """Feed lines (with or without their terminator); get an event at each blank line."""

    def __init__(self) -> None:
        self._data: list[str] = []
        self._event = ""
        self._id: str | None = None

    def feed_line(self, line: str) -> SseEvent | None:
        """Consume one line; return the event it completes, if any."""
        if not isinstance(line, str):
            raise InvalidArgument(f"line must be a str, got {type(line).__name__}")
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

    def _dispatch(self) -> SseEvent | None:
        data, event = self._data, self._event
        self._data, self._event = [], ""
        if not data:
            return None
        return SseEvent(event=event or "message", data="\n".join(data), id=self._id)
