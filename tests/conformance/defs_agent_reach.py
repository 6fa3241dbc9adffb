"""Definitions of the agent-loop scenarios that reach what the suite did not (issue 30: reach
by coverage): the query of a run whose input is a list of messages, read from its newest user
message or empty when it has none (``agent.recall``); the agent_step effect called with an
input that is not ``{"input"}`` (``agent.step-input``); the default keep_recent
(``agent.compaction-guard``)."""

from __future__ import annotations

from typing import Any

from .defs_agent import (
    START,
    agent,
    answer,
    decider,
    decision,
    done,
    said,
    scripted,
    step_input,
    summary_msg,
)
from .gen_cases import scenario


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


def _direct_agent_step() -> dict[str, Any]:
    """A body that runs the opaque form, then executes the agent_step tool itself with an
    input agent_step would never build."""
    body = [{"op": "agent_loop", "config": {"modelToolId": "llm"}, "input": "hi",
             "opaque": True, "as": "a"},
            {"op": "try", "body": [{"op": "execute", "tool": "agent_step", "input": "hi"}],
             "catch": {"as": "e", "body": []}},
            {"op": "return", "value": {"text": {"$get": [{"$var": "a"}, "text"]},
                                       "refused": {"$var": "e"}}}]
    defn = scenario(
        "agent.loop/opaque-step-input-not-wrapped", "agent.step-input",
        "The agent_step effect's call input is {input}: executed with any other input (here "
        "the bare prompt) it refuses it with argument.invalid before the loop runs, so the "
        "step fails with it and the model is not called.",
        body=body, effects={"llm": scripted(said("Noted."))}, workflow="agent",
        actions=[START],
        claims=[{"result": done({"text": "Noted.",
                                 "refused": {"code": "argument.invalid"}}),
                 "calls": ["agent_step#1", "agent_step#2"], "transients": ["llm"],
                 "events": ["EXECUTION_STARTED", "STEP_STARTED", "STEP_COMPLETED",
                            "STEP_STARTED", "STEP_FAILED", "EXECUTION_COMPLETED"]}])
    defn["case"]["requires"] = ["agent"]
    return defn


DEFINITIONS.append(_direct_agent_step())

ELEVEN = [_text("user" if i % 2 == 0 else "assistant", f"m{i}") for i in range(11)]
DEFINITIONS.append(
    agent("agent.summary/default-keep-recent", "agent.compaction-guard",
          "Without keepRecent, compaction keeps the newest 8 messages (the default, when "
          "afterMessages - 1 is not smaller): 11 messages past afterMessages 10 fold the "
          "oldest 3 and keep 8.",
          config={"modelToolId": "llm", "compaction": {"toolId": "summarize",
                                                       "afterMessages": 10}},
          effects={"llm": scripted(said("Noted.")), "summarize": scripted({"summary": "S"})},
          input={"messages": ELEVEN}, actions=[START],
          claims=[{"result": done(answer("Noted.", 1)),
                   "calls": ["#turn:0:compact", "#turn:0"]}],
          checks=(("the fold", lambda o: step_input(o, "#turn:0:compact")
                   == {"messages": ELEVEN[:3]}),
                  ("the kept suffix", lambda o: step_input(o, "#turn:0")["messages"]
                   == [summary_msg("S"), *ELEVEN[3:]]))))
