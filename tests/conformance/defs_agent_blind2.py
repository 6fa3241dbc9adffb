"""Agent-loop scenarios for the points a fresh blind implementation found open (issue 29).

The agent chapter's second blind reading: a Go implementer who read only ``spec/``,
``conformance/INTERPRETING.md`` and the case files wrote the loop again and probed the
reference where no case decided a point (``spec/blind/agent.md#fresh-blind-reading``). Each
scenario here pins the answer the text now gives. Claims are hand-written from the spec;
``defs_agent.py`` adds these to its definitions.
"""

from __future__ import annotations

from typing import Any

from .defs_agent import (
    START,
    agent,
    answer,
    calling,
    decider,
    decision,
    done,
    error_content,
    failed,
    journal_events,
    said,
    scripted,
    step_input,
    system_of,
    user,
    waiting,
)
from .defs_agent_blind import open_error_content

__all__ = ["BLIND2"]

BEFORE_ANY_TURN = ["EXECUTION_STARTED", "EXECUTION_FAILED"]
DONE = said("Done.")
ONE_TURN = {"llm": scripted(DONE)}
NO_REPLAY_WARN = {"replay": "the transcript warning is a diagnostic of each drive of the body: "
                            "a replay drives it again and warns again",
                  "always-replay": "the transcript warning is a diagnostic of each drive of the "
                                   "body: every replay warns again"}
DECIDER_HOLE = {"replay": "the memory's bad answer leaves a decision hole that replay re-runs "
                          "(kernel.decider-throws)",
                "always-replay": "the memory's bad answer leaves a decision hole that replay "
                                 "re-runs (kernel.decider-throws)"}


def text_of(role: str, *texts: str) -> dict[str, Any]:
    return {"role": role, "content": [{"type": "text", "text": t} for t in texts]}


# -- the input, the response, the compaction guard ----------------------------------------------

ROLES_INPUT = [text_of("system", "S"),
               {"role": "tool", "content": [{"type": "tool-result", "callId": "c9",
                                             "content": "r", "isError": False}]},
               user("hi")]
ROLES_WRITTEN = [text_of("system", "S"),
                 {"role": "tool", "content": [{"type": "tool-result", "callId": "c9",
                                               "content": "r"}]},
                 user("hi")]
CALL_WITH_FINISH = {**calling(("c0", "lookup", "{}")), "finish": {"kind": "tool-calls"}}

INPUT = [
    agent("agent.loop/input-null", "agent.loop-input",
          "No input (the instruction's input evaluates to null) is not a prompt: "
          "argument.agent-input, before any turn.",
          config={"modelToolId": "llm"}, effects=ONE_TURN, actions=[{"do": "start"}],
          claims=[{"result": failed("argument.agent-input"), "calls": [],
                   "events": BEFORE_ANY_TURN}]),
    agent("agent.loop/input-any-role", "agent.loop-input",
          "A {messages} input may hold system and tool messages, in any order; they enter the "
          "transcript as the wire form writes them (isError false left out), so the first "
          "turn's journaled input holds them re-encoded.",
          config={"modelToolId": "llm"}, effects=ONE_TURN,
          actions=[{"do": "start", "input": {"messages": ROLES_INPUT}}],
          claims=[{"result": done(answer("Done.", 1)), "calls": ["#turn:0"]}],
          checks=(("re-encoded in the journal",
                   lambda o: step_input(o, "#turn:0")["messages"] == ROLES_WRITTEN),)),
    agent("agent.loop/finish-not-in-transcript", "agent.model-response",
          "A turn with tool calls and finish tool-calls: the message enters the transcript "
          "without its finish member (the next turn's journaled input holds none).",
          config={"modelToolId": "llm", "tools": [{"name": "lookup"}]},
          effects={"llm": scripted(CALL_WITH_FINISH, DONE), "lookup": scripted(1)},
          actions=[START],
          claims=[{"result": done(answer("Done.", 2)),
                   "calls": ["#turn:0", "#turn:0:tool:0", "#turn:1"]}],
          checks=(("no finish in the transcript",
                   lambda o: step_input(o, "#turn:1")["messages"][1]
                   == calling(("c0", "lookup", "{}"))),)),
    agent("agent.errors/compaction-after-messages-one", "agent.compaction-guard",
          "afterMessages 1 without keepRecent: the default keepRecent is lowered to 0, which "
          "is checked like a given one and refused, argument.agent-compaction, before any turn.",
          config={"modelToolId": "llm", "compaction": {"toolId": "summarize",
                                                       "afterMessages": 1}},
          effects={**ONE_TURN, "summarize": scripted("S")}, actions=[START],
          claims=[{"result": failed("argument.agent-compaction"), "calls": [],
                   "events": BEFORE_ANY_TURN}]),
]

