"""Expressions of the scenario body language: JSON values with a few operators.

Rules (``conformance/INTERPRETING.md`` section 5):

- An object with exactly one member whose name starts with ``$`` is an operator, and the
  name MUST be one of :data:`OPERATORS` (a typo is a broken case, never a literal). Any other
  object is a literal object whose member values are expressions; an array is an array of
  expressions; everything else is itself.
- ``{"$var": name}`` -- the variable's value (an unbound variable is a broken case);
  ``{"$input": [k, ...]}`` -- the execution's input, or the value at that path (``[]`` or
  ``null``: the whole input); ``{"$get": [expr, k, ...]}`` -- the value at a path inside
  ``expr`` (``null`` where the path does not exist); ``{"$eq": [a, b]}``; ``{"$not": a}``;
  ``{"$add": [a, ...]}`` (numbers); ``{"$concat": [a, ...]}`` (strings);
  ``{"$literal": v}`` -- ``v`` unevaluated.
- ``{"$drift": {"name": n, "values": [v1, v2, ...]}}`` -- a deliberate source of
  non-determinism outside the journal (a clock, an environment variable): the k-th
  evaluation of name ``n`` in the whole case (every drive, every replay) gives ``v_k``, the
  last value repeating. It exists to write cases about ``kernel.replay-compare``.

Evaluation never touches the kernel: it is pure given the variables, the input and the
drift counters, which the caller owns.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from loom_ref.conformance.match import json_equal
from loom_ref.errors import ConformanceError

__all__ = ["OPERATORS", "Env", "ScenarioBug", "check_expr", "evaluate", "uses_drift"]

OPERATORS = frozenset(
    {"$var", "$input", "$get", "$eq", "$not", "$add", "$concat", "$literal", "$drift"}
)


class ScenarioBug(BaseException):
    """A case that cannot be interpreted (an unbound variable, a bad operand).

    A ``BaseException`` on purpose: it must not be caught by a body's ``try`` nor journaled
    as a body failure by the kernel; it unwinds to the adapter, which reports the case as
    *errored* with this message.
    """


class Env:
    """The variables of one drive of a body, its input, and the case's drift counters."""

    __slots__ = ("drift", "input", "vars")

    def __init__(self, input: Any, drift: Callable[[str, list[Any]], Any]) -> None:
        self.input = input
        self.vars: dict[str, Any] = {}
        self.drift = drift


def _op(expr: Any) -> str | None:
    if isinstance(expr, Mapping) and len(expr) == 1:
        (key,) = expr
        if isinstance(key, str) and key.startswith("$"):
            return key
    return None


def _walk(value: Any, path: list[Any]) -> Any:
    for key in path:
        if isinstance(value, Mapping) and isinstance(key, str):
            value = value.get(key)
        elif isinstance(value, list) and isinstance(key, int) and not isinstance(key, bool):
            value = value[key] if -len(value) <= key < len(value) else None
        else:
            return None
    return value


def evaluate(expr: Any, env: Env) -> Any:
    """The value of ``expr`` in ``env`` (see the module rules)."""
    op = _op(expr)
    if op is None:
        if isinstance(expr, Mapping):
            return {k: evaluate(v, env) for k, v in expr.items()}
        if isinstance(expr, list):
            return [evaluate(v, env) for v in expr]
        return expr
    arg = expr[op]
    if op == "$literal":
        return arg
    if op == "$var":
        if arg not in env.vars:
            raise ScenarioBug(f"variable {arg!r} is not bound")
        return env.vars[arg]
    if op == "$input":
        return _walk(env.input, list(arg or []))
    if op == "$get":
        return _walk(evaluate(arg[0], env), list(arg[1:]))
    if op == "$eq":
        a, b = (evaluate(x, env) for x in arg)
        return json_equal(a, b)
    if op == "$not":
        return not evaluate(arg, env)
    if op == "$add":
        values = [evaluate(x, env) for x in arg]
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            raise ScenarioBug(f"$add takes numbers, got {values!r}")
        return sum(values)
    if op == "$concat":
        values = [evaluate(x, env) for x in arg]
        if not all(isinstance(v, str) for v in values):
            raise ScenarioBug(f"$concat takes strings, got {values!r}")
        return "".join(values)
    if op == "$drift":
        return env.drift(arg["name"], list(arg["values"]))
    raise ScenarioBug(f"unknown operator {op!r}")


def check_expr(expr: Any, path: str = "") -> list[str]:
    """Static problems of an expression: unknown operators, operands of the wrong shape."""
    op = _op(expr)
    if op is None:
        items: Any = expr.items() if isinstance(expr, Mapping) else (
            enumerate(expr) if isinstance(expr, list) else ())
        problems: list[str] = []
        for k, v in items:
            problems += check_expr(v, f"{path}.{k}" if isinstance(k, str) else f"{path}[{k}]")
        return problems
    arg = expr[op]
    shapes: dict[str, Callable[[Any], bool]] = {
        "$literal": lambda a: True,
        "$var": lambda a: isinstance(a, str),
        "$input": lambda a: a is None or isinstance(a, list),
        "$get": lambda a: isinstance(a, list) and len(a) >= 1,
        "$eq": lambda a: isinstance(a, list) and len(a) == 2,
        "$not": lambda a: True,
        "$add": lambda a: isinstance(a, list),
        "$concat": lambda a: isinstance(a, list),
        "$drift": lambda a: isinstance(a, Mapping) and isinstance(a.get("name"), str)
        and isinstance(a.get("values"), list) and len(a["values"]) > 0,
    }
    if op not in shapes:
        return [f"{path}: unknown operator {op!r}"]
    if not shapes[op](arg):
        return [f"{path}: bad operand for {op}: {arg!r}"]
    if op in ("$get", "$eq", "$add", "$concat"):
        return [p for i, v in enumerate(arg if op != "$get" else arg[:1])
                for p in check_expr(v, f"{path}.{op}[{i}]")]
    if op == "$not":
        return check_expr(arg, f"{path}.$not")
    return []


def uses_drift(value: Any) -> bool:
    """Whether a case (or any part of one) contains a ``$drift`` expression."""
    if isinstance(value, Mapping):
        return "$drift" in value or any(uses_drift(v) for v in value.values())
    if isinstance(value, list):
        return any(uses_drift(v) for v in value)
    return False


def bad_case(message: str) -> ConformanceError:
    """The error for a case the interpreter cannot accept (found before running)."""
    return ConformanceError(message, code="conformance.bad-case")


__all__ += ["bad_case"]
