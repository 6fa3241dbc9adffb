"""Definitions of the agent-loop scenarios that reach what the suite did not (issue 30: reach
by coverage): the query of a run whose input is a list of messages, read from its newest user
message or empty when it has none (``agent.recall``); the agent_step effect called with an
input that is not ``{"input"}`` (``agent.step-input``); the default keep_recent
(``agent.compaction-guard``)."""

from __future__ import annotations

from typing import Any

from .defs_agent import (
    BASE,
    PRICE,
    START,
    agent,
    answer,
    calling,
    decider,
    decision,
    done,
    failed,
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


# issue 30, sample 803808: the transcript warning is checked after the tool results too, and
# a transcript exactly at warnTranscriptBytes is not over it (agent.warn-transcript). The
# transcript of one turn: the user's question (72 bytes), the model's tool call (112; 184 in
# all), the tool results (124; 308 in all).
_ONE_TOOL_TURN = {"llm": scripted(calling(("c0", "lookup", {"item": "tea"}))),
                  "lookup": scripted(PRICE)}
_REPLAY_WARNS = {"replay": "the transcript warning is a diagnostic of each drive of the body: "
                           "a replay drives it again and warns again",
                 "always-replay": "the transcript warning is a diagnostic of each drive of the "
                                  "body: every replay warns again"}
DEFINITIONS += [
    agent("agent.loop/transcript-warning-after-tool-results", "agent.warn-transcript",
          "The transcript is checked against warnTranscriptBytes after the tool results are "
          "added too: at 184 (the question and the model's tool call exactly) the tool "
          "results take it to 308, over, so the run warns agent.transcript-bytes although "
          "maxIterations 1 ends it with agent.max-iterations before another model turn.",
          config={**BASE, "maxIterations": 1, "warnTranscriptBytes": 184},
          effects=_ONE_TOOL_TURN, actions=[START],
          claims=[{"result": failed("agent.max-iterations"),
                   "warnings": ["agent.transcript-bytes"],
                   "calls": ["#turn:0", "#turn:0:tool:0"]}],
          exclude=_REPLAY_WARNS),
    agent("agent.loop/transcript-at-warn-limit", "agent.message-size",
          "A transcript of exactly warnTranscriptBytes bytes does not cross it: the same run "
          "at 308 (the whole transcript, tool results included) gives no warning.",
          config={**BASE, "maxIterations": 1, "warnTranscriptBytes": 308},
          effects=_ONE_TOOL_TURN, actions=[START],
          claims=[{"result": failed("agent.max-iterations"), "warnings": [],
                   "calls": ["#turn:0", "#turn:0:tool:0"]}]),
]


# issue 30: the default of warnTranscriptBytes is the seed's 256 KiB (262,144 bytes), pinned on
# both sides. The same one-tool turn as above, with a question of N bytes: its transcript is
# N + 289 bytes (the question's message 53 + N, the model's tool call 112, the results 124).
_DEFAULT_WARN = 256 * 1024
_AT_DEFAULT = "x" * (_DEFAULT_WARN - 289)
# The two cases at the limit exactly rest on loom-ref's measure of a message (the canonical
# JSON of loom-ref's message forms; Loom's messageBytes is not public, and dsh-llm's Message
# carries id and source members too): their anchor is agent.message-size, loom-ref's. The
# core pins the seed's default from 4 KiB away on each side, more than any message form of
# three messages can add or take away.
_MARGIN = 4096


def _question_once(value: Any) -> Any:
    """An ``open_values`` hook that keeps a case of a 256 KiB question small: every echo of
    the question in the expectation (the trace's and the journal's step inputs) becomes
    ``{"$capture": "question"}``, so each echo must be the same text, written once (in the
    action's input) instead of five times."""
    if isinstance(value, str) and len(value) >= _DEFAULT_WARN - 289 - _MARGIN:
        return {"$capture": "question"}
    if isinstance(value, list):
        return [_question_once(v) for v in value]
    if isinstance(value, dict):
        return {k: _question_once(v) for k, v in value.items()}
    return value

DEFINITIONS += [
    agent("agent.loop/transcript-at-default-warn-limit", "agent.message-size",
          "Without warnTranscriptBytes the limit is 256 KiB: a run whose transcript is exactly "
          "262,144 bytes (a question of 261,855 bytes, then the tool call and its results) is "
          "not over it and gives no warning. (Each echo of the question in the trace and the "
          "journal is written as one $capture.)",
          config={**BASE, "maxIterations": 1},
          effects=_ONE_TOOL_TURN, actions=[{"do": "start", "input": _AT_DEFAULT}],
          claims=[{"result": failed("agent.max-iterations"), "warnings": [],
                   "calls": ["#turn:0", "#turn:0:tool:0"]}],
          open_values=_question_once),
    agent("agent.loop/transcript-past-default-warn-limit", "agent.message-size",
          "Without warnTranscriptBytes the limit is 256 KiB: a run whose transcript is 262,145 "
          "bytes, one past it (a question of 261,856 bytes, then the tool call and its "
          "results), warns agent.transcript-bytes.",
          config={**BASE, "maxIterations": 1},
          effects=_ONE_TOOL_TURN, actions=[{"do": "start", "input": _AT_DEFAULT + "x"}],
          claims=[{"result": failed("agent.max-iterations"),
                   "warnings": ["agent.transcript-bytes"],
                   "calls": ["#turn:0", "#turn:0:tool:0"]}],
          exclude=_REPLAY_WARNS, open_values=_question_once),
    agent("agent.loop/transcript-under-default-warn-limit", "agent.warn-transcript",
          "Without warnTranscriptBytes the limit is 256 KiB: a run whose transcript is 4 KiB "
          "under it (a question of 257,759 bytes, then the tool call and its results) gives "
          "no warning, however a message's bytes are measured. (Each echo of the question in "
          "the trace and the journal is written as one $capture.)",
          config={**BASE, "maxIterations": 1},
          effects=_ONE_TOOL_TURN,
          actions=[{"do": "start", "input": _AT_DEFAULT[:-_MARGIN]}],
          claims=[{"result": failed("agent.max-iterations"), "warnings": [],
                   "calls": ["#turn:0", "#turn:0:tool:0"]}],
          open_values=_question_once),
    agent("agent.loop/transcript-over-default-warn-limit", "agent.warn-transcript",
          "Without warnTranscriptBytes the limit is 256 KiB: a run whose transcript is 4 KiB "
          "over it (a question of 265,951 bytes, then the tool call and its results) warns "
          "agent.transcript-bytes, however a message's bytes are measured. (Each echo of the "
          "question is written as one $capture.)",
          config={**BASE, "maxIterations": 1},
          effects=_ONE_TOOL_TURN,
          actions=[{"do": "start", "input": _AT_DEFAULT + "x" * _MARGIN}],
          claims=[{"result": failed("agent.max-iterations"),
                   "warnings": ["agent.transcript-bytes"],
                   "calls": ["#turn:0", "#turn:0:tool:0"]}],
          exclude=_REPLAY_WARNS, open_values=_question_once),
]
