"""Agent-loop scenarios for the points a blind implementation found open (issue 29).

A Go implementer who read only ``spec/``, ``conformance/INTERPRETING.md`` and the case files
wrote the loop and recorded every point the text left open (``spec/blind/agent.md``). Each
scenario here pins the answer the text now gives where it had lived only in loom_ref's code,
and the config guard's refusals that the case schema used to forbid (INTERPRETING.md section
5a lets a case give any value of the member's type). Claims are hand-written from the spec;
``defs_agent.py`` adds these to its definitions.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from .defs_agent import (
    BASE,
    CHARGE,
    LIBRARY,
    LOOKUP,
    PRICE,
    PRICE_CONTENT,
    START,
    TWO_TURNS,
    agent,
    answer,
    calling,
    decider,
    decision,
    done,
    error_content,
    failed,
    journal_events,
    raising,
    said,
    scripted,
    step_input,
    system_of,
    turn1_results,
    user,
    waiting,
)

__all__ = ["BLIND"]

BEFORE_ANY_TURN = ["EXECUTION_STARTED", "EXECUTION_FAILED"]
DONE = said("Done.")


def refused(case_id: str, anchor: str, description: str, config: dict[str, Any], code: str
            ) -> dict[str, Any]:
    """A config the loop refuses when it is built: the run fails with ``code``, no turn."""
    return agent(case_id, anchor, description, config=config, effects=TWO_TURNS,
                 actions=[START],
                 claims=[{"result": failed(code), "calls": [], "transients": [],
                          "events": BEFORE_ANY_TURN}])


# -- the config guard's refusals (the case schema now lets them be written) ---------------------

GUARD = [
    refused("agent.errors/model-tool-id-empty", "agent.model-access",
            "A modelToolId that is the empty string is no model access: "
            "argument.agent-model-access, before any turn.",
            {**BASE, "modelToolId": ""}, "argument.agent-model-access"),
    refused("agent.errors/max-iterations-zero", "agent.config-guard",
            "maxIterations is an int >= 1: 0 is argument.invalid when the config is built.",
            {**BASE, "maxIterations": 0}, "argument.invalid"),
    refused("agent.errors/max-tool-calls-zero", "agent.config-guard",
            "maxToolCallsPerTurn is an int >= 1: 0 is argument.invalid when the config is "
            "built.", {**BASE, "maxToolCallsPerTurn": 0}, "argument.invalid"),
    refused("agent.errors/warn-bytes-zero", "agent.config-guard",
            "warnTranscriptBytes is an int >= 1 or false: 0 is argument.invalid.",
            {**BASE, "warnTranscriptBytes": 0}, "argument.invalid"),
    refused("agent.errors/tool-name-empty", "agent.config-guard",
            "A tool's name is a non-empty string: argument.invalid.",
            {**BASE, "tools": [{"name": ""}]}, "argument.invalid"),
    refused("agent.errors/tool-id-empty", "agent.config-guard",
            "A tool's toolId is a non-empty string: argument.invalid.",
            {**BASE, "tools": [{"name": "lookup", "toolId": ""}]}, "argument.invalid"),
    refused("agent.errors/compaction-keep-recent-zero", "agent.compaction-guard",
            "A compaction block's keepRecent is an int >= 1: 0 is argument.agent-compaction, "
            "before any turn.",
            {**BASE, "compaction": {"toolId": "summarize", "afterBytes": 1000, "keepRecent": 0}},
            "argument.agent-compaction"),
    refused("agent.errors/compaction-threshold-zero", "agent.compaction-guard",
            "A threshold is an int >= 1: afterMessages 0 is argument.agent-compaction.",
            {**BASE, "compaction": {"toolId": "summarize", "afterMessages": 0}},
            "argument.agent-compaction"),
    refused("agent.errors/compaction-tool-id-empty", "agent.compaction-guard",
            "A compaction block's toolId is a non-empty string: argument.agent-compaction.",
            {**BASE, "compaction": {"toolId": "", "afterBytes": 1000}},
            "argument.agent-compaction"),
    refused("agent.errors/routes-empty", "agent.config-guard",
            "A router's routes are a non-empty list: none is argument.invalid.",
            {"router": {"routes": [], "decider": "route"}}, "argument.invalid"),
    refused("agent.errors/routes-repeated", "agent.config-guard",
            "A router's routes are distinct: a repeated route is argument.invalid.",
            {"router": {"routes": ["cheap", "cheap"], "decider": "route"}}, "argument.invalid"),
    refused("agent.errors/recall-limit-zero", "agent.config-guard",
            "recallLimit is an int >= 1: 0 is argument.invalid when the config is built.",
            {"modelToolId": "llm", "recall": {"decider": "memory", "recallLimit": 0}},
            "argument.invalid"),
    refused("agent.errors/skill-name-empty", "agent.config-guard",
            "A skills library maps non-empty names to strings: an empty name is "
            "argument.invalid.",
            {"modelToolId": "llm", "skills": {"library": {"": "Be warm."}, "decider": "s"}},
            "argument.invalid"),
    agent("agent.errors/config-before-input", "agent.config-guard",
          "The config is checked before the input is read: a bad config and a bad input fail "
          "the run with the config's code.",
          config={**BASE, "streamMinChars": 0}, effects=TWO_TURNS,
          actions=[{"do": "start", "input": 5}],
          claims=[{"result": failed("argument.invalid"), "calls": [],
                   "events": BEFORE_ANY_TURN}]),
]

# -- the input and the model's response ----------------------------------------------------------

INPUT = [
    agent("agent.loop/input-extra-member", "agent.loop-input",
          "{messages} takes no other member: one is argument.agent-input.",
          config={"modelToolId": "llm"}, effects={"llm": scripted(DONE)},
          actions=[{"do": "start", "input": {"messages": [user("hi")], "x": 1}}],
          claims=[{"result": failed("argument.agent-input"), "calls": [],
                   "events": BEFORE_ANY_TURN}]),
    agent("agent.loop/input-malformed-message", "agent.loop-input",
          "A message of the input that does not decode in the wire form (content a string) is "
          "argument.agent-input.",
          config={"modelToolId": "llm"}, effects={"llm": scripted(DONE)},
          actions=[{"do": "start", "input": {"messages": [{"role": "user", "content": "hi"}]}}],
          claims=[{"result": failed("argument.agent-input"), "calls": []}]),
    agent("agent.loop/empty-prompt", "agent.loop-input",
          "The empty string is a prompt: one user message whose text block is empty.",
          config={"modelToolId": "llm"}, effects={"llm": scripted(DONE)},
          actions=[{"do": "start", "input": ""}],
          claims=[{"result": done(answer("Done.", 1)), "calls": ["#turn:0"]}],
          checks=(("the model sees one empty user text",
                   lambda o: step_input(o, "#turn:0")["messages"] == [user("")]),)),
    agent("agent.errors/response-extra-member", "agent.model-response",
          "A model response with a member besides role, content and finish (usage) does not "
          "decode: agent.model-response.",
          config={"modelToolId": "llm"},
          effects={"llm": scripted({**DONE, "usage": {"inputTokens": 1, "outputTokens": 1}})},
          actions=[START],
          claims=[{"result": failed("agent.model-response"), "calls": ["#turn:0"]}]),
    agent("agent.loop/finish-tool-calls-without-calls", "agent.model-response",
          "A finish of kind tool-calls changes nothing: a message with no tool call is the "
          "answer, and the answer's message carries no finish.",
          config={"modelToolId": "llm"},
          effects={"llm": scripted({**DONE, "finish": {"kind": "tool-calls"}})},
          actions=[START], claims=[{"result": done(answer("Done.", 1))}]),
]

# -- tool calls -------------------------------------------------------------------------------

EDGE_ARGS = [(" {\"a\": 1} ", '{"tool":"lookup","result":{"a":1}}', False),
             ("\u0085", '{"tool":"lookup","result":{}}', False),
             ("\u00a0{}", "arguments are not valid JSON", True),
             ('{"a":1}x', "arguments are not valid JSON", True),
             ('{"a":1,"a":2}', '{"tool":"lookup","result":{"a":2}}', False),
             ("[1]", "arguments must be a JSON object", True),
             ('{"s":"\\u00e9"}', '{"tool":"lookup","result":{"s":"\u00e9"}}', False),
             ({"a": 1}, "arguments must be a JSON object", True)]


def _edge_results(o: Any) -> bool:
    got = turn1_results(o)
    for block, (_, want, is_error) in zip(got, EDGE_ARGS, strict=True):
        if is_error:
            value = json.loads(block["content"])
            if block.get("isError") is not True or value["error"] != {
                    "code": "agent.tool-arguments", "message": want}:
                return False
        elif block["content"] != want or "isError" in block:
            return False
    return True


def _message(args: Any, cid: str) -> dict[str, Any]:
    return {"type": "tool-call", "id": cid, "name": "lookup", "arguments": args}


EDGE_CALL = {"role": "assistant",
             "content": [_message(a, f"c{k}") for k, (a, _, _) in enumerate(EDGE_ARGS)]}


def _portable_escape(text: str) -> str:
    """``text`` as a portable-1 pattern matching it literally (spec/governance.md 4.2.1)."""
    return "".join("\\" + ch if ch in "^$\\.*+?()[]{}|" else ch for ch in text)


def open_error_content(name: str, code: str) -> Callable[[Any], Any]:
    """An ``open_values`` hook: every error tool-result content of tool ``name`` with ``code``
    becomes a pattern stopping before the message, whose wording is the implementation's
    (``agent.tool-error``, ``kernel.step-failure``)."""
    head = f'{{"tool":{json.dumps(name)},"error":{{"code":{json.dumps(code)},"message":"'

    def walk(value: Any) -> Any:
        if isinstance(value, str) and value.startswith(head):
            return {"$regex": _portable_escape(head)}
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        return value

    return walk


TOOLS = [
    agent("agent.tools/arguments-edge-json", "agent.tool-spec",
          "The arguments are one JSON text: JSON whitespace may surround it; whitespace-only "
          "in the sense of 6.10 (U+0085) is {}; a U+00A0 before the value or data after it is "
          "not JSON; a repeated member name keeps its last value; an escape is its character; an "
          "array, or arguments that are not a string, is not an object.",
          config={"modelToolId": "llm", "tools": [{"name": "lookup"}]},
          effects={"llm": scripted(EDGE_CALL, DONE), "lookup": {"script": [{"echo": True}]}},
          actions=[START],
          claims=[{"result": done(answer("Done.", 2)),
                   "calls": ["#turn:0", "#turn:0:tool:0", "#turn:0:tool:1", "#turn:0:tool:4",
                             "#turn:0:tool:6", "#turn:1"]}],
          checks=(("each call's result", _edge_results),)),
    agent("agent.tools/raise-without-code", "agent.tool-error",
          "A tool that raises an error without a code: its step fails with effect.failed and "
          "the model gets an error result carrying that code and the step's message, whose "
          "wording is the implementation's (matched by a pattern that stops before it).",
          config=BASE,
          effects={"llm": scripted(calling(("c0", "lookup", {"item": "tea"})), DONE),
                   "lookup": {"script": [{"raise": {"message": "boom"}}]}},
          actions=[START],
          claims=[{"result": done(answer("Done.", 2)),
                   "calls": ["#turn:0", "#turn:0:tool:0", "#turn:1"]}],
          checks=(("an effect.failed error result",
                   lambda o: error_content("lookup", "effect.failed")(
                       turn1_results(o)[0]["content"])),),
          open_values=open_error_content("lookup", "effect.failed")),
    agent("agent.tools/unregistered-tool", "agent.tool-error",
          "A configured tool whose effect the host does not hold: the step fails with "
          "effect.unknown-tool and the model gets that error result; the host's message is the "
          "implementation's own (matched by a pattern that stops before it).",
          config={"modelToolId": "llm", "tools": [{"name": "lookup"}]},
          effects={"llm": scripted(calling(("c0", "lookup", {"item": "tea"})), DONE)},
          actions=[START],
          claims=[{"result": done(answer("Done.", 2)), "calls": ["#turn:0", "#turn:1"],
                   "events": ["EXECUTION_STARTED", "STEP_STARTED", "STEP_COMPLETED",
                              "STEP_STARTED", "STEP_FAILED", "STEP_STARTED", "STEP_COMPLETED",
                              "EXECUTION_COMPLETED"]}],
          checks=(("an effect.unknown-tool error result",
                   lambda o: error_content("lookup", "effect.unknown-tool")(
                       turn1_results(o)[0]["content"])),),
          open_values=open_error_content("lookup", "effect.unknown-tool")),
    agent("agent.loop/stream-cut-turn-text", "agent.stream-text",
          "A turn cut at the output-token ceiling streams its text like any turn, before the "
          "next turn.",
          config={"modelToolId": "llm", "streamMinChars": 1, "maxIterations": 2},
          effects={"llm": scripted({**said("Cut. off"), "finish": {"kind": "max-tokens"}},
                                   DONE)},
          actions=[START],
          claims=[{"result": done(answer("Done.", 2)),
                   "events": ["EXECUTION_STARTED", "STEP_STARTED", "STEP_COMPLETED",
                              "STREAM_APPENDED", "STREAM_APPENDED", "STEP_STARTED",
                              "STEP_COMPLETED", "STREAM_APPENDED", "EXECUTION_COMPLETED"]}],
          checks=(("the batches, by turn",
                   lambda o: [p["data"] for p in journal_events(o, "STREAM_APPENDED")] == [
                       {"turn": 0, "text": "Cut. "}, {"turn": 0, "text": "off"},
                       {"turn": 1, "text": "Done."}]),)),
]

# -- approval ---------------------------------------------------------------------------------

GATE0 = "#turn:0:tool:0:approval"
GATE1 = "#turn:0:tool:1:approval"
TWO_CALLS = {"llm": scripted(calling(("c0", "lookup", {"item": "tea"}),
                                     ("c1", "charge", {"amount": 10})), said("Settled.")),
             "lookup": scripted(PRICE), "charge": scripted({"charged": 10})}
REFUSAL = '{"tool":"charge","result":{"reason":"declined by the approver","refused":true}}'
CHARGE_CFG = {"modelToolId": "llm", "tools": [CHARGE], "needsApproval": True}
ONE_CHARGE = {"llm": scripted(calling(("c0", "charge", {"amount": 10})), said("Settled.")),
              "charge": scripted({"charged": 10})}


def refusal_case(case_id: str, description: str, payload: Any) -> dict[str, Any]:
    return agent(case_id, "agent.approval-payload", description, config=CHARGE_CFG,
                 effects=ONE_CHARGE,
                 actions=[START, {"do": "resume", "gate": GATE0, "payload": payload}],
                 claims=[{"result": waiting(GATE0)},
                         {"result": done(answer("Settled.", 2)), "calls": ["#turn:1"]}],
                 checks=(("a refusal with the default reason",
                          lambda o: turn1_results(o)[0]["content"] == REFUSAL),))


APPROVAL = [
    agent("agent.approval/two-gates-one-turn", "agent.approval-gate",
          "A turn's calls are handled one after another: the first call parks, runs once "
          "approved, and only then does the second call's gate open.",
          config={"modelToolId": "llm", "tools": [LOOKUP, CHARGE], "needsApproval": True},
          effects=TWO_CALLS,
          actions=[START, {"do": "resume", "gate": GATE0, "payload": {"approved": True}},
                   {"do": "resume", "gate": GATE1, "payload": {"approved": True}}],
          claims=[{"result": waiting(GATE0), "calls": ["#turn:0"]},
                  {"result": waiting(GATE1), "calls": ["#turn:0:tool:0"]},
                  {"result": done(answer("Settled.", 2)), "calls": ["#turn:0:tool:1", "#turn:1"]}],
          checks=(("the first result is the lookup's",
                   lambda o: turn1_results(o)[0]["content"] == PRICE_CONTENT),)),
    refusal_case("agent.approval/payload-not-an-object",
                 "An untyped gate's payload that is not an object refuses, with the default "
                 "reason.", "yes"),
    refusal_case("agent.approval/approved-one-refuses",
                 "approved must be the JSON true: 1 refuses (booleans are not numbers), and a "
                 "reason that is not a string gives the default one.",
                 {"approved": 1, "reason": 5}),
]

# -- skills, compaction, the warning --------------------------------------------------------------

OTHER = [
    agent("agent.choices/skills-chosen-twice", "agent.skills",
          "A skill chosen twice is not refused: the choice is used as recorded, and its "
          "instructions appear twice in the system prompt.",
          config={"modelToolId": "llm", "skills": {"library": LIBRARY, "decider": "skills"}},
          effects={"llm": scripted(DONE)}, deciders={"skills": decider(["tone", "tone"])},
          actions=[START], claims=[{"result": done(answer("Done.", 1)), "deciders": ["#skills"]}],
          checks=(("twice in the prompt", lambda o: system_of(o)
                   == "## Skills\n\n### tone\nBe warm.\n\n### tone\nBe warm."),
                  ("recorded as chosen",
                   lambda o: decision(o, "#skills")["choice"] == ["tone", "tone"]))),
    agent("agent.summary/compaction-before-turn-0", "agent.compaction-trigger",
          "Compaction runs before every turn, turn 0 included: an input over afterMessages is "
          "compacted (#turn:0:compact) before the first model call.",
          config={"modelToolId": "llm",
                  "compaction": {"toolId": "summarize", "afterMessages": 2, "keepRecent": 1}},
          effects={"llm": scripted(DONE), "summarize": scripted({"summary": "S"})},
          actions=[{"do": "start", "input": {"messages": [user("a"), said("b"), user("c")]}}],
          claims=[{"result": done(answer("Done.", 1)), "calls": ["#turn:0:compact", "#turn:0"]}],
          checks=(("two messages folded, the newest kept",
                   lambda o: step_input(o, "#turn:0:compact") == {
                       "messages": [user("a"), said("b")]}
                   and step_input(o, "#turn:0")["messages"][1:] == [user("c")]),)),
    agent("agent.summary/default-keep-recent-lowered", "agent.compaction-guard",
          "Without keepRecent the default 8 is lowered to afterMessages - 1: with afterMessages "
          "3, five messages keep the newest 2 and fold 3.",
          config={"modelToolId": "llm", "tools": [{"name": "lookup"}],
                  "compaction": {"toolId": "summarize", "afterMessages": 3}},
          effects={"llm": scripted(calling(("c0", "lookup", "{}")),
                                   calling(("c1", "lookup", "{}")), DONE),
                   "lookup": scripted(1), "summarize": scripted("S")},
          actions=[START],
          claims=[{"result": done(answer("Done.", 3)),
                   "calls": ["#turn:0", "#turn:0:tool:0", "#turn:1", "#turn:1:tool:0",
                             "#turn:2:compact", "#turn:2"]}],
          checks=(("three folded",
                   lambda o: len(step_input(o, "#turn:2:compact")["messages"]) == 3
                   and len(step_input(o, "#turn:2")["messages"]) == 3),)),
    agent("agent.loop/warning-from-the-input", "agent.warn-transcript",
          "The transcript warning is checked after every push, the input's own messages "
          "included: an input over the bound warns though the first model call then fails.",
          config={"modelToolId": "llm", "warnTranscriptBytes": 10},
          effects={"llm": raising("x.down", "the model is down")}, actions=[START],
          claims=[{"result": failed("x.down"), "calls": ["#turn:0"],
                   "warnings": ["agent.transcript-bytes"]}],
          exclude={"replay": "the transcript warning is a diagnostic of each drive of the "
                             "body: a replay drives it again and warns again",
                   "always-replay": "the transcript warning is a diagnostic of each drive of "
                                    "the body: every replay warns again"}),
]

# -- routing and the opaque form ----------------------------------------------------------------

ROUTER = [
    agent("agent.router/elevate-from-middle", "agent.router",
          "k counts the calls of the turn: from the middle route, call:0 on it, elevate:0, "
          "call:1 on the strongest, and no elevation after the last route.",
          config={"router": {"routes": ["a", "b", "c"], "decider": "route", "elevate": "up"}},
          effects={"a": scripted(said("A.")), "b": scripted(said("B.")),
                   "c": scripted(said("C."))},
          deciders={"route": decider("b"), "up": decider(True)},
          actions=[START],
          claims=[{"result": done(answer("C.", 1)), "transients": ["b", "c"],
                   "deciders": ["#turn:0:route", "#turn:0:call:0", "#turn:0:elevate:0",
                                "#turn:0:call:1"]}]),
    agent("agent.router/elevate-choice", "agent.router",
          "A Choice from the elevation predicate is recorded as it is (with its policy) and "
          "elevates only when its value is true: \"yes\" does not.",
          config={"router": {"routes": ["a", "b"], "decider": "route", "elevate": "up"}},
          effects={"a": scripted(said("A.")), "b": scripted(said("B."))},
          deciders={"route": decider("a"),
                    "up": {"script": [{"choice": "yes", "policy": "p", "propensity": 0.5}]}},
          actions=[START],
          claims=[{"result": done(answer("A.", 1)), "transients": ["a"]}],
          checks=(("recorded as it is",
                   lambda o: decision(o, "#turn:0:elevate:0")["choice"] == "yes"
                   and decision(o, "#turn:0:elevate:0")["policy"]["id"] == "p"),)),
    agent("agent.loop/opaque-config-checked-first", "agent.step-opaque",
          "The opaque form checks the config as a body's first: a config with neither model "
          "access and needsApproval fails with argument.agent-model-access, not "
          "argument.agent-step.",
          config={"tools": [LOOKUP], "needsApproval": True}, effects=TWO_TURNS,
          actions=[START], opaque=True,
          claims=[{"result": failed("argument.agent-model-access"), "calls": [],
                   "events": BEFORE_ANY_TURN}]),
    agent("agent.loop/opaque-bad-input", "agent.step-opaque",
          "The opaque form reads its input inside the step: a bad input fails the agent_step "
          "step with argument.agent-input, and the run with it.",
          config={"modelToolId": "llm"}, effects={"llm": scripted(DONE)},
          actions=[{"do": "start", "input": 5}], opaque=True,
          claims=[{"result": failed("argument.agent-input"), "calls": ["agent_step#1"],
                   "transients": [],
                   "events": ["EXECUTION_STARTED", "STEP_STARTED", "STEP_FAILED",
                              "EXECUTION_FAILED"]}]),
]

BLIND: list[dict[str, Any]] = [*GUARD, *INPUT, *TOOLS, *APPROVAL, *OTHER, *ROUTER]

