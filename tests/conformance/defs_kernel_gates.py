"""Definitions of the kernel.gates scenarios."""

from __future__ import annotations

from typing import Any

from .defs_kernel_steps import done, ex, ret, var
from .gen_cases import scenario

ECHO = {"script": [{"echo": True}]}
APPROVAL = {"type": "object", "required": ["approved"],
            "properties": {"approved": {"type": "boolean"}, "note": {"type": "string"}},
            "additionalProperties": False}
GATE = [ex("quote", {"$input": []}, **{"as": "q"}),
        {"op": "suspend", "gate": "approval", "on": "HumanApproval", "as": "a"},
        {"op": "if", "cond": {"$get": [var("a"), "approved"]},
         "then": [ex("charge", var("q"), **{"as": "r"}), ret({"paid": var("r")})]},
        ret("refused")]
EFFECTS = {"quote": {"script": [{"return": 30}]}, "charge": {"script": [{"return": "r-30"}]}}
WAITING = {"status": "suspended", "waitingOn": "approval"}
AMOUNT = {"type": "object", "required": ["amount"],
          "properties": {"amount": {"type": "integer", "minimum": 1}}}
START = {"do": "start", "input": {"qty": 3}}
STARTED = ["EXECUTION_STARTED", "STEP_STARTED", "STEP_COMPLETED", "EXECUTION_SUSPENDED"]


def resume(payload: Any, gate: str = "approval") -> dict[str, Any]:
    return {"do": "resume", "gate": gate, "payload": payload}


