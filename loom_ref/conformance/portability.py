"""Portability: what in a case could fail a faithful implementation for a reason that is its
language's, and the capability a case declares when it depends on one reading.

Rules (``conformance/INTERPRETING.md`` section 15, Portability):

- **Patterns** (spec: patterns.dialect): every regex a case carries -- a deny validator's
  ``patterns``, a ``$regex`` in an expectation, a ``pattern`` keyword of a resume schema --
  is in the portable dialect ``portable-1``, except (a) in a deny validator labelled
  ``"dialect": "python-re"``, in a case that requires ``patterns.python-re``; (b) in a vector
  whose expectation is the error ``argument.pattern``: its point is the refusal, so it must
  hold a pattern outside the dialect; (c) in a resume schema of a case that expects
  ``argument.schema``, a pattern no engine reads (reason ``syntax``): the schema's refusal is
  the point. :func:`dialect_problems` is the lint's check.
- **Text units**: the suite counts code points. A case whose text holds a character outside
  the BMP, and whose answer a UTF-16 code-unit reading would change, requires
  ``text.code-points`` (:data:`TEXT_CODE_POINTS`). :func:`utf16_twin` rewrites a case as a
  code-unit implementation sees it (each astral character as two stand-in characters), so a
  test can tell which cases depend on the reading.
- **Lone surrogates**: JSON can spell them, UTF-8 cannot carry them, and Go's and Rust's JSON
  readers turn them into U+FFFD. A case whose answer depends on reading them as they are
  requires ``text.lone-surrogates`` (:data:`TEXT_LONE_SURROGATES`); :func:`replacement_twin`
  is the case as such a reader sees it.
- **Numbers**: no integer beyond +-2**53 (the lint's check), and no answer that tells an
  integral float from an integer (:func:`integer_twin` reads ``1.0`` as ``1``), or ``-0``
  from ``0``.

:func:`strings` and :func:`numbers` list what a case holds, with paths, for the audit test
(``tests/conformance/test_portability.py``), which proves every hit neutral or labelled.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from loom_ref.governance.dialect import PatternError, Reason, check_pattern
from loom_ref.governance.rules import PYTHON_RE

__all__ = [
    "PATTERNS_PYTHON_RE",
    "TEXT_CODE_POINTS",
    "TEXT_LONE_SURROGATES",
    "case_patterns",
    "dialect_problems",
    "integer_twin",
    "numbers",
    "replacement_twin",
    "strings",
    "utf16_twin",
]

TEXT_CODE_POINTS = "text.code-points"
"""The implementation counts characters as Unicode code points (lengths, spans, windows)."""
TEXT_LONE_SURROGATES = "text.lone-surrogates"
"""The implementation's strings hold a lone surrogate read from JSON as that code point."""
PATTERNS_PYTHON_RE = "patterns.python-re"
"""The implementation has the ``python-re`` pattern extension (spec: patterns.python-re)."""

Path = str


def _walk(value: Any, path: Path = "$") -> Iterator[tuple[Path, Any]]:
    """Every node of a JSON value with its path (keys are nodes too, at ``path#key``)."""
    yield path, value
    if isinstance(value, Mapping):
        for key, sub in value.items():
            yield f"{path}.{key}#key", key
            yield from _walk(sub, f"{path}.{key}")
    elif isinstance(value, list):
        for i, sub in enumerate(value):
            yield from _walk(sub, f"{path}[{i}]")


def strings(case: Mapping[str, Any]) -> list[tuple[Path, str]]:
    """Every string of ``case`` but its ``description``, with its path."""
    body = {k: v for k, v in case.items() if k != "description"}
    return [(p, v) for p, v in _walk(body) if isinstance(v, str)]


def numbers(case: Mapping[str, Any]) -> list[tuple[Path, int | float]]:
    """Every number of ``case`` (booleans are not numbers), with its path."""
    return [(p, v) for p, v in _walk(dict(case))
            if isinstance(v, int | float) and not isinstance(v, bool)]


# -- patterns ---------------------------------------------------------------------------------

_SCHEMA_MAPS = ("properties", "$defs")
_SCHEMA_ONE = ("items", "additionalProperties")
_SCHEMA_LISTS = ("anyOf", "oneOf")


def _schema_patterns(schema: Any, path: Path) -> Iterator[tuple[Path, Any]]:
    """The ``pattern`` keywords of a resume schema, walked keyword by keyword (so a property
    named ``pattern`` is not one)."""
    if not isinstance(schema, Mapping):
        return
    if "pattern" in schema:
        yield f"{path}.pattern", schema["pattern"]
    for key in _SCHEMA_MAPS:
        subs = schema.get(key)
        if isinstance(subs, Mapping):
            for name, sub in subs.items():
                yield from _schema_patterns(sub, f"{path}.{key}.{name}")
    for key in _SCHEMA_ONE:
        yield from _schema_patterns(schema.get(key), f"{path}.{key}")
    for key in _SCHEMA_LISTS:
        subs = schema.get(key)
        if isinstance(subs, list):
            for i, sub in enumerate(subs):
                yield from _schema_patterns(sub, f"{path}.{key}[{i}]")


