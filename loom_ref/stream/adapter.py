"""The ``LlmAdapter`` seam and the consumer wrapper that folds both error paths into one.

Rules (``spec/stream.md`` § The adapter seam):

- An adapter implements ``stream(request, signal)`` returning an iterator of chunks that obeys
  the contract. (spec: stream.adapter.seam)
- Two sanctioned error paths: "A failure may either THROW from ``stream()`` (transport/protocol
  errors) **or** end the stream with ``finish {kind:'error'|'aborted'}``... Consumers must handle
  *both*." (spec: stream.adapter.two-error-paths)
- :func:`consume` is that handling, done once: a raise becomes a terminal finish — ``aborted``
  when the signal has aborted, else ``error`` — carrying the error's code; a stream that ends
  without a finish ends in ``finish error``; an aborted signal severs the stream at the next
  chunk with ``finish aborted``; nothing is read after the adapter's finish. Its output always
  has exactly one finish, last. (spec: stream.adapter.consumer-wrapper)

Only ``Exception`` is converted: a ``BaseException`` (the crash model's simulated process
death, ``KeyboardInterrupt``) passes through untouched.
"""

from __future__ import annotations

import abc
import math
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from loom_ref.errors import InvalidArgument, LoomError
from loom_ref.stream.blocks import Message
from loom_ref.stream.chunks import FinishChunk, StreamChunk
from loom_ref.stream.finish import FinishReason

if TYPE_CHECKING:  # the stream layer is the lowest: no runtime import of effects
    from loom_ref.signals import Signal

__all__ = [
    "ADAPTER_RAISED",
    "MISSING_FINISH",
    "SIGNAL_ABORTED",
    "LlmAdapter",
    "LlmRequest",
    "ToolSpec",
    "check_request",
    "check_signal",
    "consume",
    "guard_stream",
]

ADAPTER_RAISED = "stream.adapter-raised"
"""Failure code for a raised exception that carries no stable code of its own."""

MISSING_FINISH = "stream.missing-finish"
"""Failure code when an adapter's iterator ends without a finish chunk."""

SIGNAL_ABORTED = "stream.aborted"
"""Failure code when the signal severed the stream."""


def _tools(value: Any) -> tuple[ToolSpec, ...]:
    if not isinstance(value, (list, tuple)) or not all(isinstance(t, ToolSpec) for t in value):
        raise InvalidArgument("LlmRequest.tools must be a sequence of ToolSpec")
    return tuple(value)


def _messages(value: Any) -> tuple[Message, ...]:
    if not isinstance(value, (list, tuple)) or not all(isinstance(m, Message) for m in value):
        raise InvalidArgument("LlmRequest.messages must be a sequence of Message")
    return tuple(value)


