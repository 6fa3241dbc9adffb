"""Definitions of the journal.* cases that close journal survivors of three fresh mutation
samples (issue 30, seeds 473986, 321483 and 238680): an integer token at the edge of the
codec's length shortcut (``journal.json-values``: a 309-digit negative integer is 310
characters and finite, so it reads; one past a double's range with the same length is
refused), and a stored reference whose runs differ in count (``journal.content-refs``:
``items`` holds maximal runs, each run grown from its own first and count)."""

from __future__ import annotations

from typing import Any

from .defs_journal_cov import _ST, _content, _messages, _ref, _stored_refs, _turn
from .defs_journal_disk import answers, on_disk

_STARTED_KINDS = {"events": ["EXECUTION_STARTED"], "torn": False}


def _started_text(number: str) -> str:
    """An EXECUTION_STARTED payload's JSON text whose input is the number token ``number``
    (text, so the case never holds the number as a JSON value whose reading it would decide:
    the answers name event kinds only)."""
    return '{"executionId":"e1","workflow":"w","input":' + number + "}"


def _integer_edge(name: str, number: str, description: str, claim: Any) -> dict[str, Any]:
    return on_disk(name, "journal.json-values", description, "files", "never",
                   [{"do": "create", "executionId": "e1"},
                    {"do": "append", "executionId": "e1", "kind": "EXECUTION_STARTED",
                     "payloadText": _started_text(number)},
                    {"do": "reopen"}, {"do": "read", "executionId": "e1"}],
                   claim)


_MINUS_1E308 = "-1" + "0" * 308  # 309 digits and a sign: 310 characters, finite
_PLUS_1E308 = "1" + "0" * 308  # 309 digits: finite
_MINUS_PAST = "-" + "9" * 309  # 310 characters, past the largest double

DEFINITIONS: list[dict[str, Any]] = [
    _integer_edge("files-integer-309-digits-negative-finite", _MINUS_1E308,
                  "An integer of 309 digits with a minus sign (-1 followed by 308 zeros, -1e308 "
                  "as an integer: 310 characters) is finite as a double: the append writes it "
                  "and a reader reads the line back (the length of a number's text is no "
                  "reason to refuse it).",
                  lambda r: answers(r) == [None, None, None, _STARTED_KINDS]),
    _integer_edge("files-integer-309-digits-positive-finite", _PLUS_1E308,
                  "An integer of 309 digits (1 followed by 308 zeros, 1e308 as an integer) is "
                  "finite as a double: the append writes it and a reader reads the line back.",
                  lambda r: answers(r) == [None, None, None, _STARTED_KINDS]),
    _integer_edge("files-integer-309-digits-negative-past-a-double", _MINUS_PAST,
                  "An integer of 309 nines with a minus sign (310 characters) is past the "
                  "largest double's magnitude, so no finite double: the append refuses the "
                  "event (journal.bad-payload), nothing is written, and the read finds no "
                  "event.",
                  lambda r: answers(r) == [None, {"error": "journal.bad-payload"}, None,
                                           {"events": [], "torn": False}]),
    _content("runs-of-different-counts",
             "items holds maximal runs, each grown from its own first and count: after p, q, "
             "r, s, t, u, the array [p, q, r, t, u] is the runs [[0, 3], [4, 2]] (a run of "
             "3, then one of 2), with no new.",
             {"appends": [_ST, _turn(1, ["p", "q", "r", "s", "t", "u"]),
                          _turn(2, ["p", "q", "r", "t", "u"])]},
             lambda r: _stored_refs(_ref(new=["p", "q", "r", "s", "t", "u"], items=[[0, 6]]),
                                    _ref(items=[[0, 3], [4, 2]]))(r)
             and _messages(r["result"]["events"]) == [["p", "q", "r", "s", "t", "u"],
                                                      ["p", "q", "r", "t", "u"]]),
]
