"""Definitions of the kernel scenarios that settle what a blind implementation of the kernel
chapter found open: each case pins a choice that lived only in loom-ref's code or in a case's
description (spec/blind/kernel.md lists them, point by point)."""

from __future__ import annotations

from typing import Any

from loom_ref.journal.codec import encode_line

from .defs_kernel_steps import done, ex, failed, ret, var
from .gen_cases import scenario

ECHO = {"script": [{"echo": True}]}
SUSPENDED = {"status": "suspended", "waitingOn": "go"}
STEP_THEN_GATE = [ex("a", 1), {"op": "suspend", "gate": "go", "as": "p"}, ret(var("p"))]
TORN = '{"seq"'  # six bytes and no newline: a torn tail
RESUME_LINE = encode_line(3, "RESUME_RECEIVED", {"gateId": "go", "payload": "yes"}).decode()
DRIFT_TOOL = [{"op": "if", "cond": {"$eq": [{"$drift": {"name": "env", "values": ["a", "b"]}},
                                            "a"]},
               "then": [ex("a", 1, stepId="s")], "else": [ex("b", 1, stepId="s")]},
              {"op": "suspend", "gate": "go"}]


def _catch(body: list[Any], name: str) -> dict[str, Any]:
    return {"op": "try", "body": body, "catch": {"as": name, "body": []}}