# -- routing ------------------------------------------------------------------------------------

ROUTER = [
    agent("agent.router/route-choice", "agent.router",
          "A Choice from the route selector is recorded as it is, its policy journaled, and "
          "its value is the route called.",
          config={"router": {"routes": ["cheap", "strong"], "decider": "route"}},
          effects={"cheap": scripted(said("C.")), "strong": scripted(said("S."))},
          deciders={"route": {"script": [{"choice": "strong", "policy": "p",
                                          "propensity": 0.5}]}},
          actions=[START],
          claims=[{"result": done(answer("S.", 1)), "transients": ["strong"],
                   "deciders": ["#turn:0:route", "#turn:0:call:0"]}],
          checks=(("recorded with its policy",
                   lambda o: decision(o, "#turn:0:route")["choice"] == "strong"
                   and decision(o, "#turn:0:route")["policy"]["id"] == "p"),)),
    agent("agent.router/elevated-message-not-read", "agent.router",
          "Only the message of the turn's last call is read as its response: a first call's "
          "message that is not an assistant's, followed by an elevation, is not a failure.",
          config={"router": {"routes": ["cheap", "strong"], "decider": "route",
                             "elevate": "up"}},
          effects={"cheap": scripted({"role": "user", "content": []}),
                   "strong": scripted(said("S."))},
          deciders={"route": decider("cheap"), "up": decider(True)},
          actions=[START],
          claims=[{"result": done(answer("S.", 1)), "transients": ["cheap", "strong"],
                   "deciders": ["#turn:0:route", "#turn:0:call:0", "#turn:0:elevate:0",
                                "#turn:0:call:1"]}]),
    agent("agent.router/routed-stream-text", "agent.stream-text",
          "A routed turn streams its text as a model step's turn does.",
          config={"router": {"routes": ["cheap"], "decider": "route"}, "streamMinChars": 1},
          effects={"cheap": scripted(said("One. Two."))},
          deciders={"route": decider("cheap")}, actions=[START],
          claims=[{"result": done(answer("One. Two.", 1))}],
          checks=(("the batches",
                   lambda o: [p["data"] for p in journal_events(o, "STREAM_APPENDED")] == [
                       {"turn": 0, "text": "One. "}, {"turn": 0, "text": "Two."}]),)),
    agent("agent.summary/compaction-before-route", "agent.compaction-trigger",
          "A routed turn is compacted too: #turn:0:compact is a durable step, made before the "
          "turn's route decision.",
          config={"router": {"routes": ["cheap"], "decider": "route"},
                  "compaction": {"toolId": "summarize", "afterMessages": 2, "keepRecent": 1}},
          effects={"cheap": scripted(DONE), "summarize": scripted({"summary": "S"})},
          deciders={"route": decider("cheap")},
          actions=[{"do": "start", "input": {"messages": [user("a"), said("b"), user("c")]}}],
          claims=[{"result": done(answer("Done.", 1)), "calls": ["#turn:0:compact"],
                   "transients": ["cheap"], "deciders": ["#turn:0:route", "#turn:0:call:0"],
                   "events": ["EXECUTION_STARTED", "STEP_STARTED", "STEP_COMPLETED",
                              "DECISION_RECORDED", "DECISION_RECORDED",
                              "EXECUTION_COMPLETED"]}]),
]

