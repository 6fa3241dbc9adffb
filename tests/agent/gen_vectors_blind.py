"""Agent vector cases for the points a blind implementation found open (issue 29).

A Go implementer who read only ``spec/``, ``conformance/INTERPRETING.md`` and the case files
recorded every point the agent chapter left open (``spec/blind/agent.md`` lists them); each
case here pins the answer the text now gives, where that answer had lived only in loom_ref's
code. They are registered with ``gen_vectors.py``'s cases (``CASES`` below, in the same
shape: ``group``, ``name``, ``anchor``, ``tier``, ``description``, ``function``, ``input``,
``intent``, ``requires``) and written by it; the intent is hand-written from the spec.
"""

from __future__ import annotations

import hashlib
from typing import Any

__all__ = ["CASES"]

Case = dict[str, Any]
CASES: list[Case] = []


def case(group: str, name: str, *, anchor: str, description: str, function: str,
         input: dict[str, Any], intent: dict[str, Any], requires: tuple[str, ...] = ()) -> None:
    CASES.append({"group": group, "name": name, "anchor": anchor, "tier": "must",
                  "description": description, "function": function, "input": input,
                  "intent": intent, "requires": requires})


def sha(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def text_msg(role: str, text: Any) -> dict[str, Any]:
    return {"role": role, "content": [{"type": "text", "text": text}]}


def text_chunks(*deltas: str, finish: str = "stop", usage: bool = True) -> list[dict[str, Any]]:
    """Wire chunks of one text reply streamed as ``deltas`` (one text block)."""
    out: list[dict[str, Any]] = [{"type": "block-start", "index": 0, "blockType": "text"}]
    out += [{"type": "text-delta", "index": 0, "text": d} for d in deltas]
    out.append({"type": "block-end", "index": 0,
                "block": {"type": "text", "text": "".join(deltas)}})
    if usage:
        out.append({"type": "usage", "usage": {"inputTokens": 7, "outputTokens": 3}})
    out.append({"type": "finish", "reason": {"kind": finish}})
    return out


ERROR = "argument.invalid"
GUARD = "argument.agent-compaction"
ORIGIN = "llm:llm"
HI = [text_msg("user", "hi")]
OK_OUTPUT = {"output": {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}}


def request(messages: list[Any] = HI, *, model: str = "m1", tools: Any = (),
            max_tokens: Any = None, temperature: Any = None) -> dict[str, Any]:
    return {"model": model, "messages": messages, "tools": list(tools), "maxTokens": max_tokens,
            "temperature": temperature}


# ---- agent.compaction: the guard judges every given Compaction member ----------------------
P = "agent.compaction_plan"


def plan(name: str, anchor: str, description: str, intent: dict[str, Any], **members: Any
         ) -> None:
    case("agent.compaction", name, anchor=anchor, function=P, description=description,
         input={"sizes": [1, 1], "afterMessages": None, "afterBytes": 10, "keepRecent": 1,
                **members}, intent=intent)


plan("guard-keep-recent-null", "agent.vector-input",
     "A keepRecent of null is no 'unset': the Compaction guard refuses it "
     "(argument.agent-compaction), as any value it refuses, not argument.invalid.",
     {"error": GUARD}, keepRecent=None)
plan("guard-threshold-string", "agent.vector-input",
     "A threshold given as a string is judged by the guard: argument.agent-compaction.",
     {"error": GUARD}, afterBytes="10")
plan("guard-threshold-boolean", "agent.vector-input",
     "A threshold given as a boolean is not an int (true is not 1): the guard refuses it.",
     {"error": GUARD}, afterMessages=True)
plan("input-unknown-before-guard", "agent.vector-input",
     "An unknown member is argument.invalid, reported before the guard would refuse the "
     "missing thresholds.", {"error": ERROR}, afterBytes=None, extra=1)

# ---- agent.kept-suffix ---------------------------------------------------------------------
case("agent.kept-suffix", "after-bytes-zero", anchor="agent.vector-input",
     function="agent.kept_suffix",
     description="kept_suffix has no Compaction guard: an afterBytes below 1 is "
     "argument.invalid.", input={"sizes": [1], "afterBytes": 0, "keepRecent": 1},
     intent={"error": ERROR})

# ---- agent.transcript ----------------------------------------------------------------------
MB = "agent.message_bytes"
case("agent.transcript", "lone-surrogate", anchor="agent.canonical-json", function=MB,
     description="A string holding a lone surrogate has no canonical JSON (UTF-8 cannot carry "
     "it): argument.invalid.", input={"message": {"t": "a\ud800"}}, intent={"error": ERROR},
     requires=("text.lone-surrogates",))
TR = "agent.tool_result_content"
case("agent.transcript", "tool-result-taint-is-data", anchor="agent.vector-input", function=TR,
     description="tool_result_content's result is plain JSON: a $tainted object is data, "
     "written as it is (a malformed one too), with no whitespace in the wrapper.",
     input={"name": "t", "result": [{"$tainted": {"value": 1, "origin": "o"}},
                                    {"$tainted": 1}]},
     intent={"content": '{"tool":"t","result":[{"$tainted":{"origin":"o","value":1}},'
             '{"$tainted":1}]}'})

# ---- agent.chunk-deltas --------------------------------------------------------------------
CD = "agent.chunk_deltas"
case("agent.chunk-deltas", "flush-after-negative", anchor="agent.vector-input", function=CD,
     description="flushAfter holds indexes of deltas: a negative one is argument.invalid.",
     input={"deltas": ["ab", "cd"], "minChars": 1, "flushAfter": [-1]}, intent={"error": ERROR})
case("agent.chunk-deltas", "flush-after-repeated-and-empty", anchor="agent.chunk-flush",
     function=CD,
     description="An index listed twice flushes once (a second flush emits nothing), and the "
     "index of an empty delta flushes too.",
     input={"deltas": ["ab", "", "cd", "ef"], "minChars": 5, "flushAfter": [1, 2, 2]},
     intent={"batches": ["ab", "cd", "ef"]})

# ---- agent.claim-check ---------------------------------------------------------------------
CE = "agent.claim_check_envelope"
ONE = sha("1")
case("agent.claim-check", "resolve-flag-one", anchor="agent.claim-check-ref", function=CE,
     description="Only the JSON true marks an envelope: \"__loomClaimCheck\": 1 is not one, "
     "so resolving it is argument.invalid.",
     input={"result": 1, "resolve": {"__loomClaimCheck": 1, "ref": ONE}},
     intent={"error": ERROR})
case("agent.claim-check", "resolve-ref-not-string", anchor="agent.claim-check-ref",
     function=CE, description="An envelope whose ref is not a string is argument.invalid.",
     input={"result": 1, "resolve": {"__loomClaimCheck": True, "ref": 1}},
     intent={"error": ERROR})
case("agent.claim-check", "resolve-reads-flag-and-ref", anchor="agent.claim-check-ref",
     function=CE,
     description="Resolving reads the flag and the ref alone: a digest that does not match "
     "and an unknown member change nothing.",
     input={"result": 1, "preview": False,
            "resolve": {"__loomClaimCheck": True, "ref": ONE, "digest": {"x": 1}, "y": 2}},
     intent={"resolved": 1, "stored": "1", "envelope": {"__loomClaimCheck": True, "ref": ONE}})
NESTED_TEXT = '{"$tainted":{"origin":"b","value":[{"$tainted":{"origin":"a","value":1}}]}}'
case("agent.claim-check", "tainted-nested-origins", anchor="agent.claim-check-taint",
     function=CE,
     description="The origins are those of every tainted value in the result, one held "
     "inside another tainted value's value included, sorted.",
     input={"result": {"$tainted": {"value": [{"$tainted": {"value": 1, "origin": "a"}}],
                                    "origin": "b"}}},
     intent={"stored": NESTED_TEXT,
             "envelope": {"__loomClaimCheck": True, "ref": sha(NESTED_TEXT), "tainted": True,
                          "origins": ["a", "b"]}})
case("agent.claim-check", "taint-double-wrap", anchor="agent.vector-input", function=CE,
     description="A tainted value directly wrapping another is refused where it is built "
     "(taint.no-double-wrap): argument.invalid.",
     input={"result": {"$tainted": {"value": {"$tainted": {"value": 1, "origin": "a"}},
                                    "origin": "b"}}},
     intent={"error": ERROR})
TAINTED_LIST = '[{"$tainted":{"origin":"o","value":1}}]'
case("agent.claim-check", "tainted-preview-false", anchor="agent.claim-check-taint",
     function=CE,
     description="A tainted result gets the tainted envelope whatever preview says: "
     "preview: false gives no bare ref for it.",
     input={"result": [{"$tainted": {"value": 1, "origin": "o"}}], "preview": False},
     intent={"envelope": {"__loomClaimCheck": True, "ref": sha(TAINTED_LIST), "tainted": True,
                          "origins": ["o"]}})
ASTRAL = "\U0001F600" * 300
ASTRAL_TEXT = '"' + ASTRAL + '"'
case("agent.claim-check", "preview-code-points", anchor="agent.claim-check-envelope",
     function=CE,
     description="The preview is the first 256 characters, counted as code points: the quote "
     "and 255 emoji (not 256 UTF-16 code units).",
     input={"result": ASTRAL},
     intent={"envelope": {"__loomClaimCheck": True, "ref": sha(ASTRAL_TEXT),
                          "digest": {"preview": ASTRAL_TEXT[:256], "truncated": True}}},
     requires=("text.code-points",))

# ---- agent.model-effect --------------------------------------------------------------------
ME = "agent.model_effect"
OK_DELTAS = {"perCall": [{"delta": "ok", "origin": ORIGIN},
                         {"delta": "", "origin": ORIGIN, "done": True,
                          "usage": {"inputTokens": 7, "outputTokens": 3}}],
             "onDelta": [{"delta": "ok", "origin": ORIGIN}]}


def effect(name: str, anchor: str, description: str, input: dict[str, Any],
           intent: dict[str, Any], chunks: list[Any] | None = None, **own: Any) -> None:
    case("agent.model-effect", name, anchor=anchor, function=ME, description=description,
         input={"input": input, "chunks": text_chunks("ok") if chunks is None else chunks,
                **own}, intent=intent)


REFUSED = {"requests": [], "perCall": [], "onDelta": []}
effect("effect-defaults-null", "agent.vector-input",
       "The effect's own maxTokens and temperature given as null set nothing, as "
       "max_tokens=None does (errors.vector-null): the request carries null.",
       {"messages": HI}, {"requests": [request()], "outcome": OK_OUTPUT},
       maxTokens=None, temperature=None)
effect("max-tokens-any-int", "agent.model-input",
       "The effect's maxTokens is any int: -1 is sent as it is (the range is the provider's).",
       {"messages": HI}, {"requests": [request(max_tokens=-1)], "outcome": OK_OUTPUT},
       maxTokens=-1)
effect("tainted-before-shape", "agent.model-input",
       "guard_request runs first: an input holding a tainted value and an unknown member is "
       "refused with governance.tainted-request, the provider never called.",
       {"messages": [text_msg("user", {"$tainted": {"value": "x", "origin": "web"}})],
        "stream": True},
       {**REFUSED, "outcome": {"error": {"code": "governance.tainted-request"}}})
effect("system-null", "agent.model-input",
       "A null system is a system of the wrong type: the call's argument.invalid.",
       {"messages": HI, "system": None},
       {**REFUSED, "outcome": {"error": {"code": ERROR}}})
effect("tool-description-not-a-string", "agent.model-input",
       "A tool whose description is not a string is malformed: the call's argument.invalid "
       "(the outcome's, not the function's).",
       {"messages": HI, "tools": [{"name": "f", "description": 5}]},
       {**REFUSED, "outcome": {"error": {"code": ERROR}}})
effect("messages-empty", "agent.model-input",
       "messages may be empty: the provider is called with none.",
       {"messages": []}, {"requests": [request([])], "outcome": OK_OUTPUT, **OK_DELTAS})
effect("input-model-and-wire-form", "agent.model-input",
       "A model the input sets is the one requested; the request's messages are in the wire "
       "form as the stream layer writes them (isError: false left out).",
       {"model": "m2", "messages": [
           *HI, {"role": "assistant", "content": [
               {"type": "tool-call", "id": "c", "name": "f", "arguments": "{}"}]},
           {"role": "tool", "content": [{"type": "tool-result", "callId": "c", "content": "1",
                                         "isError": False}]}]},
       {"requests": [request([*HI, {"role": "assistant", "content": [
           {"type": "tool-call", "id": "c", "name": "f", "arguments": "{}"}]},
           {"role": "tool", "content": [{"type": "tool-result", "callId": "c",
                                         "content": "1"}]}], model="m2")],
        "outcome": OK_OUTPUT})
effect("nothing-after-finish", "agent.model-output",
       "Nothing the adapter streams after its first finish is read: the later text and the "
       "later error finish are neither folded nor delivered.",
       {"messages": HI},
       {"outcome": {"output": {"role": "assistant",
                               "content": [{"type": "text", "text": "a"}]}},
        "perCall": [{"delta": "a", "origin": ORIGIN},
                    {"delta": "", "origin": ORIGIN, "done": True}],
        "onDelta": [{"delta": "a", "origin": ORIGIN}]},
       chunks=[{"type": "text-delta", "index": 0, "text": "a"},
               {"type": "finish", "reason": {"kind": "stop"}},
               {"type": "text-delta", "index": 0, "text": "b"},
               {"type": "finish", "reason": {"kind": "error", "failure": {"message": "x"}}}])
effect("assembler-error-code", "agent.model-output",
       "A chunk the assembler refuses fails the call with the broken rule's id as its code, "
       "not effect.llm-error.",
       {"messages": HI},
       {"outcome": {"error": {"code": "stream.tool-arguments-raw-json"}}},
       chunks=[{"type": "tool-call-delta", "index": 0, "id": "c", "argumentsDelta": {"a": 1}},
               {"type": "finish", "reason": {"kind": "tool-calls"}}])
effect("done-without-text-or-usage", "agent.model-deltas",
       "A successful call that streamed no text still ends with the terminal done chunk, to "
       "the per-call sink only, without usage when the stream carried none.",
       {"messages": HI},
       {"outcome": {"output": {"role": "assistant", "content": []}},
        "perCall": [{"delta": "", "origin": ORIGIN, "done": True}], "onDelta": []},
       chunks=[{"type": "finish", "reason": {"kind": "stop"}}])

# ---- agent.summarizer ----------------------------------------------------------------------
SU = "agent.summarize"
RT = "agent.render_transcript"
DEFAULT = ("Summarize the conversation below for the assistant that continues it. Keep every "
           "fact, decision, open question and tool result it will still need; drop "
           "pleasantries.")


def summary_request(rendered: str) -> dict[str, Any]:
    return request([text_msg("system", DEFAULT), text_msg("user", rendered)])


case("agent.summarizer", "messages-malformed-is-the-calls", anchor="agent.vector-input",
     function=SU,
     description="summarize's messages are the call's input: a message that does not decode "
     "is the outcome's argument.invalid, the provider never called.",
     input={"messages": [{"role": "user", "content": "hi"}], "chunks": text_chunks("x")},
     intent={"requests": [], "outcome": {"error": {"code": ERROR}}})
case("agent.summarizer", "messages-not-a-list", anchor="agent.vector-input", function=SU,
     description="messages that are not a list are the call's input too: the outcome's "
     "argument.invalid.", input={"messages": {"role": "user"}, "chunks": text_chunks("x")},
     intent={"requests": [], "outcome": {"error": {"code": ERROR}}})
case("agent.summarizer", "non-string-arguments-is-the-calls", anchor="agent.summarizer",
     function=SU,
     description="A tool call the rendering refuses (arguments not a string) is refused by "
     "the call: the outcome's argument.invalid.",
     input={"messages": [{"role": "assistant", "content": [
         {"type": "tool-call", "id": "c", "name": "f", "arguments": {"a": 1}}]}],
         "chunks": text_chunks("x")},
     intent={"requests": [], "outcome": {"error": {"code": ERROR}}})
TWO_BLOCKS = [{"type": "block-start", "index": 0, "blockType": "text"},
              {"type": "text-delta", "index": 0, "text": "a"},
              {"type": "block-end", "index": 0, "block": {"type": "text", "text": "a"}},
              {"type": "block-start", "index": 1, "blockType": "text"},
              {"type": "text-delta", "index": 1, "text": "b"},
              {"type": "block-end", "index": 1, "block": {"type": "text", "text": "b"}},
              {"type": "finish", "reason": {"kind": "stop"}}]
case("agent.summarizer", "summary-blocks-concatenated", anchor="agent.summarizer",
     function=SU,
     description="The summary is the reply's text blocks concatenated with no separator.",
     input={"messages": [text_msg("user", "q")], "chunks": TWO_BLOCKS},
     intent={"requests": [summary_request("user: q")],
             "outcome": {"output": {"summary": "ab"}}})
case("agent.summarizer", "summary-cut-at-max-tokens", anchor="agent.summarizer", function=SU,
     description="A summary reply cut at the output-token ceiling is a summary like any "
     "other: its text is what came.",
     input={"messages": [text_msg("user", "q")],
            "chunks": text_chunks("cut", finish="max-tokens")},
     intent={"outcome": {"output": {"summary": "cut"}}})
case("agent.summarizer", "summary-empty-transcript", anchor="agent.summarizer", function=SU,
     description="With nothing to render the user message still holds the rendered "
     "transcript, the empty string.",
     input={"messages": [], "chunks": text_chunks("x")},
     intent={"requests": [summary_request("")], "outcome": {"output": {"summary": "x"}}})
case("agent.summarizer", "render-literal-templates", anchor="agent.render-transcript",
     function=RT,
     description="The templates are literal: an empty text renders '<role>: ' with its space, "
     "an empty tool name '<role> called (<arguments>)'; isError false is a tool result.",
     input={"messages": [
         text_msg("user", ""),
         {"role": "assistant", "content": [
             {"type": "tool-call", "id": "c", "name": "", "arguments": "{}"}]},
         {"role": "tool", "content": [{"type": "tool-result", "callId": "c", "content": "x",
                                       "isError": False}]}]},
     intent={"text": "user: \n\nassistant called ({})\n\ntool result: x"})
