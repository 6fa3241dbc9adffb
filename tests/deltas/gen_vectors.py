"""The governed-streaming conformance vectors (``deltas.run``): defined here, checked against
loom_ref, written as files under ``conformance/cases/deltas.*/``.

Every case states its ``intent`` (the part of the result a human decided: what each sink saw,
the warnings, the outcome); the ``expect`` written to the file is loom_ref's full answer, and
generation fails if that answer contradicts the intent, so a bug cannot silently become a
vector. ``test_vectors.py`` keeps the files and loom_ref in step.

Rewrite the files: ``python tests/deltas/gen_vectors.py --write`` (or ``LOOM_REGEN=1`` with
pytest). Check only: run without ``--write``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from loom_ref.effects.vectors import VECTOR_FUNCTIONS
from loom_ref.errors import LoomError

ROOT = Path(__file__).resolve().parents[2] / "conformance" / "cases"
GROUPS = (
    "deltas.sinks",
    "deltas.terminal",
    "deltas.reset",
    "deltas.guards",
    "deltas.failclosed",
    "deltas.window",
    "deltas.holdback",
    "deltas.input",
)

Case = dict[str, Any]
CASES: list[Case] = []
ORIGIN = "llm:llm"
USAGE = {"inputTokens": 12, "outputTokens": 5}


def t(text: str, origin: str = ORIGIN) -> dict[str, Any]:
    return {"delta": text, "origin": origin}


def done(usage: dict[str, int] | None = None, origin: str = ORIGIN) -> dict[str, Any]:
    out: dict[str, Any] = {"delta": "", "origin": origin, "done": True}
    if usage is not None:
        out["usage"] = usage
    return out


def reset(n: int) -> dict[str, Any]:
    return {"delta": "", "origin": ORIGIN, "reset": True, "attempt": n}


def ok(output: Any) -> dict[str, Any]:
    return {"ok": True, "output": output}


def err(code: str) -> dict[str, Any]:
    return {"ok": False, "code": code}


def case(group: str, name: str, *, anchor: str, description: str, input: dict[str, Any],
         intent: dict[str, Any], tier: str = "must") -> None:
    """Register one case; ``intent`` is ``{"error": code}`` or a subset of the result."""
    CASES.append({"group": group, "name": name, "anchor": anchor, "tier": tier,
                  "description": description, "function": "deltas.run", "input": input,
                  "intent": intent})


PII = {"kind": "pii"}
SECRET = {"kind": "deny", "patterns": {"secret": "s3cr3t"}}
KEY = {"kind": "deny", "patterns": {"key": "KEY-[0-9]{1,4}"}}

# -- deltas.sinks: decisions 1, 4, 6, 9, 12 --------------------------------------------------
case("deltas.sinks", "per-call-sink", anchor="deltas.per-call-sink",
     description="Decision 1: a per-call sink receives each text delta, then the terminal "
     "chunk with the usage the effect reported.",
     input={"attempts": [{"deltas": ["Hel", "lo"], "usage": USAGE}]},
     intent={"perCall": [t("Hel"), t("lo"), done(USAGE)], "outcome": ok("Hello")})
case("deltas.sinks", "both-sinks", anchor="deltas.channel",
     description="Decisions 4 and 12: both sinks fire from the one guarded channel; the "
     "configured sink gets text and reset chunks, never the terminal one.",
     input={"attempts": [{"deltas": ["a", "b"], "usage": USAGE}], "configured": "collect"},
     intent={"perCall": [t("a"), t("b"), done(USAGE)], "configured": [t("a"), t("b")]})
case("deltas.sinks", "configured-only", anchor="deltas.channel",
     description="Decision 12: a transient call without a per-call sink still feeds the "
     "effect's configured sink through the channel.",
     input={"attempts": [{"deltas": ["x", "y"]}], "perCall": "none", "configured": "collect"},
     intent={"perCall": None, "configured": [t("x"), t("y")], "outcome": ok("xy")})
case("deltas.sinks", "durable-configured", anchor="deltas.channel",
     description="Decision 12: on the durable path (ctx.execute) the configured sink is fed "
     "from the same guarded channel; there is no per-call sink and so no terminal.",
     input={"mode": "durable", "attempts": [{"deltas": ["step ", "text"]}],
            "configured": "collect"},
     intent={"perCall": None, "configured": [t("step "), t("text")],
             "outcome": ok("step text")})
case("deltas.sinks", "raising-sink", anchor="deltas.sink-isolated",
     description="Decision 6: a sink's exception is swallowed and reported through on_warn; "
     "the other sink and the call carry on.",
     input={"attempts": [{"deltas": ["a", "b"]}], "perCall": "raise",
            "configured": "collect"},
     intent={"perCall": [t("a"), t("b"), done()], "configured": [t("a"), t("b")],
             "warnings": ["deltas.sink-raised"] * 3, "outcome": ok("ab")})
case("deltas.sinks", "refused-call", anchor="deltas.refused-call",
     description="Decision 2: a call refused on the route (here by the kill switch) never "
     "reaches the effect, so neither sink is ever called, not even with a terminal chunk.",
     input={"attempts": [{"deltas": ["a"]}], "configured": "collect", "kill": "maintenance"},
     intent={"perCall": [], "configured": [], "executions": 0,
             "outcome": err("effect.killed")})
case("deltas.sinks", "taint-origin", anchor="deltas.taint",
     description="Decision 9: every delta, the terminal one included, is a tainted value "
     "with origin llm:<toolId>.",
     input={"toolId": "planner", "attempts": [{"deltas": ["go"]}]},
     intent={"perCall": [t("go", "llm:planner"), done(origin="llm:planner")]})

# -- deltas.terminal: decisions 3, 4, 6 -----------------------------------------------------
case("deltas.terminal", "without-usage", anchor="deltas.terminal",
     description="Decision 3: the terminal chunk is {delta: \"\", done: true}; usage is "
     "present only when the effect's end chunk reported it.",
     input={"attempts": [{"deltas": ["z"]}]},
     intent={"perCall": [t("z"), done()]})
case("deltas.terminal", "complete-fallback", anchor="deltas.terminal",
     description="Decision 4: a complete (non-streamed) fallback produced no deltas to "
     "terminate, so no terminal chunk is sent.",
     input={"attempts": [{"deltas": [], "end": False, "output": "whole answer"}]},
     intent={"perCall": [], "outcome": ok("whole answer")})
case("deltas.terminal", "end-chunk-only", anchor="deltas.terminal",
     description="An effect that sent only its end-of-stream chunk took the streamed path "
     "(e.g. a reply with no text): the terminal chunk is sent, with its usage.",
     input={"attempts": [{"deltas": [], "usage": USAGE, "output": ""}]},
     intent={"perCall": [done(USAGE)]}, tier="should")
case("deltas.terminal", "held-on-failure", anchor="deltas.terminal",
     description="Decision 6: the effect's own end chunk is held (its usage kept) and never "
     "forwarded when the call fails.",
     input={"attempts": [{"deltas": ["par", "tial"], "usage": USAGE, "outcome": "raise"}]},
     intent={"perCall": [t("par"), t("tial")], "outcome": err("effect.scripted-failure")})
case("deltas.terminal", "output-phase-fails", anchor="deltas.terminal",
     description="Decision 6: the terminal chunk is sent only after the middleware output "
     "phase succeeded; here the output validator rejects text that was never streamed.",
     input={"attempts": [{"deltas": ["all ", "clear"], "output": "all clear s3cr3t"}],
            "validators": [SECRET]},
     intent={"perCall": [t("all "), t("clear")],
             "outcome": err("governance.safety-violation")})

# -- deltas.reset: decision 11 ----------------------------------------------------------------
case("deltas.reset", "before-retry", anchor="deltas.reset",
     description="Decision 11: {reset, attempt: 2} precedes attempt 2's deltas; the "
     "reconstruction after the last reset equals the result.",
     input={"attempts": [{"deltas": ["dra", "ft"], "outcome": "raise"},
                         {"deltas": ["fin", "al"]}]},
     intent={"perCall": [t("dra"), t("ft"), reset(2), t("fin"), t("al"), done()],
             "executions": 2, "outcome": ok("final")})
case("deltas.reset", "eager", anchor="deltas.reset",
     description="Decision 11: the reset is sent eagerly when attempt n > 1 begins, even if "
     "that attempt produces no text.",
     input={"attempts": [{"deltas": ["a"], "outcome": "raise"},
                         {"deltas": [], "end": False, "outcome": "raise"},
                         {"deltas": ["c"]}]},
     intent={"perCall": [t("a"), reset(2), reset(3), t("c"), done()], "executions": 3})
case("deltas.reset", "configured-sees-resets", anchor="deltas.reset",
     description="Decision 12: reset/attempt semantics apply to the configured sink too.",
     input={"attempts": [{"deltas": ["a"], "outcome": "raise"}, {"deltas": ["b"]}],
            "perCall": "none", "configured": "collect"},
     intent={"configured": [t("a"), reset(2), t("b")]})
case("deltas.reset", "guard-text-reset", anchor="deltas.reset",
     description="Decision 11: the delta guards' running text is reset per attempt, so "
     "'s3c' from attempt 1 and 'r3t' from attempt 2 never form a match.",
     input={"attempts": [{"deltas": ["s3c"], "outcome": "raise"}, {"deltas": ["r3t"]}],
            "validators": [SECRET]},
     intent={"perCall": [t("s3c"), reset(2), t("r3t"), done()], "outcome": ok("r3t")})
case("deltas.reset", "sever-then-retry", anchor="deltas.reset",
     description="A sever fails the attempt like any error; a retry (if configured) starts "
     "with a reset and fresh guards.",
     input={"attempts": [{"deltas": ["ssn 078-05-", "1120"]}, {"deltas": ["no ssn"]}],
            "validators": [PII]},
     intent={"perCall": [t("ssn 078-05-"), reset(2), t("no ssn"), done()],
             "outcome": ok("no ssn")}, tier="should")
case("deltas.reset", "no-retry-no-reset", anchor="deltas.reset",
     description="A first attempt is never preceded by a reset.",
     input={"attempts": [{"deltas": ["only"]}]},
     intent={"perCall": [t("only"), done()], "executions": 1})

# -- deltas.guards: decisions 7, 10, 12 --------------------------------------------------------
case("deltas.guards", "pii-split", anchor="deltas.guard-before-delivery",
     description="Decision 10: a card number split across deltas severs BEFORE the delta "
     "completing it is delivered, on both sinks (decision 12).",
     input={"attempts": [{"deltas": ["card 4111 1111 ", "1111 1111", " ok"]}],
            "validators": [PII], "configured": "collect"},
     intent={"perCall": [t("card 4111 1111 ")], "configured": [t("card 4111 1111 ")],
             "outcome": err("governance.delta-severed")})
case("deltas.guards", "deny-pattern", anchor="deltas.guard-before-delivery",
     description="Decision 10: deny_patterns ships a delta form; the running text sees a "
     "pattern split across three deltas.",
     input={"attempts": [{"deltas": ["the s3", "cr", "3t is out"]}], "validators": [SECRET]},
     intent={"perCall": [t("the s3"), t("cr")],
             "outcome": err("governance.delta-severed")})
case("deltas.guards", "token-budget", anchor="deltas.token-budget",
     description="Decision 7: stream_token_budget severs before the delta that would exceed "
     "it (ceil(len/4) tokens per delta); the breaching delta is never handed to a sink.",
     input={"attempts": [{"deltas": ["abcd", "efgh", "ij"]}], "maxStreamTokens": 2},
     intent={"perCall": [t("abcd"), t("efgh")],
             "outcome": err("governance.stream-token-budget")})
case("deltas.guards", "no-sinks-still-guarded", anchor="deltas.guard-before-delivery",
     description="The guards run whether or not anyone listens: a sever does not depend on "
     "the sinks (loom-ref choice).",
     input={"attempts": [{"deltas": ["abcdefgh"]}], "maxStreamTokens": 1, "perCall": "none"},
     intent={"perCall": None, "configured": None,
             "outcome": err("governance.stream-token-budget")}, tier="should")
case("deltas.guards", "sever-sticky", anchor="deltas.sever-sticky",
     description="An effect that catches the sever and keeps writing delivers nothing more, "
     "and the call still fails with the sever.",
     input={"attempts": [{"deltas": ["fine ", "s3cr3t", " more"], "catchSever": True}],
            "validators": [SECRET]},
     intent={"perCall": [t("fine ")], "outcome": err("governance.delta-severed")})
case("deltas.guards", "wider-than-window", anchor="deltas.guard-before-delivery",
     description="Decision 10's limit: a pattern wider than the window, split across deltas, "
     "evades the delta form; the output form still sees the whole result, so the call fails "
     "and no terminal chunk is sent.",
     input={"attempts": [{"deltas": ["abcd", "efgh"]}], "deltaWindow": 2,
            "validators": [{"kind": "deny", "patterns": {"wide": "abcdefgh"}}]},
     intent={"perCall": [t("abcd"), t("efgh")],
             "outcome": err("governance.safety-violation")}, tier="may")
case("deltas.guards", "clean-stream", anchor="deltas.safety-delta-guard",
     description="Decision 10: with the default validators a clean stream is delivered whole.",
     input={"attempts": [{"deltas": ["order ", "12345 ", "shipped"]}],
            "validators": [PII, SECRET], "configured": "collect"},
     intent={"perCall": [t("order "), t("12345 "), t("shipped"), done()],
             "outcome": ok("order 12345 shipped")})

# -- deltas.failclosed: decisions 10, 12, 13 ------------------------------------------------------
case("deltas.failclosed", "inspector", anchor="deltas.fail-closed",
     description="Decisions 10 and 12: an inspects_output middleware with no delta form makes "
     "the channel a silent no-op: neither sink receives anything, the call completes "
     "non-streamed, and the runtime warns.",
     input={"attempts": [{"deltas": ["a", "b"]}], "inspectsOutput": True,
            "configured": "collect"},
     intent={"perCall": [], "configured": [], "warnings": ["deltas.streaming-disabled"],
             "outcome": ok("ab")})
case("deltas.failclosed", "output-only-validator", anchor="deltas.fail-closed",
     description="Decision 10: a safety validator with an output form but no delta form "
     "refuses streaming.",
     input={"attempts": [{"deltas": ["a", "b"]}],
            "validators": [{"kind": "pii", "delta": False}]},
     intent={"perCall": [], "warnings": ["deltas.streaming-disabled"], "outcome": ok("ab")})
case("deltas.failclosed", "configured-only-warns", anchor="deltas.fail-closed",
     description="Decision 12: the refusal covers the configured sink too, and warns.",
     input={"attempts": [{"deltas": ["a"]}], "inspectsOutput": True, "perCall": "none",
            "configured": "collect"},
     intent={"configured": [], "warnings": ["deltas.streaming-disabled"]})
case("deltas.failclosed", "nothing-to-refuse", anchor="deltas.fail-closed",
     description="A call with no sink at all has nothing to refuse: no warning.",
     input={"attempts": [{"deltas": ["a"]}], "inspectsOutput": True, "perCall": "none"},
     intent={"warnings": [], "outcome": ok("a")}, tier="should")
case("deltas.failclosed", "redaction", anchor="deltas.redaction-inspects",
     description="Decision 13: redaction_middleware with redact_output sets inspects_output, "
     "so streaming is refused (deltas would bypass its masking); the output is redacted.",
     input={"attempts": [{"deltas": ["mail ", "a@b.co"]}], "redact": [PII]},
     intent={"perCall": [], "warnings": ["deltas.streaming-disabled"],
             "outcome": ok("mail [redacted]")})

# -- deltas.window: decisions 6, 8 -----------------------------------------------------------
case("deltas.window", "late-writes", anchor="deltas.live-window",
     description="Decision 6: a write after the call settled reaches nobody.",
     input={"attempts": [{"deltas": ["a"]}], "configured": "collect", "late": ["late"]},
     intent={"perCall": [t("a"), done()], "configured": [t("a")]})
case("deltas.window", "abort-ignored", anchor="deltas.live-window",
     description="Decisions 6 and 8: after the signal aborts, an effect that ignores it "
     "reaches nobody, and the call rejects with effect.aborted; no terminal.",
     input={"attempts": [{"deltas": ["one", {"abort": "user stop"}, "two"]}],
            "configured": "collect"},
     intent={"perCall": [t("one")], "configured": [t("one")],
             "outcome": err("effect.aborted")})
case("deltas.window", "late-after-failure", anchor="deltas.live-window",
     description="Nothing is delivered after a failed call settles either.",
     input={"attempts": [{"deltas": ["a"], "outcome": "raise"}], "late": ["b", "c"]},
     intent={"perCall": [t("a")], "outcome": err("effect.scripted-failure")})

# -- deltas.holdback: the extension (tier may) --------------------------------------------------
case("deltas.holdback", "flush-on-success", anchor="deltas.hold-back",
     description="Extension: with hold-back on, text is released only when it can no longer "
     "start a match (here: the last 7 characters are held) and flushed on success, before "
     "the terminal chunk.",
     input={"attempts": [{"deltas": ["hello ", "world"]}], "validators": [KEY],
            "holdBack": True},
     intent={"perCall": [t("hell"), t("o world"), done()], "outcome": ok("hello world")},
     tier="may")
case("deltas.holdback", "drop-on-sever", anchor="deltas.hold-back",
     description="Extension: no sink sees the first character of a match; the held text is "
     "dropped on the sever.",
     input={"attempts": [{"deltas": ["the answer: KE", "Y-12", "34"]}], "validators": [KEY],
            "holdBack": True, "configured": "collect"},
     intent={"perCall": [t("the ans")], "configured": [t("the ans")],
             "outcome": err("governance.delta-severed")}, tier="may")
case("deltas.holdback", "off-by-default", anchor="deltas.hold-back",
     description="Extension: hold-back is off by default, so the prefix of a match is "
     "delivered (decision 10's stated limit).",
     input={"attempts": [{"deltas": ["the answer: KE", "Y-12", "34"]}], "validators": [KEY]},
     intent={"perCall": [t("the answer: KE")], "outcome": err("governance.delta-severed")},
     tier="may")

# -- deltas.input: malformed inputs ------------------------------------------------------------
case("deltas.input", "no-attempts", anchor="deltas.vector-run",
     description="A deltas.run input needs at least one scripted attempt.",
     input={"attempts": []}, intent={"error": "argument.invalid"})
case("deltas.input", "durable-per-call", anchor="deltas.vector-run",
     description="A durable call has no per-call sink.",
     input={"mode": "durable", "attempts": [{"deltas": ["a"]}], "perCall": "collect"},
     intent={"error": "argument.invalid"})
case("deltas.input", "unknown-key", anchor="deltas.vector-run",
     description="Unknown input keys are refused, not ignored.",
     input={"attempts": [{"deltas": ["a"]}], "sinks": {}}, intent={"error": "argument.invalid"})


def compute(c: Case) -> dict[str, Any]:
    """What loom_ref answers for the case (as ``expect``)."""
    fn = VECTOR_FUNCTIONS[c["function"]]
    try:
        return {"result": fn(c["input"])}
    except LoomError as error:
        return {"error": {"code": error.code}}


def check_intent(c: Case, expect: dict[str, Any]) -> None:
    intent, where = c["intent"], f"{c['group']}/{c['name']}"
    if "error" in intent:
        assert expect == {"error": {"code": intent["error"]}}, (where, expect)
        return
    assert "result" in expect, (where, expect)
    for key, value in intent.items():
        assert expect["result"].get(key) == value, (where, key, expect["result"].get(key), value)


def case_file(c: Case) -> tuple[Path, dict[str, Any]]:
    expect = compute(c)
    check_intent(c, expect)
    doc = {
        "id": f"{c['group']}/{c['name']}",
        "anchor": c["anchor"],
        "tier": c["tier"],
        "description": c["description"],
        "family": "vector",
        "function": c["function"],
        "input": c["input"],
        "expect": expect,
    }
    return ROOT / c["group"] / f"{c['name']}.json", doc


def canonical(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_all() -> int:
    """Rewrite every case file of our groups (stale files of our groups are removed)."""
    wanted = {}
    for c in CASES:
        path, doc = case_file(c)
        wanted[path] = canonical(doc)
    for group in GROUPS:
        for old in (ROOT / group).glob("*.json") if (ROOT / group).is_dir() else []:
            if old not in wanted:
                old.unlink()
    for path, text in wanted.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return len(wanted)


def main(argv: list[str]) -> int:
    if "--write" in argv or os.environ.get("LOOM_REGEN") == "1":
        print(f"wrote {write_all()} cases under {ROOT}")
        return 0
    for c in CASES:
        case_file(c)
    print(f"{len(CASES)} cases agree with loom_ref and their intents")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