DEFINITIONS: list[dict[str, Any]] = [
    scenario("kernel.gates/suspend-resume", "kernel.replay-serve",
             "A gate parks the execution; resume journals the payload and drives the body "
             "again: the completed step is served, only the new step runs.",
             body=GATE, effects=EFFECTS, schemas={"approval": APPROVAL},
             actions=[START, resume({"approved": True})],
             claims=[{"result": WAITING, "calls": ["quote#1"], "events": STARTED},
                     {"result": done({"paid": "r-30"}), "calls": ["charge#1"],
                      "events": ["RESUME_RECEIVED", "EXECUTION_RESUMED", "STEP_STARTED",
                                 "STEP_COMPLETED", "EXECUTION_COMPLETED"]}]),
    scenario("kernel.gates/refused-branch", "kernel.replay-serve",
             "The resume payload decides the path: a refusal skips the charge entirely.",
             body=GATE, effects=EFFECTS, schemas={"approval": APPROVAL},
             actions=[START, resume({"approved": False, "note": "too expensive"})],
             claims=[{"result": WAITING}, {"result": done("refused"), "calls": []}]),
    scenario("kernel.gates/invalid-payload", "kernel.resume-schema",
             "A payload that fails the gate's schema is refused with kernel.invalid-resume and "
             "nothing is written; a valid one is then accepted.",
             body=GATE, effects=EFFECTS, schemas={"approval": APPROVAL},
             actions=[START, resume({"approved": "yes"}), resume({"approved": True})],
             claims=[{"result": WAITING},
                     {"raised": "kernel.invalid-resume", "events": [], "calls": []},
                     {"result": done({"paid": "r-30"})}]),
    scenario("kernel.gates/missing-field", "kernel.resume-schema",
             "A payload missing a required member is refused, nothing written.",
             body=GATE, effects=EFFECTS, schemas={"approval": APPROVAL},
             actions=[START, resume({})],
             claims=[{"result": WAITING}, {"raised": "kernel.invalid-resume", "events": []}],
             journal=STARTED),
    scenario("kernel.gates/extra-member", "kernel.resume-schema",
             "additionalProperties: false refuses a payload with an unknown member.",
             body=GATE, effects=EFFECTS, schemas={"approval": APPROVAL},
             actions=[START, resume({"approved": True, "by": "mallory"})],
             claims=[{"result": WAITING}, {"raised": "kernel.invalid-resume", "events": []}],
             journal=STARTED),
    scenario("kernel.gates/not-an-object", "kernel.resume-schema",
             "A payload of the wrong type is refused, nothing written.",
             body=GATE, effects=EFFECTS, schemas={"approval": APPROVAL},
             actions=[START, resume("approved")],
             claims=[{"result": WAITING}, {"raised": "kernel.invalid-resume", "events": []}]),
    scenario("kernel.gates/no-schema", "kernel.resume-schema",
             "A gate without a schema takes any JSON payload.",
             body=[{"op": "suspend", "gate": "g", "as": "p"}, ret(var("p"))],
             actions=[{"do": "start"}, resume([1, "two", None], gate="g")],
             claims=[{"result": {"status": "suspended", "waitingOn": "g"}},
                     {"result": done([1, "two", None])}]),
    scenario("kernel.gates/wrong-gate", "kernel.resume-gate",
             "Resuming a gate the execution is not waiting on is refused; nothing written.",
             body=GATE, effects=EFFECTS, schemas={"approval": APPROVAL},
             actions=[START, resume({"approved": True}, gate="shipping")],
             claims=[{"result": WAITING}, {"raised": "kernel.gate-not-waiting", "events": []}],
             journal=STARTED),
    scenario("kernel.gates/resume-twice", "kernel.resume-gate",
             "A gate is resumed once: a second resume of the finished execution is refused.",
             body=GATE, effects=EFFECTS, schemas={"approval": APPROVAL},
             actions=[START, resume({"approved": True}), resume({"approved": True})],
             claims=[{"result": WAITING}, {"result": done({"paid": "r-30"})},
                     {"raised": "kernel.gate-not-waiting", "events": [], "calls": []}]),
    scenario("kernel.gates/resume-running", "kernel.resume-gate",
             "A completed execution without gates cannot be resumed.",
             body=[ex("echo", 1)], effects={"echo": ECHO},
             actions=[{"do": "start"}, resume(1, gate="g")],
             claims=[{"result": done(None)}, {"raised": "kernel.gate-not-waiting"}]),
    scenario("kernel.gates/two-gates", "kernel.replay-serve",
             "Two gates in a row: each resume serves everything before it and runs only what "
             "follows.",
             body=[ex("a", 1, **{"as": "x"}), {"op": "suspend", "gate": "one", "as": "p"},
                   ex("b", var("p"), **{"as": "y"}), {"op": "suspend", "gate": "two", "as": "q"},
                   ex("c", var("q"), **{"as": "z"}),
                   ret([var("x"), var("y"), var("z")])],
             effects={"a": ECHO, "b": ECHO, "c": ECHO},
             actions=[{"do": "start"}, resume("P", gate="one"), resume("Q", gate="two")],
             claims=[{"result": {"status": "suspended", "waitingOn": "one"}, "calls": ["a#1"]},
                     {"result": {"status": "suspended", "waitingOn": "two"}, "calls": ["b#1"]},
                     {"result": done([1, "P", "Q"]), "calls": ["c#1"]}]),
    scenario("kernel.gates/gate-metadata", "journal.payload-shape",
             "EXECUTION_SUSPENDED carries the gate id, what it waits on and its correlation "
             "key.",
             body=[{"op": "suspend", "gate": "ship", "on": "Shipment", "correlationKey": "o-7"}],
             actions=[{"do": "start"}],
             claims=[{"result": {"status": "suspended", "waitingOn": "ship"}}]),
    scenario("kernel.gates/gate-schema", "kernel.resume-schema",
             "A schema the body gives the gate itself is journaled with EXECUTION_SUSPENDED "
             "(resumeSchema) and holds the resume: a payload it refuses is kernel.invalid-resume "
             "and nothing is written.",
             body=[{"op": "suspend", "gate": "pay", "resumeSchema": AMOUNT, "as": "p"},
                   ret(var("p"))],
             actions=[{"do": "start"}, resume({"amount": 0}, gate="pay"),
                      resume({"amount": "7"}, gate="pay"), resume({"amount": 7}, gate="pay")],
             claims=[{"result": {"status": "suspended", "waitingOn": "pay"}},
                     {"raised": "kernel.invalid-resume", "events": []},
                     {"raised": "kernel.invalid-resume", "events": []},
                     {"result": done({"amount": 7})}]),
    scenario("kernel.gates/gate-and-workflow-schema", "kernel.resume-schema",
             "A gate with its own schema and one the workflow declares: the payload must "
             "satisfy both.",
             body=[{"op": "suspend", "gate": "pay", "resumeSchema": AMOUNT, "as": "p"},
                   ret(var("p"))],
             schemas={"pay": {"type": "object", "properties": {"note": {"type": "string"}}}},
             actions=[{"do": "start"}, resume({"amount": 7, "note": 3}, gate="pay"),
                      resume({"note": "x"}, gate="pay"),
                      resume({"amount": 7, "note": "x"}, gate="pay")],
             claims=[{"result": {"status": "suspended", "waitingOn": "pay"}},
                     {"raised": "kernel.invalid-resume", "events": []},
                     {"raised": "kernel.invalid-resume", "events": []},
                     {"result": done({"amount": 7, "note": "x"})}]),
    scenario("kernel.gates/bad-gate-schema", "kernel.resume-schema",
             "A gate schema outside the supported subset (here a minLength that is not a count) "
             "is refused when the body builds the command: the body raises argument.schema "
             "and the execution fails; nothing is suspended.",
             body=[{"op": "suspend", "gate": "pay", "resumeSchema": {"minLength": -1}}],
             actions=[{"do": "start"}],
             claims=[{"result": {"status": "failed", "error": {"code": "argument.schema"}}}],
             journal=["EXECUTION_STARTED", "EXECUTION_FAILED"]),
    scenario("kernel.gates/gate-in-loop", "kernel.step-identity",
             "Gate ids are explicit: a loop that suspends must name each gate.",
             body=[{"op": "suspend", "gate": "first", "as": "a"},
                   {"op": "suspend", "gate": "second", "as": "b"},
                   ret({"$concat": [var("a"), var("b")]})],
             actions=[{"do": "start"}, resume("x", gate="first"), resume("y", gate="second")],
             claims=[{"result": {"status": "suspended", "waitingOn": "first"}},
                     {"result": {"status": "suspended", "waitingOn": "second"}},
                     {"result": done("xy")}]),
]


