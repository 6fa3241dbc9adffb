"""A small, closed subset of JSON Schema, for resume payloads and protocol messages.

Spec: ``spec/kernel.md`` § 2.4.1 (``kernel.schema-subset``, ``kernel.schema-keywords``,
``kernel.schema-annotations``, ``kernel.schema-refs``, ``kernel.schema-problems``). loom_ref
depends on attrs only, so it carries its own validator for the keywords it needs:

``type`` (a name or a list of distinct names: null, boolean, integer, number, string, array,
object), ``enum``, ``const``, ``properties``, ``required``, ``additionalProperties`` (bool or
schema), ``items``, ``minItems``, ``maxItems``, ``minLength``, ``maxLength``, ``minimum``,
``maximum``, ``pattern``, ``anyOf``, ``oneOf``, ``$ref`` to ``#/$defs/<name>`` and ``$defs``;
the annotations ``$schema``, ``$id`` (at the root only), ``$comment``, ``title``,
``description``, ``default``, ``examples``, ``deprecated``, ``readOnly``, ``writeOnly`` are
accepted and ignored. A ``$ref`` may also name another document, ``<doc>#/$defs/<name>``,
resolved in the ``registry`` passed to :func:`check_schema` and :func:`validate` (the
conformance schemas share one ``defs.json``).

A schema using any other keyword, a keyword whose value is not of its kind, a ``$ref`` that
does not resolve, or ``$ref``s that loop without descending into the value, is refused when it
is checked (:func:`check_schema`), so an unsupported keyword can never pass a payload silently
(fail closed) and :func:`validate` never meets a schema it cannot read. Values compare as JSON
(:func:`json_equal`): booleans are not numbers, ``1`` equals ``1.0``. String lengths count code
points. A problem's ``path`` is the RFC 6901 JSON Pointer of the value that failed (``""``:
the whole value).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any, NoReturn

from loom_ref.errors import InvalidArgument

__all__ = ["check_schema", "json_equal", "pointer", "validate"]

_TYPES: dict[str, tuple[type, ...]] = {
    "null": (type(None),),
    "boolean": (bool,),
    "integer": (int,),
    "number": (int, float),
    "string": (str,),
    "array": (list, tuple),
    "object": (dict, Mapping),
}
#: Keywords that validate (spec: kernel.schema-keywords).
_ASSERTIONS = frozenset(
    {"type", "enum", "const", "properties", "required", "additionalProperties", "items",
     "minItems", "maxItems", "minLength", "maxLength", "minimum", "maximum", "pattern",
     "anyOf", "oneOf", "$ref", "$defs"}
)
#: Keywords accepted and ignored, their values unchecked (spec: kernel.schema-annotations).
ANNOTATIONS = frozenset(
    {"$schema", "$id", "$comment", "title", "description", "default", "examples",
     "deprecated", "readOnly", "writeOnly"}
)
_KEYWORDS = _ASSERTIONS | ANNOTATIONS
_DEF_NAME = re.compile(r"[A-Za-z0-9_.-]+")
_DEFS_PREFIX = "#/$defs/"


def json_equal(a: Any, b: Any) -> bool:
    """Equality of two JSON values: booleans are not numbers, numbers compare by value (``1``
    equals ``1.0``), objects by members in any order, arrays item by item."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and bool(a == b)


def pointer(path: str, token: str | int) -> str:
    """``path`` extended by one reference token, escaped as RFC 6901 says (``~`` as ``~0``,
    ``/`` as ``~1``)."""
    return f"{path}/{str(token).replace('~', '~0').replace('/', '~1')}"


# -- checking a schema ----------------------------------------------------------------------


