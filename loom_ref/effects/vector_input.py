"""Reading the JSON input of the effect layer's conformance functions.

Every function of :mod:`loom_ref.effects.vectors` rejects a malformed input with
``argument.invalid`` (``spec/deltas.md`` §3a.9-10, ``spec/effects.md`` §3.8): an unknown key is
refused, not ignored, and every value is checked before anything runs. These helpers do the
checking; they never coerce.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, overload

from loom_ref.effects.call import Mode
from loom_ref.effects.effect import ALL_MODES
from loom_ref.errors import InvalidArgument, LoomError

__all__ = ["boolean", "error_json", "integer", "items", "modes", "number", "obj", "string"]


def obj(value: object, what: str, allowed: frozenset[str]) -> Mapping[str, Any]:
    """``value`` as a JSON object whose keys are all in ``allowed``."""
    if not isinstance(value, Mapping):
        raise InvalidArgument(f"{what} must be a JSON object")
    unknown = sorted(set(value) - allowed)
    if unknown:
        raise InvalidArgument(f"{what}: unknown key(s) {unknown}")
    return value


def modes(data: Mapping[str, Any], key: str, what: str) -> frozenset[Mode]:
    """``data[key]`` as a list of modes (``"durable"``, ``"transient"``; absent: both).

    A ``null`` is not absent: "an optional member given as null MUST be read as a value of
    the wrong type" (``errors.vector-null``), so it is refused like any other non-list.
    """
    if key not in data:
        return ALL_MODES
    value = data[key]
    if not isinstance(value, list) or not value or any(m not in ("durable", "transient")
                                                        for m in value):
        raise InvalidArgument(f'{what} must be a non-empty list of "durable" / "transient"')
    return frozenset(Mode(m) for m in value)


def items(data: Mapping[str, Any], key: str, what: str) -> list[Any]:
    """``data[key]`` as a list (absent: empty)."""
    value = data.get(key, [])
    if not isinstance(value, list):
        raise InvalidArgument(f'{what}."{key}" must be a list')
    return value


def boolean(data: Mapping[str, Any], key: str, default: bool) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise InvalidArgument(f'"{key}" must be a boolean')
    return value


@overload
def integer(data: Mapping[str, Any], key: str, default: int, minimum: int) -> int: ...


@overload
def integer(data: Mapping[str, Any], key: str, default: None, minimum: int) -> int | None: ...


def integer(data: Mapping[str, Any], key: str, default: int | None, minimum: int) -> int | None:
    """``data[key]`` as an integer >= ``minimum``; absent: ``default`` (None only for an
    absent member: a member given as null is a value of the wrong type,
    spec: errors.vector-null). With an integer default the answer is an integer."""
    if key not in data:
        return default
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InvalidArgument(f'"{key}" must be an integer >= {minimum}')
    return value


def number(data: Mapping[str, Any], key: str, default: float | None) -> float:
    """``data[key]`` as a finite number; absent: ``default`` (None: the member is required)."""
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidArgument(f'"{key}" must be a finite number')
    return float(value)


def string(data: Mapping[str, Any], key: str, default: str | None = None) -> str:
    value = data.get(key, default)
    if not isinstance(value, str) or not value:
        raise InvalidArgument(f'"{key}" must be a non-empty string')
    return value


def error_json(error: LoomError) -> dict[str, Any]:
    """The observable part of an error a conformance function reports: its ``code``, plus
    what the spec fixes for that code (the abort reason, the kill reason, the authorizer's
    triple, a scripted failure's message, ``retryAfter``, an LLM stream's ``failure``) and,
    for an abort that won over the effect's own error, that error's code as ``cause``."""
    out: dict[str, Any] = {"code": error.code}
    details = error.details
    code = error.code
    if code == "effect.aborted":
        out["reason"] = details.get("reason")
    elif code == "effect.killed":
        out["message"] = error.message  # spec: effects.refusal-codes -- the kill reason
    elif code == "effect.denied":
        out["toolId"] = details.get("tool_id")
        out["principal"] = details.get("principal")
        out["mode"] = details.get("mode")
    elif code == "effect.rate-limited":
        after = details.get("retry_after")
        finite = isinstance(after, float) and math.isfinite(after)
        out["retryAfter"] = round(after, 6) if isinstance(after, float) and finite else None
    elif code in ("effect.llm-error", "effect.llm-aborted"):
        out["failure"] = details.get("failure")
    elif details.get("scripted") is True:
        out["message"] = error.message
    cause = error.__cause__
    if code == "effect.aborted" and isinstance(cause, LoomError):
        out["cause"] = cause.code  # spec: effects.signal-abort-cause -- the effect's own error
    return out
