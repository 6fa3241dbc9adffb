"""Agent vector cases for what the suite did not reach (issue 30: reach by coverage).

Each case drives a line or branch of ``loom_ref/agent/`` the conformance suite had not
reached: the strict reading of a vector's input (``agent.vector-input``: an input that is no
object, a member of the wrong type), a resolved claim-checked list, a claim-checked string
UTF-8 cannot carry. They are registered with ``gen_vectors.py``'s cases (``CASES`` below, in
the same shape as ``gen_vectors_blind.py``'s) and written by it; the intent is hand-written
from the spec.
"""

from __future__ import annotations

import hashlib
from typing import Any

__all__ = ["CASES"]

Case = dict[str, Any]
CASES: list[Case] = []
ERROR = "argument.invalid"


def case(group: str, name: str, *, anchor: str, description: str, function: str,
         input: Any, intent: dict[str, Any], requires: tuple[str, ...] = ()) -> None:
    CASES.append({"group": group, "name": name, "anchor": anchor, "tier": "must",
                  "description": description, "function": function, "input": input,
                  "intent": intent, "requires": requires})


def sha(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


# ---- agent.vector-input: an input is a JSON object of typed members ------------------------
case("agent.transcript", "input-not-an-object", anchor="agent.vector-input",
     function="agent.message_bytes",
     description="A vector's input is a JSON object: an array is argument.invalid.",
     input=[{"role": "user"}], intent={"error": ERROR})
case("agent.kept-suffix", "after-bytes-string", anchor="agent.vector-input",
     function="agent.kept_suffix",
     description="afterBytes is an integer: the string \"10\" is argument.invalid, not read "
     "as a number.",
     input={"sizes": [1], "afterBytes": "10", "keepRecent": 1}, intent={"error": ERROR})
case("agent.kept-suffix", "sizes-not-an-array", anchor="agent.vector-input",
     function="agent.kept_suffix",
     description="sizes is an array of integers: an object is argument.invalid.",
     input={"sizes": {"0": 1}, "afterBytes": 10, "keepRecent": 1}, intent={"error": ERROR})
case("agent.chunk-deltas", "deltas-not-an-array", anchor="agent.vector-input",
     function="agent.chunk_deltas",
     description="deltas is an array of strings: one string is argument.invalid, not split "
     "into characters.",
     input={"deltas": "Hi. There.", "minChars": 1}, intent={"error": ERROR})
case("agent.chunk-deltas", "flush-after-not-an-array", anchor="agent.vector-input",
     function="agent.chunk_deltas",
     description="flushAfter is an array of delta indexes: a bare index is argument.invalid.",
     input={"deltas": ["a", "b"], "minChars": 1, "flushAfter": 0}, intent={"error": ERROR})
case("agent.claim-check", "preview-not-a-boolean", anchor="agent.vector-input",
     function="agent.claim_check_envelope",
     description="preview is a boolean: 0 is argument.invalid, not read as false.",
     input={"result": {"a": 1}, "preview": 0}, intent={"error": ERROR})
case("agent.model-effect", "input-member-missing", anchor="agent.vector-input",
     function="agent.model_effect",
     description="agent.model_effect's input and chunks are required: without chunks the "
     "function's argument.invalid, before any call.",
     input={"input": {"messages": []}}, intent={"error": ERROR})
case("agent.summarizer", "render-messages-not-an-array", anchor="agent.vector-input",
     function="agent.render_transcript",
     description="agent.render_transcript's messages is an array: an object is "
     "argument.invalid.",
     input={"messages": {"role": "user", "content": []}}, intent={"error": ERROR})

# ---- agent.claim-check-ref: what is resolved is the stored value, arrays included ----------
LIST_TEXT = '[{"$tainted":{"origin":"web:x","value":"a"}},[2]]'
case("agent.claim-check", "resolve-array", anchor="agent.claim-check-ref",
     function="agent.claim_check_envelope",
     description="A claim-checked array resolves to the same array, a tainted value inside "
     "it tainted again and a nested array kept.",
     input={"result": [{"$tainted": {"value": "a", "origin": "web:x"}}, [2]],
            "resolve": {"__loomClaimCheck": True, "ref": sha(LIST_TEXT)}},
     intent={"stored": LIST_TEXT,
             "resolved": [{"$tainted": {"value": "a", "origin": "web:x"}}, [2]]})
# ---- agent.model-effect: the effect's own defaults, and an input they cannot merge into ----
CHUNKS = [{"type": "block-start", "index": 0, "blockType": "text"},
          {"type": "text-delta", "index": 0, "text": "ok"},
          {"type": "block-end", "index": 0, "block": {"type": "text", "text": "ok"}},
          {"type": "finish", "reason": {"kind": "stop"}}]
HI = [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
case("agent.model-effect", "max-tokens-not-an-integer", anchor="agent.vector-input",
     function="agent.model_effect",
     description="The effect's own maxTokens is an integer, checked when the effect is "
     "built: the string \"5\" is the function's argument.invalid, before any call.",
     input={"input": {"messages": HI}, "chunks": CHUNKS, "maxTokens": "5"},
     intent={"error": ERROR})
case("agent.model-effect", "temperature-not-a-number", anchor="agent.vector-input",
     function="agent.model_effect",
     description="The effect's own temperature is a number: true is the function's "
     "argument.invalid, not read as 1.",
     input={"input": {"messages": HI}, "chunks": CHUNKS, "temperature": True},
     intent={"error": ERROR})
case("agent.model-effect", "defaults-with-input-not-an-object", anchor="agent.model-input",
     function="agent.model_effect",
     description="With the effect's own maxTokens set, a call input that is not an object "
     "is still the call's to refuse (the outcome's argument.invalid), with no request sent.",
     input={"input": ["hi"], "chunks": CHUNKS, "maxTokens": 5},
     intent={"requests": [], "outcome": {"error": {"code": ERROR}}})


# ---- issue 30, sample 803808: a boundary at the very start of the first delta ---------------
case("agent.chunk-deltas", "boundary-at-first-character", anchor="agent.chunk-min-chars",
     function="agent.chunk_deltas",
     description="A boundary is found wherever it stands, the first character of the first "
     "delta included: \"\\nabc\" with minChars 1 emits \"\\n\" (a boundary 1 character long, "
     "at minChars) and the flush \"abc\".",
     input={"deltas": ["\nabc"], "minChars": 1}, intent={"batches": ["\n", "abc"]})
