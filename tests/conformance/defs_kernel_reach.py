"""Definitions of the kernel scenarios that reach what the suite did not (issue 30: reach by
coverage): a step's input and a body's output past the nesting limit, a read-only replay whose
body ends before its history, a read-only replay of a history the transition table allows
but the command index refuses, a step already marked in doubt met again, and a workflow whose
``resumeSchemas`` names no gate id."""

from __future__ import annotations

from typing import Any

from loom_ref.journal.codec import encode_line

from .defs_kernel_blind2 import _build_deep
from .defs_kernel_replay import when
from .defs_kernel_steps import done, ex, ret, var
from .gen_cases import scenario

ECHO = {"script": [{"echo": True}]}
BAD_PAYLOAD = {"code": "journal.bad-payload"}


def _lines(*events: tuple[str, dict[str, Any]]) -> str:
    return "".join(encode_line(i, kind, p).decode() for i, (kind, p) in enumerate(events, 1))


STARTED = ("EXECUTION_STARTED", {"executionId": "e1", "workflow": "w", "input": None})


def _step(step_id: str, tool: str) -> tuple[str, dict[str, Any]]:
    return ("STEP_STARTED", {"stepId": step_id, "toolId": tool, "input": 1,
                             "idempotencyKey": "e1/" + step_id})


#: Replace the journal a start wrote with ``events`` (the header kept): INTERPRETING.md
#: section 6's byte edits, as kernel.recover/journaled-workflow-unknown does.
def _journal(*events: tuple[str, dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"do": "start"}, {"do": "tear", "line": 1, "whole": True},
            {"do": "appendBytes", "text": "\n" + _lines(*events)}]


EDITED = [{"result": done(None)}, {"done": True}, {"done": True}]