# -- tools, approval, streaming, the warning ------------------------------------------------------

PRICING = {"name": "lookup", "toolId": "pricing"}
BILLING = {"name": "charge", "toolId": "billing"}
GATE0 = "#turn:0:tool:0:approval"

TOOLS = [
    agent("agent.approval/needs-approval-by-name", "agent.approval-gate",
          "A needsApproval list matches the call's name, not the tool's toolId: the call of "
          "lookup (listed by name) parks, the call of charge (listed by its toolId only) runs "
          "without a gate.",
          config={"modelToolId": "llm", "tools": [PRICING, BILLING],
                  "needsApproval": ["lookup", "billing"]},
          effects={"llm": scripted(calling(("c0", "lookup", "{}"), ("c1", "charge", "{}")),
                                   DONE),
                   "pricing": scripted(1), "billing": scripted(2)},
          actions=[START, {"do": "resume", "gate": GATE0, "payload": {"approved": True}}],
          claims=[{"result": waiting(GATE0), "calls": ["#turn:0"]},
                  {"result": done(answer("Done.", 2)),
                   "calls": ["#turn:0:tool:0", "#turn:0:tool:1", "#turn:1"]}]),
    agent("agent.loop/stream-no-text-turn", "agent.stream-text",
          "A turn with no text (tool calls only) streams nothing; the final turn streams its "
          "text.",
          config={"modelToolId": "llm", "streamMinChars": 1, "tools": [{"name": "lookup"}]},
          effects={"llm": scripted(calling(("c0", "lookup", "{}")), DONE),
                   "lookup": scripted(1)},
          actions=[START],
          claims=[{"result": done(answer("Done.", 2))}],
          checks=(("one batch, of turn 1",
                   lambda o: [p["data"] for p in journal_events(o, "STREAM_APPENDED")] == [
                       {"turn": 1, "text": "Done."}]),)),
]

# -- skills and recall ------------------------------------------------------------------------

MESSAGES_INPUT = {"messages": [user("first"), said("b"), text_of("user", "x", "y")]}

CHOICES = [
    agent("agent.choices/skills-query-messages", "agent.skills",
          "With a {messages} input the #skills query is the newest user message's text "
          "blocks joined by a newline, the query #recall is given.",
          config={"modelToolId": "llm", "skills": {"library": {"a": "A"}, "decider": "skills"}},
          effects=ONE_TURN, deciders={"skills": decider(["a"])},
          actions=[{"do": "start", "input": MESSAGES_INPUT}],
          claims=[{"result": done(answer("Done.", 1)), "deciders": ["#skills"]}],
          checks=(("the query", lambda o: decision(o, "#skills")["context"] == {"query": "x\ny"}),
                  ("the prompt", lambda o: system_of(o) == "## Skills\n\n### a\nA"))),
    agent("agent.choices/skills-choice-not-a-list", "agent.skills",
          "A Choice whose value is not a list of names is recorded as it is and fails the run "
          "with agent.unknown-skill.",
          config={"modelToolId": "llm", "skills": {"library": {"a": "A"}, "decider": "skills"}},
          effects=ONE_TURN, deciders={"skills": {"script": [{"choice": "a", "policy": "p"}]}},
          actions=[START],
          claims=[{"result": failed("agent.unknown-skill"), "calls": [],
                   "deciders": ["#skills"]}],
          checks=(("recorded as it is",
                   lambda o: decision(o, "#skills")["choice"] == "a"
                   and decision(o, "#skills")["policy"]["id"] == "p"),)),
    agent("agent.choices/recall-choice-refused", "agent.recall",
          "The memory answers a value, never a decision: a Choice (a recall decider's choice "
          "entry) is not a list of strings, argument.invalid raised inside the #recall "
          "decider; nothing is recorded and the run fails.",
          config={"modelToolId": "llm", "recall": {"decider": "memory"}},
          effects=ONE_TURN,
          deciders={"memory": {"script": [{"choice": ["likes tea"], "policy": "p"}]}},
          actions=[START],
          claims=[{"result": failed("argument.invalid"), "deciders": ["#recall"], "calls": [],
                   "events": BEFORE_ANY_TURN}],
          exclude=DECIDER_HOLE),
]

