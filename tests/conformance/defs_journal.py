"""Definitions of the journal.* cases: parse and fold vectors, and journal scenarios."""

from __future__ import annotations

import json
import zlib
from typing import Any

from loom_ref.journal.codec import encode_header, encode_line

from .gen_cases import scenario, vector


def sealed(body: str) -> str:
    """A line from ``body`` (a JSON object text without its closing brace), with its crc."""
    return f'{body},"crc":"{zlib.crc32(body.encode("utf-8")):08x}"}}\n'


def header(eid: str = "e1") -> str:
    return encode_header(eid).decode("utf-8")


def ev(seq: int, kind: str, payload: Any) -> str:
    return encode_line(seq, kind, payload).decode("utf-8")


START = ("EXECUTION_STARTED", {"executionId": "e1", "workflow": "w", "input": {"n": 1}})
STEP = ("STEP_STARTED", {"stepId": "add#1", "toolId": "add", "input": {"n": 1},
                         "idempotencyKey": "e1/add#1"})
DONE = ("STEP_COMPLETED", {"stepId": "add#1", "output": 2})
END = ("EXECUTION_COMPLETED", {"output": 2})


def journal(*events: tuple[str, Any], eid: str = "e1") -> str:
    return header(eid) + "".join(ev(i, k, p) for i, (k, p) in enumerate(events, start=1))


FOUR = journal(START, STEP, DONE, END)


def respelled_crc(line: str, spell: Any) -> str:
    """``line`` with its crc's 8 digits replaced by ``spell(digits)`` (which must differ)."""
    digits = line[-11:-3]
    assert spell(digits) != digits and len(spell(digits)) == 8, (line, digits)
    return line[:-11] + spell(digits) + line[-3:]


def _small_crc_start() -> tuple[str, Any]:
    """START with the first input ``n`` whose line has a crc below 0x10000000 (a leading 0)."""
    n = 1
    while not ev(1, "EXECUTION_STARTED", {**START[1], "input": {"n": n}})[-11:-3].startswith("0"):
        n += 1
    return ("EXECUTION_STARTED", {**START[1], "input": {"n": n}})


SMALL_CRC_START = _small_crc_start()


def parsed(n: int, torn: Any = None) -> dict[str, Any]:
    evs = [START, STEP, DONE, END]
    return {"result": {"executionId": "e1", "torn": torn,
                       "events": [{"seq": i, "kind": k, "payload": p}
                                  for i, (k, p) in enumerate(evs[:n], start=1)]}}


def corrupt(line: int, reason: str):  # type: ignore[no-untyped-def]
    return lambda obs: obs.get("error") == {"code": "journal.corrupt", "line": line,
                                            "reason": reason}