def check_schema(schema: object, *, where: str = "schema",
                 registry: Mapping[str, Any] | None = None) -> None:
    """Raise :class:`InvalidArgument` (code ``argument.schema``) unless ``schema`` uses only the
    supported subset, each keyword with a value of its kind (a ``minLength`` that is a count, a
    ``pattern`` that compiles, ...), every ``$ref`` resolves (in ``schema``'s own ``$defs``, or
    in a document of ``registry``), and no ``$ref`` loops back without descending into the
    value, so that :func:`validate` never meets a schema it cannot read.
    (spec: kernel.schema-subset)"""
    _check(schema, where, root=True)
    if isinstance(schema, Mapping):
        _check_refs(schema, where, registry or {})


def _bad(where: str, message: str) -> NoReturn:
    raise InvalidArgument(f"{where} {message}", code="argument.schema")


def _distinct(values: list[Any]) -> bool:
    return not any(json_equal(a, b) for i, a in enumerate(values) for b in values[i + 1:])


def _check(schema: object, where: str, *, root: bool = False) -> None:
    if isinstance(schema, bool):
        return
    if not isinstance(schema, Mapping):
        _bad(where, "must be an object or a boolean")
    unknown = [k for k in schema if k not in _KEYWORDS]
    if unknown:
        _bad(where, f"uses unsupported keywords {sorted(map(str, unknown))}")
    if "$id" in schema and not root:  # it would move what "#/$defs/..." names
        _bad(where, "has $id below the root")
    if "type" in schema:
        types = schema["type"]
        names = [types] if isinstance(types, str) else types
        if not isinstance(names, list) or not names or not all(
                isinstance(n, str) and n in _TYPES for n in names):
            _bad(where, f"type must name one or more of {sorted(_TYPES)}, got {types!r}")
        if not _distinct(names):
            _bad(where, f"type names a type twice: {types!r}")
    for key in ("properties", "$defs"):
        if key in schema:
            subs = schema[key]
            if not isinstance(subs, Mapping):
                _bad(where, f"{key} must be an object of schemas")
            for name, sub in subs.items():
                _check(sub, f"{where}/{key}/{name}")
    for key in ("items", "additionalProperties"):
        if key in schema:
            _check(schema[key], f"{where}/{key}")
    for key in ("anyOf", "oneOf"):
        if key in schema:
            subs = schema[key]
            if not isinstance(subs, list) or not subs:
                _bad(where, f"{key} must be a non-empty array of schemas")
            for i, sub in enumerate(subs):
                _check(sub, f"{where}/{key}/{i}")
    for key in ("minItems", "maxItems", "minLength", "maxLength"):
        if key in schema and (type(schema[key]) is not int or schema[key] < 0):
            _bad(where, f"{key} must be a non-negative integer, got {schema[key]!r}")
    for key in ("minimum", "maximum"):
        if key in schema and (type(schema[key]) not in (int, float) or schema[key] != schema[key]):
            _bad(where, f"{key} must be a number, got {schema[key]!r}")
    if "required" in schema:
        required = schema["required"]
        if not (isinstance(required, list) and all(isinstance(n, str) for n in required)):
            _bad(where, "required must be an array of strings")
        if not _distinct(required):
            _bad(where, f"required names a member twice: {required!r}")
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


def _subschemas(schema: Any, path: str) -> Iterator[tuple[Any, str]]:
    """Every schema inside ``schema`` (itself included), with its place."""
    yield schema, path
    if not isinstance(schema, Mapping):
        return
    for key in ("properties", "$defs"):
        for name, sub in schema.get(key, {}).items():
            yield from _subschemas(sub, f"{path}/{key}/{name}")
    for key in ("items", "additionalProperties"):
        if key in schema:
            yield from _subschemas(schema[key], f"{path}/{key}")
    for key in ("anyOf", "oneOf"):
        for i, sub in enumerate(schema.get(key, [])):
            yield from _subschemas(sub, f"{path}/{key}/{i}")


def _same_value_refs(schema: Any) -> Iterator[str]:
    """The ``$ref``s that ``schema`` applies to the value it is given, not to a part of it:
    its own and those of its ``anyOf``/``oneOf`` alternatives (spec: kernel.schema-refs)."""
    if not isinstance(schema, Mapping):
        return
    if "$ref" in schema:
        yield schema["$ref"]
    for key in ("anyOf", "oneOf"):
        for sub in schema.get(key, []):
            yield from _same_value_refs(sub)


