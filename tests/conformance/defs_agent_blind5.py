"""Agent-loop scenarios for the points a fourth fresh blind reading found open (issue 29).

The agent chapter's fifth blind reading (``spec/blind/agent.md#fourth-fresh-blind-reading``):
a Go implementer who read only ``spec/``, ``conformance/INTERPRETING.md`` and the case files
listed every point the text left open; no case decided any of them, and each scenario here
pins the answer the text now gives. Claims are hand-written from the spec; ``defs_agent.py``
adds these to its definitions.
"""

from __future__ import annotations

from typing import Any

from .defs_agent import BASE, START, agent, answer, decider, decision, done, said, scripted
from .defs_agent_blind import refused

__all__ = ["BLIND5"]


def _text(role: str, *texts: str) -> dict[str, Any]:
    return {"role": role, "content": [{"type": "text", "text": t} for t in texts]}


RECALL = {"modelToolId": "llm", "recall": {"decider": "memory", "recallLimit": 1}}

BLIND5: list[dict[str, Any]] = [
    refused("agent.errors/tool-description-not-a-string", "agent.config-guard",
            "A tool's description is a string: a number is refused when the config is built "
            "(argument.invalid, before any turn), not first when the model is called.",
            {**BASE, "tools": [{"name": "lookup", "description": 5}]}, "argument.invalid"),
    refused("agent.errors/tool-description-null", "agent.config-guard",
            "A tool's description given as null is a value of the wrong type, not an absent "
            "one: argument.invalid when the config is built.",
            {**BASE, "tools": [{"name": "lookup", "description": None}]}, "argument.invalid"),
    agent("agent.choices/query-newest-user-without-text", "agent.recall",
          "The query is read from the newest user message only: when it has no text block, "
          "the query is empty, though an older user message has text.",
          config=RECALL, effects={"llm": scripted(said("Noted."))},
          deciders={"memory": decider([])},
          input={"messages": [_text("user", "tea"), _text("assistant", "ok"),
                              {"role": "user", "content": []}]},
          actions=[START],
          claims=[{"result": done(answer("Noted.", 1)), "deciders": ["#recall"]}],
          checks=(("the query", lambda o: decision(o, "#recall")["context"]
                   == {"query": "", "recallLimit": 1}),)),
]
