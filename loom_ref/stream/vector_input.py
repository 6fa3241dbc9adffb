"""How the stream vector functions read their input objects (``spec/stream.md``,
spec: stream.vectors.input-order): not an object, then unknown members, then missing ones, each
a ``stream.wire.*`` :class:`WireError`; counts are non-negative integers. Header names come
back in lowercase (spec: stream.vectors.header-names).
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from typing import Any

from loom_ref.stream.errors import WireError

__all__ = ["input_count", "input_fields", "lowercase_names"]


def input_fields(payload: object, required: Set[str], optional: Set[str] = frozenset()) -> Any:
    """The input object, refusing unknown and missing members (``stream.wire.*`` codes), in
    the order of ``stream.vectors.input-order``: not an object, unknown, then missing."""
    if not isinstance(payload, Mapping):
        raise WireError("the input is not an object", code="stream.wire.not-an-object", path="$")
    extra = sorted(str(k) for k in payload if k not in required | optional)
    if extra:
        raise WireError(
            f"unknown input field(s) {extra}", code="stream.wire.unknown-field", path="$"
        )
    for name in sorted(required):
        if name not in payload:
            raise WireError(
                f"missing field {name!r}", code="stream.wire.missing-field", path=f"$.{name}"
            )
    return payload


def input_count(value: object, path: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise WireError(
            "expected a non-negative integer", code="stream.wire.field-type", path=path
        )
    return value


def lowercase_names(headers: dict[str, str]) -> dict[str, str]:
    """Header names as the vector functions return them: lowercase, as HTTP/2 sends them and
    dsh-llm writes them (spec: stream.vectors.header-names; RFC 9110 section 5.1: a field name
    is case-insensitive)."""
    return {name.lower(): value for name, value in headers.items()}
