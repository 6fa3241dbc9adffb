"""Agent vector cases for the points a second fresh blind reading found open (issue 29).

The agent chapter's third blind reading (``spec/blind/agent.md#second-fresh-blind-reading``):
a Go implementer who read only ``spec/``, ``conformance/INTERPRETING.md`` and the case files
listed every point the text left open. Each case here pins the answer the text now gives
where no case pinned it. They are registered with ``gen_vectors.py``'s cases, in the same
shape, and written by it; the intent is hand-written from the spec.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CASES"]

Case = dict[str, Any]
CASES: list[Case] = []
ONE_REF = "sha256:6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b"  # of "1"


def case(group: str, name: str, *, anchor: str, description: str, function: str,
         input: dict[str, Any], intent: dict[str, Any], requires: tuple[str, ...] = ()) -> None:
    CASES.append({"group": group, "name": name, "anchor": anchor, "tier": "must",
                  "description": description, "function": function, "input": input,
                  "intent": intent, "requires": requires})


case("agent.transcript", "tool-result-lone-surrogate", anchor="agent.canonical-json",
     function="agent.tool_result_content",
     description="The tool-result content is UTF-8 text: a result holding a lone surrogate "
                 "has no canonical JSON, argument.invalid (only a claim-check's store answers "
                 "argument.claim-check-value).",
     input={"name": "lookup", "result": {"t": "a\ud800"}}, intent={"error": "argument.invalid"},
     requires=("text.lone-surrogates",))
case("agent.chunk-deltas", "repeated-terminators", anchor="agent.chunk-boundary",
     function="agent.chunk_deltas",
     description="What precedes the punctuation does not matter, another mark included: '?! ' "
                 "and '... ' each end a sentence at the whitespace after the last mark.",
     input={"deltas": ["Really?! ", "Yes... ", "ok"], "minChars": 1},
     intent={"batches": ["Really?! ", "Yes... ", "ok"]})
case("agent.chunk-deltas", "last-boundary-one-batch", anchor="agent.chunk-min-chars",
     function="agent.chunk_deltas",
     description="Only the last boundary of the buffer is looked at: the whole prefix up to it "
                 "is one batch, never split at an earlier boundary that alone reaches minChars.",
     input={"deltas": ["Hi. A long sentence here. x"], "minChars": 2},
     intent={"batches": ["Hi. A long sentence here. ", "x"]})
case("agent.chunk-deltas", "min-chars-code-points", anchor="agent.chunk-min-chars",
     function="agent.chunk_deltas",
     description="minChars counts code points: two emoji, a full stop and a space are 4, below "
                 "5, so nothing is emitted before the flush (6 UTF-16 units, 10 UTF-8 bytes).",
     input={"deltas": ["\U0001F600\U0001F600. ", "x"], "minChars": 5},
     intent={"batches": ["\U0001F600\U0001F600. x"]}, requires=("text.code-points",))
case("agent.claim-check", "preview-null", anchor="agent.vector-input",
     function="agent.claim_check_envelope",
     description="preview is a boolean when given: null is not one (errors.vector-null), "
                 "argument.invalid.",
     input={"result": 1, "preview": None}, intent={"error": "argument.invalid"})
case("agent.claim-check", "resolve-tainted-is-data", anchor="agent.claim-check-ref",
     function="agent.claim_check_envelope",
     description="resolve is plain JSON, not decoded: a malformed {\"$tainted\"} object in an "
                 "envelope's other member is data, not argument.invalid, and is not read.",
     input={"result": 1, "resolve": {"__loomClaimCheck": True, "ref": ONE_REF,
                                     "x": {"$tainted": {"value": 1}}}},
     intent={"stored": "1", "resolved": 1})
case("agent.model-effect", "no-finish", anchor="agent.model-output",
     function="agent.model_effect",
     description="A stream that ends with no finish fails the call with effect.llm-error: the "
                 "text it streamed was delivered, and no terminal done chunk follows.",
     input={"input": {"messages": []},
            "chunks": [{"type": "text-delta", "index": 0, "text": "a"}]},
     intent={"outcome": {"error": {"code": "effect.llm-error"}},
             "perCall": [{"delta": "a", "origin": "llm:llm"}],
             "onDelta": [{"delta": "a", "origin": "llm:llm"}]})
case("agent.compaction", "guard-threshold-list", anchor="agent.vector-input",
     function="agent.compaction_plan",
     description="A threshold given as a list is judged by the guard too: "
                 "argument.agent-compaction, not argument.invalid.",
     input={"sizes": [1, 1], "afterMessages": [1], "afterBytes": None, "keepRecent": 1},
     intent={"error": "argument.agent-compaction"})
