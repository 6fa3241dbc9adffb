"""Agent-loop scenarios for the points a second fresh blind reading found open (issue 29).

The agent chapter's third blind reading (``spec/blind/agent.md#second-fresh-blind-reading``):
a Go implementer who read only ``spec/``, ``conformance/INTERPRETING.md`` and the case files
listed every point the text left open. Each scenario here pins the answer the text now gives
where no case pinned it. Claims are hand-written from the spec; ``defs_agent.py`` adds these
to its definitions.
"""

from __future__ import annotations

from typing import Any

from .defs_agent import (
    BASE,
    START,
    agent,
    calling,
    done,
    error_content,
    said,
    scripted,
    turn1_results,
)

__all__ = ["BLIND3"]

EMPTY_REPLY = {"role": "assistant", "content": []}

BLIND3: list[dict[str, Any]] = [
    agent("agent.loop/empty-content-is-final", "agent.answer",
          "An assistant message with content [] decodes and holds no tool call: it is the "
          "final one, and the answer's text is \"\".",
          config={"modelToolId": "llm"}, effects={"llm": scripted(EMPTY_REPLY)},
          actions=[START],
          claims=[{"result": done({"text": "", "message": EMPTY_REPLY, "turns": 1}),
                   "calls": ["#turn:0"]}]),
    agent("agent.tools/check-order-mixed", "agent.tool-error",
          "The checks of one call run in order (the call limit, the name, the arguments): an "
          "unknown name with arguments that are not JSON is agent.unknown-tool; a call past "
          "the limit is agent.tool-call-limit whatever its name and arguments.",
          config={**BASE, "maxToolCallsPerTurn": 1},
          effects={"llm": scripted(calling(("c0", "teleport", "{oops"),
                                           ("c1", "teleport", "[1]")),
                                   said("Done."))},
          actions=[START],
          claims=[{"result": done({"text": "Done.", "message": said("Done."), "turns": 2}),
                   "calls": ["#turn:0", "#turn:1"]}],
          checks=(("the name before the arguments, the limit before both",
                   lambda o: error_content("teleport", "agent.unknown-tool")(
                       turn1_results(o)[0]["content"])
                   and error_content("teleport", "agent.tool-call-limit")(
                       turn1_results(o)[1]["content"])),)),
]
