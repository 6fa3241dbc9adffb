"""Agent vector cases for the points a third fresh blind reading found open (issue 29).

The agent chapter's fourth blind reading (``spec/blind/agent.md#third-fresh-blind-reading``):
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
ERROR = "argument.invalid"
FINISH = {"type": "finish", "reason": {"kind": "stop"}}


def case(group: str, name: str, *, anchor: str, description: str, function: str,
         input: dict[str, Any], intent: dict[str, Any], requires: tuple[str, ...] = ()) -> None:
    CASES.append({"group": group, "name": name, "anchor": anchor, "tier": "must",
                  "description": description, "function": function, "input": input,
                  "intent": intent, "requires": requires})


case("agent.compaction", "guard-threshold-fraction", anchor="agent.vector-input",
     function="agent.compaction_plan",
     description="A threshold with a fraction (2.5) is a Compaction member given a value the "
                 "guard refuses: argument.agent-compaction, not argument.invalid.",
     input={"sizes": [1, 1, 1], "afterMessages": 2.5, "afterBytes": None, "keepRecent": 1},
     intent={"error": "argument.agent-compaction"})
case("agent.compaction", "guard-keep-recent-fraction", anchor="agent.vector-input",
     function="agent.compaction_plan",
     description="A keepRecent with a fraction (1.5) is the guard's refusal too: "
                 "argument.agent-compaction.",
     input={"sizes": [1, 1, 1], "afterMessages": None, "afterBytes": 10, "keepRecent": 1.5},
     intent={"error": "argument.agent-compaction"})
case("agent.chunk-deltas", "min-chars-fraction", anchor="agent.vector-input",
     function="agent.chunk_deltas",
     description="minChars is an int: 1.5 is not one, argument.invalid (the chunker has no "
                 "guard of its own code).",
     input={"deltas": ["A. B"], "minChars": 1.5}, intent={"error": ERROR})
case("agent.chunk-deltas", "second-whitespace-starts-next", anchor="agent.chunk-boundary",
     function="agent.chunk_deltas",
     description="Only the first whitespace character after a full stop ends the sentence: in "
                 "'A.  B' the boundary follows 'A. ', and the second space begins the next "
                 "batch.",
     input={"deltas": ["A.  B"], "minChars": 1}, intent={"batches": ["A. ", " B"]})
case("agent.chunk-deltas", "flush-after-any-order", anchor="agent.chunk-flush",
     function="agent.chunk_deltas",
     description="flushAfter is a set of delta indices: [1, 0] flushes after delta 0 and after "
                 "delta 1, as [0, 1] would; its order is not refused.",
     input={"deltas": ["a", "b", "c"], "minChars": 40, "flushAfter": [1, 0]},
     intent={"batches": ["a", "b", "c"]})
case("agent.model-effect", "chunk-after-finish-decoded", anchor="agent.vector-input",
     function="agent.model_effect",
     description="Every chunk is decoded before the call, one after the first finish too "
                 "(which the effect never reads): a malformed one is argument.invalid.",
     input={"input": {"messages": []},
            "chunks": [{"type": "text-delta", "index": 0, "text": "a"}, FINISH,
                       {"type": "text-delta", "index": 0}]},
     intent={"error": ERROR})
case("agent.summarizer", "render-message-not-decoding", anchor="agent.vector-input",
     function="agent.render_transcript",
     description="A message of agent.render_transcript that does not decode (a text block "
                 "without text) is argument.invalid, not its stream.wire.* code.",
     input={"messages": [{"role": "user", "content": [{"type": "text"}]}]},
     intent={"error": ERROR})
case("agent.summarizer", "messages-null-is-the-calls", anchor="agent.vector-input",
     function="agent.summarize",
     description="messages null is the call's input {\"messages\": null}, not a list: the "
                 "outcome's argument.invalid, with no request sent.",
     input={"messages": None, "chunks": [{"type": "text-delta", "index": 0, "text": "x"},
                                         FINISH]},
     intent={"requests": [], "outcome": {"error": {"code": ERROR}}})
case("agent.summarizer", "messages-missing", anchor="agent.vector-input",
     function="agent.summarize",
     description="A missing messages member is the function's argument.invalid: the call's "
                 "input cannot be built, so there is no outcome.",
     input={"chunks": [{"type": "text-delta", "index": 0, "text": "x"}, FINISH]},
     intent={"error": ERROR})
