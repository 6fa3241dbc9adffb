"""Canonical JSON: the one serialisation the agent loop measures and hashes.

Spec: ``spec/agent.md`` (``agent.canonical-json``): *the canonical JSON of a value is
``json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True,
allow_nan=False)``, encoded as UTF-8.* The transcript's byte count (``agent.byte-count``) and
the claim-check reference (``agent.claim-check-ref``) are both defined over it, so another
implementation reproduces them from the rule alone.
"""

from __future__ import annotations

import json
from typing import Any

from loom_ref.errors import InvalidArgument

__all__ = ["canonical_bytes", "canonical_json"]

_encode = json.JSONEncoder(
    ensure_ascii=False, separators=(",", ":"), sort_keys=True, allow_nan=False
).encode


def canonical_json(value: Any) -> str:
    """The canonical JSON text of ``value`` (spec: agent.canonical-json); a value that is not
    made of JSON values (a NaN, bytes, an object) has none (``argument.invalid``, spec:
    errors.invalid-argument)."""
    try:
        return _encode(value)
    except (TypeError, ValueError) as exc:
        raise InvalidArgument(f"not made of JSON values: {exc}") from None


def canonical_bytes(value: Any) -> bytes:
    """The UTF-8 bytes of :func:`canonical_json`; a string with a lone surrogate has none
    (``argument.invalid``: not a JSON value, as in ``journal.json-values``)."""
    try:
        return _encode(value).encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidArgument("a string holds a lone surrogate, which UTF-8 cannot carry") from None
    except (TypeError, ValueError) as exc:
        raise InvalidArgument(f"not made of JSON values: {exc}") from None
