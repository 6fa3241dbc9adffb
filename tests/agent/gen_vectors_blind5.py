"""Agent vector cases for the points a fourth fresh blind reading found open (issue 29).

The agent chapter's fifth blind reading (``spec/blind/agent.md#fourth-fresh-blind-reading``):
a Go implementer who read only ``spec/``, ``conformance/INTERPRETING.md`` and the case files
listed every point the text left open; no case decided any of them. Each case here pins the
answer the text now gives. They are registered with ``gen_vectors.py``'s cases, in the same
shape, and written by it; the intent is hand-written from the spec.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CASES"]

Case = dict[str, Any]
CASES: list[Case] = []


def case(group: str, name: str, *, anchor: str, description: str, function: str,
         input: dict[str, Any], intent: dict[str, Any], requires: tuple[str, ...] = ()) -> None:
    CASES.append({"group": group, "name": name, "anchor": anchor, "tier": "must",
                  "description": description, "function": function, "input": input,
                  "intent": intent, "requires": requires})


case("agent.claim-check", "resolve-null", anchor="agent.vector-input",
     function="agent.claim_check_envelope",
     description="resolve is any JSON, null included: null is no envelope, argument.invalid "
                 "(the code a reading of null as a wrong type would give too).",
     input={"result": {"a": 1}, "resolve": None}, intent={"error": "argument.invalid"})
