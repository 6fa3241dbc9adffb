"""The governance layer's conformance functions: JSON in, JSON out (``spec/governance.md``
§ Conformance functions; spec: guards.vector-run).

Each function takes a case's ``input`` and returns its ``result``; a malformed input raises a
``LoomError`` whose code the case expects. :data:`VECTOR_FUNCTIONS` maps the case ``function``
names to them, for the conformance harness.

- ``taint.guard_request``: ``{"request": <json>}`` where an object ``{"$tainted": {"value": v,
  "origin": "llm:x"}}`` stands for a tainted value (spec: taint.vector-encoding) ->
  ``{"ok": true}`` or ``{"ok": false, "code", "path", "origin"}``.
- ``validators.check_output``: ``{"validator": <validator>, "text": "..."}`` -> ``{"ok": true}``
  or ``{"ok": false, "code", "validator", "rule", "span"}``.
- ``guards.run``: ``{"validators": [<validator>...], "window"?: n, "deltas": [...],
  "holdBack"?: false, "maxTokens"?: n}`` -> ``{"delivered", "flushed", "severedAt", "code",
  "rule"}``.
- A ``<validator>`` is ``{"kind": "pii", "delta"?: true}`` or ``{"kind": "deny", "patterns":
  {name: regex} | [regex...], "flags"?: ["IGNORECASE" | "MULTILINE" | "DOTALL"], "delta"?: true,
  "maxWidth"?: n}``; an object's rules are tried in name order, a list's in list order.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from loom_ref.errors import InvalidArgument
from loom_ref.governance.budget import stream_token_budget
from loom_ref.governance.deny import deny_patterns
from loom_ref.governance.errors import (
    DeltaSevered,
    SafetyViolation,
    StreamTokenBudgetExceeded,
    TaintedRequestError,
)
from loom_ref.governance.guards import DEFAULT_WINDOW, DeltaGuard, GuardChain, RunningTextGuard
from loom_ref.governance.holdback import HoldBackGuard
from loom_ref.governance.pii import pii_validator
from loom_ref.governance.taint import TaintedValue, guard_request
from loom_ref.governance.validators import SafetyValidator

__all__ = [
    "VECTOR_FUNCTIONS",
    "decode_request",
    "decode_validator",
    "vector_check_output",
    "vector_guard_request",
    "vector_guards_run",
]

_FLAGS = {"IGNORECASE": re.IGNORECASE, "MULTILINE": re.MULTILINE, "DOTALL": re.DOTALL}
TAINT_KEY = "$tainted"


def _obj(value: object, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise InvalidArgument(f"{what} must be a JSON object, got {type(value).__name__}")
    return value


def decode_request(value: object) -> object:
    """JSON -> request, turning each ``{"$tainted": {"value", "origin"}}`` into a
    ``TaintedValue`` (spec: taint.vector-encoding). An object with a ``"$tainted"`` key that is
    not exactly that shape is malformed (``argument.invalid``)."""
    if isinstance(value, Mapping):
        if TAINT_KEY in value:
            inner = _obj(value[TAINT_KEY], TAINT_KEY)
            if len(value) != 1 or set(inner) != {"value", "origin"}:
                raise InvalidArgument(
                    '"$tainted" must be the only key, holding exactly "value" and "origin"'
                )
            return TaintedValue(value=decode_request(inner["value"]), origin=inner["origin"])
        return {k: decode_request(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode_request(v) for v in value]
    return value


def decode_validator(spec: object) -> SafetyValidator:
    """JSON validator description -> :class:`SafetyValidator`."""
    spec = _obj(spec, "validator")
    kind = spec.get("kind")
    delta = spec.get("delta", True)
    if not isinstance(delta, bool):
        raise InvalidArgument('"delta" must be a boolean')
    if kind == "pii" and set(spec) <= {"kind", "delta"}:
        return pii_validator(delta=delta)
    if kind == "deny" and set(spec) <= {"kind", "patterns", "flags", "delta", "maxWidth"}:
        flags = 0
        for name in spec.get("flags", []):
            if name not in _FLAGS:
                raise InvalidArgument(f"unknown flag {name!r}; expected one of {sorted(_FLAGS)}")
            flags |= _FLAGS[name]
        patterns = spec.get("patterns")
        if isinstance(patterns, Mapping):
            # JSON objects are unordered (canonical case files sort their keys): an object's
            # rules are tried in the order of their names (spec: validators.rule-order).
            patterns = dict(sorted(patterns.items()))
        elif not isinstance(patterns, list):
            raise InvalidArgument('"patterns" must be an object or a list of regexes')
        return deny_patterns(patterns, flags, delta=delta, max_width=spec.get("maxWidth"))
    raise InvalidArgument(f"unknown validator description {dict(spec)!r}")


def vector_guard_request(data: object) -> dict[str, Any]:
    """``taint.guard_request``: the taint fence's verdict on a request."""
    data = _obj(data, "input")
    if set(data) != {"request"}:
        raise InvalidArgument('input must be {"request": ...}')
    try:
        guard_request(decode_request(data["request"]))
    except TaintedRequestError as err:
        return {
            "ok": False,
            "code": err.code,
            "path": err.details["path"],
            "origin": err.details["origin"],
        }
    return {"ok": True}


