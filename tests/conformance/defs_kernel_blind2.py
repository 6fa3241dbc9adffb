"""Definitions of the kernel scenarios that settle what a second blind implementation of the
kernel chapter found open (spec/blind/kernel.md, "Second blind reading"): a read-only replay
of a finished history that issues another command (D1), the seq of a gate in a divergence
(F5), the journaled workflow looked up before anything is appended (O2), a second writer's
torn tail (O3), an event past the nesting limit (O4) and the order of a workflow's refusal
(O1)."""

from __future__ import annotations

from typing import Any

from loom_ref.journal.codec import encode_line

from .defs_kernel_replay import when
from .defs_kernel_steps import done, ex, failed, ret, var
from .gen_cases import scenario

ECHO = {"script": [{"echo": True}]}
EFFECTS = {"a": ECHO, "b": ECHO}
REPLAY_DIVERGES = {"raised": "kernel.nondeterminism", "calls": [], "deciders": [], "events": []}
TORN = '{"seq"'  # six bytes and no newline: a torn tail


def _lines(*events: tuple[str, dict[str, Any]]) -> str:
    return "".join(encode_line(i, kind, p).decode() for i, (kind, p) in enumerate(events, 1))


GONE = ("EXECUTION_STARTED", {"executionId": "e1", "workflow": "gone", "input": None})
IN_DOUBT_GONE = "\n" + _lines(
    GONE, ("STEP_STARTED", {"stepId": "a#1", "toolId": "a", "input": 1,
                            "idempotencyKey": "e1/a#1"}),
    ("STEP_IN_DOUBT", {"stepId": "a#1"}))
RUNNING_GONE = "\n" + _lines(GONE)


def _build_deep(var: str, levels: int) -> list[dict[str, Any]]:
    """Body instructions binding ``var`` to ``levels`` nested arrays around 1, built by a loop:
    a request nests at most 100 levels (INTERPRETING.md section 4, *Depth*), so a deep value
    is made by the body, not written into the case."""
    return [{"op": "set", "var": var, "value": 1},
            {"op": "repeat", "times": levels,
             "body": [{"op": "set", "var": var, "value": [{"$var": var}]}]}]


