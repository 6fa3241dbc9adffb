"""Why a stream ended.

Rules (``spec/stream.md`` § FinishReason):

- The kinds are closed: ``stop``, ``tool-calls``, ``max-tokens``, ``aborted`` and ``error``.
  (spec: stream.finish.kinds)
- ``aborted`` and ``error`` carry a ``Failure``; the other kinds carry none.
  (spec: stream.finish.failure)
"""

from __future__ import annotations

from typing import Any

import attrs

from loom_ref.enums import LoomEnum
from loom_ref.errors import InvalidArgument

__all__ = ["Failure", "FinishKind", "FinishReason"]


class FinishKind(LoomEnum):
    """The closed set of finish kinds (spec: stream.finish.kinds)."""

    STOP = "stop"
    TOOL_CALLS = "tool-calls"
    MAX_TOKENS = "max-tokens"
    ABORTED = "aborted"
    ERROR = "error"


FAILED_KINDS = frozenset({FinishKind.ABORTED, FinishKind.ERROR})
"""Kinds that report a failure; only these may leave blocks open (stream.open-blocks-at-finish)."""


def _optional_str(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is not None and not isinstance(value, str):
        raise InvalidArgument(f"Failure.{attribute.name} must be a str or None, got {value!r}")


def _message(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    if not isinstance(value, str):
        raise InvalidArgument(f"Failure.message must be a str, got {type(value).__name__}")


@attrs.frozen(kw_only=True)
class Failure:
    """What went wrong: a human-readable ``message`` and, optionally, a stable ``code``.

    ``code`` is loom-ref's addition (the seed leaves the failure's shape open): the consumer
    wrapper puts the raised error's stable code there, so a conformance case can match on it.
    ``message`` is any string, ``""`` included. (spec: stream.finish.failure,
    stream.finish.failure-form)
    """

    message: str = attrs.field(validator=_message)
    code: str | None = attrs.field(default=None, validator=_optional_str)


@attrs.frozen(kw_only=True)
class FinishReason:
    """A finish kind plus, for ``aborted``/``error``, the failure.

    spec: stream.finish.failure — "``aborted`` and ``error`` carry a ``Failure``; the other
    kinds carry none."
    """

    kind: FinishKind
    failure: Failure | None = None

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.kind, FinishKind):
            raise InvalidArgument(f"FinishReason.kind must be a FinishKind, got {self.kind!r}")
        if self.kind in FAILED_KINDS:
            if not isinstance(self.failure, Failure):
                raise InvalidArgument(f"a {self.kind.value} finish needs a Failure")
        elif self.failure is not None:
            raise InvalidArgument(f"a {self.kind.value} finish carries no failure")

    @property
    def failed(self) -> bool:
        """True for ``aborted`` and ``error``."""
        return self.kind in FAILED_KINDS

    @classmethod
    def stop(cls) -> FinishReason:
        return cls(kind=FinishKind.STOP)

    @classmethod
    def tool_calls(cls) -> FinishReason:
        return cls(kind=FinishKind.TOOL_CALLS)

    @classmethod
    def max_tokens(cls) -> FinishReason:
        return cls(kind=FinishKind.MAX_TOKENS)

    @classmethod
    def error(cls, message: str, code: str | None = None) -> FinishReason:
        return cls(kind=FinishKind.ERROR, failure=Failure(message=message, code=code))

    @classmethod
    def aborted(cls, message: str, code: str | None = None) -> FinishReason:
        return cls(kind=FinishKind.ABORTED, failure=Failure(message=message, code=code))
