"""The matcher: JSON equality and the closed set of patterns."""

from __future__ import annotations

from loom_ref.conformance.match import check_patterns, json_equal, match


def test_json_equality_is_strict_about_booleans_and_loose_about_number_form() -> None:
    assert json_equal(1, 1.0)
    assert not json_equal(True, 1)
    assert not json_equal(0, False)
    assert not json_equal(None, False)
    assert json_equal({"a": [1, {"b": None}]}, {"a": [1.0, {"b": None}]})
    assert not json_equal({"a": 1}, {"a": 1, "b": 2})
    assert not json_equal([1, 2], [2, 1])


def test_literal_mismatch_is_reported_with_its_path() -> None:
    (m,) = match({"a": [1, {"b": "x"}]}, {"a": [1, {"b": "y"}]})
    assert m.path == "a[1].b"
    assert m.render() == 'a[1].b: expected "x", got "y"'


def test_missing_and_unexpected_members_and_lengths() -> None:
    ms = match({"a": 1, "b": 2}, {"a": 1, "c": 3})
    assert {(m.path, m.note) for m in ms} == {("b", "missing member"),
                                              ("c", "unexpected member")}
    (m,) = match([1, 2, 3], [1, 2])
    assert m.path == "[2:]" and "expected 3 items, got 2" in m.note


def test_type_regex_any() -> None:
    assert not match({"$type": "string"}, "x")
    assert match({"$type": "string"}, 1)
    assert not match({"$type": "number"}, 2)
    assert match({"$type": "integer"}, 2.5)
    assert not match({"$regex": "^e1/"}, "e1/a#1")
    assert match({"$regex": "^e1/"}, "e2/a#1")
    assert not match({"$any": None}, [1, 2])


def test_capture_binds_then_compares() -> None:
    pattern = [{"$capture": "k"}, {"$capture": "k"}]
    assert not match(pattern, ["x", "x"])
    (m,) = match(pattern, ["x", "y"])
    assert "capture 'k'" in m.note


def test_partial_and_includes() -> None:
    assert not match({"$partial": {"code": "a"}}, {"code": "a", "line": 3})
    assert match({"$partial": {"code": "a"}}, {"code": "b", "line": 3})
    assert not match({"$includes": ["b", "a"]}, ["a", "x", "b"])
    assert match({"$includes": ["a", "a"]}, ["a"])


def test_dollar_objects_that_are_not_patterns_are_literals() -> None:
    tainted = {"$tainted": {"value": "x", "origin": "llm:m"}}
    assert not match(tainted, tainted)
    assert match(tainted, {"$tainted": {"value": "y", "origin": "llm:m"}})
    assert not match({"$type": "string", "other": 1}, {"$type": "string", "other": 1})


def test_check_patterns_finds_malformed_patterns() -> None:
    problems = check_patterns({"a": {"$type": "str"}, "b": [{"$regex": "("}],
                               "c": {"$partial": [1]}})
    assert len(problems) == 3
    assert check_patterns({"a": {"$partial": {"x": {"$type": "null"}}}}) == []