# -- the opaque form --------------------------------------------------------------------------

CALL_LOOKUP = {"llm": scripted(calling(("c0", "lookup", "{}")), DONE)}


def opaque_error(name: str, code: str) -> Any:
    """A check: the opaque form's second model call carries an error result of ``code``
    (its message the host's wording)."""
    def check(o: Any) -> bool:
        calls = [t["transient"] for t in o["actions"][0]["trace"]
                 if "transient" in t and t["transient"]["tool"] == "llm"]
        return len(calls) == 2 and bool(error_content(name, code)(
            calls[1]["input"]["messages"][2]["content"][0]["content"]))
    return check


OPAQUE = [
    agent("agent.loop/opaque-needs-approval-empty", "agent.step-opaque",
          "Any needsApproval is refused in the opaque form, one that never asks too: an empty "
          "list is argument.agent-step, before the step.",
          config={"modelToolId": "llm", "needsApproval": []}, effects=ONE_TURN,
          actions=[START], opaque=True,
          claims=[{"result": failed("argument.agent-step"), "calls": [], "transients": [],
                   "events": BEFORE_ANY_TURN}]),
    agent("agent.loop/opaque-needs-approval-false", "agent.step-opaque",
          "needsApproval false asks for no approval: the opaque form runs.",
          config={"modelToolId": "llm", "needsApproval": False}, effects=ONE_TURN,
          actions=[START], opaque=True,
          claims=[{"result": done(answer("Done.", 1)), "calls": ["agent_step#1"],
                   "transients": ["llm"]}]),
    agent("agent.loop/opaque-warning", "agent.warn-transcript",
          "The loop inside agent_step warns by the same rule: an input over the bound warns.",
          config={"modelToolId": "llm", "warnTranscriptBytes": 10}, effects=ONE_TURN,
          actions=[START], opaque=True,
          claims=[{"result": done(answer("Done.", 1)), "calls": ["agent_step#1"],
                   "warnings": ["agent.transcript-bytes"]}],
          exclude=NO_REPLAY_WARN),
    agent("agent.loop/opaque-unregistered-tool", "agent.step-opaque",
          "In the opaque form a tool id the host does not hold gives an effect.unknown-tool "
          "error result (the host's wording, matched by a pattern) and the loop carries on.",
          config={"modelToolId": "llm", "tools": [{"name": "lookup", "toolId": "nothere"}]},
          effects=CALL_LOOKUP, actions=[START], opaque=True,
          claims=[{"result": done(answer("Done.", 2)), "calls": ["agent_step#1"],
                   "transients": ["llm", "llm"]}],
          checks=(("an effect.unknown-tool error result",
                   opaque_error("lookup", "effect.unknown-tool")),),
          open_values=open_error_content("lookup", "effect.unknown-tool")),
    agent("agent.loop/opaque-durable-only-tool", "agent.step-opaque",
          "The opaque form's tool calls are transient: an effect that allows only durable "
          "calls gives an effect.mode-refused error result (the host's wording, matched by a "
          "pattern) and the loop carries on.",
          config={"modelToolId": "llm", "tools": [{"name": "lookup"}]},
          effects={**CALL_LOOKUP, "lookup": {"modes": ["durable"], "script": [{"return": 1}]}},
          actions=[START], opaque=True,
          claims=[{"result": done(answer("Done.", 2)), "calls": ["agent_step#1"],
                   "transients": ["llm", "llm"]}],
          checks=(("an effect.mode-refused error result",
                   opaque_error("lookup", "effect.mode-refused")),),
          open_values=open_error_content("lookup", "effect.mode-refused")),
]

BLIND2: list[dict[str, Any]] = [*INPUT, *ROUTER, *TOOLS, *CHOICES, *OPAQUE]
