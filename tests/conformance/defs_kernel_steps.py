"""Definitions of the kernel.steps, kernel.identity and kernel.decide scenarios."""

from __future__ import annotations

from typing import Any

from .gen_cases import scenario


def ex(tool: str, input: Any = None, **kw: Any) -> dict[str, Any]:
    return {"op": "execute", "tool": tool, "input": input, **kw}


def ret(value: Any) -> dict[str, Any]:
    return {"op": "return", "value": value}


def var(name: str) -> dict[str, str]:
    return {"$var": name}


def done(output: Any) -> dict[str, Any]:
    return {"status": "completed", "output": output}


def failed(code: str) -> dict[str, Any]:
    return {"status": "failed", "error": {"code": code}}


ECHO = {"script": [{"echo": True}]}
START = [{"do": "start", "input": {"n": 2}}]
DECLINED = {"code": "card.declined", "message": "insufficient funds"}

DEFINITIONS: list[dict[str, Any]] = [
    # -- kernel.steps ---------------------------------------------------------------------
    scenario("kernel.steps/one-step", "kernel.commands",
             "A body that executes one step: STEP_STARTED, the call, STEP_COMPLETED, and the "
             "output returned into the body.",
             body=[ex("echo", {"$input": ["n"]}, **{"as": "x"}), ret(var("x"))],
             effects={"echo": ECHO}, actions=START,
             claims=[{"result": done(2), "calls": ["echo#1"],
                      "events": ["EXECUTION_STARTED", "STEP_STARTED", "STEP_COMPLETED",
                                 "EXECUTION_COMPLETED"]}]),
    scenario("kernel.steps/outputs-flow", "kernel.commands",
             "Each step's output is what the next step's input is built from.",
             body=[ex("double", {"$input": []}, **{"as": "a"}),
                   ex("double", {"prev": var("a")}, **{"as": "b"}),
                   ret({"a": var("a"), "b": var("b")})],
             effects={"double": {"script": [{"return": 4}, {"return": 8}]}}, actions=START,
             claims=[{"result": done({"a": 4, "b": 8}), "calls": ["double#1", "double#2"]}]),
    scenario("kernel.steps/json-values", "kernel.json-roundtrip",
             "Outputs are JSON values: nested objects, arrays, floats, null, booleans and "
             "non-ASCII strings arrive in the body exactly as journaled.",
             body=[ex("fetch", None, **{"as": "v"}), ret(var("v"))],
             effects={"fetch": {"script": [{"return": {"a": [1, 2.5, -0.25, None, True],
                                                        "s": "é ✓ 日本", "o": {}}}]}},
             actions=START,
             claims=[{"result": done({"a": [1, 2.5, -0.25, None, True], "s": "é ✓ 日本",
                                      "o": {}})}]),
    scenario("kernel.steps/input-roundtrip", "kernel.json-roundtrip",
             "The body receives its input as journaled in EXECUTION_STARTED.",
             body=[ret({"$input": []})], actions=[{"do": "start", "input": [1, {"k": None}]}],
             claims=[{"result": done([1, {"k": None}]),
                      "events": ["EXECUTION_STARTED", "EXECUTION_COMPLETED"]}]),
    scenario("kernel.steps/empty-body", "kernel.body-generator",
             "A body that returns nothing completes with output null.",
             body=[], actions=[{"do": "start"}], claims=[{"result": done(None)}]),
    scenario("kernel.steps/step-failure-uncaught", "kernel.step-failure",
             "An effect that raises: STEP_FAILED with its code and message, and the uncaught "
             "failure ends the execution with the same error.",
             body=[ex("charge", 10)], effects={"charge": {"script": [{"raise": DECLINED}]}},
             actions=START,
             claims=[{"result": failed("card.declined"), "calls": ["charge#1"],
                      "events": ["EXECUTION_STARTED", "STEP_STARTED", "STEP_FAILED",
                                 "EXECUTION_FAILED"]}]),
    scenario("kernel.steps/step-failure-caught", "kernel.step-failure",
             "A body can catch a failed step (by its code) and carry on.",
             body=[{"op": "try", "body": [ex("charge", 10)],
                    "catch": {"as": "e", "body": [ret({"caught": var("e")})]}}, ret("unreached")],
             effects={"charge": {"script": [{"raise": DECLINED}]}}, actions=START,
             claims=[{"result": done({"caught": {"code": "card.declined"}})}]),
    scenario("kernel.steps/fail-then-succeed", "kernel.step-failure",
             "An effect that fails twice then succeeds: each attempt is its own step with its "
             "own id; the body retries until one completes.",
             body=[{"op": "set", "var": "ok", "value": None},
                   {"op": "repeat", "times": 3, "as": "i", "body": [
                       {"op": "if", "cond": {"$eq": [var("ok"), None]}, "then": [
                           {"op": "try", "body": [ex("flaky", var("i"), **{"as": "ok"})],
                            "catch": {"body": []}}]}]},
                   ret(var("ok"))],
             effects={"flaky": {"script": [{"raise": {"code": "net.down", "message": "503"}},
                                           {"raise": {"code": "net.down", "message": "503"}},
                                           {"return": "paid"}]}},
             actions=START,
             claims=[{"result": done("paid"), "calls": ["flaky#1", "flaky#2", "flaky#3"]}]),
    scenario("kernel.steps/unknown-tool", "effects.unknown-tool",
             "A step whose tool has no registered effect fails with effect.unknown-tool (a step "
             "failure).",
             body=[{"op": "try", "body": [ex("nope", 1)],
                    "catch": {"as": "e", "body": [ret(var("e"))]}}],
             actions=START, claims=[{"result": done({"code": "effect.unknown-tool"}),
                                     "calls": []}]),
    scenario("kernel.steps/durable-step-on-transient-only-tool", "kernel.effect-forms",
             "An effect that allows only transient calls refuses a durable step with "
             "effect.mode-refused before it runs (a step failure; the effect is not called), "
             "while the body's transient-free steps on other tools run.",
             body=[ex("echo", 1),
                   {"op": "try", "body": [ex("llm", 1)],
                    "catch": {"as": "e", "body": [ret(var("e"))]}}],
             effects={"echo": {"modes": ["durable"], "script": [{"echo": True}]},
                      "llm": {"modes": ["transient"], "script": [{"return": "x"}]}},
             actions=START,
             claims=[{"result": done({"code": "effect.mode-refused"}), "calls": ["echo#1"],
                      "events": ["EXECUTION_STARTED", "STEP_STARTED", "STEP_COMPLETED",
                                 "STEP_STARTED", "STEP_FAILED", "EXECUTION_COMPLETED"]}]),
    scenario("kernel.steps/yield-non-command-caught", "kernel.commands",
             "A body that yields a plain JSON value, even one shaped like a command, gets "
             "argument.command raised into it: nothing is journaled or called for it, the "
             "body can catch it and its next command runs as usual.",
             body=[{"op": "try",
                    "body": [{"op": "yield", "value": {"kind": "execute", "id": "echo#1",
                                                       "tool": "echo", "input": 1}}],
                    "catch": {"as": "e", "body": []}},
                   ex("echo", 2, **{"as": "x"}), ret([var("e"), var("x")])],
             effects={"echo": ECHO}, actions=START,
             claims=[{"result": done([{"code": "argument.command"}, 2]), "calls": ["echo#1"],
                      "events": ["EXECUTION_STARTED", "STEP_STARTED", "STEP_COMPLETED",
                                 "EXECUTION_COMPLETED"]}]),
    scenario("kernel.steps/yield-non-command-fails", "kernel.commands",
             "A yielded value that is no command and that the body does not catch fails the "
             "execution with argument.command (after the step before it completed).",
             body=[ex("echo", 1), {"op": "yield", "value": 42}, ex("echo", 2)],
             effects={"echo": ECHO}, actions=START,
             claims=[{"result": failed("argument.command"), "calls": ["echo#1"],
                      "events": ["EXECUTION_STARTED", "STEP_STARTED", "STEP_COMPLETED",
                                 "EXECUTION_FAILED"]}]),
    scenario("kernel.steps/registry-attempt-one", "kernel.effect-forms",
             "The kernel's plain host runs each call once: every durable step and every "
             "transient call through a decide scope sees attempt 1 in its context.",
             body=[ex("probe", None, **{"as": "a"}), ex("probe", None, **{"as": "b"}),
                   {"op": "decide", "id": "plan", "as": "p"},
                   ret([var("a"), var("b"), var("p")])],
             effects={"probe": {"script": [{"attempt": True}]}},
             deciders={"plan": {"script": [{"invokeTransient": {"tool": "probe"}}]}},
             actions=START,
             claims=[{"result": done([1, 1, 1]), "calls": ["probe#1", "probe#2"],
                      "transients": ["probe"]}]),
    scenario("kernel.steps/body-raises", "kernel.body-failure",
             "The body's own error ends the execution with EXECUTION_FAILED carrying its code "
             "and message.",
             body=[ex("echo", 1), {"op": "raise", "code": "order.invalid", "message": "no items"}],
             effects={"echo": ECHO}, actions=START,
             claims=[{"result": failed("order.invalid"), "calls": ["echo#1"]}]),
    scenario("kernel.steps/failed-execution-is-final", "kernel.recover",
             "A failed execution stays failed: recovering it makes no call and writes nothing.",
             body=[ex("charge", 1)], effects={"charge": {"script": [{"raise": DECLINED}]}},
             actions=[*START, {"do": "recover"}],
             claims=[{"result": failed("card.declined")},
                     {"result": failed("card.declined"), "calls": [], "events": []}]),
    # -- kernel.identity ------------------------------------------------------------------
    scenario("kernel.identity/derived-ids", "kernel.step-identity",
             "Derived step ids count per tool: a#1, a#2, b#1, a#3.",
             body=[ex("a"), ex("a"), ex("b"), ex("a")],
             effects={"a": ECHO, "b": ECHO}, actions=START,
             claims=[{"result": done(None), "calls": ["a#1", "a#2", "b#1", "a#3"]}]),
    scenario("kernel.identity/explicit-id", "kernel.step-identity",
             "An explicit step id is used as given and does not advance the derived counter.",
             body=[ex("a", stepId="charge-card"), ex("a")],
             effects={"a": ECHO}, actions=START,
             claims=[{"result": done(None), "calls": ["charge-card", "a#1"]}]),
    scenario("kernel.identity/loop-ids", "kernel.step-identity",
             "Steps in a loop get successive derived ids.",
             body=[{"op": "repeat", "times": 3, "as": "i", "body": [ex("t", var("i"))]}],
             effects={"t": ECHO}, actions=START,
             claims=[{"result": done(None), "calls": ["t#1", "t#2", "t#3"]}]),
    scenario("kernel.identity/stream-ids", "kernel.step-identity",
             "Stream appends are stream#1, stream#2, ...: durable events, no effect calls.",
             body=[{"op": "stream", "data": {"progress": 1}},
                   {"op": "stream", "data": {"progress": 2}}],
             actions=START,
             claims=[{"result": done(None), "calls": [],
                      "events": ["EXECUTION_STARTED", "STREAM_APPENDED", "STREAM_APPENDED",
                                 "EXECUTION_COMPLETED"]}]),
    scenario("kernel.identity/idempotency-key", "kernel.idempotency-key",
             "A step's idempotency key is <executionId>/<stepId>, journaled and passed to the "
             "effect.",
             body=[ex("charge", 5), ex("charge", 6, stepId="refund")],
             effects={"charge": ECHO}, actions=START, execution_id="order-7",
             claims=[{"result": done(None), "calls": ["charge#1", "refund"]}]),
    scenario("kernel.identity/duplicate-step-id", "kernel.duplicate-id",
             "A second step with an id already used raises kernel.duplicate-id into the body, "
             "and nothing runs for it.",
             body=[ex("a", 1, stepId="s"),
                   {"op": "try", "body": [ex("a", 2, stepId="s")],
                    "catch": {"as": "e", "body": [ret(var("e"))]}}],
             effects={"a": ECHO}, actions=START,
             claims=[{"result": done({"code": "kernel.duplicate-id"}), "calls": ["s"]}]),
    scenario("kernel.identity/duplicate-across-kinds", "kernel.duplicate-id",
             "Ids are unique across commands of every kind: a gate named like a decision is a "
             "duplicate, and uncaught it fails the execution.",
             body=[{"op": "decide", "id": "x"}, {"op": "suspend", "gate": "x"}],
             deciders={"x": {"script": [{"return": 1}]}}, actions=START,
             claims=[{"result": failed("kernel.duplicate-id"), "deciders": ["x"]}]),
    # -- kernel.decide --------------------------------------------------------------------
    scenario("kernel.decide/choice-recorded", "journal.payload-shape",
             "A decision is journaled with its choice, policy {id, propensity}, context and "
             "alternatives, and the choice is returned into the body.",
             body=[{"op": "decide", "id": "route", "decider": "router",
                    "context": {"q": {"$input": ["n"]}}, "alternatives": ["cheap", "strong"],
                    "as": "r"}, ret(var("r"))],
             deciders={"router": {"script": [{"choice": "cheap", "policy": "router-v2",
                                              "propensity": 0.8}]}},
             actions=START,
             claims=[{"result": done("cheap"), "deciders": ["route"],
                      "events": ["EXECUTION_STARTED", "DECISION_RECORDED",
                                 "EXECUTION_COMPLETED"]}]),
    scenario("kernel.decide/plain-value", "kernel.commands",
             "A decider that returns a plain value records just the choice.",
             body=[{"op": "decide", "id": "pick", "as": "p"}, ret(var("p"))],
             deciders={"pick": {"script": [{"return": {"skills": ["search"]}}]}},
             actions=START, claims=[{"result": done({"skills": ["search"]})}]),
    scenario("kernel.decide/drifting-decider-served", "kernel.replay-serve",
             "A drifting decider (a different answer each time it runs) is not run again when "
             "the execution resumes: the recorded choice is served.",
             body=[{"op": "decide", "id": "pick", "as": "p"}, {"op": "suspend", "gate": "go"},
                   ret(var("p"))],
             deciders={"pick": {"script": [{"return": "first"}, {"return": "second"}]}},
             actions=[*START, {"do": "resume", "gate": "go", "payload": None}],
             claims=[{"result": {"status": "suspended", "waitingOn": "go"},
                      "deciders": ["pick"]},
                     {"result": done("first"), "deciders": []}]),
    scenario("kernel.decide/decider-throws-caught", "kernel.decider-throws",
             "A decider that raises records nothing; its error is raised into the body, which "
             "may catch it.",
             body=[{"op": "try", "body": [{"op": "decide", "id": "pick"}],
                    "catch": {"as": "e", "body": [ret(var("e"))]}}],
             deciders={"pick": {"script": [{"raise": {"code": "llm.timeout",
                                                      "message": "no answer"}}]}},
             actions=START,
             claims=[{"result": done({"code": "llm.timeout"}), "deciders": ["pick"],
                      "events": ["EXECUTION_STARTED", "EXECUTION_COMPLETED"]}]),
    scenario("kernel.decide/decider-throws-uncaught", "kernel.decider-throws",
             "Uncaught, a decider's error fails the execution with its code.",
             body=[{"op": "decide", "id": "pick"}],
             deciders={"pick": {"script": [{"raise": {"code": "llm.timeout",
                                                      "message": "no answer"}}]}},
             actions=START, claims=[{"result": failed("llm.timeout")}]),
    scenario("kernel.decide/decider-throws-replay", "kernel.decider-throws",
             "A read-only replay of an execution that failed because its decider threw runs "
             "the decider again (nothing was recorded to serve) and, when it throws again, "
             "reports the same failure.",
             body=[{"op": "decide", "id": "pick"}],
             deciders={"pick": {"script": [{"raise": {"code": "llm.timeout",
                                                      "message": "no answer"}}]}},
             actions=[*START, {"do": "replay"}],
             claims=[{"result": failed("llm.timeout")},
                     {"result": failed("llm.timeout"), "deciders": ["pick"]}]),
    scenario("kernel.decide/decider-hole-consistent", "kernel.decider-throws",
             "A decision whose decider threw is a hole in the history: on resume the decider "
             "runs again, and if it throws again the history stays consistent.",
             body=[{"op": "try", "body": [{"op": "decide", "id": "pick"}],
                    "catch": {"body": []}},
                   {"op": "suspend", "gate": "go"}, ret("ok")],
             deciders={"pick": {"script": [{"raise": {"code": "llm.timeout",
                                                      "message": "no answer"}}]}},
             actions=[*START, {"do": "resume", "gate": "go", "payload": 1}],
             claims=[{"result": {"status": "suspended", "waitingOn": "go"},
                      "deciders": ["pick"]},
                     {"result": done("ok"), "deciders": ["pick"]}]),
    scenario("kernel.decide/decider-hole-diverges", "kernel.decider-throws",
             "If the re-run decider of a hole now returns, the history no longer matches: a "
             "non-determinism error, journaled as EXECUTION_FAILED.",
             body=[{"op": "try", "body": [{"op": "decide", "id": "pick"}],
                    "catch": {"body": []}},
                   {"op": "suspend", "gate": "go"}, ret("ok")],
             deciders={"pick": {"script": [{"raise": {"code": "llm.timeout",
                                                      "message": "no answer"}},
                                           {"return": "late"}]}},
             actions=[*START, {"do": "resume", "gate": "go", "payload": 1}],
             claims=[{"result": {"status": "suspended", "waitingOn": "go"}},
                     {"raised": "kernel.nondeterminism", "deciders": ["pick"],
                      "events": ["RESUME_RECEIVED", "EXECUTION_RESUMED",
                                 "EXECUTION_FAILED"]}]),
    scenario("kernel.decide/transient-call", "kernel.effect-seam",
             "A decider's transient call reaches the effect but is never journaled; the "
             "decision records the decider's return value.",
             body=[{"op": "decide", "id": "plan", "as": "p"}, ret(var("p"))],
             effects={"llm": {"script": [{"return": "use search"}]}},
             deciders={"plan": {"script": [{"invokeTransient": {"tool": "llm",
                                                                "input": {"prompt": "?"}}}]}},
             actions=START,
             claims=[{"result": done("use search"), "transients": ["llm"], "calls": [],
                      "events": ["EXECUTION_STARTED", "DECISION_RECORDED",
                                 "EXECUTION_COMPLETED"]}]),
    scenario("kernel.decide/transient-call-on-durable-only-tool", "kernel.effect-forms",
             "A decider's transient call to an effect that allows only durable calls is "
             "refused with effect.mode-refused before the effect runs: the decider throws, "
             "nothing is journaled for the decision, and the body can catch it.",
             body=[{"op": "try", "body": [{"op": "decide", "id": "plan", "as": "p"}],
                    "catch": {"as": "e", "body": [ret(var("e"))]}}],
             effects={"charge": {"modes": ["durable"], "script": [{"return": "paid"}]}},
             deciders={"plan": {"script": [{"invokeTransient": {"tool": "charge"}}]}},
             actions=START,
             exclude={m: "the refused call leaves a decision hole that replay re-runs, "
                         "calling the effect (kernel.decider-throws)"
                      for m in ("replay", "always-replay")},
             claims=[{"result": done({"code": "effect.mode-refused"}), "transients": [],
                      "calls": [], "events": ["EXECUTION_STARTED", "EXECUTION_COMPLETED"]}]),
    scenario("kernel.decide/transient-not-repeated", "kernel.replay-serve",
             "On resume, a recorded decision is served: neither its decider nor its transient "
             "call runs again.",
             body=[{"op": "decide", "id": "plan", "as": "p"}, {"op": "suspend", "gate": "go"},
                   ret(var("p"))],
             effects={"llm": {"script": [{"return": "A"}, {"return": "B"}]}},
             deciders={"plan": {"script": [{"invokeTransient": {"tool": "llm"}}]}},
             actions=[*START, {"do": "resume", "gate": "go", "payload": None}],
             claims=[{"result": {"status": "suspended", "waitingOn": "go"},
                      "transients": ["llm"]},
                     {"result": done("A"), "transients": [], "deciders": []}]),
    # -- kernel.ids: a command is built with non-empty ids ----------------------------------
    *[scenario(f"kernel.identity/empty-{name}", "kernel.ids",
               f"A command built with an empty {what} is refused as it is built: "
               "argument.id is raised into the body, and uncaught it fails the execution "
               "before anything of the command is journaled.",
               body=[instruction], effects={"echo": ECHO}, deciders={"": {"script": [
                   {"return": 1}]}}, actions=[{"do": "start"}],
               claims=[{"result": failed("argument.id"), "calls": [],
                        "events": ["EXECUTION_STARTED", "EXECUTION_FAILED"]}])
      for name, what, instruction in (
          ("tool-id", "tool id", {"op": "execute", "tool": ""}),
          ("step-id", "step id", {"op": "execute", "tool": "echo", "stepId": ""}),
          ("decision-id", "decision id", {"op": "decide", "id": ""}),
          ("gate-id", "gate id", {"op": "suspend", "gate": ""}))],
    scenario("kernel.identity/empty-id-caught", "kernel.ids",
             "The refusal is an error the body can catch by its code, and carry on.",
             body=[{"op": "try", "body": [{"op": "execute", "tool": "echo", "stepId": ""}],
                    "catch": {"as": "e", "body": [ret(var("e"))]}}],
             effects={"echo": ECHO}, actions=[{"do": "start"}],
             claims=[{"result": done({"code": "argument.id"}), "calls": []}]),
    # -- errors that carry no code -------------------------------------------------------------
    scenario("kernel.steps/uncoded-effect-failure", "kernel.step-failure",
             "An effect that raises an error carrying no code: the step fails with "
             "effect.failed (the message names the error's type), journaled and raised into "
             "the body like any failed step.",
             body=[ex("charge", 10)],
             effects={"charge": {"script": [{"raise": {"message": "no funds"}}]}},
             actions=START,
             claims=[{"result": failed("effect.failed"), "calls": ["charge#1"],
                      "events": ["EXECUTION_STARTED", "STEP_STARTED", "STEP_FAILED",
                                 "EXECUTION_FAILED"]}]),
    scenario("kernel.steps/uncoded-effect-failure-caught", "kernel.step-failure",
             "The failed step is caught by its code, effect.failed.",
             body=[{"op": "try", "body": [ex("charge", 10)],
                    "catch": {"as": "e", "body": [ret(var("e"))]}}],
             effects={"charge": {"script": [{"raise": {"message": "no funds"}}]}},
             actions=START, claims=[{"result": done({"code": "effect.failed"})}]),
    scenario("kernel.steps/uncoded-body-failure", "kernel.body-failure",
             "A decider that raises an error carrying no code, uncaught by the body: the "
             "execution fails with kernel.body-error.",
             body=[{"op": "decide", "id": "pick"}],
             deciders={"pick": {"script": [{"raise": {"message": "no idea"}}]}},
             actions=START,
             claims=[{"result": failed("kernel.body-error"), "deciders": ["pick"],
                      "events": ["EXECUTION_STARTED", "EXECUTION_FAILED"]}]),
    scenario("kernel.steps/uncoded-error-caught", "kernel.body-failure",
             "A body catches an error that carries no code like any other; its code is null.",
             body=[{"op": "try", "body": [{"op": "decide", "id": "pick"}],
                    "catch": {"as": "e", "body": [ret(var("e"))]}}],
             deciders={"pick": {"script": [{"raise": {"message": "no idea"}}]}},
             actions=START, claims=[{"result": done({"code": None}), "deciders": ["pick"]}]),
]