P = "journal.parse"
DEFINITIONS: list[dict[str, Any]] = [
    vector("journal.format/complete", "journal.line-shape",
           "A header and four checksummed event lines parse to four events, no torn tail.",
           function=P, input={"text": FOUR}, claim=parsed(4)),
    vector("journal.format/unicode", "journal.checksum",
           "The crc covers the UTF-8 bytes of the line, non-ASCII text included.",
           function=P, input={"text": journal(("EXECUTION_STARTED", {
               "executionId": "e1", "workflow": "w", "input": "héllo ✓ 日本"}))},
           claim=lambda o: o["result"]["events"][0]["payload"]["input"] == "héllo ✓ 日本"),
    vector("journal.format/empty", "journal.header",
           "An empty journal has no header and no events.",
           function=P, input={"text": ""},
           claim={"result": {"executionId": None, "events": [], "torn": None}}),
    vector("journal.format/header-only", "journal.header",
           "A header alone names the execution and holds no events.",
           function=P, input={"text": header("order-7")},
           claim={"result": {"executionId": "order-7", "events": [], "torn": None}}),
    vector("journal.format/torn-last-line", "journal.torn-tail",
           "Bytes after the last newline are a torn tail: reported with its line and size, and "
           "not read as an event.",
           function=P, input={"text": FOUR[:-30]},
           claim=parsed(3, {"line": 5, "size": len(ev(4, *END)) - 30})),
    vector("journal.format/torn-newline-only", "journal.line-terminator",
           "A line without its terminating newline does not exist yet, even if it is complete.",
           function=P, input={"text": FOUR[:-1]},
           claim=parsed(3, {"line": 5, "size": len(ev(4, *END)) - 1})),
    vector("journal.format/bad-checksum", "journal.corrupt-line",
           "A complete line whose crc does not match is a hard error naming the line.",
           function=P, input={"text": FOUR.replace('"output":2}', '"output":3}', 1)},
           claim=corrupt(4, "journal.bad-checksum")),
    vector("journal.format/bad-checksum-then-torn", "journal.corrupt-line",
           "A bad complete line is an error even when a torn tail follows it.",
           function=P, input={"text": FOUR.replace('"n":1},"idem', '"n":9},"idem', 1)[:-5]},
           claim=corrupt(3, "journal.bad-checksum")),
    vector("journal.format/bad-schema", "journal.header",
           "A header naming another schema is refused (line 1).",
           function=P, input={"text": sealed('{"schema":"other","version":1,"executionId":"e1"')
                              + FOUR.split("\n", 1)[1]},
           claim=corrupt(1, "journal.bad-header")),
    vector("journal.format/bad-version", "journal.header",
           "A header of another version is refused (line 1).",
           function=P, input={"text": sealed(
               '{"schema":"loom-ref.journal","version":2,"executionId":"e1"')},
           claim=corrupt(1, "journal.bad-header")),
    vector("journal.format/version-true", "journal.header",
           "The version is the integer 1: true is refused (line 1), though some languages "
           "count true == 1.",
           function=P, input={"text": sealed(
               '{"schema":"loom-ref.journal","version":true,"executionId":"e1"')},
           claim=corrupt(1, "journal.bad-header")),
    vector("journal.format/header-without-id", "journal.header",
           "A header without an executionId is refused (line 1).",
           function=P, input={"text": sealed('{"schema":"loom-ref.journal","version":1')},
           claim=corrupt(1, "journal.bad-header")),
    vector("journal.format/seq-gap", "journal.seq",
           "seq must run 1, 2, 3 with no gaps: seq 3 where 2 belongs is an error on line 3.",
           function=P, input={"text": header() + ev(1, *START) + ev(3, *STEP)},
           claim=corrupt(3, "journal.seq-gap")),
    vector("journal.format/seq-repeat", "journal.seq",
           "A repeated seq is an error on the line that repeats it.",
           function=P, input={"text": header() + ev(1, *START) + ev(1, *STEP)},
           claim=corrupt(3, "journal.seq-gap")),
    vector("journal.format/seq-not-integer", "journal.seq",
           "seq must be an integer.",
           function=P, input={"text": header() + ev(1, *START) + sealed(
               '{"seq":"2","kind":"STEP_COMPLETED","payload":{"stepId":"a","output":1}')},
           claim=corrupt(3, "journal.seq-gap")),
    vector("journal.format/unknown-kind", "journal.event-kinds",
           "An event kind outside the closed set is a corrupt journal, not an extension.",
           function=P, input={"text": header() + ev(1, *START) + ev(2, "STEP_SKIPPED",
                                                                    {"stepId": "a"})},
           claim=corrupt(3, "journal.bad-payload")),
    vector("journal.format/missing-payload-field", "journal.payload-shape",
           "A STEP_STARTED without its idempotencyKey is a corrupt line.",
           function=P, input={"text": header() + ev(1, *START) + ev(2, "STEP_STARTED", {
               "stepId": "a", "toolId": "t", "input": None})},
           claim=corrupt(3, "journal.bad-payload")),
    vector("journal.format/bad-resume-schema", "journal.payload-shape",
           "A gate's journaled resumeSchema must be a schema of the supported subset: a type "
           "outside it is a bad payload.",
           function=P, input={"text": header() + ev(1, *START) + ev(2, "EXECUTION_SUSPENDED", {
               "gateId": "g", "on": None, "correlationKey": None,
               "resumeSchema": {"type": "decimal"}})},
           claim=corrupt(3, "journal.bad-payload")),
    vector("journal.format/resume-schema", "journal.payload-shape",
           "A gate's journaled resumeSchema of the supported subset is read back as written.",
           function=P, input={"text": header() + ev(1, *START) + ev(2, "EXECUTION_SUSPENDED", {
               "gateId": "g", "on": None, "correlationKey": None,
               "resumeSchema": {"type": "object", "required": ["ok"]}})},
           claim=lambda obs: obs.get("result", {}).get("events", [{}, {}])[1].get(
               "payload", {}).get("resumeSchema") == {"type": "object", "required": ["ok"]}),
    vector("journal.format/payload-not-object", "journal.payload-shape",
           "A payload must be an object.",
           function=P, input={"text": header() + ev(1, "EXECUTION_STARTED", [1, 2])},
           claim=corrupt(2, "journal.bad-payload")),
    vector("journal.format/no-crc", "journal.line-shape",
           "A line that does not end with its crc member is malformed.",
           function=P, input={"text": header() + json.dumps(
               {"seq": 1, "kind": START[0], "payload": START[1]}) + "\n"},
           claim=corrupt(2, "journal.malformed-line")),
    vector("journal.format/crc-uppercase", "journal.checksum",
           "A crc whose value matches but is written in upper case is malformed: a line has "
           "one spelling of its checksum.",
           function=P, input={"text": header() + respelled_crc(ev(1, *START), str.upper)},
           claim=corrupt(2, "journal.malformed-line")),
    vector("journal.format/crc-signed", "journal.checksum",
           "A crc whose value matches but is written with a sign (+ and 7 digits) is malformed, "
           "though some number parsers read it.",
           function=P, input={"text": header() + respelled_crc(
               ev(1, *SMALL_CRC_START), lambda digits: "+" + digits[1:])},
           claim=corrupt(2, "journal.malformed-line")),
    vector("journal.format/not-json", "journal.line-shape",
           "A line whose crc matches but which is not JSON is malformed.",
           function=P, input={"text": header() + sealed('{"seq":1,"kind":')},
           claim=corrupt(2, "journal.malformed-line")),
    vector("journal.format/extra-member", "journal.line-shape",
           "An event line has exactly seq, kind, payload and crc.",
           function=P, input={"text": header() + sealed(
               '{"seq":1,"kind":"EXECUTION_STARTED","payload":{"executionId":"e1",'
               '"workflow":"w","input":null},"at":"2026-01-01"')},
           claim=corrupt(2, "journal.malformed-line")),
    vector("journal.format/data-after-object", "journal.line-shape",
           "A line whose crc matches but that holds more than one JSON object is malformed: "
           "the line is one JSON object, ending in the fixed crc suffix.",
           function=P, input={"text": header() + sealed('{"seq":1} {"kind":"STEP_STARTED"')},
           claim=corrupt(2, "journal.malformed-line")),
    vector("journal.format/any-writer", "journal.checksum",
           "Any JSON writer makes a valid line: members in another order and with spaces parse, "
           "because the crc covers the bytes before the fixed suffix.",
           function=P, input={"text": header() + sealed(
               '{ "payload": {"input": null, "workflow": "w", "executionId": "e1"}, '
               '"kind": "EXECUTION_STARTED", "seq": 1')},
           claim=lambda o: o["result"]["events"][0]["kind"] == "EXECUTION_STARTED"),
]

