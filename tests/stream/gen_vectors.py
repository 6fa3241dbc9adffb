"""Generates and verifies the ``stream.*`` conformance vectors (checker, assembler, wire,
enforce, consume, openai, attribution, usage).

Each case below states its input AND its expected answer by hand. ``verify`` runs loom_ref on
every case and fails if loom_ref's answer differs from the hand-written one; ``write`` (run
``python -m tests.stream.gen_vectors --write`` from the repository root, or set
``LOOM_REF_WRITE_VECTORS=1``) then writes the case files, and ``test_vectors.py`` checks that the
files on disk equal these cases and loom_ref's answers (the consensus-specs pattern).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from loom_ref.conformance.case import canonical_json as canonical
from loom_ref.conformance.match import match
from loom_ref.conformance.scenario import error_observation
from loom_ref.errors import LoomError
from loom_ref.stream import VECTOR_FUNCTIONS
from tests.casefiles import stamp

ROOT = Path(__file__).resolve().parents[2]
CASES_DIR = ROOT / "conformance" / "cases"
GROUPS = ("stream.checker", "stream.assembler", "stream.wire", "stream.enforce",
          "stream.consume", "stream.openai", "stream.attribution", "stream.usage")

# --- wire-chunk builders ---------------------------------------------------------------------

J = dict[str, Any]


def bs(i: Any, t: str) -> J:
    return {"type": "block-start", "index": i, "blockType": t}


def td(i: Any, text: str) -> J:
    return {"type": "text-delta", "index": i, "text": text}


def rd(i: Any, text: str) -> J:
    return {"type": "reasoning-delta", "index": i, "text": text}


def tc(i: Any, id: str, args: Any, name: str | None = None) -> J:
    out: J = {"type": "tool-call-delta", "index": i, "id": id, "argumentsDelta": args}
    if name is not None:
        out["name"] = name
    return out


def text(t: str) -> J:
    return {"type": "text", "text": t}


def reasoning(t: str) -> J:
    return {"type": "reasoning", "text": t}


def call(id: str, name: str, args: Any) -> J:
    return {"type": "tool-call", "id": id, "name": name, "arguments": args}


def result(call_id: str, content: str, is_error: bool = False) -> J:
    out: J = {"type": "tool-result", "callId": call_id, "content": content}
    if is_error:
        out["isError"] = True
    return out


def be(i: Any, block: J) -> J:
    return {"type": "block-end", "index": i, "block": block}


def usage(i: int, o: int, **extra: int) -> J:
    return {"type": "usage", "usage": {"inputTokens": i, "outputTokens": o, **extra}}


def reason(kind: str, message: str | None = None) -> J:
    out: J = {"kind": kind}
    if message is not None:
        out["failure"] = {"message": message}
    return out


def fin(kind: str, message: str | None = None) -> J:
    return {"type": "finish", "reason": reason(kind, message)}


def v(rule: str, index: int) -> J:
    return {"rule": f"stream.{rule}", "index": index}


class RawInput(dict[str, Any]):
    """A whole vector input, in place of a chunk list: for cases about the input object itself."""


def input_of(chunks: Any) -> J:
    """The case input: ``{"chunks": chunks}``, or a :class:`RawInput` as it is."""
    # a dict, not RawInput alone: run as __main__, this module's RawInput is another class
    # than the one a defs_* module imported from tests.stream.gen_vectors
    return dict(chunks) if isinstance(chunks, dict) else {"chunks": chunks}


# --- stream.checker --------------------------------------------------------------------------

HELLO = [bs(0, "text"), td(0, "Hel"), td(0, "lo"), be(0, text("Hello"))]

CHECKER: list[tuple[str, str, str, list[J], Any]] = [
    # (name, anchor, description, chunks, expected violations | ("error", code))
    ("valid-text", "stream.checker", "a text block, usage, finish stop",
     [*HELLO, usage(3, 2), fin("stop")], []),
    ("valid-finish-only", "stream.single-finish", "a lone finish is a complete stream",
     [fin("stop")], []),
    ("valid-parallel-tool-calls", "stream.delta-targets-open-block",
     "two tool calls whose deltas interleave",
     [bs(0, "tool-call"), bs(1, "tool-call"), tc(0, "c1", '{"a":', "f"), tc(1, "c2", "{}", "g"),
      tc(0, "c1", "1}"), be(1, call("c2", "g", "{}")), be(0, call("c1", "f", '{"a":1}')),
      fin("tool-calls")], []),
    ("valid-reasoning-then-text", "stream.checker", "a reasoning block, then a text block",
     [bs(0, "reasoning"), rd(0, "hm"), be(0, reasoning("hm")), *[
         bs(1, "text"), td(1, "ok"), be(1, text("ok"))], fin("stop")], []),
    ("valid-error-with-open-blocks", "stream.open-blocks-at-finish",
     "open blocks are allowed at an error finish",
     [bs(0, "text"), td(0, "par"), bs(1, "tool-call"), tc(1, "c", "{"), fin("error", "boom")], []),
    ("valid-aborted-with-open-block", "stream.open-blocks-at-finish",
     "open blocks are allowed at an aborted finish",
     [bs(0, "reasoning"), rd(0, "x"), fin("aborted", "user")], []),
    ("valid-usage-between-blocks", "stream.usage-before-finish",
     "usage may come before later blocks; it only has to precede finish",
     [usage(1, 1), *HELLO, fin("stop")], []),
    ("valid-tool-result", "stream.checker", "a tool-result block has no deltas",
     [bs(4, "tool-result"), be(4, result("c1", "42")), fin("stop")], []),
    ("valid-sparse-indexes", "stream.index-non-negative-integer",
     "indexes need not be dense or ordered",
     [bs(7, "text"), bs(2, "text"), td(2, "b"), td(7, "a"), be(7, text("a")), be(2, text("b")),
      fin("stop")], []),
    ("valid-integral-float-index", "stream.index-non-negative-integer",
     "1.0 is the integer 1 in JSON",
     [bs(1.0, "text"), td(1, "x"), be(1, text("x")), fin("stop")], []),
    ("usage-after-finish", "stream.usage-before-finish", "a usage chunk after finish",
     [*HELLO, fin("stop"), usage(1, 1)], [v("usage-before-finish", 5)]),
    ("two-usages", "stream.single-usage", "a second usage chunk",
     [usage(1, 1), *HELLO, usage(2, 2), fin("stop")], [v("single-usage", 5)]),
    ("missing-finish", "stream.single-finish", "no finish: reported at index len(chunks)",
     [*HELLO, usage(1, 1)], [v("single-finish", 5)]),
    ("empty-stream", "stream.single-finish", "an empty stream lacks its finish",
     [], [v("single-finish", 0)]),
    ("two-finishes", "stream.single-finish", "a second finish",
     [*HELLO, fin("stop"), fin("error", "late")], [v("single-finish", 5)]),
    ("delta-after-finish", "stream.nothing-after-finish", "a delta after finish",
     [*HELLO, fin("stop"), td(0, "!")], [v("nothing-after-finish", 5)]),
    ("block-start-after-finish", "stream.nothing-after-finish", "a new block after finish",
     [fin("stop"), bs(1, "text")], [v("nothing-after-finish", 1)]),
    ("negative-index", "stream.index-non-negative-integer", "a negative index",
     [bs(-1, "text"), fin("error", "x")], [v("index-non-negative-integer", 0)]),
    ("fractional-index", "stream.index-non-negative-integer",
     "a fractional index: the index rule alone is reported (a chunk with an invalid index "
     "addresses no block, so no other rule is checked against it)",
     [bs(0, "text"), td(0.5, "x"), be(0, text("")), fin("stop")],
     [v("index-non-negative-integer", 1)]),
    ("repeated-block-start", "stream.block-start-unique", "block 0 started twice",
     [bs(0, "text"), bs(0, "text"), be(0, text("")), fin("stop")], [v("block-start-unique", 1)]),
    ("restart-after-end", "stream.block-start-after-end",
     "a closed index is not started again (loom-ref's choice: dsh-llm's validator accepts it, "
     "and its assembler then drops the restarted block's text)",
     [*HELLO, bs(0, "text"), fin("error", "x")], [v("block-start-after-end", 4)]),
    ("delta-without-start", "stream.delta-targets-open-block",
     "a delta-only stream breaks the contract (the assembler tolerates it)",
     [td(0, "x"), fin("stop")], [v("delta-targets-open-block", 0)]),
    ("delta-wrong-type", "stream.delta-targets-open-block", "a reasoning delta into a text block",
     [bs(0, "text"), rd(0, "x"), be(0, text("")), fin("stop")],
     [v("delta-targets-open-block", 1)]),
    ("delta-into-tool-result", "stream.delta-targets-open-block",
     "tool-result blocks take no deltas",
     [bs(0, "tool-result"), td(0, "x"), be(0, result("c", "x")), fin("stop")],
     [v("delta-targets-open-block", 1)]),
    ("delta-after-block-end", "stream.delta-targets-open-block", "a straggler after block-end",
     [*HELLO, td(0, "!"), fin("stop")], [v("delta-targets-open-block", 4)]),
    ("block-end-without-start", "stream.block-end-closes-open-block",
     "closing a block never opened",
     [be(0, text("x")), fin("stop")], [v("block-end-closes-open-block", 0)]),
    ("block-end-wrong-type-alone", "stream.block-end-closes-open-block",
     "a reasoning block-end on an open text block, then an error finish: that one violation",
     [bs(0, "text"), be(0, reasoning("x")), fin("error", "cut")],
     [v("block-end-closes-open-block", 1)]),
    ("block-end-wrong-type", "stream.block-end-closes-open-block",
     "a reasoning block closes a text block; the block stays open",
     [bs(0, "text"), be(0, reasoning("x")), fin("stop")],
     [v("block-end-closes-open-block", 1), v("open-blocks-at-finish", 2)]),
    ("double-block-end", "stream.block-end-closes-open-block", "a second block-end",
     [*HELLO, be(0, text("Hello")), fin("stop")], [v("block-end-closes-open-block", 4)]),
    ("open-block-at-stop", "stream.open-blocks-at-finish", "an open text block at finish stop",
     [bs(0, "text"), td(0, "x"), fin("stop")], [v("open-blocks-at-finish", 2)]),
    ("open-tool-result-at-stop", "stream.open-blocks-at-finish",
     "every started block must be closed, a tool-result block too: one still open at finish "
     "stop breaks the rule at the finish",
     [bs(0, "tool-result"), fin("stop")], [v("open-blocks-at-finish", 1)]),
    ("two-open-blocks-at-stop", "stream.open-blocks-at-finish",
     "two blocks (a reasoning and a text block) still open at finish stop: reported, once, at "
     "the finish chunk",
     [bs(0, "reasoning"), bs(1, "text"), td(1, "x"), fin("stop")],
     [v("open-blocks-at-finish", 3)]),
    ("open-tool-call-at-max-tokens", "stream.open-blocks-at-finish",
     "an adapter closes every block before max-tokens",
     [bs(0, "tool-call"), tc(0, "c", "{"), fin("max-tokens")], [v("open-blocks-at-finish", 2)]),
    ("parsed-arguments-delta", "stream.tool-arguments-raw-json",
     "argumentsDelta as a parsed object (seed 001 decides; dsh-llm's validator lets it through)",
     [bs(0, "tool-call"), tc(0, "c", {"a": 1}, "f"), be(0, call("c", "f", '{"a":1}')),
      fin("tool-calls")], [v("tool-arguments-raw-json", 1)]),
    ("parsed-block-end-arguments", "stream.tool-arguments-raw-json",
     "a block-end whose arguments were not re-stringified (seed 001 decides; dsh-llm's "
     "validator lets it through)",
     [bs(0, "tool-call"), tc(0, "c", '{"a":1}', "f"), be(0, call("c", "f", {"a": 1})),
      fin("tool-calls")], [v("tool-arguments-raw-json", 2)]),
    ("changed-call-id", "stream.tool-call-identity-stable", "a later delta changes the id",
     [bs(0, "tool-call"), tc(0, "c1", "{", "f"), tc(0, "c2", "}"), be(0, call("c1", "f", "{}")),
      fin("tool-calls")], [v("tool-call-identity-stable", 2)]),
    ("changed-call-name-at-end", "stream.tool-call-identity-stable",
     "the block-end names another tool",
     [bs(0, "tool-call"), tc(0, "c1", "{}", "f"), be(0, call("c1", "g", "{}")),
      fin("tool-calls")], [v("tool-call-identity-stable", 2)]),
    ("every-violation", "stream.checker.every-violation",
     "every violation is reported, in chunk order",
     [td(3, "x"), bs(-2, "text"), usage(1, 1), usage(1, 1), fin("stop"), td(3, "y")],
     [v("delta-targets-open-block", 0), v("index-non-negative-integer", 1), v("single-usage", 3),
      v("nothing-after-finish", 5)]),
    ("raw-json-after-finish", "stream.checker.every-violation",
     "after the finish the per-chunk rules still apply: a tool-call delta with parsed "
     "arguments breaks tool-arguments-raw-json and nothing-after-finish",
     [fin("stop"), tc(0, "c", 5)],
     [v("tool-arguments-raw-json", 1), v("nothing-after-finish", 1)]),
    ("bad-index-after-finish", "stream.checker.every-violation",
     "a chunk with a negative index after the finish breaks the index rule and "
     "nothing-after-finish",
     [fin("stop"), td(-1, "x")],
     [v("index-non-negative-integer", 1), v("nothing-after-finish", 1)]),
    ("bad-index-arguments-judged", "stream.checker.every-violation",
     "a chunk with an invalid index addresses no block, but its arguments are judged",
     [tc(-1, "c", 5), fin("stop")],
     [v("index-non-negative-integer", 0), v("tool-arguments-raw-json", 0)]),
    ("second-finish-not-judged-for-open-blocks", "stream.checker.every-violation",
     "open blocks are judged once, at the first finish; a second finish is single-finish alone",
     [bs(0, "text"), fin("stop"), fin("stop")],
     [v("open-blocks-at-finish", 1), v("single-finish", 2)]),
    ("empty-name-is-given", "stream.tool-call-identity-stable",
     "a name is given when present, empty included: an empty name, then f, is a change",
     [bs(0, "tool-call"), tc(0, "c", "{", ""), tc(0, "c", "}", "f"), be(0, call("c", "", "{}")),
      fin("tool-calls")], [v("tool-call-identity-stable", 2)]),
    ("wire-unknown-type", "stream.wire.malformed", "an unknown chunk type is a wire error",
     [{"type": "image-delta", "index": 0}, fin("stop")], ("error", "stream.wire.unknown-variant")),
    ("wire-missing-index", "stream.wire.malformed", "a delta without index",
     [{"type": "text-delta", "text": "x"}], ("error", "stream.wire.missing-field")),
    ("wire-string-index", "stream.wire.malformed", "an index that is not a JSON number",
     [{"type": "text-delta", "index": "0", "text": "x"}], ("error", "stream.wire.field-type")),
    ("wire-negative-usage", "stream.wire.malformed", "a negative token count",
     [usage(-1, 0), fin("stop")], ("error", "stream.wire.bad-value")),
]

# --- stream.assembler ------------------------------------------------------------------------


def msg(*blocks: J) -> J:
    return {"role": "assistant", "content": list(blocks)}


def out(message: J, finish: J, usage_json: J | None = None, interrupted: list[J] | None = None
        ) -> J:
    return {"message": message, "finish": finish, "usage": usage_json,
            "interrupted": interrupted or []}


def strict(chunks: list[J]) -> RawInput:
    return RawInput(chunks=chunks, strict=True)


USAGE_5_2 = {"inputTokens": 5, "outputTokens": 2}
TRUNCATED = '{"path": "notes/x'  # a call's arguments cut at the output-token ceiling

ASSEMBLER: list[tuple[str, str, str, list[J] | RawInput, Any]] = [
    ("text", "stream.assembler", "one text block with usage",
     [*HELLO, usage(5, 2), fin("stop")],
     out(msg(text("Hello")), reason("stop"), USAGE_5_2, [text("Hello")])),
    ("usage-absent-is-null", "stream.usage.absent-not-zero", "no usage chunk: usage is null",
     [*HELLO, fin("stop")], out(msg(text("Hello")), reason("stop"), None, [text("Hello")])),
    ("usage-all-counts", "stream.usage.disjoint", "all five counts survive the fold",
     [usage(10, 12, cacheReadTokens=90, cacheWriteTokens=0, reasoningTokens=7), fin("stop")],
     out(msg(), reason("stop"), {"inputTokens": 10, "outputTokens": 12, "cacheReadTokens": 90,
                                 "cacheWriteTokens": 0, "reasoningTokens": 7})),
    ("finish-only", "stream.assembler", "a lone finish folds to an empty message",
     [fin("stop")], out(msg(), reason("stop"))),
    ("delta-only", "stream.assembler.delta-only", "no block-start or block-end at all",
     [rd(0, "th"), rd(0, "ink"), td(1, "an"), tc(2, "c", '{"q":', "f"), td(1, "swer"),
      tc(2, "c", "1}"), fin("tool-calls")],
     out(msg(reasoning("think"), text("answer"), call("c", "f", '{"q":1}')),
         reason("tool-calls"), None, [reasoning("think"), text("answer")])),
    ("block-end-carries-the-block", "stream.assembler.first-block-end-wins",
     "the block-end's block, not the deltas, is the block",
     [bs(0, "text"), td(0, "draft"), be(0, text("final")), fin("stop")],
     out(msg(text("final")), reason("stop"), None, [text("final")])),
    ("first-block-end-wins", "stream.assembler.first-block-end-wins",
     "a second block-end and later deltas are ignored",
     [*HELLO, td(0, " again"), be(0, text("other")), rd(0, "x"), fin("stop")],
     out(msg(text("Hello")), reason("stop"), None, [text("Hello")])),
    ("first-seen-order", "stream.assembler.first-seen-order",
     "blocks come out in first-seen order, not index order",
     [bs(5, "text"), bs(1, "reasoning"), rd(1, "r"), td(5, "t"), be(1, reasoning("r")),
      be(5, text("t")), fin("stop")],
     out(msg(text("t"), reasoning("r")), reason("stop"), None, [text("t"), reasoning("r")])),
    ("max-tokens-drops-every-tool-call", "stream.assembler.max-tokens-drops-tool-calls",
     "max-tokens drops every tool call, the ended one too, and keeps the text",
     [td(0, "Let me"), bs(1, "tool-call"), tc(1, "c1", '{"a":1}', "f"),
      be(1, call("c1", "f", '{"a":1}')), tc(2, "c2", '{"b":', "g"), fin("max-tokens")],
     out(msg(text("Let me")), reason("max-tokens"), None, [text("Let me")])),
    ("max-tokens-closed-truncated-call", "stream.assembler.max-tokens-drops-tool-calls",
     "a provider cut at the token ceiling still closes its call (OpenAI's length): a block-end "
     "proves nothing, the truncated call is dropped",
     [bs(0, "tool-call"), tc(0, "c1", TRUNCATED, "write"), be(0, call("c1", "write", TRUNCATED)),
      usage(9, 4), fin("max-tokens")],
     out(msg(), reason("max-tokens"), {"inputTokens": 9, "outputTokens": 4})),
    ("last-finish-decides-the-drop", "stream.assembler.max-tokens-drops-tool-calls",
     "the drop is decided by the finish the blocks are read under: the last one fed",
     [tc(0, "c", "{}", "f"), fin("tool-calls"), fin("max-tokens")],
     out(msg(), reason("max-tokens"))),
    ("error-keeps-interrupted-text", "stream.assembler.interrupted",
     "an error finish keeps every block in the message; the interrupted prefix is the text and "
     "reasoning",
     [bs(0, "reasoning"), rd(0, "hm"), bs(1, "text"), td(1, "par"), bs(2, "tool-call"),
      tc(2, "c", "{", "f"), usage(4, 1), fin("error", "connection reset")],
     out(msg(reasoning("hm"), text("par"), call("c", "f", "{")),
         reason("error", "connection reset"), {"inputTokens": 4, "outputTokens": 1},
         [reasoning("hm"), text("par")])),
    ("aborted", "stream.assembler.interrupted", "an aborted stream keeps what arrived",
     [bs(0, "text"), td(0, "stop he"), fin("aborted", "user cancelled")],
     out(msg(text("stop he")), reason("aborted", "user cancelled"), None, [text("stop he")])),
    ("interrupted-skips-blank", "stream.assembler.interrupted",
     "blank is ECMAScript's trim set: tab, LF, U+3000 and U+FEFF are blank; U+0085 and U+001C "
     "are not",
     [td(0, " \t\n"), rd(1, "\u3000\ufeff"), td(2, "\u0085"), rd(3, "\u001c"), be(4, text("")),
      td(5, "\u00a0x"), fin("aborted", "user")],
     out(msg(text(" \t\n"), reasoning("\u3000\ufeff"), text("\u0085"), reasoning("\u001c"),
             text(""), text("\u00a0x")), reason("aborted", "user"), None,
         [text("\u0085"), reasoning("\u001c"), text("\u00a0x")])),
    ("interrupted-never-a-tool-call", "stream.assembler.interrupted",
     "the interrupted prefix holds no tool call (ended or not) and no tool result",
     [td(0, "Let me check"), be(1, call("c0", "f", "{}")), bs(2, "tool-call"),
      tc(2, "c", "{", "f"), be(3, result("c0", "ok")), be(4, reasoning("plan")),
      fin("aborted", "user")],
     out(msg(text("Let me check"), call("c0", "f", "{}"), call("c", "f", "{"),
             result("c0", "ok"), reasoning("plan")), reason("aborted", "user"), None,
         [text("Let me check"), reasoning("plan")])),
    ("arguments-unparsed", "stream.assembler.arguments-unparsed",
     "arguments are concatenated, never parsed or normalized",
     [bs(0, "tool-call"), tc(0, "c", "{ \"a\" :", "f"), tc(0, "c", " [1 , 2]}"),
      be(0, call("c", "f", "{ \"a\" : [1 , 2]}")), fin("tool-calls")],
     out(msg(call("c", "f", "{ \"a\" : [1 , 2]}")), reason("tool-calls"))),
    ("parallel-tool-calls", "stream.assembler", "interleaved tool-call deltas stay apart",
     [tc(0, "a", "{\"x\"", "f"), tc(1, "b", "{\"y\"", "g"), tc(0, "a", ":1}"), tc(1, "b", ":2}"),
      fin("tool-calls")],
     out(msg(call("a", "f", '{"x":1}'), call("b", "g", '{"y":2}')), reason("tool-calls"))),
    ("tool-result", "stream.assembler", "a tool-result block folds from its block-end",
     [bs(0, "tool-result"), be(0, result("c1", "boom", True)), fin("stop")],
     out(msg(result("c1", "boom", True)), reason("stop"))),
    ("unnamed-call", "stream.assembler.unnamed-call",
     "an open tool call that received no delta is named call-<index>",
     [bs(3, "tool-call"), fin("error", "cut")],
     out(msg(call("call-3", "", "")), reason("error", "cut"))),
    ("open-empty-text-kept", "stream.assembler.unnamed-call",
     "an open text block that received no delta is still a block: its text is empty (and, "
     "blank, it is no interrupted prefix)",
     [bs(0, "text"), fin("error", "cut")], out(msg(text("")), reason("error", "cut"))),
    # what the fold takes (spec: stream.assembler.folds-everything and the rules after it)
    ("missing-finish-is-stop", "stream.assembler.missing-finish-is-stop",
     "a stream without finish folds with finish stop",
     [*HELLO], out(msg(text("Hello")), reason("stop"), None, [text("Hello")])),
    ("chunk-after-finish", "stream.assembler.folds-everything",
     "a chunk after finish folds like any other",
     [fin("stop"), td(0, "x")], out(msg(text("x")), reason("stop"), None, [text("x")])),
    ("usage-after-finish", "stream.assembler.folds-everything", "usage after finish is kept",
     [fin("stop"), usage(1, 1)], out(msg(), reason("stop"), {"inputTokens": 1, "outputTokens": 1})),
    ("last-usage-wins", "stream.assembler.folds-everything", "of two usage chunks, the last",
     [usage(1, 1), usage(2, 2), fin("stop")],
     out(msg(), reason("stop"), {"inputTokens": 2, "outputTokens": 2})),
    ("last-finish-wins", "stream.assembler.folds-everything", "of two finish chunks, the last",
     [tc(0, "c", "{}", "f"), fin("max-tokens"), fin("tool-calls")],
     out(msg(call("c", "f", "{}")), reason("tool-calls"))),
    ("text-into-reasoning", "stream.assembler.deltas-by-block-type",
     "text and reasoning deltas on one index: both append to the block the index opened as",
     [td(0, "a"), rd(0, "b"), rd(1, "c"), td(1, "d"), fin("stop")],
     out(msg(text("ab"), reasoning("cd")), reason("stop"), None, [text("ab"), reasoning("cd")])),
    ("last-id-wins", "stream.assembler.deltas-by-block-type",
     "a tool call that changes its id: the last delta's id",
     [tc(0, "a", "{"), tc(0, "b", "}"), fin("tool-calls")],
     out(msg(call("b", "", "{}")), reason("tool-calls"))),
    ("last-non-empty-name-wins", "stream.assembler.deltas-by-block-type",
     "a tool call that changes its name: the last non-empty name (an empty one changes nothing)",
     [tc(0, "a", "{", "f"), tc(0, "a", "", "g"), tc(0, "a", "}", ""), fin("tool-calls")],
     out(msg(call("a", "g", "{}")), reason("tool-calls"))),
    ("mismatched-deltas-change-nothing", "stream.assembler.deltas-by-block-type",
     "a text delta into a tool call, a tool-call delta into a text block, a delta into a "
     "tool result: nothing changes",
     [bs(0, "tool-call"), td(0, "lost"), tc(0, "c", "{}", "f"), td(1, "t"), tc(1, "x", "lost"),
      bs(2, "tool-result"), td(2, "lost"), be(2, result("c", "ok")), fin("tool-calls")],
     out(msg(call("c", "f", "{}"), text("t"), result("c", "ok")), reason("tool-calls"), None,
         [text("t")])),
    ("block-start-of-another-type-while-open", "stream.assembler.delta-only",
     "a block-start for a seen index changes nothing, whatever its type",
     [bs(0, "text"), td(0, "a"), bs(0, "reasoning"), td(0, "b"), fin("stop")],
     out(msg(text("ab")), reason("stop"), None, [text("ab")])),
    ("block-end-of-another-type", "stream.assembler.first-block-end-wins",
     "a block-end carrying another type than the open block's: its block is the block",
     [bs(0, "text"), td(0, "draft"), be(0, reasoning("r")), fin("stop")],
     out(msg(reasoning("r")), reason("stop"), None, [reasoning("r")])),
    ("open-tool-result-dropped", "stream.assembler.open-tool-result",
     "an open tool-result block has no content and is dropped",
     [bs(0, "tool-result"), td(0, "a"), fin("stop")], out(msg(), reason("stop"))),
    # stragglers: ignored, never judged (spec: stream.assembler.first-block-end-wins)
    ("straggler-of-another-type", "stream.assembler.first-block-end-wins",
     "after its block-end, chunks of any other type for the index are ignored",
     [be(0, text("t")), rd(0, "x"), bs(0, "tool-call"), be(0, reasoning("r")), fin("stop")],
     out(msg(text("t")), reason("stop"), None, [text("t")])),
    ("straggler-arguments-not-judged", "stream.assembler.type-errors",
     "non-string arguments in stragglers (a delta, a second block-end) are not judged",
     [be(0, call("c", "f", "{}")), tc(0, "c", 5), be(0, call("c", "f", [1])),
      fin("tool-calls")],
     out(msg(call("c", "f", "{}")), reason("tool-calls"))),
    ("straggler-identity-ignored", "stream.assembler.first-block-end-wins",
     "a straggler delta with another id and name is ignored",
     [tc(0, "a", "{}", "f"), be(0, call("a", "f", "{}")), tc(0, "b", "x", "g"),
      fin("tool-calls")],
     out(msg(call("a", "f", "{}")), reason("tool-calls"))),
    # what no fold can take (spec: stream.assembler.type-errors)
    ("negative-index", "stream.assembler.type-errors", "a negative index",
     [td(-1, "a"), fin("stop")], ("error", "stream.index-non-negative-integer")),
    ("fractional-index", "stream.assembler.type-errors", "a fractional index",
     [td(0.5, "a"), fin("stop")], ("error", "stream.index-non-negative-integer")),
    ("parsed-arguments-delta", "stream.assembler.type-errors", "argumentsDelta as an object",
     [tc(0, "c", {"a": 1}), fin("tool-calls")], ("error", "stream.tool-arguments-raw-json")),
    ("parsed-block-end-arguments", "stream.assembler.type-errors",
     "a block-end tool call whose arguments are an array",
     [be(0, call("c", "f", [1])), fin("tool-calls")], ("error", "stream.tool-arguments-raw-json")),
    ("index-judged-first", "stream.assembler.type-errors",
     "a tool-call delta with a negative index and parsed arguments: the index",
     [tc(-1, "c", {"a": 1}), fin("tool-calls")], ("error", "stream.index-non-negative-integer")),
    ("after-finish-judged", "stream.assembler.type-errors",
     "a chunk after the finish folds, so it is judged: its negative index",
     [fin("stop"), td(-1, "x")], ("error", "stream.index-non-negative-integer")),
    ("tool-call-delta-judged-whatever-the-type", "stream.assembler.type-errors",
     "a tool-call delta with parsed arguments into an open text block is judged",
     [td(0, "a"), tc(0, "c", {"a": 1}), fin("stop")], ("error", "stream.tool-arguments-raw-json")),
    ("block-end-of-another-type-judged", "stream.assembler.type-errors",
     "a block-end of a tool call with parsed arguments on an open text block is judged",
     [td(0, "a"), be(0, call("c", "f", [1])), fin("stop")],
     ("error", "stream.tool-arguments-raw-json")),
    ("first-error-wins", "stream.assembler.type-errors",
     "two chunks no fold can take: the first one raises",
     [tc(0, "c", 5), td(-1, "a"), fin("stop")], ("error", "stream.tool-arguments-raw-json")),
    ("wire-unknown-field", "stream.wire.malformed", "an unknown field in a chunk",
     [{"type": "finish", "reason": {"kind": "stop"}, "extra": 1}],
     ("error", "stream.wire.unknown-field")),
    ("wire-beats-fold", "stream.wire.check-order",
     "a malformed chunk after one the assembler would refuse: every chunk decodes first",
     [td(-1, "a"), {"type": "image-delta"}], ("error", "stream.wire.unknown-variant")),
    # strict: the contract checker in front of the same fold (spec: stream.assembler.strict)
    ("strict-valid", "stream.assembler.strict",
     "a stream the checker accepts folds as in the tolerant mode",
     strict([*HELLO, usage(5, 2), fin("stop")]),
     out(msg(text("Hello")), reason("stop"), USAGE_5_2, [text("Hello")])),
    ("strict-false-is-tolerant", "stream.assembler.strict", "strict false is the tolerant fold",
     RawInput(chunks=[td(0, "x"), fin("stop")], strict=False),
     out(msg(text("x")), reason("stop"), None, [text("x")])),
    ("strict-chunk-after-finish", "stream.assembler.strict", "a chunk after finish",
     strict([fin("stop"), td(0, "x")]), ("error", "stream.nothing-after-finish")),
    ("strict-usage-after-finish", "stream.assembler.strict", "usage after finish",
     strict([fin("stop"), usage(1, 1)]), ("error", "stream.usage-before-finish")),
    ("strict-second-usage", "stream.assembler.strict", "two usage chunks",
     strict([usage(1, 1), usage(2, 2), fin("stop")]), ("error", "stream.single-usage")),
    ("strict-delta-only", "stream.assembler.strict", "a delta for a block never started",
     strict([td(0, "a"), fin("stop")]), ("error", "stream.delta-targets-open-block")),
    ("strict-missing-finish", "stream.assembler.strict",
     "a stream without finish: single-finish, at its end",
     strict([*HELLO]), ("error", "stream.single-finish")),
    ("strict-identity-change", "stream.assembler.strict", "a tool call changes its id",
     strict([bs(0, "tool-call"), tc(0, "a", "{"), tc(0, "b", "}"), be(0, call("a", "", "{}")),
             fin("tool-calls")]), ("error", "stream.tool-call-identity-stable")),
    ("strict-open-call-at-max-tokens", "stream.assembler.strict",
     "an open tool call at a max-tokens finish",
     strict([bs(0, "tool-call"), tc(0, "c", "{"), fin("max-tokens")]),
     ("error", "stream.open-blocks-at-finish")),
    ("strict-first-violation", "stream.assembler.strict",
     "a stream breaking several rules: the first violation, as enforce raises it",
     strict([td(3, "x"), bs(-2, "text"), usage(1, 1), usage(1, 1), fin("stop")]),
     ("error", "stream.delta-targets-open-block")),
    ("strict-not-a-boolean", "stream.vectors",
     "strict is a boolean", RawInput(chunks=[fin("stop")], strict="yes"),
     ("error", "stream.wire.field-type")),
    ("strict-read-after-chunks", "stream.vectors",
     "chunks is read before strict, and strict before the unknown members",
     RawInput(chunks="x", strict="yes", extra=1), ("error", "stream.wire.not-a-list")),
    ("strict-before-unknown", "stream.vectors",
     "a malformed strict and an unknown member: strict first",
     RawInput(chunks=[], strict=1, extra=1), ("error", "stream.wire.field-type")),
    # the wire decoder's order, seen through stream.assemble (spec: stream.wire.check-order)
    ("wire-order-missing-before-unknown", "stream.wire.check-order",
     "a misspelled field: the missing field is reported, not the unknown one",
     [{"type": "text-delta", "index": 0, "txt": "a"}, fin("stop")],
     ("error", "stream.wire.missing-field")),
    ("wire-order-tool-result-fields", "stream.wire.check-order",
     "a tool-result with no callId and a string isError: callId comes first",
     [be(0, {"type": "tool-result", "isError": "yes"}), fin("stop")],
     ("error", "stream.wire.missing-field")),
    ("wire-order-input-list-before-unknown", "stream.wire.check-order",
     "an input whose chunks is not an array and that has an unknown member",
     RawInput(chunks="x", extra=1), ("error", "stream.wire.not-a-list")),
    ("wire-order-input-unknown-before-chunks", "stream.wire.check-order",
     "an input with an unknown member and a malformed chunk: the input is read first",
     RawInput(chunks=[{"type": "image-delta"}], extra=1), ("error", "stream.wire.unknown-field")),
]

FUNCTIONS = {"stream.checker": "stream.check", "stream.assembler": "stream.assemble"}

# --- stream.wire (stream.decode) -------------------------------------------------------------
# (name, anchor, description, chunks, expected chunks | ("error", code))

ALL_SEVEN = [bs(0, "text"), td(0, "Hi"), rd(1, "hm"), tc(2, "c1", '{"a"', "f"),
             be(0, text("Hi")), usage(3, 2), fin("stop")]
WIRE: list[tuple[str, str, str, Any, Any]] = [
    ("all-seven-variants", "stream.chunks.closed",
     "each of the seven chunk variants decodes and encodes back unchanged", ALL_SEVEN, ALL_SEVEN),
    ("unknown-variant", "stream.chunks.closed", "the union is closed: an eighth type is refused",
     [{"type": "image-delta", "index": 0, "data": "x"}], ("error", "stream.wire.unknown-variant")),
    ("block-chunk-needs-index", "stream.chunks.index",
     "a block chunk carries the index that ties it to its block",
     [{"type": "block-end", "block": text("x")}], ("error", "stream.wire.missing-field")),
    ("usage-has-no-index", "stream.chunks.index", "only block chunks carry an index",
     [{"type": "usage", "index": 0, "usage": {"inputTokens": 1, "outputTokens": 2}}],
     ("error", "stream.wire.unknown-field")),
    ("all-four-blocks", "stream.blocks.closed",
     "text, reasoning, tool-call and tool-result blocks decode and encode back unchanged",
     [be(0, text("t")), be(1, reasoning("r")), be(2, call("c", "f", "{}")),
      be(3, result("c", "42")), be(4, result("c", "no", True))],
     [be(0, text("t")), be(1, reasoning("r")), be(2, call("c", "f", "{}")),
      be(3, result("c", "42")), be(4, result("c", "no", True))]),
    ("unknown-block", "stream.blocks.closed", "a fifth block type is refused",
     [be(0, {"type": "image", "url": "x"})], ("error", "stream.wire.unknown-variant")),
    ("unknown-block-type", "stream.blocks.closed", "a block-start of a fifth block type",
     [bs(0, "image")], ("error", "stream.wire.unknown-variant")),
    ("five-kinds", "stream.finish.kinds",
     "the five finish kinds decode (the checker, not the decoder, judges a stream's shape)",
     [fin("stop"), fin("tool-calls"), fin("max-tokens"), fin("aborted", "a"), fin("error", "e")],
     [fin("stop"), fin("tool-calls"), fin("max-tokens"), fin("aborted", "a"), fin("error", "e")]),
    ("unknown-kind", "stream.finish.kinds", "a sixth kind is refused",
     [{"type": "finish", "reason": {"kind": "cancelled"}}],
     ("error", "stream.wire.unknown-variant")),
    ("error-needs-failure", "stream.finish.failure", "an error finish without its failure",
     [{"type": "finish", "reason": {"kind": "error"}}], ("error", "stream.wire.missing-field")),
    ("aborted-needs-failure", "stream.finish.failure", "an aborted finish without its failure",
     [{"type": "finish", "reason": {"kind": "aborted"}}], ("error", "stream.wire.missing-field")),
    ("stop-carries-no-failure", "stream.finish.failure", "a stop finish with a failure",
     [{"type": "finish", "reason": {"kind": "stop", "failure": {"message": "x"}}}],
     ("error", "stream.wire.bad-value")),
    ("failure-code-kept", "stream.finish.failure", "a failure's optional code survives",
     [{"type": "finish", "reason": {"kind": "error", "failure": {"message": "m", "code": "x.y"}}}],
     [{"type": "finish", "reason": {"kind": "error", "failure": {"message": "m", "code": "x.y"}}}]),
    ("snake-case-kind", "stream.wire.camel-case",
     "kinds are spelled as the seed's TypeScript: tool-calls, not tool_calls",
     [{"type": "finish", "reason": {"kind": "tool_calls"}}],
     ("error", "stream.wire.unknown-variant")),
    ("snake-case-field", "stream.wire.camel-case", "cache_read_tokens is not a usage field",
     [{"type": "usage", "usage": {"inputTokens": 1, "outputTokens": 2, "cache_read_tokens": 3}}],
     ("error", "stream.wire.unknown-field")),
    ("optional-fields-omitted", "stream.wire.camel-case",
     "absent optional fields stay absent (no name, no isError, no cache counts), never null",
     [tc(0, "c", "{}"), be(1, result("c", "ok")), usage(1, 2)],
     [tc(0, "c", "{}"), be(1, result("c", "ok")), usage(1, 2)]),
    ("null-is-not-absent", "stream.wire.camel-case", "an optional field written as null",
     [{"type": "tool-call-delta", "index": 0, "id": "c", "name": None, "argumentsDelta": ""}],
     ("error", "stream.wire.field-type")),
    ("checker-owned-values", "stream.wire.checker-owned-values",
     "negative and fractional indexes and non-string arguments decode, for the checker to name",
     [tc(-1, "c", {"a": [1]}), be(2.5, call("c", "f", [1])), bs(1.0, "text")],
     [tc(-1, "c", {"a": [1]}), be(2.5, call("c", "f", [1])), bs(1, "text")]),
    ("null-arguments", "stream.wire.checker-owned-values",
     "argumentsDelta may be any JSON value, null included: it decodes, for the checker to name",
     [tc(0, "c", None)], [tc(0, "c", None)]),
    ("failure-null", "stream.wire.check-order",
     "a failure written as null is a value where an object is expected: not-an-object",
     [{"type": "finish", "reason": {"kind": "error", "failure": None}}],
     ("error", "stream.wire.not-an-object")),
    ("tool-call-block-needs-name", "stream.wire.malformed",
     "every member of a tool-call block is required, name included",
     [be(0, {"type": "tool-call", "id": "c", "arguments": "{}"})],
     ("error", "stream.wire.missing-field")),
    ("tool-result-content-is-a-string", "stream.wire.malformed",
     "a tool-result block's content is a string",
     [be(0, {"type": "tool-result", "callId": "c", "content": [text("x")]})],
     ("error", "stream.wire.field-type")),
    ("tool-result-is-error-a-string", "stream.wire.malformed",
     "a tool-result's isError is a boolean: the string \"true\" is the wrong JSON type",
     [be(0, {"type": "tool-result", "callId": "c", "content": "x", "isError": "true"})],
     ("error", "stream.wire.field-type")),
    ("chunk-without-type", "stream.wire.malformed",
     "a chunk's type is a required member: a chunk without it is missing-field",
     [{"index": 0, "text": "x"}], ("error", "stream.wire.missing-field")),
    ("index-true", "stream.wire.malformed",
     "a boolean index is the wrong JSON type: true is not a number",
     [bs(True, "text")], ("error", "stream.wire.field-type")),
    ("not-a-list", "errors.stable-codes",
     "a malformed input fails with a stable dotted code, matched without reading the message",
     "not a list", ("error", "stream.wire.not-a-list")),
    # several broken rules in one input: the first failing check wins (stream.wire.check-order)
    ("order-unknown-type-first", "stream.wire.check-order",
     "an unknown type and a string index: the type is read first, and ends the reading",
     [{"type": "image-delta", "index": "0"}], ("error", "stream.wire.unknown-variant")),
    ("order-type-field-type", "stream.wire.check-order",
     "a type that is not a string, and an unknown field",
     [{"type": 5, "extra": 1}], ("error", "stream.wire.field-type")),
    ("order-missing-before-unknown", "stream.wire.check-order",
     "a misspelled field: missing-field (text), not unknown-field (txt)",
     [{"type": "text-delta", "index": 0, "txt": "a"}], ("error", "stream.wire.missing-field")),
    ("order-field-type-before-unknown", "stream.wire.check-order",
     "a string index and an unknown field",
     [{"type": "text-delta", "index": "0", "text": "a", "extra": 1}],
     ("error", "stream.wire.field-type")),
    ("order-members-in-table-order", "stream.wire.check-order",
     "a string index and an unknown block type: index comes before blockType",
     [{"type": "block-start", "index": "0", "blockType": "image"}],
     ("error", "stream.wire.field-type")),
    ("order-first-count-first", "stream.wire.check-order",
     "a negative inputTokens and a missing outputTokens: inputTokens comes first",
     [{"type": "usage", "usage": {"inputTokens": -1}}], ("error", "stream.wire.bad-value")),
    ("order-missing-count-first", "stream.wire.check-order",
     "a missing inputTokens and a negative outputTokens: inputTokens comes first",
     [{"type": "usage", "usage": {"outputTokens": -1}}], ("error", "stream.wire.missing-field")),
    ("order-tool-result-fields", "stream.wire.check-order",
     "a tool-result without callId and with a string isError: callId, content, isError",
     [be(0, {"type": "tool-result", "content": "x", "isError": "yes"})],
     ("error", "stream.wire.missing-field")),
    ("order-nested-before-outer-unknown", "stream.wire.check-order",
     "a block-end whose block lacks its text and that has an unknown field: the block first",
     [{"type": "block-end", "index": 0, "block": {"type": "text"}, "extra": 1}],
     ("error", "stream.wire.missing-field")),
    ("order-reason-before-outer-unknown", "stream.wire.check-order",
     "a stop finish with a failure, in a chunk with an unknown field: the reason first",
     [{"type": "finish", "reason": {"kind": "stop", "failure": {"message": "x"}}, "extra": 1}],
     ("error", "stream.wire.bad-value")),
    ("order-failure-read-before-kind-rule", "stream.wire.check-order",
     "a malformed failure on a stop reason: the failure's own error comes first",
     [{"type": "finish", "reason": {"kind": "stop", "failure": {"msg": "x"}}}],
     ("error", "stream.wire.missing-field")),
    ("order-unknown-before-kind-rule", "stream.wire.check-order",
     "a failure on a stop reason that has an unknown field: unknown-field comes first",
     [{"type": "finish", "reason": {"kind": "stop", "failure": {"message": "x"}, "extra": 1}}],
     ("error", "stream.wire.unknown-field")),
    ("order-first-bad-chunk", "stream.wire.check-order",
     "two malformed chunks: the first in list order is the error",
     [{"type": "text-delta"}, {"type": "image-delta"}], ("error", "stream.wire.missing-field")),
    ("order-input-missing-before-unknown", "stream.wire.check-order",
     "an input without chunks and with an unknown member: missing-field",
     RawInput(chunk=[]), ("error", "stream.wire.missing-field")),
    ("order-input-list-before-unknown", "stream.wire.check-order",
     "an input whose chunks is not an array and that has an unknown member: not-a-list",
     RawInput(chunks={}, extra=1), ("error", "stream.wire.not-a-list")),
    ("order-input-unknown-before-chunks", "stream.wire.check-order",
     "an unknown input member and a malformed chunk: the input object is read first",
     RawInput(chunks=[{"type": "image-delta"}], extra=1), ("error", "stream.wire.unknown-field")),
]

# --- stream.enforce --------------------------------------------------------------------------


def raised(rule: str, index: int) -> J:
    return {"code": f"stream.{rule}", "index": index}


ENFORCE: list[tuple[str, str, str, list[J], Any]] = [
    ("valid", "stream.errors.rule-codes", "a valid stream passes whole, nothing raised",
     [*HELLO, usage(1, 1), fin("stop")], {"yielded": 6, "raised": None}),
    ("violation-mid-stream", "stream.errors.rule-codes",
     "the valid prefix passes, then the rule id is the code and the chunk index the detail",
     [bs(0, "text"), td(0, "a"), td(1, "b"), be(0, text("ab")), fin("stop")],
     {"yielded": 2, "raised": raised("delta-targets-open-block", 2)}),
    ("first-violation-only", "stream.errors.rule-codes",
     "several violations: the first one is raised",
     [td(3, "x"), bs(-2, "text"), usage(1, 1), usage(1, 1), fin("stop")],
     {"yielded": 0, "raised": raised("delta-targets-open-block", 0)}),
    ("missing-finish", "stream.errors.rule-codes", "a missing finish is raised at the end",
     HELLO, {"yielded": 4, "raised": raised("single-finish", 4)}),
    ("usage-after-finish", "stream.errors.rule-codes", "a usage chunk after finish",
     [fin("stop"), usage(1, 1)], {"yielded": 1, "raised": raised("usage-before-finish", 1)}),
]

# --- stream.consume --------------------------------------------------------------------------
MSG = {"$type": "string"}  # a message the wrapper or the adapter writes: informative only


def failed(kind: str, code: str) -> J:
    return {"type": "finish", "reason": {"kind": kind, "failure": {"message": MSG, "code": code}}}


def script(chunks: list[J], raise_after: int | None = None) -> J:
    return {"chunks": chunks} if raise_after is None else {"chunks": chunks,
                                                          "raiseAfter": raise_after}


FULL = [*HELLO, usage(3, 2), fin("stop")]
CONSUME: list[tuple[str, str, str, J, Any]] = [
    ("passes-through", "stream.adapter.seam",
     "an adapter's valid stream reaches the consumer unchanged",
     {"scripts": [script(FULL)]}, [FULL]),
    ("raise-becomes-error-finish", "stream.adapter.two-error-paths",
     "the raise path: an adapter that raises mid-stream ends in finish error with its code",
     {"scripts": [script(FULL, 2)]}, [[bs(0, "text"), td(0, "Hel"),
                                       failed("error", "stream.scripted.failure")]]),
    ("in-band-error-passes", "stream.adapter.two-error-paths",
     "the in-band path: a finish error from the adapter is passed on as it is",
     {"scripts": [script([bs(0, "text"), td(0, "pa"), fin("error", "rate limited")])]},
     [[bs(0, "text"), td(0, "pa"), fin("error", "rate limited")]]),
    ("raise-before-first-chunk", "stream.adapter.consumer-wrapper",
     "a raise before any chunk is a lone finish error",
     {"scripts": [script(FULL, 0)]}, [[failed("error", "stream.scripted.failure")]]),
    ("missing-finish", "stream.adapter.consumer-wrapper",
     "an adapter stream that ends without finish ends in finish error (stream.missing-finish)",
     {"scripts": [script(HELLO)]}, [[*HELLO, failed("error", "stream.missing-finish")]]),
    ("abort-severs", "stream.adapter.consumer-wrapper",
     "a signal aborted after the first chunk severs the stream before the next: finish aborted",
     {"scripts": [script(FULL)], "abortAfter": 1}, [[bs(0, "text"),
                                                     failed("aborted", "stream.aborted")]]),
    ("aborted-before-call", "stream.adapter.consumer-wrapper",
     "a signal aborted before the call: nothing is read, finish aborted",
     {"scripts": [script(FULL)], "abortAfter": 0}, [[failed("aborted", "stream.aborted")]]),
    ("raise-while-aborted", "stream.adapter.consumer-wrapper",
     "a raise with the signal aborted is reported as aborted, not error",
     {"scripts": [script([fin("stop")])], "calls": 2, "abortAfter": 0},
     [[failed("aborted", "stream.aborted")], [failed("aborted", "stream.aborted")]]),
    ("nothing-after-finish", "stream.adapter.consumer-wrapper",
     "nothing is read after the adapter's own finish",
     {"scripts": [script([fin("stop"), td(0, "late"), usage(1, 1)])]}, [[fin("stop")]]),
    ("abort-before-end-of-script", "stream.adapter.consumer-wrapper",
     "the signal is checked before the read that would find the script's end: a stream the "
     "signal severed ends aborted, never stream.missing-finish",
     {"scripts": [script([td(0, "a")])], "abortAfter": 1},
     [[td(0, "a"), failed("aborted", "stream.aborted")]]),
    ("raise-after-last-chunk", "stream.scripted",
     "raiseAfter equal to the script's length raises after its last chunk",
     {"scripts": [script([td(0, "a")], 1)]},
     [[td(0, "a"), failed("error", "stream.scripted.failure")]]),
    ("script-per-call", "stream.scripted", "call n streams script n",
     {"scripts": [script([fin("stop")]), script([td(0, "b"), fin("max-tokens")])]},
     [[fin("stop")], [td(0, "b"), fin("max-tokens")]]),
    ("exhausted", "stream.scripted",
     "a call past the last script raises stream.scripted.exhausted (from stream() itself)",
     {"scripts": [script([fin("stop")])], "calls": 2},
     [[fin("stop")], [failed("error", "stream.scripted.exhausted")]]),
    ("unchecked", "stream.scripted",
     "scripted chunks are passed through unchecked, even when they break the contract",
     {"scripts": [script([td(4, "x"), fin("stop")])]}, [[td(4, "x"), fin("stop")]]),
    ("raise-after-past-the-end", "stream.scripted",
     "raiseAfter past the script's length raises once its chunks have run out, not a "
     "missing finish",
     {"scripts": [script([td(0, "a")], 3)]},
     [[td(0, "a"), failed("error", "stream.scripted.failure")]]),
    ("input-unknown-before-missing", "stream.vectors.input-order",
     "an input with a misspelled scripts: unknown-field (script), before missing-field",
     {"script": [script([fin("stop")])]}, ("error", "stream.wire.unknown-field")),
    ("input-empty-scripts", "stream.vectors.input-order",
     "scripts must be a non-empty array", {"scripts": []}, ("error", "stream.wire.not-a-list")),
    ("input-scripts-before-calls", "stream.vectors.input-order",
     "a malformed chunk in a script and a malformed calls: the scripts are read first",
     {"scripts": [script([{"type": "image-delta"}])], "calls": "2"},
     ("error", "stream.wire.unknown-variant")),
    ("input-chunks-before-raise-after", "stream.vectors.input-order",
     "a malformed chunk and a malformed raiseAfter in one script: the chunks are read first",
     {"scripts": [{"chunks": [{"type": "image-delta"}], "raiseAfter": -1}]},
     ("error", "stream.wire.unknown-variant")),
    ("input-negative-count", "stream.vectors.input-order",
     "a negative count is field-type", {"scripts": [script([fin("stop")])], "abortAfter": -1},
     ("error", "stream.wire.field-type")),
    ("input-null-is-absent", "stream.vectors.input-order",
     "a raiseAfter or abortAfter of null is absent",
     {"scripts": [{"chunks": [fin("stop")], "raiseAfter": None}], "abortAfter": None},
     [[fin("stop")]]),
]

# --- stream.openai (stream.openai_map) -------------------------------------------------------


def sse(*payloads: Any, done: bool = True) -> str:
    """A chat-completions response body: one ``data:`` event per payload, then ``[DONE]``."""
    body = "".join(f"data: {json.dumps(p, separators=(',', ':'))}\n\n" for p in payloads)
    return body + ("data: [DONE]\n\n" if done else "")


def delta(finish: str | None = None, **fields: Any) -> J:
    return {"choices": [{"index": 0, "delta": fields, "finish_reason": finish}]}


def tool(index: int, id: str | None = None, name: str | None = None, args: Any = None) -> J:
    out: J = {"index": index, "function": {}}
    if id is not None:
        out["id"] = id
    if name is not None:
        out["function"]["name"] = name
    if args is not None:
        out["function"]["arguments"] = args
    return out


def provider_usage(prompt: int, completion: int, **extra: Any) -> J:
    return {"choices": [], "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                                     **extra}}


HI = [bs(0, "text"), td(0, "Hi"), be(0, text("Hi"))]
#: `{"q":1}` re-stringified, spaced any way: the core holds the value, not the text
#: (spec: stream.openai.parsed-arguments; the exact text is stream.openai.restringify-form's).
Q1 = {"$regex": '\\{ *"q" *: *1 *\\}'}
#: Arguments handed back parsed, spelled as a provider may spell them, and the text
#: JSON.stringify writes for them (spec: stream.openai.restringify-form).
NUMBERS = ('{"n":1.50,"e":1E2,"s":1e-5,"t":1e-7,"z":-0,"b":1e21,"u":"\u00e9\u00e9",'
           '"x":[true,null,"a\\"b"]}')
NUMBERS_TEXT = ('{"n":1.5,"e":100,"s":0.00001,"t":1e-7,"z":0,"b":1e+21,"u":"\u00e9\u00e9",'
                '"x":[true,null,"a\\"b"]}')
#: 1e20, -1e20 and 1e21 as JSON.stringify writes them: digits up to 21, an exponent from 22.
FIXED_21_TEXT = '{"a":100000000000000000000,"b":-100000000000000000000,"c":1e+21}'
EXPONENT_FRACTION_TEXT = '{"a":1.5e+21,"b":1.25e-7,"c":-2.5e-8}'
OPENAI: list[tuple[str, str, str, Any, Any]] = [
    ("usage-after-finish-reason", "stream.openai.defer-usage-and-finish",
     "the usage-only chunk after the finish_reason chunk is emitted before finish",
     sse(delta("stop", content="Hi"), provider_usage(10, 3)),
     [*HI, usage(10, 3), fin("stop")]),
    ("connection-close-ends", "stream.openai.end-of-body",
     "the connection closing (no [DONE]) also ends the stream: block-ends, usage, finish",
     sse(delta(content="Hi"), delta("stop"), provider_usage(1, 1), done=False),
     [*HI, usage(1, 1), fin("stop")]),
    ("cached-subtracted-reasoning-a-breakdown", "stream.openai.disjoint-usage",
     "cached prompt tokens are subtracted out of inputTokens; reasoning tokens stay inside "
     "outputTokens and are reported as their breakdown",
     sse(delta("stop", content="Hi"), provider_usage(
         10, 3, prompt_tokens_details={"cached_tokens": 4},
         completion_tokens_details={"reasoning_tokens": 1})),
     [*HI, usage(6, 3, cacheReadTokens=4, reasoningTokens=1), fin("stop")]),
    ("openai-usage-details", "stream.usage.reasoning-breakdown",
     "OpenAI's wire form (an o-series reply): prompt_tokens_details.cached_tokens out of the "
     "input, completion_tokens whole, reasoning_tokens beside it; other details ignored",
     sse(delta("stop", content="Hi"), provider_usage(
         2006, 300, total_tokens=2306,
         prompt_tokens_details={"cached_tokens": 1920, "audio_tokens": 0},
         completion_tokens_details={"reasoning_tokens": 256, "audio_tokens": 0,
                                    "accepted_prediction_tokens": 0,
                                    "rejected_prediction_tokens": 0})),
     [*HI, usage(86, 300, cacheReadTokens=1920, reasoningTokens=256), fin("stop")]),
    ("deepseek-reasoner-usage", "stream.usage.reasoning-breakdown",
     "DeepSeek's wire form (deepseek-reasoner): 212 completion tokens, 198 of them reasoning, "
     "is outputTokens 212; prompt_cache_hit_tokens out of the input",
     sse(delta(reasoning_content="hm"), delta("stop", content="Hi"), provider_usage(
         1500, 212, total_tokens=1712, prompt_cache_hit_tokens=1408,
         prompt_cache_miss_tokens=92, completion_tokens_details={"reasoning_tokens": 198})),
     [bs(0, "reasoning"), rd(0, "hm"), be(0, reasoning("hm")), bs(1, "text"), td(1, "Hi"),
      be(1, text("Hi")), usage(92, 212, cacheReadTokens=1408, reasoningTokens=198),
      fin("stop")]),
    ("reasoning-above-completion-absent", "stream.openai.usage-checked",
     "a breakdown above its total is inconsistent: no usage chunk rather than a wrong count",
     sse(delta("stop", content="Hi"), provider_usage(
         10, 3, completion_tokens_details={"reasoning_tokens": 4})),
     [*HI, fin("stop")]),
    ("deepseek-cache-hits", "stream.openai.disjoint-usage",
     "DeepSeek's prompt_cache_hit_tokens is subtracted out too",
     sse(delta("stop", content="Hi"), provider_usage(100, 5, prompt_cache_hit_tokens=90)),
     [*HI, usage(10, 5, cacheReadTokens=90), fin("stop")]),
    ("both-cache-spellings-cached-tokens-wins", "stream.openai.disjoint-usage",
     "prompt_tokens_details.cached_tokens and DeepSeek's prompt_cache_hit_tokens both "
     "reported: prompt_cache_hit_tokens is read only when cached_tokens is not reported, so "
     "cached_tokens (40) is subtracted and written, not the 90",
     sse(delta("stop", content="Hi"), provider_usage(
         100, 5, prompt_tokens_details={"cached_tokens": 40}, prompt_cache_hit_tokens=90)),
     [*HI, usage(60, 5, cacheReadTokens=40), fin("stop")]),
    ("every-prompt-token-cached", "stream.openai.usage-checked",
     "a cached count equal to prompt_tokens is not above it: every prompt token cached is "
     "consistent, inputTokens 0 (the accept side of inconsistent-usage-absent)",
     sse(delta("stop", content="Hi"), provider_usage(
         10, 3, prompt_tokens_details={"cached_tokens": 10})),
     [*HI, usage(0, 3, cacheReadTokens=10), fin("stop")]),
    ("inconsistent-usage-absent", "stream.openai.usage-checked",
     "cached above prompt is inconsistent: no usage chunk rather than a wrong count",
     sse(delta("stop", content="Hi"), provider_usage(
         10, 3, prompt_tokens_details={"cached_tokens": 11})),
     [*HI, fin("stop")]),
    ("missing-usage-absent", "stream.openai.disjoint-usage",
     "a provider that reports no usage gives no usage chunk, never zeros",
     sse(delta("stop", content="Hi")), [*HI, fin("stop")]),
    ("no-finish-reason", "stream.openai.no-finish-reason-is-error",
     "[DONE] without a finish_reason ends in finish error, the text block left open",
     sse(delta(content="Hel")),
     [bs(0, "text"), td(0, "Hel"), failed("error", "stream.provider.no-finish-reason")]),
    ("no-finish-reason-on-close", "stream.openai.no-finish-reason-is-error",
     "a connection closed without a finish_reason is an error too, never stop",
     sse(delta(content="Hel"), provider_usage(2, 1), done=False),
     [bs(0, "text"), td(0, "Hel"), usage(2, 1),
      failed("error", "stream.provider.no-finish-reason")]),
    ("parallel-tool-calls", "stream.openai.tool-call-identity",
     "each provider tool-call index gets its own block; a resent id or name is not "
     "concatenated; a call without an id gets call-<protocol index>",
     sse(delta(tool_calls=[tool(0, "a", "f", '{"x"')]),
         delta(tool_calls=[tool(1, None, "g", "{}")]),
         delta(tool_calls=[tool(0, "a", "f", ":1}")]), delta("tool_calls")),
     [bs(0, "tool-call"), tc(0, "a", '{"x"', "f"), bs(1, "tool-call"), tc(1, "call-1", "{}", "g"),
      tc(0, "a", ":1}"), be(0, call("a", "f", '{"x":1}')), be(1, call("call-1", "g", "{}")),
      fin("tool-calls")]),
    ("parsed-arguments", "stream.openai.parsed-arguments",
     "arguments handed back as a parsed object are re-stringified: JSON text of the same "
     "value, spaced any way (seed 001 decides; dsh-llm's mapping writes [object Object])",
     sse(delta(tool_calls=[tool(0, "a", "f", {"q": 1})]), delta("tool_calls")),
     [bs(0, "tool-call"), tc(0, "a", Q1, "f"), be(0, call("a", "f", Q1)),
      fin("tool-calls")]),
    ("restringified-as-json-stringify", "stream.openai.restringify-form",
     "re-stringified arguments are what JSON.stringify writes: no whitespace, members as "
     "received, non-ASCII as it is, numbers in ECMAScript's form",
     'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":'
     '{"name":"f","arguments":' + NUMBERS + '}}]}}]}\n\n' + sse(delta("tool_calls")),
     [bs(0, "tool-call"), tc(0, "a", NUMBERS_TEXT, "f"), be(0, call("a", "f", NUMBERS_TEXT)),
      fin("tool-calls")]),
    ("sse-line-ends", "stream.openai.sse",
     "LF, CRLF (cut between two pieces) and CR line ends; comments; no space after the "
     "colon; data lines joined with LF; nothing after [DONE] is read",
     [": keep-alive\r\n",
      "data:" + json.dumps(delta(content="Hel")) + "\r",
      "\n\r\n",
      'data: {"choices":[{"index":0,\rdata: "delta":{"content":"lo"}}]}\r\r',
      "event: message\ndata: " + json.dumps(delta("stop")) + "\n\n",
      "data: [DONE]\n\n",
      "data: " + json.dumps(delta(content="zzz"))],
     [bs(0, "text"), td(0, "Hel"), td(0, "lo"), be(0, text("Hello")), fin("stop")]),
    ("crlf-cut-inside-data-event", "stream.openai.sse",
     "a CR that ends one piece and the LF that starts the next are one line end, inside a "
     "two-line data event too (two line ends would dispatch half the event)",
     ['data: {"choices":[{"index":0,\r',
      '\ndata: "delta":{"content":"Hi"},"finish_reason":"stop"}]}\r\n\r\n',
      "data: [DONE]\r\n\r\n"],
     [*HI, fin("stop")]),
    ("empty-data-line", "stream.openai.sse",
     "a data line with an empty value still makes an event, whose data is the empty text: "
     "not JSON",
     "data:\n\ndata: [DONE]\n\n", ("error", "stream.provider.malformed-event")),
    ("partial-event-at-end-discarded", "stream.openai.end-of-body",
     "the body ends inside an event: that partial event is discarded (WHATWG), and the stream "
     "ends as at [DONE] (loom-ref's choice; dsh-llm raises STREAM_CLOSED)",
     sse(delta("stop", content="Hi"), done=False) + "data: " + json.dumps(delta(content="zzz")),
     [*HI, fin("stop")]),
    ("done-without-blank-line", "stream.openai.end-of-body",
     "a [DONE] line the body ends before its blank line is a partial event: the body ends "
     "without the marker, as at [DONE] (loom-ref's choice; dsh-llm raises STREAM_CLOSED)",
     sse(delta("stop", content="Hi"), done=False) + "data: [DONE]\n",
     [*HI, fin("stop")]),
    ("done-ends-the-stream", "stream.openai.sse",
     "data: [DONE] is the end-of-stream marker: later events are not read",
     sse(delta("stop", content="Hi")) + sse(delta(content="late"), done=False),
     [*HI, fin("stop")]),
    ("not-json", "stream.openai.sse", "an event whose data is not JSON is raised",
     "data: {not json\n\n", ("error", "stream.provider.malformed-event")),
    ("not-an-object", "stream.openai.object-payload",
     "an event whose data is JSON but not an object is refused (loom-ref's choice; dsh-llm "
     "passes over an array)",
     "data: [1, 2]\n\ndata: [DONE]\n\n", ("error", "stream.provider.malformed-event")),
    ("nan-is-not-json", "stream.openai.json-payload",
     "NaN is not JSON (RFC 8259): the event's data is malformed",
     'data: {"choices":[],"x":NaN}\n\ndata: [DONE]\n\n',
     ("error", "stream.provider.malformed-event")),
    ("number-beyond-a-double", "stream.openai.number-range",
     "a number beyond the range of a double (1e400) is refused (I-JSON)",
     'data: {"choices":[],"x":1e400}\n\ndata: [DONE]\n\n',
     ("error", "stream.provider.malformed-event")),
    ("empty-response", "stream.openai.empty-response",
     "a stop finish that opened no block is an empty response: finish error "
     "(dsh-llm's EMPTY_RESPONSE)",
     sse(delta("stop")), [failed("error", "stream.provider.empty-response")]),
    ("empty-response-without-finish-reason", "stream.openai.empty-response",
     "no finish_reason and no block (the empty text opens none): an empty response too",
     sse(delta(content="")), [failed("error", "stream.provider.empty-response")]),
    ("reasoning-only-is-not-empty", "stream.openai.empty-response",
     "a reply of reasoning alone opened a block: it is not empty",
     sse(delta(reasoning_content="hm"), delta("stop")),
     [bs(0, "reasoning"), rd(0, "hm"), be(0, reasoning("hm")), fin("stop")]),
    ("tool-calls-without-block-left-alone", "stream.openai.empty-response",
     "a finish other than stop is left as it is, with no block too",
     sse(delta("tool_calls")), [fin("tool-calls")]),
    ("text-reasoning-text", "stream.openai.block-layout",
     "text, reasoning, then text again: a block per run, in the order sent (loom-ref's "
     "choice; dsh-llm keeps one block per kind)",
     sse(delta(content="a"), delta(reasoning_content="hm"), delta("stop", content="b")),
     [bs(0, "text"), td(0, "a"), be(0, text("a")), bs(1, "reasoning"), rd(1, "hm"),
      be(1, reasoning("hm")), bs(2, "text"), td(2, "b"), be(2, text("b")), fin("stop")]),
    ("later-fragment-leaves-text-open", "stream.openai.block-layout",
     "only a call's first fragment closes the text block; a later one leaves the text after it "
     "open, and the end closes the blocks in protocol index order",
     sse(delta(content="a"), delta(tool_calls=[tool(0, "c", "f", "{")]), delta(content="b"),
         delta(tool_calls=[tool(0, None, None, "}")]), delta("tool_calls")),
     [bs(0, "text"), td(0, "a"), be(0, text("a")), bs(1, "tool-call"), tc(1, "c", "{", "f"),
      bs(2, "text"), td(2, "b"), tc(1, "c", "}"), be(1, call("c", "f", "{}")),
      be(2, text("b")), fin("tool-calls")]),
    ("function-call-is-tool-calls", "stream.openai.function-call",
     "the deprecated function_call finish reason is tool-calls (loom-ref's choice; dsh-llm: "
     "error)",
     sse(delta(content="Hi"), delta("function_call")), [*HI, fin("tool-calls")]),
    ("late-id-ignored", "stream.openai.call-id",
     "a call whose first fragment had no id keeps call-<protocol index>, even when a later "
     "fragment brings one",
     sse(delta(tool_calls=[tool(0, None, "f", "{")]), delta(tool_calls=[tool(0, "x", None, "}")]),
         delta("tool_calls")),
     [bs(0, "tool-call"), tc(0, "call-0", "{", "f"), tc(0, "call-0", "}"),
      be(0, call("call-0", "f", "{}")), fin("tool-calls")]),
    ("tool-call-boolean-index", "stream.openai.payload",
     "a tool-call index of true is not an integer: the call is keyed by its position (0), so a "
     "later call of index 1 is another call",
     sse(delta(tool_calls=[{"index": True, "id": "a", "function": {"name": "f",
                                                                   "arguments": "1"}}]),
         delta(tool_calls=[tool(1, "b", "g", "2")]), delta("tool_calls")),
     [bs(0, "tool-call"), tc(0, "a", "1", "f"), bs(1, "tool-call"), tc(1, "b", "2", "g"),
      be(0, call("a", "f", "1")), be(1, call("b", "g", "2")), fin("tool-calls")]),
    ("choice-index-false-ignored", "stream.openai.payload",
     "a choice whose index is false is not choice 0 (a boolean is not a number): ignored",
     sse({"choices": [{"index": False, "delta": {"content": "x"}},
                      {"index": 0, "delta": {"content": "Hi"}, "finish_reason": "stop"}]}),
     [*HI, fin("stop")]),
    ("in-band-error-empty-message", "stream.openai.payload",
     "an in-band error whose message is empty still ends the stream in error (its failure "
     "message is the implementation's)",
     sse(delta(content="Hi"), {"error": {"message": ""}}),
     [bs(0, "text"), td(0, "Hi"), failed("error", "stream.provider.in-band-error")]),
    ("length-is-max-tokens", "stream.openai",
     "length maps to max-tokens, with every open block closed",
     sse(delta(content="Hi"), delta("length")), [*HI, fin("max-tokens")]),
    ("content-filter-is-error", "stream.openai",
     "content_filter maps to finish error (stream.provider.content-filter), failing closed: "
     "the blocks are left open, as after any error finish",
     sse(delta(content="Hi"), delta("content_filter")),
     [bs(0, "text"), td(0, "Hi"), failed("error", "stream.provider.content-filter")]),
    ("unknown-finish-reason-is-error", "stream.openai",
     "a finish_reason no mapping names maps to finish error "
     "(stream.provider.unknown-finish-reason), failing closed, the blocks left open",
     sse(delta(content="Hi"), delta("paused")),
     [bs(0, "text"), td(0, "Hi"), failed("error", "stream.provider.unknown-finish-reason")]),
    ("in-band-error", "stream.openai", "an in-band error payload ends the stream in error",
     sse(delta(content="Hi"), {"error": {"message": "overloaded"}}),
     [bs(0, "text"), td(0, "Hi"), failed("error", "stream.provider.in-band-error")]),
    ("in-band-error-read-to-end", "stream.openai.payload",
     "the events after an in-band error are still mapped; the error is the finish, whatever "
     "finish_reason says, and the blocks stay open",
     sse(delta(content="Hi"), {"error": {"message": "overloaded"}}, delta(content="!"),
         provider_usage(3, 1), delta("stop")),
     [bs(0, "text"), td(0, "Hi"), td(0, "!"), usage(3, 1),
      failed("error", "stream.provider.in-band-error")]),
    ("false-error-ignored", "stream.openai.payload",
     "an error member that is JSON-false ({}) is no in-band error",
     sse(delta(content="Hi"), {"error": {}}, delta("stop")), [*HI, fin("stop")]),
    ("first-finish-reason-wins", "stream.openai.payload",
     "the first finish_reason is the one mapped; a later one is ignored",
     sse(delta("length", content="Hi"), delta("stop")), [*HI, fin("max-tokens")]),
    ("non-string-finish-reason", "stream.openai.payload",
     "a finish_reason that is not a string is no finish_reason",
     sse(delta(content="Hi"), {"choices": [{"index": 0, "delta": {}, "finish_reason": 5}]}),
     [bs(0, "text"), td(0, "Hi"), failed("error", "stream.provider.no-finish-reason")]),
    ("malformed-usage-ignored", "stream.openai.payload",
     "a usage report that is missing a total is ignored: the earlier report stays",
     sse(delta("stop", content="Hi"), provider_usage(5, 2),
         {"choices": [], "usage": {"prompt_tokens": 7}}),
     [*HI, usage(5, 2), fin("stop")]),
    ("other-choices-ignored", "stream.openai.payload",
     "only the choice of index 0 is read (an absent index is 0)",
     sse({"choices": [{"index": 1, "delta": {"content": "x"}, "finish_reason": "length"},
                      {"delta": {"content": "Hi"}, "finish_reason": "stop"}]}),
     [*HI, fin("stop")]),
    ("delta-order", "stream.openai.payload",
     "reasoning (reasoning_content, or reasoning when that is empty) before content",
     sse(delta("stop", content="Hi", reasoning_content="", reasoning="hm")),
     [bs(0, "reasoning"), rd(0, "hm"), be(0, reasoning("hm")), bs(1, "text"), td(1, "Hi"),
      be(1, text("Hi")), fin("stop")]),
    ("tool-call-keyed-by-position", "stream.openai.payload",
     "tool calls without an integer index are keyed by their position in tool_calls",
     sse(delta(tool_calls=[{"id": "a", "function": {"name": "f", "arguments": "1"}},
                           {"id": "b", "function": {"name": "g", "arguments": "2"}}]),
         delta("tool_calls")),
     [bs(0, "tool-call"), tc(0, "a", "1", "f"), bs(1, "tool-call"), tc(1, "b", "2", "g"),
      be(0, call("a", "f", "1")), be(1, call("b", "g", "2")), fin("tool-calls")]),
    ("tool-call-empty-fragment", "stream.openai.payload",
     "a later fragment with no arguments and no new name gives no delta",
     sse(delta(tool_calls=[tool(0, "a", "f", "{}")]), delta(tool_calls=[tool(0, "a", "f", "")]),
         delta("tool_calls")),
     [bs(0, "tool-call"), tc(0, "a", "{}", "f"), be(0, call("a", "f", "{}")),
      fin("tool-calls")]),
    ("leading-bom", "stream.openai.sse",
     "one byte order mark at the very start of the stream is ignored (WHATWG), even in a "
     "piece of its own",
     ["\ufeff", sse(delta("stop", content="Hi"))], [*HI, fin("stop")]),
    ("bom-later-is-a-character", "stream.openai.sse",
     "a byte order mark anywhere else is part of the line: '\ufeffdata' is an unknown field, "
     "so that event has no data and is not dispatched",
     sse(delta(content="Hi"), done=False) + "\ufeffdata: " + json.dumps(delta(content="X"))
     + "\n\n" + sse(delta("stop")),
     [*HI, fin("stop")]),
    ("done-with-whitespace", "stream.openai.done-whitespace",
     "[DONE] is recognised with whitespace around it (data:  [DONE] keeps one space)",
     sse(delta("stop", content="Hi"), done=False) + "data:  [DONE]\n\n"
     + sse(delta(content="late"), done=False),
     [*HI, fin("stop")]),
    ("done-with-tab", "stream.openai.done-whitespace",
     "tabs around [DONE] are ASCII whitespace: stripped, so it is the end marker",
     sse(delta("stop", content="Hi"), done=False) + "data: \t[DONE]\t\n\n"
     + sse(delta(content="late"), done=False),
     [*HI, fin("stop")]),
    ("done-with-next-line", "stream.openai.sse",
     "U+0085 (NEXT LINE) is not ASCII whitespace: not stripped, so the event is not the end "
     "marker and its data is not JSON",
     sse(delta("stop", content="Hi"), done=False) + "data: \u0085[DONE]\u0085\n\n",
     ("error", "stream.provider.malformed-event")),
    ("id-field-ignored", "stream.openai.sse",
     "an id field is no data: the event it belongs to is dispatched with its data lines alone",
     "id: 7\n" + sse(delta("stop", content="Hi")), [*HI, fin("stop")]),
    ("tool-call-item-not-an-object", "stream.openai.payload",
     "a tool_calls item that is not an object is skipped; the next, without an index, is "
     "keyed by its position in the array, which counts the skipped item",
     sse(delta(tool_calls=[5, {"id": "a", "function": {"name": "f", "arguments": '{"a":'}}]),
         delta(tool_calls=[{"index": 1, "function": {"arguments": "1}"}}]), delta("tool_calls")),
     [bs(0, "tool-call"), tc(0, "a", '{"a":', "f"), tc(0, "a", "1}"),
      be(0, call("a", "f", '{"a":1}')), fin("tool-calls")]),
    ("usage-null-ignored", "stream.openai.payload",
     "a usage member of null (OpenAI sends one on every chunk but the last) is no report: "
     "the earlier report stays",
     sse(provider_usage(5, 2), {**delta("stop", content="Hi"), "usage": None}),
     [*HI, usage(5, 2), fin("stop")]),
    ("in-band-error-first-wins", "stream.openai.payload",
     "of two in-band errors, the first recorded is the finish: its message is the failure's",
     sse(delta(content="Hi"), {"error": {"message": "first"}}, {"error": {"message": "second"}}),
     [bs(0, "text"), td(0, "Hi"), {"type": "finish", "reason": {"kind": "error", "failure": {
         "message": "first", "code": "stream.provider.in-band-error"}}}]),
    ("delta-not-an-object", "stream.openai.payload",
     "a choice whose delta is not an object gives no chunk, and its finish_reason is still read",
     sse(delta(content="Hi"), {"choices": [{"index": 0, "delta": None, "finish_reason": "stop"}]}),
     [*HI, fin("stop")]),
    ("restringified-false-and-float-zero", "stream.openai.restringify-form",
     "false, and zeros written as floats (0.0, -0.0), re-stringified as JSON.stringify writes "
     "them: false, 0, 0",
     'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":'
     '{"name":"f","arguments":{"f":false,"z":0.0,"m":-0.0}}}]}}]}\n\n' + sse(delta("tool_calls")),
     [bs(0, "tool-call"), tc(0, "a", '{"f":false,"z":0,"m":0}', "f"),
      be(0, call("a", "f", '{"f":false,"z":0,"m":0}')), fin("tool-calls")]),
    ("input-sse-not-text", "stream.vectors.input-order",
     "sse is a string or an array of strings: a number is field-type",
     RawInput(sse=5), ("error", "stream.wire.field-type")),
    ("input-sse-piece-not-text", "stream.vectors.input-order",
     "each piece of an sse array is a string: a number among them is field-type",
     RawInput(sse=["data: [DONE]\n\n", 7]), ("error", "stream.wire.field-type")),
    ("malformed-detail-count", "stream.openai.usage-checked",
     "a cached count that is not a non-negative integer is not reported: nothing subtracted",
     sse(delta("stop", content="Hi"), provider_usage(
         5, 2, prompt_tokens_details={"cached_tokens": "3"})),
     [*HI, usage(5, 2), fin("stop")]),
    # issue 30: the second edge set's survivors (tools/mutation/edge2.py)
    ("restringified-fixed-form-to-21-digits", "stream.openai.restringify-form",
     "a number is written in full up to 21 digits and with an exponent from 22: 1e20 is "
     "100000000000000000000 (21 digits), 1e21 is 1e+21, as JSON.stringify writes them",
     'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":'
     '{"name":"f","arguments":{"a":1e20,"b":-1e20,"c":1e21}}}]}}]}\n\n' + sse(delta("tool_calls")),
     [bs(0, "tool-call"), tc(0, "a", FIXED_21_TEXT, "f"), be(0, call("a", "f", FIXED_21_TEXT)),
      fin("tool-calls")]),
    # issue 30: the survivors of sample 713662 (an exponent form whose digits have a fraction)
    ("restringified-exponent-with-fraction", "stream.openai.restringify-form",
     "a number with an exponent and more than one digit writes its first digit, a point and "
     "the rest: 1.5e21 is 1.5e+21, 1.25e-7 is 1.25e-7, as JSON.stringify writes them",
     'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":'
     '{"name":"f","arguments":{"a":15e20,"b":125e-9,"c":-0.000000025}}}]}}]}\n\n'
     + sse(delta("tool_calls")),
     [bs(0, "tool-call"), tc(0, "a", EXPONENT_FRACTION_TEXT, "f"),
      be(0, call("a", "f", EXPONENT_FRACTION_TEXT)), fin("tool-calls")]),
    ("resent-other-name-keeps-the-first", "stream.openai.tool-call-identity",
     "a later fragment of a call naming it again with another name (g after f) changes "
     "nothing: the call keeps its first name, and that delta carries no name",
     sse(delta(tool_calls=[tool(0, "a", "f", '{"x"')]),
         delta(tool_calls=[tool(0, "a", "g", ":1}")]), delta("tool_calls")),
     [bs(0, "tool-call"), tc(0, "a", '{"x"', "f"), tc(0, "a", ":1}"),
      be(0, call("a", "f", '{"x":1}')), fin("tool-calls")]),
]

# --- stream.openai (stream.sse_data) ---------------------------------------------------------
# The decoding alone (spec: stream.vectors.sse-data): what no mapping shows, since every data
# is JSON there and JSON's reading ignores the spaces that begin a line.
SSE_DATA: list[tuple[str, str, str, Any, Any]] = [
    ("sse-one-space-removed", "stream.openai.sse",
     "exactly one space after a field's colon is removed, not every one: no space leaves the "
     "value as it is, one is removed, of two and of three one stays removed and the rest kept",
     "data:a\n\ndata: b\n\ndata:  c\n\ndata:   d\ndata:  e\n\n",
     ["a", "b", " c", "  d\n e"]),
    ("sse-data-decoded", "stream.openai.sse",
     "the decoding's other rules, seen without a mapping: a comment and the event, id and "
     "unknown fields add nothing, a data line without a colon is an empty value, [DONE] is an "
     "event like another, lines end at LF, CRLF and CR (a CRLF cut between two pieces is one), "
     "and the partial event at the end is discarded",
     [": hi\nevent: x\nid: 7\nretry: 5\nfoo: 1\ndata: a\r",
      "\ndata\r\r\ndata: [DONE]\r\rdata: b\n", "data: c"],
     ["a\n", "[DONE]"]),
    ("sse-data-empty-body", "stream.vectors.sse-data",
     "a body with no event dispatches none: the data list is empty",
     "", []),
]

# --- stream.openai (stream.openai_fold) ------------------------------------------------------
# The mapping observed without its representation: the chunks behind the consumer wrapper,
# folded (spec: stream.vectors.openai-fold). The core cases of the mapping are these.
ANY_CODE = {"$type": "string"}  # a failure code neither the seed nor dsh-llm names


def folded(message: J, finish: J, usage_json: J | None = None) -> J:
    return {"message": message, "finish": finish, "usage": usage_json}


def failure(code: Any) -> J:
    return {"kind": "error", "failure": {"message": MSG, "code": code}}


DEEPSEEK_REASONER = sse(
    delta(reasoning_content="hm"), delta("stop", content="Hi"), provider_usage(
        1500, 212, total_tokens=1712, prompt_cache_hit_tokens=1408, prompt_cache_miss_tokens=92,
        completion_tokens_details={"reasoning_tokens": 198}))
OPENAI_FOLD: list[tuple[str, str, str, Any, Any]] = [
    ("fold-text", "stream.vectors.openai-fold",
     "a text reply with usage, folded: the message, the finish and the usage",
     sse(delta(content="Hel"), delta("stop", content="lo"), provider_usage(10, 3)),
     folded(msg(text("Hello")), reason("stop"), {"inputTokens": 10, "outputTokens": 3})),
    ("fold-in-band-error", "stream.openai.in-band-error",
     "an in-band error payload ends the stream in failure, whichever sanctioned path: a "
     "finish error (seed 001 decides; dsh-llm's mapping ignores it and ends stop)",
     sse(delta(content="Hi"), {"error": {"message": "overloaded"}}),
     folded(msg(text("Hi")), failure(ANY_CODE))),
    ("fold-content-filter", "stream.openai.finish-reason",
     "content_filter ends in finish error (stream.provider.content-filter), the text kept in "
     "the message",
     sse(delta(content="Hi"), delta("content_filter")),
     folded(msg(text("Hi")), failure("stream.provider.content-filter"))),
    ("fold-unknown-finish-reason", "stream.openai.finish-reason",
     "a finish_reason no mapping names ends in finish error "
     "(stream.provider.unknown-finish-reason), failing closed",
     sse(delta(content="Hi"), delta("paused")),
     folded(msg(text("Hi")), failure("stream.provider.unknown-finish-reason"))),
    ("fold-length-is-max-tokens", "stream.openai.finish-reason",
     "length is max-tokens: the text stays, a cut tool call is dropped by the fold",
     sse(delta(content="Hi"), delta(tool_calls=[tool(0, "c", "f", '{"a":')]), delta("length")),
     folded(msg(text("Hi")), reason("max-tokens"))),
    ("fold-reasoning-then-text", "stream.openai.text-and-reasoning",
     "reasoning, then text: a reasoning block, then a text block",
     sse(delta(reasoning_content="h"), delta(reasoning_content="m"), delta("stop", content="Hi")),
     folded(msg(reasoning("hm"), text("Hi")), reason("stop"))),
    ("fold-reasoning-and-content-one-delta", "stream.openai.text-and-reasoning",
     "reasoning_content and content in one delta: the reasoning comes first",
     sse(delta("stop", content="Hi", reasoning_content="hm")),
     folded(msg(reasoning("hm"), text("Hi")), reason("stop"))),
    ("fold-deepseek-reasoner-usage", "stream.usage.reasoning-breakdown",
     "DeepSeek's wire form (deepseek-reasoner): 212 completion tokens, 198 of them reasoning, "
     "is outputTokens 212; prompt_cache_hit_tokens out of the input",
     DEEPSEEK_REASONER,
     folded(msg(reasoning("hm"), text("Hi")), reason("stop"),
            {"inputTokens": 92, "outputTokens": 212, "cacheReadTokens": 1408,
             "reasoningTokens": 198})),
    ("fold-parallel-calls-with-ids", "stream.openai.tool-call-identity",
     "two tool calls whose fragments interleave stay two calls, each with its id, name and "
     "arguments",
     sse(delta(tool_calls=[tool(0, "a", "f", '{"x"')]), delta(tool_calls=[tool(1, "b", "g", "{}")]),
         delta(tool_calls=[tool(0, "a", None, ":1}")]), delta("tool_calls")),
     folded(msg(call("a", "f", '{"x":1}'), call("b", "g", "{}")), reason("tool-calls"))),
    ("fold-empty-response", "stream.openai.empty-response",
     "a stop finish that opened no block: finish error stream.provider.empty-response "
     "(dsh-llm's EMPTY_RESPONSE), an empty message",
     sse(delta("stop")), folded(msg(), failure("stream.provider.empty-response"))),
    ("fold-empty-body", "stream.openai.empty-response",
     "an empty body is no response: it fails, whatever the path (loom-ref: empty-response; "
     "dsh-llm: STREAM_CLOSED)",
     "", folded(msg(), failure(ANY_CODE))),
    ("fold-data-null", "stream.openai.json-payload",
     "a payload of null fails the stream, whatever the path (loom-ref: malformed-event; "
     "dsh-llm: a TypeError)",
     sse(delta(content="Hi"), done=False) + "data: null\n\ndata: [DONE]\n\n",
     folded(msg(text("Hi")), failure(ANY_CODE))),
    ("fold-not-json", "stream.openai.json-payload",
     "data that is not JSON fails the stream: the raise read as a finish error "
     "(stream.provider.malformed-event), the text before it kept",
     sse(delta(content="Hi"), done=False) + "data: {not json\n\n",
     folded(msg(text("Hi")), failure("stream.provider.malformed-event"))),
]

# --- stream.openai (stream.openai_request) ---------------------------------------------------


def wire_msg(role: str, *blocks: J) -> J:
    return {"role": role, "content": list(blocks)}


def chat_req(messages: list[J], **extra: Any) -> J:
    return {"request": {"model": "m1", "messages": messages, **extra}}


def chat_body(messages: list[J], **extra: Any) -> J:
    return {"body": {"model": "m1", "messages": messages, "stream": True,
                     "stream_options": {"include_usage": True}, **extra}}


HI_USER = wire_msg("user", text("Hi"))
OPENAI_REQUEST: list[tuple[str, str, str, Any, Any]] = [
    ("request-conversation", "stream.openai.request",
     "a conversation as chat-completions messages: the system text, a tool call beside the "
     "assistant's text (its reasoning not sent back), the tool result as a tool message, two "
     "text blocks joined with nothing between them; tools, max_tokens and temperature",
     chat_req([wire_msg("system", text("Be brief.")), wire_msg("user", text("Tea?")),
               wire_msg("assistant", reasoning("hm"), text("Let me check."),
                        call("c1", "stock", '{"item":"tea"}')),
               wire_msg("tool", result("c1", "10")),
               wire_msg("assistant", text("10 left.")),
               wire_msg("user", text("And"), text(" cake?"))],
              tools=[{"name": "stock", "description": "count an item",
                      "parameters": {"type": "object"}}], maxTokens=100, temperature=0.5),
     chat_body([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Tea?"},
                {"role": "assistant", "content": "Let me check.", "tool_calls": [
                    {"id": "c1", "type": "function",
                     "function": {"name": "stock", "arguments": '{"item":"tea"}'}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "10"},
                {"role": "assistant", "content": "10 left."},
                {"role": "user", "content": "And cake?"}],
               tools=[{"type": "function", "function": {
                   "name": "stock", "description": "count an item",
                   "parameters": {"type": "object"}}}], max_tokens=100, temperature=0.5)),
    ("request-minimal", "stream.openai.request",
     "no tools, no maxTokens, no temperature: no such members; the usage is asked for",
     chat_req([HI_USER]), chat_body([{"role": "user", "content": "Hi"}])),
    ("request-null-is-absent", "stream.vectors.input-order",
     "maxTokens and temperature of null are absent",
     chat_req([HI_USER], maxTokens=None, temperature=None),
     chat_body([{"role": "user", "content": "Hi"}])),
    ("request-user-message-split", "stream.openai.request",
     "a user message holding text, a tool result and text again: a user, a tool and a user "
     "message in block order; the tool result's isError is not sent",
     chat_req([wire_msg("user", text("Here:"), result("c1", "oops", is_error=True),
                        text("Thanks"))]),
     chat_body([{"role": "user", "content": "Here:"},
                {"role": "tool", "tool_call_id": "c1", "content": "oops"},
                {"role": "user", "content": "Thanks"}])),
    ("request-empty-messages", "stream.openai.request",
     "messages without blocks: a system message's content is \"\", an assistant's null, and "
     "a user or tool message sends nothing",
     chat_req([wire_msg("system"), wire_msg("user"), wire_msg("tool"), wire_msg("assistant")]),
     chat_body([{"role": "system", "content": ""}, {"role": "assistant", "content": None}])),
    ("request-arguments-as-they-are", "stream.openai.request",
     "a tool call's arguments are sent as the raw text they are: neither parsed, nor "
     "re-spaced, nor checked",
     chat_req([HI_USER, wire_msg("assistant", call("c", "f", '{"q": 1.50}'),
                                 call("d", "g", "not json"))]),
     chat_body([{"role": "user", "content": "Hi"},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "c", "type": "function",
                     "function": {"name": "f", "arguments": '{"q": 1.50}'}},
                    {"id": "d", "type": "function",
                     "function": {"name": "g", "arguments": "not json"}}]}])),
    ("request-arguments-not-a-string", "stream.openai.request",
     "arguments that are not a string (an object) are refused: a call's arguments are raw "
     "JSON text",
     chat_req([HI_USER, wire_msg("assistant", call("c", "f", {"q": 1}))]),
     ("error", "argument.invalid")),
    ("request-tool-defaults", "stream.openai.request",
     "a tool without description or parameters: \"\" and {}",
     chat_req([HI_USER], tools=[{"name": "t"}]),
     chat_body([{"role": "user", "content": "Hi"}],
               tools=[{"type": "function",
                       "function": {"name": "t", "description": "", "parameters": {}}}])),
    ("request-system-holds-text-only", "stream.openai.request",
     "a system message holding reasoning is refused",
     chat_req([wire_msg("system", text("A"), reasoning("hm")), HI_USER]),
     ("error", "argument.invalid")),
    ("request-assistant-holds-no-tool-result", "stream.openai.request",
     "an assistant message holding a tool result is refused",
     chat_req([HI_USER, wire_msg("assistant", text("x"), result("c", "1"))]),
     ("error", "argument.invalid")),
    ("request-user-holds-no-reasoning", "stream.openai.request",
     "a user message holding reasoning is refused",
     chat_req([wire_msg("user", text("Hi"), reasoning("hm"))]), ("error", "argument.invalid")),
    ("request-user-holds-no-tool-call", "stream.openai.request",
     "a user message holding a tool call is refused",
     chat_req([wire_msg("user", call("c", "f", "{}"))]), ("error", "argument.invalid")),
    ("request-tool-holds-tool-results-only", "stream.openai.request",
     "a tool message holding text is refused",
     chat_req([HI_USER, wire_msg("tool", result("c", "1"), text("10"))]),
     ("error", "argument.invalid")),
    ("request-unknown-member", "stream.vectors.input-order",
     "the input holds request alone: an apiKey (stream.anthropic_request's) is unknown-field",
     {**chat_req([HI_USER]), "apiKey": "k"}, ("error", "stream.wire.unknown-field")),
    ("request-bad-model", "stream.vectors.input-order",
     "the request's values are judged as LlmRequest judges them: an empty model is refused",
     {"request": {"model": "", "messages": []}}, ("error", "argument.invalid")),
]

# --- stream.attribution (stream.attribution_headers) -----------------------------------------


def identity(product: str = "acme", version: str = "1.2", url: str = "https://acme.example") -> J:
    return {"identity": {"product": product, "version": version, "url": url}}


ATTRIBUTION: list[tuple[str, str, str, J, Any]] = [
    ("user-agent-only", "stream.attribution.user-agent",
     "the identity maps to the User-Agent header only, <product>/<version> (+<url>); header "
     "names are written in lowercase",
     identity(), {"headers": {"user-agent": "acme/1.2 (+https://acme.example)"}}),
    ("product-token", "stream.attribution.static", "a product is a token: no slash or space",
     identity(product="acme/x"), ("error", "argument.invalid")),
    ("product-rfc-token", "stream.attribution.static",
     "a product is an RFC 9110 token: '@' is not a token character",
     identity(product="acme@corp"), ("error", "argument.invalid")),
    ("version-rfc-token", "stream.attribution.static",
     "a version is an RFC 9110 token: ';' is not a token character, '+' is",
     identity(version="1.2;beta"), ("error", "argument.invalid")),
    ("version-token-characters", "stream.attribution.static",
     "every RFC 9110 token character may stand in a version",
     identity(version="1.2+build.7_rc-1~!#$%&'*^`|"),
     {"headers": {"user-agent": "acme/1.2+build.7_rc-1~!#$%&'*^`| (+https://acme.example)"}}),
    ("header-name-lowercase", "stream.vectors.header-names",
     "the function writes the header's name in lowercase (one header in any case, RFC 9110)",
     identity(product="loom", version="0.3.0", url="https://loom.example/"),
     {"headers": {"user-agent": "loom/0.3.0 (+https://loom.example/)"}}),
    ("url-empty", "stream.attribution.static", "every field is non-empty, the url too",
     identity(url=""), ("error", "argument.invalid")),
    ("url-no-parenthesis", "stream.attribution.static",
     "the url stands in the header's comment as it is: no '(' or ')'",
     identity(url="https://acme.example/(x)"), ("error", "argument.invalid")),
    ("one-line", "stream.attribution.static",
     "fields are single-line: no header can be smuggled in",
     identity(version="1.2\r\nX-User: bob"), ("error", "argument.invalid")),
    ("ascii", "stream.attribution.static", "fields are printable ASCII",
     identity(product="acmé"), ("error", "argument.invalid")),
    ("identity-missing-member", "stream.vectors.input-order",
     "an identity without url: a wire error (missing-field), like the input's own members",
     {"identity": {"product": "acme", "version": "1.2"}}, ("error", "stream.wire.missing-field")),
    ("identity-unknown-member", "stream.vectors.input-order",
     "an identity is closed: a per-user member is refused (unknown-field)",
     {"identity": {**identity()["identity"], "user": "bob"}},
     ("error", "stream.wire.unknown-field")),
]

# --- stream.usage (stream.usage_billed) --------------------------------------------------------


def counts(i: int, o: int, **extra: int) -> J:
    return {"usage": {"inputTokens": i, "outputTokens": o, **extra}}


def billed(i: int, o: int) -> J:
    return {"billedInputTokens": i, "billedOutputTokens": o}


USAGE: list[tuple[str, str, str, J, Any]] = [
    ("input-alone", "stream.usage.disjoint",
     "no cache counts reported: billed input is the uncached input",
     counts(12, 5), billed(12, 5)),
    ("cache-read-added", "stream.usage.disjoint",
     "billed input is uncached input plus cache reads (no writes reported)",
     counts(12, 5, cacheReadTokens=30), billed(42, 5)),
    ("cache-write-added", "stream.usage.disjoint",
     "billed input is uncached input plus cache writes (no reads reported)",
     counts(12, 5, cacheWriteTokens=7), billed(19, 5)),
    ("all-three-summed", "stream.usage.disjoint",
     "billed input is the sum of the three disjoint input counts",
     counts(12, 5, cacheReadTokens=30, cacheWriteTokens=7), billed(49, 5)),
    ("zero-counts-are-counts", "stream.usage.disjoint",
     "a reported zero is a count like any other: billed input 0 + 0 + 4",
     counts(0, 0, cacheReadTokens=0, cacheWriteTokens=4), billed(4, 0)),
    ("reasoning-not-added", "stream.usage.reasoning-breakdown",
     "reasoning is a breakdown of output, never an addition: billed output is outputTokens",
     counts(40, 212, reasoningTokens=198), billed(40, 212)),
    ("negative-count", "stream.wire.malformed", "a negative count is a wire error",
     counts(3, 1, cacheReadTokens=-1), ("error", "stream.wire.bad-value")),
    ("unknown-count", "stream.wire.malformed",
     "a usage is closed: an unknown count is a wire error",
     counts(3, 1, totalTokens=4), ("error", "stream.wire.unknown-field")),
    ("usage-missing", "stream.vectors.input-order", "the input's usage member is required",
     {}, ("error", "stream.wire.missing-field")),
]


def _vector(group: str, name: str, anchor: str, description: str, function: str, input: J,
            expect: J) -> J:
    return {"id": f"{group}/{name}", "anchor": anchor, "tier": "must",
            "description": description, "family": "vector", "function": function,
            "input": input, "expect": expect}


def _expect(expected: Any, wrap: Any) -> J:
    if isinstance(expected, tuple):
        return {"error": {"code": expected[1]}}
    return {"result": wrap(expected)}


def cases() -> list[J]:
    """Every case, in the case-file format (PREAMBLE § Conformance case format)."""
    from .defs_stream_blind5 import vector_rows  # the fresh blind reading's rows (issue 29)

    more = vector_rows()
    from .defs_stream_blind9 import vector_rows as second_rows  # the second fresh reading's
    from .defs_stream_blind15 import vector_rows as third_rows  # the third fresh reading's
    from .defs_stream_blind20 import vector_rows as fourth_rows  # the fourth fresh reading's
    from .defs_stream_blind23 import vector_rows as fifth_rows  # the fifth fresh reading's
    from .defs_stream_mutation3 import vector_rows as mutation_rows  # issue 30, seed 803808
    from .defs_stream_mutation4 import vector_rows as mutation4_rows  # issue 30, seed 456059
    from .defs_stream_mutation_s4 import vector_rows as s4_rows  # issue 30, seeds 473986...
    from .defs_stream_mutation_s10r import vector_rows as s10r_rows  # issue 30, seeds 252125...

    for table, rows in [*second_rows().items(), *third_rows().items(),
                        *fourth_rows().items(), *fifth_rows().items(),
                        *mutation_rows().items(), *mutation4_rows().items(),
                        *s4_rows().items(), *s10r_rows().items()]:
        more[table] = [*more.get(table, []), *rows]
    built: list[J] = []
    for group, table in (("stream.checker", [*CHECKER, *more["CHECKER"]]),
                         ("stream.assembler", [*ASSEMBLER, *more["ASSEMBLER"]])):
        for name, anchor, description, chunks, expected in table:
            if isinstance(expected, tuple):  # ("error", code[, details the reply carries])
                expect: J = {"error": {"code": expected[1], **dict(expected[2:3] and
                                                                   expected[2])}}
            elif group == "stream.checker":
                expect = {"result": {"violations": expected}}
            else:
                expect = {"result": expected}
            built.append(_vector(group, name, anchor, description, FUNCTIONS[group],
                                 input_of(chunks), expect))
    for name, anchor, description, chunks, expected in [*WIRE, *more["WIRE"]]:
        built.append(_vector("stream.wire", name, anchor, description, "stream.decode",
                             input_of(chunks), _expect(expected, lambda e: {"chunks": e})))
    for name, anchor, description, chunks, expected in ENFORCE:
        built.append(_vector("stream.enforce", name, anchor, description, "stream.enforce",
                             {"chunks": chunks}, {"result": expected}))
    for name, anchor, description, input, expected in [*CONSUME, *more["CONSUME"]]:
        built.append(_vector("stream.consume", name, anchor, description, "stream.consume",
                             input, _expect(expected, lambda e: {"calls": e})))
    for name, anchor, description, body, expected in [*OPENAI, *more["OPENAI"]]:
        built.append(_vector("stream.openai", name, anchor, description, "stream.openai_map",
                             dict(body) if isinstance(body, RawInput) else {"sse": body},
                             _expect(expected, lambda e: {"chunks": e})))
    for name, anchor, description, body, expected in SSE_DATA:
        built.append(_vector("stream.openai", name, anchor, description, "stream.sse_data",
                             {"sse": body}, _expect(expected, lambda e: {"data": e})))
    for name, anchor, description, body, expected in OPENAI_FOLD:
        built.append(_vector("stream.openai", name, anchor, description, "stream.openai_fold",
                             {"sse": body}, _expect(expected, lambda e: e)))
    for name, anchor, description, input, expected in [*OPENAI_REQUEST,
                                                        *more["OPENAI_REQUEST"]]:
        built.append(_vector("stream.openai", name, anchor, description, "stream.openai_request",
                             input, _expect(expected, lambda e: e)))
    for name, anchor, description, input, expected in [*ATTRIBUTION,
                                                        *more["ATTRIBUTION"]]:
        built.append(_vector("stream.attribution", name, anchor, description,
                             "stream.attribution_headers", input, _expect(expected, lambda e: e)))
    for name, anchor, description, input, expected in USAGE:
        built.append(_vector("stream.usage", name, anchor, description, "stream.usage_billed",
                             input, _expect(expected, lambda e: e)))
    return built


def run_case(case: J) -> J:
    """loom_ref's answer to a case, in the ``expect`` form."""
    function = VECTOR_FUNCTIONS[case["function"]]
    try:
        return {"result": function(json.loads(json.dumps(case["input"])))}
    except LoomError as error:  # the reply's code and details (INTERPRETING.md section 3)
        return {"error": error_observation(error)}


