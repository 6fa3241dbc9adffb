"""Definitions of the kernel.replay scenarios: serving, comparing, read-only replay."""

from __future__ import annotations

from typing import Any

from .defs_kernel_steps import done, ex, failed, ret, var
from .gen_cases import scenario

ECHO = {"script": [{"echo": True}]}


def drift(*values: Any) -> dict[str, Any]:
    return {"$drift": {"name": "env", "values": list(values)}}


def when(value: str, then: list[Any], otherwise: list[Any]) -> dict[str, Any]:
    return {"op": "if", "cond": {"$eq": [drift("a", "b"), value]}, "then": then,
            "else": otherwise}


GO = {"op": "suspend", "gate": "go"}
WAIT = {"status": "suspended", "waitingOn": "go"}
RESUME = {"do": "resume", "gate": "go", "payload": None}
DIVERGED = ["RESUME_RECEIVED", "EXECUTION_RESUMED", "EXECUTION_FAILED"]
EFFECTS = {"a": ECHO, "b": ECHO}

DEFINITIONS: list[dict[str, Any]] = [
    scenario("kernel.replay/different-tool", "kernel.replay-compare",
             "On resume the body asks for another tool where the journal holds a step: a "
             "non-determinism error, journaled as EXECUTION_FAILED, and no effect is called.",
             body=[when("a", [ex("a", 1, stepId="s")], [ex("b", 1, stepId="s")]), GO],
             effects=EFFECTS, actions=[{"do": "start"}, RESUME],
             claims=[{"result": WAIT, "calls": ["s"]},
                     {"raised": "kernel.nondeterminism", "calls": [], "events": DIVERGED}],
             journal=["EXECUTION_STARTED", "STEP_STARTED", "STEP_COMPLETED",
                      "EXECUTION_SUSPENDED", *DIVERGED]),
    scenario("kernel.replay/different-id", "kernel.replay-compare",
             "The same tool under another step id is a divergence too.",
             body=[when("a", [ex("a", 1, stepId="first")], [ex("a", 1, stepId="other")]), GO],
             effects=EFFECTS, actions=[{"do": "start"}, RESUME],
             claims=[{"result": WAIT}, {"raised": "kernel.nondeterminism", "calls": [],
                                        "events": DIVERGED}]),
    scenario("kernel.replay/different-kind", "kernel.replay-compare",
             "A decision where the journal holds a step is a divergence.",
             body=[when("a", [ex("a", 1, stepId="s")], [{"op": "decide", "id": "s"}]), GO],
             effects=EFFECTS, deciders={"s": {"script": [{"return": 1}]}},
             actions=[{"do": "start"}, RESUME],
             claims=[{"result": WAIT}, {"raised": "kernel.nondeterminism", "calls": [],
                                        "events": DIVERGED}]),
    scenario("kernel.replay/ends-early", "kernel.replay-compare",
             "A body that returns while recorded commands remain has diverged.",
             body=[when("b", [ret("early")], []), ex("a", 1), GO, ret("late")],
             effects=EFFECTS, actions=[{"do": "start"}, RESUME],
             claims=[{"result": WAIT}, {"raised": "kernel.nondeterminism",
                                        "events": DIVERGED}]),
    scenario("kernel.replay/diverged-stays-failed", "kernel.replay-compare",
             "After a divergence the execution is failed, never running: recovering it makes "
             "no call and writes nothing.",
             body=[when("a", [ex("a", 1, stepId="s")], [ex("b", 1, stepId="s")]), GO],
             effects=EFFECTS, actions=[{"do": "start"}, RESUME, {"do": "recover"}],
             claims=[{"result": WAIT}, {"raised": "kernel.nondeterminism"},
                     {"result": failed("kernel.nondeterminism"), "calls": [], "events": []}]),
    scenario("kernel.replay/body-errors-are-results", "kernel.failure-reporting",
             "What the body does is a result, a divergence is raised: an uncaught error raised "
             "into the body (a duplicate id) ends the execution as a failed result, never an "
             "error out of start; recovering it reports the same failed result and writes "
             "nothing.",
             body=[ex("a", 1, stepId="s"), ex("a", 2, stepId="s")],
             effects=EFFECTS, actions=[{"do": "start"}, {"do": "recover"}],
             claims=[{"result": failed("kernel.duplicate-id"), "calls": ["s"]},
                     {"result": failed("kernel.duplicate-id"), "calls": [], "events": []}],
             journal=["EXECUTION_STARTED", "STEP_STARTED", "STEP_COMPLETED",
                      "EXECUTION_FAILED"]),
    scenario("kernel.replay/input-not-compared", "kernel.replay-compare",
             "A step's input is not compared: the same tool and id with another input is "
             "served, and the body receives the journaled output.",
             body=[ex("a", drift(1, 2), **{"as": "x"}), GO, ret(var("x"))],
             effects=EFFECTS, actions=[{"do": "start"}, RESUME],
             claims=[{"result": WAIT, "calls": ["a#1"]}, {"result": done(1), "calls": []}]),
    scenario("kernel.replay/readonly-diverged", "kernel.replay-readonly",
             "A read-only replay that diverges reports kernel.nondeterminism and writes "
             "nothing.",
             body=[when("a", [ex("a", 1, stepId="s")], [ex("b", 1, stepId="s")])],
             effects=EFFECTS, actions=[{"do": "start"}, {"do": "replay"}],
             claims=[{"result": done(None)},
                     {"raised": "kernel.nondeterminism", "calls": [], "events": []}],
             journal=["EXECUTION_STARTED", "STEP_STARTED", "STEP_COMPLETED",
                      "EXECUTION_COMPLETED"]),
    scenario("kernel.replay/readonly-other-output", "kernel.replay-readonly",
             "A replayed body that returns another output than the journaled one has "
             "diverged: kernel.nondeterminism, and nothing is written.",
             body=[ex("a", 1), ret(drift("first", "second"))], effects=EFFECTS,
             actions=[{"do": "start"}, {"do": "replay"}],
             claims=[{"result": done("first")},
                     {"raised": "kernel.nondeterminism", "calls": [], "events": []}]),
    scenario("kernel.replay/readonly-other-error", "kernel.replay-readonly",
             "A replayed body that fails with another error than the journaled one has "
             "diverged too.",
             body=[ex("a", 1), when("a", [{"op": "raise", "code": "x.first", "message": "m"}],
                                    [{"op": "raise", "code": "x.second", "message": "m"}])],
             effects=EFFECTS, actions=[{"do": "start"}, {"do": "replay"}],
             claims=[{"result": failed("x.first")},
                     {"raised": "kernel.nondeterminism", "calls": [], "events": []}]),
    scenario("kernel.replay/readonly-completes-differently", "kernel.replay-readonly",
             "A replayed body that returns where the journal recorded a failure has diverged.",
             body=[ex("a", 1), when("a", [{"op": "raise", "code": "x.first", "message": "m"}],
                                    [ret("fine")])],
             effects=EFFECTS, actions=[{"do": "start"}, {"do": "replay"}],
             claims=[{"result": failed("x.first")},
                     {"raised": "kernel.nondeterminism", "calls": [], "events": []}]),
    scenario("kernel.replay/readonly-completed", "kernel.replay-readonly",
             "Replaying a completed execution serves everything: the same output, no effect "
             "called, nothing written.",
             body=[ex("a", {"$input": []}, **{"as": "x"}), {"op": "decide", "id": "d", "as": "y"},
                   {"op": "stream", "data": var("x")}, ret([var("x"), var("y")])],
             effects=EFFECTS, deciders={"d": {"script": [{"return": "one"},
                                                         {"return": "two"}]}},
             actions=[{"do": "start", "input": 7}, {"do": "replay"}],
             claims=[{"result": done([7, "one"])},
                     {"result": done([7, "one"]), "calls": [], "deciders": [], "events": []}]),
    scenario("kernel.replay/readonly-suspended", "kernel.replay-readonly",
             "Replaying a suspended execution reports the gate it waits on.",
             body=[ex("a", 1), GO], effects=EFFECTS, actions=[{"do": "start"}, {"do": "replay"}],
             claims=[{"result": WAIT}, {"result": WAIT, "calls": [], "events": []}]),
    scenario("kernel.replay/readonly-failed", "kernel.replay-readonly",
             "Replaying a failed execution raises the failed step into the body again and ends "
             "failed with the same error.",
             body=[ex("charge", 1)],
             effects={"charge": {"script": [{"raise": {"code": "card.declined",
                                                       "message": "no"}},
                                            {"return": "would succeed now"}]}},
             actions=[{"do": "start"}, {"do": "replay"}],
             claims=[{"result": failed("card.declined")},
                     {"result": failed("card.declined"), "calls": []}]),
    scenario("kernel.replay/readonly-running", "kernel.replay-readonly",
             "Replaying a journal that stops mid-run (a crash) reports running: the history "
             "ends before the body does.",
             body=[ex("a", 1), ex("b", 2)], effects=EFFECTS,
             actions=[{"do": "start", "crash": {"afterEvent": 3}}, {"do": "replay"}],
             claims=[{"crashed": True, "calls": ["a#1"]},
                     {"result": {"status": "running"}, "calls": [], "events": []}]),
    scenario("kernel.replay/failed-step-served", "kernel.replay-serve",
             "A failed step is served on resume: its error is raised into the body again and "
             "the effect is not called.",
             body=[{"op": "try", "body": [ex("charge", 1)],
                    "catch": {"as": "e", "body": [{"op": "set", "var": "err", "value": var("e")}]}},
                   GO, ret(var("err"))],
             effects={"charge": {"script": [{"raise": {"code": "card.declined",
                                                       "message": "no"}},
                                            {"return": "paid"}]}},
             actions=[{"do": "start"}, RESUME],
             claims=[{"result": WAIT, "calls": ["charge#1"]},
                     {"result": done({"code": "card.declined"}), "calls": []}]),
    scenario("kernel.replay/stream-served", "kernel.replay-serve",
             "A recorded stream append is not appended again on resume.",
             body=[{"op": "stream", "data": "half way"}, GO, {"op": "stream", "data": "done"}],
             actions=[{"do": "start"}, RESUME],
             claims=[{"result": WAIT, "events": ["EXECUTION_STARTED", "STREAM_APPENDED",
                                                 "EXECUTION_SUSPENDED"]},
                     {"result": done(None), "events": ["RESUME_RECEIVED", "EXECUTION_RESUMED",
                                                       "STREAM_APPENDED",
                                                       "EXECUTION_COMPLETED"]}]),
    scenario("kernel.replay/many-steps-served", "kernel.replay-serve",
             "Ten completed steps before a gate are all served on resume: zero calls.",
             body=[{"op": "repeat", "times": 10, "as": "i", "body": [ex("a", var("i"))]},
                   GO, ex("b", "after")],
             effects=EFFECTS, actions=[{"do": "start"}, RESUME],
             claims=[{"result": WAIT, "calls": [f"a#{i}" for i in range(1, 11)]},
                     {"result": done(None), "calls": ["b#1"]}]),
]
