"""Taint: untrusted content as a typed wrapper, an explicit audit point, and the request fence.

Rules (``spec/governance.md`` § Taint; ADR 0119 decision 9, ADR 0085):

- A :class:`TaintedValue` carries a ``value`` and a non-empty ``origin`` string such as
  ``llm:<toolId>``; a streamed delta is one (spec: taint.tainted-value). A tainted value is
  never wrapped again (spec: taint.no-double-wrap).
- :func:`unwrap_tainted` is the explicit audit point: "A UI tail unwraps explicitly
  (unwrapTainted) to display it -- the call site is the audit trail." It refuses a value that
  is not tainted (spec: taint.unwrap-explicit).
- :func:`guard_request` "REFUSES it at runtime if a sink feeds it into a prompt": any tainted
  value anywhere inside a request, however deeply nested, raises
  :class:`~loom_ref.governance.errors.TaintedRequestError` (spec: taint.guard-request), whose
  details name the path and the origin but not the value (spec: taint.guard-details). The walk
  terminates on cycles (spec: taint.cycles) and reads the containers listed in
  :mod:`loom_ref.governance.walk` (spec: taint.walk).
"""

from __future__ import annotations

from typing import Any, Generic, TypeGuard, TypeVar

import attrs

from loom_ref.errors import InvalidArgument
from loom_ref.governance.errors import NotTaintedError, TaintedRequestError
from loom_ref.governance.walk import walk

__all__ = ["TaintedValue", "guard_request", "is_tainted", "taint", "unwrap_tainted"]

T = TypeVar("T")


def _check_value(_instance: Any, _attribute: Any, value: Any) -> None:
    # spec: taint.no-double-wrap
    if isinstance(value, TaintedValue):
        raise InvalidArgument(
            f"value is already tainted (origin {value.origin}); a tainted value is never "
            "wrapped again"
        )


def _check_origin(_instance: Any, _attribute: Any, origin: Any) -> None:
    # spec: taint.tainted-value
    if not isinstance(origin, str) or not origin:
        raise InvalidArgument(f"origin must be a non-empty string, got {origin!r}")


@attrs.frozen(kw_only=True)
class TaintedValue(Generic[T]):
    """Untrusted content with the place it came from (spec: taint.tainted-value).

    ADR 0119 decision 9: "EffectDelta.delta is a TaintedValue<string> (origin llm:<toolId>)".
    Read ``value`` only through :func:`unwrap_tainted`, so that the call site is the audit
    trail; :func:`guard_request` refuses a request that still holds one.
    """

    value: T = attrs.field(validator=_check_value)
    origin: str = attrs.field(validator=_check_origin)


def taint(value: T, origin: str) -> TaintedValue[T]:
    """Wrap ``value`` as untrusted content from ``origin`` (e.g. ``"llm:planner"``).

    Raises ``InvalidArgument`` for an empty or non-string origin and for a value that is
    already tainted (spec: taint.no-double-wrap).
    """
    return TaintedValue(value=value, origin=origin)


def is_tainted(value: object) -> TypeGuard[TaintedValue[Any]]:
    """Whether ``value`` itself is a :class:`TaintedValue` (not whether it contains one; use
    :func:`guard_request` for that) (spec: taint.tainted-value)."""
    return isinstance(value, TaintedValue)


def unwrap_tainted(value: TaintedValue[T]) -> T:
    """Return the content of a tainted value: the explicit, greppable audit point.

    spec: taint.unwrap-explicit -- "A UI tail unwraps explicitly (unwrapTainted) to display it
    -- the call site is the audit trail." A value that is not tainted raises
    :class:`~loom_ref.governance.errors.NotTaintedError` (``argument.not-tainted``): an unwrap
    of something that was never tainted means the caller's belief about the data is wrong, and
    a lenient unwrap would invite "just in case" calls that dilute the audit trail.
    """
    if not isinstance(value, TaintedValue):
        raise NotTaintedError(
            f"unwrap_tainted() expects a TaintedValue, got {type(value).__name__}"
        )
    return value.value


def guard_request(request: object) -> None:
    """Refuse a request that holds a tainted value anywhere inside it; return ``None`` else.

    spec: taint.guard-request -- "guardRequest REFUSES it at runtime if a sink feeds it into a
    prompt." The first tainted node in document order is reported: its JSON-pointer ``path``,
    its ``origin`` and whether it was a mapping key (spec: taint.guard-details).
    """
    for node in walk(request):
        if isinstance(node.value, TaintedValue):
            raise TaintedRequestError(path=node.path, origin=node.value.origin, key=node.key)