def agrees(case: J) -> list[str]:
    """How loom_ref's answer differs from the case's ``expect`` (patterns as the runner reads
    them, ``conformance/INTERPRETING.md`` section 7); empty when it agrees."""
    expect = case["expect"]
    if "error" in expect:  # an expected error is matched partially (section 7)
        expect = {"error": {"$partial": expect["error"]}}
    return [str(m) for m in match(expect, run_case(case))]


def path_of(case: J) -> Path:
    group, name = case["id"].split("/", 1)
    return CASES_DIR / group / f"{name}.json"


def verify(made: Callable[[], list[J]] | None = None) -> list[str]:
    """Problems found: a case (of ``made()``, default :func:`cases`) whose hand-written answer
    loom_ref does not give."""
    return [f"{case['id']}: {found}" for case in (made or cases)() if (found := agrees(case))]


def write(groups: tuple[str, ...] = GROUPS, made: Callable[[], list[J]] | None = None) -> None:
    """Rewrite the files of ``groups`` from ``made()`` (default: this module's groups)."""
    problems = verify(made)
    if problems:
        raise SystemExit("refusing to write vectors:\n" + "\n".join(problems))
    for group in groups:
        folder = CASES_DIR / group
        folder.mkdir(parents=True, exist_ok=True)
        for stale in folder.glob("*.json"):
            stale.unlink()
    for case in (made or cases)():
        path_of(case).write_text(canonical(stamp(case)), encoding="utf-8")


def main(groups: tuple[str, ...] = GROUPS, made: Callable[[], list[J]] | None = None) -> None:
    """``--write`` (or ``LOOM_REF_WRITE_VECTORS=1``) rewrites the files; else check only."""
    built = (made or cases)()
    if "--write" in sys.argv or os.environ.get("LOOM_REF_WRITE_VECTORS") == "1":
        write(groups, made)
        print(f"wrote {len(built)} cases under {CASES_DIR}")
    else:
        found = verify(made)
        print("\n".join(found) or f"all {len(built)} cases agree with loom_ref")
        raise SystemExit(1 if found else 0)


if __name__ == "__main__":
    main()
