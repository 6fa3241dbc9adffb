"""Definitions of the kernel.schema scenarios: the resume-schema subset of spec/kernel.md
§2.4.1, keyword by keyword (``kernel.schema-keywords``), the annotations and the keywords it
refuses (``kernel.schema-annotations``), the values it refuses (``kernel.schema-subset``),
``$ref`` (``kernel.schema-refs``) and the problems a refusal lists (``kernel.schema-problems``).

A keyword case puts the schema on the workflow (the seeds' ``flow$({ resumeSchemas })``): the
body suspends on one gate per accepted payload, each refused payload is resumed first and
refused with ``kernel.invalid-resume`` (nothing written), then each accepted one is resumed in
turn and the body returns them all. A refusal case builds gates with the schemas in question
inside ``try``: each refusal is ``argument.schema`` raised into the body, and the body then
parks on the same gate id with no schema (a refused command uses no id).
"""

from __future__ import annotations

from typing import Any

from .defs_kernel_steps import done, ret, var
from .gen_cases import scenario

REFUSED: dict[str, Any] = {"raised": "kernel.invalid-resume", "events": [], "calls": []}


def keyword_case(case_id: str, description: str, schema: Any, *, refused: list[Any],
                 accepted: list[Any], anchor: str = "kernel.schema-keywords",
                 requires: list[str] | None = None) -> dict[str, Any]:
    """A case: each of ``refused`` is refused at the first gate, each of ``accepted`` is taken
    at a gate of its own (``g1``, ``g2``, ...) and the body returns them all."""
    gates = [f"g{i + 1}" for i in range(len(accepted))]
    body: list[Any] = [{"op": "suspend", "gate": g, "as": f"p{i}"} for i, g in enumerate(gates)]
    body.append(ret([var(f"p{i}") for i in range(len(gates))]))
    actions: list[Any] = [{"do": "start"}]
    claims: list[Any] = [{"result": {"status": "suspended", "waitingOn": gates[0]}}]
    for payload in refused:
        actions.append({"do": "resume", "gate": gates[0], "payload": payload})
        claims.append(REFUSED)
    for i, payload in enumerate(accepted):
        actions.append({"do": "resume", "gate": gates[i], "payload": payload})
        claims.append({"result": {"status": "suspended", "waitingOn": gates[i + 1]}
                       if i + 1 < len(gates) else done(accepted)})
    defn = scenario(case_id, anchor, description, body=body, actions=actions, claims=claims,
                    schemas={g: schema for g in gates})
    if requires:
        defn["case"]["requires"] = requires
    return defn


def refusal_case(case_id: str, anchor: str, description: str,
                 schemas: list[Any]) -> dict[str, Any]:
    """A case: a gate ``g`` is built with each schema inside ``try``; every one is refused with
    ``argument.schema`` as the command is built; then the body parks on ``g`` itself."""
    body: list[Any] = []
    for i, schema in enumerate(schemas):
        body.append({"op": "try", "body": [{"op": "suspend", "gate": "g", "resumeSchema": schema}],
                     "catch": {"as": f"e{i}", "body": []}})
    body += [{"op": "suspend", "gate": "g", "as": "p"},
             ret({"refused": [var(f"e{i}") for i in range(len(schemas))], "payload": var("p")})]
    codes = [{"code": "argument.schema"}] * len(schemas)
    return scenario(case_id, anchor, description, body=body,
                    actions=[{"do": "start"}, {"do": "resume", "gate": "g", "payload": "ok"}],
                    claims=[{"result": {"status": "suspended", "waitingOn": "g"},
                             "events": ["EXECUTION_STARTED", "EXECUTION_SUSPENDED"]},
                            {"result": done({"refused": codes, "payload": "ok"})}])


TREE = {"$defs": {"node": {"type": "object", "required": ["v"], "additionalProperties": False,
                           "properties": {"v": {"type": "integer"},
                                          "kids": {"type": "array",
                                                   "items": {"$ref": "#/$defs/node"}}}}},
        "$ref": "#/$defs/node"}
