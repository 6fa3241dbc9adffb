"""Definitions of the agent-loop scenarios (``spec/agent.md``; ADR 0087 and its amendments).

Groups ``agent.loop``, ``agent.tools``, ``agent.approval``, ``agent.choices``,
``agent.router``, ``agent.summary`` and ``agent.errors``: each case runs the body instruction
``agent_loop`` (INTERPRETING.md section 5a) over scripted effects and deciders, and requires
the capability ``agent``. The model is a scripted effect whose n-th answer is an assistant
message in the wire form, so a fresh process after a crash gets the same answers: the
generated crash variants of these cases are ADR 0087's crash matrix ("recovery after a
mid-loop crash re-runs ONLY the unfinished turn").

Every claim below is written by hand from the spec; the generator refuses to write a case
whose observations contradict one.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from .gen_cases import scenario

# -- messages -------------------------------------------------------------------------------


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def said(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}]}


def calling(*calls: tuple[str, str, Any], text: str | None = None) -> dict[str, Any]:
    """An assistant message: optional text, then tool calls ``(id, name, arguments)``; a
    non-string ``arguments`` is JSON-encoded."""
    content: list[Any] = [{"type": "text", "text": text}] if text else []
    for cid, name, args in calls:
        raw = args if isinstance(args, str) else json.dumps(args, separators=(",", ":"))
        content.append({"type": "tool-call", "id": cid, "name": name, "arguments": raw})
    return {"role": "assistant", "content": content}


def results(*blocks: tuple[str, str, bool]) -> dict[str, Any]:
    """The tool message of a turn: ``(call id, content, is_error)`` per block."""
    out = []
    for cid, content, is_error in blocks:
        block: dict[str, Any] = {"type": "tool-result", "callId": cid, "content": content}
        if is_error:
            block["isError"] = True
        out.append(block)
    return {"role": "tool", "content": out}


def scripted(*answers: Any, idempotent: bool = True) -> dict[str, Any]:
    return {"idempotent": idempotent, "script": [{"return": a} for a in answers]}


def raising(code: str, message: str, *, idempotent: bool = True) -> dict[str, Any]:
    return {"idempotent": idempotent, "script": [{"raise": {"code": code, "message": message}}]}


def decider(*answers: Any) -> dict[str, Any]:
    return {"script": [{"return": a} for a in answers]}


# -- results and observations ----------------------------------------------------------------


def done(output: Any) -> dict[str, Any]:
    return {"status": "completed", "output": output}


def failed(code: str) -> dict[str, Any]:
    return {"status": "failed", "error": {"code": code}}


def answer(text: str, turns: int) -> dict[str, Any]:
    return {"text": text, "message": said(text), "turns": turns}


def waiting(gate: str) -> dict[str, Any]:
    return {"status": "suspended", "waitingOn": gate}


Obs = Mapping[str, Any]
Check = tuple[str, Callable[[Obs], bool]]


def journal_events(obs: Obs, kind: str) -> list[Any]:
    return [e["payload"] for e in obs["journal"]["events"] if e["kind"] == kind]


def step_input(obs: Obs, step: str) -> Any:
    """The journaled input of step ``step`` (its one STEP_STARTED)."""
    found = [p["input"] for p in journal_events(obs, "STEP_STARTED") if p["stepId"] == step]
    assert len(found) == 1, (step, found)
    return found[0]


def step_tool(obs: Obs, step: str) -> str:
    return str(next(p["toolId"] for p in journal_events(obs, "STEP_STARTED")
                    if p["stepId"] == step))


def decision(obs: Obs, decision_id: str) -> Any:
    found = [p for p in journal_events(obs, "DECISION_RECORDED")
             if p["decisionId"] == decision_id]
    assert len(found) == 1, (decision_id, found)
    return found[0]


def failure(obs: Obs) -> Any:
    return journal_events(obs, "EXECUTION_FAILED")[0]["error"]


# -- case builder ----------------------------------------------------------------------------

ANSWER = "a"
ASK = "What does tea cost?"
START = {"do": "start", "input": ASK}
LOOKUP = {"name": "lookup", "description": "Look up a price",
          "parameters": {"type": "object", "properties": {"item": {"type": "string"}}}}
LOOKUP_SPEC = {"name": "lookup", "description": "Look up a price",
               "parameters": LOOKUP["parameters"]}
BASE = {"modelToolId": "llm", "system": "Be brief.", "tools": [LOOKUP]}
PRICE = {"price": 10}
PRICE_CONTENT = '{"tool":"lookup","result":{"price":10}}'


def agent(case_id: str, anchor: str, description: str, *, config: Mapping[str, Any],
          actions: list[Any], claims: list[Mapping[str, Any]], effects: Any,
          deciders: Any = None, schemas: Any = None, checks: tuple[Check, ...] = (),
          exclude: Any = None, journal: Any = None, input: Any = None, tier: str = "must",
          opaque: bool = False, open_values: Any = None
          ) -> dict[str, Any]:
    """An agent scenario: the body runs the loop on the start input and returns its answer
    (``opaque``: the one-frame agent_step form). The case requires ``agent``, and ``crash``
    / ``torn-write`` when an action carries a crash / a torn one (INTERPRETING.md section 4);
    ``open_values(expect)`` puts patterns where the spec leaves a value open."""
    loop: dict[str, Any] = {"op": "agent_loop", "config": dict(config),
                            "input": {"$input": []} if input is None else input, "as": ANSWER}
    if opaque:
        loop["opaque"] = True
    body = [loop,
            {"op": "return", "value": {"$var": ANSWER}}]
    defn = scenario(case_id, anchor, description, body=body, actions=actions, claims=claims,
                    effects=effects, deciders=deciders, schemas=schemas, exclude=exclude,
                    journal=journal, tier=tier, workflow="agent", open_values=open_values)
    crashes = [a["crash"] for a in actions if "crash" in a]
    defn["case"]["requires"] = ["agent", *(["crash"] if crashes else []),
                                *(["torn-write"] if any(c.get("torn") for c in crashes)
                                  else [])]
    defn["checks"] = checks
    return defn


def _torn_tail_open(expect: Any) -> Any:
    """An ``open_values`` hook for a seed case that needs a torn crash: the recovery's
    ``warnings`` and the journal's ``tornTail`` become ``$any``, since warning about a torn
    tail and truncating it are loom-ref's (``journal.torn-tail``, INTERPRETING.md 9a)."""
    actions = [{**a, "warnings": {"$any": None}} if i > 0 and "warnings" in a else a
               for i, a in enumerate(expect["actions"])]
    journal = expect["journal"]
    if isinstance(journal, dict) and "tornTail" in journal:
        journal = {**journal, "tornTail": {"$any": None}}
    return {**expect, "actions": actions, "journal": journal}


def _torn_routed_call() -> dict[str, Any]:
    """The scenario of ``agent.router/no-in-doubt`` and of its loom-ref twin
    ``no-in-doubt-torn-tail-warned``: a crash tears the routed call's decision, and recovery
    calls the model again."""
    return {
        "config": {"router": {"routes": ROUTES, "decider": "route"}},
        "effects": {"cheap": scripted(said("Tea costs 10.")), "strong": scripted(said("unused"))},
        "deciders": {"route": decider("cheap")},
        "actions": [{"do": "start", "input": ASK, "crash": {"afterEvent": 3, "torn": True}},
                    {"do": "recover"}],
        "claims": [{"crashed": True, "transients": ["cheap"],
                    "events": ["EXECUTION_STARTED", "DECISION_RECORDED"]},
                   {"result": done(answer("Tea costs 10.", 1)), "transients": ["cheap"],
                    "deciders": ["#turn:0:call:0"], "warnings": ["journal.torn-tail"]}],
    }


# -- agent.loop ------------------------------------------------------------------------------

TWO_TURNS = {"llm": scripted(calling(("c0", "lookup", {"item": "tea"})), said("Tea costs 10.")),
             "lookup": scripted(PRICE)}
KERNEL_EVENTS = ["EXECUTION_STARTED", "STEP_STARTED", "STEP_COMPLETED", "STEP_STARTED",
                 "STEP_COMPLETED", "STEP_STARTED", "STEP_COMPLETED", "EXECUTION_COMPLETED"]
TRANSCRIPT_1 = [user(ASK), calling(("c0", "lookup", {"item": "tea"})),
                results(("c0", PRICE_CONTENT, False))]

