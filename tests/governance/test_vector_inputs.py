"""Whatever the input, a governance vector function fails only with a ``LoomError`` (a code),
never an internal exception (spec: guards.vector-run, validators.deny)."""

from __future__ import annotations

import copy
import json
import re
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from loom_ref.errors import InvalidArgument, LoomError
from loom_ref.governance import VECTOR_FUNCTIONS, compile_rule, deny_patterns
from loom_ref.governance.vectors import decode_request, encode_value

KEY = {"kind": "deny", "patterns": {"key": "KEY-[0-9]{4}"}, "flags": ["IGNORECASE"],
       "delta": True, "maxWidth": 9, "phases": ["delta", "output", "input"]}
TAINTED = {"$tainted": {"value": {"k": ["x"]}, "origin": "llm:x"}}
#: A valid input of every vector function, every member present.
BASES: dict[str, dict[str, Any]] = {
    "taint.guard_request": {"request": {"a": [TAINTED, 1]}},
    "taint.unwrap": {"value": TAINTED},
    "validators.check_output": {"validator": KEY, "text": "KEY-1234"},
    "validators.check": {"validator": {"kind": "pii", "delta": True, "phases": ["input"]},
                         "phase": "input", "value": {"a": TAINTED}},
    "guards.run": {"validators": [KEY, {"kind": "pii"}], "window": 400, "deltas": ["a", "b"],
                   "holdBack": True, "maxTokens": 3},
    "guards.steps": {"validators": [KEY], "window": 100, "holdBack": True, "maxTokens": 3,
                     "steps": ["a", {"reset": True}, {"flush": True}]},
}
WRONG: list[Any] = [None, True, 0, -1, 1.5, "", "x", [], {}, [None], [[]], [{}], {"k": None},
                    ["IGNORECASE", None], "a{4294967296}", "(" * 600 + "a" + ")" * 600]


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every position in a JSON value, the root included."""
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from paths(v, (*prefix, i))


def put(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    """``value`` with the member at ``path`` replaced by ``new``."""
    if not path:
        return new
    out = copy.deepcopy(value)
    parent = out
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = new
    return out


def call(function: str, data: Any) -> None:
    """Run a vector function; a ``LoomError`` is a fine answer, anything else fails."""
    try:
        result = VECTOR_FUNCTIONS[function](data)
    except LoomError:
        return
    json.dumps(result)  # the result is JSON


def test_every_function_has_a_base() -> None:
    assert set(BASES) == set(VECTOR_FUNCTIONS)
    for function, data in BASES.items():
        VECTOR_FUNCTIONS[function](data)  # the bases are valid inputs


@pytest.mark.parametrize("function", sorted(BASES))
def test_a_wrong_value_at_any_position_is_a_loom_error(function: str) -> None:
    base = BASES[function]
    for path in list(paths(base)):
        for wrong in WRONG:
            call(function, put(base, path, wrong))


@pytest.mark.parametrize(
    ("function", "data"),
    [
        ("guards.run", {"validators": None, "deltas": ["a"]}),
        ("guards.steps", {"validators": None, "steps": ["a"]}),
        ("guards.run", {"validators": {}, "deltas": ["a"]}),
        ("validators.check_output",
         {"validator": {"kind": "deny", "patterns": ["x"], "flags": None}, "text": "x"}),
        ("validators.check_output",
         {"validator": {"kind": "deny", "patterns": ["x"], "flags": ""}, "text": "x"}),
        ("validators.check_output",
         {"validator": {"kind": "deny", "patterns": ["x"], "flags": [[]]}, "text": "x"}),
        ("validators.check_output",
         {"validator": {"kind": "deny", "patterns": ["x"], "maxWidth": True}, "text": "x"}),
        ("validators.check_output",
         {"validator": {"kind": "pii", "phases": [["output"]]}, "text": "x"}),
        ("validators.check_output",
         {"validator": {"kind": "deny", "patterns": ["a{4294967296}"],
                        "dialect": "python-re"}, "text": "x"}),
    ],
)
def test_wrong_types_are_argument_invalid(function: str, data: dict[str, Any]) -> None:
    with pytest.raises(InvalidArgument) as info:
        VECTOR_FUNCTIONS[function](data)
    assert info.value.code == "argument.invalid"


@pytest.mark.parametrize("regex", ["a{4294967296}", "(" * 600 + "a" + ")" * 600])
def test_a_regex_python_cannot_compile_is_argument_invalid(regex: str) -> None:
    # the python-re extension hands the regex to Python's compiler, which refuses it
    with pytest.raises(InvalidArgument) as info:
        compile_rule("r", regex, dialect="python-re")
    assert info.value.code == "argument.invalid"


@pytest.mark.parametrize(("regex", "reason"), [("a{4294967296}", "repeat"),
                                               ("(" * 600 + "a" + ")" * 600, "nesting")])
def test_a_regex_outside_the_dialect_is_argument_pattern(regex: str, reason: str) -> None:
    # spec: patterns.reasons -- the portable dialect refuses it before any compiler sees it
    with pytest.raises(InvalidArgument) as info:
        VECTOR_FUNCTIONS["validators.check_output"](
            {"validator": {"kind": "deny", "patterns": [regex]}, "text": "x"})
    assert info.value.code == "argument.pattern"
    assert info.value.details["reason"] == reason


def test_a_precompiled_pattern_too_deep_to_measure_is_argument_invalid() -> None:
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 8000))
    try:
        deep = re.compile("(" * 1500 + "a" + ")" * 1500)
    finally:
        sys.setrecursionlimit(limit)
    with pytest.raises(InvalidArgument):
        compile_rule("r", deep)


@pytest.mark.parametrize("bad", [True, 0, "3", 1.0])
def test_deny_max_width_is_checked_even_when_unused(bad: object) -> None:
    with pytest.raises(InvalidArgument):
        deny_patterns(["abc"], max_width=bad)  # type: ignore[arg-type]
    assert deny_patterns(["abc"], max_width=2).delta_form is not None  # bounded: not compared


def test_deep_inputs_are_decoded_without_recursion() -> None:
    deep: list[Any] = []
    node = deep
    for _ in range(50_000):
        node.append([])
        node = node[0]
    node.append(TAINTED)
    refused = VECTOR_FUNCTIONS["taint.guard_request"]({"request": deep})
    assert refused["ok"] is False
    assert refused["path"] == "/0" * 50_000 + "/0"
    back = encode_value(decode_request(deep))
    for _ in range(50_000):  # compared level by level: == itself would recurse
        assert isinstance(back, list)
        assert len(back) == 1
        back = back[0]
    assert back == [TAINTED]


def test_a_value_containing_itself_is_argument_invalid() -> None:
    loop: list[Any] = [1]
    loop.append(loop)
    with pytest.raises(InvalidArgument):
        decode_request({"a": loop})
    with pytest.raises(InvalidArgument):
        encode_value(loop)
    shared = [1]
    assert decode_request([shared, shared]) == [[1], [1]]  # shared, not cyclic: fine


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 5000) | st.floats(allow_nan=False)
    | st.text(max_size=6) | st.sampled_from(["IGNORECASE", "pii", "deny", "input", "$tainted"]),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(sorted({k for b in BASES.values() for p in paths(b)
                                              for k in p if isinstance(k, str)})
                                      + ["x", ""]), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(BASES)), st.data())
def test_random_json_at_a_random_position_is_a_result_or_a_loom_error(
    function: str, data: st.DataObject
) -> None:
    base = BASES[function]
    path = data.draw(st.sampled_from(list(paths(base))))
    call(function, put(base, path, data.draw(json_values)))


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(BASES)), json_values)
def test_random_json_input_is_a_result_or_a_loom_error(function: str, data: Any) -> None:
    call(function, data)
