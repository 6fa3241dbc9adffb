"""The pure functions that the ``stream.*`` conformance vector groups call, JSON in, JSON out.

Rules (``spec/stream.md`` § Conformance vectors, spec: stream.vectors):

- ``stream.check``: input ``{"chunks": [wire chunks]}`` → result
  ``{"violations": [{"rule": <rule id>, "index": <chunk position>}, ...]}`` in chunk order.
- ``stream.assemble``: input ``{"chunks": [wire chunks]}`` → result
  ``{"message": <Message>, "finish": <FinishReason>, "usage": <TokenUsage> | null}``.

Either raises a ``StreamError`` whose ``code`` is the case's expected error code (a
``stream.wire.*`` code for malformed input; an assembler or rule code for a stream the
assembler cannot fold).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from loom_ref.stream.assembler import assemble
from loom_ref.stream.contract import check
from loom_ref.stream.errors import WireError
from loom_ref.stream.wire import (
    chunks_from_json,
    finish_reason_to_json,
    message_to_json,
    usage_to_json,
)

__all__ = ["VECTOR_FUNCTIONS", "assemble_vector", "check_vector"]


def _chunks_of(payload: object) -> Any:
    if not isinstance(payload, Mapping):
        raise WireError("the input is not an object", code="stream.wire.not-an-object", path="$")
    extra = sorted(str(k) for k in payload if k != "chunks")
    if extra:
        raise WireError(
            f"unknown input field(s) {extra}", code="stream.wire.unknown-field", path="$"
        )
    if "chunks" not in payload:
        raise WireError("missing field 'chunks'", code="stream.wire.missing-field", path="$.chunks")
    return chunks_from_json(payload["chunks"], "$.chunks")


def check_vector(payload: object) -> dict[str, Any]:
    """``stream.check``: the contract checker over wire chunks."""
    violations = check(_chunks_of(payload))
    return {"violations": [v.to_json() for v in violations]}


def assemble_vector(payload: object) -> dict[str, Any]:
    """``stream.assemble``: the assembler over wire chunks."""
    result = assemble(_chunks_of(payload))
    return {
        "message": message_to_json(result.message),
        "finish": finish_reason_to_json(result.finish),
        "usage": None if result.usage is None else usage_to_json(result.usage),
    }


VECTOR_FUNCTIONS: dict[str, Callable[[object], dict[str, Any]]] = {
    "stream.check": check_vector,
    "stream.assemble": assemble_vector,
}
"""Conformance function name → implementation, for the conformance runner."""
