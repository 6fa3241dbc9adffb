"""Definitions of the kernel.report scenarios: what each call's drive served from the journal
and what it ran (``kernel.drive-report``), and the torn tail it found (``journal.torn-tail``),
observed through ``observe``."""

from __future__ import annotations

from typing import Any

from .defs_kernel_steps import ex, ret, var
from .gen_cases import scenario

ECHO = {"script": [{"echo": True}]}
BOTH = ["served", "ran"]
BODY = [ex("a", 1), {"op": "decide", "id": "d"}, {"op": "stream", "data": "x"},
        {"op": "suspend", "gate": "g", "as": "p"}, ex("b", var("p")), ret(var("p"))]
EFFECTS = {"a": ECHO, "b": ECHO}
DECIDERS = {"d": {"script": [{"return": "left"}]}}
RESUME = {"do": "resume", "gate": "g", "payload": 7}


def result(status: str, served: list[str], ran: list[str], **extra: Any) -> dict[str, Any]:
    return {"status": status, "served": served, "ran": ran, **extra}


def torn_size_open(expect: Any) -> Any:
    """Where a torn tail is and how long it is belong to the store and the implementation's
    torn write (a store log counts its own lines, a torn write keeps some prefix): open."""
    for obs in expect["actions"]:
        torn = obs.get("result", {}).get("torn")
        if isinstance(torn, dict):
            torn.update(line={"$type": "integer"}, size={"$type": "integer"})
    return expect