F = "journal.fold"


def events(*items: tuple[str, Any]) -> dict[str, Any]:
    return {"events": [{"kind": k, "payload": p} for k, p in items]}


def folded(**fields: Any):  # type: ignore[no-untyped-def]
    return lambda obs: all(obs["result"].get(k) == v for k, v in fields.items())


def illegal(obs: Any) -> bool:
    return obs.get("error", {}).get("code") == "journal.illegal-transition"


SUSP = ("EXECUTION_SUSPENDED", {"gateId": "g", "on": None, "correlationKey": None})
DEFINITIONS += [
    vector("journal.fold/empty", "journal.fold", "No events: not started.", function=F,
           input=events(), claim=folded(status="not-started", seq=0)),
    vector("journal.fold/completed", "journal.fold",
           "A completed run folds to completed with its output and its step frame.",
           function=F, input=events(START, STEP, DONE, END),
           claim=folded(status="completed", seq=4, output=2, steps={"add#1": "completed"})),
    vector("journal.fold/prefix", "journal.fold",
           "Folding a prefix gives the state at that point: a started step, still running.",
           function=F, input=events(START, STEP),
           claim=folded(status="running", seq=2, steps={"add#1": "started"})),
    vector("journal.fold/suspended", "journal.fold", "A suspension waits on its gate.",
           function=F, input=events(START, SUSP),
           claim=folded(status="suspended", waitingOn="g", pendingResume=False)),
    vector("journal.fold/pending-resume", "journal.transitions",
           "A resume received but not yet acted on: suspended, with a pending resume.",
           function=F, input=events(START, SUSP, ("RESUME_RECEIVED", {"gateId": "g",
                                                                    "payload": 1})),
           claim=folded(status="suspended", waitingOn="g", pendingResume=True)),
    vector("journal.fold/in-doubt", "journal.transitions",
           "STEP_IN_DOUBT parks the execution on that step.",
           function=F, input=events(START, STEP, ("STEP_IN_DOUBT", {"stepId": "add#1"})),
           claim=folded(status="in-doubt", inDoubtStep="add#1", steps={"add#1": "in-doubt"})),
    vector("journal.fold/resolved", "journal.transitions",
           "An outcome of the in-doubt step makes the execution running again.",
           function=F, input=events(START, STEP, ("STEP_IN_DOUBT", {"stepId": "add#1"}), DONE),
           claim=folded(status="running", inDoubtStep=None, steps={"add#1": "completed"})),
    vector("journal.fold/decision", "journal.fold", "Decisions are folded by id.",
           function=F, input=events(START, ("DECISION_RECORDED", {"decisionId": "d",
                                                                 "choice": [1]})),
           claim=folded(decisions={"d": [1]})),
    vector("journal.fold/failed", "journal.fold", "EXECUTION_FAILED ends with its error.",
           function=F, input=events(START, ("EXECUTION_FAILED", {"error": {
               "code": "x.y", "message": "m"}})),
           claim=folded(status="failed", error={"code": "x.y", "message": "m"})),
    vector("journal.fold/after-completed", "journal.transitions",
           "Nothing may follow EXECUTION_COMPLETED.", function=F,
           input=events(START, END, STEP), claim=illegal),
    vector("journal.fold/step-before-start", "journal.transitions",
           "The first event must be EXECUTION_STARTED.", function=F, input=events(STEP),
           claim=illegal),
    vector("journal.fold/outcome-of-unknown-step", "journal.transitions",
           "A step outcome for a step that never started is illegal.", function=F,
           input=events(START, DONE), claim=illegal),
    vector("journal.fold/resume-other-gate", "journal.transitions",
           "A resume for a gate that is not waiting is illegal.", function=F,
           input=events(START, SUSP, ("RESUME_RECEIVED", {"gateId": "h", "payload": 1})),
           claim=illegal),
    vector("journal.fold/step-while-suspended", "journal.transitions",
           "A suspended execution takes no step events.", function=F,
           input=events(START, SUSP, STEP), claim=illegal),
    vector("journal.fold/in-doubt-step-id-list", "journal.fold-vector",
           "A stepId that is not a string (a list) is a malformed fold input, not a bad "
           "payload: the payload rules give it no type, the fold keys its result by it.",
           function=F, input=events(START, STEP, ("STEP_IN_DOUBT", {"stepId": []})),
           claim=lambda o: o.get("error", {}).get("code") == "argument.invalid"),
    vector("journal.fold/decision-id-object", "journal.fold-vector",
           "A decisionId that is not a string (an object) is a malformed fold input.",
           function=F, input=events(START, ("DECISION_RECORDED", {"decisionId": {},
                                                                 "choice": 1})),
           claim=lambda o: o.get("error", {}).get("code") == "argument.invalid"),
    vector("journal.fold/event-not-object", "journal.fold-vector",
           "An event that is not an object is a malformed fold input.",
           function=F, input={"events": ["w"]},
           claim=lambda o: o.get("error", {}).get("code") == "argument.invalid"),
    vector("journal.fold/failed-step", "journal.fold-vector",
           "A step whose latest event is STEP_FAILED folds to a failed frame; the execution "
           "itself is still running (the body may catch the failure).",
           function=F, input=events(START, STEP, ("STEP_FAILED", {
               "stepId": "add#1", "error": {"code": "test.boom", "message": "boom"}})),
           claim=folded(status="running", seq=3, steps={"add#1": "failed"})),
    vector("journal.fold/events-not-a-list", "journal.fold-vector",
           "events that is not an array (an object) is a malformed fold input, refused "
           "before any event is read.",
           function=F, input={"events": {"0": {"kind": "EXECUTION_STARTED"}}},
           claim=lambda o: o.get("error", {}).get("code") == "argument.invalid"),
    vector("journal.fold/twice-started", "journal.transitions",
           "EXECUTION_STARTED appears once.", function=F, input=events(START, START),
           claim=illegal),
]