DEFINITIONS: list[dict[str, Any]] = [
    # -- kernel.unwritable-event: a step's input, a body's output --------------------------
    scenario("kernel.steps/input-past-nesting-limit", "kernel.unwritable-event",
             "A step whose STEP_STARTED would nest deeper than the nesting limit (its input, "
             "built by the body) is refused by the writer (journal.bad-payload), raised into "
             "the body, and nothing is journaled or called for it; a later drive meets it as "
             "a hole and refuses it again before it compares, on resume and on a read-only "
             "replay.",
             body=[*_build_deep("deep", 130),
                   {"op": "try", "body": [ex("a", var("deep"))],
                    "catch": {"as": "e", "body": []}},
                   {"op": "suspend", "gate": "go"}, ret(var("e"))],
             effects={"a": ECHO},
             actions=[{"do": "start"}, {"do": "resume", "gate": "go"}, {"do": "replay"}],
             claims=[{"result": {"status": "suspended", "waitingOn": "go"}, "calls": [],
                      "events": ["EXECUTION_STARTED", "EXECUTION_SUSPENDED"]},
                     {"result": done(BAD_PAYLOAD), "calls": [],
                      "events": ["RESUME_RECEIVED", "EXECUTION_RESUMED", "EXECUTION_COMPLETED"]},
                     {"result": done(BAD_PAYLOAD), "calls": [], "events": []}]),
    scenario("kernel.steps/output-past-nesting-limit", "kernel.unwritable-event",
             "A body that returns a value whose EXECUTION_COMPLETED would nest deeper than the "
             "nesting limit fails the execution with journal.bad-payload (EXECUTION_FAILED); "
             "nothing else is written. A read-only replay of that history meets the same "
             "refusal and reports the same failure, not a divergence.",
             body=[*_build_deep("deep", 130), ret(var("deep"))],
             actions=[{"do": "start"}, {"do": "recover"}, {"do": "replay"}],
             claims=[{"result": {"status": "failed", "error": BAD_PAYLOAD},
                      "events": ["EXECUTION_STARTED", "EXECUTION_FAILED"]},
                     {"result": {"status": "failed", "error": BAD_PAYLOAD}, "events": []},
                     {"result": {"status": "failed", "error": BAD_PAYLOAD}, "events": []}]),
    # -- kernel.replay-compare: a read-only replay whose body ends first -------------------
    scenario("kernel.replay/readonly-body-ends-early", "kernel.replay-compare",
             "A read-only replay whose body now returns where the journal still holds a step "
             "has diverged (kernel.nondeterminism, actual command return), and writes "
             "nothing: the history is not failed by a replay.",
             body=[when("a", [ex("a", 1)], []), ret("done")], effects={"a": ECHO},
             actions=[{"do": "start"}, {"do": "replay"}, {"do": "recover"}],
             claims=[{"result": done("done"), "calls": ["a#1"]},
                     {"raised": "kernel.nondeterminism", "calls": [], "events": []},
                     {"result": done("done"), "events": []}]),
    # -- kernel.journal-checked: a read-only replay indexes what the table allows ----------
    scenario("kernel.replay/readonly-outcome-of-unknown-step", "kernel.journal-checked",
             "A read-only replay of a running execution whose journal holds an outcome for a "
             "step that never started (a history the status table alone allows) is refused "
             "with journal.illegal-transition before the body runs, as recover refuses it.",
             body=[ex("a", 1)], effects={"a": ECHO},
             actions=[*_journal(STARTED, ("STEP_COMPLETED", {"stepId": "zzz", "output": 1})),
                      {"do": "replay"}, {"do": "recover"}],
             claims=[*EDITED, {"raised": "journal.illegal-transition", "calls": []},
                     {"raised": "journal.illegal-transition", "calls": [], "events": []}]),
    scenario("kernel.replay/readonly-resume-of-other-gate", "kernel.journal-checked",
             "A read-only replay of an execution suspended on one gate whose journal then "
             "holds a RESUME_RECEIVED for another gate is refused with "
             "journal.illegal-transition, as recover refuses it.",
             body=[{"op": "suspend", "gate": "go"}],
             actions=[*_journal(STARTED,
                                ("EXECUTION_SUSPENDED", {"gateId": "go", "on": None,
                                                         "correlationKey": None}),
                                ("RESUME_RECEIVED", {"gateId": "other", "payload": None})),
                      {"do": "replay"}, {"do": "recover"}],
             claims=[{"result": {"status": "suspended", "waitingOn": "go"}}, *EDITED[1:],
                     {"raised": "journal.illegal-transition"},
                     {"raised": "journal.illegal-transition", "events": []}]),
    # -- kernel.in-doubt: a step already marked in doubt is not marked twice --------------
    scenario("kernel.recover/in-doubt-step-marked-before", "kernel.in-doubt",
             "A drive that meets a step whose STEP_IN_DOUBT is already journaled (the journal "
             "went on past it: another started step's outcome followed) parks the execution "
             "in doubt on that step again, appending no second STEP_IN_DOUBT and warning "
             "nothing; the effect is not called.",
             body=[ex("a", 1), ex("b", 1), ret("done")], effects={"a": ECHO, "b": ECHO},
             actions=[*_journal(STARTED, _step("a#1", "a"), _step("b#1", "b"),
                                ("STEP_IN_DOUBT", {"stepId": "a#1"}),
                                ("STEP_COMPLETED", {"stepId": "b#1", "output": 1})),
                      {"do": "recover"}],
             claims=[{"result": done("done")}, *EDITED[1:],
                     {"result": {"status": "in-doubt", "inDoubtStep": "a#1"},
                               "calls": [], "events": [], "warnings": []}]),
    # -- kernel.ids: a resumeSchemas key is a gate id ----------------------------
    scenario("kernel.gates/resume-schemas-empty-gate-id", "kernel.ids",
             "A workflow whose resumeSchemas names the empty string, which is no gate id, is "
             "refused as it is built (argument.id, as kernel.ids refuses a gate id), by every "
             "action that builds it, and nothing is written.",
             body=[{"op": "suspend", "gate": "go"}], schemas={"": {"type": "object"}},
             actions=[{"do": "start"}, {"do": "recover"}],
             claims=[{"raised": "argument.id", "events": []},
                     {"raised": "argument.id", "events": []}], journal=None),
]
