"""Agent scenarios that close the agent survivors of the fresh mutation samples 473986,
321483 and 238680 left to branch s6a (issue 30).

- ``agent.loop/warn-bytes-one``: ``warnTranscriptBytes`` 1 is the least value the config
  accepts (``agent.config-guard``: "``warn_transcript_bytes`` an int >= 1 or ``False``"), the
  accept side of ``agent.errors/warn-bytes-zero``; the one-turn transcript is then over it and
  warns once (``agent.warn-transcript``).
- ``agent.summary/fold-lowers-byte-count``: after a fold the byte count is the kept messages'
  and the summary's (``agent.byte-count``: "a fold subtracts the folded sizes and adds the
  summary's"), so the next turn compares that count, not the one before the fold, with
  ``afterBytes``; it lands exactly on ``afterBytes``, which is not over it
  (``agent.compaction-trigger``: strictly), so no second ``:compact`` step runs.

``gen_cases.definitions()`` reads ``DEFINITIONS``.
"""

from __future__ import annotations

import json
from typing import Any

from .defs_agent import (
    A0,
    A1,
    BASE,
    T0,
    T1,
    THREE_TURNS,
    agent,
    answer,
    done,
    said,
    scripted,
    step_input,
    summary_msg,
    user,
)

__all__ = ["DEFINITIONS"]


def _size(message: Any) -> int:
    """A message's canonical-JSON size in UTF-8 bytes (agent.canonical-json: sorted keys, no
    whitespace; these messages are ASCII text with no character to escape)."""
    return len(json.dumps(message, sort_keys=True, separators=(",", ":")).encode("utf-8"))


#: a prompt large enough that folding it away is what brings the transcript under afterBytes
_BIG = "x" * 500
#: the byte count before turn 2 once the big prompt is folded into the summary "S"
_AFTER_FOLD = sum(_size(m) for m in (summary_msg("S"), A0, T0, A1, T1))
#: the count before turn 1 (big prompt, A0, T0): over afterBytes, so turn 1 folds
_BEFORE_TURN_1 = sum(_size(m) for m in (user(_BIG), A0, T0))
assert _size(user(_BIG)) <= _AFTER_FOLD < _BEFORE_TURN_1  # turn 0 does not fold, turn 1 does
assert 2 * (_size(A0) + _size(T0)) <= _AFTER_FOLD  # the kept suffix is A0, T0: one folded
assert 2 * (_size(user(_BIG)) + _size(A0) + _size(T0)) > _AFTER_FOLD

DEFINITIONS: list[dict[str, Any]] = [
    agent("agent.loop/warn-bytes-one", "agent.config-guard",
          "warnTranscriptBytes 1, the least value it may take, is accepted (0 is refused, "
          "agent.errors/warn-bytes-zero); the one-turn transcript is over 1 byte and warns "
          "once with agent.transcript-bytes.",
          config={**BASE, "warnTranscriptBytes": 1},
          effects={"llm": scripted(said("Tea."))}, actions=[{"do": "start", "input": "Tea?"}],
          claims=[{"result": done(answer("Tea.", 1)), "warnings": ["agent.transcript-bytes"]}],
          exclude={"replay": "the transcript warning is a diagnostic of each drive of the "
                             "body: a replay drives it again and warns again",
                   "always-replay": "the transcript warning is a diagnostic of each drive of "
                                    "the body: every replay warns again"}),
    agent("agent.summary/fold-lowers-byte-count", "agent.message-size",
          "A fold subtracts the folded messages' sizes and adds the summary's: the big prompt "
          "folded before turn 1 no longer counts, so before turn 2 the byte count is exactly "
          "afterBytes, not over it, and no second :compact step runs.",
          config={**BASE, "compaction": {"toolId": "summarize", "afterBytes": _AFTER_FOLD}},
          effects={**THREE_TURNS, "summarize": scripted({"summary": "S"})},
          actions=[{"do": "start", "input": _BIG}],
          claims=[{"result": done(answer("Both cost 10.", 3)),
                   "calls": ["#turn:0", "#turn:0:tool:0", "#turn:1:compact", "#turn:1",
                             "#turn:1:tool:0", "#turn:2"]}],
          checks=(("the first fold folds the big prompt alone",
                   lambda o: step_input(o, "#turn:1:compact") == {"messages": [user(_BIG)]}),
                  ("turn 2 sees the summary and everything after it",
                   lambda o: step_input(o, "#turn:2")["messages"] == [
                       summary_msg("S"), A0, T0, A1, T1]))),
]