def _nonempty_str(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    if not isinstance(value, str) or not value:
        raise InvalidArgument(f"{type(instance).__name__}.{attribute.name} must be a non-empty str")


def _description(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    if not isinstance(value, str):
        raise InvalidArgument(f"ToolSpec.description must be a str, got {type(value).__name__}")


def _schema(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    if not isinstance(value, Mapping):
        raise InvalidArgument(f"ToolSpec.parameters must be a JSON Schema object, got "
                              f"{type(value).__name__}")


@attrs.frozen(kw_only=True)
class ToolSpec:
    """A tool the model may call: ``parameters`` is its JSON Schema (an object).
    (spec: stream.adapter.seam)
    """

    name: str = attrs.field(validator=_nonempty_str)
    description: str = attrs.field(default="", validator=_description)
    parameters: Mapping[str, Any] = attrs.field(factory=dict, validator=_schema)


def _optional_int(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is not None and (type(value) is bool or not isinstance(value, int)):
        raise InvalidArgument(f"LlmRequest.{attribute.name} must be an int or None, "
                              f"got {value!r}")


def _optional_number(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is not None and (type(value) is bool or not isinstance(value, (int, float))
                              or not math.isfinite(value)):
        raise InvalidArgument(f"LlmRequest.{attribute.name} must be a finite number or None, "
                              f"got {value!r}")


@attrs.frozen(kw_only=True)
class LlmRequest:
    """One model call: model id, conversation, tools and sampling limits (``max_tokens`` an
    int, ``temperature`` a finite number; None leaves each to the provider).
    (spec: stream.adapter.seam)"""

    model: str = attrs.field(validator=_nonempty_str)
    messages: tuple[Message, ...] = attrs.field(converter=_messages)
    tools: tuple[ToolSpec, ...] = attrs.field(default=(), converter=_tools)
    max_tokens: int | None = attrs.field(default=None, validator=_optional_int)
    temperature: float | None = attrs.field(default=None, validator=_optional_number)


class LlmAdapter(abc.ABC):
    """The provider seam: subclass and implement :meth:`stream`.

    spec: stream.adapter.seam — an adapter "only has to emit well-formed chunks — block
    reassembly is not each adapter's problem".
    """

    @abc.abstractmethod
    def stream(self, request: LlmRequest, signal: Signal) -> Iterator[StreamChunk]:
        """Stream the model's reply to ``request``; stop early when ``signal`` aborts."""


def _failure_of(error: Exception, signal: Signal) -> FinishReason:
    if isinstance(error, LoomError):
        code, message = error.code, error.message
    else:
        code, message = ADAPTER_RAISED, str(error)
    message = message or type(error).__name__
    if signal.aborted:
        # spec: stream.adapter.consumer-wrapper — "aborted when the signal was aborted"
        return FinishReason.aborted(f"aborted: {signal.reason}", code=SIGNAL_ABORTED)
    return FinishReason.error(message, code=code)


def _close(iterator: Iterator[StreamChunk]) -> None:
    close = getattr(iterator, "close", None)
    if callable(close):
        close()


def check_signal(signal: object) -> Signal:
    """Return ``signal`` if it reads like a :class:`~loom_ref.signals.Signal` (has ``aborted``
    and ``reason``), else raise InvalidArgument (spec: errors.invalid-argument)."""
    if not (hasattr(signal, "aborted") and hasattr(signal, "reason")):
        raise InvalidArgument(f"signal must be a Signal, got {type(signal).__name__}")
    return signal  # type: ignore[return-value]


def check_request(request: object) -> None:
    """Raise InvalidArgument unless ``request`` is an :class:`LlmRequest` (spec:
    errors.invalid-argument)."""
    if not isinstance(request, LlmRequest):
        raise InvalidArgument(f"request must be an LlmRequest, got {type(request).__name__}")


def guard_stream(source: Iterable[StreamChunk], signal: Signal) -> Iterator[StreamChunk]:
    """Wrap an already-started chunk source so that its output always ends in one finish.

    spec: stream.adapter.two-error-paths, stream.adapter.consumer-wrapper. ``signal`` is
    checked at the call (spec: errors.invalid-argument); ``source`` is not: a source that
    cannot be iterated is the adapter's failure, and ends the output in ``finish error``.
    """
    return _guard(source, check_signal(signal))


def _iterator(source: Iterable[StreamChunk], signal: Signal) -> Iterator[StreamChunk]:
    """``iter(source)``; a source that cannot be iterated (a Python adapter's ``stream()``
    returning no iterable) is the adapter's failure: one ``finish error``."""
    try:
        return iter(source)
    except Exception as error:
        return iter((FinishChunk(reason=_failure_of(error, signal)),))


def _guard(source: Iterable[StreamChunk], signal: Signal) -> Iterator[StreamChunk]:
    iterator = _iterator(source, signal)
    try:
        while True:
            if signal.aborted:
                # seed 000: "checks the signal in its loop and severs at the next chunk"
                yield FinishChunk(
                    reason=FinishReason.aborted(f"aborted: {signal.reason}", code=SIGNAL_ABORTED)
                )
                return
            try:
                chunk = next(iterator)
            except StopIteration:
                yield FinishChunk(
                    reason=FinishReason.error(
                        "the adapter's stream ended without a finish chunk", code=MISSING_FINISH
                    )
                )
                return
            except Exception as error:
                yield FinishChunk(reason=_failure_of(error, signal))
                return
            yield chunk
            if isinstance(chunk, FinishChunk):
                return  # spec: stream.nothing-after-finish — read no further
    finally:
        _close(iterator)


def consume(adapter: LlmAdapter, request: LlmRequest, signal: Signal) -> Iterator[StreamChunk]:
    """Call ``adapter.stream(request, signal)`` and guard it (see :func:`guard_stream`).

    A raise from ``stream()`` itself, before any chunk, is converted the same way.
    (spec: stream.adapter.consumer-wrapper)
    """
    if not isinstance(adapter, LlmAdapter):
        raise InvalidArgument(f"adapter must be an LlmAdapter, got {type(adapter).__name__}")
    check_request(request)
    check_signal(signal)
    try:
        source = adapter.stream(request, signal)
    except Exception as error:
        return iter((FinishChunk(reason=_failure_of(error, signal)),))
    return _guard(source, signal)