# -- scenarios over the stored journal -----------------------------------------------------
ECHO = {"add": {"script": [{"echo": True}]}}
GATED = [{"op": "execute", "tool": "add", "input": {"$input": []}, "as": "a"},
         {"op": "suspend", "gate": "go", "as": "p"},
         {"op": "return", "value": {"a": {"$var": "a"}, "p": {"$var": "p"}}}]
STARTED = ["EXECUTION_STARTED", "STEP_STARTED", "STEP_COMPLETED", "EXECUTION_SUSPENDED"]
RESUMED = ["RESUME_RECEIVED", "EXECUTION_RESUMED", "EXECUTION_COMPLETED"]
SUSPENDED = {"status": "suspended", "waitingOn": "go"}
DONE_OK = {"status": "completed", "output": {"a": 5, "p": "ok"}}
DEFINITIONS += [
    scenario("journal.durability/torn-tail-recovered", "journal.torn-tail",
             "The last line lost its newline in a crash: recovery reports the torn tail, treats "
             "the line as not written and writes it again.",
             body=GATED, effects=ECHO,
             actions=[{"do": "start", "input": 5}, {"do": "tear", "line": 5, "whole": True},
                      {"do": "recover"},
                      {"do": "resume", "gate": "go", "payload": "ok"}],
             claims=[{"result": SUSPENDED, "calls": ["add#1"], "events": STARTED},
                     {"done": True},
                     {"result": SUSPENDED, "events": ["EXECUTION_SUSPENDED"], "calls": [],
                      "warnings": ["journal.torn-tail"]},
                     {"result": DONE_OK, "events": RESUMED}],
             journal=STARTED + RESUMED),
    scenario("journal.durability/torn-mid-step", "journal.torn-tail",
             "A crash tore STEP_COMPLETED: the step has no outcome, the effect is idempotent, so "
             "recovery calls it again with the same key.",
             body=GATED, effects={"add": {"idempotent": True, "script": [{"echo": True}]}},
             actions=[{"do": "start", "input": 5}, {"do": "tear", "line": 4},
                      {"do": "recover"}],
             claims=[{"result": SUSPENDED, "calls": ["add#1"], "events": STARTED},
                     {"done": True},
                     {"result": SUSPENDED, "calls": ["add#1"],
                      "events": ["STEP_COMPLETED", "EXECUTION_SUSPENDED"],
                      "warnings": ["journal.torn-tail"]}],
             journal=STARTED),
    scenario("journal.durability/garbage-tail", "journal.torn-tail",
             "Garbage after the last newline is a torn tail, reported and dropped; the "
             "execution carries on.",
             body=GATED, effects=ECHO,
             actions=[{"do": "start", "input": 5}, {"do": "appendBytes", "text": '{"seq":5,"ki'},
                      {"do": "resume", "gate": "go", "payload": "ok"}],
             claims=[{"result": SUSPENDED, "events": STARTED}, {"done": True},
                     {"result": DONE_OK, "events": RESUMED, "warnings": ["journal.torn-tail"]}],
             journal=STARTED + RESUMED),
    scenario("journal.durability/torn-header-started-afresh", "journal.torn-tail",
             "A crash that tore the journal's very header leaves no complete line: the torn "
             "tail is reported and dropped, the header written again, and start runs the "
             "execution afresh.",
             body=GATED, effects=ECHO,
             actions=[{"do": "start", "input": 5}, {"do": "tear", "line": 1},
                      {"do": "start", "input": 5},
                      {"do": "resume", "gate": "go", "payload": "ok"}],
             claims=[{"result": SUSPENDED, "events": STARTED}, {"done": True},
                     {"result": SUSPENDED, "events": STARTED, "calls": ["add#1"],
                      "warnings": ["journal.torn-tail"]},
                     {"result": DONE_OK, "events": RESUMED}],
             journal=STARTED + RESUMED),
    scenario("journal.durability/torn-tail-visible", "journal.torn-tail",
             "A torn tail is reported by a reader too, never skipped silently.",
             body=GATED, effects=ECHO,
             actions=[{"do": "start", "input": 5}, {"do": "tear", "line": 5}],
             claims=[{"result": SUSPENDED}, {"done": True}],
             journal=STARTED[:-1]),
    scenario("journal.durability/corrupt-line", "journal.corrupt-line",
             "A complete line with a bad checksum stops recovery with an error naming the line; "
             "nothing is written.",
             body=GATED, effects=ECHO,
             actions=[{"do": "start", "input": 5}, {"do": "corrupt", "line": 3},
                      {"do": "recover"}],
             claims=[{"result": SUSPENDED}, {"done": True},
                     {"raised": "journal.corrupt", "events": []}],
             journal={"error": "journal.corrupt"}),
    scenario("journal.durability/corrupt-header", "journal.header",
             "A corrupt header line refuses the whole journal (line 1).",
             body=GATED, effects=ECHO,
             actions=[{"do": "start", "input": 5}, {"do": "corrupt", "line": 1},
                      {"do": "resume", "gate": "go", "payload": "ok"}],
             claims=[{"result": SUSPENDED}, {"done": True},
                     {"raised": "journal.corrupt", "events": []}],
             journal={"error": "journal.corrupt"}),
    scenario("journal.durability/corrupt-last-line", "journal.corrupt-line",
             "A bad last line that is complete was not torn: it is corruption, not a torn tail.",
             body=GATED, effects=ECHO,
             actions=[{"do": "start", "input": 5}, {"do": "corrupt", "line": 5},
                      {"do": "recover"}],
             claims=[{"result": SUSPENDED}, {"done": True}, {"raised": "journal.corrupt"}],
             journal={"error": "journal.corrupt"}),
    scenario("journal.durability/single-writer", "journal.single-writer",
             "While another writer holds the journal, a second writer is refused and writes "
             "nothing; once it lets go, the execution carries on.",
             body=GATED, effects=ECHO,
             actions=[{"do": "start", "input": 5}, {"do": "holdWriter"},
                      {"do": "resume", "gate": "go", "payload": "ok"}, {"do": "releaseWriter"},
                      {"do": "resume", "gate": "go", "payload": "ok"}],
             claims=[{"result": SUSPENDED}, {"done": True},
                     {"raised": "journal.locked", "events": []}, {"done": True},
                     {"result": DONE_OK, "events": RESUMED}],
             journal=STARTED + RESUMED),
    scenario("journal.durability/write-before-act", "journal.write-before-act",
             "STEP_STARTED is in the journal before the effect is called, and the call's "
             "outcome is journaled before the body goes on.",
             body=[{"op": "execute", "tool": "add", "input": 1},
                   {"op": "execute", "tool": "add", "input": 2}],
             effects=ECHO, actions=[{"do": "start"}],
             claims=[{"result": {"status": "completed", "output": None}, "calls": ["add#1",
                                                                                    "add#2"]}],
             journal=["EXECUTION_STARTED", "STEP_STARTED", "STEP_COMPLETED", "STEP_STARTED",
                      "STEP_COMPLETED", "EXECUTION_COMPLETED"]),
]