ORDER = {"type": "object", "required": ["id", "items"],
         "properties": {"id": {"type": "integer"},
                        "items": {"type": "array",
                                  "items": {"type": "object", "required": ["qty"],
                                            "properties": {"qty": {"type": "integer",
                                                                   "minimum": 1}},
                                            "additionalProperties": False}},
                        "a/b": {"properties": {"~": {"type": "string"}}},
                        "kind": {"anyOf": [{"const": "x"}, {"const": "y"}]}},
         "additionalProperties": {"type": "string"}}


def _paths(*expected: list[str]) -> Any:
    """A check that the refused resumes observe these ``paths``, in order."""
    def check(obs: Any) -> bool:
        got = [a["raised"].get("paths") for a in obs["actions"] if "raised" in a]
        return got == list(expected)
    return check


DEFINITIONS: list[dict[str, Any]] = [
    keyword_case("kernel.schema/type-integer",
                 "type integer: a number with a zero fractional part; 1.5, a boolean and a "
                 "numeric string are refused.",
                 {"type": "integer"}, refused=[1.5, True, "2", None], accepted=[2, -7]),
    keyword_case("kernel.schema/type-number",
                 "type number: any number, never a boolean or a string.",
                 {"type": "number"}, refused=[True, "1", [1]], accepted=[2.5, 0]),
    keyword_case("kernel.schema/type-list",
                 "type as a list: the value is of one of the types named.",
                 {"type": ["string", "null"]}, refused=[0, False, [], {}],
                 accepted=["", None]),
    keyword_case("kernel.schema/type-object-array",
                 "type object and type array tell a JSON object from an array.",
                 {"properties": {"o": {"type": "object"}, "a": {"type": "array"}}},
                 refused=[{"o": []}, {"a": {}}, {"o": None}],
                 accepted=[{"o": {}, "a": []}]),
    keyword_case("kernel.schema/enum",
                 "enum: JSON-equal to one of the items; true is not 1, 1.5 not 1, case matters, "
                 "objects and arrays compare by value.",
                 {"enum": [1, "a", None, {"k": [1, 2]}]},
                 refused=[True, 1.5, "A", {"k": [2, 1]}, {"k": [1, 2], "x": 1}, [1]],
                 accepted=[1, "a", None, {"k": [1, 2]}]),
    keyword_case("kernel.schema/const",
                 "const: JSON-equal to the value; false is not 0, and an object must have "
                 "exactly its members.",
                 {"properties": {"b": {"const": False},
                                 "o": {"const": {"a": [1, 2.5], "n": None}}}},
                 refused=[{"b": 0}, {"b": None}, {"o": {"a": [1, 2.5]}},
                          {"o": {"a": [2.5, 1], "n": None}}],
                 accepted=[{"b": False, "o": {"a": [1, 2.5], "n": None}}, {}]),
    keyword_case("kernel.schema/length",
                 "minLength and maxLength count a string's characters; they accept any value "
                 "that is not a string.",
                 {"minLength": 2, "maxLength": 3}, refused=["a", "", "abcd"],
                 accepted=["ab", "abc", 5, ["a"]]),
    keyword_case("kernel.schema/length-code-points",
                 "A string's length counts code points: an astral character is one (JSON "
                 "Schema's characters, RFC 8259).",
                 {"minLength": 2, "maxLength": 2}, refused=["\U0001f600", "a\U0001f600b"],
                 accepted=["\U0001f600\U0001f600", "a\U0001f600"],
                 requires=["text.code-points"]),
    keyword_case("kernel.schema/pattern",
                 "pattern: the regex finds a match anywhere in the string (a search, not "
                 "anchored); a value that is not a string is accepted.",
                 {"pattern": "b+c"}, refused=["ac", "", "cb"],
                 accepted=["abbcd", "bc", 5]),
    keyword_case("kernel.schema/minimum-maximum",
                 "minimum and maximum are inclusive bounds on numbers; a boolean or a string "
                 "is not a number and is accepted.",
                 {"minimum": 1, "maximum": 2.5}, refused=[0, 2.6, -1, 0.99],
                 accepted=[1, 2.5, "x", True]),
    keyword_case("kernel.schema/items-count",
                 "minItems and maxItems count an array's items; a value that is not an array is "
                 "accepted.",
                 {"minItems": 1, "maxItems": 2}, refused=[[], [1, 2, 3]],
                 accepted=[[None], [1, 2], "x"]),
    keyword_case("kernel.schema/items",
                 "items: every item of an array is valid against the one schema.",
                 {"items": {"type": "integer"}}, refused=[[1, "2"], [[1]], [None]],
                 accepted=[[], [1, 2], {"0": "x"}]),
    keyword_case("kernel.schema/properties",
                 "properties: the members named are valid against their schemas; others, and "
                 "values that are not objects, are accepted.",
                 {"properties": {"a": {"type": "string"}, "b": {"minimum": 0}}},
                 refused=[{"a": 1}, {"b": -1}, {"a": None, "b": 1}],
                 accepted=[{}, {"a": "x", "b": 0, "c": True}, [1]]),
    keyword_case("kernel.schema/required",
                 "required: the object has every member named as its own; a member named like "
                 "a built-in property of some language's objects (toString, constructor) is "
                 "missing unless the payload has it.",
                 {"required": ["a", "toString", "constructor"]},
                 refused=[{}, {"a": 1}, {"a": 1, "toString": 1}],
                 accepted=[{"a": None, "toString": 0, "constructor": False}, "not an object"]),
    keyword_case("kernel.schema/additional-properties",
                 "additionalProperties: every member not named in properties is valid against "
                 "it.",
                 {"properties": {"a": True}, "additionalProperties": {"type": "integer"}},
                 refused=[{"b": "x"}, {"a": 1, "c": []}],
                 accepted=[{"a": "anything", "b": 2}, {}]),
    keyword_case("kernel.schema/any-of",
                 "anyOf: valid against at least one alternative.",
                 {"anyOf": [{"type": "string"}, {"type": "integer", "minimum": 3}]},
                 refused=[2, None, 3.5], accepted=["x", 3]),
    keyword_case("kernel.schema/one-of",
                 "oneOf: valid against exactly one alternative; a value both accept is refused.",
                 {"oneOf": [{"type": "integer"}, {"minimum": 2}]},
                 refused=[3, 1.5], accepted=[1, 2.5, "s"]),
    keyword_case("kernel.schema/boolean-schemas",
                 "A schema may be a boolean: true accepts every value, false none (here a "
                 "member that must be absent).",
                 {"properties": {"x": False, "y": True}},
                 refused=[{"x": None}, {"x": 1, "y": 1}], accepted=[{}, {"y": [1]}]),
    keyword_case("kernel.schema/boolean-root",
                 "The whole schema may be a boolean too: a gate whose schema is true takes "
                 "every payload, null, a number and an object among them.",
                 True, refused=[], accepted=[None, 1.5, {"a": [1]}]),
    keyword_case("kernel.schema/ref-to-boolean", "$ref may name a boolean schema of $defs: "
                 "a member whose schema is a $ref to false must be absent, one whose schema is "
                 "a $ref to true may hold anything.",
                 {"properties": {"a": {"$ref": "#/$defs/any"}, "b": {"$ref": "#/$defs/none"}},
                  "$defs": {"any": True, "none": False}}, anchor="kernel.schema-refs",
                 refused=[{"b": 1}, {"a": 1, "b": None}], accepted=[{"a": [1, "x"]}, {}]),
    keyword_case("kernel.schema/ref-recursive", "$ref names a schema of the root's $defs, and "
                 "may recur through items: a tree of any depth is checked node by node.",
                 TREE, anchor="kernel.schema-refs",
                 refused=[{"v": 1, "kids": [{"v": "x"}]}, {"v": 1, "kids": [{"kids": []}]},
                          {"v": 1, "kids": [{"v": 2, "kids": [{"v": 3, "w": 0}]}]}],
                 accepted=[{"v": 1, "kids": [{"v": 2, "kids": [{"v": 3}]}]}, {"v": 0}]),
    keyword_case("kernel.schema/ref-with-siblings",
                 "The keywords beside a $ref apply too: the value must satisfy both.",
                 {"$defs": {"pos": {"minimum": 1}}, "$ref": "#/$defs/pos", "maximum": 10},
                 anchor="kernel.schema-refs", refused=[0, 11], accepted=[1, 10]),
    scenario("kernel.schema/annotations-accepted", "kernel.schema-annotations",
             "The annotations are accepted at any depth, whatever their values, and change "
             "nothing ($id at the root only): the schema still checks the type.",
             body=[{"op": "suspend", "gate": "g", "as": "p", "resumeSchema": {
                 "$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "urn:x",
                 "$comment": ["any", 1], "title": 5, "description": None,
                 "default": {"a": 1}, "examples": "not a list", "deprecated": "yes",
                 "readOnly": 0, "writeOnly": {},
                 "type": "object",
                 "properties": {"a": {"type": "string", "title": "A", "$comment": "c",
                                      "default": 3, "examples": [1], "deprecated": True,
                                      "readOnly": True, "writeOnly": False,
                                      "description": "d"}}}},
                   ret(var("p"))],
             actions=[{"do": "start"}, {"do": "resume", "gate": "g", "payload": {"a": 3}},
                      {"do": "resume", "gate": "g", "payload": {"a": "x"}}],
             claims=[{"result": {"status": "suspended", "waitingOn": "g"}}, REFUSED,
                     {"result": done({"a": "x"})}]),
    refusal_case("kernel.schema/other-keywords-refused", "kernel.schema-annotations",
                 "Every keyword outside the subset is refused as the gate is built, also below "
                 "the root, with argument.schema raised into the body: format, the exclusive "
                 "bounds, multipleOf, uniqueItems, contains, minProperties, propertyNames, "
                 "patternProperties, prefixItems, dependentRequired, not, allOf, if, $anchor, "
                 "$dynamicRef, and an unknown word.",
                 [{"format": "email"}, {"exclusiveMinimum": 1}, {"exclusiveMaximum": 1},
                  {"multipleOf": 2}, {"uniqueItems": True}, {"contains": {"type": "string"}},
                  {"minProperties": 1}, {"propertyNames": {"minLength": 1}},
                  {"patternProperties": {"a": True}}, {"prefixItems": [True]},
                  {"dependentRequired": {"a": ["b"]}}, {"not": {"type": "string"}},
                  {"allOf": [True]}, {"if": True, "then": True}, {"$anchor": "a"},
                  {"$dynamicRef": "#a"}, {"nullable": True},
                  {"properties": {"a": {"format": "email"}}},
                  {"items": {"exclusiveMaximum": 3}}]),
    refusal_case("kernel.schema/bad-values-refused", "kernel.schema-subset",
                 "A schema that is not an object or a boolean, or a keyword whose value is not "
                 "of its kind, is refused as the gate is built: argument.schema raised into the "
                 "body, nothing journaled, and the gate id stays unused (the body then parks on "
                 "it).",
                 [5, "string", [], {"type": "str"}, {"type": []}, {"type": ["string", "string"]},
                  {"type": 1}, {"minLength": -1}, {"minLength": "2"}, {"maxItems": 1.5},
                  {"minItems": True}, {"minimum": "0"}, {"maximum": True}, {"required": "a"},
                  {"required": ["a", "a"]}, {"required": [1]}, {"enum": "a"},
                  {"properties": []}, {"properties": {"a": 5}}, {"items": [{"type": "string"}]},
                  {"additionalProperties": "no"}, {"anyOf": []}, {"oneOf": {}},
                  {"pattern": "("}, {"pattern": 5}, {"$defs": {"a": 3}},
                  {"properties": {"a": {"$id": "urn:a"}}}]),
    refusal_case("kernel.schema/refs-refused", "kernel.schema-refs",
                 "A $ref that is not '#/$defs/<name>' of the root, that names nothing, or $refs "
                 "that loop without reading into the value (even unused ones), are refused as "
                 "the gate is built.",
                 [{"$ref": "#/$defs/missing"}, {"$ref": "#/$defs/a", "$defs": {}},
                  {"$ref": "other.json#/$defs/a", "$defs": {"a": True}},
                  {"$ref": "#/properties/a", "properties": {"a": True}}, {"$ref": "#"},
                  {"$ref": "#/$defs/a~1b", "$defs": {"a/b": True}},
                  {"$ref": "#/$defs/a/b", "$defs": {"a": {"$defs": {"b": True}}}},
                  {"$ref": "#/$defs/a%20b", "$defs": {"a b": True}},
                  {"$ref": 5},
                  {"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/a"}}},
                  {"$defs": {"a": {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/b"}]},
                             "b": {"oneOf": [{"$ref": "#/$defs/a"}]}}},
                  {"properties": {"x": {"$ref": "#/$defs/nope"}}, "$defs": {}}]),
    scenario("kernel.gates/bad-workflow-schema", "kernel.resume-schema",
             "A workflow whose resumeSchemas holds a schema outside the subset is refused when "
             "it is built: every action that needs the workflow (each a fresh process) raises "
             "argument.schema, and nothing is written.",
             body=[{"op": "suspend", "gate": "g"}], schemas={"g": {"format": "email"}},
             actions=[{"do": "start"}, {"do": "recover"}, {"do": "replay"}],
             claims=[{"raised": "argument.schema", "events": []},
                     {"raised": "argument.schema"}, {"raised": "argument.schema"}],
             journal=None),
    scenario("kernel.schema/problem-paths", "kernel.schema-problems",
             "kernel.invalid-resume lists each problem at the JSON Pointer of the value the "
             "keyword checked: the object for required, the extra member for "
             "additionalProperties, the value for anyOf, a member name's ~ and / escaped; a "
             "failing type stops the other keywords at that value.",
             body=[{"op": "suspend", "gate": "g", "as": "p", "resumeSchema": ORDER},
                   ret(var("p"))],
             actions=[{"do": "start"},
                      {"do": "resume", "gate": "g", "payload": {
                          "items": [{"qty": 0}, {"qty": 2, "extra": 1}, {"qty": "3"}],
                          "a/b": {"~": 1}, "kind": "z", "note": 5}},
                      {"do": "resume", "gate": "g", "payload": {"id": 1, "items": [{}]}},
                      {"do": "resume", "gate": "g", "payload": "x"},
                      {"do": "resume", "gate": "g", "payload": {"id": 1, "items": [{"qty": 1}],
                                                                "kind": "y", "note": "n"}}],
             claims=[{"result": {"status": "suspended", "waitingOn": "g"}},
                     REFUSED, REFUSED, REFUSED,
                     {"result": done({"id": 1, "items": [{"qty": 1}], "kind": "y",
                                      "note": "n"})}]),
    scenario("kernel.schema/problems-of-both", "kernel.schema-problems",
             "When the gate's own schema and the workflow's both refuse a payload, the "
             "problems of both are listed.",
             body=[{"op": "suspend", "gate": "g", "as": "p", "resumeSchema": {"required": ["a"]}},
                   ret(var("p"))],
             schemas={"g": {"properties": {"b": {"type": "string"}}}},
             actions=[{"do": "start"}, {"do": "resume", "gate": "g", "payload": {"b": 1}},
                      {"do": "resume", "gate": "g", "payload": {"a": 1, "b": 1}},
                      {"do": "resume", "gate": "g", "payload": {"b": 1, "a": 1, "c": 1}},
                      {"do": "resume", "gate": "g", "payload": {"a": 1, "b": "x"}}],
             claims=[{"result": {"status": "suspended", "waitingOn": "g"}},
                     REFUSED, REFUSED, REFUSED, {"result": done({"a": 1, "b": "x"})}]),
    scenario("kernel.gates/pending-resume-not-waiting", "kernel.resume-schema",
             "A gate whose resume is pending (RESUME_RECEIVED journaled, then a crash) is not "
             "waiting: a second resume is kernel.gate-not-waiting before its payload is "
             "checked, and recovery resumes with the first payload.",
             body=[{"op": "suspend", "gate": "g", "as": "p"}, ret(var("p"))],
             schemas={"g": {"type": "string"}},
             actions=[{"do": "start"},
                      {"do": "resume", "gate": "g", "payload": "x", "crash": {"afterEvent": 1}},
                      {"do": "resume", "gate": "g", "payload": 1},
                      {"do": "recover"}],
             claims=[{"result": {"status": "suspended", "waitingOn": "g"}},
                     {"crashed": True, "events": ["RESUME_RECEIVED"]},
                     {"raised": "kernel.gate-not-waiting", "events": []},
                     {"result": done("x"), "events": ["EXECUTION_RESUMED",
                                                      "EXECUTION_COMPLETED"]}]),
]

DEFINITIONS[-3]["checks"] = [("the problems' paths", _paths(
    ["", "/a~1b/~0", "/items/0/qty", "/items/1/extra", "/items/2/qty", "/kind", "/note"],
    ["/items/0"], [""]))]
DEFINITIONS[-2]["checks"] = [("both schemas' paths", _paths(["", "/b"], ["/b"], ["/b"]))]