def vector_check_output(data: object) -> dict[str, Any]:
    """``validators.check_output``: a validator's output-form verdict on a text."""
    data = _obj(data, "input")
    if set(data) != {"validator", "text"}:
        raise InvalidArgument('input must be {"validator": ..., "text": ...}')
    validator = decode_validator(data["validator"])
    try:
        validator.check_output(data["text"])
    except SafetyViolation as err:
        return {
            "ok": False,
            "code": err.code,
            "validator": err.details["validator"],
            "rule": err.details["rule"],
            "span": list(err.details["span"]),
        }
    return {"ok": True}


def vector_guards_run(data: object) -> dict[str, Any]:
    """``guards.run``: feed deltas through the guards a runtime would build; report what was
    delivered (per accepted delta: the delta, or with hold-back the released piece), the
    remainder flushed at the end (hold-back only, ``null`` otherwise or when severed), and the
    index, code and rule of the sever (``null`` when none)."""
    data = _obj(data, "input")
    allowed = {"validators", "window", "deltas", "holdBack", "maxTokens"}
    if not set(data) <= allowed or "deltas" not in data:
        raise InvalidArgument(f"input keys must be within {sorted(allowed)} and include deltas")
    deltas = data["deltas"]
    if not isinstance(deltas, list) or not all(isinstance(d, str) for d in deltas):
        raise InvalidArgument('"deltas" must be a list of strings')
    validators = [decode_validator(v) for v in data.get("validators", [])]
    window = data.get("window", DEFAULT_WINDOW)
    hold_back = data.get("holdBack", False)
    if not isinstance(hold_back, bool):
        raise InvalidArgument('"holdBack" must be a boolean')
    budget: list[DeltaGuard] = []
    if data.get("maxTokens") is not None:
        budget.append(stream_token_budget(data["maxTokens"]))
    delivered: list[str] = []
    result: dict[str, Any] = {"severedAt": None, "code": None, "rule": None, "flushed": None}
    try:
        # spec: guards.chain-order -- the validators' guard first, then the token budget.
        if hold_back:
            hold = HoldBackGuard(validators, window)
            rest = GuardChain(budget)
            for delta in deltas:
                piece = hold.feed(delta)
                rest.check(delta)
                delivered.append(piece)
            result["flushed"] = hold.flush()
        else:
            chain = GuardChain([RunningTextGuard(validators, window), *budget])
            for delta in deltas:
                chain.check(delta)
                delivered.append(delta)
    except DeltaSevered as err:
        result["severedAt"] = err.details["delta_index"]
        result["code"] = err.code
        result["rule"] = None if isinstance(err, StreamTokenBudgetExceeded) else err.details["rule"]
    result["delivered"] = delivered
    return result


VECTOR_FUNCTIONS: Mapping[str, Callable[[Any], Any]] = {
    "taint.guard_request": vector_guard_request,
    "validators.check_output": vector_check_output,
    "guards.run": vector_guards_run,
}
"""Case ``function`` name -> the function that computes its ``result``."""
