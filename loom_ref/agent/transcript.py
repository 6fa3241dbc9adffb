"""The transcript: the message list an agent loop re-sends each turn, and its running byte count.

Spec: ``spec/agent.md``.

- ``agent.transcript-json``: the transcript is a list of messages in the stream layer's wire
  form (``{"role": ..., "content": [blocks]}``); it is journaled as each turn's STEP_STARTED
  input, so it holds JSON values only.
- ``agent.byte-count``: the loop keeps a running UTF-8 byte count of the transcript, *"updated
  at every message push (O(1) amortized per message, never a re-serialization of the array)"*
  (ADR 0087, amendment 2026-09-27). A message's size is the UTF-8 length of its canonical JSON
  (``agent.canonical-json``); the count is the sum of the sizes of the messages held. A push
  measures only the pushed message; a fold subtracts the folded sizes and adds the summary's.
  The per-message sizes are kept so the kept-suffix rule (``agent.kept-suffix-bytes``) reads
  the newest sizes without measuring anything again.
- ``agent.message-size`` (loom-ref's choice): the messages measured are loom-ref's forms
  (``{"role", "content"}`` only, tool results as ``agent.tool-result`` writes them), so a
  count to the byte is loom-ref's; a port measuring its own forms differs by a few bytes.
- A message is frozen as it is pushed (``journal.frozen-values``,
  :func:`~loom_ref.journal.frozen.frozen_json`): it is a JSON value that never changes, so
  a content-resolving store (``spec/journal.md`` 1.10) knows it again in every later turn's
  input without encoding it again, and the loop cannot change a message it already sent.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from loom_ref.agent.canonical import canonical_bytes
from loom_ref.errors import InvalidArgument
from loom_ref.journal.frozen import frozen_json

__all__ = ["Transcript", "message_bytes"]


def message_bytes(message: Any) -> int:
    """The size of one message: UTF-8 bytes of its canonical JSON (spec: agent.byte-count)."""
    return len(canonical_bytes(message))


class Transcript:
    """Messages (wire-form JSON) with their sizes and the running total ``bytes``.
    (spec: agent.byte-count)
    """

    __slots__ = ("bytes", "messages", "sizes")

    def __init__(self, messages: Iterable[Any] = ()) -> None:
        if isinstance(messages, str | bytes) or not isinstance(messages, Iterable):
            raise InvalidArgument(f"messages must be an iterable of messages, got "
                                  f"{type(messages).__name__}")  # spec: errors.invalid-argument
        self.messages: list[Any] = []
        self.sizes: list[int] = []
        self.bytes = 0
        for message in messages:
            self.push(message)

    def __len__(self) -> int:
        return len(self.messages)

    def push(self, message: Any) -> int:
        """Append ``message``; measure it alone and add its size (spec: agent.byte-count).
        Returns the new total."""
        size = message_bytes(message)
        self.messages.append(frozen_json(message))  # spec: journal.frozen-values
        self.sizes.append(size)
        self.bytes += size
        return self.bytes

    def fold(self, count: int, summary: Any) -> list[Any]:
        """Replace the oldest ``count`` messages by ``summary``; return the folded messages.

        Work is proportional to the messages moved, never to a re-serialisation of the rest.
        """
        if type(count) is not int or not 0 < count <= len(self.messages):
            raise InvalidArgument(f"cannot fold {count!r} of {len(self.messages)} messages")
        folded = self.messages[:count]
        folded_bytes = sum(self.sizes[:count])
        size = message_bytes(summary)
        self.messages[:count] = [frozen_json(summary)]  # spec: journal.frozen-values
        self.sizes[:count] = [size]
        self.bytes += size - folded_bytes
        return folded

    def snapshot(self) -> list[Any]:
        """A shallow copy of the messages, for one turn's model input."""
        return list(self.messages)
