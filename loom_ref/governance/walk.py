"""Walking the structure of a request: the nodes that taint fencing and input validation see.

Rules (``spec/governance.md``):

- Containers are walked: mappings (each key, then its value), lists, tuples, sets and
  frozensets, ``attrs`` instances (fields in definition order) and dataclass instances.
  Everything else is a leaf: strings, bytes, numbers, ``None`` and objects of any other type,
  which are opaque (their ``__dict__`` is not read) (spec: taint.walk).
- Each container is entered at most once, by identity: a cyclic structure terminates and a
  shared substructure is walked once (spec: taint.cycles).
- The walk is iterative (an explicit stack), so nesting depth is not limited by Python's
  recursion limit, and nodes come in document order (pre-order, first child first).
- A node's path is a JSON pointer (RFC 6901): ``""`` is the root, ``"/messages/0/content"`` a
  nested node; ``~`` is written ``~0`` and ``/`` ``~1``. A set member's segment is ``*``:
  sets have no stable order, so which of two members is met first is unspecified.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from typing import Any

import attrs

__all__ = ["Node", "json_pointer_segment", "walk"]


@attrs.frozen(kw_only=True)
class Node:
    """One node met by :func:`walk`: its JSON-pointer ``path``, the ``value`` and whether the
    value is a mapping key (``key``; a key's path is the path of its entry)."""

    path: str
    value: object
    key: bool = False


def json_pointer_segment(segment: object) -> str:
    """The escaped RFC 6901 segment for a mapping key, index or field name.

    A key that is not a string, number, bool or ``None`` is written ``<TypeName>``, so a path
    never embeds an arbitrary object's ``repr`` (which could hold untrusted text).
    """
    if isinstance(segment, str):
        text = segment
    elif segment is None or isinstance(segment, int | float):
        text = str(segment)
    else:
        text = f"<{type(segment).__name__}>"
    return text.replace("~", "~0").replace("/", "~1")


def _children(value: object, path: str) -> list[Node] | None:
    """The child nodes of a container in document order, or ``None`` for a leaf."""
    if isinstance(value, str | bytes | bytearray):
        return None
    if isinstance(value, Mapping):
        nodes: list[Node] = []
        for k, v in value.items():
            child = f"{path}/{json_pointer_segment(k)}"
            nodes.append(Node(path=child, value=k, key=True))
            nodes.append(Node(path=child, value=v))
        return nodes
    if isinstance(value, list | tuple):
        return [Node(path=f"{path}/{i}", value=v) for i, v in enumerate(value)]
    if isinstance(value, set | frozenset):
        return [Node(path=f"{path}/*", value=v) for v in value]
    if attrs.has(type(value)):
        return [
            Node(path=f"{path}/{json_pointer_segment(f.name)}", value=getattr(value, f.name))
            for f in attrs.fields(type(value))  # type: ignore[arg-type]  # attrs.has() checked
        ]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [  # a dataclass (only in a Python request)
            Node(path=f"{path}/{json_pointer_segment(f.name)}", value=getattr(value, f.name))
            for f in dataclasses.fields(value)
        ]
    return None


def walk(root: Any) -> Iterator[Node]:
    """Yield every node of ``root`` (itself first) in document order; see the module rules.

    spec: taint.cycles -- "guard_request MUST terminate on a cyclic request": a container
    already entered (same ``id``) is yielded again as a node but not entered twice.
    """
    entered: set[int] = set()
    stack: list[Node] = [Node(path="", value=root)]
    while stack:
        node = stack.pop()
        yield node
        value = node.value
        if id(value) in entered:
            continue  # a container met before (only in a Python request): not entered twice
        children = _children(value, node.path)
        if children is None:
            continue
        entered.add(id(value))
        stack.extend(reversed(children))