def _check_refs(root: Mapping[str, Any], where: str, registry: Mapping[str, Any]) -> None:
    def target(ref: str, doc: Mapping[str, Any], at: str) -> tuple[str, Any]:
        name, sep, rest = ref.partition(_DEFS_PREFIX)
        if not sep or not _DEF_NAME.fullmatch(rest):
            _bad(at, f"$ref {ref!r} is not '#/$defs/<name>'")
        home = doc if not name else registry.get(name)
        if name and home is None:
            _bad(at, f"$ref {ref!r} names a document that is not there")
        defs = home.get("$defs") if isinstance(home, Mapping) else None
        if not isinstance(defs, Mapping) or rest not in defs:
            _bad(at, f"$ref {ref!r} names no schema of $defs")
        return f"{name}#{rest}", defs[rest]

    edges: dict[str, list[str]] = {}
    for sub, at in _subschemas(root, where):
        if isinstance(sub, Mapping) and "$ref" in sub:
            target(sub["$ref"], root, at)
    for name, sub in root.get("$defs", {}).items():
        edges[f"#{name}"] = [target(ref, root, where)[0] for ref in _same_value_refs(sub)]
    # a cycle of $refs that never descends into the value would never end (spec:
    # kernel.schema-refs); refs into another document end there (it was checked on its own)
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        if state.get(node) == 2:
            return
        if state.get(node) == 1:
            loop = trail[trail.index(node):] + [node]
            _bad(where, "has $refs that loop without reading into the value: "
                 + " -> ".join(f"#/$defs/{n[1:]}" for n in loop))
        state[node] = 1
        for nxt in edges.get(node, ()):
            visit(nxt, [*trail, node])
        state[node] = 2

    for node in edges:
        visit(node, [])