# -- values, clocks, crashes, one execution per journal -------------------------------------
DEFINITIONS += [
    vector("journal.format/nan-is-not-json", "journal.json-values",
           "NaN is not a JSON value: a line holding it (with a matching crc) is malformed, "
           "although some JSON decoders would accept it.",
           function=P, input={"text": header() + ev(1, *START) + sealed(
               '{"seq":2,"kind":"STEP_STARTED","payload":{"stepId":"a","toolId":"t",'
               '"input":NaN,"idempotencyKey":"e1/a"}')},
           claim=corrupt(3, "journal.malformed-line")),
    vector("journal.format/infinity-is-not-json", "journal.json-values",
           "-Infinity is not a JSON value either: every number in a journal is finite.",
           function=P, input={"text": header() + sealed(
               '{"seq":1,"kind":"EXECUTION_STARTED","payload":{"executionId":"e1",'
               '"workflow":"w","input":[1,-Infinity]}')},
           claim=corrupt(2, "journal.malformed-line")),
    vector("journal.format/lone-surrogate-is-not-json", "journal.json-values",
           "A string escape \\ud800 with no low surrogate after it is valid JSON syntax but "
           "no Unicode text (UTF-8 cannot carry it): a malformed line.",
           function=P, input={"text": header() + sealed(
               '{"seq":1,"kind":"EXECUTION_STARTED","payload":{"executionId":"e1",'
               '"workflow":"w","input":"a\\ud800b"}')},
           claim=corrupt(2, "journal.malformed-line")),
    vector("journal.format/surrogate-pair-escape", "journal.json-values",
           "A surrogate pair written as two escapes is one character (U+1F600): valid.",
           function=P, input={"text": header() + sealed(
               '{"seq":1,"kind":"EXECUTION_STARTED","payload":{"executionId":"e1",'
               '"workflow":"w","input":"\\ud83d\\ude00"}')},
           claim=lambda r: r["result"]["events"][0]["payload"]["input"] == "\U0001f600"),
    vector("journal.format/overflow-is-not-json", "journal.json-values",
           "1e999 is valid JSON syntax but no finite number: a decoder that reads it as "
           "infinity MUST still refuse the line.",
           function=P, input={"text": header() + sealed(
               '{"seq":1,"kind":"EXECUTION_STARTED","payload":{"executionId":"e1",'
               '"workflow":"w","input":1e999}')},
           claim=corrupt(2, "journal.malformed-line")),
]

