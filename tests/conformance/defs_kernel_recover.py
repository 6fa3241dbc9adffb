"""Definitions of the kernel.recover, kernel.in-doubt and kernel.start scenarios."""

from __future__ import annotations

from typing import Any

from .defs_kernel_steps import done, ex, ret, var
from .gen_cases import scenario

ECHO = {"script": [{"echo": True}]}
ORDER = [ex("quote", {"$input": []}, **{"as": "q"}), ex("charge", var("q"), **{"as": "r"}),
         ex("notify", var("r")), ret(var("r"))]
EFFECTS = {"quote": {"idempotent": True, "script": [{"return": 30}]},
           "charge": {"script": [{"return": "r-30"}]},
           "notify": {"idempotent": True, "script": [{"echo": True}]}}
START = {"do": "start", "input": 3}
PAID = done("r-30")
IN_DOUBT = {"status": "in-doubt", "inDoubtStep": "charge#1"}
ALL = ["EXECUTION_STARTED", "STEP_STARTED", "STEP_COMPLETED", "STEP_STARTED", "STEP_COMPLETED",
       "STEP_STARTED", "STEP_COMPLETED", "EXECUTION_COMPLETED"]
PARKED = ["EXECUTION_STARTED", "STEP_STARTED", "STEP_COMPLETED", "STEP_STARTED",
          "STEP_IN_DOUBT"]


def crash(k: int, torn: bool = False) -> dict[str, Any]:
    return {**START, "crash": {"afterEvent": k, **({"torn": True} if torn else {})}}


RECOVER = {"do": "recover"}

