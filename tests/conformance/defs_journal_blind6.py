"""Definitions of the journal.* cases that settle what the journal chapter's fourth fresh
blind reading found (issue 29, ``spec/blind/journal.md``, *Fourth fresh blind reading*): a
store log whose only bytes are a torn first line naming an execution, the fold's step events
with a ``stepId`` that is not a string, an appended ``EXECUTION_STARTED`` of another
execution in ``journal.content``, and a number literal at the largest double's rounding
boundary. Each pins a choice the text now states."""

from __future__ import annotations

import sys
from typing import Any

from .defs_journal import LOG_HEADER, START, STEP, corrupt, events, header, sealed
from .gen_cases import vector

L = "journal.parse-log"
F = "journal.fold"
CT = "journal.content"

_TORN_FIRST = '{"executionId":"a","seq":1,"ki'
_ERROR = {"code": "tool.failed", "message": "no"}


def _code(code: str) -> Any:
    return lambda r: r.get("error", {}).get("code") == code


def _logged_with(literal: str) -> str:
    """A store log holding e1's header and its EXECUTION_STARTED whose input is ``literal``.
    (On ``journal.parse-log``, whose reader keeps the rule of ``journal.parse``: a
    ``journal.parse`` input here would shift the draws of ``tests/conformance/test_fuzz.py``'s
    seeded run over that function's corpus.)"""
    return LOG_HEADER + header() + sealed(
        '{"executionId":"e1","seq":1,"kind":"EXECUTION_STARTED","payload":'
        '{"executionId":"e1","workflow":"w","input":' + literal + '}')


DEFINITIONS: list[dict[str, Any]] = [
    # -- journal.log-format: a torn first line names its execution by the general rule ------
    vector("journal.log/torn-first-line-names-id", "journal.log-format",
           "A log whose only bytes are an unterminated first line holds nothing; the torn "
           "bytes name an execution by the rule of any torn line, so bytes beginning "
           '{"executionId":"a" name a (only the log\'s own torn header names none).',
           function="journal.parse-log", input={"text": _TORN_FIRST},
           claim={"result": {"executions": {}, "order": [],
                             "torn": {"line": 1, "size": len(_TORN_FIRST),
                                      "executionId": "a"}}}),
    # -- journal.fold-vector: every step event's stepId --------------------------------------
    vector("journal.fold/step-id-not-string-started", "journal.fold-vector",
           "STEP_STARTED is a step event: a stepId that is not a string (a list) is a "
           "malformed fold input, argument.invalid.",
           function=F, input=events(START, ("STEP_STARTED", {
               "stepId": ["add#1"], "toolId": "add", "input": 1, "idempotencyKey": "e1/add#1"})),
           claim=_code("argument.invalid")),
    vector("journal.fold/step-id-not-string-completed", "journal.fold-vector",
           "STEP_COMPLETED is a step event: a stepId that is not a string (a number) is a "
           "malformed fold input, argument.invalid.",
           function=F, input=events(START, STEP, ("STEP_COMPLETED", {"stepId": 7, "output": 1})),
           claim=_code("argument.invalid")),
    vector("journal.fold/step-id-not-string-failed", "journal.fold-vector",
           "STEP_FAILED is a step event: a stepId that is not a string (an object) is a "
           "malformed fold input, argument.invalid.",
           function=F, input=events(START, STEP, ("STEP_FAILED", {"stepId": {"id": "add#1"},
                                                                  "error": _ERROR})),
           claim=_code("argument.invalid")),
    # -- journal.content-vector: EXECUTION_STARTED names e1 ---------------------------------
    vector("journal.content/appends-started-names-other", "journal.content-vector",
           "The journal is execution e1's: an appended EXECUTION_STARTED naming another "
           "execution is refused as every store's writer refuses it, journal.bad-payload.",
           function=CT, input={"appends": [{"kind": "EXECUTION_STARTED", "payload": {
               "executionId": "e2", "workflow": "w", "input": 1}}]},
           claim=_code("journal.bad-payload")),
    # -- journal.json-values: "too large" after rounding --------------------------------------
    vector("journal.log/number-rounds-to-largest-double", "journal.json-values",
           "1.7976931348623158e308 is past the largest double's digits but rounds to it "
           "(to nearest, as strtod): finite, the line reads (a store log's reader keeps the "
           "rule of a journal's).",
           function=L, input={"text": _logged_with("1.7976931348623158e308")},
           claim=lambda r: r["result"]["executions"]["e1"][0]["payload"]["input"]
           == sys.float_info.max),
    vector("journal.log/number-rounds-to-infinity", "journal.json-values",
           "1.7976931348623159e308 rounds (to nearest, as strtod) to infinity: too large to "
           "be finite, a malformed line.",
           function=L, input={"text": _logged_with("1.7976931348623159e308")},
           claim=corrupt(3, "journal.malformed-line")),
]
