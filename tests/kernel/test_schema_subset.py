"""The resume-schema subset (spec/kernel.md §2.4.1): what loom_ref.schema refuses, how it
validates, and where it says each problem is (RFC 6901 pointers)."""

from __future__ import annotations

from typing import Any

import pytest

from loom_ref.conformance.schemas import SchemaSet
from loom_ref.conformance.suite import locate
from loom_ref.errors import InvalidArgument
from loom_ref.schema import ANNOTATIONS, check_schema, json_equal, pointer, validate


def refused(schema: Any, registry: Any = None) -> str:
    with pytest.raises(InvalidArgument) as info:
        check_schema(schema, registry=registry)
    assert info.value.code == "argument.schema"
    return str(info.value)


def paths(value: Any, schema: Any) -> list[str]:
    check_schema(schema)
    return [p["path"] for p in validate(value, schema)]


def test_json_equality_tells_booleans_from_numbers_and_ignores_member_order() -> None:
    # spec: kernel.schema-keywords -- enum and const compare as JSON
    assert json_equal(1, 1.0) and not json_equal(True, 1) and not json_equal(0, False)
    assert json_equal({"a": [1, {"b": None}]}, {"a": [1.0, {"b": None}]})
    assert not json_equal({"a": 1}, {"a": 1, "b": 2}) and not json_equal([1, 2], [2, 1])
    assert paths(True, {"enum": [1]}) == [""]
    assert paths(1, {"const": True}) == [""]
    assert paths(1.0, {"const": 1}) == []


def test_a_problem_is_at_the_pointer_of_the_value_that_failed() -> None:
    # spec: kernel.schema-problems
    assert pointer("", "a/b") == "/a~1b" and pointer("/x", "~") == "/x/~0"
    schema = {"type": "object", "required": ["id"], "additionalProperties": False,
              "properties": {"xs": {"items": {"type": "integer"}}, "k": {"anyOf": [
                  {"const": 1}, {"const": 2}]}}}
    assert paths({"xs": [1, "a"], "k": 3, "z": 0}, schema) == ["", "/xs/1", "/k", "/z"]
    assert paths("x", schema) == [""]  # a failing type stops the rest there


def test_a_failing_type_is_checked_before_a_ref() -> None:
    schema = {"$defs": {"o": {"properties": {"a": {"type": "string"}}}},
              "$ref": "#/$defs/o", "type": "array"}
    assert paths({"a": 1}, schema) == [""]


def test_annotations_are_accepted_anywhere_and_id_only_at_the_root() -> None:
    # spec: kernel.schema-annotations
    every = {name: [1] for name in ANNOTATIONS}
    check_schema(every)
    check_schema({"properties": {"a": {k: v for k, v in every.items() if k != "$id"}}})
    assert "$id below the root" in refused({"properties": {"a": {"$id": "urn:a"}}})
    assert "unsupported keywords" in refused({"format": "email"})


def test_a_count_or_a_list_of_names_is_refused_when_it_repeats_or_is_of_the_wrong_kind() -> None:
    # spec: kernel.schema-subset
    for bad in ({"type": ["string", "string"]}, {"required": ["a", "a"]}, {"type": []},
                {"minLength": -1}, {"maxItems": 2.0}, {"minimum": True}, {"items": [True]},
                {"pattern": "("}, 5, None, [], "x"):
        refused(bad)


def test_refs_resolve_in_the_roots_defs_and_never_loop_on_one_value() -> None:
    # spec: kernel.schema-refs
    tree = {"$defs": {"t": {"type": "array", "items": {"$ref": "#/$defs/t"}}},
            "$ref": "#/$defs/t"}
    assert paths([[[]], [1]], tree) == ["/1/0"]
    assert "names no schema" in refused({"$ref": "#/$defs/x"})
    assert "is not '#/$defs/<name>'" in refused({"$ref": "#/$defs/a~1b", "$defs": {"a/b": True}})
    assert "names a document" in refused({"$ref": "doc.json#/$defs/a"})
    loop = refused({"$defs": {"a": {"anyOf": [{"$ref": "#/$defs/b"}]},
                              "b": {"oneOf": [True, {"$ref": "#/$defs/a"}]}}})
    assert "loop" in loop and "#/$defs/a -> #/$defs/b -> #/$defs/a" in loop
    # another document's defs, through a registry (the conformance schemas)
    check_schema({"$ref": "doc.json#/$defs/a"}, registry={"doc.json": {"$defs": {"a": True}}})


def test_the_conformance_schemas_are_checked_with_each_other() -> None:
    schemas = SchemaSet(locate().schemas_dir)
    assert "defs.json" in schemas.docs and schemas.problems_def("tier", "must") == []


@pytest.mark.parametrize("ref", ["#/$defs/x", "x", "other.json#/$defs/a", "#/properties/a"])
def test_validate_reports_an_unresolvable_ref_of_an_unchecked_schema(ref: str) -> None:
    """validate() of a schema check_schema never saw: a $ref that names nothing (no such def,
    no '#', a document not in the registry, not under $defs) is one problem at the value, and
    nothing more of that schema is checked (its const is not)."""
    schema = {"$ref": ref, "const": 2, "$defs": {}}
    assert validate(1, schema) == [{"path": "", "message": f"unresolvable $ref {ref!r}"}]