LOOP = [
    agent("agent.loop/runner-body", "agent.loop-body",
          "The loop runs inside an ordinary runner body: one durable step per model turn and "
          "per tool call, only the kernel's ordinary events, and the answer {text, message, "
          "turns} is the body's return value.",
          config=BASE, effects=TWO_TURNS, actions=[START],
          claims=[{"result": done(answer("Tea costs 10.", 2)),
                   "calls": ["#turn:0", "#turn:0:tool:0", "#turn:1"],
                   "events": KERNEL_EVENTS}],
          journal=KERNEL_EVENTS),
    agent("agent.loop/model-step-input", "agent.turn-step",
          "Turn i is the step #turn:<i> against modelToolId, its input {messages, tools, "
          "system}: the transcript so far, the offered tools and the system prompt.",
          config=BASE, effects=TWO_TURNS, actions=[START],
          claims=[{"result": done(answer("Tea costs 10.", 2))}],
          checks=(("#turn:0 runs llm on the prompt",
                   lambda o: step_tool(o, "#turn:0") == "llm" and step_input(o, "#turn:0") == {
                       "messages": [user(ASK)], "tools": [LOOKUP_SPEC],
                       "system": "Be brief."}),
                  ("#turn:1 sends the whole transcript",
                   lambda o: step_input(o, "#turn:1") == {
                       "messages": TRANSCRIPT_1, "tools": [LOOKUP_SPEC],
                       "system": "Be brief."}))),
    agent("agent.loop/transcript-wire-json", "agent.transcript-json",
          "The transcript is wire-form JSON: the recorded assistant message as journaled, then "
          "one tool message of tool-result blocks, journaled whole as the next turn's input.",
          config={"modelToolId": "llm", "tools": [{"name": "lookup"}]},
          effects={"llm": scripted(calling(("c0", "lookup", ""), ("c1", "lookup", "{}"),
                                           text="Checking twice."), said("Done.")),
                   "lookup": scripted(1, 2)},
          actions=[START],
          claims=[{"result": done(answer("Done.", 2)),
                   "calls": ["#turn:0", "#turn:0:tool:0", "#turn:0:tool:1", "#turn:1"]}],
          checks=(("turn 1 input is the wire transcript",
                   lambda o: step_input(o, "#turn:1")["messages"] == [
                       user(ASK),
                       calling(("c0", "lookup", ""), ("c1", "lookup", "{}"),
                               text="Checking twice."),
                       results(("c0", '{"tool":"lookup","result":1}', False),
                               ("c1", '{"tool":"lookup","result":2}', False))]),)),
    agent("agent.loop/messages-input", "agent.loop-input",
          "The input may be {messages: [...]}: the transcript starts with those messages.",
          config={"modelToolId": "llm"}, effects={"llm": scripted(said("Hello again."))},
          input={"$input": []},
          actions=[{"do": "start", "input": {"messages": [user("Hi"), said("Hello."),
                                                          user("Again?")]}}],
          claims=[{"result": done(answer("Hello again.", 1)), "calls": ["#turn:0"]}],
          checks=(("the model sees the given messages",
                   lambda o: step_input(o, "#turn:0")["messages"] == [
                       user("Hi"), said("Hello."), user("Again?")]),)),
    agent("agent.loop/input-not-a-prompt", "agent.loop-input",
          "An input that is neither a prompt string nor {messages} fails the run with "
          "argument.agent-input before any turn.",
          config={"modelToolId": "llm"}, effects={"llm": scripted(said("unused"))},
          actions=[{"do": "start", "input": {"prompt": "hi"}}],
          claims=[{"result": failed("argument.agent-input"), "calls": [],
                   "events": ["EXECUTION_STARTED", "EXECUTION_FAILED"]}]),
    agent("agent.loop/no-messages", "agent.loop-input",
          "{messages: []} has no message and fails the run with argument.agent-input.",
          config={"modelToolId": "llm"}, effects={"llm": scripted(said("unused"))},
          actions=[{"do": "start", "input": {"messages": []}}],
          claims=[{"result": failed("argument.agent-input"), "calls": []}]),
    agent("agent.loop/max-iterations", "agent.max-iterations",
          "A model that never stops calling tools: after maxIterations model calls the run "
          "fails with agent.max-iterations; no third turn is started.",
          config={**BASE, "maxIterations": 2},
          effects={"llm": scripted(calling(("c0", "lookup", {"item": "tea"}))),
                   "lookup": scripted(PRICE)},
          actions=[START],
          claims=[{"result": failed("agent.max-iterations"),
                   "calls": ["#turn:0", "#turn:0:tool:0", "#turn:1", "#turn:1:tool:0"]}]),
    agent("agent.loop/answer-at-max-iterations", "agent.max-iterations",
          "The bound's accept side: a run whose answer comes on exactly the maxIterations-th "
          "model call completes (the bound counts model calls, and a run at the bound that "
          "needs no other call is not failed).",
          config={**BASE, "maxIterations": 2},
          effects={"llm": scripted(calling(("c0", "lookup", {"item": "tea"})),
                                   said("Tea costs 10.")),
                   "lookup": scripted(PRICE)},
          actions=[START],
          claims=[{"result": done(answer("Tea costs 10.", 2)),
                   "calls": ["#turn:0", "#turn:0:tool:0", "#turn:1"]}]),
    agent("agent.loop/step-ids", "agent.identity",
          "Ids come from logged inputs only: #turn:<i> per model call, #turn:<i>:tool:<j> by "
          "position among the recorded message's tool calls.",
          config=BASE,
          effects={"llm": scripted(
              calling(("a", "lookup", {"item": "tea"}), ("b", "lookup", {"item": "milk"})),
              calling(("c", "lookup", {"item": "sugar"})), said("All priced.")),
              "lookup": scripted(PRICE)},
          actions=[START],
          claims=[{"result": done(answer("All priced.", 3)),
                   "calls": ["#turn:0", "#turn:0:tool:0", "#turn:0:tool:1", "#turn:1",
                             "#turn:1:tool:0", "#turn:2"]}]),
    agent("agent.loop/crash-costs-one-turn", "agent.identity",
          "A crash mid-loop (after turn 1's model step started): recovery re-derives the same "
          "ids, serves turn 0 and its tool call from the journal and makes only the remaining "
          "calls.",
          config=BASE,
          effects={"llm": scripted(calling(("a", "lookup", {"item": "tea"})),
                                   calling(("b", "lookup", {"item": "milk"})), said("Both.")),
                   "lookup": scripted(PRICE)},
          actions=[{"do": "start", "input": ASK, "crash": {"afterEvent": 6}}, {"do": "recover"}],
          claims=[{"crashed": True, "calls": ["#turn:0", "#turn:0:tool:0"]},
                  {"result": done(answer("Both.", 3)),
                   "calls": ["#turn:1", "#turn:1:tool:0", "#turn:2"]}]),
    agent("agent.loop/stream-text", "agent.stream-text",
          "With streamMinChars, each turn's text goes to the durable stream after the turn's "
          "step, one {turn, text} event per chunk_deltas batch (minChars = streamMinChars, "
          "the flush last): a sentence not followed by whitespace waits for the flush.",
          config={**BASE, "streamMinChars": 12},
          effects={"llm": scripted(
              calling(("c0", "lookup", {"item": "tea"}), text="Let me check. One moment."),
              said("Tea costs 10. Anything else")),
              "lookup": scripted(PRICE)},
          actions=[START],
          claims=[{"result": done(answer("Tea costs 10. Anything else", 2)),
                   "events": ["EXECUTION_STARTED", "STEP_STARTED", "STEP_COMPLETED",
                              "STREAM_APPENDED", "STREAM_APPENDED", "STEP_STARTED",
                              "STEP_COMPLETED",
                              "STEP_STARTED", "STEP_COMPLETED", "STREAM_APPENDED",
                              "STREAM_APPENDED", "EXECUTION_COMPLETED"]}],
          checks=(("the batches, by turn",
                   lambda o: [p["data"] for p in journal_events(o, "STREAM_APPENDED")] == [
                       {"turn": 0, "text": "Let me check. "},
                       {"turn": 0, "text": "One moment."},
                       {"turn": 1, "text": "Tea costs 10. "},
                       {"turn": 1, "text": "Anything else"}]),)),
    agent("agent.loop/transcript-warning", "agent.warn-transcript",
          "Uncompacted, the loop warns agent.transcript-bytes once per drive when the "
          "transcript first exceeds warnTranscriptBytes, however much more it grows; the "
          "warning is never journaled.",
          config={**BASE, "warnTranscriptBytes": 300},
          effects={"llm": scripted(calling(("a", "lookup", {"item": "tea"})),
                                   calling(("b", "lookup", {"item": "milk"})), said("Both.")),
                   "lookup": scripted(PRICE)},
          actions=[START],
          claims=[{"result": done(answer("Both.", 3)), "warnings": ["agent.transcript-bytes"],
                   "events": ["EXECUTION_STARTED"] + ["STEP_STARTED", "STEP_COMPLETED"] * 5
                   + ["EXECUTION_COMPLETED"]}],
          exclude={"replay": "the transcript warning is a diagnostic of each drive of the "
                             "body: a replay drives it again and warns again",
                   "always-replay": "the transcript warning is a diagnostic of each drive of "
                                    "the body: every replay warns again"}),
    agent("agent.loop/no-warning-when-compacting", "agent.warn-transcript",
          "With compaction configured the transcript warning is not given, whatever the size.",
          config={**BASE, "warnTranscriptBytes": 100,
                  "compaction": {"toolId": "summarize", "afterMessages": 20}},
          effects={**TWO_TURNS, "summarize": scripted({"summary": "unused"})},
          actions=[START],
          claims=[{"result": done(answer("Tea costs 10.", 2)), "warnings": [],
                   "calls": ["#turn:0", "#turn:0:tool:0", "#turn:1"]}]),
    agent("agent.loop/warning-off", "agent.warn-transcript",
          "warnTranscriptBytes: false disables the warning.",
          config={**BASE, "warnTranscriptBytes": False}, effects=TWO_TURNS,
          actions=[START],
          claims=[{"result": done(answer("Tea costs 10.", 2)), "warnings": []}]),
]

LLM_ERROR = ("effect.llm-error", "the provider failed mid-stream")

# -- the opaque form ---------------------------------------------------------------------------

