"""The agent-loop scenarios of a turn cut at the output-token ceiling (``spec/agent.md`` 6.5,
``agent.max-tokens-turn``; the model response's ``finish`` member, ``agent.model-response``).

The model is a scripted effect whose answer is an assistant message with ``"finish":
{"kind": "max-tokens"}``, the form an LLM effect returns for such a reply
(``deltas.llm-output-finish``). The scripted answer still holds its tool call with arguments
cut mid-JSON, as a provider hands it over (OpenAI's ``finish_reason: length`` closes the
call): the loop must not rely on an assembler having dropped it.
"""

from __future__ import annotations

from typing import Any

from .defs_agent import (
    ASK,
    BASE,
    START,
    agent,
    answer,
    calling,
    decider,
    done,
    failed,
    said,
    scripted,
    step_input,
    user,
)

NOTICE = ("Your previous reply reached the output-token limit and was cut off, so none of its "
          "tool calls was run. Continue from where it stopped, in shorter steps, and make again "
          "any tool call you still need.")
CUT = '{"item": "te'  # the arguments of a call cut at the token ceiling
MAX_TOKENS = {"kind": "max-tokens"}


def cut(message: dict[str, Any]) -> dict[str, Any]:
    """``message`` as an LLM effect returns a reply that finished with ``max-tokens``."""
    return {**message, "finish": MAX_TOKENS}


def notice() -> dict[str, Any]:
    return user(NOTICE)


def turn1_messages(o: Any) -> Any:
    return step_input(o, "#turn:1")["messages"]


TRUNCATED = cut(calling(("c0", "lookup", CUT), text="Let me look that up."))
LOOKUP_NEVER = scripted({"price": 10})

DEFINITIONS = [
    agent("agent.tools/max-tokens-runs-no-tool", "agent.max-tokens-turn",
          "A turn cut at the output-token ceiling runs none of its tool calls: no tool step; "
          "the model sees its reply without the call, then the notice, and the loop goes on.",
          config=BASE, effects={"llm": scripted(TRUNCATED, said("Tea costs 10.")),
                                "lookup": LOOKUP_NEVER},
          actions=[START],
          claims=[{"result": done(answer("Tea costs 10.", 2)), "calls": ["#turn:0", "#turn:1"],
                   "events": ["EXECUTION_STARTED", "STEP_STARTED", "STEP_COMPLETED",
                              "STEP_STARTED", "STEP_COMPLETED", "EXECUTION_COMPLETED"]}],
          checks=(("turn 1 sees the reply without its call, then the notice",
                   lambda o: turn1_messages(o) == [user(ASK), said("Let me look that up."),
                                                   notice()]),)),
    agent("agent.tools/max-tokens-no-approval-gate", "agent.max-tokens-turn",
          "A cut turn's tool call is not parked on its approval gate either: nothing is asked "
          "of a human about a call that will not run.",
          config={**BASE, "needsApproval": True},
          effects={"llm": scripted(TRUNCATED, said("Tea costs 10.")), "lookup": LOOKUP_NEVER},
          actions=[START],
          claims=[{"result": done(answer("Tea costs 10.", 2)), "calls": ["#turn:0", "#turn:1"]}]),
    agent("agent.tools/max-tokens-only-a-call", "agent.max-tokens-turn",
          "A cut reply that held only a tool call leaves no assistant message (an empty one "
          "is not sent): the model sees the notice after the prompt.",
          config=BASE,
          effects={"llm": scripted(cut(calling(("c0", "lookup", CUT))), said("Tea costs 10.")),
                   "lookup": LOOKUP_NEVER},
          actions=[START],
          claims=[{"result": done(answer("Tea costs 10.", 2)), "calls": ["#turn:0", "#turn:1"]}],
          checks=(("the prompt, then the notice",
                   lambda o: turn1_messages(o) == [user(ASK), notice()]),)),
    agent("agent.tools/max-tokens-never-the-answer", "agent.max-tokens-turn",
          "A cut reply without a tool call is not the answer either: the loop goes on, and a "
          "model that keeps hitting the ceiling ends in agent.max-iterations.",
          config={**BASE, "maxIterations": 2},
          effects={"llm": scripted(cut(said("Tea costs"))), "lookup": LOOKUP_NEVER},
          actions=[START],
          claims=[{"result": failed("agent.max-iterations"), "calls": ["#turn:0", "#turn:1"]}],
          checks=(("turn 1 sees the cut text and the notice",
                   lambda o: turn1_messages(o) == [user(ASK), said("Tea costs"), notice()]),)),
    agent("agent.tools/max-tokens-routed", "agent.max-tokens-turn",
          "A routed turn's recorded message cut at the ceiling is read the same way: its call "
          "never runs.",
          config={"router": {"routes": ["cheap"], "decider": "route"},
                  "tools": BASE["tools"]},
          effects={"cheap": scripted(TRUNCATED, said("Tea costs 10.")), "lookup": LOOKUP_NEVER},
          deciders={"route": decider("cheap")},
          actions=[START],
          claims=[{"result": done(answer("Tea costs 10.", 2)), "calls": [],
                   "transients": ["cheap", "cheap"]}]),
    agent("agent.tools/max-tokens-opaque", "agent.max-tokens-turn",
          "Inside the one-frame agent_step the cut turn runs no tool call either.",
          config=BASE, opaque=True,
          effects={"llm": scripted(TRUNCATED, said("Tea costs 10.")), "lookup": LOOKUP_NEVER},
          actions=[START],
          claims=[{"result": done(answer("Tea costs 10.", 2)), "calls": ["agent_step#1"],
                   "transients": ["llm", "llm"]}]),
    agent("agent.loop/finish-stop-is-an-answer", "agent.model-response",
          "A model response may carry a finish of kind stop: it is an ordinary answer, and "
          "the answer's message is the message alone.",
          config={"modelToolId": "llm"},
          effects={"llm": scripted({**said("Tea costs 10."), "finish": {"kind": "stop"}})},
          actions=[START],
          claims=[{"result": done(answer("Tea costs 10.", 1)), "calls": ["#turn:0"]}]),
    agent("agent.errors/failed-finish-in-output", "agent.model-response",
          "A model response whose finish is error is no output a model step can return (a "
          "failed stream raises): agent.model-response.",
          config={"modelToolId": "llm"},
          effects={"llm": scripted({**said("x"), "finish": {"kind": "error",
                                                            "failure": {"message": "boom"}}})},
          actions=[START],
          claims=[{"result": failed("agent.model-response"), "calls": ["#turn:0"]}]),
    agent("agent.errors/malformed-finish", "agent.model-response",
          "A finish member that is not a finish reason in the wire form: agent.model-response.",
          config={"modelToolId": "llm"},
          effects={"llm": scripted({**said("x"), "finish": "max-tokens"})},
          actions=[START],
          claims=[{"result": failed("agent.model-response"), "calls": ["#turn:0"]}]),
]
