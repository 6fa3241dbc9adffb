"""The compiled schema check (``loom_ref.schema.compile_check``) says "valid" exactly when
``validate`` finds no problem: on every case file, every protocol message a run sends and
every reply loom-ref gives, and on thousands of seeded mutants of them (members removed,
values replaced by values of other types, discriminators changed), valid and invalid
alike. The runner trusts the compiled check to let a message through unwalked, so a
disagreement would let an invalid message pass."""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from loom_ref.conformance.case import load_cases
from loom_ref.conformance.inprocess import LoomRefAdapter
from loom_ref.conformance.schemas import MESSAGE_SCHEMAS, SchemaSet
from loom_ref.conformance.suite import locate
from loom_ref.schema import check_schema, compile_check, validate

SUITE = locate()
SCHEMAS = SchemaSet(SUITE.schemas_dir)
CASES, _ = load_cases(SUITE.cases_dir)
REPLACEMENTS: list[Any] = [None, True, 0, 1.5, -1, "", "x", "execute", [], [1], {}, {"a": 1}]


COMPILED = {kind: compile_check(SCHEMAS.docs[name], registry=SCHEMAS.docs)
            for kind, name in MESSAGE_SCHEMAS.items()}


def _agree(kind: str, value: Any) -> bool:
    doc = SCHEMAS.docs[MESSAGE_SCHEMAS[kind]]
    fast = COMPILED[kind](value)
    slow = not validate(value, doc, registry=SCHEMAS.docs)
    assert fast == slow, (kind, value if len(repr(value)) < 2000 else repr(value)[:2000])
    return slow


def _containers(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(value, (dict, list)):
        yield path
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            yield from _containers(item, (*path, key))


def _mutants(value: Any, rng: random.Random, n: int) -> Iterator[Any]:
    paths = list(_containers(value))
    for _ in range(n):
        mutant = copy.deepcopy(value)
        node = mutant
        for key in rng.choice(paths):
            node = node[key]
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        if not keys:
            continue
        key = rng.choice(keys)
        roll = rng.random()
        if roll < 0.3:
            del node[key]
        elif roll < 0.9:
            node[key] = copy.deepcopy(rng.choice(REPLACEMENTS))
        elif isinstance(node, dict):
            node[f"extra{rng.randrange(3)}"] = 1
        yield mutant


def _messages() -> Iterator[tuple[str, Any]]:
    adapter = LoomRefAdapter()
    start = {"cmd": "start", "protocol": SUITE.protocol}
    yield "start", start
    yield "start-reply", adapter.handle(start)
    for seq, case in enumerate(CASES, 1):
        yield "case", dict(case.data)
        run = {"cmd": "run", "seq": seq, "case": case.to_run()}
        yield "run", run
        if seq % 8 == 0:  # an eighth of the replies: every family and many functions
            yield "run-reply", adapter.handle(run)
    yield "stop", {"cmd": "stop"}
    yield "stop-reply", {"ok": True}


def test_the_compiled_check_agrees_on_the_suites_messages_and_their_mutants() -> None:
    rng = random.Random(31)
    valid = invalid = 0
    for kind, message in _messages():
        assert _agree(kind, message), kind  # the suite's own messages are valid
        valid += 1
        for mutant in _mutants(message, rng, 3):
            if _agree(kind, mutant):
                valid += 1
            else:
                invalid += 1
    assert invalid > 2000 and valid > 2000, (valid, invalid)


def test_the_compiled_check_agrees_on_each_definition() -> None:
    rng = random.Random(7)
    defs = SCHEMAS.docs["defs.json"]["$defs"]
    values = [dict(c.data) for c in CASES[:200]] + [{"op": "execute"}, {"kind": "x"}, [], 1]
    for name in sorted(defs):
        schema = {"$ref": f"defs.json#/$defs/{name}"}
        fast = compile_check(schema, registry=SCHEMAS.docs)
        for value in rng.sample(values, 20):
            assert fast(value) == (not validate(value, schema, registry=SCHEMAS.docs)), name


JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 3) | st.floats(-2, 2)
                    | st.sampled_from(["", "a", "ab", "execute", "decide", "2x"]),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.sampled_from(["op", "a", "b", "kind"]), inner,
                                      max_size=3), max_leaves=8)

SCHEMA_LIST = [
    {"type": "integer", "minimum": 0, "maximum": 2},
    {"type": ["string", "null"], "minLength": 1, "maxLength": 2, "pattern": "^a"},
    {"enum": [1, "a", None]},
    {"const": {"a": 1}},
    {"type": "array", "items": {"type": "number"}, "minItems": 1, "maxItems": 2},
    {"properties": {"a": {"type": "integer"}}, "required": ["b"],
     "additionalProperties": False},
    {"anyOf": [{"type": "string"}, {"type": "object", "properties": {"a": {"const": 1}}}]},
    {"oneOf": [{"type": "object", "properties": {"op": {"const": "execute"}, "a": {}},
                "required": ["op"], "additionalProperties": False},
               {"type": "object", "properties": {"op": {"const": "decide"}},
                "required": ["op"]},
               {"properties": {"op": {"const": "decide"}, "a": {"type": "integer"}}}]},
    {"$defs": {"t": {"type": "array", "items": {"$ref": "#/$defs/t"}}}, "$ref": "#/$defs/t"},
    {"oneOf": [{"type": "integer"}, {"type": "number"}, {"const": True}]},
    {"minimum": 0, "maximum": 2},  # number keywords without a type: other values pass
    {"minItems": 1, "maxItems": 2},  # array keywords without a type: other values pass
]


@pytest.mark.parametrize("schema", SCHEMA_LIST, ids=range(len(SCHEMA_LIST)))
@settings(max_examples=150, deadline=None)
@given(value=JSON)
@example(value={"op": "decide"})
@example(value={"op": "decide", "a": 1})
@example(value={"op": "execute", "a": "x"})
@example(value=[[], [[]]])
@example(value=True)
def test_the_compiled_check_agrees_on_arbitrary_values(schema: Any, value: Any) -> None:
    check_schema(schema)
    assert compile_check(schema)(value) == (not validate(value, schema))


@pytest.mark.parametrize("ref", ["#/$defs/missing", "other.json#/$defs/a"])
def test_the_compiled_check_refuses_what_an_unresolvable_ref_names(ref: str) -> None:
    """A schema check_schema never saw (the runner's schemas all pass it): an unresolvable
    $ref refuses every value, as validate reports it unresolvable (an alternative of oneOf
    too: only the integer alternative takes 1)."""
    for schema in ({"$ref": ref}, {"$ref": ref, "type": "integer"},
                   {"oneOf": [{"$ref": ref}, {"type": "integer"}]}):
        for value in (1, None, {"a": 1}):
            assert compile_check(schema)(value) is (not validate(value, schema))
            assert compile_check(schema)(value) is (value == 1 and "oneOf" in schema)