DEFINITIONS: list[dict[str, Any]] = [
    # -- identity ------------------------------------------------------------------------
    scenario("kernel.identity/stream-tool-collides", "kernel.derived-counters",
             "The derived-id counters of execute and stream are separate: a tool named stream "
             "derives stream#1, and the first ctx.stream then derives stream#1 too, a "
             "duplicate id raised into the body.",
             body=[ex("stream", 1), {"op": "try", "body": [{"op": "stream", "data": 2}],
                                     "catch": {"as": "e", "body": [ret(var("e"))]}}],
             effects={"stream": ECHO}, actions=[{"do": "start"}],
             claims=[{"result": done({"code": "kernel.duplicate-id"}), "calls": ["stream#1"],
                      "events": ["EXECUTION_STARTED", "STEP_STARTED", "STEP_COMPLETED",
                                 "EXECUTION_COMPLETED"]}]),
    scenario("kernel.identity/counter-advances-on-duplicate", "kernel.derived-counters",
             "A derived id counts even when its command is refused: after an explicit a#1, "
             "the first derived step of a is a#1 (a duplicate, caught), the next a#2.",
             body=[ex("a", 1, stepId="a#1"), _catch([ex("a", 2)], "e"), ex("a", 3)],
             effects={"a": ECHO}, actions=[{"do": "start"}],
             claims=[{"result": done(None), "calls": ["a#1", "a#2"]}]),
    scenario("kernel.identity/failed-decision-id-used", "kernel.duplicate-id",
             "An id is used once its command is yielded, whatever becomes of it: a decision "
             "whose decider threw cannot be tried again under the same id (kernel.duplicate-id, "
             "and the decider does not run again).",
             body=[_catch([{"op": "decide", "id": "d"}], "first"),
                   {"op": "try", "body": [{"op": "decide", "id": "d", "as": "x"}],
                    "catch": {"as": "e", "body": [ret(var("e"))]}},
                   ret(var("x"))],
             deciders={"d": {"script": [{"raise": {"code": "x.down", "message": "down"}},
                                        {"return": "ok"}]}},
             actions=[{"do": "start"}],
             claims=[{"result": done({"code": "kernel.duplicate-id"}), "deciders": ["d"],
                      "events": ["EXECUTION_STARTED", "EXECUTION_COMPLETED"]}]),
    # -- decisions -----------------------------------------------------------------------
    scenario("kernel.decide/choice-without-propensity", "kernel.decision-record",
             "A decider that gives a policy but no propensity journals propensity null; a "
             "context or alternatives given as null are not journaled.",
             body=[{"op": "decide", "id": "d", "as": "c", "context": None,
                    "alternatives": None}, ret(var("c"))],
             deciders={"d": {"script": [{"choice": "left", "policy": "greedy"}]}},
             actions=[{"do": "start"}],
             claims=[{"result": done("left"), "deciders": ["d"]}],
             journal=["EXECUTION_STARTED",
                      {"kind": "DECISION_RECORDED",
                       "payload": {"decisionId": "d", "choice": "left",
                                   "policy": {"id": "greedy", "propensity": None}}},
                      "EXECUTION_COMPLETED"]),
    scenario("kernel.decide/uncoded-transient-failure-caught", "kernel.decider-errors",
             "An error without a code out of a decider's transient call reaches the body "
             "unchanged: caught, its code is null; nothing is recorded.",
             body=[{"op": "try", "body": [{"op": "decide", "id": "d"}],
                    "catch": {"as": "e", "body": [ret(var("e"))]}}],
             effects={"t": {"script": [{"raise": {"message": "boom"}}]}},
             deciders={"d": {"script": [{"invokeTransient": {"tool": "t"}}]}},
             actions=[{"do": "start"}],
             claims=[{"result": done({"code": None}), "deciders": ["d"], "transients": ["t"],
                      "events": ["EXECUTION_STARTED", "EXECUTION_COMPLETED"]}]),
    scenario("kernel.decide/uncoded-transient-failure-uncaught", "kernel.decider-errors",
             "Uncaught, that error without a code fails the execution with kernel.body-error.",
             body=[{"op": "decide", "id": "d"}],
             effects={"t": {"script": [{"raise": {"message": "boom"}}]}},
             deciders={"d": {"script": [{"invokeTransient": {"tool": "t"}}]}},
             actions=[{"do": "start"}],
             claims=[{"result": failed("kernel.body-error"), "transients": ["t"],
                      "events": ["EXECUTION_STARTED", "EXECUTION_FAILED"]}]),
    scenario("kernel.decide/replay-hole-transient", "kernel.replay-readonly",
             "A read-only replay meets the hole a throwing decider left and runs the decider "
             "again; its transient call reaches the replay's effects, which trace it and "
             "refuse it, so the decider throws again and the history stays consistent.",
             body=[_catch([{"op": "decide", "id": "d"}], "e"), {"op": "suspend", "gate": "go"}],
             effects={"t": {"script": [{"raise": {"code": "x.t", "message": "down"}}]}},
             deciders={"d": {"script": [{"invokeTransient": {"tool": "t"}}]}},
             actions=[{"do": "start"}, {"do": "replay"}],
             claims=[{"result": SUSPENDED, "deciders": ["d"], "transients": ["t"]},
                     {"result": SUSPENDED, "deciders": ["d"], "transients": ["t"],
                      "events": []}]),
    # -- replay ----------------------------------------------------------------------------
    scenario("kernel.replay/diverged-later-calls", "kernel.failure-reporting",
             "After a divergence is journaled: a read-only replay drives the body again and "
             "raises the divergence again; resume, start and resolve refuse by their own rules; "
             "recover returns the failed result.",
             body=DRIFT_TOOL, effects={"a": ECHO, "b": ECHO},
             actions=[{"do": "start"}, {"do": "resume", "gate": "go"}, {"do": "replay"},
                      {"do": "resume", "gate": "go"}, {"do": "start"}, {"do": "recover"},
                      {"do": "resolve", "step": "s", "retry": True}],
             claims=[{"result": SUSPENDED, "calls": ["s"]},
                     {"raised": "kernel.nondeterminism", "calls": [],
                      "events": ["RESUME_RECEIVED", "EXECUTION_RESUMED", "EXECUTION_FAILED"]},
                     {"raised": "kernel.nondeterminism", "events": [], "calls": []},
                     {"raised": "kernel.gate-not-waiting", "events": []},
                     {"raised": "kernel.execution-exists", "events": []},
                     {"result": failed("kernel.nondeterminism"), "events": [], "calls": []},
                     {"raised": "kernel.not-in-doubt", "events": []}]),
    scenario("kernel.replay/readonly-pending-resume", "kernel.replay-readonly",
             "A read-only replay serves a gate whose payload is journaled even though no "
             "EXECUTION_RESUMED follows (a crash in between), drives on, and reports running "
             "where the journal ends; recover then journals the resume and completes.",
             body=STEP_THEN_GATE, effects={"a": ECHO}, observe=["served", "ran"],
             actions=[{"do": "start"},
                      {"do": "resume", "gate": "go", "payload": 1, "crash": {"afterEvent": 1}},
                      {"do": "replay"}, {"do": "recover"}],
             claims=[{"result": {**SUSPENDED, "served": [], "ran": ["a#1", "go"]}},
                     {"crashed": True, "events": ["RESUME_RECEIVED"]},
                     {"result": {"status": "running", "served": ["a#1", "go"], "ran": []},
                      "events": [], "calls": []},
                     {"result": {"status": "completed", "output": 1, "served": ["a#1", "go"],
                                 "ran": []},
                      "events": ["EXECUTION_RESUMED", "EXECUTION_COMPLETED"]}]),
    scenario("kernel.replay/readonly-boolean-not-one", "kernel.replay-end",
             "A read-only replay compares the body's output with the journaled one as JSON: "
             "true where the history completed with 1 is another output, a divergence.",
             body=[ret({"$drift": {"name": "out", "values": [1, True]}})],
             actions=[{"do": "start"}, {"do": "replay"}],
             claims=[{"result": done(1)}, {"raised": "kernel.nondeterminism", "events": []}]),
    scenario("kernel.replay/readonly-same-code-other-message", "kernel.replay-end",
             "A read-only replay of a failed history compares the error's message too: the "
             "same code with another message is a divergence.",
             body=[{"op": "if",
                    "cond": {"$eq": [{"$drift": {"name": "m", "values": ["a", "b"]}}, "a"]},
                    "then": [{"op": "raise", "code": "x.bad", "message": "first"}],
                    "else": [{"op": "raise", "code": "x.bad", "message": "second"}]}],
             actions=[{"do": "start"}, {"do": "replay"}, {"do": "replay"}],
             claims=[{"result": failed("x.bad")}, {"raised": "kernel.nondeterminism"},
                     {"raised": "kernel.nondeterminism"}]),
    # -- the journal a call reads ----------------------------------------------------------
    scenario("kernel.start/no-journal", "kernel.missing-execution",
             "Every call on an execution id with no journal but start raises the store's "
             "journal.not-found and creates nothing; start then creates it.",
             body=[ret(1)],
             actions=[{"do": "recover"}, {"do": "resume", "gate": "g"},
                      {"do": "resolve", "step": "s", "retry": True}, {"do": "replay"},
                      {"do": "start"}],
             claims=[{"raised": "journal.not-found"}, {"raised": "journal.not-found"},
                     {"raised": "journal.not-found"}, {"raised": "journal.not-found"},
                     {"result": done(1)}],
             journal=["EXECUTION_STARTED", "EXECUTION_COMPLETED"]),
    scenario("kernel.start/raw-actions-need-a-journal", "kernel.missing-execution",
             "The byte edits and a second writer work on a journal that exists: on an "
             "execution id with none they raise journal.not-found and create nothing.",
             body=[ret(1)],
             actions=[{"do": "holdWriter"}, {"do": "appendBytes", "text": TORN},
                      {"do": "tear", "line": 1}, {"do": "corrupt", "line": 1},
                      {"do": "start"}],
             claims=[{"raised": "journal.not-found"}, {"raised": "journal.not-found"},
                     {"raised": "journal.not-found"}, {"raised": "journal.not-found"},
                     {"result": done(1)}],
             journal=["EXECUTION_STARTED", "EXECUTION_COMPLETED"]),
    scenario("kernel.start/header-only", "kernel.missing-execution",
             "A journal left with its header and a torn first event is no started execution: "
             "recover and replay raise kernel.not-started, resume kernel.gate-not-waiting, "
             "resolve kernel.not-in-doubt (the first of them warns about the torn tail and "
             "truncates it); start then starts it afresh.",
             body=[ret(1)],
             actions=[{"do": "start"}, {"do": "tear", "line": 2}, {"do": "recover"},
                      {"do": "replay"}, {"do": "resume", "gate": "g"},
                      {"do": "resolve", "step": "s", "retry": True}, {"do": "start"}],
             claims=[{"result": done(1)}, {"done": True},
                     {"raised": "kernel.not-started", "warnings": ["journal.torn-tail"]},
                     {"raised": "kernel.not-started"}, {"raised": "kernel.gate-not-waiting"},
                     {"raised": "kernel.not-in-doubt"},
                     {"result": done(1), "events": ["EXECUTION_STARTED",
                                                    "EXECUTION_COMPLETED"]}],
             journal=["EXECUTION_STARTED", "EXECUTION_COMPLETED"]),
    scenario("kernel.start/torn-header-observed", "journal.torn-tail",
             "A journal whose header is torn exists but holds no complete line: the final "
             "journal observation is no events and a torn tail, not null.",
             body=[ret(1)], actions=[{"do": "start"}, {"do": "tear", "line": 1}],
             claims=[{"result": done(1)}, {"done": True}], journal=[]),
    scenario("kernel.start/refusal-order", "kernel.start",
             "start refuses an unknown workflow before it touches the journal, then a "
             "journal another writer holds (journal.locked) or a corrupt one "
             "(journal.corrupt), and only then an execution that exists; a read-only replay "
             "takes no lock.",
             body=[ret(1)],
             actions=[{"do": "start"}, {"do": "holdWriter"}, {"do": "start"},
                      {"do": "start", "workflow": "nobody"}, {"do": "replay"},
                      {"do": "recover"}, {"do": "releaseWriter"}, {"do": "corrupt", "line": 2},
                      {"do": "start"}, {"do": "start", "workflow": "nobody"}],
             claims=[{"result": done(1)}, {"done": True}, {"raised": "journal.locked"},
                     {"raised": "kernel.unknown-workflow"}, {"result": done(1)},
                     {"raised": "journal.locked"}, {"done": True}, {"done": True},
                     {"raised": "journal.corrupt"}, {"raised": "kernel.unknown-workflow"}],
             journal={"error": "journal.corrupt"}),
    scenario("kernel.recover/illegal-transition-refused", "kernel.journal-checked",
             "A journal whose lines read back but break the transition table (here an "
             "outcome for a step that never started) is refused with "
             "journal.illegal-transition by recover, resume and replay, and nothing is "
             "written; start refuses it as an existing execution.",
             body=STEP_THEN_GATE, effects={"a": ECHO},
             actions=[{"do": "start"},
                      {"do": "appendBytes", "text": encode_line(
                          5, "STEP_COMPLETED", {"stepId": "zzz", "output": 1}).decode()},
                      {"do": "recover"}, {"do": "resume", "gate": "go", "payload": 1},
                      {"do": "replay"}, {"do": "start"}],
             claims=[{"result": SUSPENDED}, {"done": True},
                     {"raised": "journal.illegal-transition", "events": []},
                     {"raised": "journal.illegal-transition", "events": []},
                     {"raised": "journal.illegal-transition"},
                     {"raised": "kernel.execution-exists"}],
             journal=["EXECUTION_STARTED", "STEP_STARTED", "STEP_COMPLETED",
                      "EXECUTION_SUSPENDED", "STEP_COMPLETED"]),
    scenario("kernel.report/torn-tail-truncated-at-open", "kernel.journal-open",
             "A writing call truncates a torn tail when it opens the journal, even when it is "
             "then refused or appends nothing: the refused start and the recover of a "
             "suspended execution each warn and leave no tail; the calls after them find none.",
             body=STEP_THEN_GATE, effects={"a": ECHO}, observe=["torn"],
             actions=[{"do": "start"}, {"do": "appendBytes", "text": TORN}, {"do": "start"},
                      {"do": "resume", "gate": "nope"}, {"do": "appendBytes", "text": TORN},
                      {"do": "recover"}, {"do": "recover"}],
             claims=[{"result": {**SUSPENDED, "torn": None}}, {"done": True},
                     {"raised": "kernel.execution-exists", "warnings": ["journal.torn-tail"]},
                     {"raised": "kernel.gate-not-waiting"}, {"done": True},
                     {"result": {**SUSPENDED, "torn": {"line": 6, "size": 6}},
                      "warnings": ["journal.torn-tail"], "events": []},
                     {"result": {**SUSPENDED, "torn": None}}],
             journal=["EXECUTION_STARTED", "STEP_STARTED", "STEP_COMPLETED",
                      "EXECUTION_SUSPENDED"]),
    scenario("kernel.report/replay-reports-torn-tail", "kernel.drive-report",
             "A read-only replay warns about a torn tail and reports it, and leaves it: a "
             "second replay finds it again; the recover after them truncates it.",
             body=STEP_THEN_GATE, effects={"a": ECHO}, observe=["torn", "served"],
             actions=[{"do": "start"}, {"do": "appendBytes", "text": TORN}, {"do": "replay"},
                      {"do": "replay"}, {"do": "recover"}, {"do": "replay"}],
             claims=[{"result": {**SUSPENDED, "torn": None, "served": []}}, {"done": True},
                     {"result": {**SUSPENDED, "torn": {"line": 6, "size": 6},
                                 "served": ["a#1"]}, "warnings": ["journal.torn-tail"]},
                     {"result": {**SUSPENDED, "torn": {"line": 6, "size": 6},
                                 "served": ["a#1"]}, "warnings": ["journal.torn-tail"]},
                     {"result": {**SUSPENDED, "torn": {"line": 6, "size": 6}, "served": []},
                      "warnings": ["journal.torn-tail"]},
                     {"result": {**SUSPENDED, "torn": None, "served": ["a#1"]}}]),
    scenario("kernel.report/tear-size", "journal.torn-tail",
             "The tear action keeps the first half of the line's bytes without its newline "
             "(rounded down): the 93-byte RESUME_RECEIVED line the case appended leaves a torn "
             "tail of 46 bytes, and the resume it held is lost.",
             body=[{"op": "suspend", "gate": "go", "as": "p"}, ret(var("p"))],
             observe=["torn"],
             actions=[{"do": "start"}, {"do": "appendBytes", "text": RESUME_LINE},
                      {"do": "tear", "line": 4}, {"do": "recover"}],
             claims=[{"result": {**SUSPENDED, "torn": None}}, {"done": True}, {"done": True},
                     {"result": {**SUSPENDED, "torn": {"line": 4, "size": 46}},
                      "warnings": ["journal.torn-tail"], "events": []}],
             journal=["EXECUTION_STARTED", "EXECUTION_SUSPENDED"]),
    # -- resolve, gates, expressions ---------------------------------------------------------
    scenario("kernel.in-doubt/resolve-needs-one-way", "kernel.resolve",
             "resolve takes exactly one of output, error and retry: none, or two, is "
             "argument.invalid, and nothing is written.",
             body=[ex("a", 1)], effects={"a": ECHO},
             actions=[{"do": "start", "crash": {"afterEvent": 2}}, {"do": "recover"},
                      {"do": "resolve", "step": "a#1"},
                      {"do": "resolve", "step": "a#1", "output": 1, "retry": True},
                      {"do": "resolve", "step": "a#1", "retry": True}],
             claims=[{"crashed": True}, {"result": {"status": "in-doubt", "inDoubtStep": "a#1"},
                                         "warnings": ["kernel.in-doubt"]},
                     {"raised": "argument.invalid", "events": []},
                     {"raised": "argument.invalid", "events": []},
                     {"result": done(None), "calls": ["a#1"]}]),
    scenario("kernel.gates/gate-defaults", "kernel.gate-record",
             "A gate without on or correlationKey journals both as null, and a gate without a "
             "schema (absent or null) journals no resumeSchema.",
             body=[{"op": "suspend", "gate": "a"},
                   {"op": "suspend", "gate": "b", "on": "Ship", "resumeSchema": None}],
             actions=[{"do": "start"}, {"do": "resume", "gate": "a"}],
             claims=[{"result": {"status": "suspended", "waitingOn": "a"}},
                     {"result": {"status": "suspended", "waitingOn": "b"}}],
             journal=["EXECUTION_STARTED",
                      {"kind": "EXECUTION_SUSPENDED",
                       "payload": {"gateId": "a", "on": None, "correlationKey": None}},
                      "RESUME_RECEIVED", "EXECUTION_RESUMED",
                      {"kind": "EXECUTION_SUSPENDED",
                       "payload": {"gateId": "b", "on": "Ship", "correlationKey": None}}]),
    scenario("kernel.steps/expression-paths", "kernel.json-roundtrip",
             "A path that names nothing is null for $input as for $get (a missing member or "
             "item, a string key on an array, a key on a string); a negative index counts "
             "from the end.",
             body=[ret([{"$input": ["x", "y"]}, {"$input": ["l", 5]}, {"$input": ["l", -1]},
                        {"$input": ["l", -3]}, {"$input": ["l", "0"]}, {"$input": ["s", 0]},
                        {"$get": [{"$input": []}, "q"]}, {"$get": [[1, 2, 3], -1]},
                        {"$get": [{"k": [{"m": 4}]}, "k", 0, "m"]}, {"$input": ["o", "0"]},
                        {"$input": ["o", 0]}])],
             actions=[{"do": "start", "input": {"l": [1, 2], "s": "str", "o": {"0": "zero"}}}],
             claims=[{"result": done([None, None, 2, None, None, None, None, 3, 4, "zero",
                                      None])}]),
]
