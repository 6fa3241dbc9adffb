"""Definitions of the kernel scenarios that settle what the third (fresh) blind reading of the
kernel chapter found open (spec/blind/kernel.md, "Fresh blind reading"): a journal whose first
event is not EXECUTION_STARTED (P22), the host's refusal of a transient call on a read-only
replay (P31), the second writer's lock (P5), a gate refused for its id and its schema (P8), a
step with two outcomes (P12), a dangling step that is not the last command (P13), a decision
recorded under another id (P14), a refused workflow and `start`'s `workflow` (P32), a retried
in-doubt step whose tool is gone (P34) and the input of a re-invoked in-doubt step (F6)."""

from __future__ import annotations

from typing import Any

from loom_ref.journal.codec import encode_line

from .defs_kernel_steps import done, ex, failed, ret, var
from .gen_cases import scenario

ECHO = {"script": [{"echo": True}]}
SUSPENDED = {"status": "suspended", "waitingOn": "go"}
STARTED = ("EXECUTION_STARTED", {"executionId": "e1", "workflow": "w", "input": None})


def _step(step: str, tool: str, input: Any = 1) -> tuple[str, dict[str, Any]]:
    return ("STEP_STARTED", {"stepId": step, "toolId": tool, "input": input,
                             "idempotencyKey": f"e1/{step}"})


def _lines(*events: tuple[str, dict[str, Any]]) -> str:
    """Journal lines after the header, written by the reference's encoder (seq from 1)."""
    return "\n" + "".join(encode_line(i, kind, p).decode()
                          for i, (kind, p) in enumerate(events, 1))


