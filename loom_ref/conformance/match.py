"""Matching observations against expectations, with patterns for values the spec leaves open.

Rules (``conformance/INTERPRETING.md`` section 7):

- Values compare as JSON: numbers by value (``1`` equals ``1.0``), booleans are not numbers,
  objects by their members (order-free), arrays item by item.
- A *pattern* is an object with exactly one member whose name is one of :data:`PATTERNS`;
  any other object, ``$``-names included, is a literal. The patterns:

  - ``{"$any": null}`` matches any value;
  - ``{"$type": t}`` matches a value of JSON type ``t`` (``null``, ``boolean``, ``integer``,
    ``number``, ``string``, ``array``, ``object``);
  - ``{"$regex": r}`` matches a string in which ``r`` finds a match (Python ``re.search``;
    ``r`` is a ``portable-1`` pattern, which the lint checks: INTERPRETING.md section 15);
  - ``{"$capture": name}`` matches any value the first time ``name`` is met in one
    comparison, and afterwards only a value equal to that one (the same idempotency key on a
    retry, the same id in two places);
  - ``{"$partial": {...}}`` matches an object that has at least the members given, each
    matching (extra members are allowed);
  - ``{"$includes": [p, ...]}`` matches an array holding, for each ``p``, a distinct item
    that matches ``p`` (in any order, other items allowed).
- A mismatch is reported with the JSON path where it was found, the expected value and the
  actual one, so a failure reads as a diff.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import attrs

from loom_ref.errors import ConformanceError
from loom_ref.schema import json_equal

__all__ = ["PATTERNS", "Mismatch", "check_patterns", "is_pattern", "json_equal", "match"]

PATTERNS = frozenset({"$any", "$type", "$regex", "$capture", "$partial", "$includes"})
_TYPES = frozenset({"null", "boolean", "integer", "number", "string", "array", "object"})


@attrs.frozen(kw_only=True)
class Mismatch:
    """One difference: ``path`` (``actions[1].trace[3]``), what was expected, what was seen."""

    path: str
    expected: Any
    actual: Any
    note: str = ""

    def render(self, width: int | None = 160) -> str:
        """``path: expected X, got Y`` on one line, values longer than ``width`` characters
        shortened (None: never)."""
        def short(v: Any) -> str:
            text = v if isinstance(v, _Absent) else json.dumps(v, sort_keys=True,
                                                                 ensure_ascii=False)
            text = str(text)
            return text if width is None or len(text) <= width else text[: width - 3] + "..."
        note = f" ({self.note})" if self.note else ""
        where = self.path or "$"
        return f"{where}: expected {short(self.expected)}, got {short(self.actual)}{note}"


class _Absent(str):
    """Stands for a missing member in a mismatch."""


ABSENT = _Absent("<absent>")


def _pattern_op(value: Any) -> str | None:
    if isinstance(value, Mapping) and len(value) == 1:
        (key,) = value
        if key in PATTERNS:
            return str(key)
    return None


def is_pattern(value: Any) -> bool:
    """Whether ``value`` is a pattern (section 7): one member, named as a known operator."""
    return _pattern_op(value) is not None


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


class _Matcher:
    def __init__(self, limit: int) -> None:
        self.captures: dict[str, Any] = {}
        self.out: list[Mismatch] = []
        self.limit = limit

    def fail(self, path: str, expected: Any, actual: Any, note: str = "") -> None:
        if len(self.out) < self.limit:
            self.out.append(Mismatch(path=path, expected=expected, actual=actual, note=note))

    def ok(self, expected: Any, actual: Any) -> bool:
        """A side-effect-free trial match (captures are rolled back)."""
        saved = dict(self.captures)
        trial = _Matcher(1)
        trial.captures = saved
        trial.run(expected, actual, "")
        return not trial.out

    def run(self, expected: Any, actual: Any, path: str) -> None:
        op = _pattern_op(expected)
        if op is not None:
            self.pattern(op, expected[op], actual, path, expected)
        elif isinstance(expected, Mapping):
            if not isinstance(actual, Mapping):
                self.fail(path, expected, actual, "not an object")
                return
            for key in expected:
                sub = f"{path}.{key}" if path else str(key)
                if key not in actual:
                    self.fail(sub, expected[key], ABSENT, "missing member")
                else:
                    self.run(expected[key], actual[key], sub)
            for key in actual:
                if key not in expected:
                    self.fail(f"{path}.{key}" if path else str(key), ABSENT, actual[key],
                              "unexpected member")
        elif isinstance(expected, (list, tuple)):
            if not isinstance(actual, (list, tuple)):
                self.fail(path, expected, actual, "not an array")
                return
            for i, (e, a) in enumerate(zip(expected, actual, strict=False)):
                self.run(e, a, f"{path}[{i}]")
            if len(expected) != len(actual):
                n = min(len(expected), len(actual))
                self.fail(f"{path}[{n}:]", list(expected[n:]), list(actual[n:]),
                          f"expected {len(expected)} items, got {len(actual)}")
        elif not json_equal(expected, actual):
            self.fail(path, expected, actual)

    def pattern(self, op: str, arg: Any, actual: Any, path: str, whole: Any) -> None:
        if op == "$any":
            return
        if op == "$type":
            name = _type_name(actual)
            if not (name == arg or (arg == "number" and name == "integer")):
                self.fail(path, whole, actual)
        elif op == "$regex":
            if not isinstance(actual, str) or re.search(arg, actual) is None:
                self.fail(path, whole, actual)
        elif op == "$capture":
            if arg not in self.captures:
                self.captures[arg] = actual
            elif not json_equal(self.captures[arg], actual):
                self.fail(path, self.captures[arg], actual, f"differs from capture {arg!r}")
        elif op == "$partial":
            if not isinstance(actual, Mapping):
                self.fail(path, whole, actual, "not an object")
                return
            for key, sub in arg.items():
                p = f"{path}.{key}" if path else str(key)
                if key not in actual:
                    self.fail(p, sub, ABSENT, "missing member")
                else:
                    self.run(sub, actual[key], p)
        elif op == "$includes":
            if not isinstance(actual, (list, tuple)):
                self.fail(path, whole, actual, "not an array")
                return
            free = list(range(len(actual)))
            for want in arg:
                hit = next((i for i in free if self.ok(want, actual[i])), None)
                if hit is None:
                    self.fail(path, whole, actual, f"no item matches {json.dumps(want)}")
                    return
                self.run(want, actual[hit], f"{path}[{hit}]")
                free.remove(hit)


def match(expected: Any, actual: Any, *, limit: int = 20) -> list[Mismatch]:
    """Every mismatch (up to ``limit``) of ``actual`` against ``expected``; [] means a match."""
    m = _Matcher(limit)
    m.run(expected, actual, "")
    return m.out


def check_patterns(expected: Any, path: str = "") -> list[str]:
    """Problems with the patterns inside an expectation (for the lint): a wrong argument
    type, an unknown ``$type``, a regex that does not compile."""
    problems: list[str] = []
    op = _pattern_op(expected)
    if op is not None:
        arg = expected[op]
        if op == "$type" and arg not in _TYPES:
            problems.append(f"{path}: unknown $type {arg!r}")
        elif op == "$regex":
            try:
                re.compile(arg)
            except (re.error, TypeError) as exc:
                problems.append(f"{path}: bad $regex: {exc}")
        elif op == "$capture" and not isinstance(arg, str):
            problems.append(f"{path}: $capture takes a name")
        elif op == "$partial":
            if not isinstance(arg, Mapping):
                problems.append(f"{path}: $partial takes an object")
            else:
                for k, v in arg.items():
                    problems += check_patterns(v, f"{path}.{k}")
        elif op == "$includes":
            if not isinstance(arg, list):
                problems.append(f"{path}: $includes takes an array")
            else:
                for i, v in enumerate(arg):
                    problems += check_patterns(v, f"{path}[{i}]")
        return problems
    if isinstance(expected, Mapping):
        for k, v in expected.items():
            problems += check_patterns(v, f"{path}.{k}" if path else str(k))
    elif isinstance(expected, list):
        for i, v in enumerate(expected):
            problems += check_patterns(v, f"{path}[{i}]")
    return problems


def require_json(value: Any, where: str) -> None:
    """Raise :class:`ConformanceError` unless ``value`` survives a JSON round trip."""
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ConformanceError(f"{where} is not JSON: {exc}", code="conformance.not-json") from None


__all__ += ["ABSENT", "require_json"]
