"""The governance layer's conformance functions: JSON in, JSON out (``spec/governance.md``
§ Conformance functions; spec: guards.vector-run -- malformed input is an error with a code).

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
- ``taint.unwrap``: ``{"value": <json>}`` -> ``{"value": <the tainted value's content>}``;
  a value that is not tainted is ``argument.not-tainted`` (spec: taint.unwrap-explicit).
- ``validators.check``: ``{"validator", "phase": "input" | "output" | "delta", "value"}`` ->
  ``{"ok": true}`` or ``{"ok": false, "code", "validator", "phase", "rule", "span", "path"?}``,
  every detail of the violation (spec: validators.phases, validators.violation).
- ``guards.steps``: ``{"validators"?, "window"?, "holdBack"?, "maxTokens"?, "steps": [<delta
  string> | {"reset": true} | {"flush": true}]}`` -> ``{"outcomes": [...]}``, one per step:
  ``{"delivered": s}``, ``{"severed": {"code", "rule", "deltaIndex", "repeated"}}``,
  ``{"flushed": s}``, ``{"reset": true}`` or ``{"error": {"code"}}`` (spec: guards.lifecycle).
- A ``<validator>`` is ``{"kind": "pii", "delta"?: true}`` or ``{"kind": "deny", "patterns":
  {name: regex} | [regex...], "flags"?: ["IGNORECASE" | "MULTILINE" | "DOTALL"], "delta"?: true,
  "maxWidth"?: n}``; an object's rules are tried in name order, a list's in list order. Either
  may add ``"phases": [...]``, the forms it keeps (default all three).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from loom_ref.errors import InvalidArgument, LoomError
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
from loom_ref.governance.taint import TaintedValue, guard_request, unwrap_tainted
from loom_ref.governance.validators import Phase, SafetyValidator

__all__ = [
    "VECTOR_FUNCTIONS",
    "decode_request",
    "decode_validator",
    "encode_value",
    "vector_check",
    "vector_check_output",
    "vector_guard_request",
    "vector_guards_run",
    "vector_guards_steps",
    "vector_unwrap",
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
    """JSON validator description -> :class:`SafetyValidator`; ``"phases"`` keeps only the
    forms of the phases it lists."""
    spec = _obj(spec, "validator")
    if "phases" in spec:
        phases = spec["phases"]
        if not isinstance(phases, list) or not set(phases) <= {p.value for p in Phase}:
            raise InvalidArgument('"phases" must be a list of "input", "output", "delta"')
        full = decode_validator({k: v for k, v in spec.items() if k != "phases"})
        return attrs.evolve(
            full,
            input_form=full.input_form if "input" in phases else None,
            output_form=full.output_form if "output" in phases else None,
            delta_form=full.delta_form if "delta" in phases else None,
        )
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


def encode_value(value: object) -> object:
    """The inverse of :func:`decode_request`: a ``TaintedValue`` becomes ``{"$tainted": ...}``."""
    if isinstance(value, TaintedValue):
        return {TAINT_KEY: {"value": encode_value(value.value), "origin": value.origin}}
    if isinstance(value, Mapping):
        return {k: encode_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [encode_value(v) for v in value]
    return value


def vector_unwrap(data: object) -> dict[str, Any]:
    """``taint.unwrap``: the explicit audit point on a decoded value (spec:
    taint.unwrap-explicit); a plain value raises ``argument.not-tainted``."""
    data = _obj(data, "input")
    if set(data) != {"value"}:
        raise InvalidArgument('input must be {"value": ...}')
    return {"value": encode_value(unwrap_tainted(decode_request(data["value"])))}  # type: ignore[arg-type]


def vector_check(data: object) -> dict[str, Any]:
    """``validators.check``: one phase's form of a validator on a value, with every detail
    of the violation (spec: validators.phases, validators.violation, validators.no-echo)."""
    data = _obj(data, "input")
    if set(data) != {"validator", "phase", "value"}:
        raise InvalidArgument('input must be {"validator": ..., "phase": ..., "value": ...}')
    validator = decode_validator(data["validator"])
    checks: dict[str, Callable[[Any], None]] = {
        "input": validator.check_input,
        "output": validator.check_output,
        "delta": validator.check_delta,
    }
    check = checks.get(data["phase"]) if isinstance(data["phase"], str) else None
    if check is None:
        raise InvalidArgument(f'"phase" must be one of {sorted(checks)}')
    value = data["value"] if data["phase"] != "input" else decode_request(data["value"])
    try:
        check(value)
    except SafetyViolation as err:
        out: dict[str, Any] = {"ok": False, "code": err.code}
        for key, detail in err.details.items():
            out[key] = list(detail) if isinstance(detail, tuple) else detail
        return out
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


def _severed(err: DeltaSevered) -> dict[str, Any]:
    return {
        "code": err.code,
        "rule": None if isinstance(err, StreamTokenBudgetExceeded) else err.details["rule"],
        "deltaIndex": err.details["delta_index"],
        "repeated": bool(err.details.get("repeated", False)),
    }


def vector_guards_steps(data: object) -> dict[str, Any]:
    """``guards.steps``: the guards of ``guards.run`` driven step by step -- deltas, resets
    and (hold-back only) flushes -- reporting each step's outcome, errors included, so that a
    guard's life across severs, resets and flushes shows (spec: guards.lifecycle,
    guards.reset, guards.sticky-sever, guards.hold-back-drop)."""
    data = _obj(data, "input")
    allowed = {"validators", "window", "steps", "holdBack", "maxTokens"}
    if not set(data) <= allowed or "steps" not in data or not isinstance(data["steps"], list):
        raise InvalidArgument(f"input keys must be within {sorted(allowed)} and include steps")
    hold_back = data.get("holdBack", False)
    if not isinstance(hold_back, bool):
        raise InvalidArgument('"holdBack" must be a boolean')
    for step in data["steps"]:
        if not (isinstance(step, str) or step == {"reset": True}
                or (hold_back and step == {"flush": True})):
            raise InvalidArgument(
                'a step is a delta string, {"reset": true} or, with hold-back, {"flush": true}'
            )
    validators = [decode_validator(v) for v in data.get("validators", [])]
    window = data.get("window", DEFAULT_WINDOW)
    budget: list[DeltaGuard] = []
    if data.get("maxTokens") is not None:
        budget.append(stream_token_budget(data["maxTokens"]))
    rest = GuardChain(budget)
    hold = HoldBackGuard(validators, window) if hold_back else None
    chain = None
    if hold is None:
        chain = GuardChain([RunningTextGuard(validators, window), *budget])
    outcomes: list[dict[str, Any]] = []
    for step in data["steps"]:
        try:
            if step == {"reset": True}:
                if hold is not None:
                    hold.reset()
                    rest.reset()
                else:
                    assert chain is not None
                    chain.reset()
                outcomes.append({"reset": True})
            elif step == {"flush": True}:
                assert hold is not None
                outcomes.append({"flushed": hold.flush()})
            elif hold is not None:
                piece = hold.feed(step)
                rest.check(step)
                outcomes.append({"delivered": piece})
            else:
                assert chain is not None
                chain.check(step)
                outcomes.append({"delivered": step})
        except DeltaSevered as err:
            outcomes.append({"severed": _severed(err)})
        except LoomError as err:
            outcomes.append({"error": {"code": err.code}})
    return {"outcomes": outcomes}


VECTOR_FUNCTIONS: Mapping[str, Callable[[Any], Any]] = {
    "taint.guard_request": vector_guard_request,
    "taint.unwrap": vector_unwrap,
    "validators.check_output": vector_check_output,
    "validators.check": vector_check,
    "guards.run": vector_guards_run,
    "guards.steps": vector_guards_steps,
}
"""Case ``function`` name -> the function that computes its ``result``."""
