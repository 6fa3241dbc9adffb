"""Definitions of the cases that pin, on the side an implementer most easily gets wrong, the
boundaries of kernel, journal and agent rules that issue 30's hand-written edge mutants
(``tools/mutation/edge.py``) found unpinned: an empty decision context and an empty or
``false`` gate schema (journaled: given is not null), a body that ends exactly one recorded
command early, an execution id of exactly 200 and of 201 characters, ``COM0``, a line of
exactly 128 levels whose bracket count passes 128, the order of a bad payload and a bad seq
on one line, ``true`` as a seq, and a transcript exactly at ``warnTranscriptBytes``.

Every claim is written by hand from the spec text; the generator refuses to write a case
whose observations contradict one.
"""

from __future__ import annotations

import json
from typing import Any

from .defs_agent import ASK, BASE, START, agent, answer, said, scripted, user
from .defs_journal import START as J_START
from .defs_journal import corrupt, ev, header, sealed
from .defs_journal_hostile import LIMIT, deep, one_event, started_with
from .defs_kernel_replay import when
from .defs_kernel_steps import done, ex, ret, var
from .gen_cases import scenario, vector

P = "journal.parse"
ECHO = {"script": [{"echo": True}]}
WAIT = {"status": "suspended", "waitingOn": "go"}


def _id_header(eid: str) -> str:
    """A header line naming ``eid``, sealed by hand (the encoder refuses a bad id)."""
    return sealed('{"schema":"loom-ref.journal","version":1,"executionId":"' + eid + '"')


# -- kernel ------------------------------------------------------------------------------------
DEFINITIONS: list[dict[str, Any]] = [
    scenario("kernel.decide/empty-context-journaled", "kernel.decision-record",
             "context and alternatives are journaled when the body gave them, not null: an "
             "empty context {} and empty alternatives [] are given, so DECISION_RECORDED holds "
             "both, empty.",
             body=[{"op": "decide", "id": "d", "as": "c", "context": {}, "alternatives": []},
                   ret(var("c"))],
             deciders={"d": {"script": [{"return": "left"}]}},
             actions=[{"do": "start"}],
             claims=[{"result": done("left"), "deciders": ["d"]}],
             journal=["EXECUTION_STARTED",
                      {"kind": "DECISION_RECORDED",
                       "payload": {"decisionId": "d", "choice": "left", "context": {},
                                   "alternatives": []}},
                      "EXECUTION_COMPLETED"]),
    scenario("kernel.gates/empty-gate-schema-journaled", "kernel.gate-record",
             "resumeSchema is journaled when the body gave the gate a schema: the empty "
             "schema {} is one (it accepts every value), so EXECUTION_SUSPENDED holds it and "
             "any payload resumes.",
             body=[{"op": "suspend", "gate": "go", "resumeSchema": {}, "as": "p"},
                   ret(var("p"))],
             actions=[{"do": "start"}, {"do": "resume", "gate": "go", "payload": [1, "x"]}],
             claims=[{"result": WAIT}, {"result": done([1, "x"])}],
             journal=["EXECUTION_STARTED",
                      {"kind": "EXECUTION_SUSPENDED",
                       "payload": {"gateId": "go", "on": None, "correlationKey": None,
                                   "resumeSchema": {}}},
                      "RESUME_RECEIVED", "EXECUTION_RESUMED", "EXECUTION_COMPLETED"]),
    scenario("kernel.gates/false-gate-schema", "kernel.gate-record",
             "The schema false is a schema (it accepts no value): EXECUTION_SUSPENDED journals "
             "resumeSchema false, and every resume of the gate is kernel.invalid-resume, "
             "nothing written.",
             body=[{"op": "suspend", "gate": "go", "resumeSchema": False}],
             actions=[{"do": "start"}, {"do": "resume", "gate": "go", "payload": None},
                      {"do": "resume", "gate": "go", "payload": 1}],
             claims=[{"result": WAIT}, {"raised": "kernel.invalid-resume", "events": []},
                     {"raised": "kernel.invalid-resume", "events": []}],
             journal=["EXECUTION_STARTED",
                      {"kind": "EXECUTION_SUSPENDED",
                       "payload": {"gateId": "go", "on": None, "correlationKey": None,
                                   "resumeSchema": False}}]),
    scenario("kernel.replay/body-ends-one-command-early", "kernel.replay-compare",
             "On resume the body returns where exactly one recorded command remains (the gate "
             "it no longer reaches): a body that ends while recorded commands remain has "
             "diverged (kernel.nondeterminism), journaled as EXECUTION_FAILED.",
             body=[ex("a", 1), when("a", [{"op": "suspend", "gate": "go"}], []), ret("done")],
             effects={"a": ECHO},
             actions=[{"do": "start"}, {"do": "resume", "gate": "go", "payload": None}],
             claims=[{"result": WAIT, "calls": ["a#1"]},
                     {"raised": "kernel.nondeterminism", "calls": [],
                      "events": ["RESUME_RECEIVED", "EXECUTION_RESUMED", "EXECUTION_FAILED"]}]),
]

