"""A small, closed subset of JSON Schema, for resume payloads and protocol messages.

Spec: ``spec/kernel.md`` (``kernel.resume-schema``) and ``conformance/INTERPRETING.md``.
loom_ref depends on attrs only, so it carries its own validator for the keywords it needs:

``type`` (a name or a list of names: null, boolean, integer, number, string, array, object),
``enum``, ``const``, ``properties``, ``required``, ``additionalProperties`` (bool or schema),
``items``, ``minItems``, ``maxItems``, ``minLength``, ``maxLength``, ``minimum``, ``maximum``,
``pattern``, ``anyOf``, ``oneOf``, ``$ref`` to ``#/$defs/<name>``, ``$defs``, and the
annotations ``$schema``, ``$id``, ``title``, ``description``, ``default``, ``examples``.
A ``$ref`` may also name another document, ``<doc>#/$defs/<name>``, resolved in the
``registry`` passed to :func:`validate` (the conformance schemas share one ``defs.json``).

A schema using any other keyword is refused when it is checked (:func:`check_schema`), so an
unsupported keyword can never pass a payload silently (fail closed). Booleans are not numbers
here, as in JSON Schema.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, NoReturn

from loom_ref.errors import InvalidArgument

__all__ = ["check_schema", "validate"]

_TYPES: dict[str, tuple[type, ...]] = {
    "null": (type(None),),
    "boolean": (bool,),
    "integer": (int,),
    "number": (int, float),
    "string": (str,),
    "array": (list, tuple),
    "object": (dict, Mapping),
}
_KEYWORDS = frozenset(
    {"type", "enum", "const", "properties", "required", "additionalProperties", "items",
     "minItems", "maxItems", "minLength", "maxLength", "minimum", "maximum", "pattern",
     "anyOf", "oneOf", "$ref", "$defs", "$schema", "$id", "title", "description", "default",
     "examples"}
)


def check_schema(schema: object, *, where: str = "schema") -> None:
    """Raise :class:`InvalidArgument` (code ``argument.schema``) unless ``schema`` uses only the
    supported subset, each keyword with a value of its kind (a ``minLength`` that is a count, a
    ``pattern`` that compiles, ...), so that :func:`validate` never meets a schema it cannot
    read."""
    if isinstance(schema, bool):
        return
    if not isinstance(schema, Mapping):
        _bad(where, "must be an object or a boolean")
    unknown = [k for k in schema if k not in _KEYWORDS]
    if unknown:
        _bad(where, f"uses unsupported keywords {sorted(map(str, unknown))}")
    if "type" in schema:
        types = schema["type"]
        names = [types] if isinstance(types, str) else types
        if not isinstance(names, list) or not names or not all(
                isinstance(n, str) and n in _TYPES for n in names):
            _bad(where, f"type must name one or more of {sorted(_TYPES)}, got {types!r}")
    for key in ("properties", "$defs"):
        if key in schema:
            subs = schema[key]
            if not isinstance(subs, Mapping):
                _bad(where, f"{key} must be an object of schemas")
            for name, sub in subs.items():
                check_schema(sub, where=f"{where}/{key}/{name}")
    for key in ("items", "additionalProperties"):
        if key in schema:
            check_schema(schema[key], where=f"{where}/{key}")
    for key in ("anyOf", "oneOf"):
        if key in schema:
            subs = schema[key]
            if not isinstance(subs, list) or not subs:
                _bad(where, f"{key} must be a non-empty array of schemas")
            for i, sub in enumerate(subs):
                check_schema(sub, where=f"{where}/{key}/{i}")
    for key in ("minItems", "maxItems", "minLength", "maxLength"):
        if key in schema and (type(schema[key]) is not int or schema[key] < 0):
            _bad(where, f"{key} must be a non-negative integer, got {schema[key]!r}")
    for key in ("minimum", "maximum"):
        if key in schema and (type(schema[key]) not in (int, float) or schema[key] != schema[key]):
            _bad(where, f"{key} must be a number, got {schema[key]!r}")
    if "required" in schema and not (isinstance(schema["required"], list) and all(
            isinstance(n, str) for n in schema["required"])):
        _bad(where, "required must be an array of strings")
    if "enum" in schema and not isinstance(schema["enum"], list):
        _bad(where, "enum must be an array")
    for key in ("$ref", "pattern"):
        if key in schema and not isinstance(schema[key], str):
            _bad(where, f"{key} must be a string")
    if "pattern" in schema:
        try:
            re.compile(schema["pattern"])
        except (re.error, RecursionError, OverflowError) as exc:
            _bad(where, f"pattern does not compile: {exc}")


def _bad(where: str, message: str) -> NoReturn:
    raise InvalidArgument(f"{where} {message}", code="argument.schema")


def _is(value: Any, name: str) -> bool:
    if isinstance(value, bool) and name in ("integer", "number"):
        return False
    if name == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, _TYPES[name])


def validate(
    value: Any, schema: Any, *, root: Any = None, registry: Mapping[str, Any] | None = None
) -> list[dict[str, str]]:
    """Every way ``value`` fails ``schema``, as ``[{"path": "/a/0", "message": ...}]``.

    An empty list means the value is valid. ``registry`` maps document names to schemas, for
    ``$ref`` values of the form ``<doc>#/$defs/<name>``.
    """
    problems: list[dict[str, str]] = []
    _validate(value, schema, "", problems, schema if root is None else root, registry or {})
    return problems


def _resolve(ref: str, root: Any, registry: Mapping[str, Any]) -> tuple[Any, Any] | None:
    doc_name, sep, pointer = ref.partition("#")
    doc = root if not doc_name else registry.get(doc_name)
    prefix = "/$defs/"
    if not sep or not isinstance(doc, Mapping) or not pointer.startswith(prefix):
        return None
    defs = doc.get("$defs", {})
    name = pointer[len(prefix):]
    if name not in defs:
        return None
    return defs[name], doc


_SCALARS = frozenset({str, int, float, bool, type(None), list, tuple})


def _has_const(props: Mapping[str, Any], name: str) -> bool:
    sub = props.get(name)
    return type(sub) is dict and "const" in sub


class _Stop(Exception):
    pass


class _Probe(list[dict[str, str]]):
    """A problem list that stops validation at its first problem."""

    def append(self, item: dict[str, str]) -> None:
        raise _Stop


def _matches(value: Any, schema: Any, root: Any, registry: Mapping[str, Any]) -> bool:
    """Whether ``value`` is valid against ``schema``, stopping at the first problem."""
    try:
        _validate(value, schema, "", _Probe(), root, registry)
    except _Stop:
        return False
    return True


def _validate(value: Any, schema: Any, path: str, out: list[dict[str, str]], root: Any,
              registry: Mapping[str, Any]) -> None:
    def fail(message: str) -> None:
        out.append({"path": path or "/", "message": message})

    if schema is True:
        return
    if schema is False:
        fail("no value is allowed here")
        return
    ref = schema.get("$ref")
    if ref is not None:
        target = _resolve(ref, root, registry)
        if target is None:
            fail(f"unresolvable $ref {ref!r}")
            return
        _validate(value, target[0], path, out, target[1], registry)
    types = schema.get("type")
    if types is not None:
        names = [types] if isinstance(types, str) else list(types)
        if not any(_is(value, n) for n in names):
            fail(f"expected {' or '.join(names)}, got {type(value).__name__}")
            return
    if "const" in schema and value != schema["const"]:
        fail(f"expected {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        fail(f"expected one of {schema['enum']!r}")
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            fail(f"shorter than {schema['minLength']}")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            fail(f"longer than {schema['maxLength']}")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            fail(f"does not match {schema['pattern']!r}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            fail(f"less than {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            fail(f"greater than {schema['maximum']}")
    if isinstance(value, (list, tuple)):
        if len(value) < schema.get("minItems", 0):
            fail(f"fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            fail(f"more than {schema['maxItems']} items")
        if "items" in schema:
            for i, item in enumerate(value):
                _validate(item, schema["items"], f"{path}/{i}", out, root, registry)
    if type(value) is dict or (type(value) not in _SCALARS and isinstance(value, Mapping)):
        props = schema.get("properties", {})
        for name in schema.get("required", []):
            if name not in value:
                fail(f"missing required property {name!r}")
        extra = schema.get("additionalProperties", True)
        # members with a ``const`` (discriminators such as ``op``) first, so that a probe of
        # a oneOf alternative fails before it descends into nested values
        for name, item in sorted(value.items(), key=lambda kv: not _has_const(props, kv[0])):
            if name in props:
                _validate(item, props[name], f"{path}/{name}", out, root, registry)
            elif extra is not True:
                _validate(item, extra, f"{path}/{name}", out, root, registry)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            matches = 0
            for sub in schema[key]:
                if _matches(value, sub, root, registry):
                    matches += 1
                    if key == "anyOf" or matches > 1:
                        break
            if matches == 0 or (key == "oneOf" and matches > 1):
                fail(f"matches {matches} of the {key} alternatives")
