"""Definitions of the agent-loop scenarios that reach what the suite did not (issue 30: reach
by coverage): the query of a run whose input is a list of messages, read from its newest user
message or empty when it has none (``agent.recall``)."""

from __future__ import annotations

from typing import Any

from .defs_agent import START, agent, answer, decider, decision, done, said, scripted


def _text(role: str, *texts: str) -> dict[str, Any]:
    return {"role": role, "content": [{"type": "text", "text": t} for t in texts]}


RECALL = {"modelToolId": "llm", "recall": {"decider": "memory", "recallLimit": 1}}

DEFINITIONS: list[dict[str, Any]] = [
    agent("agent.choices/query-newest-user-message", "agent.recall",
          "The query of a run given messages is the text of the newest user message, its text "
          "blocks joined by a newline, however many messages of other roles follow it.",
          config=RECALL, effects={"llm": scripted(said("Noted."))},
          deciders={"memory": decider(["likes tea"])},
          input={"messages": [_text("user", "old"), _text("assistant", "ok"),
                              _text("user", "tea", "price"), _text("assistant", "hm")]},
          actions=[START],
          claims=[{"result": done(answer("Noted.", 1)), "deciders": ["#recall"]}],
          checks=(("the query", lambda o: decision(o, "#recall")["context"]
                   == {"query": "tea\nprice", "recallLimit": 1}),)),
    agent("agent.choices/query-without-user-message", "agent.recall",
          "A run given messages none of which is a user message has the empty query.",
          config=RECALL, effects={"llm": scripted(said("Noted."))},
          deciders={"memory": decider([])},
          input={"messages": [_text("assistant", "hello")]},
          actions=[START],
          claims=[{"result": done(answer("Noted.", 1)), "deciders": ["#recall"]}],
          checks=(("the query", lambda o: decision(o, "#recall")["context"]
                   == {"query": "", "recallLimit": 1}),)),
]