NO_CLOCK_JOURNAL = [
    {"kind": "EXECUTION_STARTED", "payload": {"executionId": "e1", "workflow": "w", "input": 5}},
    {"kind": "STEP_STARTED", "payload": {"stepId": "add#1", "toolId": "add", "input": 5,
                                         "idempotencyKey": "e1/add#1"}},
    {"kind": "STEP_COMPLETED", "payload": {"stepId": "add#1", "output": 5}},
    {"kind": "EXECUTION_SUSPENDED", "payload": {"gateId": "go", "on": None,
                                                "correlationKey": None}},
    {"kind": "RESUME_RECEIVED", "payload": {"gateId": "go", "payload": "ok"}},
    {"kind": "EXECUTION_RESUMED", "payload": {"gateId": "go"}},
    {"kind": "EXECUTION_COMPLETED", "payload": {"output": {"a": 5, "p": "ok"}}},
]
DEFINITIONS += [
    scenario("journal.durability/no-clock", "journal.no-clock",
             "Events carry no wall-clock time: every payload holds exactly its fields, so the "
             "journal is a pure function of the body, its input and the effects' outputs (the "
             "generated crash variants check that a recovered run's journal equals this one).",
             body=GATED, effects=ECHO,
             actions=[{"do": "start", "input": 5}, {"do": "resume", "gate": "go", "payload": "ok"}],
             claims=[{"result": SUSPENDED, "events": STARTED, "calls": ["add#1"]},
                     {"result": DONE_OK, "events": RESUMED}],
             journal=NO_CLOCK_JOURNAL),
    scenario("journal.durability/crash-model", "journal.crash-model",
             "A crash after the second append (STEP_STARTED) kills the action there: the effect "
             "that event announced is never called and nothing else runs. A fresh runtime with "
             "fresh effects recovers from the store and calls the idempotent effect.",
             body=GATED, effects={"add": {"idempotent": True, "script": [{"echo": True}]}},
             actions=[{"do": "start", "input": 5, "crash": {"afterEvent": 2}},
                      {"do": "recover"}],
             claims=[{"crashed": True, "events": ["EXECUTION_STARTED", "STEP_STARTED"],
                      "calls": []},
                     {"result": SUSPENDED, "calls": ["add#1"],
                      "events": ["STEP_COMPLETED", "EXECUTION_SUSPENDED"]}],
             journal=STARTED),
    scenario("journal.durability/one-execution-per-journal", "journal.one-file-per-execution",
             "A journal holds exactly one execution, the one its id names: starting order-7 "
             "again is refused and appends nothing, so its journal still holds one "
             "EXECUTION_STARTED, naming order-7.",
             body=[{"op": "return", "value": 1}], execution_id="order-7",
             actions=[{"do": "start"}, {"do": "start", "input": 2}],
             claims=[{"result": {"status": "completed", "output": 1}},
                     {"raised": "kernel.execution-exists", "events": []}],
             journal=[{"kind": "EXECUTION_STARTED",
                       "payload": {"executionId": "order-7", "workflow": "w", "input": None}},
                      {"kind": "EXECUTION_COMPLETED", "payload": {"output": 1}}]),
]