OPAQUE = [
    agent("agent.loop/opaque-one-frame", "agent.step-opaque",
          "The opaque form is ONE durable step agent_step with input {input}: the model and "
          "tool calls run inside it as transient calls, and only its answer is journaled.",
          config=BASE, effects=TWO_TURNS, actions=[START], opaque=True,
          claims=[{"result": done(answer("Tea costs 10.", 2)), "calls": ["agent_step#1"],
                   "transients": ["llm", "lookup", "llm"],
                   "events": ["EXECUTION_STARTED", "STEP_STARTED", "STEP_COMPLETED",
                              "EXECUTION_COMPLETED"]}],
          checks=(("the step's input", lambda o: step_input(o, "agent_step#1")
                   == {"input": ASK}),)),
    agent("agent.loop/opaque-crash-reruns-everything", "agent.step-opaque",
          "A crash inside the one frame loses the whole loop: the step is in doubt, and a "
          "retry calls the model and the tools all over again.",
          config=BASE, effects=TWO_TURNS, opaque=True,
          actions=[{"do": "start", "input": ASK, "crash": {"afterEvent": 2}},
                   {"do": "recover"}, {"do": "resolve", "step": "agent_step#1", "retry": True}],
          claims=[{"crashed": True, "transients": []},
                  {"result": {"status": "in-doubt", "inDoubtStep": "agent_step#1"},
                   "warnings": ["kernel.in-doubt"], "transients": []},
                  {"result": done(answer("Tea costs 10.", 2)),
                   "transients": ["llm", "lookup", "llm"]}]),
    agent("agent.loop/opaque-no-gate", "agent.step-opaque",
          "The opaque form cannot park on a gate: a config with needsApproval is refused with "
          "argument.agent-step before the step.",
          config={**BASE, "needsApproval": True}, effects=TWO_TURNS, actions=[START],
          opaque=True,
          claims=[{"result": failed("argument.agent-step"), "calls": [], "transients": [],
                   "events": ["EXECUTION_STARTED", "EXECUTION_FAILED"]}]),
    agent("agent.loop/opaque-turn-error", "agent.step-opaque",
          "Inside the frame a failed model call is still the loop's turn error: the "
          "agent_step step fails with agent.turn-error.",
          config=BASE, effects={"llm": raising(*LLM_ERROR)}, actions=[START], opaque=True,
          claims=[{"result": failed("agent.turn-error"), "calls": ["agent_step#1"],
                   "transients": ["llm"]}],
          checks=(("the step failed with the turn error",
                   lambda o: journal_events(o, "STEP_FAILED")[0]["error"]["code"]
                   == "agent.turn-error"),)),
]

# -- agent.errors ----------------------------------------------------------------------------

ERRORS = [
    agent("agent.errors/model-access-neither", "agent.model-access",
          "A config with neither modelToolId nor router is refused before any turn runs: the "
          "run fails with argument.agent-model-access, nothing called.",
          config={"system": "x"}, effects={"llm": scripted(said("unused"))},
          actions=[START],
          claims=[{"result": failed("argument.agent-model-access"), "calls": [],
                   "transients": [], "events": ["EXECUTION_STARTED", "EXECUTION_FAILED"]}]),
    agent("agent.errors/model-access-both", "agent.model-access",
          "A config with both modelToolId and router is refused the same way.",
          config={"modelToolId": "llm", "router": {"routes": ["llm"], "decider": "route"}},
          effects={"llm": scripted(said("unused"))}, deciders={"route": decider("llm")},
          actions=[START],
          claims=[{"result": failed("argument.agent-model-access"), "calls": [],
                   "deciders": [], "events": ["EXECUTION_STARTED", "EXECUTION_FAILED"]}]),
    agent("agent.errors/not-a-message", "agent.model-response",
          "A model step whose output is not a wire message fails the run with "
          "agent.model-response.",
          config={"modelToolId": "llm"}, effects={"llm": scripted({"text": "Tea costs 10."})},
          actions=[START],
          claims=[{"result": failed("agent.model-response"), "calls": ["#turn:0"]}]),
    agent("agent.errors/not-assistant", "agent.model-response",
          "A model step that returns a user message fails the run with agent.model-response.",
          config={"modelToolId": "llm"}, effects={"llm": scripted(user("Tea costs 10."))},
          actions=[START],
          claims=[{"result": failed("agent.model-response"), "calls": ["#turn:0"]}]),
    agent("agent.errors/claim-checked-model-output", "agent.claim-check-not-model",
          "A model step whose output is a claim-check envelope fails the run with "
          "agent.claim-checked-output, naming the tool and the configuration to fix.",
          config={"modelToolId": "llm"},
          effects={"llm": scripted({"__loomClaimCheck": True, "ref": "sha256:" + "0" * 64,
                                    "digest": {"preview": "{}", "truncated": False}})},
          actions=[START],
          claims=[{"result": failed("agent.claim-checked-output"), "calls": ["#turn:0"]}],
          checks=(("the message names the tool and the configuration",
                   lambda o: "'llm'" in failure(o)["message"]
                   and "claim_check_middleware(tool_ids=...)" in failure(o)["message"]),)),
    agent("agent.errors/turn-error", "agent.turn-error",
          "A model step that failed with effect.llm-error (journaled as its STEP_FAILED) ends "
          "the run with the turn error agent.turn-error naming the step and the cause; no "
          "assistant message is logged.",
          config={"modelToolId": "llm"},
          effects={"llm": raising(*LLM_ERROR)}, actions=[START],
          claims=[{"result": failed("agent.turn-error"), "calls": ["#turn:0"],
                   "events": ["EXECUTION_STARTED", "STEP_STARTED", "STEP_FAILED",
                              "EXECUTION_FAILED"]}],
          checks=(("STEP_FAILED keeps the underlying code",
                   lambda o: journal_events(o, "STEP_FAILED")[0]["error"]["code"]
                   == "effect.llm-error"),
                  ("the turn error names the step and the cause",
                   lambda o: "#turn:0" in failure(o)["message"]
                   and "effect.llm-error" in failure(o)["message"]))),
    agent("agent.errors/turn-aborted", "agent.turn-error",
          "A model step that failed with effect.llm-aborted ends the run with "
          "agent.turn-aborted.",
          config={"modelToolId": "llm"},
          effects={"llm": raising("effect.llm-aborted", "the stream was aborted")},
          actions=[START],
          claims=[{"result": failed("agent.turn-aborted"), "calls": ["#turn:0"]}]),
    agent("agent.errors/other-failure-passes", "agent.turn-error",
          "Any other failure of the model step passes through unchanged.",
          config={"modelToolId": "llm"},
          effects={"llm": raising("effect.failed", "connection refused")}, actions=[START],
          claims=[{"result": failed("effect.failed"), "calls": ["#turn:0"]}]),
    agent("agent.errors/turn-error-in-later-turn", "agent.turn-error",
          "A failed model call in turn 1: turn 0 and its tool call stay completed in the "
          "journal; the run fails with agent.turn-error.",
          config=BASE,
          effects={"llm": {"idempotent": True, "script": [
              {"return": calling(("c0", "lookup", {"item": "tea"}))},
              {"raise": {"code": LLM_ERROR[0], "message": LLM_ERROR[1]}}]},
              "lookup": scripted(PRICE)},
          actions=[START],
          claims=[{"result": failed("agent.turn-error"),
                   "calls": ["#turn:0", "#turn:0:tool:0", "#turn:1"]}]),
]

# -- agent.tools -----------------------------------------------------------------------------

PRICING = {"name": "price", "toolId": "pricing-v2", "description": "Price an item",
           "parameters": {"type": "object", "required": ["item"]}}


def error_content(name: str, code: str) -> Callable[[str], bool]:
    """Whether a tool-result content is the error result of ``name`` with ``code``."""
    def ok(content: str) -> bool:
        value = json.loads(content)
        return (list(value) == ["tool", "error"] and value["tool"] == name
                and value["error"]["code"] == code and isinstance(value["error"]["message"], str))
    return ok


def turn1_results(o: Obs) -> list[Any]:
    return list(step_input(o, "#turn:1")["messages"][-1]["content"])