DEFINITIONS: list[dict[str, Any]] = [
    scenario("kernel.report/start-runs", "kernel.drive-report",
             "A first drive serves nothing and runs each command it meets, in order: the step, "
             "the decision, the stream append, the gate it parks on.",
             body=BODY, effects=EFFECTS, deciders=DECIDERS, observe=BOTH,
             actions=[{"do": "start"}],
             claims=[{"result": result("suspended", [], ["a#1", "d", "stream#1", "g"],
                                       waitingOn="g"), "calls": ["a#1"], "deciders": ["d"]}]),
    scenario("kernel.report/resume-serves", "kernel.drive-report",
             "A resume drives the body from its start: everything the journal holds is served "
             "(the step, the decision, the stream append and the resumed gate), and only the "
             "new step runs.",
             body=BODY, effects=EFFECTS, deciders=DECIDERS, observe=BOTH,
             actions=[{"do": "start"}, RESUME],
             claims=[{"result": result("suspended", [], ["a#1", "d", "stream#1", "g"],
                                       waitingOn="g")},
                     {"result": result("completed", ["a#1", "d", "stream#1", "g"], ["b#1"],
                                       output=7), "calls": ["b#1"]}]),
    scenario("kernel.report/failed-step-served", "kernel.drive-report",
             "A failed step is served too (its error raised again); a decider that throws "
             "records nothing and is not reported as run.",
             body=[{"op": "try", "body": [ex("boom", 1)], "catch": {"body": []}},
                   {"op": "try", "body": [{"op": "decide", "id": "bad"}], "catch": {"body": []}},
                   {"op": "suspend", "gate": "g"}, ret("done")],
             effects={"boom": {"script": [{"raise": {"code": "x.failed", "message": "no"}}]}},
             deciders={"bad": {"script": [{"raise": {"code": "x.bad", "message": "no"}}]}},
             observe=BOTH, actions=[{"do": "start"}, {"do": "resume", "gate": "g"}],
             claims=[{"result": result("suspended", [], ["boom#1", "g"], waitingOn="g"),
                      "deciders": ["bad"]},
                     {"result": result("completed", ["boom#1", "g"], [], output="done"),
                      "deciders": ["bad"]}]),
    scenario("kernel.report/recover-serves-the-prefix", "kernel.drive-report",
             "After a crash, recovery serves what the crashed process journaled and runs only "
             "the rest.",
             body=[ex("a", 1), ex("b", 2), ex("c", 3), ret("ok")],
             effects={"a": ECHO, "b": ECHO, "c": ECHO}, observe=BOTH,
             actions=[{"do": "start", "crash": {"afterEvent": 3}}, {"do": "recover"}],
             claims=[{"crashed": True, "calls": ["a#1"]},
                     {"result": result("completed", ["a#1"], ["b#1", "c#1"], output="ok"),
                      "calls": ["b#1", "c#1"]}]),
    scenario("kernel.report/no-drive-no-report", "kernel.drive-report",
             "A call that finds the execution finished reports it as it stands, without "
             "driving: nothing served, nothing run.",
             body=[ex("a", 1), ret("ok")], effects={"a": ECHO}, observe=BOTH,
             actions=[{"do": "start"}, {"do": "recover"}],
             claims=[{"result": result("completed", [], ["a#1"], output="ok")},
                     {"result": result("completed", [], [], output="ok")}]),
    scenario("kernel.report/replay-serves-everything", "kernel.drive-report",
             "A read-only replay serves every recorded command and runs none.",
             body=BODY, effects=EFFECTS, deciders=DECIDERS, observe=BOTH,
             actions=[{"do": "start"}, RESUME, {"do": "replay"}],
             claims=[{"result": result("suspended", [], ["a#1", "d", "stream#1", "g"],
                                       waitingOn="g")},
                     {"result": result("completed", ["a#1", "d", "stream#1", "g"], ["b#1"],
                                       output=7)},
                     {"result": result("completed", ["a#1", "d", "stream#1", "g", "b#1"], [],
                                       output=7)}]),
    scenario("kernel.report/in-doubt-retry-runs", "kernel.drive-report",
             "A step found in doubt is neither served nor run until it is resolved; a retry "
             "runs it (the effect is invoked again).",
             body=[ex("charge", 1), ret("paid")], effects={"charge": ECHO}, observe=BOTH,
             actions=[{"do": "start", "crash": {"afterEvent": 2}}, {"do": "recover"},
                      {"do": "resolve", "step": "charge#1", "retry": True}],
             claims=[{"crashed": True, "calls": []},
                     {"result": result("in-doubt", [], [], inDoubtStep="charge#1"),
                      "warnings": ["kernel.in-doubt"]},
                     {"result": result("completed", [], ["charge#1"], output="paid"),
                      "calls": ["charge#1"]}]),
    scenario("kernel.report/resolved-output-served", "kernel.drive-report",
             "A step resolved with an output is served from the journal as a completed one.",
             body=[ex("charge", 1), ret("paid")], effects={"charge": ECHO}, observe=BOTH,
             actions=[{"do": "start", "crash": {"afterEvent": 2}}, {"do": "recover"},
                      {"do": "resolve", "step": "charge#1", "output": 1}],
             claims=[{"crashed": True, "calls": []},
                     {"result": result("in-doubt", [], [], inDoubtStep="charge#1"),
                      "warnings": ["kernel.in-doubt"]},
                     {"result": result("completed", ["charge#1"], [], output="paid")}]),
    scenario("kernel.report/torn-tail-reported", "journal.torn-tail",
             "The call that finds a torn tail reports it, line and size, beside the warning; "
             "the calls after it find none.",
             body=[ex("a", 1), ex("b", 2), ret("ok")], effects={"a": ECHO, "b": ECHO},
             observe=["torn"], open_values=torn_size_open,
             actions=[{"do": "start", "crash": {"afterEvent": 2, "torn": True}},
                      {"do": "recover"}, {"do": "recover"}],
             claims=[{"crashed": True, "calls": []},
                     {"result": {"status": "completed", "output": "ok",
                                 "torn": {"line": 3, "size": 17}},
                      "warnings": ["journal.torn-tail"], "calls": ["a#1", "b#1"]},
                     {"result": {"status": "completed", "output": "ok", "torn": None}}]),
]
