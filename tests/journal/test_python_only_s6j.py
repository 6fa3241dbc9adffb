"""What only a Python caller sees in the journal layer, pinned where the conformance suite
cannot (issue 30, the survivors of the exploratory 120-mutant journal sample left to branch
s6j): the words of a malformed line's message when the line does not end with its crc member
(``codec._suffix_problem``), and the content store's identity cache keeping only frozen values
(``frozen.is_frozen``): a plain value a Python caller changes after journaling it is
journaled anew, never referred to by the item it was."""

from __future__ import annotations

from typing import Any

import pytest

from loom_ref.journal import CorruptJournalError, EventKind, MemoryStore
from loom_ref.journal.codec import decode_line, encode_header, encode_line
from loom_ref.journal.contentstore import CONTENT, ContentResolvingStore
from loom_ref.journal.reader import parse_journal

_START = {"executionId": "x", "workflow": "w", "input": None}


def _message(data: bytes) -> str:
    with pytest.raises(CorruptJournalError) as info:
        parse_journal(data)
    return info.value.message


# -- codec._suffix_problem: which words a line without its crc suffix gets ----------------------
def test_a_line_cut_before_its_crc_member_says_it_has_none() -> None:
    line = encode_line(1, "EXECUTION_STARTED", _START)
    message = _message(encode_header("x") + line[:-20] + b"}\n")
    assert "does not end with a crc member" in message
    assert "CR LF" not in message


def test_a_crlf_line_is_named_and_not_called_crc_less() -> None:
    line = encode_line(1, "EXECUTION_STARTED", _START)
    message = _message(encode_header("x") + line[:-1] + b"\r\n")
    assert "CR LF" in message
    assert "Windows line endings" in message
    assert "does not end with a crc member" not in message


# -- frozen.is_frozen: the identity cache holds frozen values only ------------------------------
def _started(messages: Any, step: int) -> dict[str, Any]:
    return {"stepId": f"llm#{step}", "toolId": "llm", "input": {"messages": messages},
            "idempotencyKey": f"e1/llm#{step}"}


def test_a_plain_item_changed_after_it_was_journaled_is_journaled_anew() -> None:
    inner = MemoryStore()
    journal = ContentResolvingStore(inner).create("e1")
    journal.append(EventKind.EXECUTION_STARTED, {"executionId": "e1", "workflow": "w",
                                                 "input": 1})
    message = {"role": "user", "content": "first"}
    journal.append(EventKind.STEP_STARTED, _started([message], 1))
    # the same dict, seen twice in one append, then changed: the table must not answer
    # its identity with the item it was
    journal.append(EventKind.STEP_STARTED, _started([message, dict(message)], 2))
    message["content"] = "second"
    event = journal.append(EventKind.STEP_STARTED, _started([message], 3))
    assert event.payload["input"]["messages"] == [{"role": "user", "content": "second"}]
    lines = [decode_line(raw) for raw in bytes(inner.data["e1"]).split(b"\n")[1:-1]]
    stored = lines[-1]["payload"]["input"]["messages"][CONTENT]
    assert stored == {"items": [[1, 1]], "new": [{"role": "user", "content": "second"}]}
    back = ContentResolvingStore(inner).read("e1").events
    assert back[-1].payload["input"]["messages"] == [{"role": "user", "content": "second"}]