TOOLS = [
    agent("agent.tools/offered-and-run", "agent.tool-spec",
          "Tools are offered as {name, description, parameters} in configured order (defaults "
          "\"\" and {}); a call runs the tool's toolId with its parsed arguments, an empty "
          "string being {}.",
          config={"modelToolId": "llm", "tools": [PRICING, {"name": "stock"}]},
          effects={"llm": scripted(calling(("c0", "price", {"item": "tea"}), ("c1", "stock", "")),
                                   said("Done.")),
                   "pricing-v2": {"script": [{"echo": True}]},
                   "stock": {"script": [{"echo": True}]}},
          actions=[START],
          claims=[{"result": done(answer("Done.", 2)),
                   "calls": ["#turn:0", "#turn:0:tool:0", "#turn:0:tool:1", "#turn:1"]}],
          checks=(("the offered tools",
                   lambda o: step_input(o, "#turn:0")["tools"] == [
                       {"name": "price", "description": "Price an item",
                        "parameters": PRICING["parameters"]},
                       {"name": "stock", "description": "", "parameters": {}}]),
                  ("the tool steps run the tool ids on the parsed arguments",
                   lambda o: step_tool(o, "#turn:0:tool:0") == "pricing-v2"
                   and step_input(o, "#turn:0:tool:0") == {"item": "tea"}
                   and step_tool(o, "#turn:0:tool:1") == "stock"
                   and step_input(o, "#turn:0:tool:1") == {}),
                  ("results by the tool's name, in call order",
                   lambda o: turn1_results(o) == [
                       {"type": "tool-result", "callId": "c0",
                        "content": '{"tool":"price","result":{"item":"tea"}}'},
                       {"type": "tool-result", "callId": "c1",
                        "content": '{"tool":"stock","result":{}}'}]))),
    agent("agent.tools/unusable-calls", "agent.tool-error",
          "An unknown tool name and arguments that are not a JSON object reach the model as "
          "error results (agent.unknown-tool, agent.tool-arguments) without running a step, "
          "and the loop carries on; the tool index still counts them.",
          config=BASE,
          effects={"llm": scripted(calling(("c0", "teleport", {}), ("c1", "lookup", "[1]"),
                                           ("c2", "lookup", "{oops"),
                                           ("c3", "lookup", {"item": "tea"})),
                                   said("Tea costs 10.")),
                   "lookup": scripted(PRICE)},
          actions=[START],
          claims=[{"result": done(answer("Tea costs 10.", 2)),
                   "calls": ["#turn:0", "#turn:0:tool:3", "#turn:1"]}],
          checks=(("error results, then the real one",
                   lambda o: [b.get("isError", False) for b in turn1_results(o)]
                   == [True, True, True, False]
                   and error_content("teleport", "agent.unknown-tool")(
                       turn1_results(o)[0]["content"])
                   and error_content("lookup", "agent.tool-arguments")(
                       turn1_results(o)[1]["content"])
                   and error_content("lookup", "agent.tool-arguments")(
                       turn1_results(o)[2]["content"])
                   and turn1_results(o)[3]["content"] == PRICE_CONTENT),
                  ("the messages loom-ref writes (spec: agent.tool-error)",
                   lambda o: [json.loads(b["content"])["error"]["message"]
                              for b in turn1_results(o)[:2]]
                   == ['there is no tool named "teleport"', "arguments must be a JSON object"]
                   and json.loads(turn1_results(o)[2]["content"])["error"]["message"]
                   == "arguments are not valid JSON"))),
    agent("agent.tools/arguments-not-json-values", "agent.tool-error",
          "Arguments holding NaN, a number too large to be finite or a lone surrogate are not "
          "valid JSON (journal.json-values): agent.tool-arguments error results, no step; the "
          "loop carries on.",
          config=BASE,
          effects={"llm": scripted(calling(("c0", "lookup", '{"item": NaN}'),
                                           ("c1", "lookup", '{"item": 1e999}'),
                                           ("c2", "lookup", '{"item": "\\ud800"}'),
                                           ("c3", "lookup", {"item": "tea"})),
                                   said("Tea costs 10.")),
                   "lookup": scripted(PRICE)},
          actions=[START],
          claims=[{"result": done(answer("Tea costs 10.", 2)),
                   "calls": ["#turn:0", "#turn:0:tool:3", "#turn:1"]}],
          checks=(("three error results with the fixed message, then the real one",
                   lambda o: [json.loads(b["content"]).get("error") for b in turn1_results(o)]
                   == [{"code": "agent.tool-arguments",
                        "message": "arguments are not valid JSON"}] * 3 + [None]),)),
    agent("agent.tools/call-limit", "agent.tool-error",
          "A call at position j >= maxToolCallsPerTurn is not run: an agent.tool-call-limit "
          "error result.",
          config={**BASE, "maxToolCallsPerTurn": 1},
          effects={"llm": scripted(calling(("c0", "lookup", {"item": "tea"}),
                                           ("c1", "lookup", {"item": "milk"})),
                                   said("Tea costs 10.")),
                   "lookup": scripted(PRICE)},
          actions=[START],
          claims=[{"result": done(answer("Tea costs 10.", 2)),
                   "calls": ["#turn:0", "#turn:0:tool:0", "#turn:1"]}],
          checks=(("the second call is a call-limit error",
                   lambda o: turn1_results(o)[0]["content"] == PRICE_CONTENT
                   and turn1_results(o)[1].get("isError") is True
                   and error_content("lookup", "agent.tool-call-limit")(
                       turn1_results(o)[1]["content"])),
                  ("its message", lambda o: json.loads(turn1_results(o)[1]["content"])[
                      "error"]["message"]
                   == "more than 1 tool calls in one turn; this one was not run"))),
    agent("agent.tools/call-limit-before-unknown-name", "agent.tool-error",
          "The checks run in order: the call limit, then the name. A call past "
          "maxToolCallsPerTurn that also names no tool is an agent.tool-call-limit error "
          "result, not agent.unknown-tool.",
          config={**BASE, "maxToolCallsPerTurn": 1},
          effects={"llm": scripted(calling(("c0", "lookup", {"item": "tea"}),
                                           ("c1", "teleport", {})),
                                   said("Tea costs 10.")),
                   "lookup": scripted(PRICE)},
          actions=[START],
          claims=[{"result": done(answer("Tea costs 10.", 2)),
                   "calls": ["#turn:0", "#turn:0:tool:0", "#turn:1"]}],
          checks=(("the second call is a call-limit error",
                   lambda o: turn1_results(o)[0]["content"] == PRICE_CONTENT
                   and turn1_results(o)[1].get("isError") is True
                   and error_content("teleport", "agent.tool-call-limit")(
                       turn1_results(o)[1]["content"])),)),
    agent("agent.tools/blank-arguments", "agent.tool-spec",
          "Arguments of whitespace only, like an empty string, are the empty object {}.",
          config=BASE,
          effects={"llm": scripted(calling(("c0", "lookup", " \n\t")), said("Done.")),
                   "lookup": {"script": [{"echo": True}]}},
          actions=[START],
          claims=[{"result": done(answer("Done.", 2)),
                   "calls": ["#turn:0", "#turn:0:tool:0", "#turn:1"]}],
          checks=(("the tool ran on {}", lambda o: step_input(o, "#turn:0:tool:0") == {}),)),
    agent("agent.tools/failed-step", "agent.tool-error",
          "A tool step that fails is journaled as STEP_FAILED and reaches the model as an "
          "error result with the journaled code and message; the loop carries on.",
          config=BASE,
          effects={"llm": scripted(calling(("c0", "lookup", {"item": "tea"})),
                                   said("The price list is down.")),
                   "lookup": raising("pricing.down", "price list unavailable")},
          actions=[START],
          claims=[{"result": done(answer("The price list is down.", 2)),
                   "calls": ["#turn:0", "#turn:0:tool:0", "#turn:1"],
                   "events": ["EXECUTION_STARTED", "STEP_STARTED", "STEP_COMPLETED",
                              "STEP_STARTED", "STEP_FAILED", "STEP_STARTED",
                              "STEP_COMPLETED", "EXECUTION_COMPLETED"]}],
          checks=(("the error result",
                   lambda o: turn1_results(o) == [
                       {"type": "tool-result", "callId": "c0", "isError": True,
                        "content": '{"tool":"lookup","error":{"code":"pricing.down",'
                                   '"message":"price list unavailable"}}'}]),)),
]

# -- agent.approval --------------------------------------------------------------------------

GATE = "#turn:0:tool:0:approval"
APPROVAL_SCHEMA = {"type": "object", "required": ["approved"],
                   "properties": {"approved": {"type": "boolean"}, "reason": {"type": "string"}},
                   "additionalProperties": False}
CHARGE = {"name": "charge", "description": "Charge the card"}
APPROVE_CFG = {"modelToolId": "llm", "tools": [LOOKUP, CHARGE], "needsApproval": ["charge"]}
CHARGE_EFFECTS = {"llm": scripted(calling(("c0", "charge", {"amount": 10})), said("Settled.")),
                  "charge": scripted({"charged": 10}, idempotent=False)}
PARKED = ["EXECUTION_STARTED", "STEP_STARTED", "STEP_COMPLETED", "EXECUTION_SUSPENDED"]


def resume(payload: Any, gate: str = GATE) -> dict[str, Any]:
    return {"do": "resume", "gate": gate, "payload": payload}