# -- issue 30: each keyword of the schema subset at its boundary, both sides in one case -------
# (a refused payload first: nothing written; then the payload exactly at the boundary: taken)

def _keyword(name: str, keyword: str, schema: dict[str, Any], refused: Any, accepted: Any,
             why: str) -> dict[str, Any]:
    return scenario(
        f"kernel.gates/schema-{name}", "kernel.resume-schema",
        f"The schema keyword {keyword} at its boundary: {why} The refused payload writes "
        "nothing; the accepted one resumes the body, which returns it.",
        body=[{"op": "suspend", "gate": "g", "as": "p"}, ret(var("p"))],
        schemas={"g": schema},
        actions=[{"do": "start"}, resume(refused, "g"), resume(accepted, "g")],
        claims=[{"result": {"status": "suspended", "waitingOn": "g"}},
                {"raised": "kernel.invalid-resume", "events": [], "calls": []},
                {"result": done(accepted)}])


DEFINITIONS += [
    _keyword("min-length", "minLength", {"type": "string", "minLength": 2}, "a", "ab",
             "a string of exactly minLength code points is taken, one shorter refused."),
    _keyword("max-length", "maxLength", {"type": "string", "maxLength": 2}, "abc", "ab",
             "a string of exactly maxLength code points is taken, one longer refused."),
    _keyword("minimum", "minimum", {"type": "integer", "minimum": 1}, 0, 1,
             "a number equal to minimum is taken, one below refused."),
    _keyword("maximum", "maximum", {"type": "integer", "maximum": 10}, 11, 10,
             "a number equal to maximum is taken, one above refused."),
    _keyword("min-items", "minItems", {"type": "array", "minItems": 1}, [], [1],
             "an array of exactly minItems items is taken, the empty one refused."),
    _keyword("max-items", "maxItems", {"type": "array", "maxItems": 2}, [1, 2, 3], [1, 2],
             "an array of exactly maxItems items is taken, one more refused."),
    _keyword("items", "items", {"type": "array", "items": {"type": "integer"}}, [1, "x"],
             [1, 2], "every item is held to the items schema: one string among integers is "
             "refused."),
    _keyword("enum", "enum", {"enum": ["a", "b"]}, "c", "b",
             "a value outside the list is refused, its last member taken."),
    _keyword("const", "const", {"const": "x"}, "y", "x",
             "only the constant is taken."),
    _keyword("type-list", "type (a list)", {"type": ["string", "null"]}, 1, None,
             "either listed type is taken (null here), any other refused."),
    _keyword("any-of", "anyOf", {"anyOf": [{"type": "string"}, {"type": "integer"}]}, True, 3,
             "a value matching one alternative is taken, one matching none refused."),
    _keyword("one-of", "oneOf", {"oneOf": [{"type": "integer"}, {"type": "number"}]}, 3, 2.5,
             "exactly one alternative must match: 3 matches both (refused), 2.5 only number."),
    _keyword("additional-properties-schema", "additionalProperties (a schema)",
             {"type": "object", "additionalProperties": {"type": "integer"}}, {"a": "x"},
             {"a": 1}, "a member no property names is held to the additionalProperties "
             "schema."),
]


