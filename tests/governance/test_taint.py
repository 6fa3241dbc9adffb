"""Taint: TaintedValue, taint, unwrap_tainted, is_tainted, guard_request (spec: taint.*)."""

from __future__ import annotations

import dataclasses
import itertools

import attrs
import pytest

from loom_ref.errors import GovernanceError, InvalidArgument
from loom_ref.governance import (
    NotTaintedError,
    TaintedRequestError,
    TaintedValue,
    guard_request,
    is_tainted,
    taint,
    unwrap_tainted,
)
from loom_ref.governance.walk import walk


def refused(request: object) -> TaintedRequestError:
    with pytest.raises(TaintedRequestError) as info:
        guard_request(request)
    return info.value


def test_taint_wraps_and_unwrap_returns_the_value() -> None:
    t = taint("hello", "llm:planner")
    assert isinstance(t, TaintedValue)
    assert t.origin == "llm:planner"
    assert unwrap_tainted(t) == "hello"
    assert is_tainted(t) and not is_tainted("hello")


def test_tainted_value_is_frozen() -> None:
    t = taint("x", "llm:a")
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        t.value = "y"  # type: ignore[misc]


@pytest.mark.parametrize("origin", ["", None, 3, b"llm:x"])
def test_bad_origin_is_invalid_argument(origin: object) -> None:
    with pytest.raises(InvalidArgument):
        taint("x", origin)  # type: ignore[arg-type]


def test_double_wrap_is_refused() -> None:
    with pytest.raises(InvalidArgument):
        taint(taint("x", "llm:a"), "llm:b")


@pytest.mark.parametrize("value", ["plain", 1, None, ["x"], {"value": "x", "origin": "llm:a"}])
def test_unwrap_of_untainted_is_refused(value: object) -> None:
    with pytest.raises(NotTaintedError) as info:
        unwrap_tainted(value)  # type: ignore[arg-type]
    assert info.value.code == "argument.not-tainted"
    assert isinstance(info.value, InvalidArgument)


def test_clean_request_passes() -> None:
    guard_request({"messages": [{"role": "user", "content": "hi"}], "n": 1})  # passes: no error
    guard_request("text")  # passes: no error
    guard_request(None)  # passes: no error


def test_tainted_root_is_refused_with_empty_path() -> None:
    err = refused(taint("x", "llm:a"))
    assert err.code == "governance.tainted-request"
    assert isinstance(err, GovernanceError)
    assert err.details == {"path": "", "origin": "llm:a", "key": False}


def test_nested_dict_list_tuple_path() -> None:
    req = {"messages": [{"role": "user", "content": "a"}, ("x", taint("secret", "llm:tool"))]}
    err = refused(req)
    assert err.details["path"] == "/messages/1/1"
    assert err.details["origin"] == "llm:tool"
    assert "secret" not in str(err)  # spec: taint.guard-details -- never the value


def test_first_in_document_order_is_reported() -> None:
    req = {"a": [1, taint("x", "llm:first")], "b": taint("y", "llm:second")}
    assert refused(req).details["origin"] == "llm:first"


def test_tainted_mapping_key() -> None:
    err = refused({"ok": 1, taint("k", "llm:key"): "v"})
    assert err.details["key"] is True
    assert err.details["origin"] == "llm:key"
    assert err.details["path"] == "/<TaintedValue>"


def test_pointer_escaping() -> None:
    err = refused({"a/b": {"c~d": taint("x", "llm:a")}})
    assert err.details["path"] == "/a~1b/c~0d"


def test_sets_are_walked() -> None:
    err = refused({"s": frozenset({1, taint("x", "llm:set")})})
    assert err.details["path"] == "/s/*"


@attrs.frozen
class Prompt:
    system: str
    parts: list[object]


@dataclasses.dataclass
class Message:
    role: str
    content: object


def test_attrs_and_dataclass_fields_are_walked() -> None:
    err = refused(Prompt(system="s", parts=[Message(role="user", content=taint("x", "llm:dc"))]))
    assert err.details["path"] == "/parts/0/content"
    assert err.details["origin"] == "llm:dc"


def test_other_objects_are_opaque() -> None:
    class Bag:
        def __init__(self) -> None:
            self.hidden = taint("x", "llm:a")

    guard_request([Bag()])  # passes: spec taint.walk, a documented limit


def test_cycles_terminate_and_still_find_taint() -> None:
    # spec: taint.cycles -- a cyclic request is walked once per container (JSON cannot hold one)
    a: list[object] = []
    b: dict[str, object] = {"a": a}
    a.append(b)
    a.append(a)
    guard_request(a)  # passes: no error
    a.append(taint("x", "llm:cyc"))
    err = refused(a)
    assert err.details["path"] == "/2"


def test_shared_substructure_is_fine() -> None:
    shared = ["x"] * 3
    guard_request({"a": shared, "b": shared, "c": [shared, shared]})  # passes: no error


def test_very_deep_nesting_has_no_recursion_limit() -> None:
    root: list[object] = []
    cur = root
    for _ in range(50_000):
        nxt: list[object] = []
        cur.append(nxt)
        cur = nxt
    cur.append(taint("x", "llm:deep"))
    err = refused(root)
    assert err.details["path"] == "/0" * 50_000 + "/0"


def test_tainted_inside_tainted_reports_the_outer() -> None:
    err = refused({"x": taint({"inner": "v"}, "llm:outer")})
    assert err.details["origin"] == "llm:outer"
    assert err.details["path"] == "/x"


def test_walk_enters_a_container_once() -> None:
    # spec: taint.cycles -- a container already entered is yielded again but not re-entered
    a: list[object] = ["x"]
    a.append(a)
    nodes = list(itertools.islice(walk(a), 10))
    assert [n.path for n in nodes] == ["", "/0", "/1"]
    assert nodes[2].value is a


def test_a_python_key_that_is_not_a_string_is_a_pointer_segment_of_its_text() -> None:
    """A Python request may key a mapping by a number or None (JSON cannot): the path names it
    by its text, and any other key by its type only, never its repr."""
    secret = taint("x", origin="llm:k")
    assert guard_request_path({7: secret}) == "/7"
    assert guard_request_path({None: secret}) == "/None"
    assert guard_request_path({1.5: secret}) == "/1.5"
    assert guard_request_path({("a/b",): secret}) == "/<tuple>"


def guard_request_path(request: object) -> str:
    with pytest.raises(GovernanceError) as info:
        guard_request(request)
    path = info.value.details["path"]
    assert isinstance(path, str)
    return path