def _gate_open(expect: Any) -> Any:
    """An ``open_values`` hook for a core approval case: the gate's id, its ``on`` and its
    correlation key are loom-ref's names (``agent.approval-gate-id``), so the gate a run waits
    on is one ``$capture`` (the id its suspension names) and the suspension's other members
    are left open."""
    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            if value.get("kind") == "EXECUTION_SUSPENDED" and "payload" in value:
                return {**value, "payload": {"$partial": {"gateId": {"$capture": "gate"}}}}
            return {k: ({"$capture": "gate"} if k == "waitingOn" else walk(v))
                    for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    return walk(expect)


APPROVAL = [
    agent("agent.approval/parks-before-effect", "agent.approval-gate",
          "needsApproval true: the loop suspends on <step id>:approval (on AgentToolApproval, "
          "correlated to the step id) BEFORE the tool runs; an approval then runs it.",
          config=APPROVE_CFG, effects=CHARGE_EFFECTS, schemas={GATE: APPROVAL_SCHEMA},
          actions=[START, resume({"approved": True})],
          claims=[{"result": waiting(GATE), "calls": ["#turn:0"], "events": PARKED},
                  {"result": done(answer("Settled.", 2)),
                   "calls": ["#turn:0:tool:0", "#turn:1"]}],
          checks=(("the gate's suspension",
                   lambda o: journal_events(o, "EXECUTION_SUSPENDED") == [
                       {"gateId": GATE, "on": "AgentToolApproval",
                        "correlationKey": "#turn:0:tool:0"}]),)),
    agent("agent.approval/parks-any-gate", "agent.approval-gate",
          "needsApproval true: the loop suspends on a gate BEFORE the tool runs: the run waits "
          "after turn 0's model step, and nothing of the tool has run. (The gate's id, its on "
          "and its correlation key are loom-ref's names, agent.approval-gate-id: the gate the "
          "run waits on is one $capture, the id its suspension names.)",
          config={"modelToolId": "llm", "tools": [CHARGE], "needsApproval": True},
          effects=CHARGE_EFFECTS, actions=[START],
          claims=[{"result": waiting(GATE), "calls": ["#turn:0"], "events": PARKED}],
          checks=(("one suspension, before any tool step",
                   lambda o: [p["stepId"] for p in journal_events(o, "STEP_STARTED")]
                   == ["#turn:0"] and len(journal_events(o, "EXECUTION_SUSPENDED")) == 1),),
          open_values=_gate_open),
    agent("agent.approval/gate-named-by-step", "agent.approval-gate-id",
          "loom-ref's approval gate: the second call of a turn parks on "
          "#turn:0:tool:1:approval, its on AgentToolApproval and its correlation key the step "
          "id #turn:0:tool:1, and a resume naming that id runs it.",
          config=APPROVE_CFG,
          effects={"llm": scripted(calling(("c0", "lookup", {"item": "tea"}),
                                           ("c1", "charge", {"amount": 10})), said("Settled.")),
                   "lookup": scripted(PRICE), "charge": scripted({"charged": 10})},
          actions=[START, resume({"approved": True}, gate="#turn:0:tool:1:approval")],
          claims=[{"result": waiting("#turn:0:tool:1:approval"),
                   "calls": ["#turn:0", "#turn:0:tool:0"]},
                  {"result": done(answer("Settled.", 2)),
                   "calls": ["#turn:0:tool:1", "#turn:1"]}],
          checks=(("the gate's suspension",
                   lambda o: journal_events(o, "EXECUTION_SUSPENDED") == [
                       {"gateId": "#turn:0:tool:1:approval", "on": "AgentToolApproval",
                        "correlationKey": "#turn:0:tool:1"}]),)),
    agent("agent.approval/only-named-tools", "agent.approval-gate",
          "Only calls needsApproval asks about park: the lookup before the charge runs, the "
          "charge waits for its gate.",
          config=APPROVE_CFG,
          effects={"llm": scripted(calling(("c0", "lookup", {"item": "tea"}),
                                           ("c1", "charge", {"amount": 10})), said("Settled.")),
                   "lookup": scripted(PRICE), "charge": scripted({"charged": 10})},
          schemas={"#turn:0:tool:1:approval": APPROVAL_SCHEMA},
          actions=[START, resume({"approved": True}, gate="#turn:0:tool:1:approval")],
          claims=[{"result": waiting("#turn:0:tool:1:approval"),
                   "calls": ["#turn:0", "#turn:0:tool:0"]},
                  {"result": done(answer("Settled.", 2)),
                   "calls": ["#turn:0:tool:1", "#turn:1"]}]),
    agent("agent.approval/refusal-is-data", "agent.tool-refusal",
          "A resume with approved: false is a refusal fed to the model as an ordinary tool "
          "result {tool, result: {refused, reason}}; the tool never runs and the run settles.",
          config=APPROVE_CFG, effects=CHARGE_EFFECTS, schemas={GATE: APPROVAL_SCHEMA},
          actions=[START, resume({"approved": False, "reason": "too expensive"})],
          claims=[{"result": waiting(GATE)},
                  {"result": done(answer("Settled.", 2)), "calls": ["#turn:1"]}],
          checks=(("no step for the refused call",
                   lambda o: [p["stepId"] for p in journal_events(o, "STEP_STARTED")]
                   == ["#turn:0", "#turn:1"]),
                  ("the refusal result",
                   lambda o: turn1_results(o) == [
                       {"type": "tool-result", "callId": "c0",
                        "content": '{"tool":"charge","result":{"reason":"too expensive",'
                                   '"refused":true}}'}]))),
    agent("agent.approval/default-reason", "agent.approval-payload",
          "A refusal without a reason carries the default reason \"declined by the approver\".",
          config=APPROVE_CFG, effects=CHARGE_EFFECTS, schemas={GATE: APPROVAL_SCHEMA},
          actions=[START, resume({"approved": False})],
          claims=[{"result": waiting(GATE)}, {"result": done(answer("Settled.", 2)),
                                              "calls": ["#turn:1"]}],
          checks=(("the default reason",
                   lambda o: turn1_results(o)[0]["content"]
                   == '{"tool":"charge","result":{"reason":"declined by the approver",'
                      '"refused":true}}'),)),
    agent("agent.approval/fail-closed", "agent.approval-payload",
          "On a workflow without the approval schema, a payload that is not exactly "
          "approved: true refuses (fail closed): the tool never runs.",
          config=APPROVE_CFG, effects=CHARGE_EFFECTS,
          actions=[START, resume({"approved": "yes"})],
          claims=[{"result": waiting(GATE)},
                  {"result": done(answer("Settled.", 2)), "calls": ["#turn:1"]}],
          checks=(("refused with the default reason",
                   lambda o: json.loads(turn1_results(o)[0]["content"])["result"]
                   == {"refused": True, "reason": "declined by the approver"}),)),
    agent("agent.approval/schema-checks-payload", "agent.approval-payload",
          "With the approval schema on the gate, a malformed payload is refused by the kernel "
          "(nothing written, the tool not run); a valid approval then runs the tool.",
          config=APPROVE_CFG, effects=CHARGE_EFFECTS, schemas={GATE: APPROVAL_SCHEMA},
          actions=[START, resume({"approved": "yes"}), resume({"approved": True})],
          claims=[{"result": waiting(GATE)},
                  {"raised": "kernel.invalid-resume", "calls": [], "events": []},
                  {"result": done(answer("Settled.", 2)),
                   "calls": ["#turn:0:tool:0", "#turn:1"]}]),
]

# -- agent.choices ---------------------------------------------------------------------------

LIBRARY = {"pricing": "Quote prices in euros.", "tone": "Be warm."}


def system_of(o: Obs, step: str = "#turn:0") -> Any:
    return step_input(o, step)["system"]


def _system_once(expect: Any) -> Any:
    """An ``open_values`` hook for a core case about the recorded choices: the system prompt
    a turn is sent is loom-ref's composition (``agent.system-prompt``), so every step input's
    ``system`` is one ``$capture``: each turn must be sent the same prompt, whatever its
    words."""
    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: ({"$capture": "system"} if k == "system" and isinstance(v, str)
                        else walk(v)) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    return walk(expect)


def _literal(text: str) -> str:
    """``text`` as a portable-1 pattern matching it literally (spec/governance.md 4.2.1)."""
    return "".join("\\" + ch if ch in "^$\\.*+?()[]{}|" else ch for ch in text)


def _system_holds(*texts: str) -> Callable[[Any], Any]:
    """An ``open_values`` hook for a core case about the recorded choices: the system prompt's
    words are loom-ref's composition (``agent.system-prompt``), so every step input's
    ``system`` becomes a ``$regex`` that finds each of ``texts`` (the configured ``system``,
    the chosen skills' instructions, the recalled items) in it, in any order: a prompt built
    from the choice holds what was chosen (ADR 0087 D6: without the seam "a replayed run can
    rebuild a different prompt", "a prompt without the skill"), whatever its headings,
    separators and order."""
    from itertools import permutations

    anything = "(?:[^\\n]|\\n)*"
    pattern = "|".join(anything.join(_literal(t) for t in order)
                       for order in permutations(texts))

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: ({"$regex": pattern} if k == "system" and isinstance(v, str)
                        else walk(v)) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    return walk


# one run, two readings: agent.choices/skills (core) and its loom-ref twin
# prompt-skills-in-chosen-order share it
_SKILLS_RUN: dict[str, Any] = dict(
    config={"modelToolId": "llm", "system": "Be brief.",
            "skills": {"library": LIBRARY, "decider": "skills"}},
    effects={"llm": scripted(said("10 euros."))},
    deciders={"skills": decider(["tone", "pricing"])},
    actions=[START],
    claims=[{"result": done(answer("10 euros.", 1)), "deciders": ["#skills"],
             "calls": ["#turn:0"]}],
)


CHOICES = [
    agent("agent.choices/skills", "agent.skills",
          "Skills: before turn 0 the selector runs as the decider of #skills (context {query}, "
          "alternatives the library's names, sorted); the system prompt turn 0 is sent holds "
          "the configured system and the chosen skills' instructions. (Its words are "
          "loom-ref's, agent.system-prompt: the prompt is a $regex finding each of them, in "
          "any order; agent.choices/prompt-skills-in-chosen-order pins the words.)",
          **_SKILLS_RUN,
          checks=(("the decision", lambda o: decision(o, "#skills") == {
                      "decisionId": "#skills", "choice": ["tone", "pricing"],
                      "context": {"query": ASK}, "alternatives": ["pricing", "tone"]}),
                  ("the prompt holds the system and the chosen skills",
                   lambda o: all(t in system_of(o) for t in (
                       "Be brief.", "Be warm.", "Quote prices in euros.")))),
          open_values=_system_holds("Be brief.", "Be warm.", "Quote prices in euros.")),
    agent("agent.choices/prompt-skills-in-chosen-order", "agent.system-prompt",
          "loom-ref's system prompt: system, then '## Skills' and '### <name>\\n<instructions>' "
          "per chosen skill in the chosen order (tone before pricing, not the library's "
          "order), the parts joined by a blank line.",
          **_SKILLS_RUN,
          checks=(("the system prompt", lambda o: system_of(o) == (
                      "Be brief.\n\n## Skills\n\n### tone\nBe warm.\n\n### pricing\n"
                      "Quote prices in euros.")),)),
    agent("agent.choices/skills-with-policy", "agent.skills",
          "A selection may be a choice with a policy and propensity, journaled with them; the "
          "prompt holds the chosen skill's instructions. (Its words are loom-ref's, "
          "agent.system-prompt: the prompt is a $regex finding them.)",
          config={"modelToolId": "llm", "skills": {"library": LIBRARY, "decider": "skills"}},
          effects={"llm": scripted(said("10 euros."))},
          deciders={"skills": {"script": [{"choice": ["pricing"], "policy": "skill-bandit",
                                           "propensity": 0.25}]}},
          actions=[START],
          claims=[{"result": done(answer("10 euros.", 1)), "deciders": ["#skills"]}],
          checks=(("the policy is journaled",
                   lambda o: decision(o, "#skills")["policy"]
                   == {"id": "skill-bandit", "propensity": 0.25}),
                  ("the prompt holds the chosen skill",
                   lambda o: "Quote prices in euros." in system_of(o))),
          open_values=_system_holds("Quote prices in euros.")),
    agent("agent.choices/unknown-skill", "agent.skills",
          "A selected name the library lacks fails the run with agent.unknown-skill before "
          "any turn.",
          config={"modelToolId": "llm", "skills": {"library": LIBRARY, "decider": "skills"}},
          effects={"llm": scripted(said("unused"))}, deciders={"skills": decider(["haiku"])},
          actions=[START],
          claims=[{"result": failed("agent.unknown-skill"), "calls": []}]),
    agent("agent.choices/recall-bounded", "agent.recall",
          "Recall: the memory's search runs as the decider of #recall (context {query, "
          "recallLimit}); the recorded set keeps at most recallLimit items, whatever the "
          "memory returns, and the prompt holds the recorded items. (Its words are "
          "loom-ref's, agent.system-prompt: the prompt is a $regex finding each item, in any "
          "order; agent.choices/prompt-memory-lines pins the words.)",
          config={"modelToolId": "llm", "recall": {"decider": "memory", "recallLimit": 2}},
          effects={"llm": scripted(said("10 euros."))},
          deciders={"memory": decider(["likes green tea", "pays in euros", "lives in Oslo"])},
          actions=[START],
          claims=[{"result": done(answer("10 euros.", 1)), "deciders": ["#recall"]}],
          checks=(("the bounded decision", lambda o: decision(o, "#recall") == {
                      "decisionId": "#recall", "choice": ["likes green tea", "pays in euros"],
                      "context": {"query": ASK, "recallLimit": 2}}),
                  ("the prompt holds the recorded items",
                   lambda o: all(t in system_of(o)
                                 for t in ("likes green tea", "pays in euros")))),
          open_values=_system_holds("likes green tea", "pays in euros")),
    agent("agent.choices/prompt-memory-lines", "agent.system-prompt",
          "loom-ref's system prompt: the recalled items are one part, '## Relevant memory' "
          "then '- <item>' per recorded item in the recorded order, joined by single newlines "
          "(no system text: no leading separator).",
          config={"modelToolId": "llm", "recall": {"decider": "memory", "recallLimit": 2}},
          effects={"llm": scripted(said("10 euros."))},
          deciders={"memory": decider(["likes green tea", "pays in euros", "lives in Oslo"])},
          actions=[START],
          claims=[{"result": done(answer("10 euros.", 1)), "deciders": ["#recall"]}],
          checks=(("the prompt", lambda o: system_of(o)
                   == "## Relevant memory\n- likes green tea\n- pays in euros"),)),
    agent("agent.choices/served-on-replay", "agent.choices-replay",
          "A DRIFTING selector and memory (a different answer on every call): after a gate "
          "the resumed drive runs neither, the journal serves both, and turn 1 is sent the "
          "same system prompt as turn 0.",
          config={**APPROVE_CFG, "system": "Be brief.",
                  "skills": {"library": LIBRARY, "decider": "skills"},
                  "recall": {"decider": "memory", "recallLimit": 1}},
          effects=CHARGE_EFFECTS,
          deciders={"skills": decider(["pricing"], ["tone"]),
                    "memory": decider(["pays in euros"], ["lives in Oslo"])},
          schemas={GATE: APPROVAL_SCHEMA},
          actions=[START, resume({"approved": True})],
          claims=[{"result": waiting(GATE), "deciders": ["#skills", "#recall"]},
                  {"result": done(answer("Settled.", 2)), "deciders": [],
                   "calls": ["#turn:0:tool:0", "#turn:1"]}],
          checks=(("both turns get the recorded prompt",
                   lambda o: system_of(o) == system_of(o, "#turn:1") == (
                       "Be brief.\n\n## Skills\n\n### pricing\nQuote prices in euros.\n\n"
                       "## Relevant memory\n- pays in euros")),)),
    agent("agent.choices/served-on-recovery", "agent.choices-replay",
          "A DRIFTING selector and memory (a different answer on every call): after a crash "
          "once turn 0's step is journaled, the recovered drive runs neither, the journal "
          "serves both, and turn 1 is sent the same system prompt as turn 0. (The prompt's "
          "words are loom-ref's, agent.system-prompt: every step input's system is one "
          "$capture.)",
          config={**BASE, "skills": {"library": LIBRARY, "decider": "skills"},
                  "recall": {"decider": "memory", "recallLimit": 1}},
          effects=TWO_TURNS,
          deciders={"skills": decider(["pricing"], ["tone"]),
                    "memory": decider(["pays in euros"], ["lives in Oslo"])},
          actions=[{"do": "start", "input": ASK, "crash": {"afterEvent": 5}},
                   {"do": "recover"}],
          claims=[{"crashed": True, "deciders": ["#skills", "#recall"], "calls": ["#turn:0"]},
                  {"result": done(answer("Tea costs 10.", 2)), "deciders": [],
                   "calls": ["#turn:0:tool:0", "#turn:1"]}],
          checks=(("both turns get the recorded prompt",
                   lambda o: system_of(o) == system_of(o, "#turn:1") == (
                       "Be brief.\n\n## Skills\n\n### pricing\nQuote prices in euros.\n\n"
                       "## Relevant memory\n- pays in euros")),),
          open_values=_system_once),
    agent("agent.choices/empty-parts-omitted", "agent.system-prompt",
          "An empty part is omitted: no system text and no skill chosen leave only the memory "
          "section, without a leading separator.",
          config={"modelToolId": "llm", "skills": {"library": LIBRARY, "decider": "skills"},
                  "recall": {"decider": "memory"}},
          effects={"llm": scripted(said("Hi."))},
          deciders={"skills": decider([]), "memory": decider(["pays in euros"])},
          actions=[START],
          claims=[{"result": done(answer("Hi.", 1)), "deciders": ["#skills", "#recall"]}],
          checks=(("the prompt", lambda o: system_of(o) == "## Relevant memory\n- pays in euros"),
                  ("the default recallLimit is 5",
                   lambda o: decision(o, "#recall")["context"]["recallLimit"] == 5))),
]

# -- agent.router ----------------------------------------------------------------------------

ROUTES = ["cheap", "strong"]

ROUTER = [
    agent("agent.router/route-then-call", "agent.router",
          "Routed access: #turn:<i>:route records the selector's route (alternatives: the "
          "routes), #turn:<i>:call:0 records the message the route returned (a transient "
          "call); no durable model step.",
          config={"router": {"routes": ROUTES, "decider": "route"}},
          effects={"cheap": scripted(said("Tea costs 10.")), "strong": scripted(said("unused"))},
          deciders={"route": decider("cheap")},
          actions=[START],
          claims=[{"result": done(answer("Tea costs 10.", 1)), "calls": [],
                   "transients": ["cheap"], "deciders": ["#turn:0:route", "#turn:0:call:0"],
                   "events": ["EXECUTION_STARTED", "DECISION_RECORDED", "DECISION_RECORDED",
                              "EXECUTION_COMPLETED"]}],
          checks=(("the route decision", lambda o: decision(o, "#turn:0:route") == {
                      "decisionId": "#turn:0:route", "choice": "cheap",
                      "context": {"turn": 0}, "alternatives": ROUTES}),
                  ("the call decision", lambda o: decision(o, "#turn:0:call:0") == {
                      "decisionId": "#turn:0:call:0", "choice": said("Tea costs 10."),
                      "context": {"route": "cheap"}}))),
    agent("agent.router/elevate", "agent.router",
          "With an elevation predicate, #turn:<i>:elevate:<k> records whether to retry on the "
          "next stronger route; true calls it (call:1); the strongest route is not elevated.",
          config={"router": {"routes": ROUTES, "decider": "route", "elevate": "elevate"}},
          effects={"cheap": scripted(said("Maybe 10?")), "strong": scripted(said("Exactly 10."))},
          deciders={"route": decider("cheap"), "elevate": decider(True)},
          actions=[START],
          claims=[{"result": done(answer("Exactly 10.", 1)), "transients": ROUTES,
                   "deciders": ["#turn:0:route", "#turn:0:call:0", "#turn:0:elevate:0",
                                "#turn:0:call:1"]}]),
    agent("agent.router/unknown-route", "agent.router",
          "A route that is not one of the routes fails the run with agent.unknown-route.",
          config={"router": {"routes": ROUTES, "decider": "route"}},
          effects={"cheap": scripted(said("unused"))}, deciders={"route": decider("premium")},
          actions=[START],
          claims=[{"result": failed("agent.unknown-route"), "transients": []}]),
    agent("agent.router/no-in-doubt", "agent.router-tradeoff",
          "The routed call is transient: no step, no idempotency key, no in-doubt state. A "
          "crash that loses the call's decision records nothing, and recovery calls again. "
          "(The recovery's warnings and the journal's torn tail are left open: warning about "
          "a torn tail and truncating it are loom-ref's, journal.torn-tail; "
          "agent.router/no-in-doubt-torn-tail-warned pins them.)",
          **_torn_routed_call(), open_values=_torn_tail_open),
    agent("agent.router/no-in-doubt-torn-tail-warned", "agent.router-tradeoff",
          "A crash that tears the routed call's decision: recovery warns journal.torn-tail "
          "(and nothing else: no in-doubt state), truncates the torn tail and calls again.",
          **_torn_routed_call()),
    agent("agent.router/routed-turn-error", "agent.turn-error",
          "A routed call whose model stream failed (effect.llm-error raised in the call's "
          "decider, nothing recorded) ends the run with agent.turn-error.",
          config={"router": {"routes": ROUTES, "decider": "route"}},
          effects={"cheap": raising(*LLM_ERROR)}, deciders={"route": decider("cheap")},
          actions=[START],
          claims=[{"result": failed("agent.turn-error"), "transients": ["cheap"],
                   "events": ["EXECUTION_STARTED", "DECISION_RECORDED", "EXECUTION_FAILED"]}],
          exclude={"replay": "the failed call leaves a decision hole that replay re-runs "
                             "(kernel.decider-throws)",
                   "always-replay": "the failed call leaves a decision hole that replay "
                                    "re-runs (kernel.decider-throws)"}),
]

# -- agent.summary (compaction as a recorded step) -------------------------------------------

A0 = calling(("c0", "lookup", {"item": "tea"}))
A1 = calling(("c1", "lookup", {"item": "milk"}))
T0 = results(("c0", PRICE_CONTENT, False))
T1 = results(("c1", PRICE_CONTENT, False))
THREE_TURNS = {"llm": scripted(A0, A1, said("Both cost 10.")), "lookup": scripted(PRICE)}
COMPACT = {"toolId": "summarize", "afterMessages": 3, "keepRecent": 2}
COMPACT_CALLS = ["#turn:0", "#turn:0:tool:0", "#turn:1", "#turn:1:tool:0", "#turn:2:compact",
                 "#turn:2"]
SUMMARY = "The user asked about tea; it costs 10."


def summary_msg(text: str) -> dict[str, Any]:
    return user("Summary of the earlier conversation:\n" + text)


SUMMARY_CASES = [
    agent("agent.summary/compact-step", "agent.compaction-step",
          "Past afterMessages, the fold is its own recorded step #turn:<i>:compact against "
          "compaction.toolId, before turn i's model call; the folded messages are replaced "
          "by one summary message.",
          config={**BASE, "compaction": COMPACT},
          effects={**THREE_TURNS, "summarize": scripted({"summary": SUMMARY})},
          actions=[START],
          claims=[{"result": done(answer("Both cost 10.", 3)), "calls": COMPACT_CALLS}],
          checks=(("the compact step runs the compaction tool",
                   lambda o: step_tool(o, "#turn:2:compact") == "summarize"),
                  ("turn 2 sees the summary and the kept suffix",
                   lambda o: step_input(o, "#turn:2")["messages"] == [
                       summary_msg(SUMMARY), A1, T1]))),
    agent("agent.summary/compaction-input", "agent.compaction-io",
          "The compaction tool's input is {messages: [the folded messages, oldest first]}; a "
          "bare string output is accepted as the summary.",
          config={**BASE, "compaction": COMPACT},
          effects={**THREE_TURNS, "summarize": scripted(SUMMARY)},
          actions=[START],
          claims=[{"result": done(answer("Both cost 10.", 3)), "calls": COMPACT_CALLS}],
          checks=(("the folded messages",
                   lambda o: step_input(o, "#turn:2:compact") == {"messages": [user(ASK), A0,
                                                                               T0]}),
                  ("the bare string is the summary",
                   lambda o: step_input(o, "#turn:2")["messages"][0] == summary_msg(SUMMARY)))),
    agent("agent.summary/summary-message", "agent.summary-message",
          "The summary message is a user text message \"Summary of the earlier "
          "conversation:\\n\" + summary; it counts as a message for later folds.",
          config={**BASE, "compaction": {"toolId": "summarize", "afterMessages": 2,
                                         "keepRecent": 1}},
          effects={**THREE_TURNS, "summarize": scripted({"summary": "S1"}, {"summary": "S2"})},
          actions=[START],
          claims=[{"result": done(answer("Both cost 10.", 3)),
                   "calls": ["#turn:0", "#turn:0:tool:0", "#turn:1:compact", "#turn:1",
                             "#turn:1:tool:0", "#turn:2:compact", "#turn:2"]}],
          checks=(("turn 1 after the first fold",
                   lambda o: step_input(o, "#turn:1")["messages"] == [summary_msg("S1"), T0]),
                  ("the second fold folds the first summary",
                   lambda o: step_input(o, "#turn:2:compact")["messages"] == [
                       summary_msg("S1"), T0, A1]),
                  ("turn 2", lambda o: step_input(o, "#turn:2")["messages"] == [
                      summary_msg("S2"), T1]))),
    agent("agent.summary/bad-output", "agent.compaction-output",
          "A compaction output that is neither {summary: str} nor a string fails the run with "
          "agent.compaction-output.",
          config={**BASE, "compaction": COMPACT},
          effects={**THREE_TURNS, "summarize": scripted({"text": SUMMARY})},
          actions=[START],
          claims=[{"result": failed("agent.compaction-output"), "calls": COMPACT_CALLS[:-1]}]),
    agent("agent.summary/claim-checked-summary", "agent.claim-check-not-model",
          "A compaction output that is a claim-check envelope fails the run with "
          "agent.claim-checked-output.",
          config={**BASE, "compaction": COMPACT},
          effects={**THREE_TURNS, "summarize": scripted(
              {"__loomClaimCheck": True, "ref": "sha256:" + "1" * 64})},
          actions=[START],
          claims=[{"result": failed("agent.claim-checked-output"),
                   "calls": COMPACT_CALLS[:-1]}]),
    agent("agent.summary/failed-summary-call", "agent.turn-error",
          "A compaction step that failed with effect.llm-error ends the run with "
          "agent.turn-error, naming the :compact step.",
          config={**BASE, "compaction": COMPACT},
          effects={**THREE_TURNS, "summarize": raising(*LLM_ERROR)},
          actions=[START],
          claims=[{"result": failed("agent.turn-error"), "calls": COMPACT_CALLS[:-1]}],
          checks=(("the message names the step",
                   lambda o: "#turn:2:compact" in failure(o)["message"]),)),
    agent("agent.summary/recomputed-on-recovery", "agent.compaction-pure",
          "A crash just before the :compact step: the recovered drive decides to compact at "
          "the same point and journals the identical :compact input, from journaled content "
          "alone.",
          config={**BASE, "compaction": COMPACT},
          effects={**THREE_TURNS, "summarize": scripted({"summary": SUMMARY})},
          actions=[{"do": "start", "input": ASK, "crash": {"afterEvent": 9}},
                   {"do": "recover"}],
          claims=[{"crashed": True, "calls": COMPACT_CALLS[:4]},
                  {"result": done(answer("Both cost 10.", 3)), "calls": COMPACT_CALLS[4:]}],
          checks=(("the recovered :compact input",
                   lambda o: step_input(o, "#turn:2:compact") == {
                       "messages": [user(ASK), A0, T0]}),)),
    agent("agent.summary/under-threshold", "agent.compaction-step",
          "Below both thresholds no :compact step runs and the transcript keeps growing.",
          config={**BASE, "compaction": {"toolId": "summarize", "afterMessages": 5,
                                         "afterBytes": 100000}},
          effects={**THREE_TURNS, "summarize": scripted({"summary": "unused"})},
          actions=[START],
          claims=[{"result": done(answer("Both cost 10.", 3)),
                   "calls": ["#turn:0", "#turn:0:tool:0", "#turn:1", "#turn:1:tool:0",
                             "#turn:2"]}],
          checks=(("turn 2 sees everything",
                   lambda o: step_input(o, "#turn:2")["messages"] == [user(ASK), A0, T0, A1,
                                                                      T1]),)),
    agent("agent.summary/byte-trigger", "agent.compaction-step",
          "An oversized tool result crosses afterBytes with afterMessages unmet: the byte "
          "rule folds all but the newest messages that fit in afterBytes / 2.",
          config={**BASE, "compaction": {"toolId": "summarize", "afterMessages": 50,
                                         "afterBytes": 400}},
          effects={"llm": scripted(A0, said("Done.")), "lookup": scripted({"blob": "x" * 500}),
                   "summarize": scripted({"summary": "S"})},
          actions=[START],
          claims=[{"result": done(answer("Done.", 2)),
                   "calls": ["#turn:0", "#turn:0:tool:0", "#turn:1:compact", "#turn:1"]}],
          checks=(("the newest message alone is over afterBytes / 2: floored at 1",
                   lambda o: step_input(o, "#turn:1:compact") == {"messages": [user(ASK),
                                                                               A0]}
                   and step_input(o, "#turn:1")["messages"][0] == summary_msg("S")
                   and len(step_input(o, "#turn:1")["messages"]) == 2),)),
]

# -- rules the Node adapter found the spec silent on (spec/agent.md) ------------------------

DECIDER_HOLE = {"replay": "the memory's bad answer leaves a decision hole that replay re-runs "
                          "(kernel.decider-throws)",
                "always-replay": "the memory's bad answer leaves a decision hole that replay "
                                 "re-runs (kernel.decider-throws)"}

SPEC_GAPS = [
    agent("agent.loop/answer-text-blocks", "agent.answer",
          "The answer's text is the final message's text blocks concatenated with no "
          "separator.",
          config={"modelToolId": "llm"},
          effects={"llm": scripted({"role": "assistant", "content": [
              {"type": "text", "text": "Tea costs "}, {"type": "text", "text": "10."}]})},
          actions=[START],
          claims=[{"result": done({"text": "Tea costs 10.", "turns": 1, "message": {
              "role": "assistant", "content": [{"type": "text", "text": "Tea costs "},
                                               {"type": "text", "text": "10."}]}})}]),
    agent("agent.loop/stream-text-blocks", "agent.stream-text",
          "A turn's text is its text blocks concatenated, pushed to the chunker as one delta: "
          "two blocks that each end a sentence make one batch, not two.",
          config={"modelToolId": "llm", "streamMinChars": 5},
          effects={"llm": scripted({"role": "assistant", "content": [
              {"type": "text", "text": "Hello there. "}, {"type": "text", "text": "Bye. "}]})},
          actions=[START],
          claims=[{"events": ["EXECUTION_STARTED", "STEP_STARTED", "STEP_COMPLETED",
                              "STREAM_APPENDED", "EXECUTION_COMPLETED"]}],
          checks=(("one batch", lambda o: [p["data"] for p in journal_events(
              o, "STREAM_APPENDED")] == [{"turn": 0, "text": "Hello there. Bye. "}]),)),
    agent("agent.loop/bound-before-compaction", "agent.max-iterations",
          "The bound is checked before anything of the turn it would need: at maxIterations "
          "the run fails without a :compact step, though the transcript is over afterMessages.",
          config={**BASE, "maxIterations": 2, "compaction": COMPACT},
          effects={**THREE_TURNS, "summarize": scripted({"summary": "unused"})},
          actions=[START],
          claims=[{"result": failed("agent.max-iterations"),
                   "calls": ["#turn:0", "#turn:0:tool:0", "#turn:1", "#turn:1:tool:0"]}]),
    agent("agent.errors/duplicate-tool-names", "agent.config-guard",
          "Two tools with one name are refused with argument.invalid before any turn.",
          config={**BASE, "tools": [LOOKUP, {"name": "lookup", "toolId": "lookup-v2"}]},
          effects=TWO_TURNS, actions=[START],
          claims=[{"result": failed("argument.invalid"), "calls": []}]),
    agent("agent.approval/unusable-call-not-parked", "agent.approval-gate",
          "With needsApproval true, a call that gets an error result without a step (an "
          "unknown tool) is never parked; the next call is.",
          config={**BASE, "needsApproval": True},
          effects={"llm": scripted(calling(("c0", "teleport", {}), ("c1", "lookup",
                                                                   {"item": "tea"})),
                                   said("Tea costs 10.")),
                   "lookup": scripted(PRICE)},
          schemas={"#turn:0:tool:1:approval": APPROVAL_SCHEMA},
          actions=[START, resume({"approved": True}, gate="#turn:0:tool:1:approval")],
          claims=[{"result": waiting("#turn:0:tool:1:approval"), "calls": ["#turn:0"]},
                  {"result": done(answer("Tea costs 10.", 2)),
                   "calls": ["#turn:0:tool:1", "#turn:1"]}],
          checks=(("one gate", lambda o: [p["gateId"] for p in journal_events(
              o, "EXECUTION_SUSPENDED")] == ["#turn:0:tool:1:approval"]),)),
    agent("agent.approval/empty-reason", "agent.approval-payload",
          "A refusal whose reason is empty carries the default reason.",
          config=APPROVE_CFG, effects=CHARGE_EFFECTS, schemas={GATE: APPROVAL_SCHEMA},
          actions=[START, resume({"approved": False, "reason": ""})],
          claims=[{"result": waiting(GATE)}, {"result": done(answer("Settled.", 2)),
                                              "calls": ["#turn:1"]}],
          checks=(("the default reason",
                   lambda o: json.loads(turn1_results(o)[0]["content"])["result"]
                   == {"refused": True, "reason": "declined by the approver"}),)),
    agent("agent.choices/query-newest-user", "agent.recall",
          "The query is the newest user message's text blocks joined by a newline.",
          config={"modelToolId": "llm", "recall": {"decider": "memory"}},
          effects={"llm": scripted(said("10 euros."))},
          deciders={"memory": decider(["pays in euros"])},
          actions=[{"do": "start", "input": {"messages": [
              user("Hi"), said("Hello."),
              {"role": "user", "content": [{"type": "text", "text": "What does"},
                                           {"type": "text", "text": "tea cost?"}]}]}}],
          claims=[{"result": done(answer("10 euros.", 1)), "deciders": ["#recall"]}],
          checks=(("the query", lambda o: decision(o, "#recall")["context"]
                   == {"query": "What does\ntea cost?", "recallLimit": 5}),)),
    agent("agent.choices/recall-not-strings", "agent.recall",
          "A memory answer that is not a list of strings is argument.invalid, raised inside "
          "the #recall decider: nothing is recorded and the run fails.",
          config={"modelToolId": "llm", "recall": {"decider": "memory"}},
          effects={"llm": scripted(said("unused"))},
          deciders={"memory": decider(["pays in euros", 7])},
          actions=[START],
          claims=[{"result": failed("argument.invalid"), "deciders": ["#recall"], "calls": [],
                   "events": ["EXECUTION_STARTED", "EXECUTION_FAILED"]}],
          exclude=DECIDER_HOLE),
    agent("agent.choices/skills-not-a-list", "agent.skills",
          "A selection that is a string is not a list of names: it is recorded as it is (not "
          "split into characters) and the run fails with agent.unknown-skill.",
          config={"modelToolId": "llm", "skills": {"library": LIBRARY, "decider": "skills"}},
          effects={"llm": scripted(said("unused"))}, deciders={"skills": decider("tone")},
          actions=[START],
          claims=[{"result": failed("agent.unknown-skill"), "calls": []}],
          checks=(("recorded as it is",
                   lambda o: decision(o, "#skills")["choice"] == "tone"),)),
    agent("agent.choices/skills-null", "agent.skills",
          "A null selection is recorded and fails the run with agent.unknown-skill, not an "
          "internal error.",
          config={"modelToolId": "llm", "skills": {"library": LIBRARY, "decider": "skills"}},
          effects={"llm": scripted(said("unused"))}, deciders={"skills": decider(None)},
          actions=[START],
          claims=[{"result": failed("agent.unknown-skill"), "calls": []}]),
    agent("agent.choices/recall-a-string", "agent.recall",
          "A memory answer that is one string is not a list of strings (not split into "
          "characters): argument.invalid inside the decider, nothing recorded.",
          config={"modelToolId": "llm", "recall": {"decider": "memory"}},
          effects={"llm": scripted(said("unused"))},
          deciders={"memory": decider("pays in euros")},
          actions=[START],
          claims=[{"result": failed("argument.invalid"), "deciders": ["#recall"], "calls": [],
                   "events": ["EXECUTION_STARTED", "EXECUTION_FAILED"]}],
          exclude=DECIDER_HOLE),
    agent("agent.choices/recall-null", "agent.recall",
          "A null memory answer is argument.invalid inside the decider, not an internal error.",
          config={"modelToolId": "llm", "recall": {"decider": "memory"}},
          effects={"llm": scripted(said("unused"))},
          deciders={"memory": decider(None)},
          actions=[START],
          claims=[{"result": failed("argument.invalid"), "deciders": ["#recall"], "calls": [],
                   "events": ["EXECUTION_STARTED", "EXECUTION_FAILED"]}],
          exclude=DECIDER_HOLE),
    agent("agent.router/elevate-truthy", "agent.router",
          "The elevation decision records the truth of the predicate's answer: a truthy "
          "\"yes\" is recorded as true and elevates.",
          config={"router": {"routes": ROUTES, "decider": "route", "elevate": "elevate"}},
          effects={"cheap": scripted(said("Maybe 10?")), "strong": scripted(said("Exactly 10."))},
          deciders={"route": decider("cheap"), "elevate": decider("yes")},
          actions=[START],
          claims=[{"result": done(answer("Exactly 10.", 1)), "transients": ROUTES}],
          checks=(("recorded as true",
                   lambda o: decision(o, "#turn:0:elevate:0")["choice"] is True),)),
    agent("agent.summary/extra-member", "agent.compaction-io",
          "A compaction output with a member besides summary fails the run with "
          "agent.compaction-output.",
          config={**BASE, "compaction": COMPACT},
          effects={**THREE_TURNS, "summarize": scripted({"summary": SUMMARY, "model": "m1"})},
          actions=[START],
          claims=[{"result": failed("agent.compaction-output"), "calls": COMPACT_CALLS[:-1]}]),
]

# -- rules no case pinned yet (issue 21: mutants of the agent layer that the suite let live) --

PINNED = [
    agent("agent.errors/stream-min-chars-zero", "agent.config-guard",
          "streamMinChars is an int >= 1: 0 is refused with argument.invalid when the config "
          "is built, before any turn (not when the first turn's text reaches the chunker).",
          config={**BASE, "streamMinChars": 0}, effects=TWO_TURNS, actions=[START],
          claims=[{"result": failed("argument.invalid"), "calls": [],
                   "events": ["EXECUTION_STARTED", "EXECUTION_FAILED"]}]),
    agent("agent.loop/opaque-no-stream", "agent.step-opaque",
          "The opaque form cannot reach the durable stream: a config with streamMinChars is "
          "refused with argument.agent-step before the step.",
          config={**BASE, "streamMinChars": 5}, effects=TWO_TURNS, actions=[START],
          opaque=True,
          claims=[{"result": failed("argument.agent-step"), "calls": [], "transients": [],
                   "events": ["EXECUTION_STARTED", "EXECUTION_FAILED"]}]),
    agent("agent.summary/bytes-alone-default-keep", "agent.compaction-guard",
          "A compaction block with afterBytes alone and no keepRecent is accepted (the "
          "default keepRecent applies) and compacts by the byte rule.",
          config={**BASE, "compaction": {"toolId": "summarize", "afterBytes": 400}},
          effects={"llm": scripted(A0, said("Done.")), "lookup": scripted({"blob": "x" * 500}),
                   "summarize": scripted({"summary": "S"})},
          actions=[START],
          claims=[{"result": done(answer("Done.", 2)),
                   "calls": ["#turn:0", "#turn:0:tool:0", "#turn:1:compact", "#turn:1"]}],
          checks=(("the byte rule folded all but the newest message",
                   lambda o: step_input(o, "#turn:1:compact") == {"messages": [user(ASK),
                                                                               A0]}),)),
    agent("agent.approval/config-schema-on-gate", "agent.approval-payload",
          "With approvalResumeSchema configured, every approval gate carries that schema "
          "itself (journaled as the gate's resumeSchema): the kernel refuses a malformed "
          "payload (kernel.invalid-resume, nothing written), a valid approval runs the tool.",
          config={**APPROVE_CFG, "approvalResumeSchema": APPROVAL_SCHEMA},
          effects=CHARGE_EFFECTS,
          actions=[START, resume({"approved": "yes"}), resume({"approved": True})],
          claims=[{"result": waiting(GATE)},
                  {"raised": "kernel.invalid-resume", "calls": [], "events": []},
                  {"result": done(answer("Settled.", 2)),
                   "calls": ["#turn:0:tool:0", "#turn:1"]}],
          checks=(("the gate journals the schema",
                   lambda o: [p.get("resumeSchema") for p in journal_events(
                       o, "EXECUTION_SUSPENDED")] == [APPROVAL_SCHEMA]),)),
    agent("agent.approval/config-schema-refused", "agent.approval-payload",
          "An approvalResumeSchema the kernel's schema subset refuses is argument.schema when "
          "the config is built, before any turn.",
          config={**APPROVE_CFG, "approvalResumeSchema": {"type": "object", "format": "x"}},
          effects=CHARGE_EFFECTS, actions=[START],
          claims=[{"result": failed("argument.schema"), "calls": [],
                   "events": ["EXECUTION_STARTED", "EXECUTION_FAILED"]}]),
]

DEFINITIONS: list[dict[str, Any]] = [*LOOP, *OPAQUE, *ERRORS, *TOOLS, *APPROVAL, *CHOICES, *ROUTER,
                                     *SUMMARY_CASES, *SPEC_GAPS, *PINNED]

# the points a blind implementation found open (issue 29), defined with the helpers above
from .defs_agent_blind import BLIND  # noqa: E402
from .defs_agent_blind2 import BLIND2  # noqa: E402
from .defs_agent_blind3 import BLIND3  # noqa: E402
from .defs_agent_blind4 import BLIND4  # noqa: E402
from .defs_agent_blind5 import BLIND5  # noqa: E402

DEFINITIONS += BLIND
DEFINITIONS += BLIND2
DEFINITIONS += BLIND3
DEFINITIONS += BLIND4
DEFINITIONS += BLIND5