# -- journal -----------------------------------------------------------------------------------
ID_200 = "a" * 200
DEFINITIONS += [
    vector("journal.format/execution-id-200-characters", "journal.execution-ids",
           "An execution id of exactly 200 characters is an execution id: its header is read.",
           function=P, input={"text": _id_header(ID_200)},
           claim={"result": {"executionId": ID_200, "events": [], "torn": None}}),
    vector("journal.format/execution-id-201-characters", "journal.execution-ids",
           "An execution id of 201 characters is none: its header is a bad header (line 1).",
           function=P, input={"text": _id_header("a" * 201)},
           claim=corrupt(1, "journal.bad-header")),
    vector("journal.format/header-com0-execution-id", "journal.execution-ids",
           "COM0 is among the reserved device names (COM0 to COM9), in any case: com0 is no "
           "execution id, a bad header.",
           function=P, input={"text": _id_header("com0")},
           claim=corrupt(1, "journal.bad-header")),
    vector("journal.format/header-com10-execution-id", "journal.execution-ids",
           "COM10 is not a reserved name (only COM0 to COM9 are): com10 is an execution id.",
           function=P, input={"text": _id_header("com10")},
           claim={"result": {"executionId": "com10", "events": [], "torn": None}}),
    vector("journal.format/nesting-at-limit-many-brackets", "journal.nesting-limit",
           "A line nesting exactly 128 arrays and objects that holds more than 128 brackets "
           "in all (an empty array beside the deepest run) is read: the limit is on depth, "
           "128 levels are within it.",
           function=P,
           input={"text": header() + started_with("[" + deep(LIMIT - 3) + ",[]]")},
           claim=one_event),
    vector("journal.format/bad-payload-before-seq-gap", "journal.corrupt-line",
           "A line whose payload lacks a required field and whose seq is out of sequence "
           "reports the kind and payload first: journal.bad-payload, not journal.seq-gap.",
           function=P, input={"text": header() + ev(1, *J_START) + sealed(
               '{"seq":7,"kind":"STEP_COMPLETED","payload":{"stepId":"a"}')},
           claim=corrupt(3, "journal.bad-payload")),
    vector("journal.format/unknown-kind-before-seq-gap", "journal.corrupt-line",
           "A line of an unknown kind whose seq is missing reports the kind: "
           "journal.bad-payload, not journal.seq-gap.",
           function=P, input={"text": header() + sealed(
               '{"kind":"NO_SUCH_KIND","payload":{}')},
           claim=corrupt(2, "journal.bad-payload")),
    vector("journal.format/seq-true", "journal.seq",
           "seq is the integer one above the last: true where 1 belongs breaks the sequence "
           "(journal.seq-gap), though some languages count true == 1.",
           function=P, input={"text": header() + sealed(
               '{"seq":true,"kind":"EXECUTION_STARTED","payload":'
               '{"executionId":"e1","workflow":"w","input":null}')},
           claim=corrupt(2, "journal.seq-gap")),
]


# -- agent -------------------------------------------------------------------------------------
def _size(message: Any) -> int:
    """A message's canonical-JSON size in UTF-8 bytes (agent.canonical-json: sorted keys, no
    whitespace; these messages are ASCII text with no character to escape)."""
    return len(json.dumps(message, sort_keys=True, separators=(",", ":")).encode("utf-8"))


#: the transcript of a run that answers at once: the input's user message, then the answer
ONE_TURN_BYTES = _size(user(ASK)) + _size(said("Tea."))
DEFINITIONS += [
    agent("agent.loop/transcript-at-warn-bytes", "agent.message-size",
          "A transcript whose byte count reaches warnTranscriptBytes exactly has not exceeded "
          "it: no warning.",
          config={**BASE, "warnTranscriptBytes": ONE_TURN_BYTES},
          effects={"llm": scripted(said("Tea."))}, actions=[START],
          claims=[{"result": done(answer("Tea.", 1)), "warnings": []}]),
    agent("agent.loop/transcript-one-past-warn-bytes", "agent.message-size",
          "A transcript one byte over warnTranscriptBytes has exceeded it: one warning "
          "agent.transcript-bytes.",
          config={**BASE, "warnTranscriptBytes": ONE_TURN_BYTES - 1},
          effects={"llm": scripted(said("Tea."))}, actions=[START],
          claims=[{"result": done(answer("Tea.", 1)), "warnings": ["agent.transcript-bytes"]}],
          exclude={"replay": "the transcript warning is a diagnostic of each drive of the "
                             "body: a replay drives it again and warns again",
                   "always-replay": "the transcript warning is a diagnostic of each drive of "
                                    "the body: every replay warns again"}),
]
