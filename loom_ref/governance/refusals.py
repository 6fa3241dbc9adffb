"""Which refusals a governance vector input deserves, when it has more than one problem.

Spec: ``spec/governance.md`` § 4.5 (``guards.vector-run``): an input with more than one
problem may be refused for any of them. Which one an implementation reports depends on the
order in which it reads the input's members, which the spec leaves open: loom-ref reads the
``deltas`` of ``guards.run`` before its validators, compiles every rule of a deny validator
before it looks for a duplicate name, and so on, and a faithful implementation that reads in
another order answers ``argument.invalid`` where loom-ref answers ``argument.pattern``, or the
reverse. ``conformance/INTERPRETING.md`` section 14: the differential fuzzer asks
:data:`VECTOR_REFUSALS` for the codes an input deserves, and two refusals whose codes are both
among them agree.

The two codes that can compete are ``argument.pattern`` (a regex outside the ``portable-1``
dialect, spec: patterns.reasons) and ``argument.invalid`` (every other malformed member). An
input deserves:

- ``argument.pattern`` when a regex outside the dialect stands where the function compiles
  one: a string of the ``patterns`` (an array's items, an object's values) of a validator
  object (``validator``, or an item of ``validators``) that does not ask for the ``python-re``
  extension;
- ``argument.invalid`` when the same input, each such regex replaced by a one-character
  literal of its own (the same regex by the same literal, so that duplicates stay
  duplicates, and a literal no other regex of the input is), is still refused
  with it: the input has another problem;
- otherwise only loom-ref's own answer (nothing, when loom-ref accepts it).

``argument.not-tainted`` never competes: the input is decoded whole before ``taint.unwrap``
looks at it (spec: taint.vector-encoding), so a malformed encoding is ``argument.invalid``
wherever it is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from loom_ref.errors import LoomError
from loom_ref.governance.dialect import PatternError, check_pattern
from loom_ref.governance.rules import PYTHON_RE
from loom_ref.governance.vectors import VECTOR_FUNCTIONS

__all__ = ["PATTERN", "VECTOR_REFUSALS", "input_refusals", "pattern_sites"]

PATTERN = "argument.pattern"
_STAND_IN = 0xF0000  # Supplementary Private Use Area-A: one code point each, never a syntax char

#: Where each function reads its validators: one validator (``validator``), or lists of them.
#: The streaming vectors of chapter 3a read theirs by chapter 4's encoding and codes, and
#: leave which problem of several is reported open as this chapter does (spec/deltas.md
#: ``deltas.vector-run``; their oracle is :mod:`loom_ref.effects.refusals`).
_VALIDATORS: dict[str, tuple[str, ...]] = {
    "validators.check_output": ("validator",), "validators.check": ("validator",),
    "guards.run": ("validators",), "guards.steps": ("validators",),
    "deltas.run": ("validators", "redact"), "deltas.llm": ("validators",)}


def _validators(function: str, data: object) -> list[Mapping[str, Any]]:
    if not isinstance(data, Mapping):
        return []
    items: list[Any] = []
    for member in _VALIDATORS.get(function, ()):
        found = data.get(member)
        items.extend([found] if member == "validator"
                     else found if isinstance(found, list) else [])
    return [v for v in items if isinstance(v, Mapping)]


def pattern_sites(function: str, data: object) -> list[str]:
    """The regexes of ``data`` that ``function`` compiles as ``portable-1`` patterns, in the
    order they are written (array items, or an object's values)."""
    sites: list[str] = []
    for validator in _validators(function, data):
        if validator.get("dialect") == PYTHON_RE:  # spec: patterns.python-re
            continue
        patterns = validator.get("patterns")
        values = (list(patterns.values()) if isinstance(patterns, Mapping)
                  else patterns if isinstance(patterns, list) else [])
        sites.extend(v for v in values if isinstance(v, str))
    return sites


def _outside(regex: str) -> bool:
    try:
        check_pattern(regex)
    except PatternError:
        return True
    return False


def _repaired(function: str, data: Any, stand_in: Mapping[str, str]) -> Any:
    """``data`` with each regex of ``stand_in`` replaced at its pattern sites."""
    def fix(validator: Any) -> Any:
        if not isinstance(validator, Mapping) or validator.get("dialect") == PYTHON_RE:
            return validator
        patterns = validator.get("patterns")
        if isinstance(patterns, Mapping):
            patterns = {k: stand_in.get(v, v) if isinstance(v, str) else v
                        for k, v in patterns.items()}
        elif isinstance(patterns, list):
            patterns = [stand_in.get(v, v) if isinstance(v, str) else v for v in patterns]
        else:
            return validator
        return {**validator, "patterns": patterns}

    repaired = dict(data)
    for member in _VALIDATORS[function]:
        if member in data:
            found = data[member]
            repaired[member] = [fix(v) for v in found] if isinstance(found, list) else fix(found)
    return repaired


def _code(call: Callable[[Any], Any], data: object) -> str | None:
    try:
        call(data)
    except LoomError as err:
        return err.code
    return None


def input_refusals(function: str, data: object,
                   call: Callable[[Any], Any] | None = None) -> frozenset[str]:
    """Every refusal code a faithful implementation may give ``data``, an input of the
    vector function ``function`` (see the module docstring; ``call`` runs it, a governance
    vector function unless given); empty when the input deserves none (loom-ref answers it)."""
    run = VECTOR_FUNCTIONS[function] if call is None else call
    own = _code(run, data)
    sites = pattern_sites(function, data)
    bad = [s for s in dict.fromkeys(sites) if _outside(s)]
    if not bad:
        return frozenset() if own is None else frozenset({own})
    taken = set(sites)
    stand_in: dict[str, str] = {}
    point = _STAND_IN
    for regex in bad:
        while chr(point) in taken:
            point += 1
        stand_in[regex] = chr(point)
        point += 1
    codes = {PATTERN} | ({own} if own is not None else set())
    other = _code(run, _repaired(function, data, stand_in))
    if other is not None:
        codes.add(other)
    return frozenset(codes)


def _for(function: str) -> Callable[[Any], frozenset[str]]:
    return lambda data: input_refusals(function, data)


VECTOR_REFUSALS: Mapping[str, Callable[[Any], frozenset[str]]] = {
    name: _for(name) for name in VECTOR_FUNCTIONS}
"""Case ``function`` name -> the refusal codes an input of it deserves (INTERPRETING.md
section 14)."""
