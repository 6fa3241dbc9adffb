"""A scripted adapter: streams chunks it was given, for tests, teaching and conformance.

Rules (``spec/stream.md`` § The scripted adapter, spec: stream.scripted):

- Given one chunk list, every call streams it; given a list of per-call scripts, call *n*
  streams script *n*, and a call past the last raises ``stream.scripted.exhausted``.
- ``raise_after=k`` raises :class:`~loom_ref.stream.errors.ScriptedFailure` after yielding *k*
  chunks (``k = 0`` raises before the first) — the "throw" error path.
- With ``honor_signal`` (the default) the adapter checks its signal before each chunk and
  raises ``StreamAborted`` once it has aborted, as a well-behaved adapter does.

The chunks are passed through unchecked: a script may break the contract on purpose.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from loom_ref.errors import InvalidArgument
from loom_ref.stream.adapter import LlmAdapter, LlmRequest, check_request, check_signal
from loom_ref.stream.chunks import StreamChunk, is_chunk
from loom_ref.stream.errors import ScriptedFailure, StreamAborted

if TYPE_CHECKING:
    from loom_ref.signals import Signal

__all__ = ["EXHAUSTED", "Script", "ScriptedAdapter"]

EXHAUSTED = "stream.scripted.exhausted"
"""Error code: more calls were made than scripts were given."""


def _chunks(value: Any) -> tuple[StreamChunk, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise InvalidArgument(f"Script.chunks must be a list of chunks, got {type(value).__name__}")
    for position, chunk in enumerate(value):
        if not is_chunk(chunk):
            raise InvalidArgument(
                f"Script.chunks[{position}] must be a StreamChunk, got {type(chunk).__name__}"
            )
    return tuple(value)


def _raise_after(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidArgument(f"Script.raise_after must be a non-negative int, got {value!r}")


def _error_message(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    if not isinstance(value, str):
        raise InvalidArgument(f"Script.error_message must be a str, got {type(value).__name__}")


def _honor_signal(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    if not isinstance(value, bool):
        raise InvalidArgument(f"honor_signal must be a bool, got {value!r}")


@attrs.frozen(kw_only=True)
class Script:
    """What one call streams: ``chunks``, optionally cut by a raise after ``raise_after``.
    (spec: stream.scripted)
    """

    chunks: tuple[StreamChunk, ...] = attrs.field(converter=_chunks)
    raise_after: int | None = attrs.field(default=None, validator=_raise_after)
    error_message: str = attrs.field(default="scripted failure", validator=_error_message)
    honor_signal: bool = attrs.field(default=True, validator=_honor_signal)


class ScriptedAdapter(LlmAdapter):
    """Streams scripted chunks; records every request it was called with in :attr:`calls`.
    (spec: stream.scripted)
    """

    def __init__(
        self,
        scripts: Sequence[StreamChunk] | Sequence[Script | Sequence[StreamChunk]],
        *,
        raise_after: int | None = None,
        honor_signal: bool = True,
    ) -> None:
        if isinstance(scripts, (str, bytes)) or not isinstance(scripts, (list, tuple)):
            raise InvalidArgument(
                f"scripts must be a list of chunks or of scripts, got {type(scripts).__name__}"
            )
        self.calls: list[LlmRequest] = []
        if not scripts or all(is_chunk(item) for item in scripts):
            # one chunk list: every call streams it
            self._repeat: Script | None = Script(
                chunks=list(scripts), raise_after=raise_after, honor_signal=honor_signal
            )
            self._scripts: tuple[Script, ...] = ()
            return
        if raise_after is not None:
            raise InvalidArgument("raise_after applies to a single chunk list; set it per Script")
        self._repeat = None
        self._scripts = tuple(
            item if isinstance(item, Script) else Script(chunks=item, honor_signal=honor_signal)
            for item in scripts
        )

    def stream(self, request: LlmRequest, signal: Signal) -> Iterator[StreamChunk]:
        """Stream the next script (spec: stream.scripted)."""
        check_request(request)  # spec: errors.invalid-argument
        check_signal(signal)
        call = len(self.calls)
        self.calls.append(request)
        if self._repeat is not None:
            script = self._repeat
        elif call < len(self._scripts):
            script = self._scripts[call]
        else:
            raise ScriptedFailure(
                f"call {call + 1} but only {len(self._scripts)} scripts", code=EXHAUSTED
            )
        return self._play(script, signal)

    @staticmethod
    def _play(script: Script, signal: Signal) -> Iterator[StreamChunk]:
        for position, chunk in enumerate(script.chunks):
            # spec: deltas.vector-llm -- before each chunk: the signal, then raiseAfter
            if script.honor_signal and signal.aborted:
                raise StreamAborted(f"aborted: {signal.reason}", reason=signal.reason)
            if script.raise_after is not None and position == script.raise_after:
                raise ScriptedFailure(script.error_message, after=position)
            yield chunk
        if script.raise_after is not None and script.raise_after >= len(script.chunks):
            raise ScriptedFailure(script.error_message, after=len(script.chunks))