DEFINITIONS: list[dict[str, Any]] = [
    # -- kernel.recover -------------------------------------------------------------------
    scenario("kernel.recover/after-step", "kernel.recover",
             "A crash right after a step completed: recovery serves it and makes only the "
             "remaining calls; the journal equals an uncrashed run's.",
             body=ORDER, effects=EFFECTS, actions=[crash(3), RECOVER],
             claims=[{"crashed": True, "calls": ["quote#1"]},
                     {"result": PAID, "calls": ["charge#1", "notify#1"]}], journal=ALL),
    scenario("kernel.recover/after-start", "kernel.recover",
             "A crash right after EXECUTION_STARTED: recovery runs the whole body.",
             body=ORDER, effects=EFFECTS, actions=[crash(1), RECOVER],
             claims=[{"crashed": True, "calls": []},
                     {"result": PAID, "calls": ["quote#1", "charge#1", "notify#1"]}],
             journal=ALL),
    scenario("kernel.recover/after-last-step", "kernel.recover",
             "A crash after the last step but before EXECUTION_COMPLETED: recovery calls "
             "nothing and completes.",
             body=ORDER, effects=EFFECTS, actions=[crash(7), RECOVER],
             claims=[{"crashed": True}, {"result": PAID, "calls": [],
                                         "events": ["EXECUTION_COMPLETED"]}], journal=ALL),
    scenario("kernel.recover/completed", "kernel.recover",
             "Recovering a completed execution reports it as it stands; no call, no event.",
             body=ORDER, effects=EFFECTS, actions=[START, RECOVER],
             claims=[{"result": PAID}, {"result": PAID, "calls": [], "events": []}]),
    scenario("kernel.recover/suspended", "kernel.recover",
             "Recovering a suspended execution leaves it waiting on its gate.",
             body=[ex("quote", 1), {"op": "suspend", "gate": "go"}], effects=EFFECTS,
             actions=[{"do": "start"}, RECOVER],
             claims=[{"result": {"status": "suspended", "waitingOn": "go"}},
                     {"result": {"status": "suspended", "waitingOn": "go"}, "calls": [],
                      "events": []}]),
    scenario("kernel.recover/pending-resume", "kernel.recover",
             "A crash after RESUME_RECEIVED: the payload is durable, so recovery resumes the "
             "execution with it.",
             body=[{"op": "suspend", "gate": "go", "as": "p"}, ex("charge", var("p")),
                   ret(var("p"))],
             effects=EFFECTS,
             actions=[{"do": "start"},
                      {"do": "resume", "gate": "go", "payload": {"ok": 1},
                       "crash": {"afterEvent": 1}}, RECOVER],
             claims=[{"result": {"status": "suspended", "waitingOn": "go"}},
                     {"crashed": True, "events": ["RESUME_RECEIVED"]},
                     {"result": done({"ok": 1}), "calls": ["charge#1"],
                      "events": ["EXECUTION_RESUMED", "STEP_STARTED", "STEP_COMPLETED",
                                 "EXECUTION_COMPLETED"]}]),
    scenario("kernel.recover/decision-not-rerun", "kernel.recover",
             "A crash after a decision: recovery serves the recorded choice, the drifting "
             "decider does not run again.",
             body=[{"op": "decide", "id": "d", "as": "c"}, ex("charge", var("c")),
                   ret(var("c"))],
             effects=EFFECTS, deciders={"d": {"script": [{"return": "A"}, {"return": "B"}]}},
             actions=[{"do": "start", "crash": {"afterEvent": 2}}, RECOVER],
             claims=[{"crashed": True, "deciders": ["d"]},
                     {"result": done("A"), "deciders": [], "calls": ["charge#1"]}]),
    # -- kernel.in-doubt ------------------------------------------------------------------
    scenario("kernel.in-doubt/parks", "kernel.in-doubt",
             "A crash after STEP_STARTED of a non-idempotent effect: recovery cannot know "
             "whether it ran, so it journals STEP_IN_DOUBT, warns, calls nothing and parks.",
             body=ORDER, effects=EFFECTS, actions=[crash(4), RECOVER],
             claims=[{"crashed": True, "calls": ["quote#1"]},
                     {"result": IN_DOUBT, "calls": [], "events": ["STEP_IN_DOUBT"],
                      "warnings": ["kernel.in-doubt"]}], journal=PARKED),
    scenario("kernel.in-doubt/idempotent-reinvoked", "kernel.in-doubt",
             "A crash after STEP_STARTED of an idempotent effect: recovery invokes it again "
             "with the same idempotency key.",
             body=ORDER, effects=EFFECTS, actions=[crash(2), RECOVER],
             claims=[{"crashed": True, "calls": []},
                     {"result": PAID, "calls": ["quote#1", "charge#1", "notify#1"]}],
             journal=ALL),
    scenario("kernel.in-doubt/recover-again", "kernel.in-doubt",
             "Recovering an in-doubt execution again changes nothing: no call, no event.",
             body=ORDER, effects=EFFECTS, actions=[crash(4), RECOVER, RECOVER],
             claims=[{"crashed": True}, {"result": IN_DOUBT, "warnings": ["kernel.in-doubt"]},
                     {"result": IN_DOUBT, "calls": [], "events": []}], journal=PARKED),
    scenario("kernel.in-doubt/torn-outcome", "kernel.in-doubt",
             "The effect ran but the crash tore its STEP_COMPLETED: the step is in doubt; a "
             "retry calls it a second time, with the same key.",
             body=ORDER, effects=EFFECTS,
             actions=[crash(5, torn=True), RECOVER,
                      {"do": "resolve", "step": "charge#1", "retry": True}],
             claims=[{"crashed": True, "calls": ["quote#1", "charge#1"]},
                     {"result": IN_DOUBT, "calls": [], "events": ["STEP_IN_DOUBT"],
                      "warnings": ["journal.torn-tail", "kernel.in-doubt"]},
                     {"result": PAID, "calls": ["charge#1", "notify#1"]}]),
    scenario("kernel.in-doubt/replay", "kernel.replay-readonly",
             "A read-only replay of an in-doubt execution reports the step it waits on.",
             body=ORDER, effects=EFFECTS, actions=[crash(4), RECOVER, {"do": "replay"}],
             claims=[{"crashed": True}, {"result": IN_DOUBT, "warnings": ["kernel.in-doubt"]},
                     {"result": IN_DOUBT, "calls": [], "events": []}]),
    scenario("kernel.in-doubt/resolve-output", "kernel.resolve",
             "An operator completes the in-doubt step with an output: the body receives it "
             "and the execution carries on.",
             body=ORDER, effects=EFFECTS,
             actions=[crash(4), RECOVER,
                      {"do": "resolve", "step": "charge#1", "output": "r-manual"}],
             claims=[{"crashed": True}, {"result": IN_DOUBT, "warnings": ["kernel.in-doubt"]},
                     {"result": done("r-manual"), "calls": ["notify#1"],
                      "events": ["STEP_COMPLETED", "STEP_STARTED", "STEP_COMPLETED",
                                 "EXECUTION_COMPLETED"]}]),
    scenario("kernel.in-doubt/resolve-error", "kernel.resolve",
             "An operator fails the in-doubt step: the body receives the step failure.",
             body=[ex("charge", 1, **{"as": "r"}), ret(var("r"))],
             effects=EFFECTS,
             actions=[{"do": "start", "crash": {"afterEvent": 2}}, RECOVER,
                      {"do": "resolve", "step": "charge#1",
                       "error": {"code": "ops.refunded", "message": "refunded by hand"}}],
             claims=[{"crashed": True}, {"result": {"status": "in-doubt",
                                                    "inDoubtStep": "charge#1"},
                                         "warnings": ["kernel.in-doubt"]},
                     {"result": {"status": "failed", "error": {"code": "ops.refunded"}},
                      "calls": [], "events": ["STEP_FAILED", "EXECUTION_FAILED"]}]),
    scenario("kernel.in-doubt/resolve-retry", "kernel.resolve",
             "Retrying the in-doubt step invokes the effect again with the same idempotency "
             "key.",
             body=ORDER, effects=EFFECTS,
             actions=[crash(4), RECOVER, {"do": "resolve", "step": "charge#1", "retry": True}],
             claims=[{"crashed": True}, {"result": IN_DOUBT, "warnings": ["kernel.in-doubt"]},
                     {"result": PAID, "calls": ["charge#1", "notify#1"]}]),
    scenario("kernel.in-doubt/resolve-two-answers", "kernel.resolve",
             "Resolving with both an output and a retry (two answers at once) is refused "
             "as a bad argument before the journal is read; nothing is written, no call is "
             "made, and the step stays in doubt.",
             body=ORDER, effects=EFFECTS,
             actions=[crash(4), RECOVER,
                      {"do": "resolve", "step": "charge#1", "output": "r", "retry": True},
                      {"do": "replay"}],
             claims=[{"crashed": True}, {"result": IN_DOUBT, "warnings": ["kernel.in-doubt"]},
                     {"raised": "argument.invalid", "calls": [], "events": []},
                     {"result": IN_DOUBT, "calls": [], "events": []}]),
    scenario("kernel.in-doubt/resolve-not-in-doubt", "kernel.resolve",
             "Resolving a step that is not in doubt is refused; nothing is written.",
             body=ORDER, effects=EFFECTS,
             actions=[START, {"do": "resolve", "step": "charge#1", "output": "x"}],
             claims=[{"result": PAID}, {"raised": "kernel.not-in-doubt", "events": []}]),
    scenario("kernel.in-doubt/resolve-other-step", "kernel.resolve",
             "Resolving another step than the one in doubt is refused.",
             body=ORDER, effects=EFFECTS,
             actions=[crash(4), RECOVER, {"do": "resolve", "step": "quote#1", "retry": True}],
             claims=[{"crashed": True}, {"result": IN_DOUBT, "warnings": ["kernel.in-doubt"]},
                     {"raised": "kernel.not-in-doubt", "events": [], "calls": []}],
             journal=PARKED),
    scenario("kernel.in-doubt/resume-refused", "kernel.resume-gate",
             "An in-doubt execution waits on its step, not on a gate: resume is refused.",
             body=ORDER, effects=EFFECTS,
             actions=[crash(4), RECOVER, {"do": "resume", "gate": "go", "payload": 1}],
             claims=[{"crashed": True}, {"result": IN_DOUBT, "warnings": ["kernel.in-doubt"]},
                     {"raised": "kernel.gate-not-waiting", "events": []}]),
    # -- kernel.start ---------------------------------------------------------------------
    scenario("kernel.start/twice", "kernel.start",
             "Starting an execution id that has already started is refused; nothing is "
             "written.",
             body=[ex("quote", 1)], effects=EFFECTS, actions=[START, START],
             claims=[{"result": done(None)}, {"raised": "kernel.execution-exists",
                                              "events": [], "calls": []}],
             journal=["EXECUTION_STARTED", "STEP_STARTED", "STEP_COMPLETED",
                      "EXECUTION_COMPLETED"]),
    scenario("kernel.start/twice-then-resume", "kernel.start",
             "A refused second start lets the journal go (it writes nothing and keeps no "
             "writer's place): the suspended execution is then resumed as if the refused "
             "start had never been.",
             body=[{"op": "suspend", "gate": "go", "as": "p"}, {"op": "return",
                                                               "value": {"$var": "p"}}],
             actions=[START, START, {"do": "resume", "gate": "go", "payload": 7}],
             claims=[{"result": {"status": "suspended", "waitingOn": "go"}},
                     {"raised": "kernel.execution-exists", "events": [], "calls": []},
                     {"result": done(7)}]),
    scenario("kernel.recover/never-started", "kernel.failure-reporting",
             "The crash tore the first event (EXECUTION_STARTED): the journal exists but "
             "the execution never started, so recovering it is refused (kernel.not-started) "
             "after the torn tail is dropped; no effect is called.",
             body=[ex("quote", 1)], effects=EFFECTS, actions=[crash(1, torn=True), RECOVER],
             claims=[{"crashed": True, "calls": []},
                     {"raised": "kernel.not-started", "calls": [],
                      "warnings": ["journal.torn-tail"]}]),
    scenario("kernel.replay/never-started", "kernel.failure-reporting",
             "The crash tore the first event and recovering was refused: a read-only replay "
             "of the execution that never started is refused too (kernel.not-started), never "
             "an empty history, and writes nothing.",
             body=[ex("quote", 1)], effects=EFFECTS,
             actions=[crash(1, torn=True), RECOVER, {"do": "replay"}],
             claims=[{"crashed": True, "calls": []},
                     {"raised": "kernel.not-started", "calls": [],
                      "warnings": ["journal.torn-tail"]},
                     {"raised": "kernel.not-started", "events": [], "calls": []}]),
    {**scenario("kernel.replay/torn-tail-stays", "kernel.replay-readonly",
                "The crash tore the first event; a read-only replay reports the torn tail "
                "and truncates nothing: the journal read afterwards still ends in it, on "
                "every store (a store log keeps torn bytes that name an execution until a "
                "writer opens it).",
                body=[ex("quote", 1)], effects=EFFECTS,
                actions=[crash(1, torn=True), {"do": "replay"}],
                claims=[{"crashed": True, "calls": []},
                        {"raised": "kernel.not-started", "calls": [], "events": [],
                         "warnings": ["journal.torn-tail"]}], journal=[]),
     "checks": [("the torn tail is still there", lambda o: o["journal"]["tornTail"] is True)]},
    {**scenario("kernel.replay/torn-tail-told-to-the-next-writer", "kernel.replay-readonly",
                "A crash tore the third event; a read-only replay reports the torn tail and "
                "leaves it, so the recovery after it is told of it too (journal.torn-tail), "
                "on every store, the store log included, and truncates it.",
                body=ORDER, effects=EFFECTS,
                actions=[crash(3, torn=True), {"do": "replay"}, RECOVER],
                claims=[{"crashed": True, "calls": ["quote#1"]},
                        {"result": {"status": "running"}, "calls": [], "events": [],
                         "warnings": ["journal.torn-tail"]},
                        {"result": PAID, "calls": ["quote#1", "charge#1", "notify#1"],
                         "warnings": ["journal.torn-tail"]}], journal=ALL,
                exclude={"always-replay": "the replay the mode adds after the read-only "
                         "replay finds the torn tail that replay left, and warns of it"}),
     "checks": [("the torn tail is gone", lambda o: o["journal"]["tornTail"] is False)]},
    scenario("kernel.start/unknown-workflow", "kernel.start",
             "Starting a workflow nobody registered is refused; no journal is created.",
             body=[], actions=[{"do": "start", "workflow": "nope"}],
             claims=[{"raised": "kernel.unknown-workflow", "events": []}], journal=None),
]