def case_patterns(case: Mapping[str, Any]) -> list[tuple[Path, Any, str | None]]:
    """Every regex ``case`` carries: ``(path, pattern, dialect label or None)``."""
    found: list[tuple[Path, Any, str | None]] = []
    for path, node in _walk(dict(case)):
        if not isinstance(node, Mapping):
            continue
        if node.get("kind") == "deny" and "patterns" in node:
            label = node.get("dialect")
            items = node["patterns"]
            named = (items.items() if isinstance(items, Mapping)
                     else enumerate(items) if isinstance(items, list) else ())
            found += [(f"{path}.patterns[{k!r}]", p, label if isinstance(label, str) else None)
                      for k, p in named]
        if len(node) == 1 and "$regex" in node:
            found.append((f"{path}.$regex", node["$regex"], None))
        for key in ("resumeSchema", "resumeSchemas"):
            sub = node.get(key)
            schemas = (sub.items() if key == "resumeSchemas" and isinstance(sub, Mapping)
                       else [("", sub)])
            for gate, schema in schemas:
                where = f"{path}.{key}" + (f".{gate}" if gate else "")
                found += [(p, v, None) for p, v in _schema_patterns(schema, where)]
    return found


def _expects_pattern_error(case: Mapping[str, Any]) -> bool:
    expect = case.get("expect")
    error = expect.get("error") if isinstance(expect, Mapping) else None
    return isinstance(error, Mapping) and error.get("code") == "argument.pattern"


def _expects_schema_refusal(case: Mapping[str, Any]) -> bool:
    """Whether the case expects a schema to be refused (``argument.schema``) somewhere."""
    return any(isinstance(node, Mapping) and node.get("code") == "argument.schema"
               for _, node in _walk(dict(case.get("expect") or {})))


def dialect_problems(case: Mapping[str, Any]) -> list[str]:
    """The lint's pattern check (INTERPRETING.md section 15): one line per problem."""
    problems: list[str] = []
    refusal = _expects_pattern_error(case)
    requires = set(case.get("requires", ()))
    outside = 0
    for path, pattern, label in case_patterns(case):
        if label == PYTHON_RE:
            if PATTERNS_PYTHON_RE not in requires:
                problems.append(f"{path}: a python-re pattern in a case that does not require "
                                f"{PATTERNS_PYTHON_RE!r}")
            continue
        try:
            check_pattern(pattern)
        except PatternError as err:
            if "resumeSchema" in path and err.reason is Reason.SYNTAX and \
                    _expects_schema_refusal(case):
                continue  # no engine reads it: the schema's refusal is the point
            outside += 1
            if not refusal:
                problems.append(f"{path}: pattern {pattern!r} is {err.message}")
        except Exception:  # not a string: the case checks a wrong type, no dialect question
            continue
    if refusal and outside == 0:
        problems.append("expects argument.pattern but holds no pattern outside the dialect")
    return problems


# -- twins: the case as another reading sees it -------------------------------------------------

# Stand-ins for the two UTF-16 units of an astral character: letters of no case, no digit, no
# space, two UTF-8 bytes each (so a UTF-8 byte count is kept), below U+D800 (so code-unit sort
# order is kept), and never in a case.
_STAND_INS = [chr(c) for c in (*range(0x05D0, 0x05EB), *range(0x0621, 0x063B),
                               *range(0x0641, 0x064B), *range(0x07CA, 0x07EB))]


def _map_strings(value: Any, fn: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, Mapping):
        return {fn(k): _map_strings(v, fn) for k, v in value.items()}
    if isinstance(value, list):
        return [_map_strings(v, fn) for v in value]
    return value


def utf16_twin(case: Mapping[str, Any]) -> dict[str, Any] | None:
    """``case`` as a UTF-16 code-unit implementation reads it: each astral character becomes
    two stand-in characters (one per code unit), everywhere (expectation included). ``None``
    when the case holds no astral character."""
    text = [s for _, s in strings(case)]
    astral = sorted({c for s in text for c in s if ord(c) > 0xFFFF})
    if not astral:
        return None
    free = [c for c in _STAND_INS if not any(c in s for s in text)]
    if len(free) < 2 * len(astral):  # pragma: no cover - a case with hundreds of emoji
        raise ValueError("not enough stand-in characters for the case's astral characters")
    pairs = {a: free[2 * i] + free[2 * i + 1] for i, a in enumerate(astral)}
    table = str.maketrans(pairs)
    twin: dict[str, Any] = _map_strings(dict(case), lambda s: s.translate(table))
    return twin


def replacement_twin(case: Mapping[str, Any]) -> dict[str, Any] | None:
    """``case`` as a JSON reader that replaces each lone surrogate by U+FFFD sees it (Go's,
    Rust's); ``None`` when the case holds none."""
    if not any(0xD800 <= ord(c) <= 0xDFFF for _, s in strings(case) for c in s):
        return None
    twin: dict[str, Any] = _map_strings(dict(case), lambda s: "".join(
        "\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in s))
    return twin


def integer_twin(case: Mapping[str, Any]) -> dict[str, Any] | None:
    """``case`` with every integral float (``1.0``, ``-0.0``) read as the integer it equals, as
    a reader over IEEE-754 doubles cannot tell them apart; ``None`` when it holds none."""
    def fix(value: Any) -> Any:
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, Mapping):
            return {k: fix(v) for k, v in value.items()}
        if isinstance(value, list):
            return [fix(v) for v in value]
        return value
    if not any(isinstance(v, float) and v.is_integer() for _, v in numbers(case)):
        return None
    return {k: (fix(v) if k != "expect" else v) for k, v in case.items()}
