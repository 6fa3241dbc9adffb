"""Generates and verifies the ``stream.checker`` and ``stream.assembler`` conformance vectors.

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
from pathlib import Path
from typing import Any

from loom_ref.errors import StreamError
from loom_ref.stream import VECTOR_FUNCTIONS

ROOT = Path(__file__).resolve().parents[2]
CASES_DIR = ROOT / "conformance" / "cases"
GROUPS = ("stream.checker", "stream.assembler")

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
     "a fractional index; the delta then targets no open block",
     [bs(0, "text"), td(0.5, "x"), be(0, text("")), fin("stop")],
     [v("index-non-negative-integer", 1)]),
    ("repeated-block-start", "stream.block-start-unique", "block 0 started twice",
     [bs(0, "text"), bs(0, "text"), be(0, text("")), fin("stop")], [v("block-start-unique", 1)]),
    ("restart-after-end", "stream.block-start-unique", "a closed index is not started again",
     [*HELLO, bs(0, "text"), fin("error", "x")], [v("block-start-unique", 4)]),
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
    ("block-end-wrong-type", "stream.block-end-closes-open-block",
     "a reasoning block closes a text block; the block stays open",
     [bs(0, "text"), be(0, reasoning("x")), fin("stop")],
     [v("block-end-closes-open-block", 1), v("open-blocks-at-finish", 2)]),
    ("double-block-end", "stream.block-end-closes-open-block", "a second block-end",
     [*HELLO, be(0, text("Hello")), fin("stop")], [v("block-end-closes-open-block", 4)]),
    ("open-block-at-stop", "stream.open-blocks-at-finish", "an open text block at finish stop",
     [bs(0, "text"), td(0, "x"), fin("stop")], [v("open-blocks-at-finish", 2)]),
    ("open-tool-call-at-max-tokens", "stream.open-blocks-at-finish",
     "an adapter closes every block before max-tokens",
     [bs(0, "tool-call"), tc(0, "c", "{"), fin("max-tokens")], [v("open-blocks-at-finish", 2)]),
    ("parsed-arguments-delta", "stream.tool-arguments-raw-json",
     "argumentsDelta as a parsed object",
     [bs(0, "tool-call"), tc(0, "c", {"a": 1}, "f"), be(0, call("c", "f", '{"a":1}')),
      fin("tool-calls")], [v("tool-arguments-raw-json", 1)]),
    ("parsed-block-end-arguments", "stream.tool-arguments-raw-json",
     "a block-end whose arguments were not re-stringified",
     [bs(0, "tool-call"), tc(0, "c", '{"a":1}', "f"), be(0, call("c", "f", {"a": 1})),
      fin("tool-calls")], [v("tool-arguments-raw-json", 2)]),
    ("changed-call-id", "stream.tool-call-identity-stable", "a later delta changes the id",
     [bs(0, "tool-call"), tc(0, "c1", "{", "f"), tc(0, "c2", "}"), be(0, call("c1", "f", "{}")),
      fin("tool-calls")], [v("tool-call-identity-stable", 2)]),
    ("changed-call-name-at-end", "stream.tool-call-identity-stable",
     "the block-end names another tool",
     [bs(0, "tool-call"), tc(0, "c1", "{}", "f"), be(0, call("c1", "g", "{}")),
      fin("tool-calls")], [v("tool-call-identity-stable", 2)]),
    ("every-violation", "stream.checker", "every violation is reported, in chunk order",
     [td(3, "x"), bs(-2, "text"), usage(1, 1), usage(1, 1), fin("stop"), td(3, "y")],
     [v("delta-targets-open-block", 0), v("index-non-negative-integer", 1), v("single-usage", 3),
      v("nothing-after-finish", 5)]),
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


def out(message: J, finish: J, usage_json: J | None = None) -> J:
    return {"message": message, "finish": finish, "usage": usage_json}


ASSEMBLER: list[tuple[str, str, str, list[J], Any]] = [
    ("text", "stream.assembler", "one text block with usage",
     [*HELLO, usage(5, 2), fin("stop")],
     out(msg(text("Hello")), reason("stop"), {"inputTokens": 5, "outputTokens": 2})),
    ("usage-absent-is-null", "stream.usage.absent-not-zero", "no usage chunk: usage is null",
     [*HELLO, fin("stop")], out(msg(text("Hello")), reason("stop"))),
    ("usage-all-counts", "stream.usage.disjoint", "all five disjoint counts survive",
     [usage(10, 5, cacheReadTokens=90, cacheWriteTokens=0, reasoningTokens=7), fin("stop")],
     out(msg(), reason("stop"), {"inputTokens": 10, "outputTokens": 5, "cacheReadTokens": 90,
                                 "cacheWriteTokens": 0, "reasoningTokens": 7})),
    ("finish-only", "stream.assembler", "a lone finish folds to an empty message",
     [fin("stop")], out(msg(), reason("stop"))),
    ("delta-only", "stream.assembler.delta-only", "no block-start or block-end at all",
     [rd(0, "th"), rd(0, "ink"), td(1, "an"), tc(2, "c", '{"q":', "f"), td(1, "swer"),
      tc(2, "c", "1}"), fin("tool-calls")],
     out(msg(reasoning("think"), text("answer"), call("c", "f", '{"q":1}')), reason("tool-calls"))),
    ("block-end-carries-the-block", "stream.assembler.first-block-end-wins",
     "the block-end's block, not the deltas, is the block",
     [bs(0, "text"), td(0, "draft"), be(0, text("final")), fin("stop")],
     out(msg(text("final")), reason("stop"))),
    ("first-block-end-wins", "stream.assembler.first-block-end-wins",
     "a second block-end and later deltas are ignored",
     [*HELLO, td(0, " again"), be(0, text("other")), rd(0, "x"), fin("stop")],
     out(msg(text("Hello")), reason("stop"))),
    ("first-seen-order", "stream.assembler.first-seen-order",
     "blocks come out in first-seen order, not index order",
     [bs(5, "text"), bs(1, "reasoning"), rd(1, "r"), td(5, "t"), be(1, reasoning("r")),
      be(5, text("t")), fin("stop")],
     out(msg(text("t"), reasoning("r")), reason("stop"))),
    ("max-tokens-drops-unended-tool-call", "stream.assembler.incomplete-tool-calls-dropped",
     "max-tokens drops the tool call that never ended and keeps the rest",
     [td(0, "Let me"), bs(1, "tool-call"), tc(1, "c1", '{"a":1}', "f"),
      be(1, call("c1", "f", '{"a":1}')), tc(2, "c2", '{"b":', "g"), fin("max-tokens")],
     out(msg(text("Let me"), call("c1", "f", '{"a":1}')), reason("max-tokens"))),
    ("error-keeps-interrupted-text", "stream.assembler.interrupted-kept",
     "an error finish keeps interrupted text and reasoning, drops the open tool call",
     [bs(0, "reasoning"), rd(0, "hm"), bs(1, "text"), td(1, "par"), bs(2, "tool-call"),
      tc(2, "c", "{", "f"), usage(4, 1), fin("error", "connection reset")],
     out(msg(reasoning("hm"), text("par")), reason("error", "connection reset"),
         {"inputTokens": 4, "outputTokens": 1})),
    ("aborted", "stream.assembler.interrupted-kept", "an aborted stream keeps what arrived",
     [bs(0, "text"), td(0, "stop he"), fin("aborted", "user cancelled")],
     out(msg(text("stop he")), reason("aborted", "user cancelled"))),
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
    ("unfinished", "stream.assembler.fail-closed", "no finish: no message",
     [*HELLO], ("error", "stream.assembler.unfinished")),
    ("chunk-after-finish", "stream.assembler.fail-closed", "a chunk after finish",
     [fin("stop"), td(0, "x")], ("error", "stream.nothing-after-finish")),
    ("usage-after-finish", "stream.assembler.fail-closed", "usage after finish",
     [fin("stop"), usage(1, 1)], ("error", "stream.usage-before-finish")),
    ("second-usage", "stream.assembler.fail-closed", "two usage chunks",
     [usage(1, 1), usage(2, 2), fin("stop")], ("error", "stream.single-usage")),
    ("type-conflict", "stream.assembler.fail-closed", "text and reasoning deltas on one index",
     [td(0, "a"), rd(0, "b"), fin("stop")], ("error", "stream.assembler.type-conflict")),
    ("identity-change", "stream.assembler.fail-closed", "a tool call changes its id",
     [tc(0, "a", "{"), tc(0, "b", "}"), fin("tool-calls")],
     ("error", "stream.tool-call-identity-stable")),
    ("negative-index", "stream.assembler.fail-closed", "a negative index",
     [td(-1, "a"), fin("stop")], ("error", "stream.index-non-negative-integer")),
    ("wire-unknown-field", "stream.wire.malformed", "an unknown field in a chunk",
     [{"type": "finish", "reason": {"kind": "stop"}, "extra": 1}],
     ("error", "stream.wire.unknown-field")),
]

FUNCTIONS = {"stream.checker": "stream.check", "stream.assembler": "stream.assemble"}


def cases() -> list[J]:
    """Every case, in the case-file format (PREAMBLE § Conformance case format)."""
    built: list[J] = []
    for group, table in (("stream.checker", CHECKER), ("stream.assembler", ASSEMBLER)):
        for name, anchor, description, chunks, expected in table:
            if isinstance(expected, tuple):
                expect: J = {"error": {"code": expected[1]}}
            elif group == "stream.checker":
                expect = {"result": {"violations": expected}}
            else:
                expect = {"result": expected}
            built.append(
                {
                    "id": f"{group}/{name}",
                    "anchor": anchor,
                    "tier": "must",
                    "description": description,
                    "family": "vector",
                    "function": FUNCTIONS[group],
                    "input": {"chunks": chunks},
                    "expect": expect,
                }
            )
    return built


def run_case(case: J) -> J:
    """loom_ref's answer to a case, in the ``expect`` form."""
    function = VECTOR_FUNCTIONS[case["function"]]
    try:
        return {"result": function(json.loads(json.dumps(case["input"])))}
    except StreamError as error:
        return {"error": {"code": error.code}}


def canonical(case: J) -> str:
    return json.dumps(case, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def path_of(case: J) -> Path:
    group, name = case["id"].split("/", 1)
    return CASES_DIR / group / f"{name}.json"


def verify() -> list[str]:
    """Problems found: a case whose hand-written answer loom_ref does not give."""
    problems = []
    for case in cases():
        got = run_case(case)
        if got != case["expect"]:
            problems.append(f"{case['id']}: expected {case['expect']}, loom_ref gave {got}")
    return problems


def write() -> None:
    problems = verify()
    if problems:
        raise SystemExit("refusing to write vectors:\n" + "\n".join(problems))
    for group in GROUPS:
        folder = CASES_DIR / group
        folder.mkdir(parents=True, exist_ok=True)
        for stale in folder.glob("*.json"):
            stale.unlink()
    for case in cases():
        path_of(case).write_text(canonical(case), encoding="utf-8")


if __name__ == "__main__":
    if "--write" in sys.argv or os.environ.get("LOOM_REF_WRITE_VECTORS") == "1":
        write()
        print(f"wrote {len(cases())} cases under {CASES_DIR}")
    else:
        found = verify()
        print("\n".join(found) or f"all {len(cases())} cases agree with loom_ref")
        raise SystemExit(1 if found else 0)