# -- journal.log: the store log (extension, spec/journal.md 1.7) ---------------------------
L = "journal.parse-log"
LOG_HEADER = sealed('{"schema":"loom-ref.log","version":1')


def lev(eid: str, seq: int, kind: str, payload: Any) -> str:
    """An event line of a store log: the journal line with ``executionId`` first."""
    body = json.dumps({"executionId": eid, "seq": seq, "kind": kind, "payload": payload},
                      ensure_ascii=False, separators=(",", ":"))
    return sealed(body[:-1])


def started(eid: str) -> tuple[str, dict[str, Any]]:
    return ("EXECUTION_STARTED", {"executionId": eid, "workflow": "w", "input": {"n": 1}})


TWO = (LOG_HEADER + header("a") + lev("a", 1, *started("a")) + header("b")
       + lev("b", 1, *started("b")) + lev("a", 2, *STEP) + lev("b", 2, *END))


def logged(torn: Any = None, **events: list[tuple[str, Any]]) -> dict[str, Any]:
    return {"result": {
        "executions": {eid: [{"seq": i, "kind": k, "payload": p}
                             for i, (k, p) in enumerate(evs, start=1)]
                       for eid, evs in events.items()},
        "order": list(events), "torn": torn}}


DEFINITIONS += [
    vector("journal.log/interleaved", "journal.log-executions",
           "Two executions interleaved in one store log each read back as their own journal, "
           "seq counting per execution; order is the order of their header lines.",
           function=L, input={"text": TWO}, tier="may",
           claim=logged(a=[started("a"), STEP], b=[started("b"), END])),
    vector("journal.log/empty", "journal.log-format",
           "An empty store log holds no executions.",
           function=L, input={"text": ""}, tier="may", claim=logged()),
    vector("journal.log/header-only", "journal.log-format",
           "A store log holding only its header holds no executions.",
           function=L, input={"text": LOG_HEADER}, tier="may", claim=logged()),
    vector("journal.log/log-version-true", "journal.log-format",
           "The store log header's version is the integer 1: true is refused (line 1).",
           function=L, input={"text": sealed('{"schema":"loom-ref.log","version":true')
                              + header("a") + lev("a", 1, *started("a"))}, tier="may",
           claim=corrupt(1, "journal.bad-header")),
    vector("journal.log/log-header-bad-checksum", "journal.log-format",
           "A store log header that fails its checksum is a corrupt line 1.",
           function=L, input={"text": respelled_crc(LOG_HEADER, lambda d: (
               "0" if d[0] != "0" else "1") + d[1:]) + header("a") + lev("a", 1, *started("a"))},
           tier="may", claim=corrupt(1, "journal.bad-checksum")),
    vector("journal.log/bad-log-header", "journal.log-format",
           "The first line must be the store log header: a journal header there is refused.",
           function=L, input={"text": header("a") + lev("a", 1, *started("a"))}, tier="may",
           claim=corrupt(1, "journal.bad-header")),
    vector("journal.log/id-under-checksum", "journal.log-format",
           "The execution id is covered by the line's crc: moving a line to another "
           "execution by editing its id is a bad checksum on that line.",
           function=L, tier="may",
           input={"text": TWO.replace('{"executionId":"b","seq":2', '{"executionId":"a","seq":3')},
           claim=corrupt(7, "journal.bad-checksum")),
    vector("journal.log/extra-member", "journal.log-format",
           "An event line has exactly executionId, seq, kind, payload and crc.",
           function=L, tier="may",
           input={"text": LOG_HEADER + header("a") + sealed(
               '{"executionId":"a","seq":1,"kind":"EXECUTION_STARTED","payload":'
               '{"executionId":"a","workflow":"w","input":1},"at":5')},
           claim=corrupt(3, "journal.malformed-line")),
    vector("journal.log/event-before-header", "journal.log-executions",
           "An event line of an execution whose header has not appeared is a corrupt log, "
           "naming the line of the log.",
           function=L, input={"text": LOG_HEADER + header("a") + lev("b", 1, *started("b"))},
           tier="may", claim=corrupt(3, "journal.bad-header")),
    vector("journal.log/second-header", "journal.log-executions",
           "A second header for the same execution is a corrupt log.",
           function=L, input={"text": LOG_HEADER + header("a") + lev("a", 1, *started("a"))
                              + header("a")},
           tier="may", claim=corrupt(4, "journal.bad-header")),
    vector("journal.log/seq-per-execution", "journal.log-executions",
           "seq runs per execution: an event continuing another execution's count is a gap.",
           function=L, input={"text": LOG_HEADER + header("a") + lev("a", 1, *started("a"))
                              + header("b") + lev("b", 2, *started("b"))},
           tier="may", claim=corrupt(5, "journal.seq-gap")),
    vector("journal.log/transitions-not-checked-by-parse", "journal.log-executions",
           "Parsing checks lines, kinds, payloads and sequence; like journal.parse it does not "
           "fold (a step outcome first parses; folding it is an illegal transition).",
           function=L, tier="may",
           input={"text": LOG_HEADER + header("a") + lev("a", 1, *DONE)},
           claim=logged(a=[DONE])),
    vector("journal.log/torn-names-execution", "journal.log-torn-tail",
           "A torn last line is not read; it is reported with the log line, its size and the "
           "execution its bytes name.",
           function=L, input={"text": TWO[:-40]}, tier="may",
           claim=logged({"line": 7, "size": len(lev("b", 2, *END)) - 40, "executionId": "b"},
                        a=[started("a"), STEP], b=[started("b")])),
    vector("journal.log/torn-names-nobody", "journal.log-torn-tail",
           "Torn bytes that end before the execution id is complete name no execution.",
           function=L, input={"text": TWO + '{"executionId":"a'}, tier="may",
           claim=logged({"line": 8, "size": 17, "executionId": None},
                        a=[started("a"), STEP], b=[started("b"), END])),
    vector("journal.log/torn-header", "journal.log-torn-tail",
           "A torn execution header names no execution, and the execution does not exist.",
           function=L, input={"text": LOG_HEADER + header("a")[:-3]}, tier="may",
           claim=logged({"line": 2, "size": len(header("a")) - 3, "executionId": None})),
]

