"""The stream layer's errors: all ``StreamError`` subclasses with stable dotted codes.

Rules (``spec/stream.md`` § Errors): a contract violation raised by the strict checker, the
strict assembler or the assembler carries the broken rule's id as its ``code``
(spec: stream.errors.rule-codes); malformed wire JSON raises :class:`WireError` with a
``stream.wire.*`` code naming what is wrong, never ``KeyError`` or ``TypeError``
(spec: stream.wire.malformed).
"""

from __future__ import annotations

from typing import Any

from loom_ref.errors import StreamError

__all__ = [
    "AssemblerError",
    "ContractViolationError",
    "ProviderError",
    "ScriptedFailure",
    "StreamAborted",
    "WireError",
]


class ContractViolationError(StreamError):
    """A chunk sequence broke an adapter-contract rule; ``code`` is the rule id,
    ``details["index"]`` the offending chunk's index and ``details["rule"]`` the rule id
    (spec: stream.errors.rule-codes)."""

    code = "stream.contract"


class AssemblerError(StreamError):
    """The assembler met a value no fold can take (spec: stream.assembler.type-errors): an
    index that is not a non-negative integer, or tool-call arguments that are not a string;
    ``code`` is the rule's id (``stream.index-non-negative-integer``,
    ``stream.tool-arguments-raw-json``). The strict assembler raises
    :class:`ContractViolationError` instead, for every contract violation.
    """

    code = "stream.assembler"


class WireError(StreamError):
    """Malformed wire JSON; ``code`` is one of ``stream.wire.*`` and ``details["path"]``
    locates the offending value (spec: stream.wire.malformed)."""

    code = "stream.wire.malformed"

    def __init__(self, message: str, *, code: str, path: str, **details: Any) -> None:
        super().__init__(f"{path}: {message}", code=code, path=path, **details)
        self.path = path


class ProviderError(StreamError):
    """A provider request failed at the transport or protocol level (raised from ``stream()``,
    the first sanctioned error path) (spec: stream.adapter.two-error-paths)."""

    code = "stream.provider.error"


class ScriptedFailure(StreamError):
    """The failure a scripted adapter raises mid-stream when told to (spec: stream.scripted)."""

    code = "stream.scripted.failure"


class StreamAborted(StreamError):
    """An adapter stopped because its signal aborted (spec: stream.adapter.two-error-paths)."""

    code = "stream.aborted"
