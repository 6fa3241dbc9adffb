"""Agent-loop scenarios for the points a third fresh blind reading found open (issue 29).

The agent chapter's fourth blind reading (``spec/blind/agent.md#third-fresh-blind-reading``):
a Go implementer who read only ``spec/``, ``conformance/INTERPRETING.md`` and the case files
listed every point the text left open. Each scenario here pins the answer the text now gives
where no case pinned it. Claims are hand-written from the spec; ``defs_agent.py`` adds these
to its definitions.
"""

from __future__ import annotations

from typing import Any

from .defs_agent import (
    START,
    agent,
    answer,
    decider,
    decision,
    done,
    failed,
    said,
    scripted,
    step_input,
)

__all__ = ["BLIND4"]

TILDE = "\uff5e"  # U+FF5E: before U+1F600 by code point, after it by UTF-16 unit
GRIN = "\U0001f600"


def _with_code_points(defn: dict[str, Any]) -> dict[str, Any]:
    defn["case"]["requires"] = [*defn["case"]["requires"], "text.code-points"]
    return defn


BLIND4: list[dict[str, Any]] = [
    agent("agent.router/max-iterations-counts-turns", "agent.max-iterations",
          "max_iterations bounds turns, not model calls: with maxIterations 1, a routed turn "
          "that elevates (two calls) is one turn, and its answer says turns 1.",
          config={"router": {"routes": ["cheap", "strong"], "decider": "route",
                             "elevate": "up"}, "maxIterations": 1},
          effects={"cheap": scripted(said("Maybe.")), "strong": scripted(said("Exactly."))},
          deciders={"route": decider("cheap"), "up": decider(True)},
          actions=[START],
          claims=[{"result": done(answer("Exactly.", 1)), "transients": ["cheap", "strong"],
                   "deciders": ["#turn:0:route", "#turn:0:call:0", "#turn:0:elevate:0",
                                "#turn:0:call:1"]}]),
    agent("agent.errors/claim-check-flag-without-ref", "agent.claim-check-not-model",
          "An envelope is an object whose __loomClaimCheck is true, whatever its other "
          "members: a model output {__loomClaimCheck: true} with no ref is "
          "agent.claim-checked-output.",
          config={"modelToolId": "llm"}, effects={"llm": scripted({"__loomClaimCheck": True})},
          actions=[START],
          claims=[{"result": failed("agent.claim-checked-output"), "calls": ["#turn:0"]}]),
    agent("agent.errors/claim-check-flag-one", "agent.claim-check-not-model",
          "A __loomClaimCheck of 1 is not the JSON true, so the output is no envelope: it is "
          "judged as a message, which it is not, agent.model-response.",
          config={"modelToolId": "llm"},
          effects={"llm": scripted({"__loomClaimCheck": 1, "ref": "sha256:" + "0" * 64})},
          actions=[START],
          claims=[{"result": failed("agent.model-response"), "calls": ["#turn:0"]}]),
    _with_code_points(agent(
        "agent.choices/skills-sorted-by-code-point", "agent.skills",
        "The #skills alternatives are the library's names sorted by code point: U+FF5E before "
        "U+1F600 (UTF-16 units would put the emoji first).",
        config={"modelToolId": "llm", "skills": {"library": {GRIN: "Smile.", TILDE: "Wave."},
                                                 "decider": "skills"}},
        effects={"llm": scripted(said("Hi."))}, deciders={"skills": decider([GRIN])},
        actions=[START],
        claims=[{"result": done(answer("Hi.", 1)), "deciders": ["#skills"]}],
        checks=(("alternatives by code point",
                 lambda o: decision(o, "#skills")["alternatives"] == [TILDE, GRIN]),))),
    agent("agent.choices/skill-empty-instructions", "agent.system-prompt",
          "A chosen skill whose instructions are empty is still a part of the prompt: "
          "'### <name>\\n', its newline kept.",
          config={"modelToolId": "llm", "system": "Be brief.",
                  "skills": {"library": {"tone": ""}, "decider": "skills"}},
          effects={"llm": scripted(said("Hi."))}, deciders={"skills": decider(["tone"])},
          actions=[START],
          claims=[{"result": done(answer("Hi.", 1)), "deciders": ["#skills"]}],
          checks=(("the system prompt",
                   lambda o: step_input(o, "#turn:0")["system"]
                   == "Be brief.\n\n## Skills\n\n### tone\n"),)),
]