DEFINITIONS += [
    vector("journal.log/event-without-id", "journal.log-format",
           "A line with no schema member is an event line; one without a string executionId "
           "is malformed.",
           function=L, tier="may",
           input={"text": LOG_HEADER + header("a") + ev(1, *started("a"))},
           claim=corrupt(3, "journal.malformed-line")),
    vector("journal.log/header-extra-members", "journal.log-format",
           "Other members of a header line are ignored, in the log header and in an "
           "execution's header alike.",
           function=L, tier="may",
           input={"text": sealed('{"schema":"loom-ref.log","version":1,"writer":"x"')
                  + sealed('{"schema":"loom-ref.journal","version":1,"executionId":"a",'
                           '"note":1') + lev("a", 1, *started("a"))},
           claim=logged(a=[started("a")])),
    vector("journal.log/torn-id-closed", "journal.log-torn-tail",
           "Torn bytes name an execution as soon as its id's closing quote is written, even "
           "when the log holds no header for it.",
           function=L, input={"text": TWO + '{"executionId":"c"'}, tier="may",
           claim=logged({"line": 8, "size": 18, "executionId": "c"},
                        a=[started("a"), STEP], b=[started("b"), END])),
    vector("journal.log/torn-first-event", "journal.log-torn-tail",
           "A header whose first event was torn after the header's newline: the execution "
           "exists with no events, and the torn bytes name it.",
           function=L, tier="may",
           input={"text": LOG_HEADER + header("a") + lev("a", 1, *started("a"))[:-9]},
           claim=logged({"line": 3, "size": len(lev("a", 1, *started("a"))) - 9,
                         "executionId": "a"}, a=[])),
    vector("journal.log/reason-order", "journal.corrupt-line",
           "When a line breaks several rules the first in the stated order is reported: an "
           "event of an execution with no header, out of sequence, is bad-header.",
           function=L, tier="may",
           input={"text": LOG_HEADER + header("a") + lev("b", 7, *started("b"))},
           claim=corrupt(3, "journal.bad-header")),
]

# -- issue 21 (semantic mutants): an in-doubt execution waits for its step's outcome ---------
DEFINITIONS += [
    vector("journal.fold/in-doubt-takes-no-completion", "journal.transitions",
           "An in-doubt execution cannot complete past its unresolved step: only the step's "
           "outcome or EXECUTION_FAILED may follow STEP_IN_DOUBT, so EXECUTION_COMPLETED is "
           "illegal there.",
           function=F, input=events(START, STEP, ("STEP_IN_DOUBT", {"stepId": "add#1"}), END),
           claim=illegal),
]