# -- issue 30: a gate schema outside the subset, each keyword's refusal (argument.schema) ------

def _refused_schema(name: str, schema: Any, why: str) -> dict[str, Any]:
    return scenario(
        f"kernel.gates/schema-refused-{name}", "kernel.resume-schema",
        f"A gate schema outside the supported subset is refused when the body builds the "
        f"command ({why}): the body raises argument.schema and the execution fails; nothing "
        "is suspended.",
        body=[{"op": "suspend", "gate": "pay", "resumeSchema": schema}],
        actions=[{"do": "start"}],
        claims=[{"result": {"status": "failed", "error": {"code": "argument.schema"}}}],
        journal=["EXECUTION_STARTED", "EXECUTION_FAILED"])


DEFINITIONS += [
    _refused_schema("unknown-keyword", {"type": "string", "format": "email"},
                    "a keyword the subset does not have"),
    _refused_schema("type-unknown", {"type": "banana"}, "a type JSON does not have"),
    _refused_schema("type-empty-list", {"type": []}, "a type list naming no type"),
    _refused_schema("properties-not-object", {"properties": []},
                    "properties that is not an object of schemas"),
    _refused_schema("nested", {"type": "object", "properties": {"a": {"maxItems": 1.5}}},
                    "a property's schema with a maxItems that is not a count"),
    _refused_schema("any-of-empty", {"anyOf": []}, "an anyOf with no alternative"),
    _refused_schema("minimum-not-number", {"minimum": "1"}, "a minimum that is a string"),
    _refused_schema("required-not-strings", {"required": [1]},
                    "a required list holding a number"),
    _refused_schema("enum-not-array", {"enum": "a"}, "an enum that is not an array"),
    _refused_schema("pattern-not-string", {"pattern": 1}, "a pattern that is not a string"),
    scenario("kernel.gates/schema-min-length-zero", "kernel.resume-schema",
             "The accept side of bad-gate-schema's minLength -1: a minLength of 0 is a count, "
             "taken, and the empty string satisfies it.",
             body=[{"op": "suspend", "gate": "g", "as": "p",
                    "resumeSchema": {"type": "string", "minLength": 0}}, ret(var("p"))],
             actions=[{"do": "start"}, resume("", "g")],
             claims=[{"result": {"status": "suspended", "waitingOn": "g"}},
                     {"result": done("")}]),
]
