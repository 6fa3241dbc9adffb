"""Agent scenarios that close the agent survivors of the fresh mutation samples 473986,
321483 and 238680 (issue 30).

- ``agent.tools/call-limit-default-16``: with no ``maxToolCallsPerTurn`` the limit is its
  default, 16 (``agent.tool-error``: "a call at position ``j >= max_tool_calls_per_turn``
  (default 16 ...)"): of 17 calls in one turn the first 16 run (position 15 is accepted) and
  the 17th (position 16) is an ``agent.tool-call-limit`` error result, at both sides of the
  boundary. ``gen_cases.definitions()`` reads ``DEFINITIONS``.
"""

from __future__ import annotations

import json
from typing import Any

from .defs_agent import (
    BASE,
    PRICE,
    PRICE_CONTENT,
    START,
    agent,
    answer,
    calling,
    done,
    error_content,
    said,
    scripted,
    turn1_results,
)

__all__ = ["DEFINITIONS"]

_CALLS = [(f"c{j}", "lookup", {"item": f"tea{j}"}) for j in range(17)]

DEFINITIONS: list[dict[str, Any]] = [
    agent("agent.tools/call-limit-default-16", "agent.tool-error",
          "With no maxToolCallsPerTurn the limit is its default, 16: of 17 calls in one turn "
          "the first 16 run (positions 0 to 15) and the 17th (position 16) is not run, an "
          "agent.tool-call-limit error result.",
          config=BASE,
          effects={"llm": scripted(calling(*_CALLS), said("Tea costs 10.")),
                   "lookup": scripted(*[PRICE] * 16)},
          actions=[START],
          claims=[{"result": done(answer("Tea costs 10.", 2)),
                   "calls": ["#turn:0", *[f"#turn:0:tool:{j}" for j in range(16)],
                             "#turn:1"]}],
          checks=(("16 results, then a call-limit error for the 17th",
                   lambda o: [b["content"] for b in turn1_results(o)[:16]]
                   == [PRICE_CONTENT] * 16
                   and len(turn1_results(o)) == 17
                   and turn1_results(o)[16].get("isError") is True
                   and error_content("lookup", "agent.tool-call-limit")(
                       turn1_results(o)[16]["content"])),
                  ("its message", lambda o: json.loads(turn1_results(o)[16]["content"])[
                      "error"]["message"]
                   == "more than 16 tool calls in one turn; this one was not run"))),
]
