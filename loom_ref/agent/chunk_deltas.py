"""``chunk_deltas``: batch provider deltas to a sentence boundary before handing them on.

Spec: ``spec/agent.md`` § Streaming granularity; ADR 0087 D7: *"chunkDeltas(emit, { minChars
}) batches provider deltas to a semantic boundary before handing them on"* -- because
``ctx.stream`` appends a durable event per call, *"Wrapping the sink turns the delta count
from a property of the provider's tokenizer into a decision."*

- ``agent.chunk-boundary``: a boundary ends just after a newline, or just after one
  whitespace character that follows ``.``, ``!``, ``?`` (or ``。！？``) and at most three
  closing quotes or brackets. A full stop not yet followed by whitespace is not a boundary
  yet (``3.14`` is not cut).
- ``agent.chunk-min-chars``: after each push, if the buffered text up to its *last*
  boundary is at least ``min_chars`` characters, that prefix is emitted as one batch and
  the rest stays buffered. A batch is never emitted without a boundary, except by a flush.
- ``agent.chunk-flush``: ``flush()`` emits whatever is buffered (if anything) as a final
  batch. Concatenating every batch gives exactly the concatenated deltas.

The API is one object: ``chunker = chunk_deltas(emit, min_chars=40)``; ``chunker.push(text)``
(the object is itself callable, so it is a delta sink) and ``chunker.flush()``. Empty deltas
are ignored. The work per push is proportional to the delta plus a constant look-back, not
to the buffer.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from loom_ref.errors import InvalidArgument

__all__ = ["DEFAULT_MIN_CHARS", "DeltaChunker", "chunk_deltas"]

#: loom-ref's default ``min_chars`` (the seed leaves the number open).
DEFAULT_MIN_CHARS = 40

# spec: agent.chunk-boundary
_BOUNDARY = re.compile(r"[.!?。！？][\"'”’)\]]{0,3}\s|\n")
_LOOK_BACK = 5  # punctuation + up to three closers + the whitespace


class DeltaChunker:
    """Buffers text deltas and hands ``emit`` sentence-sized batches (see module rules).
    (spec: agent.chunk-boundary)
    """

    __slots__ = ("_buffer", "_cut", "_scan", "emit", "min_chars")

    def __init__(self, emit: Callable[[str], object], min_chars: int) -> None:
        if not callable(emit):
            raise InvalidArgument("emit must be callable")
        if isinstance(min_chars, bool) or not isinstance(min_chars, int) or min_chars < 1:
            raise InvalidArgument(f"min_chars must be an int >= 1, got {min_chars!r}")
        self.emit = emit
        self.min_chars = min_chars
        self._buffer = ""
        self._cut = 0  # end of the last boundary found in the buffer
        self._scan = 0  # where the next boundary search starts

    @property
    def pending(self) -> str:
        """Text buffered and not yet emitted."""
        return self._buffer

    def push(self, text: str) -> None:
        """Buffer ``text``; emit up to the last boundary once that is ``min_chars`` long
        (spec: agent.chunk-min-chars)."""
        if not isinstance(text, str):
            raise InvalidArgument(f"a delta must be a str, got {type(text).__name__}")
        if not text:
            return
        self._buffer += text
        for match in _BOUNDARY.finditer(self._buffer, self._scan):
            self._cut = match.end()
        self._scan = max(self._cut, len(self._buffer) - _LOOK_BACK)
        if self._cut >= self.min_chars:
            batch, self._buffer = self._buffer[: self._cut], self._buffer[self._cut :]
            self._cut = 0
            self._scan = max(0, len(self._buffer) - _LOOK_BACK)
            self.emit(batch)

    __call__ = push

    def flush(self) -> None:
        """Emit the buffered remainder, if any (spec: agent.chunk-flush)."""
        batch = self._buffer
        self._buffer, self._cut, self._scan = "", 0, 0
        if batch:
            self.emit(batch)


def chunk_deltas(emit: Callable[[str], object], *,
                 min_chars: int = DEFAULT_MIN_CHARS) -> DeltaChunker:
    """Wrap ``emit`` so it receives sentence-sized batches (ADR 0087 D7).
    (spec: agent.chunk-min-chars)
    """
    return DeltaChunker(emit, min_chars)