def _rewrite(*events: tuple[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Actions that leave the journal holding its header and then ``events`` (the first
    ``start`` must have written the header): the header's newline and everything after it
    are cut, then the lines are appended."""
    return [{"do": "tear", "line": 1, "whole": True},
            {"do": "appendBytes", "text": _lines(*events)}]


def _catch(body: list[Any], name: str) -> dict[str, Any]:
    return {"op": "try", "body": body, "catch": {"as": name, "body": []}}


def _catch_return(body: list[Any]) -> dict[str, Any]:
    return {"op": "try", "body": body, "catch": {"as": "e", "body": [ret(var("e"))]}}


ILLEGAL = {"raised": "journal.illegal-transition", "events": [], "calls": []}

DEFINITIONS: list[dict[str, Any]] = [
    # -- P22: the fold comes first, for replay too (kernel.journal-checked) ----------------
    scenario("kernel.replay/first-event-not-started", "kernel.journal-checked",
             "A journal whose first event is a STEP_STARTED breaks the transition table: "
             "recover, resume, resolve and a read-only replay each refuse it with "
             "journal.illegal-transition (the fold comes before anything else), not "
             "kernel.not-started, which is for a journal that holds no event at all.",
             body=[ex("a", 1)], effects={"a": ECHO},
             actions=[{"do": "start", "crash": {"afterEvent": 1, "torn": True}},
                      *_rewrite(_step("a#1", "a")), {"do": "recover"},
                      {"do": "resume", "gate": "go"},
                      {"do": "resolve", "step": "a#1", "output": 1}, {"do": "replay"}],
             claims=[{"crashed": True}, {"done": True}, {"done": True},
                     ILLEGAL, ILLEGAL, ILLEGAL, ILLEGAL]),
    # -- P31: a read-only replay's effects refuse every call, registered or not -----------
    scenario("kernel.decide/replay-hole-unregistered-transient", "kernel.replay-readonly",
             "A decider's transient call to a tool nobody registered is refused by the host "
             "(effect.unknown-tool, untraced) on a live drive; on a read-only replay the "
             "replay's own effects take every call, whatever the tool: the call is traced, "
             "then refused with conformance.called-on-replay.",
             body=[_catch([{"op": "decide", "id": "d"}], "e"), {"op": "suspend", "gate": "go"}],
             deciders={"d": {"script": [{"invokeTransient": {"tool": "t"}}]}},
             actions=[{"do": "start"}, {"do": "replay"}],
             claims=[{"result": SUSPENDED, "deciders": ["d"], "transients": []},
                     {"result": SUSPENDED, "deciders": ["d"], "transients": ["t"],
                      "events": []}]),
    # -- P5: the second writer ------------------------------------------------------------
    scenario("kernel.report/hold-writer-twice", "kernel.journal-open",
             "releaseWriter with no second writer held does nothing; holdWriter while the "
             "second writer holds the journal opens a writer as every writer does and is "
             "refused (journal.locked); after releaseWriter the journal opens again.",
             body=[{"op": "suspend", "gate": "go"}],
             actions=[{"do": "start"}, {"do": "releaseWriter"}, {"do": "holdWriter"},
                      {"do": "holdWriter"}, {"do": "releaseWriter"}, {"do": "releaseWriter"},
                      {"do": "recover"}],
             claims=[{"result": SUSPENDED}, {"done": True}, {"done": True},
                     {"raised": "journal.locked"}, {"done": True}, {"done": True},
                     {"result": SUSPENDED, "events": []}]),
    # -- P8: a gate's id is checked before its schema -------------------------------------
    scenario("kernel.gates/empty-id-bad-schema", "kernel.ids",
             "A suspend built with an empty gate id and a schema outside the subset is refused "
             "with argument.id: the id is checked before the schema.",
             body=[_catch_return([{"op": "suspend", "gate": "",
                                   "resumeSchema": {"format": "email"}}])],
             actions=[{"do": "start"}],
             claims=[{"result": done({"code": "argument.id"}),
                      "events": ["EXECUTION_STARTED", "EXECUTION_COMPLETED"]}]),
    # -- P12: the latest of two outcomes is served ----------------------------------------
    scenario("kernel.replay/two-outcomes-latest", "kernel.latest-outcome",
             "A step whose STEP_STARTED is followed by two outcomes (the transition table "
             "allows an outcome after an outcome) is served the latest: recover and a "
             "read-only replay return the second output and call nothing.",
             body=[ex("a", 1, **{"as": "r"}), ret(var("r"))], effects={"a": ECHO},
             actions=[{"do": "start", "crash": {"afterEvent": 1, "torn": True}},
                      *_rewrite(STARTED, _step("a#1", "a"),
                                ("STEP_COMPLETED", {"stepId": "a#1", "output": "first"}),
                                ("STEP_COMPLETED", {"stepId": "a#1", "output": "second"})),
                      {"do": "replay"}, {"do": "recover"}],
             claims=[{"crashed": True}, {"done": True}, {"done": True},
                     {"result": {"status": "running"}, "calls": [], "events": []},
                     {"result": done("second"), "calls": [],
                      "events": ["EXECUTION_COMPLETED"]}]),
    # -- P13: a dangling step anywhere in the journal is in doubt -------------------------
    scenario("kernel.in-doubt/dangling-not-last", "kernel.in-doubt",
             "A STEP_STARTED with no outcome that is not the journal's last command (another "
             "step started and completed after it) is in doubt all the same: recover appends "
             "STEP_IN_DOUBT for it, warns, calls nothing and parks.",
             body=[ex("a", 1), ex("b", 2), ret("end")], effects={"a": ECHO, "b": ECHO},
             actions=[{"do": "start", "crash": {"afterEvent": 1, "torn": True}},
                      *_rewrite(STARTED, _step("a#1", "a"), _step("b#1", "b", 2),
                                ("STEP_COMPLETED", {"stepId": "b#1", "output": 2})),
                      {"do": "recover"}],
             claims=[{"crashed": True}, {"done": True}, {"done": True},
                     {"result": {"status": "in-doubt", "inDoubtStep": "a#1"}, "calls": [],
                      "events": ["STEP_IN_DOUBT"], "warnings": ["kernel.in-doubt"]}]),
    # -- P14: a decision recorded under another id is a hole: the decider runs first -------
    scenario("kernel.decide/other-id-runs-decider", "kernel.replay-compare",
             "A decide that meets a DECISION_RECORDED with another id meets a decision with "
             "no record: its decider runs (traced) before anything is compared, and then the "
             "drive diverges (kernel.nondeterminism).",
             body=[{"op": "decide", "id": "d", "as": "c"}, ret(var("c"))],
             deciders={"d": {"script": [{"return": "yes"}]}},
             actions=[{"do": "start", "crash": {"afterEvent": 1, "torn": True}},
                      *_rewrite(STARTED, ("DECISION_RECORDED",
                                          {"decisionId": "x", "choice": "no"})),
                      {"do": "replay"}, {"do": "recover"}],
             claims=[{"crashed": True, "deciders": []}, {"done": True}, {"done": True},
                     {"raised": "kernel.nondeterminism", "deciders": ["d"], "events": []},
                     {"raised": "kernel.nondeterminism", "deciders": ["d"],
                      "events": ["EXECUTION_FAILED"]}]),
    # -- P32: the case's workflow is built by start whatever start names ------------------
    scenario("kernel.gates/bad-workflow-schema-start-other", "kernel.schema-subset",
             "start naming another workflow (its workflow member) still builds the case's "
             "workflow first: a resumeSchemas entry outside the subset is refused with "
             "argument.schema, and nothing is written.",
             body=[{"op": "suspend", "gate": "go"}], schemas={"go": {"format": "email"}},
             actions=[{"do": "start", "workflow": "other"}],
             claims=[{"raised": "argument.schema", "events": []}], journal=None),
    # -- P34: a retried in-doubt step whose tool is gone ----------------------------------
    scenario("kernel.in-doubt/retry-unknown-tool", "kernel.resolve",
             "Retrying an in-doubt step whose tool nobody registers now: the host refuses the "
             "call before any effect runs, so the step fails with effect.unknown-tool "
             "(STEP_FAILED, no second STEP_STARTED), which the body does not catch.",
             body=[ex("gone", 1), ret("end")],
             actions=[{"do": "start"}, *_rewrite(STARTED, _step("gone#1", "gone"),
                                                 ("STEP_IN_DOUBT", {"stepId": "gone#1"})),
                      {"do": "resolve", "step": "gone#1", "retry": True}],
             claims=[{"result": failed("effect.unknown-tool")}, {"done": True}, {"done": True},
                     {"result": failed("effect.unknown-tool"), "calls": [],
                      "events": ["STEP_FAILED", "EXECUTION_FAILED"]}]),
    # -- F6: an idempotent in-doubt step is re-invoked with its journaled input ------------
    scenario("kernel.in-doubt/reinvoked-journaled-input", "kernel.in-doubt",
             "A crash after STEP_STARTED of an idempotent effect whose input the body computes "
             "differently on the next drive ($drift): recovery invokes it again with the input "
             "its STEP_STARTED journaled, not the one the body computes now.",
             body=[ex("a", {"$drift": {"name": "n", "values": ["journaled", "now"]}},
                      **{"as": "r"}), ret(var("r"))],
             effects={"a": {"idempotent": True, "script": [{"echo": True}]}},
             actions=[{"do": "start", "crash": {"afterEvent": 2}}, {"do": "recover"}],
             claims=[{"crashed": True, "calls": []},
                     {"result": done("journaled"), "calls": ["a#1"],
                      "events": ["STEP_COMPLETED", "EXECUTION_COMPLETED"]}]),
]
