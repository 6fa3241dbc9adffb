"""The governance layer's errors: every one a ``GovernanceError`` (or an ``InvalidArgument``
for local misuse) with a stable dotted code.

Rules (``spec/governance.md``):

- ``governance.tainted-request``: a request held a tainted value (spec: taint.guard-request);
  ``details`` carry ``path`` (a JSON pointer) and ``origin``, never the value
  (spec: taint.guard-details).
- ``governance.safety-violation``: a validator rejected an input, an output or a running text
  (spec: validators.violation); ``details`` carry ``validator``, ``phase``, ``rule`` and
  ``span``, never the matched text (spec: validators.no-echo).
- ``governance.delta-severed``: a delta guard severed the stream BEFORE the offending delta was
  delivered (spec: guards.before-delivery); ``details`` carry the violation's details with the
  span made absolute in the attempt's text, plus ``delta_index`` and ``cause``.
- ``governance.stream-token-budget``: the token budget guard severed (spec:
  guards.token-budget). It subclasses :class:`DeltaSevered`, so a runtime catches every sever
  with one ``except``.
- ``governance.guard-state``: a guard was used out of order (spec: guards.lifecycle).
- ``argument.not-tainted``: :func:`unwrap_tainted` was handed a value that is not tainted
  (spec: taint.unwrap-explicit).
"""

from __future__ import annotations

from typing import Any

from loom_ref.errors import GovernanceError, InvalidArgument

__all__ = [
    "DeltaSevered",
    "GuardStateError",
    "NotTaintedError",
    "SafetyViolation",
    "StreamTokenBudgetExceeded",
    "TaintedRequestError",
]


class TaintedRequestError(GovernanceError):
    """A tainted value was found inside a request (spec: taint.guard-request).

    ``details["path"]`` is the JSON pointer of the tainted node, ``details["origin"]`` its
    origin and ``details["key"]`` is true when the tainted value was a mapping key.
    """

    code = "governance.tainted-request"

    def __init__(self, *, path: str, origin: str, key: bool = False) -> None:
        where = path or "the request root"
        what = "mapping key" if key else "value"
        super().__init__(
            f"a tainted {what} (origin {origin}) at {where}; unwrap_tainted() it explicitly "
            "if feeding it onward is intended",
            path=path,
            origin=origin,
            key=key,
        )


class NotTaintedError(InvalidArgument):
    """:func:`unwrap_tainted` was called on a value that is not a ``TaintedValue``
    (spec: taint.unwrap-explicit)."""

    code = "argument.not-tainted"


class SafetyViolation(GovernanceError):
    """A safety validator rejected a value (spec: validators.violation).

    ``details``: ``validator`` (name), ``phase`` (``"input"``, ``"output"`` or ``"delta"``),
    ``rule`` (the rule or pattern name), ``span`` (``[start, end]`` of the match in the text
    the check was handed) and, for the input phase, ``path`` (JSON pointer of the string).
    The matched text itself is never included (spec: validators.no-echo).
    """

    code = "governance.safety-violation"

    def __init__(
        self,
        *,
        validator: str,
        phase: str,
        rule: str,
        span: tuple[int, int],
        path: str | None = None,
        message: str | None = None,
    ) -> None:
        if not (isinstance(span, tuple | list) and len(span) == 2
                and all(type(i) is int for i in span)):  # spec: errors.invalid-argument
            raise InvalidArgument(f"span must be a (start, end) pair of ints, got {span!r}")
        extra: dict[str, Any] = {} if path is None else {"path": path}
        where = "" if path is None else f" at {path or 'the root'}"
        super().__init__(
            message
            or f"{validator} ({phase}) rule {rule!r} matched span {span[0]}-{span[1]}{where}",
            validator=validator,
            phase=phase,
            rule=rule,
            span=[span[0], span[1]],  # spec: errors.details-json -- a JSON list, not a tuple
            **extra,
        )


class DeltaSevered(GovernanceError):
    """A delta guard severed the stream before the offending delta was delivered
    (spec: guards.before-delivery).

    Constructed with :class:`~loom_ref.errors.LoomError`'s signature; :meth:`again` builds the
    error a severed guard raises on every later use (spec: guards.sticky-sever).
    """

    code = "governance.delta-severed"

    def again(self) -> DeltaSevered:
        """A fresh error with the same class, code and details, marked ``repeated``."""
        return type(self)(self.message, code=self.code, **{**self.details, "repeated": True})


class StreamTokenBudgetExceeded(DeltaSevered):
    """The stream token budget guard severed before the delta that would exceed the budget
    (spec: guards.token-budget). ``details``: ``max_tokens``, ``used`` (before this delta),
    ``delta_tokens``, ``delta_index``."""

    code = "governance.stream-token-budget"


class GuardStateError(GovernanceError):
    """A guard was used in a state that does not accept the operation (a lookup miss in the
    lifecycle table; spec: guards.lifecycle). ``details``: ``state``, ``event``."""

    code = "governance.guard-state"