DEFINITIONS: list[dict[str, Any]] = [
    # -- D1: a finished history's end is compared with every command (kernel.replay-end) --
    scenario("kernel.replay/readonly-extra-step", "kernel.replay-end",
             "A read-only replay of a completed execution whose body now executes another "
             "step where the journal holds EXECUTION_COMPLETED has diverged "
             "(kernel.nondeterminism, expected.command return): the history is finished, "
             "not running, and no effect is called.",
             body=[ex("a", 1), when("b", [ex("b", 2)], []), ret("done")], effects=EFFECTS,
             actions=[{"do": "start"}, {"do": "replay"}],
             claims=[{"result": done("done"), "calls": ["a#1"]}, REPLAY_DIVERGES]),
    scenario("kernel.replay/readonly-extra-gate", "kernel.replay-end",
             "A read-only replay of a failed execution whose body now suspends on a gate "
             "where the journal holds EXECUTION_FAILED has diverged.",
             body=[ex("a", 1), when("b", [{"op": "suspend", "gate": "go"}], []),
                   {"op": "raise", "code": "x.failed", "message": "m"}],
             effects=EFFECTS, actions=[{"do": "start"}, {"do": "replay"}],
             claims=[{"result": failed("x.failed")}, REPLAY_DIVERGES]),
    scenario("kernel.replay/readonly-extra-stream", "kernel.replay-end",
             "A read-only replay of a completed execution whose body now appends to its "
             "stream where the journal holds EXECUTION_COMPLETED has diverged.",
             body=[when("b", [{"op": "stream", "data": 1}], []), ret("done")],
             actions=[{"do": "start"}, {"do": "replay"}],
             claims=[{"result": done("done")}, REPLAY_DIVERGES]),
    # -- F5: expected.seq of a gate is its EXECUTION_SUSPENDED ----------------------------
    scenario("kernel.replay/diverged-at-gate", "kernel.replay-compare",
             "On resume the body executes a step where the journal holds a gate: the "
             "divergence's expected is the gate, seq the EXECUTION_SUSPENDED that records it "
             "(a command's first event), command suspend, its id.",
             body=[when("a", [{"op": "suspend", "gate": "g"}], [ex("b", 1, stepId="s")]),
                   {"op": "suspend", "gate": "go"}],
             effects=EFFECTS,
             actions=[{"do": "start"}, {"do": "resume", "gate": "g", "payload": 1}],
             claims=[{"result": {"status": "suspended", "waitingOn": "g"}},
                     {"raised": "kernel.nondeterminism", "calls": [],
                      "events": ["RESUME_RECEIVED", "EXECUTION_RESUMED", "EXECUTION_FAILED"]}]),
    # -- O2: the journaled workflow is looked up before anything is appended --------------
    scenario("kernel.recover/journaled-workflow-unknown", "kernel.journaled-workflow",
             "A journal whose EXECUTION_STARTED names a workflow nobody registered: a call "
             "that reports without driving (recover of an in-doubt execution) answers as "
             "usual; one that must drive (resolve, replay) raises kernel.unknown-workflow "
             "before it appends anything.",
             body=[ex("a", 1)], effects={"a": {"script": [{"return": 1}]}},
             actions=[{"do": "start"}, {"do": "tear", "line": 1, "whole": True},
                      {"do": "appendBytes", "text": IN_DOUBT_GONE}, {"do": "recover"},
                      {"do": "resolve", "step": "a#1", "output": 5}, {"do": "replay"}],
             claims=[{"result": done(None)}, {"done": True}, {"done": True},
                     {"result": {"status": "in-doubt", "inDoubtStep": "a#1"}, "events": []},
                     {"raised": "kernel.unknown-workflow", "events": []},
                     {"raised": "kernel.unknown-workflow", "events": []}]),
    scenario("kernel.recover/journaled-workflow-unknown-running", "kernel.journaled-workflow",
             "The recover of a running execution whose journaled workflow nobody registered "
             "raises kernel.unknown-workflow and writes nothing.",
             body=[ex("a", 1)], effects={"a": {"script": [{"return": 1}]}},
             actions=[{"do": "start"}, {"do": "tear", "line": 1, "whole": True},
                      {"do": "appendBytes", "text": RUNNING_GONE}, {"do": "recover"}],
             claims=[{"result": done(None)}, {"done": True}, {"done": True},
                     {"raised": "kernel.unknown-workflow", "events": []}]),
    # -- O3: a second writer truncates a torn tail and says so ----------------------------
    scenario("kernel.report/hold-writer-torn-tail", "kernel.journal-open",
             "holdWriter opens the journal as any writer does: a torn tail is truncated and "
             "warned about (journal.torn-tail) by that action, never silently; the next "
             "call finds none.",
             body=[{"op": "suspend", "gate": "go"}],
             actions=[{"do": "start"}, {"do": "appendBytes", "text": TORN},
                      {"do": "holdWriter"}, {"do": "releaseWriter"}, {"do": "recover"}],
             claims=[{"result": {"status": "suspended", "waitingOn": "go"}}, {"done": True},
                     {"done": True, "warnings": ["journal.torn-tail"]}, {"done": True},
                     {"result": {"status": "suspended", "waitingOn": "go"}}]),
    # -- O4: an event past the nesting limit is refused, raised into the body ------------
    scenario("kernel.steps/stream-past-nesting-limit", "kernel.unwritable-event",
             "A stream append whose line would nest deeper than the nesting limit is refused "
             "by the writer (journal.bad-payload), raised into the body, and nothing is "
             "journaled for it; the body may catch it. Having no record, it is a hole for "
             "later drives: refused again before it is compared, on resume where the journal "
             "holds the gate, and on a read-only replay of the finished history.",
             body=[*_build_deep("deep", 130),
                   {"op": "try", "body": [{"op": "stream", "data": var("deep")}],
                    "catch": {"as": "e", "body": []}},
                   {"op": "suspend", "gate": "go"}, ret(var("e"))],
             actions=[{"do": "start"}, {"do": "resume", "gate": "go"}, {"do": "replay"}],
             claims=[{"result": {"status": "suspended", "waitingOn": "go"},
                      "events": ["EXECUTION_STARTED", "EXECUTION_SUSPENDED"]},
                     {"result": done({"code": "journal.bad-payload"}),
                      "events": ["RESUME_RECEIVED", "EXECUTION_RESUMED", "EXECUTION_COMPLETED"]},
                     {"result": done({"code": "journal.bad-payload"}), "events": []}]),
    scenario("kernel.decide/choice-past-nesting-limit", "kernel.unwritable-event",
             "A decision whose record would nest past the limit (its context, built by the "
             "body) is refused into the body after its decider ran; on resume the decision "
             "has no record, its decider runs again and the same refusal keeps the history "
             "consistent.",
             body=[*_build_deep("deep", 130),
                   {"op": "try", "body": [{"op": "decide", "id": "d", "context": var("deep")}],
                    "catch": {"as": "e", "body": []}},
                   {"op": "suspend", "gate": "go"}, ret(var("e"))],
             deciders={"d": {"script": [{"return": "yes"}]}},
             exclude={m: "the refused decision leaves a hole that every replay re-runs, "
                         "calling the decider (kernel.decider-throws, kernel.unwritable-event)"
                      for m in ("replay", "always-replay")},
             actions=[{"do": "start"}, {"do": "resume", "gate": "go"}],
             claims=[{"result": {"status": "suspended", "waitingOn": "go"}, "deciders": ["d"],
                      "events": ["EXECUTION_STARTED", "EXECUTION_SUSPENDED"]},
                     {"result": done({"code": "journal.bad-payload"}), "deciders": ["d"],
                      "events": ["RESUME_RECEIVED", "EXECUTION_RESUMED",
                                 "EXECUTION_COMPLETED"]}]),
    # -- O1: the workflow is built before the action's own checks -------------------------
    scenario("kernel.gates/bad-workflow-schema-first", "kernel.resume-schema",
             "A workflow outside the subset is refused before anything else of the action: "
             "a resolve that names none of output, error, retry on an execution with no "
             "journal raises argument.schema, not argument.invalid or journal.not-found.",
             body=[{"op": "suspend", "gate": "g"}], schemas={"g": {"format": "email"}},
             actions=[{"do": "resolve", "step": "a#1"}],
             claims=[{"raised": "argument.schema", "events": []}], journal=None),
    # -- A2: recover of a parked execution does not drive; F8/F7: a resume's two events ----
    scenario("kernel.recover/parked-not-driven", "kernel.recover-reports",
             "recover of a suspended execution with no resume pending reports it from the "
             "fold without driving the body: a body that would now diverge is not run, "
             "nothing is compared or written.",
             body=[when("a", [{"op": "suspend", "gate": "go"}], [ex("b", 1)])],
             effects=EFFECTS, actions=[{"do": "start"}, {"do": "recover"}],
             claims=[{"result": {"status": "suspended", "waitingOn": "go"}},
                     {"result": {"status": "suspended", "waitingOn": "go"}, "calls": [],
                      "events": []}]),
    scenario("kernel.gates/resume-events", "kernel.resume-events",
             "A resume given no payload journals RESUME_RECEIVED with payload null, then "
             "EXECUTION_RESUMED, both before the drive, which then serves the gate.",
             body=[{"op": "suspend", "gate": "go", "as": "p"}, ret(var("p"))],
             actions=[{"do": "start"}, {"do": "resume", "gate": "go"}],
             claims=[{"result": {"status": "suspended", "waitingOn": "go"}},
                     {"result": done(None),
                      "events": ["RESUME_RECEIVED", "EXECUTION_RESUMED",
                                 "EXECUTION_COMPLETED"]}]),
]
