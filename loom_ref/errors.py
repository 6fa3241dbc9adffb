"""The one exception root of loom_ref, and the error categories under it.

Spec: ``spec/errors.md`` (anchor ``errors.stable-codes``): *every error raised by loom_ref
MUST be an instance of* :class:`LoomError` *and MUST carry a stable* ``code`` *string*.
Conformance cases assert on codes, never on message text, so a code is part of the public
contract: it is never renamed, only added.

Two directions, as in h11: :class:`InvalidArgument` is local misuse (the caller passed
something the API does not accept); the other categories are conditions the runtime found
(a corrupt journal, a diverged replay, a refused effect call, a broken stream protocol).

A subclass names its code as the class attribute ``code``; an instance may override it
(``LoomError("...", code="journal.corrupt")``) only to a more specific code of its family.
``details`` holds JSON values only (spec: errors.details-json), so an error can be journaled,
sent over the conformance protocol or logged as it is.

Warnings have one category too (spec: errors.warning-category): whatever reports a one-line
warning (the kernel's ``Runtime``, the ``EffectRuntime``, the agent loop) takes an ``on_warn``
callable, and without one calls :func:`warn`, which issues :class:`LoomWarning`. One filter
(``warnings.simplefilter("error", LoomWarning)``) catches every warning loom_ref gives.
"""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

__all__ = [
    "ConformanceError",
    "EffectError",
    "GovernanceError",
    "InvalidArgument",
    "JournalError",
    "KernelError",
    "LoomError",
    "LoomWarning",
    "StreamError",
    "warn",
]


class LoomWarning(UserWarning):
    """The one category of every warning loom_ref issues through its default ``on_warn``
    (spec: errors.warning-category). A ``UserWarning``, so existing filters still see it."""


def warn(message: str, *, stacklevel: int = 3) -> None:
    """The default ``on_warn`` of every part that reports warnings: ``warnings.warn(message,
    LoomWarning)`` (spec: errors.warning-category). ``stacklevel`` 3 points at the caller of
    the function that called this one."""
    warnings.warn(message, LoomWarning, stacklevel=stacklevel)


class LoomError(Exception):
    """Root of every error loom_ref raises.

    ``code`` is stable (conformance cases match on it); ``details`` holds structured data a
    caller or a test can inspect (for example the expected and actual events of a
    non-determinism error). ``str(err)`` is one line: ``"<code>: <message>"``.
    (spec: errors.stable-codes)
    """

    code: ClassVar[str] = "loom.error"

    def __init__(self, message: str, *, code: str | None = None, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code  # type: ignore[misc]  # instance override of the class default
        self.details: dict[str, Any] = details

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"

    def to_json(self) -> dict[str, Any]:
        """The ``{code, message}`` form journaled in STEP_FAILED / EXECUTION_FAILED."""
        return {"code": self.code, "message": self.message}


class InvalidArgument(LoomError, TypeError, ValueError):
    """A public entry point was called with an argument it does not accept.

    spec: errors.invalid-argument -- a public entry point rejects a bad argument with this
    class (code ``argument.invalid`` or a more specific ``argument.*``), never with an internal
    exception.

    Subclasses ``TypeError`` and ``ValueError`` too, so callers that already catch those
    keep working (the hypothesis ``InvalidArgument`` convention).
    """

    code = "argument.invalid"


class JournalError(LoomError):
    """The journal cannot be read or written as the journal chapter requires."""

    code = "journal.error"


class KernelError(LoomError):
    """The kernel refused an operation or found an execution it cannot continue."""

    code = "kernel.error"


class EffectError(LoomError):
    """An effect call was refused on its governed route, or failed inside it."""

    code = "effect.error"


class GovernanceError(LoomError):
    """Taint fencing or a safety validator refused a value."""

    code = "governance.error"


class StreamError(LoomError):
    """A ``StreamChunk`` sequence broke the adapter contract."""

    code = "stream.error"


class ConformanceError(LoomError):
    """A conformance case, message or run is malformed."""

    code = "conformance.error"
