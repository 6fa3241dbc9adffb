"""Agent vector cases for the points a fresh blind implementation found open (issue 29).

The agent chapter's second blind reading (``spec/blind/agent.md#fresh-blind-reading``): a Go
implementer who read only ``spec/``, ``conformance/INTERPRETING.md`` and the case files
probed the reference where no case decided a point. Each case here pins the answer the text
now gives. They are registered with ``gen_vectors.py``'s cases, in the same shape, and
written by it; the intent is hand-written from the spec.
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


case("agent.chunk-deltas", "four-closers-no-boundary", anchor="agent.chunk-boundary",
     function="agent.chunk_deltas",
     description="At most three closing quotes or brackets follow the punctuation of a "
                 "boundary: with four, the whitespace after them ends no sentence, and "
                 "nothing is emitted before the flush.",
     input={"deltas": ["x.\"')) ", "y"], "minChars": 1},
     intent={"batches": ["x.\"')) y"]})
case("agent.chunk-deltas", "three-closers-boundary", anchor="agent.chunk-boundary",
     function="agent.chunk_deltas",
     description="Three closing quotes or brackets after the punctuation still make a "
                 "boundary at the whitespace after them.",
     input={"deltas": ["x.\"') ", "y"], "minChars": 1},
     intent={"batches": ["x.\"') ", "y"]})
case("agent.summarizer", "tainted-text-is-data", anchor="agent.summarizer",
     function="agent.summarize",
     description="summarize's messages are plain wire JSON: a text block whose text is a "
                 "{\"$tainted\": ...} object does not decode, the call's argument.invalid, "
                 "and no request is made.",
     input={"messages": [{"role": "user", "content": [
         {"type": "text", "text": {"$tainted": {"value": "x", "origin": "o"}}}]}],
            "chunks": [{"type": "finish", "reason": {"kind": "stop"}}]},
     intent={"requests": [], "outcome": {"error": {"code": "argument.invalid"}}})
case("agent.summarizer", "render-tool-result-any-role", anchor="agent.render-transcript",
     function="agent.render_transcript",
     description="'tool result: ' and 'tool error: ' are literal whatever the role of the "
                 "message holding the block: a user message's tool results render so too.",
     input={"messages": [
         {"role": "user", "content": [
             {"type": "tool-result", "callId": "c0", "content": "r"},
             {"type": "tool-result", "callId": "c1", "content": "e", "isError": True}]},
         {"role": "system", "content": [{"type": "text", "text": "s"}]}]},
     intent={"text": "tool result: r\ntool error: e\n\nsystem: s"})
case("agent.claim-check", "lone-surrogate-result", anchor="agent.claim-check-ref",
     function="agent.claim_check_envelope",
     description="A result with no canonical JSON (a string holding a lone surrogate) cannot "
                 "be stored: argument.claim-check-value, the claim-check's own code, not "
                 "agent.canonical-json's argument.invalid.",
     input={"result": {"t": "a\ud800"}}, intent={"error": "argument.claim-check-value"},
     requires=("text.lone-surrogates",))
case("agent.claim-check", "lone-surrogate-content-ref", anchor="agent.claim-check-ref",
     function="agent.content_ref",
     description="content_ref of a value with no canonical JSON (a lone surrogate) is "
                 "argument.claim-check-value, as the envelope's.",
     input={"value": ["a\udfff"]}, intent={"error": "argument.claim-check-value"},
     requires=("text.lone-surrogates",))