# -- validating a value ---------------------------------------------------------------------


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

    An empty list means the value is valid. ``path`` is the RFC 6901 JSON Pointer of the value
    that failed (``""`` for ``value`` itself; spec: kernel.schema-problems). ``registry`` maps
    document names to schemas, for ``$ref`` values of the form ``<doc>#/$defs/<name>``.
    """
    problems: list[dict[str, str]] = []
    _validate(value, schema, "", problems, schema if root is None else root, registry or {})
    return problems


def _resolve(ref: str, root: Any, registry: Mapping[str, Any]) -> tuple[Any, Any] | None:
    doc_name, sep, pointer_ = ref.partition("#")
    doc = root if not doc_name else registry.get(doc_name)
    prefix = "/$defs/"
    if not sep or not isinstance(doc, Mapping) or not pointer_.startswith(prefix):
        return None
    defs = doc.get("$defs", {})
    name = pointer_[len(prefix):]
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
        out.append({"path": path, "message": message})

    if schema is True:
        return
    if schema is False:
        fail("no value is allowed here")
        return
    types = schema.get("type")
    if types is not None:  # when it fails, nothing else of this schema is checked here
        names = [types] if isinstance(types, str) else list(types)
        if not any(_is(value, n) for n in names):
            fail(f"expected {' or '.join(names)}, got {type(value).__name__}")
            return
    ref = schema.get("$ref")
    if ref is not None:
        target = _resolve(ref, root, registry)
        if target is None:  # a schema check_schema never saw (spec: kernel.schema-refs)
            fail(f"unresolvable $ref {ref!r}")
            return  # an unresolvable $ref: nothing more of this schema is checked
        _validate(value, target[0], path, out, target[1], registry)
    if "const" in schema and not json_equal(value, schema["const"]):
        fail(f"expected {schema['const']!r}")
    if "enum" in schema and not any(json_equal(value, e) for e in schema["enum"]):
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
                _validate(item, schema["items"], pointer(path, i), out, root, registry)
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
                _validate(item, props[name], pointer(path, name), out, root, registry)
            elif extra is not True:
                _validate(item, extra, pointer(path, name), out, root, registry)
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


# -- the same rules, compiled -----------------------------------------------------------------
#
# A run of the conformance suite validates some ten thousand messages; walking the schema
# documents for each (keyword lookups, ``$ref`` resolution, every ``oneOf`` alternative tried
# in full) was about half of the runner's own time. :func:`compile_check` turns a schema into
# a predicate once: keywords read, references resolved and regexes compiled at compile time,
# and a ``oneOf`` whose alternatives each pin a member with a ``const`` (``op``, ``kind``)
# tries only the alternatives that member's value allows. The predicate answers whether
# :func:`validate` would find no problem, exactly (tests/test_schema_compile.py checks the two
# against each other); a caller wanting the problems runs :func:`validate` when it says no.

Check = Callable[[Any], bool]


def _yes(value: Any) -> bool:
    return True


def _no(value: Any) -> bool:
    return False


def _is_object(value: Any) -> bool:
    return type(value) is dict or (type(value) not in _SCALARS and isinstance(value, Mapping))


def _type_check(names: list[str]) -> Check:
    if len(names) == 1:
        name = names[0]
        if name == "object":
            return lambda v: isinstance(v, (dict, Mapping))
        if name == "string":
            return lambda v: isinstance(v, str)
        if name == "null":
            return lambda v: v is None
        if name == "boolean":
            return lambda v: isinstance(v, bool)
        if name == "array":
            return lambda v: isinstance(v, (list, tuple))
    return lambda v: any(_is(v, n) for n in names)


class _Compiler:
    """Compiles schemas (each node once, cycles through ``$ref`` allowed) into checks."""

    def __init__(self, registry: Mapping[str, Any]) -> None:
        self.registry = registry
        self.done: dict[tuple[int, int], Check] = {}
        self.keep: list[Any] = []  # the schemas whose ids key ``done`` stay alive

    def check(self, schema: Any, root: Any) -> Check:
        key = (id(schema), id(root))
        found = self.done.get(key)
        if found is not None:
            return found
        self.keep.append((schema, root))
        cell: list[Check] = []
        self.done[key] = lambda v: cell[0](v)  # a reference back to a node being compiled
        built = self._build(schema, root)
        cell.append(built)
        self.done[key] = built
        return built

    def _target(self, schema: Any, root: Any) -> tuple[Any, Any]:
        """The schema a bare ``{"$ref": ...}`` stands for (itself otherwise)."""
        for _ in range(8):
            if not isinstance(schema, Mapping) or "properties" in schema or "$ref" not in schema:
                break
            found = _resolve(schema["$ref"], root, self.registry)
            if found is None:
                break
            schema, root = found
        return schema, root

    def _build(self, schema: Any, root: Any) -> Check:
        if schema is True:
            return _yes
        if schema is False:
            return _no
        checks: list[Check] = []
        types = schema.get("type")
        if types is not None:
            checks.append(_type_check([types] if isinstance(types, str) else list(types)))
        if "const" in schema:
            const = schema["const"]
            checks.append(lambda v: json_equal(v, const))
        if "enum" in schema:
            options = schema["enum"]
            checks.append(lambda v: any(json_equal(v, o) for o in options))
        ref = schema.get("$ref")
        if ref is not None:
            target = _resolve(ref, root, self.registry)
            if target is None:
                return _no
            checks.append(self.check(*target))
        checks += self._scalars(schema)
        if "items" in schema or "minItems" in schema or "maxItems" in schema:
            checks.append(self._array(schema, root))
        if "properties" in schema or "required" in schema or "additionalProperties" in schema:
            checks.append(self._object(schema, root))
        if "anyOf" in schema:
            subs = [self.check(s, root) for s in schema["anyOf"]]
            checks.append(lambda v: any(c(v) for c in subs))
        if "oneOf" in schema:
            checks.append(self._one_of(schema["oneOf"], root))
        if not checks:
            return _yes
        if len(checks) == 1:
            return checks[0]
        return lambda v: all(c(v) for c in checks)

    def _scalars(self, schema: Mapping[str, Any]) -> list[Check]:
        out: list[Check] = []
        low, high = schema.get("minLength", 0), schema.get("maxLength")
        pattern = re.compile(schema["pattern"]) if "pattern" in schema else None
        if low or high is not None or pattern is not None:
            def string(v: Any) -> bool:
                if not isinstance(v, str):
                    return True
                return (len(v) >= low and (high is None or len(v) <= high)
                        and (pattern is None or pattern.search(v) is not None))
            out.append(string)
        least, most = schema.get("minimum"), schema.get("maximum")
        if least is not None or most is not None:
            def number(v: Any) -> bool:
                if not isinstance(v, (int, float)) or isinstance(v, bool):
                    return True
                return (least is None or not v < least) and (most is None or not v > most)
            out.append(number)
        return out

    def _array(self, schema: Mapping[str, Any], root: Any) -> Check:
        low, high = schema.get("minItems", 0), schema.get("maxItems")
        item = self.check(schema["items"], root) if "items" in schema else None

        def array(v: Any) -> bool:
            if not isinstance(v, (list, tuple)):
                return True
            if len(v) < low or (high is not None and len(v) > high):
                return False
            return item is None or all(item(x) for x in v)
        return array

    def _object(self, schema: Mapping[str, Any], root: Any) -> Check:
        props = {name: self.check(sub, root) for name, sub in schema.get("properties",
                                                                          {}).items()}
        required = list(schema.get("required", []))
        extra_schema = schema.get("additionalProperties", True)
        extra = None if extra_schema is True else self.check(extra_schema, root)

        def obj(v: Any) -> bool:
            if not _is_object(v):
                return True
            for name in required:
                if name not in v:
                    return False
            for name, item in v.items():
                sub = props.get(name)
                if sub is not None:
                    if not sub(item):
                        return False
                elif extra is not None and not extra(item):
                    return False
            return True
        return obj

    def _one_of(self, alternatives: list[Any], root: Any) -> Check:
        subs = [self.check(s, root) for s in alternatives]
        member = self._discriminator(alternatives, root)
        if member is None:
            return lambda v: sum(1 for c in subs if c(v)) == 1
        name, consts = member
        pairs = list(zip(consts, subs, strict=True))

        def one_of(v: Any) -> bool:
            if _is_object(v) and name in v:
                # an alternative whose const differs from the member fails on it
                key = v[name]
                return sum(1 for const, c in pairs if key == const and c(v)) == 1
            return sum(1 for c in subs if c(v)) == 1
        return one_of

    def _discriminator(self, alternatives: list[Any], root: Any) -> tuple[str, list[Any]] | None:
        """A member every alternative pins with a ``const`` in its ``properties``, and the
        constants in the alternatives' order."""
        targets = [self._target(a, root)[0] for a in alternatives]
        if not all(isinstance(t, Mapping) and isinstance(t.get("properties"), Mapping)
                   for t in targets):
            return None
        for name, sub in targets[0]["properties"].items():
            if not (isinstance(sub, Mapping) and "const" in sub):
                continue
            subs = [t["properties"].get(name) for t in targets]
            if all(isinstance(s, Mapping) and "const" in s for s in subs):
                return name, [s["const"] for s in subs]
        return None


def compile_check(schema: Any, *, registry: Mapping[str, Any] | None = None) -> Check:
    """A predicate: whether :func:`validate` would find no problem in a value against
    ``schema`` (its ``$ref`` values resolved in ``schema`` and ``registry``), computed
    faster. ``schema`` must have passed :func:`check_schema`."""
    return _Compiler(registry or {}).check(schema, schema)


__all__ += ["Check", "compile_check"]
