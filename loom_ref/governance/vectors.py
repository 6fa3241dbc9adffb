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
- ``guards.run``: ``{"validators"?: [<validator>...], "window"?: n, "deltas": [...],
  "holdBack"?: false, "maxTokens"?: n}`` -> ``{"delivered", "flushed", "severedAt", "code",
  "rule"}``.
- The whole input is checked before anything runs; an explicit ``null`` ``maxTokens`` or
  ``maxWidth`` is absent, any other optional ``null`` is ``argument.invalid``; which refusal
  an input with several problems gets is implementation-defined (spec: guards.vector-run;
  :mod:`loom_ref.governance.refusals` names the refusals an input deserves).
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
  "maxWidth"?: n, "dialect"?: "python-re"}``; an object's rules are tried in name order, a
  list's in list order. Either may add ``"phases": [...]``, the forms it keeps (default all
  three). ``"dialect": "python-re"`` is the extension of spec: patterns.python-re (cases that
  use it require the capability ``patterns.python-re``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from loom_ref.errors import InvalidArgument, LoomError
from loom_ref.governance.budget import stream_token_budget
from loom_ref.governance.deny import deny_patterns
from loom_ref.governance.dialect import DIALECT
from loom_ref.governance.errors import (
    DeltaSevered,
    SafetyViolation,
    StreamTokenBudgetExceeded,
    TaintedRequestError,
)
from loom_ref.governance.guards import DEFAULT_WINDOW, DeltaGuard, GuardChain, RunningTextGuard
from loom_ref.governance.holdback import HoldBackGuard
from loom_ref.governance.pii import pii_validator
from loom_ref.governance.rules import PYTHON_RE
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


def _list(value: object, what: str) -> list[Any]:
    # spec: guards.vector-run -- a member of the wrong type (null included) is argument.invalid
    if not isinstance(value, list):
        raise InvalidArgument(f"{what} must be a JSON array, got {type(value).__name__}")
    return value


def decode_request(value: object) -> object:
    """JSON -> request, turning each ``{"$tainted": {"value", "origin"}}`` into a
    ``TaintedValue`` (spec: taint.vector-encoding). An object with a ``"$tainted"`` key that is
    not exactly that shape is malformed (``argument.invalid``). Iterative, so a deeply nested
    input is not limited by the interpreter's recursion limit (as the fence's walk,
    spec: taint.cycles)."""
    return _rebuild(value, _decode_node)


def _decode_node(value: object) -> tuple[list[Any], Callable[[list[Any]], object]] | None:
    """How :func:`decode_request` rebuilds ``value``: its children and a function from their
    decoded forms to the decoded node; ``None`` for a leaf (kept as it is)."""
    if isinstance(value, Mapping):
        if TAINT_KEY in value:
            inner = _obj(value[TAINT_KEY], TAINT_KEY)
            if len(value) != 1 or set(inner) != {"value", "origin"}:
                raise InvalidArgument(
                    '"$tainted" must be the only key, holding exactly "value" and "origin"'
                )
            origin = inner["origin"]
            return [inner["value"]], lambda kids: TaintedValue(value=kids[0], origin=origin)
        keys = list(value)
        return [value[k] for k in keys], lambda kids: dict(zip(keys, kids, strict=True))
    if isinstance(value, list):
        return list(value), list
    return None


def _encode_node(value: object) -> tuple[list[Any], Callable[[list[Any]], object]] | None:
    """How :func:`encode_value` rebuilds ``value`` (see :func:`_decode_node`)."""
    if isinstance(value, TaintedValue):
        origin = value.origin
        return [value.value], lambda kids: {TAINT_KEY: {"value": kids[0], "origin": origin}}
    if isinstance(value, Mapping):
        keys = list(value)
        return [value[k] for k in keys], lambda kids: dict(zip(keys, kids, strict=True))
    if isinstance(value, list):
        return list(value), list
    return None


def _rebuild(
    root: object, node: Callable[[object], tuple[list[Any], Callable[[list[Any]], object]] | None]
) -> object:
    """Rebuild a tree bottom-up without recursion: ``node(v)`` gives ``v``'s children and the
    function that builds ``v``'s image from theirs (``None``: a leaf, its own image). A value
    that contains itself is not JSON: ``argument.invalid``."""
    top = node(root)
    if top is None:
        return root
    done: list[object] = []  # images of finished nodes, in completion order
    # a frame: [children, build, index of the next child, where its images start, the node]
    stack: list[tuple[list[Any], Callable[[list[Any]], object], int, int, object]] = [
        (top[0], top[1], 0, 0, root)
    ]
    on_path = {id(root)}
    while stack:
        kids, build, i, base, here = stack[-1]
        if i == len(kids):
            stack.pop()
            on_path.discard(id(here))
            image = build(done[base:])
            del done[base:]
            done.append(image)
            continue
        stack[-1] = (kids, build, i + 1, base, here)
        kid = kids[i]
        child = node(kid)
        if child is None:
            done.append(kid)
        elif id(kid) in on_path:
            raise InvalidArgument("a value that contains itself is not JSON")
        else:
            on_path.add(id(kid))
            stack.append((child[0], child[1], 0, len(done), kid))
    return done[0]


def decode_validator(spec: object) -> SafetyValidator:
    """JSON validator description -> :class:`SafetyValidator`; ``"phases"`` keeps only the
    forms of the phases it lists."""
    spec = _obj(spec, "validator")
    if "phases" in spec:
        phases = spec["phases"]
        known = {p.value for p in Phase}
        if not isinstance(phases, list) or not all(
            isinstance(p, str) and p in known for p in phases
        ):
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
    if kind == "deny" and set(spec) <= {"kind", "patterns", "flags", "delta", "maxWidth",
                                        "dialect"}:
        flags = 0
        for name in _list(spec.get("flags", []), '"flags"'):
            if not isinstance(name, str) or name not in _FLAGS:
                raise InvalidArgument(f"unknown flag {name!r}; expected one of {sorted(_FLAGS)}")
            flags |= _FLAGS[name]
        patterns = spec.get("patterns")
        if isinstance(patterns, Mapping):
            # JSON objects are unordered (canonical case files sort their keys): an object's
            # rules are tried in the order of their names (spec: validators.rule-order).
            patterns = dict(sorted(patterns.items()))
        elif not isinstance(patterns, list):
            raise InvalidArgument('"patterns" must be an object or a list of regexes')
        dialect = spec.get("dialect", DIALECT)
        if dialect != PYTHON_RE and "dialect" in spec:  # spec: patterns.python-re
            raise InvalidArgument(f'"dialect" is "{PYTHON_RE}" or absent, got {dialect!r}')
        return deny_patterns(patterns, flags, delta=delta, max_width=spec.get("maxWidth"),
                             dialect=dialect)
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
    """The inverse of :func:`decode_request`: a ``TaintedValue`` becomes ``{"$tainted": ...}``
    (iterative, as :func:`decode_request`)."""
    return _rebuild(value, _encode_node)


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


def _guards(data: Mapping[str, Any]) -> GuardChain | HoldBackGuard | RunningTextGuard:
    """The guards of ``guards.run`` / ``guards.steps``: the validators' guard, then the token
    budget (spec: guards.chain-order), chained so that the chain severs as a whole (spec:
    guards.chain-sever). With hold-back the budget is chained after the validators inside the
    hold-back guard, so a budget sever drops the held text (spec: guards.hold-back-drop)."""
    validators = [decode_validator(v) for v in _list(data.get("validators", []), "validators")]
    window = data.get("window", DEFAULT_WINDOW)
    hold_back = data.get("holdBack", False)
    if not isinstance(hold_back, bool):
        raise InvalidArgument('"holdBack" must be a boolean')
    budget: list[DeltaGuard] = []
    if data.get("maxTokens") is not None:
        budget.append(stream_token_budget(data["maxTokens"]))
    if hold_back:
        return HoldBackGuard(validators, window, after=budget)
    guard = RunningTextGuard(validators, window)
    # a runtime chains guards only when there are several: alone, the guard's own lifecycle
    # answers (spec: guards.sticky-sever)
    return GuardChain([guard, *budget]) if budget else guard


def _feed(guards: GuardChain | HoldBackGuard | RunningTextGuard, delta: str) -> str:
    """What is delivered of ``delta``: the delta itself, or with hold-back the released piece."""
    if isinstance(guards, HoldBackGuard):
        return guards.feed(delta)
    guards.check(delta)
    return delta


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
    guards = _guards(data)
    delivered: list[str] = []
    result: dict[str, Any] = {"severedAt": None, "code": None, "rule": None, "flushed": None}
    try:
        for delta in deltas:
            delivered.append(_feed(guards, delta))
        if isinstance(guards, HoldBackGuard):
            result["flushed"] = guards.flush()
    except DeltaSevered as err:
        result["severedAt"] = err.details["delta_index"]
        result["code"] = err.code
        result["rule"] = None if isinstance(err, StreamTokenBudgetExceeded) else err.details["rule"]
    result["delivered"] = delivered
    return result


def _severed(err: DeltaSevered) -> dict[str, Any]:
    budget = isinstance(err, StreamTokenBudgetExceeded)  # names no rule and no span
    return {
        "code": err.code,
        "rule": None if budget else err.details["rule"],
        "deltaIndex": err.details["delta_index"],
        "repeated": bool(err.details.get("repeated", False)),
        # spec: guards.running-text -- the span made absolute in the attempt's text (a budget
        # sever has none)
        "span": None if budget else list(err.details["span"]),
    }


def vector_guards_steps(data: object) -> dict[str, Any]:
    """``guards.steps``: the guards of ``guards.run`` driven step by step -- deltas, resets
    and (hold-back only) flushes -- reporting each step's outcome, errors included, so that a
    guard's life across severs, resets and flushes shows (spec: guards.lifecycle,
    guards.reset, guards.sticky-sever, guards.chain-sever, guards.hold-back-drop)."""
    data = _obj(data, "input")
    allowed = {"validators", "window", "steps", "holdBack", "maxTokens"}
    if not set(data) <= allowed or "steps" not in data or not isinstance(data["steps"], list):
        raise InvalidArgument(f"input keys must be within {sorted(allowed)} and include steps")
    hold_back = data.get("holdBack", False)

    def is_order(step: object, name: str) -> bool:  # exactly {name: true}: 1 is not true
        return isinstance(step, dict) and list(step) == [name] and step[name] is True

    for step in data["steps"]:
        if not (isinstance(step, str) or is_order(step, "reset")
                or (hold_back is True and is_order(step, "flush"))):
            raise InvalidArgument(
                'a step is a delta string, {"reset": true} or, with hold-back, {"flush": true}'
            )
    guards = _guards(data)
    outcomes: list[dict[str, Any]] = []
    for step in data["steps"]:
        try:
            if step == {"reset": True}:
                guards.reset()
                outcomes.append({"reset": True})
            elif step == {"flush": True}:
                assert isinstance(guards, HoldBackGuard)
                outcomes.append({"flushed": guards.flush()})
            else:
                outcomes.append({"delivered": _feed(guards, step)})
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
