"""The governed-streaming conformance vectors (``deltas.run``): defined here, checked against
loom_ref, written as files under ``conformance/cases/deltas.*/``.

Every case states its ``intent`` (the part of the result a human decided: what each sink saw,
the warnings, the outcome); the ``expect`` written to the file is loom_ref's full answer, and
generation fails if that answer contradicts the intent, so a bug cannot silently become a
vector. ``test_vectors.py`` keeps the files and loom_ref in step.

Rewrite the files: ``python -m tests.deltas.gen_vectors --write`` (or ``LOOM_REGEN=1`` with
pytest). Check only: run without ``--write``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from .. import vectorkit

GROUPS = (
    "deltas.record",
    "deltas.llm",
    "deltas.live",
    "deltas.phases",
    "deltas.obligations",
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
         intent: dict[str, Any], tier: str = "must", function: str = "deltas.run",
         requires: tuple[str, ...] = ()) -> None:
    """Register one case; ``intent`` is ``{"error": code}`` or a subset of the result;
    ``requires`` lists capabilities beyond the function's."""
    CASES.append({"group": group, "name": name, "anchor": anchor, "tier": tier,
                  "description": description, "function": function, "input": input,
                  "intent": intent, "requires": requires})


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
case("deltas.sinks", "per-call-first", anchor="deltas.channel",
     description="Decision 4: \"Both sinks still fire, per-call first\": every text chunk "
     "and every reset chunk reaches the per-call sink before the configured sink, read as "
     "one interleaved sequence of deliveries; the terminal chunk goes to the per-call sink "
     "only, last.",
     input={"attempts": [{"deltas": ["a", "b"], "outcome": "raise"}, {"deltas": ["c"]}],
            "configured": "collect", "sequence": True},
     intent={"sequence": [{"sink": "perCall", "chunk": t("a")},
                          {"sink": "configured", "chunk": t("a")},
                          {"sink": "perCall", "chunk": t("b")},
                          {"sink": "configured", "chunk": t("b")},
                          {"sink": "perCall", "chunk": reset(2)},
                          {"sink": "configured", "chunk": reset(2)},
                          {"sink": "perCall", "chunk": t("c")},
                          {"sink": "configured", "chunk": t("c")},
                          {"sink": "perCall", "chunk": done()}],
             "executions": 2, "outcome": ok("c")})
# Decision 2: a call with a per-call sink "takes the identical path -- authorizer, middleware
# chain, effect-mode check, metering admission, kill switch, signal", and "A refused call
# never reaches the effect, so its sink is never called": one case per stage, both sinks
# attached (the kill switch's is refused-call above).
for name, stage, refusal, code in (
        ("refused-by-authorizer", "the authorizer", {"deny": "no grant"}, "effect.denied"),
        ("refused-by-middleware", "a middleware that refuses before next",
         {"refuse": "not now"}, "effect.refused"),
        ("refused-by-mode", "the effect-mode check (the effect allows durable calls only)",
         {"modes": ["durable"]}, "effect.mode-refused"),
        ("refused-by-meter", "metering admission", {"overBudget": "budget spent"},
         "effect.over-budget"),
        ("refused-aborted-signal", "the signal (aborted before the call)",
         {"aborted": "user left"}, "effect.aborted")):
    case("deltas.sinks", name, anchor="deltas.refused-call",
         description=f"Decision 2: a call with a per-call sink takes the identical route; "
         f"refused by {stage}, it never reaches the effect, and neither the per-call nor "
         "the configured sink is ever called, not even with a terminal chunk.",
         input={"attempts": [{"deltas": ["a"]}], "configured": "collect", "sequence": True,
                **refusal},
         intent={"perCall": [], "configured": [], "sequence": [], "executions": 0,
                 "outcome": {**err(code), **({"reason": "user left"}
                                             if code == "effect.aborted" else {})}})
case("deltas.sinks", "repeated-mode-once", anchor="deltas.vector-run",
     description="A mode listed twice in modes is that mode once, not a malformed input: "
     "[\"durable\", \"durable\"] refuses the transient call as [\"durable\"] does.",
     input={"attempts": [{"deltas": ["a"]}], "configured": "collect", "sequence": True,
            "modes": ["durable", "durable"]},
     intent={"perCall": [], "configured": [], "sequence": [], "executions": 0,
             "outcome": err("effect.mode-refused")})
case("deltas.sinks", "non-text-refused-unheard", anchor="deltas.writer",
     description="A non-string written to ctx.on_delta is argument.invalid even when no sink "
     "listens and no guard runs (the silent channel checks what it drops).",
     input={"attempts": [{"deltas": [{"write": 7}]}], "mode": "durable"},
     intent={"perCall": None, "configured": None, "outcome": err("argument.invalid")})
case("deltas.sinks", "non-text-refused", anchor="deltas.writer",
     description="A non-string written to ctx.on_delta is argument.invalid; the per-call sink "
     "receives nothing of it, and no end chunk.",
     input={"attempts": [{"deltas": ["a", {"write": [1]}]}]},
     intent={"perCall": [t("a")], "outcome": err("argument.invalid")})
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

case("deltas.guards", "budget-code-points", anchor="guards.token-count",
     description="The token budget counts code points: four emoji are ceil(4 / 4) = 1 token "
     "(eight UTF-16 code units would be 2), so a budget of 1 lets them through.",
     input={"attempts": [{"deltas": ["\U0001F600" * 4]}], "maxStreamTokens": 1},
     intent={"perCall": [t("\U0001F600" * 4), done()], "outcome": ok("\U0001F600" * 4)},
     requires=("text.code-points",))
case("deltas.guards", "window-code-points", anchor="guards.running-text",
     description="The window keeps code points and a class matches one: with a window of "
     "2, the running text before 'b' is 'a' + an emoji, so 'a[^b]b' is found and the delta "
     "severed.",
     input={"attempts": [{"deltas": ["a\U0001F600", "b"]}], "deltaWindow": 2,
            "validators": [{"kind": "deny", "patterns": {"dot": "a[^b]b"}}]},
     intent={"perCall": [t("a\U0001F600")], "outcome": err("governance.delta-severed")},
     requires=("text.code-points",))

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

case("deltas.failclosed", "redaction-without-redactor", anchor="deltas.redaction-inspects",
     description="redaction_middleware with no redact_output does not set inspects_output: the "
     "call streams, and the output passes through unchanged.",
     input={"attempts": [{"deltas": ["mail ", "a@b.co"]}], "redact": False},
     intent={"perCall": [t("mail "), t("a@b.co"), done()], "warnings": [],
             "outcome": ok("mail a@b.co")})

case("deltas.failclosed", "refused-call-warns", anchor="deltas.fail-closed",
     description="The streaming-disabled warning is given when the call's channel opens, "
     "after the authorizer and before the middleware chain: a call the kill switch then "
     "refuses has warned, and no sink hears anything.",
     input={"attempts": [{"deltas": ["a"]}], "inspectsOutput": True, "kill": "maintenance"},
     intent={"perCall": [], "warnings": ["deltas.streaming-disabled"], "executions": 0,
             "outcome": err("effect.killed")})
case("deltas.failclosed", "redaction-rule-order", anchor="deltas.redaction-inspects",
     description="pattern_redactor masks rule by rule, each rule over the text the earlier "
     "rules left: 'abcd' under the rules abc then bcd is '[redacted]d' (the overlapping bcd "
     "match was destroyed by the first mask).",
     input={"attempts": [{"deltas": ["abcd"]}], "perCall": "none",
            "redact": [{"kind": "deny", "patterns": ["abc", "bcd"]}]},
     intent={"warnings": [], "outcome": ok("[redacted]d")})
case("deltas.failclosed", "redaction-resumes-at-match-end", anchor="validators.rule-conditions",
     description="A redactor lists every match of a rule, resuming after an accepted match at "
     "its end: 'aaa' under the rule aa is '[redacted]a' (the overlapping match from the second "
     "a is not masked).",
     input={"attempts": [{"deltas": ["aaa"]}], "perCall": "none",
            "redact": [{"kind": "deny", "patterns": {"r": "aa"}}]},
     intent={"warnings": [], "outcome": ok("[redacted]a")})
case("deltas.failclosed", "redaction-one-character-at-start",
     anchor="deltas.redaction-inspects",
     description="A redactor masks every accepted match, a one-character match at the very "
     "start of the output included: 'ab' under the rule a is '[redacted]b' (issue 30, sample "
     "803808).",
     input={"attempts": [{"deltas": ["ab"]}], "perCall": "none",
            "redact": [{"kind": "deny", "patterns": {"r": "a"}}]},
     intent={"warnings": [], "outcome": ok("[redacted]b")})
case("deltas.failclosed", "one-validator-uncovered", anchor="deltas.fail-closed",
     description="Decision 10: a safety middleware whose validators are covered only in "
     "part (one has a delta form, another an output form and none) is an uncovered output "
     "inspector: streaming is refused for both sinks, not guarded by the delta forms it has.",
     input={"attempts": [{"deltas": ["a", "b"]}], "configured": "collect",
            "validators": [PII, {"kind": "deny", "patterns": ["secret"], "delta": False}]},
     intent={"perCall": [], "configured": [], "warnings": ["deltas.streaming-disabled"],
             "outcome": ok("ab")})

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
             "outcome": {**err("effect.aborted"), "reason": "user stop"}})
case("deltas.window", "abort-twice-keeps-first-reason", anchor="effects.signal-abort-once",
     description="A signal aborts once: a second abort (another reason) changes nothing, so the "
     "call rejects with the first reason.",
     input={"attempts": [{"deltas": ["one", {"abort": "first stop"}, {"abort": "second stop"},
                                     "two"]}], "configured": "collect"},
     intent={"perCall": [t("one")], "configured": [t("one")],
             "outcome": {**err("effect.aborted"), "reason": "first stop"}})
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
case("deltas.holdback", "two-guards-narrowest-release", anchor="deltas.hold-back",
     description="Extension: with two hold-back guards (KEY, 8 wide, holds 7; a second safety "
     "middleware whose rule is 3 wide holds 2), only the text EVERY guard has released is "
     "delivered: the wider guard decides, exactly as flush-on-success with KEY alone.",
     input={"attempts": [{"deltas": ["hello ", "world"]}], "validators": [KEY],
            "secondSafety": [{"kind": "deny", "patterns": ["xyz"]}], "holdBack": True},
     intent={"perCall": [t("hell"), t("o world"), done()], "outcome": ok("hello world")},
     tier="may")
case("deltas.holdback", "two-guards-second-wider", anchor="deltas.hold-back",
     description="Extension: with two hold-back guards, the wider one decides whichever comes "
     "second: validators whose rule is 3 wide (holds 2) then a second safety middleware with "
     "KEY (8 wide, holds 7) deliver exactly as flush-on-success with KEY alone (issue 30, "
     "sample 803808).",
     input={"attempts": [{"deltas": ["hello ", "world"]}],
            "validators": [{"kind": "deny", "patterns": ["xyz"]}], "secondSafety": [KEY],
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

case("deltas.holdback", "guard-order", anchor="deltas.guard-order",
     description="Extension: a hold-back guard keeps its place in the guards' order. The "
     "safety middleware (outermost) and the token budget both sever the same delta, and the "
     "safety guard, checked first, wins.",
     input={"attempts": [{"deltas": ["the answer: KEY-1234 and many more words after it"]}],
            "validators": [KEY], "holdBack": True, "maxStreamTokens": 3},
     intent={"perCall": [], "outcome": err("governance.delta-severed")}, tier="may")
case("deltas.holdback", "guard-order-budget-first", anchor="deltas.guard-order",
     description="Extension: as guard-order, with the budget ordered before the safety "
     "middleware: now the budget, checked first, wins.",
     input={"attempts": [{"deltas": ["the answer: KEY-1234 and many more words after it"]}],
            "validators": [KEY], "holdBack": True, "maxStreamTokens": 3,
            "order": ["budget", "safety"]},
     intent={"perCall": [], "outcome": err("governance.stream-token-budget")}, tier="may")
case("deltas.holdback", "code-points", anchor="guards.hold-back",
     description="Extension: hold-back keeps max_width - 1 code points, not UTF-16 code units: "
     "of eight emoji under a rule of width 8, one is released at once and seven are flushed "
     "on success.",
     input={"attempts": [{"deltas": ["\U0001F600" * 8]}], "validators": [KEY],
            "holdBack": True},
     intent={"perCall": [t("\U0001F600"), t("\U0001F600" * 7), done()],
             "outcome": ok("\U0001F600" * 8)}, tier="may",
     requires=("text.code-points",))

# -- deltas.input: malformed inputs ------------------------------------------------------------
case("deltas.input", "no-attempts", anchor="deltas.vector-run",
     description="A deltas.run input needs at least one scripted attempt.",
     input={"attempts": []}, intent={"error": "argument.invalid"})
case("deltas.input", "durable-per-call", anchor="deltas.vector-run",
     description="A durable call has no per-call sink.",
     input={"mode": "durable", "attempts": [{"deltas": ["a"]}], "perCall": "collect"},
     intent={"error": "argument.invalid"})
case("deltas.input", "empty-tool-id", anchor="deltas.vector-run",
     description="A toolId is a non-empty string: the empty string is malformed (a string, "
     "but empty).",
     input={"toolId": "", "attempts": [{"deltas": ["a"]}]}, intent={"error": "argument.invalid"})
case("deltas.input", "unknown-mode", anchor="deltas.vector-run",
     description="A call's mode is \"transient\" or \"durable\": another is malformed.",
     input={"mode": "live", "attempts": [{"deltas": ["a"]}]},
     intent={"error": "argument.invalid"})
case("deltas.input", "unknown-key", anchor="deltas.vector-run",
     description="Unknown input keys are refused, not ignored.",
     input={"attempts": [{"deltas": ["a"]}], "sinks": {}}, intent={"error": "argument.invalid"})

case("deltas.input", "empty-refusal-reason", anchor="deltas.vector-run",
     description="A refusal a stage is asked for (deny, refuse, overBudget, aborted) gives its "
     "reason, a non-empty string.",
     input={"attempts": [{"deltas": ["a"]}], "deny": ""}, intent={"error": "argument.invalid"})
case("deltas.input", "empty-modes", anchor="deltas.vector-run",
     description="The effect's modes are a non-empty list of \"durable\" / \"transient\".",
     input={"attempts": [{"deltas": ["a"]}], "modes": []}, intent={"error": "argument.invalid"})
case("deltas.input", "sequence-not-boolean", anchor="deltas.vector-run",
     description="\"sequence\" is a boolean.",
     input={"attempts": [{"deltas": ["a"]}], "sequence": 1}, intent={"error": "argument.invalid"})

case("deltas.input", "empty-validators-configured", anchor="deltas.vector-run",
     description="A present key configures its middleware, even \"validators\": []: the order "
     "must then name safety (which guards nothing).",
     input={"attempts": [{"deltas": ["a"]}], "validators": [], "maxStreamTokens": 5,
            "order": ["budget", "safety"]},
     intent={"perCall": [t("a"), done()], "outcome": ok("a")})
case("deltas.input", "empty-validators-in-order", anchor="deltas.vector-run",
     description="As empty-validators-configured: an order that leaves out the safety "
     "middleware of \"validators\": [] is malformed.",
     input={"attempts": [{"deltas": ["a"]}], "validators": [], "maxStreamTokens": 5,
            "order": ["budget"]},
     intent={"error": "argument.invalid"})
case("deltas.input", "hold-back-no-validators", anchor="deltas.hold-back",
     description="Extension: hold-back needs the delta form of every validator; with no "
     "validators there is none to lack, so it is accepted (and holds nothing back).",
     input={"attempts": [{"deltas": ["ab", "cd"]}], "validators": [], "holdBack": True},
     intent={"perCall": [t("ab"), t("cd"), done()], "outcome": ok("abcd")}, tier="may")
case("deltas.input", "order-non-string", anchor="deltas.vector-run",
     description="An order holding a non-string is malformed.",
     input={"attempts": [{"deltas": ["a"]}], "retry": 1, "inspectsOutput": True,
            "order": ["inspector", 2]},
     intent={"error": "argument.invalid"})
case("deltas.input", "usage-malformed", anchor="deltas.vector-run",
     description="An attempt usage that is not the usage wire form is argument.invalid, not "
     "the wire reader's stream.wire.* code.",
     input={"attempts": [{"deltas": ["a"], "usage": {}}]},
     intent={"error": "argument.invalid"})
case("deltas.input", "hold-back-not-boolean", anchor="deltas.vector-run",
     description="holdBack is a boolean, checked even when no validator reads it.",
     input={"attempts": [{"deltas": ["a"]}], "holdBack": 1},
     intent={"error": "argument.invalid"})
case("deltas.input", "delta-window-null", anchor="deltas.vector-run",
     description="deltaWindow null is a value of the wrong type (errors.vector-null), refused "
     "even when no validator reads it.",
     input={"attempts": [{"deltas": ["a"]}], "deltaWindow": None},
     intent={"error": "argument.invalid"})
case("deltas.input", "hold-back-no-delta-form", anchor="deltas.vector-run",
     description="holdBack with a validator that has no delta form is refused.",
     input={"attempts": [{"deltas": ["a"]}], "holdBack": True,
            "validators": [{"kind": "pii", "delta": False}]},
     intent={"error": "argument.invalid"})
case("deltas.input", "write-entry-string", anchor="deltas.vector-run",
     description="A {\"write\": v} entry carries a value that is not a string (text is "
     "written as a bare string entry): {\"write\": \"a\"} is malformed input.",
     input={"attempts": [{"deltas": [{"write": "a"}]}]},
     intent={"error": "argument.invalid"})
case("deltas.input", "redact-true", anchor="deltas.vector-run",
     description="\"redact\" is a list of validators or false; true is malformed input.",
     input={"attempts": [{"deltas": ["a"]}], "redact": True},
     intent={"error": "argument.invalid"})
case("deltas.input", "rewrite-replace-three", anchor="deltas.vector-run",
     description="A rewrite's replace is exactly [old, new]: three strings are malformed.",
     input={"attempts": [{"deltas": ["a"]}], "rewrite": {"replace": ["a", "b", "c"]}},
     intent={"error": "argument.invalid"})
case("deltas.input", "rewrite-replace-not-strings", anchor="deltas.vector-run",
     description="A rewrite's replace holds two strings: a number for new is malformed.",
     input={"attempts": [{"deltas": ["a"]}], "rewrite": {"replace": ["a", 2]}},
     intent={"error": "argument.invalid"})
case("deltas.input", "abort-reason-object", anchor="deltas.vector-run",
     description="An abort reason is a non-empty string: an object is malformed.",
     input={"attempts": [{"deltas": ["a", {"abort": {}}]}]},
     intent={"error": "argument.invalid"})
case("deltas.input", "abort-reason-empty", anchor="deltas.vector-run",
     description="An abort reason is a non-empty string: '' is malformed.",
     input={"attempts": [{"deltas": ["a", {"abort": ""}]}]},
     intent={"error": "argument.invalid"})
case("deltas.input", "inspects-output-null", anchor="errors.vector-null",
     description="An optional member given as null is a value of the wrong type, not an "
     "absent member.",
     input={"attempts": [{"deltas": ["a"]}], "inspectsOutput": None},
     intent={"error": "argument.invalid"})
case("deltas.input", "attempt-deltas-null", anchor="errors.vector-null",
     description="An attempt's deltas null is a value of the wrong type.",
     input={"attempts": [{"deltas": None}]},
     intent={"error": "argument.invalid"})
case("deltas.input", "rewrite-inspects-output-null", anchor="errors.vector-null",
     description="A rewrite's inspectsOutput null is a value of the wrong type.",
     input={"attempts": [{"deltas": ["a"]}],
            "rewrite": {"replace": ["a", "b"], "inspectsOutput": None}},
     intent={"error": "argument.invalid"})
case("deltas.input", "replay-empty-deltas", anchor="deltas.vector-run",
     function="deltas.replay",
     description="deltas.replay's deltas is a non-empty list.",
     input={"deltas": []}, intent={"error": "argument.invalid"})
case("deltas.input", "replay-configured-null", anchor="errors.vector-null",
     function="deltas.replay",
     description="deltas.replay's configured null is a value of the wrong type.",
     input={"deltas": ["a"], "configured": None}, intent={"error": "argument.invalid"})


# -- deltas.record: the record and its JSON form (function deltas.record) ---------------------

def rec(group_name: str, *, anchor: str, description: str, input: dict[str, Any],
        intent: dict[str, Any]) -> None:
    case("deltas.record", group_name, anchor=anchor, description=description, input=input,
         intent=intent, function="deltas.record")


def bad_record(name: str, description: str, input: Any) -> None:
    case("deltas.record", name, anchor="deltas.record", description=description, input=input,
         intent={"error": "argument.invalid"}, function="deltas.record")


case("deltas.record", "done-null", anchor="errors.vector-null", function="deltas.record",
     description="done null is a value of the wrong type, not an absent member.",
     input={"delta": "a", "origin": "llm:llm", "done": None},
     intent={"error": "argument.invalid"})
for _member in ("attempt", "reset", "usage"):  # effects sample 714863: each null refused
    case("deltas.record", f"{_member}-null", anchor="errors.vector-null",
         function="deltas.record",
         description=f"{_member} null on a text chunk is a value of the wrong type, not an "
         "absent member (the chunk without it would be a valid text chunk).",
         input={"delta": "a", "origin": "llm:llm", _member: None},
         intent={"error": "argument.invalid"})
rec("text", anchor="deltas.json",
    description="A text chunk's JSON form is {delta, origin}.",
    input=t("Hi"), intent=t("Hi"))
rec("absent-omitted", anchor="deltas.json",
    description="Absent fields are omitted from the JSON form: done/reset false vanish.",
    input={**t("Hi"), "done": False, "reset": False}, intent=t("Hi"))
rec("terminal-usage", anchor="deltas.json",
    description="The terminal chunk carries done and the usage in the stream chapter's wire "
    "form.",
    input=done(USAGE), intent=done(USAGE))
rec("reset", anchor="deltas.record",
    description="A reset chunk is {delta: \"\", reset: true, attempt: n} with n >= 2.",
    input=reset(3), intent=reset(3))
bad_record("empty-text", "A text chunk carries a non-empty delta.", t(""))
# issue 30: the survivors of sample 713662 -- the delta is text (it is tainted with origin)
bad_record("delta-not-a-string", "A chunk's delta is a string: a number is argument.invalid.",
           {"delta": 5, "origin": ORIGIN})
bad_record("delta-absent", "A chunk's delta is required: a record without it is "
           "argument.invalid.", {"origin": ORIGIN})
bad_record("origin-absent", "A chunk's origin is required: a record without it is "
           "argument.invalid.", {"delta": "a"})
bad_record("reset-without-attempt", "A reset chunk needs its attempt.",
           {"delta": "", "origin": ORIGIN, "reset": True})
bad_record("reset-attempt-one", "No reset precedes attempt 1: the attempt is >= 2.",
           {"delta": "", "origin": ORIGIN, "reset": True, "attempt": 1})
bad_record("reset-with-text", "A reset chunk's delta is empty.",
           {"delta": "x", "origin": ORIGIN, "reset": True, "attempt": 2})
bad_record("reset-and-done", "A chunk is a reset or a terminal, not both.",
           {"delta": "", "origin": ORIGIN, "reset": True, "attempt": 2, "done": True})
bad_record("attempt-on-text", "Only a reset chunk carries an attempt.",
           {**t("a"), "attempt": 2})
bad_record("usage-on-text", "Only the terminal chunk carries usage.", {**t("a"), "usage": USAGE})
bad_record("terminal-with-text", "The terminal chunk's delta is empty.",
           {"delta": "a", "origin": ORIGIN, "done": True})
bad_record("delta-not-text", "A delta is a tainted string, nothing else.",
           {"delta": 5, "origin": ORIGIN})
# issue 29, fresh blind reading 32: attempt is the reset chunk's, usage the terminal's
bad_record("attempt-on-terminal", "Only a reset chunk carries an attempt: the terminal chunk "
           "with one is argument.invalid.", {**done(), "attempt": 2})
bad_record("usage-on-reset", "Only the terminal chunk carries usage: a reset chunk with usage "
           "is argument.invalid.", {**reset(2), "usage": USAGE})

# -- deltas.guards: guard order -----------------------------------------------------------------
case("deltas.guards", "order-first-wins", anchor="deltas.guard-order",
     description="The guards check each delta in middleware order and the first to raise "
     "wins: the safety guard (first) severs a delta that also breaks the token budget.",
     input={"attempts": [{"deltas": ["s3cr3t!!"]}], "validators": [SECRET],
            "maxStreamTokens": 1},
     intent={"perCall": [], "outcome": err("governance.delta-severed")})
case("deltas.guards", "order-reversed", anchor="deltas.guard-order",
     description="With the budget middleware before the safety middleware, the budget guard "
     "raises first.",
     input={"attempts": [{"deltas": ["s3cr3t!!"]}], "validators": [SECRET],
            "maxStreamTokens": 1, "order": ["budget", "safety"]},
     intent={"perCall": [], "outcome": err("governance.stream-token-budget")})

# -- deltas.window: cancellation through the decide scope (decision 8) ---------------------------
case("deltas.window", "execution-cancel", anchor="deltas.cancellation",
     description="Decision 8: the execution's cancel reaches a streaming call through the "
     "scope's composed signal; the call rejects with the abort reason, nothing more is "
     "delivered and no terminal chunk is sent.",
     input={"scope": True, "configured": "collect",
            "attempts": [{"deltas": ["one", {"abort": "execution cancelled",
                                             "source": "execution"}, "two"]}]},
     intent={"perCall": [t("one")], "configured": [t("one")],
             "outcome": {**err("effect.aborted"), "reason": "execution cancelled"}})
case("deltas.window", "decider-cancel", anchor="deltas.cancellation",
     description="Decision 8: the decider's own signal, composed by the scope, stops the "
     "stream the same way.",
     input={"scope": True, "attempts": [{"deltas": ["one", {"abort": "decider stop"}, "two"],
                                         "usage": USAGE}]},
     intent={"perCall": [t("one")],
             "outcome": {**err("effect.aborted"), "reason": "decider stop"}})

# -- deltas.phases: the safety middleware's phases (decision 10) ---------------------------------
SEND = {"type": "tool-call", "id": "c1", "name": "send", "arguments": '{"body": "s3cr3t"}'}
case("deltas.phases", "input-phase", anchor="deltas.safety-phases",
     description="Decision 10: the input form runs before next: a rejected input never "
     "reaches the effect, so no sink hears anything.",
     input={"attempts": [{"deltas": ["x"]}], "validators": [SECRET],
            "input": "tell me the s3cr3t"},
     intent={"perCall": [], "executions": 0, "outcome": err("governance.safety-violation")})
case("deltas.phases", "output-joined-text", anchor="deltas.output-text",
     description="A wire-form message is checked as the concatenation of its text blocks "
     "(the text the deltas reconstruct): a match split across two blocks is found.",
     input={"attempts": [{"deltas": [], "end": False, "output": {
         "role": "assistant", "content": [{"type": "text", "text": "the s3c"},
                                          {"type": "text", "text": "r3t"}]}}],
            "validators": [SECRET]},
     intent={"outcome": err("governance.safety-violation")})
case("deltas.phases", "output-tool-arguments", anchor="deltas.output-text",
     description="Every string of the output is checked on its own, tool-call arguments "
     "included.",
     input={"attempts": [{"deltas": [], "end": False, "output": {
         "role": "assistant", "content": [SEND]}}], "validators": [SECRET]},
     intent={"outcome": err("governance.safety-violation")})
case("deltas.phases", "output-role-not-a-string", anchor="deltas.output-text",
     description="An object is a message only when its role is a string and its content a "
     "list: with role null its text blocks are not joined, so 's3c' + 'r3t' is no match.",
     input={"attempts": [{"deltas": [], "end": False, "output": {
         "role": None, "content": [{"type": "text", "text": "the s3c"},
                                   {"type": "text", "text": "r3t"}]}}],
            "validators": [SECRET]},
     intent={"outcome": ok({"role": None, "content": [
         {"type": "text", "text": "the s3c"}, {"type": "text", "text": "r3t"}]})})
case("deltas.phases", "output-only-text-blocks-join", anchor="deltas.output-text",
     description="Only text blocks are joined: a text block and a reasoning block are checked "
     "apart, so 's3c' + 'r3t' across them is no match.",
     input={"attempts": [{"deltas": [], "end": False, "output": {
         "role": "assistant", "content": [{"type": "text", "text": "s3c"},
                                          {"type": "reasoning", "text": "r3t"}]}}],
            "validators": [SECRET]},
     intent={"outcome": ok({"role": "assistant", "content": [
         {"type": "text", "text": "s3c"}, {"type": "reasoning", "text": "r3t"}]})})

# -- deltas.obligations: decisions 5 and 13 -------------------------------------------------------
case("deltas.obligations", "unmarked-rewriter", anchor="deltas.inspects-obligation",
     description="Decision 13: a middleware that rewrites the output without inspects_output "
     "is not detected: the stream bypasses its rewrite. Setting the marker is the "
     "middleware's obligation.",
     input={"attempts": [{"deltas": ["the ", "secret"]}],
            "rewrite": {"replace": ["secret", "[x]"]}},
     intent={"perCall": [t("the "), t("secret"), done()], "warnings": [],
             "outcome": ok("the [x]")})
case("deltas.obligations", "rewrite-non-string", anchor="deltas.vector-run",
     description="The rewrite middleware of deltas.run replaces text in a str output only; "
     "any other output is returned unchanged.",
     input={"attempts": [{"deltas": ["a"], "output": {"x": "secret"}}],
            "rewrite": {"replace": ["secret", "[x]"]}},
     intent={"perCall": [t("a"), done()], "outcome": ok({"x": "secret"})})

case("deltas.obligations", "marked-rewriter", anchor="deltas.inspects-obligation",
     description="Decision 13: the same middleware with the marker refuses streaming instead.",
     input={"attempts": [{"deltas": ["the ", "secret"]}], "configured": "collect",
            "rewrite": {"replace": ["secret", "[x]"], "inspectsOutput": True}},
     intent={"perCall": [], "configured": [], "warnings": ["deltas.streaming-disabled"],
             "outcome": ok("the [x]")})
case("deltas.obligations", "never-rewritten", anchor="deltas.no-redaction",
     description="Decision 5: redaction acts on what is journaled; the channel never rewrites "
     "a delta: the text a redactor masks in the result reaches the sinks as written.",
     input={"attempts": [{"deltas": ["mail ", "a@b.co"]}], "configured": "collect",
            "rewrite": {"replace": ["a@b.co", "[redacted]"]}},
     intent={"perCall": [t("mail "), t("a@b.co"), done()],
             "configured": [t("mail "), t("a@b.co")], "outcome": ok("mail [redacted]")})
case("deltas.obligations", "sever-not-mask", anchor="deltas.no-redaction",
     description="A guard lets a delta through or severs; it never masks it.",
     input={"attempts": [{"deltas": ["mail ", "a@b.co"]}], "validators": [PII]},
     intent={"perCall": [t("mail ")], "outcome": err("governance.delta-severed")})

# -- deltas.live: decision 5 (function deltas.replay) ----------------------------------------------
HELLO = ["Hello", "Hello", "ok"]
NOTHING: dict[str, Any] = {"perCall": [], "configured": [], "executions": []}
case("deltas.live", "never-journaled", anchor="deltas.live-only", function="deltas.replay",
     description="Decision 5: a durable step and a decision stream live; the journal holds "
     "their returned values only (no delta, origin or terminal), and neither the resume "
     "(which replays the recorded step and decision) nor a read-only replay runs an effect "
     "or calls a sink.",
     input={"deltas": ["Hel", "lo"]},
     intent={
         "start": {"status": "suspended", "output": None,
                   "perCall": [t("Hel"), t("lo"), done()],
                   "configured": [t("Hel"), t("lo"), t("Hel"), t("lo")],
                   "executions": ["durable", "transient"]},
         "resume": {"status": "completed", "output": HELLO, **NOTHING},
         "replay": {"status": "completed", "output": HELLO, **NOTHING},
         "journal": [
             {"kind": "EXECUTION_STARTED",
              "payload": {"executionId": "x1", "workflow": "w", "input": None}},
             {"kind": "STEP_STARTED", "payload": {"stepId": "llm#1", "toolId": "llm",
                                                  "input": None, "idempotencyKey": "x1/llm#1"}},
             {"kind": "STEP_COMPLETED", "payload": {"stepId": "llm#1", "output": "Hello"}},
             {"kind": "DECISION_RECORDED", "payload": {"decisionId": "plan", "choice": "Hello"}},
             {"kind": "EXECUTION_SUSPENDED",
              "payload": {"gateId": "approve", "on": None, "correlationKey": None}},
             {"kind": "RESUME_RECEIVED", "payload": {"gateId": "approve", "payload": "ok"}},
             {"kind": "EXECUTION_RESUMED", "payload": {"gateId": "approve"}},
             {"kind": "EXECUTION_COMPLETED", "payload": {"output": HELLO}},
         ]})
case("deltas.live", "registry-journal-defaults", anchor="deltas.vector-replay",
     function="deltas.replay",
     description="What the workflow leaves unstated takes the kernel's defaults, on the "
     "plain registry too: input null for the start and the step, the kernel's step id and "
     "idempotency key, the scoped call's output as the choice, a gate with no on and no "
     "correlation key.",
     input={"deltas": ["a", "b"], "configured": "none", "host": "registry"},
     intent={"journal": [
         {"kind": "EXECUTION_STARTED",
          "payload": {"executionId": "x1", "workflow": "w", "input": None}},
         {"kind": "STEP_STARTED", "payload": {"stepId": "llm#1", "toolId": "llm",
                                              "input": None, "idempotencyKey": "x1/llm#1"}},
         {"kind": "STEP_COMPLETED", "payload": {"stepId": "llm#1", "output": "ab"}},
         {"kind": "DECISION_RECORDED", "payload": {"decisionId": "plan", "choice": "ab"}},
         {"kind": "EXECUTION_SUSPENDED",
          "payload": {"gateId": "approve", "on": None, "correlationKey": None}},
         {"kind": "RESUME_RECEIVED", "payload": {"gateId": "approve", "payload": "ok"}},
         {"kind": "EXECUTION_RESUMED", "payload": {"gateId": "approve"}},
         {"kind": "EXECUTION_COMPLETED", "payload": {"output": ["ab", "ab", "ok"]}},
     ]})
case("deltas.live", "without-configured-sink", anchor="deltas.live-only",
     function="deltas.replay",
     description="Decision 5: the same with only the decider's per-call sink.",
     input={"deltas": ["a"], "configured": "none"},
     intent={"start": {"status": "suspended", "output": None,
                       "perCall": [t("a"), done()], "configured": None,
                       "executions": ["durable", "transient"]},
             "replay": {"status": "completed", "output": ["a", "a", "ok"], "perCall": [],
                        "configured": None, "executions": []}})
case("deltas.live", "registry-per-call-only", anchor="deltas.no-runtime",
     function="deltas.replay",
     description="On the kernel's plain registry (no runtime) a call with a per-call sink "
     "and no configured sink gets the direct channel: the decider's transient call delivers "
     "its text chunks and its end chunk straight to the per-call sink; the durable step, "
     "with neither sink, streams to nobody.",
     input={"deltas": ["Hel", "lo"], "configured": "none", "host": "registry"},
     intent={"start": {"status": "suspended", "output": None,
                       "perCall": [t("Hel"), t("lo"), done()], "configured": None,
                       "executions": ["durable", "transient"]},
             "replay": {"status": "completed", "output": HELLO, "perCall": [],
                        "configured": None, "executions": []}})
case("deltas.live", "registry-configured-sink", anchor="deltas.no-runtime",
     function="deltas.replay",
     description="On the kernel's plain registry a call with only the effect's configured "
     "sink (the durable step) also gets the direct channel: text chunks reach the configured "
     "sink, per-call first when there is one (the decider's call), the end chunk the "
     "per-call sink only.",
     input={"deltas": ["Hel", "lo"], "host": "registry"},
     intent={"start": {"status": "suspended", "output": None,
                       "perCall": [t("Hel"), t("lo"), done()],
                       "configured": [t("Hel"), t("lo"), t("Hel"), t("lo")],
                       "executions": ["durable", "transient"]},
             "resume": {"status": "completed", "output": HELLO, **NOTHING}})
case("deltas.input", "replay-host-unknown", anchor="deltas.vector-run",
     function="deltas.replay",
     description="deltas.replay's host is \"runtime\" or \"registry\".",
     input={"deltas": ["a"], "host": "governed"}, intent={"error": "argument.invalid"})

# -- issue 30, samples 473986, 321483 and 238680 (s5k): deltas.replay's input at its edges ------
case("deltas.input", "replay-one-empty-delta", anchor="deltas.vector-replay",
     function="deltas.replay",
     description="deltas.replay's deltas are non-empty strings: one empty string among "
     "non-empty ones is argument.invalid (a list of non-empty strings, "
     "deltas.live/without-configured-sink, is accepted).",
     input={"deltas": ["a", ""]}, intent={"error": "argument.invalid"})
case("deltas.input", "replay-configured-raise", anchor="deltas.vector-replay",
     function="deltas.replay",
     description="deltas.replay's configured is \"collect\" or \"none\": \"raise\" (a sink "
     "mode of deltas.llm only) is argument.invalid.",
     input={"deltas": ["a"], "configured": "raise"}, intent={"error": "argument.invalid"})

# -- deltas.llm: the collector and the LLM effect (function deltas.llm) ----------------------------
PL = "llm:planner"
PROMPT = {"messages": [{"role": "user", "content": [{"type": "text", "text": "plan?"}]}]}


def pt(text: str) -> dict[str, Any]:
    return t(text, PL)


def pdone(usage: dict[str, int] | None = None) -> dict[str, Any]:
    return done(usage, PL)


def preset(n: int) -> dict[str, Any]:
    return {"delta": "", "origin": PL, "reset": True, "attempt": n}


def msg(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": list(blocks)}


def tx(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def start(i: int, kind: str = "text") -> dict[str, Any]:
    return {"type": "block-start", "index": i, "blockType": kind}


def delta(i: int, text: str, kind: str = "text-delta") -> dict[str, Any]:
    return {"type": kind, "index": i, "text": text}


def end(i: int, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "block-end", "index": i, "block": block}


def finish(kind: str = "stop", **failure: str) -> dict[str, Any]:
    reason: dict[str, Any] = {"kind": kind}
    if failure:
        reason["failure"] = failure
    return {"type": "finish", "reason": reason}


def text_script(pieces: list[str], usage: dict[str, int] | None = None) -> list[dict[str, Any]]:
    chunks = [start(0), *(delta(0, p) for p in pieces), end(0, tx("".join(pieces)))]
    if usage is not None:
        chunks.append({"type": "usage", "usage": usage})
    return [*chunks, finish()]


def llm(name: str, *, anchor: str, description: str, input: dict[str, Any],
        intent: dict[str, Any], tier: str = "must") -> None:
    case("deltas.llm", name, anchor=anchor, description=description,
         input={"input": PROMPT, **input}, intent=intent, tier=tier, function="deltas.llm")


llm("returns-message", anchor="deltas.llm-output",
    description="The LLM effect streams the adapter through the collector and returns the "
    "assembled message in wire form.",
    input={"scripts": [{"chunks": text_script(["Hel", "lo"], USAGE)}]},
    intent={"perCall": [pt("Hel"), pt("lo"), pdone(USAGE)], "outcome": ok(msg(tx("Hello"))),
            "adapter": {"calls": 1, "pulled": 6, "models": ["m1"]}})
llm("adapter-raises", anchor="deltas.llm-output",
    description="An adapter that raises mid-stream is folded into an error finish by the "
    "consumer wrapper: the call fails with effect.llm-error after the text that arrived.",
    input={"scripts": [{"chunks": text_script(["Hel", "lo"]), "raiseAfter": 2}]},
    intent={"perCall": [pt("Hel")], "outcome": {
        "ok": False, "code": "effect.llm-error",
        "failure": {"code": "stream.scripted.failure", "message": {"$type": "string"}}}})
llm("raise-after-past-the-end", anchor="deltas.llm-output",
    description="A script whose raiseAfter is at or past its length raises once its chunks "
    "have run out (stream.scripted), even with no chunks: a scripted failure, not a missing "
    "finish.",
    input={"scripts": [{"chunks": [], "raiseAfter": 2}]},
    intent={"perCall": [], "outcome": {
        "ok": False, "code": "effect.llm-error",
        "failure": {"code": "stream.scripted.failure", "message": {"$type": "string"}}}})
llm("model-override", anchor="deltas.llm-input",
    description="The input's model overrides the effect's default.",
    input={"input": {**PROMPT, "model": "m2"}, "scripts": [{"chunks": text_script(["ok"])}]},
    intent={"adapter": {"calls": 1, "pulled": 4, "models": ["m2"]}})
llm("tainted-feedback", anchor="deltas.llm-input",
    description="Decision 9: a delta a sink feeds back into a prompt is refused by "
    "guard_request before the adapter is called.",
    input={"scripts": [{"chunks": text_script(["go"])}, {"chunks": text_script(["no"])}],
           "feedBack": True},
    intent={"feedBack": {"outcome": {"ok": False, "code": "governance.tainted-request"},
                         "adapterCalls": 0}})
llm("malformed-input", anchor="deltas.llm-input",
    description="Malformed LLM input is argument.invalid, and the adapter is not called.",
    input={"input": {"messages": "plan?"}, "scripts": [{"chunks": text_script(["x"])}]},
    intent={"perCall": [], "outcome": err("argument.invalid"),
            "adapter": {"calls": 0, "pulled": 0, "models": []}})
llm("tool-name-empty", anchor="deltas.llm-input",
    description="A tool's name is a non-empty string: '' is argument.invalid, and the "
    "adapter is not called.",
    input={"input": {**PROMPT, "tools": [{"name": ""}]},
           "scripts": [{"chunks": text_script(["x"])}]},
    intent={"perCall": [], "outcome": err("argument.invalid"),
            "adapter": {"calls": 0, "pulled": 0, "models": []}})
llm("per-call-null", anchor="errors.vector-null",
    description="perCall null is a value of the wrong type, not an absent member.",
    input={"scripts": [{"chunks": text_script(["x"])}], "perCall": None},
    intent={"error": "argument.invalid"})
llm("bad-max-tokens", anchor="deltas.llm-input",
    description="maxTokens is an int: a string is argument.invalid, and the adapter is not "
    "called.",
    input={"input": {**PROMPT, "maxTokens": "x"}, "scripts": [{"chunks": text_script(["x"])}]},
    intent={"perCall": [], "outcome": err("argument.invalid"),
            "adapter": {"calls": 0, "pulled": 0, "models": []}})
llm("bad-temperature", anchor="deltas.llm-input",
    description="temperature is a number: a string is argument.invalid, and the adapter is "
    "not called.",
    input={"input": {**PROMPT, "temperature": "hot"},
           "scripts": [{"chunks": text_script(["x"])}]},
    intent={"perCall": [], "outcome": err("argument.invalid"),
            "adapter": {"calls": 0, "pulled": 0, "models": []}})
llm("empty-model", anchor="deltas.llm-input",
    description="The input's model is a non-empty string: \"\" is argument.invalid, and the "
    "adapter is not called.",
    input={"input": {**PROMPT, "model": ""}, "scripts": [{"chunks": text_script(["x"])}]},
    intent={"outcome": err("argument.invalid"), "adapter": {"calls": 0, "pulled": 0,
                                                            "models": []}})
llm("empty-effect-model", anchor="deltas.llm-input",
    description="The effect's own model (the function's model) is a non-empty string: \"\" "
    "is refused when the effect is created, so the input is malformed (a vector error, not "
    "a failed call).",
    input={"model": "", "scripts": [{"chunks": text_script(["x"])}]},
    intent={"error": "argument.invalid"})
llm("malformed-script-chunk", anchor="deltas.llm-input",
    description="A scripted chunk is read as the chunk wire form: one it cannot read (an "
    "unknown type) makes the input malformed, argument.invalid (not the wire reader's "
    "stream.wire code: the script is the function's input, not a stream).",
    input={"scripts": [{"chunks": [{"type": "bogus"}]}]},
    intent={"error": "argument.invalid"})
llm("empty-tool-id", anchor="deltas.llm-input",
    description="The effect's tool id is a non-empty string: \"\" is refused when the effect "
    "is created, so the input is malformed.",
    input={"toolId": "", "scripts": [{"chunks": text_script(["x"])}]},
    intent={"error": "argument.invalid"})
llm("unknown-tool-field", anchor="deltas.llm-input",
    description="A tool's members are name, description and parameters: another is refused, "
    "not ignored.",
    input={"input": {**PROMPT, "tools": [{"name": "f", "strict": True}]},
           "scripts": [{"chunks": text_script(["x"])}]},
    intent={"outcome": err("argument.invalid"), "adapter": {"calls": 0, "pulled": 0,
                                                            "models": []}})
llm("unknown-input-field", anchor="deltas.llm-input",
    description="An unknown LLM input field is refused, not ignored.",
    input={"input": {**PROMPT, "prompt": "x"}, "scripts": [{"chunks": text_script(["x"])}]},
    intent={"outcome": err("argument.invalid")})
llm("text-only", anchor="deltas.collect-text",
    description="Only text deltas are delivered: reasoning and tool-call deltas belong to "
    "the returned message.",
    input={"scripts": [{"chunks": [
        start(0, "reasoning"), delta(0, "think", "reasoning-delta"),
        end(0, {"type": "reasoning", "text": "think"}),
        start(1), delta(1, "Hi"), end(1, tx("Hi")),
        start(2, "tool-call"),
        {"type": "tool-call-delta", "index": 2, "id": "c1", "name": "f",
         "argumentsDelta": "{}"},
        end(2, {"type": "tool-call", "id": "c1", "name": "f", "arguments": "{}"}),
        finish("tool-calls")]}]},
    intent={"perCall": [pt("Hi"), pdone()], "outcome": ok(msg(
        {"type": "reasoning", "text": "think"}, tx("Hi"),
        {"type": "tool-call", "id": "c1", "name": "f", "arguments": "{}"}))})
llm("guarded", anchor="deltas.collect-text",
    description="The collector writes each text delta to the guarded channel: a sever "
    "propagates and fails the call, on both sinks.",
    input={"scripts": [{"chunks": text_script(["the s3", "cr3t"])}],
           "validators": [SECRET], "deltaSink": "collect"},
    intent={"perCall": [pt("the s3")], "deltaSink": [pt("the s3")],
            "outcome": err("governance.delta-severed")})
llm("finish-usage", anchor="deltas.collect-finish",
    description="After a successful finish the stream's usage is reported (wire names) and "
    "ends the end-of-stream chunk.",
    input={"scripts": [{"chunks": text_script(["a"], USAGE)}]},
    intent={"usage": [USAGE], "perCall": [pt("a"), pdone(USAGE)]})
CUT_CALL = {"type": "tool-call", "id": "c0", "name": "write", "arguments": '{"path": "no'}
llm("max-tokens-output", anchor="deltas.llm-output-finish",
    description="A reply that finished with max-tokens is returned with finish max-tokens, "
    "and without its tool call, which the provider closed with arguments cut mid-JSON.",
    input={"scripts": [{"chunks": [start(0), delta(0, "Saving."), end(0, tx("Saving.")),
                                   start(1, "tool-call"),
                                   {"type": "tool-call-delta", "index": 1, "id": "c0",
                                    "name": "write", "argumentsDelta": CUT_CALL["arguments"]},
                                   end(1, CUT_CALL), finish("max-tokens")]}]},
    intent={"outcome": ok({**msg(tx("Saving.")), "finish": {"kind": "max-tokens"}})})
REASONER_USAGE = {"inputTokens": 10, "outputTokens": 30, "cacheReadTokens": 5,
                  "reasoningTokens": 20}
llm("usage-billed-counters", anchor="deltas.collect-usage",
    description="The usage is reported as its billed counters: reasoningTokens, a breakdown "
    "of outputTokens, is not a counter (a meter would charge it twice); the end chunk keeps "
    "the whole usage. The token budget counts the visible text only: 100 characters of "
    "reasoning do not breach a 2-token budget.",
    input={"scripts": [{"chunks": [start(0, "reasoning"), delta(0, "x" * 100, "reasoning-delta"),
                                   end(0, {"type": "reasoning", "text": "x" * 100}), start(1),
                                   delta(1, "Hi"), end(1, tx("Hi")),
                                   {"type": "usage", "usage": REASONER_USAGE}, finish()]}],
           "maxStreamTokens": 2},
    intent={"usage": [{"inputTokens": 10, "outputTokens": 30, "cacheReadTokens": 5}],
            "perCall": [pt("Hi"), pdone(REASONER_USAGE)],
            "outcome": ok(msg({"type": "reasoning", "text": "x" * 100}, tx("Hi")))})
#: A stream whose provider reported usage, then finished with an error.
USAGE_THEN_ERROR = {"scripts": [{"chunks": [start(0), delta(0, "par"),
                                            {"type": "usage", "usage": USAGE},
                                            finish("error", code="overloaded",
                                                   message="busy")]}]}
llm("finish-error", anchor="deltas.collect-finish",
    description="A finish of kind error is a turn error (effect.llm-error with the failure), "
    "never a message, and no terminal chunk is sent. Whether the usage seen before the "
    "failure is reported is loom-ref's choice (deltas.llm/failed-reports-no-usage), so this "
    "case leaves it open.",
    input=USAGE_THEN_ERROR,
    intent={"perCall": [pt("par")], "usage": {"$any": None}, "outcome": {
        "ok": False, "code": "effect.llm-error",
        "failure": {"code": "overloaded", "message": "busy"}}})
llm("failed-reports-no-usage", anchor="deltas.collect-failed-usage",
    description="After a failed stream the collector reports no usage, even when the "
    "provider's usage chunk came before the error finish (loom-ref's choice).",
    input=USAGE_THEN_ERROR,
    intent={"perCall": [pt("par")], "usage": [{}], "outcome": {
        "ok": False, "code": "effect.llm-error",
        "failure": {"code": "overloaded", "message": "busy"}}})
llm("finish-aborted", anchor="deltas.collect-finish",
    description="A finish of kind aborted while the call's signal stands is "
    "effect.llm-aborted.",
    input={"scripts": [{"chunks": [start(0), delta(0, "par"),
                                   finish("aborted", message="provider stopped")]}]},
    intent={"perCall": [pt("par")], "outcome": {
        "ok": False, "code": "effect.llm-aborted",
        "failure": {"code": None, "message": "provider stopped"}}})
llm("signal-severs", anchor="deltas.collect-signal",
    description="Decision 6: once the signal aborts (here the per-call sink aborts it on "
    "'lo'), the stream severs at the next chunk: nothing more is delivered, the call "
    "rejects with the reason, no usage is reported and no terminal chunk is sent. How many "
    "chunks are pulled (deltas.llm/abort-found-before-the-next-pull) and whether the "
    "effect's own abort is chained as the cause (effects.signal-abort-cause) are loom-ref's "
    "choices, left open here.",
    input={"scripts": [{"chunks": text_script(["Hel", "lo", " world", "!"], USAGE),
                        "honorSignal": False}], "abortOn": "lo"},
    intent={"perCall": [pt("Hel"), pt("lo")], "usage": [{}],
            "outcome": {"$partial": {**err("effect.aborted"), "reason": "stop at 'lo'"}},
            "adapter": {"calls": 1, "pulled": {"$any": None}, "models": ["m1"]}})
llm("abort-found-before-the-next-pull", anchor="deltas.llm-pull-stops",
    description="The abort is found before the next chunk is pulled from the adapter, even "
    "one that ignores the signal: pulled stops at the chunk during which the sink aborted, "
    "and the collector's own abort is chained as the cause (loom-ref's choices).",
    input={"scripts": [{"chunks": text_script(["Hel", "lo", " world", "!"], USAGE),
                        "honorSignal": False}], "abortOn": "lo"},
    intent={"perCall": [pt("Hel"), pt("lo")], "usage": [{}],
            "outcome": {**err("effect.aborted"), "reason": "stop at 'lo'",
                        "cause": "effect.aborted"},
            "adapter": {"calls": 1, "pulled": 3, "models": ["m1"]}})
llm("no-runtime", anchor="deltas.no-runtime",
    description="Without a runtime the collector delivers directly: text to the per-call "
    "sink then the configured sink; the end chunk to the per-call sink only.",
    input={"runtime": False, "deltaSink": "collect",
           "scripts": [{"chunks": text_script(["Hel", "lo"], USAGE)}]},
    intent={"perCall": [pt("Hel"), pt("lo"), pdone(USAGE)],
            "deltaSink": [pt("Hel"), pt("lo")], "usage": [USAGE],
            "outcome": ok(msg(tx("Hello")))})
llm("no-runtime-empty-validators", anchor="deltas.vector-run",
    description="\"validators\": [] configures a (guardless) safety middleware, and a call "
    "without a runtime takes no middleware: the input is malformed.",
    input={"runtime": False, "validators": [], "scripts": [{"chunks": text_script(["x"])}]},
    intent={"error": "argument.invalid"})
llm("no-runtime-sink-raises", anchor="deltas.no-runtime",
    description="Without a runtime nothing isolates a sink: its exception propagates and "
    "fails the call.",
    input={"runtime": False, "perCall": "raise",
           "scripts": [{"chunks": text_script(["Hel", "lo"])}]},
    intent={"perCall": [pt("Hel")], "warnings": [],
            "outcome": err("effect.scripted-sink-failure")})
llm("runtime-isolates-sink", anchor="deltas.no-runtime",
    description="Contrast: under the runtime the same sink's exception is reported and the "
    "call carries on.",
    input={"perCall": "raise", "scripts": [{"chunks": text_script(["Hel", "lo"])}]},
    intent={"perCall": [pt("Hel"), pt("lo"), pdone()],
            "warnings": ["deltas.sink-raised"] * 3, "outcome": ok(msg(tx("Hello")))})
LOST = [start(0), delta(0, "dra"), finish("error", message="lost")]
llm("on-reset", anchor="deltas.llm-sinks",
    description="Decision 12: with on_reset, reset chunks go to on_reset(attempt) and the "
    "configured sink receives text only; the per-call sink gets both.",
    input={"retry": 2, "onReset": True, "deltaSink": "collect",
           "scripts": [{"chunks": LOST}, {"chunks": text_script(["fin", "al"])}]},
    intent={"perCall": [pt("dra"), preset(2), pt("fin"), pt("al"), pdone()],
            "deltaSink": [pt("dra"), pt("fin"), pt("al")], "resets": [2],
            "outcome": ok(msg(tx("final")))})
llm("without-on-reset", anchor="deltas.llm-sinks",
    description="Decision 12: without on_reset the configured sink receives the reset "
    "chunks too.",
    input={"retry": 2, "deltaSink": "collect",
           "scripts": [{"chunks": LOST}, {"chunks": text_script(["fin", "al"])}]},
    intent={"deltaSink": [pt("dra"), preset(2), pt("fin"), pt("al")], "resets": None})


# -- issue 29: points a blind implementation found open, decided in the text -------------------
case("deltas.terminal", "empty-text-no-stream", anchor="deltas.writer",
     description="An empty text write is ignored: an attempt that wrote only \"\" and no end "
     "chunk did not stream, so it is a complete fallback with no terminal chunk.",
     input={"attempts": [{"deltas": [""], "end": False}]},
     intent={"perCall": [], "outcome": ok("")})
case("deltas.phases", "output-violation-retried", anchor="deltas.safety-phases",
     description="An output-phase rejection is an ordinary failure: a retry outside the "
     "safety middleware retries it.",
     input={"attempts": [{"end": False, "output": "s3cr3t"}, {"deltas": ["ok"]}],
            "validators": [{"kind": "deny", "patterns": ["s3cr3t"], "phases": ["output"]}]},
     intent={"executions": 2, "outcome": ok("ok"), "warnings": ["deltas.streaming-disabled"]})
case("deltas.failclosed", "no-budget-sever", anchor="deltas.fail-closed",
     description="Under fail-closed the channel is silent and no guard runs, the stream "
     "token budget's included: the call completes unsevered.",
     input={"attempts": [{"deltas": ["aaaaaaaa"]}], "maxStreamTokens": 1,
            "inspectsOutput": True},
     intent={"perCall": [], "warnings": ["deltas.streaming-disabled"],
             "outcome": ok("aaaaaaaa")})
case("deltas.failclosed", "redaction-keys-kept", anchor="deltas.redaction-inspects",
     description="pattern_redactor masks string values, not an object's keys.",
     input={"attempts": [{"end": False, "output": {"a@b.co": ["x a@b.co"]}}],
            "redact": [PII]},
     intent={"outcome": ok({"a@b.co": ["x [redacted]"]})})
case("deltas.input", "hold-back-unbounded", anchor="deltas.hold-back",
     description="With holdBack, a validator set the hold-back guard refuses (a rule of "
     "unbounded width) is refused when the middleware is built: malformed input.",
     input={"attempts": [{"deltas": ["a"]}], "holdBack": True,
            "validators": [{"kind": "deny", "patterns": ["a+"]}]},
     intent={"error": "argument.invalid"})
case("deltas.input", "hold-back-narrow-window", anchor="deltas.hold-back",
     description="With holdBack, a window narrower than the widest rule is refused when the "
     "middleware is built.",
     input={"attempts": [{"deltas": ["a"]}], "holdBack": True, "deltaWindow": 2,
            "validators": [{"kind": "deny", "patterns": ["abc"]}]},
     intent={"error": "argument.invalid"})
case("deltas.holdback", "flush-to-configured", anchor="deltas.hold-back",
     description="The held rest flushed on success is a text chunk like any other: both "
     "sinks receive it, per-call first; only the per-call sink gets the terminal chunk.",
     input={"attempts": [{"deltas": ["hello ", "world"]}], "holdBack": True,
            "configured": "collect", "validators": [KEY]},
     intent={"perCall": [t("hell"), t("o world"), done()],
             "configured": [t("hell"), t("o world")], "outcome": ok("hello world")})
case("deltas.window", "late-not-guarded", anchor="deltas.writer",
     description="A write after the call settled is dropped before any guard sees it: a "
     "late text far over the stream token budget does not sever anything.",
     input={"attempts": [{"deltas": ["a"]}], "maxStreamTokens": 1,
            "late": ["bbbbbbbbbbbbbbbbbbbbbbbb"]},
     intent={"perCall": [t("a"), done()], "outcome": ok("a")})
case("deltas.window", "late-after-sever-dropped", anchor="deltas.writer",
     description="A write after the call settled is dropped even when a guard severed the "
     "attempt: the live window (step 2) is checked before the sever (step 3), so the late "
     "write does not raise the sever again.",
     input={"attempts": [{"deltas": ["fine ", "s3cr3t"]}], "validators": [SECRET],
            "late": ["more"]},
     intent={"perCall": [t("fine ")], "outcome": err("governance.delta-severed")})
case("deltas.input", "attempt-no-members", anchor="deltas.vector-run",
     description="Every member of an attempt is optional: no deltas, an end chunk, return.",
     input={"attempts": [{"output": "x"}]},
     intent={"perCall": [done()], "executions": 1, "outcome": ok("x")})
case("deltas.input", "usage-end-false", anchor="deltas.vector-run",
     description="An attempt usage given with end false is read and checked, then unused: "
     "no end chunk, so the terminal chunk carries no usage.",
     input={"attempts": [{"deltas": ["a"], "end": False, "usage": USAGE}]},
     intent={"perCall": [t("a"), done()], "outcome": ok("a")})
case("deltas.input", "retry-zero", anchor="deltas.vector-run",
     description="retry is an integer in [1, len(attempts)]: 0 is malformed.",
     input={"attempts": [{"deltas": ["a"]}], "retry": 0},
     intent={"error": "argument.invalid"})
case("deltas.input", "abort-execution-without-scope", anchor="deltas.vector-run",
     description="An abort of the execution needs a call through a scope.",
     input={"attempts": [{"deltas": [{"abort": "r", "source": "execution"}]}]},
     intent={"error": "argument.invalid"})
case("deltas.input", "scope-durable", anchor="deltas.vector-run",
     description="A scope's calls are transient: scope true with a durable mode is malformed.",
     input={"attempts": [{"deltas": ["a"]}], "scope": True, "mode": "durable"},
     intent={"error": "argument.invalid"})
case("deltas.input", "pattern-outside-dialect", anchor="deltas.vector-run",
     description="Validators are read by chapter 4's encoding with its codes: a deny "
     "pattern outside the portable dialect is argument.pattern.",
     input={"attempts": [{"deltas": ["a"]}],
            "validators": [{"kind": "deny", "patterns": ["a.b"]}]},
     intent={"error": "argument.pattern"})
case("deltas.input", "delta-window-zero", anchor="deltas.vector-run",
     description="deltaWindow is an integer >= 1.",
     input={"attempts": [{"deltas": ["a"]}], "deltaWindow": 0, "validators": [SECRET]},
     intent={"error": "argument.invalid"})
case("deltas.guards", "budget-zero", anchor="deltas.vector-run",
     description="maxStreamTokens is an integer >= 0: a budget of 0 is allowed and severs "
     "before the first delta.",
     input={"attempts": [{"deltas": ["a"]}], "maxStreamTokens": 0},
     intent={"perCall": [], "outcome": err("governance.stream-token-budget")})
case("deltas.input", "redact-empty", anchor="deltas.vector-run",
     description="redact [] configures a redaction middleware whose redactor masks "
     "nothing: it inspects output, so streaming is refused.",
     input={"attempts": [{"deltas": ["a"]}], "redact": []},
     intent={"perCall": [], "warnings": ["deltas.streaming-disabled"], "outcome": ok("a")})
case("deltas.input", "max-width-null", anchor="errors.vector-null",
     description="A validator's maxWidth may be null (absent), as in chapter 4's encoding.",
     input={"attempts": [{"deltas": ["a"]}],
            "validators": [{"kind": "deny", "patterns": ["a+"], "maxWidth": None}]},
     intent={"perCall": [], "outcome": err("governance.delta-severed")})
case("deltas.input", "rewrite-empty-old", anchor="deltas.vector-run",
     description="A rewrite's old text is a non-empty string.",
     input={"attempts": [{"deltas": ["ab"]}], "rewrite": {"replace": ["", "-"]}},
     intent={"error": "argument.invalid"})
case("deltas.input", "kill-empty-reason", anchor="deltas.vector-run",
     description="A kill reason, like every refusal reason, is a non-empty string.",
     input={"attempts": [{"deltas": ["a"]}], "kill": ""},
     intent={"error": "argument.invalid"})
case("deltas.record", "origin-empty", anchor="deltas.json", function="deltas.record",
     description="A chunk's origin is a non-empty string.",
     input={"delta": "x", "origin": ""}, intent={"error": "argument.invalid"})
case("deltas.record", "reset-false-with-attempt", anchor="deltas.json",
     function="deltas.record",
     description="reset false reads as absent, so its attempt is an attempt on a text chunk.",
     input={"delta": "x", "origin": "o", "reset": False, "attempt": 2},
     intent={"error": "argument.invalid"})
llm("straggler-not-delivered", anchor="deltas.collect-text",
    description="Decision 11 (the reconstruction equals the recorded decision): a "
    "text-delta after its block's block-end is a straggler the fold ignores, so it is not "
    "delivered either.",
    input={"scripts": [{"chunks": [start(0), delta(0, "Hi"), end(0, tx("Hi")),
                                   delta(0, " there"), finish()]}]},
    intent={"perCall": [pt("Hi"), pdone()], "outcome": ok(msg(tx("Hi")))})
llm("text-into-reasoning-not-delivered", anchor="deltas.collect-text",
    description="A text-delta into a reasoning block is reasoning text in the message, so "
    "it is not delivered; the text block's delta is.",
    input={"scripts": [{"chunks": [start(0, "reasoning"), delta(0, "think"),
                                   end(0, {"type": "reasoning", "text": "think"}),
                                   start(1), delta(1, "Hi"), end(1, tx("Hi")), finish()]}]},
    intent={"perCall": [pt("Hi"), pdone()],
            "outcome": ok(msg({"type": "reasoning", "text": "think"}, tx("Hi")))})
llm("text-into-tool-call-not-delivered", anchor="deltas.collect-text",
    description="A text-delta into a tool-call block changes nothing in the fold, so it is "
    "not delivered.",
    input={"scripts": [{"chunks": [start(0, "tool-call"), delta(0, "x"), finish()]}]},
    intent={"perCall": [pdone()], "outcome": ok(msg(
        {"type": "tool-call", "id": "call-0", "name": "", "arguments": ""}))})
llm("assembler-error-code", anchor="deltas.llm-output",
    description="A chunk the assembler cannot fold fails the call with the assembler's "
    "error, whose code is the rule's id.",
    input={"scripts": [{"chunks": [{"type": "text-delta", "index": -1, "text": "x"},
                                   finish()]}]},
    intent={"perCall": [], "outcome": err("stream.index-non-negative-integer")})
llm("no-runtime-abort", anchor="deltas.no-runtime",
    description="Without a runtime there is no live window: the direct writer delivers to "
    "both sinks though a sink aborted the signal; the collector's check before the next "
    "chunk stops the stream, and nothing chains a cause. How many chunks are pulled is "
    "loom-ref's choice (deltas.llm/abort-found-before-the-next-pull), left open here.",
    input={"runtime": False, "deltaSink": "collect", "abortOn": "b",
           "scripts": [{"chunks": text_script(["a", "b", "c"]), "honorSignal": False}]},
    intent={"perCall": [pt("a"), pt("b")], "deltaSink": [pt("a"), pt("b")],
            "outcome": {**err("effect.aborted"), "reason": "stop at 'b'"},
            "adapter": {"calls": 1, "pulled": {"$any": None}, "models": ["m1"]}})
llm("on-reset-without-sink", anchor="deltas.llm-sinks",
    description="onReset with deltaSink none: the effect's configured sink only routes "
    "resets to on_reset; deltaSink is null and resets lists the attempts.",
    input={"retry": 2, "onReset": True,
           "scripts": [{"chunks": LOST}, {"chunks": text_script(["b"])}]},
    intent={"perCall": [pt("dra"), preset(2), pt("b"), pdone()], "deltaSink": None,
            "resets": [2], "outcome": ok(msg(tx("b")))})
llm("feedback-without-text", anchor="deltas.vector-llm",
    description="feedBack needs a text chunk on the per-call sink: a first call that "
    "streamed no text leaves nothing to feed back, and the input is malformed.",
    input={"feedBack": True, "scripts": [{"chunks": [finish()]},
                                         {"chunks": text_script(["x"])}]},
    intent={"error": "argument.invalid"})
llm("feedback-per-call-none", anchor="deltas.vector-llm",
    description="feedBack takes the per-call sink's first text chunk: with perCall none "
    "(the configured sink heard the text) the input is malformed.",
    input={"feedBack": True, "perCall": "none", "deltaSink": "collect",
           "scripts": [{"chunks": text_script(["go"])}, {"chunks": text_script(["x"])}]},
    intent={"error": "argument.invalid"})
llm("tainted-encoding-is-data", anchor="deltas.vector-llm",
    description="deltas.llm's input is plain JSON: a {\"$tainted\"} object is data, not a "
    "tainted value, so the message does not decode (argument.invalid, not "
    "governance.tainted-request).",
    input={"input": {"messages": [{"role": "user", "content": [
        {"type": "text", "text": {"$tainted": {"value": "x", "origin": "llm:o"}}}]}]},
           "scripts": [{"chunks": text_script(["a"])}]},
    intent={"outcome": err("argument.invalid"),
            "adapter": {"calls": 0, "pulled": 0, "models": []}})
llm("no-runtime-feedback-usage", anchor="deltas.vector-llm",
    description="Every member but feedBack describes the first call only: without a "
    "runtime too, usage lists the first call's attempt alone.",
    input={"runtime": False, "feedBack": True,
           "scripts": [{"chunks": text_script(["go"], USAGE)}]},
    intent={"usage": [USAGE], "feedBack": {
        "outcome": {"ok": False, "code": "governance.tainted-request"}, "adapterCalls": 0}})
llm("exhausted-call-counted", anchor="deltas.vector-llm",
    description="A call past the last script is still an adapter call (counted, its model "
    "listed) and fails effect.llm-error with failure code stream.scripted.exhausted.",
    input={"retry": 2, "scripts": [{"chunks": LOST}]},
    intent={"adapter": {"calls": 2, "pulled": 3, "models": ["m1", "m1"]},
            "outcome": {**err("effect.llm-error"), "failure": {
                "code": "stream.scripted.exhausted", "message": {"$type": "string"}}}})
llm("retry-default-one", anchor="deltas.vector-llm",
    description="deltas.llm's retry defaults to 1, not to the number of scripts: a first "
    "call that fails is not retried, and the second script is never streamed.",
    input={"scripts": [{"chunks": LOST}, {"chunks": text_script(["ok"])}]},
    intent={"adapter": {"calls": 1, "pulled": 3, "models": ["m1"]},
            "outcome": {**err("effect.llm-error"), "failure": {
                "code": None, "message": "lost"}}})
llm("no-runtime-retry", anchor="deltas.vector-llm",
    description="Without a runtime no middleware is allowed: retry above 1 is malformed.",
    input={"runtime": False, "retry": 2, "scripts": [{"chunks": text_script(["a"])}]},
    intent={"error": "argument.invalid"})
llm("retry-zero", anchor="deltas.vector-llm",
    description="retry is an integer >= 1.",
    input={"retry": 0, "scripts": [{"chunks": text_script(["a"])}]},
    intent={"error": "argument.invalid"})
llm("abort-on-without-per-call", anchor="deltas.vector-llm",
    description="abortOn with perCall none is not malformed: the sink that would abort is "
    "absent, so it never fires.",
    input={"abortOn": "a", "perCall": "none", "scripts": [{"chunks": text_script(["a"])}]},
    intent={"perCall": None, "outcome": ok(msg(tx("a")))})
llm("abort-on-empty", anchor="deltas.vector-llm",
    description="abortOn is a non-empty string, checked whether or not a per-call sink "
    "would read it.",
    input={"abortOn": "", "perCall": "none", "scripts": [{"chunks": text_script(["a"])}]},
    intent={"error": "argument.invalid"})
llm("tool-description-not-string", anchor="deltas.llm-input",
    description="A tool's description is a string.",
    input={"input": {**PROMPT, "tools": [{"name": "f", "description": 5}]},
           "scripts": [{"chunks": text_script(["a"])}]},
    intent={"outcome": err("argument.invalid"),
            "adapter": {"calls": 0, "pulled": 0, "models": []}})
llm("tool-parameters-not-object", anchor="deltas.llm-input",
    description="A tool's parameters is a JSON object.",
    input={"input": {**PROMPT, "tools": [{"name": "f", "parameters": "x"}]},
           "scripts": [{"chunks": text_script(["a"])}]},
    intent={"outcome": err("argument.invalid"),
            "adapter": {"calls": 0, "pulled": 0, "models": []}})
llm("messages-empty", anchor="deltas.llm-input",
    description="messages may be empty.",
    input={"input": {"messages": []}, "scripts": [{"chunks": text_script(["a"])}]},
    intent={"outcome": ok(msg(tx("a")))})

# -- issue 30: what the coverage of the suite found unpinned -------------------------------------

case("deltas.input", "attempts-number", anchor="deltas.vector-run",
     description="\"attempts\" is a non-empty list: a number is malformed.",
     input={"attempts": 1}, intent={"error": "argument.invalid"})
case("deltas.input", "unknown-outcome", anchor="deltas.vector-run",
     description="An attempt's outcome is \"return\" or \"raise\": another is malformed.",
     input={"attempts": [{"deltas": ["a"], "outcome": "hang"}]},
     intent={"error": "argument.invalid"})
case("deltas.input", "unknown-sink-mode", anchor="deltas.vector-run",
     description="A sink's mode is \"collect\", \"raise\" or \"none\": another is malformed.",
     input={"attempts": [{"deltas": ["a"]}], "configured": "keep"},
     intent={"error": "argument.invalid"})
case("deltas.input", "validators-object", anchor="deltas.vector-run",
     description="\"validators\" is a list: a single validator object is malformed.",
     input={"attempts": [{"deltas": ["a"]}], "validators": SECRET},
     intent={"error": "argument.invalid"})
case("deltas.input", "retry-past-attempts", anchor="deltas.vector-run",
     description="\"retry\" cannot exceed the number of scripted attempts: a retry of 2 over "
     "one attempt is malformed.",
     input={"attempts": [{"deltas": ["a"], "outcome": "raise"}], "retry": 2},
     intent={"error": "argument.invalid"})
case("deltas.input", "retry-equal-attempts", anchor="deltas.vector-run",
     description="\"retry\" may equal the number of scripted attempts (the bound of "
     "retry-past-attempts): two attempts, the first failing, and a retry of 2 run both.",
     input={"attempts": [{"deltas": ["a"], "outcome": "raise"}, {"deltas": ["b"]}],
            "retry": 2},
     intent={"executions": 2, "outcome": ok("b")})
case("deltas.input", "late-not-strings", anchor="deltas.vector-run",
     description="\"late\" is a list of strings: a number in it is malformed.",
     input={"attempts": [{"deltas": ["a"]}], "late": ["x", 1]},
     intent={"error": "argument.invalid"})
case("deltas.input", "kill-not-string", anchor="deltas.vector-run",
     description="\"kill\" is the kill reason, a string: a boolean is malformed.",
     input={"attempts": [{"deltas": ["a"]}], "kill": True},
     intent={"error": "argument.invalid"})
case("deltas.guards", "sever-swallowed-no-end", anchor="deltas.sever-sticky",
     description="An effect that catches the sever and returns at once (no more writes, no "
     "end) still fails with the sever: the runtime raises it when the effect returns.",
     input={"attempts": [{"deltas": ["fine ", "s3cr3t"], "catchSever": True, "end": False}],
            "validators": [SECRET]},
     intent={"perCall": [t("fine ")], "outcome": err("governance.delta-severed")})
case("deltas.failclosed", "nothing-to-refuse-guarded", anchor="deltas.fail-closed",
     description="A call with no sink at all has nothing to refuse, even when a delta guard "
     "is configured beside the middleware that refuses streaming: no warning.",
     input={"attempts": [{"deltas": ["a"]}], "inspectsOutput": True, "perCall": "none",
            "validators": [SECRET]},
     intent={"warnings": [], "outcome": ok("a")}, tier="should")
case("deltas.failclosed", "redaction-non-strings-kept", anchor="deltas.redaction-inspects",
     description="The redactor masks every string value; a number, a boolean and null are "
     "returned as they are.",
     input={"attempts": [{"deltas": [], "end": False,
                          "output": {"n": 5, "ok": True, "none": None, "mail": "a@b.co"}}],
            "redact": [PII]},
     intent={"outcome": ok({"n": 5, "ok": True, "none": None, "mail": "[redacted]"})})
case("deltas.phases", "output-list-strings-checked", anchor="deltas.output-text",
     description="An output that is neither a string nor an object (a list) has every string "
     "checked on its own.",
     input={"attempts": [{"deltas": [], "end": False, "output": ["fine", "the s3cr3t"]}],
            "validators": [SECRET]},
     intent={"outcome": err("governance.safety-violation")})
case("deltas.phases", "output-text-block-not-string", anchor="deltas.output-text",
     description="A text block whose text is not a string adds nothing to the joined text: "
     "'s3c' and 'r3t' around it still join into a match.",
     input={"attempts": [{"deltas": [], "end": False, "output": {
         "role": "assistant", "content": [{"type": "text", "text": "the s3c"},
                                          {"type": "text", "text": 5},
                                          {"type": "text", "text": "r3t"}]}}],
            "validators": [SECRET]},
     intent={"outcome": err("governance.safety-violation")})
case("deltas.input", "redact-without-output-form", anchor="deltas.vector-run",
     description="A redact validator needs an output form: one whose phases leave out "
     "\"output\" gives pattern_redactor no rule to mask, so the input is malformed.",
     input={"attempts": [{"deltas": ["a@b.co"]}], "redact": [{**PII, "phases": ["input"]}]},
     intent={"error": "argument.invalid"})
case("deltas.input", "redact-output-form-only", anchor="deltas.vector-run",
     description="A redact validator with the output form alone (phases [\"output\"]) is "
     "accepted and masks its matches.",
     input={"attempts": [{"deltas": ["mail ", "a@b.co"]}],
            "redact": [{**PII, "phases": ["output"]}]},
     intent={"perCall": [], "outcome": ok("mail [redacted]")})
bad_record("unknown-member", "An unknown member of the chunk's JSON form is refused, not "
           "ignored (section 3a.10: unknown keys are malformed).", {**t("a"), "index": 0})
bad_record("input-not-object", "The input is the chunk's JSON form, an object: a string is "
           "malformed.", "a")
bad_record("usage-malformed", "A terminal's usage is the usage wire form: a counter that is "
           "a string is malformed.", {**done(), "usage": {"inputTokens": "12"}})
bad_record("attempt-string", "A reset's attempt is an integer: a string is malformed.",
           {"delta": "", "origin": ORIGIN, "reset": True, "attempt": "2"})
llm("vector-model-null", anchor="errors.vector-null",
    description="model null is a value of the wrong type, not an absent member.",
    input={"model": None, "scripts": [{"chunks": text_script(["a"])}]},
    intent={"error": "argument.invalid"})
llm("scripts-empty", anchor="deltas.vector-llm",
    description="scripts is a non-empty list: with none the adapter has nothing to play.",
    input={"scripts": []},
    intent={"error": "argument.invalid"})
llm("input-not-object", anchor="deltas.llm-input",
    description="An LLM effect's input is an object ({messages, ...}): a string is "
    "argument.invalid, and the adapter is not called.",
    input={"input": "plan?", "scripts": [{"chunks": text_script(["a"])}]},
    intent={"perCall": [], "outcome": err("argument.invalid"),
            "adapter": {"calls": 0, "pulled": 0, "models": []}})
llm("abort-stops-delta-sink", anchor="deltas.live-window",
    description="The check is made before each sink: the per-call sink aborts the signal on "
    "'Hel', so the configured sink after it never receives 'Hel', and the call is aborted "
    "(whether the effect's own abort is chained as the cause is loom-ref's choice, "
    "effects.signal-abort-cause, left open here).",
    input={"scripts": [{"chunks": text_script(["Hel", "lo"])}], "abortOn": "Hel",
           "deltaSink": "collect"},
    intent={"perCall": [pt("Hel")], "deltaSink": [],
            "outcome": {"$partial": {"ok": False, "code": "effect.aborted",
                                     "reason": "stop at 'Hel'"}}})
llm("output-only-validator-warns", anchor="deltas.fail-closed",
    description="A validator with an output form and no delta form refuses streaming for the "
    "LLM effect too: nothing reaches the per-call sink, the runtime warns, and the message "
    "is returned.",
    input={"scripts": [{"chunks": text_script(["Hel", "lo"])}],
           "validators": [{"kind": "pii", "delta": False}]},
    intent={"perCall": [], "warnings": ["deltas.streaming-disabled"],
            "outcome": ok(msg(tx("Hello")))})


# -- issue 29, the fresh blind reading (spec/blind/effects-deltas.md, *Fresh blind reading*) ----

case("deltas.guards", "swallowed-sever-then-abort", anchor="deltas.sever-sticky",
     description="An effect swallows a sever, then the caller's signal aborts and it "
     "returns: the abort check comes first, so the call fails effect.aborted with the "
     "reason, not with the sever.",
     input={"attempts": [{"catchSever": True, "deltas": ["s3cr3t", {"abort": "stop"}]}],
            "validators": [SECRET]},
     intent={"perCall": [], "outcome": {**err("effect.aborted"), "reason": "stop"}})
case("deltas.phases", "abort-over-raise-no-cause", anchor="deltas.vector-run",
     description="The caller aborts, then the effect raises: the call fails effect.aborted "
     "with the reason, and deltas.run's outcome carries no cause (its members are ok, code "
     "and reason only, unlike deltas.llm's).",
     input={"attempts": [{"deltas": ["a", {"abort": "stop"}], "outcome": "raise"}]},
     intent={"perCall": [t("a")], "outcome": {**err("effect.aborted"), "reason": "stop"}})
case("deltas.input", "hold-back-second-safety-no-delta-form", anchor="deltas.vector-run",
     description="holdBack applies to secondSafety too: with holdBack true, a secondSafety "
     "validator that has no delta form (pii on the input phase only) makes the input "
     "malformed, as one of validators does.",
     input={"attempts": [{"deltas": ["a"]}], "holdBack": True, "validators": [],
            "secondSafety": [{"kind": "pii", "phases": ["input"]}]},
     intent={"error": "argument.invalid"})
case("deltas.guards", "input-only-validator-not-guarding", anchor="deltas.safety-delta-guard",
     description="A validator without a delta form (phases without delta) takes no part in "
     "the safety middleware's delta guard: its text streams unchecked.",
     input={"attempts": [{"deltas": ["123-45-6789"]}],
            "validators": [{"kind": "pii", "phases": ["input"]}]},
     intent={"perCall": [t("123-45-6789"), done()], "warnings": [],
             "outcome": ok("123-45-6789")})
case("deltas.phases", "output-key-checked", anchor="deltas.output-text",
     description="The output form checks every string of the output walked as taint.walk, "
     "mapping keys included: a key holding the secret is a violation.",
     input={"attempts": [{"end": False, "output": {"s3cr3t": 1}}], "perCall": "none",
            "validators": [{"kind": "deny", "patterns": ["s3cr3t"], "phases": ["output"]}]},
     intent={"outcome": err("governance.safety-violation")})
case("deltas.input", "catch-sever-swallows-invalid-write", anchor="deltas.vector-run",
     description="catchSever swallows every exception from the channel, the argument.invalid "
     "of a write entry included: the effect carries on and the call succeeds.",
     input={"attempts": [{"catchSever": True, "deltas": ["a", {"write": 1}, "b"]}]},
     intent={"perCall": [t("a"), t("b"), done()], "outcome": ok("ab")})
case("deltas.input", "order-duplicate", anchor="deltas.vector-run",
     description="order names each configured middleware once: a name given twice is "
     "malformed input.",
     input={"attempts": [{"deltas": ["a"]}], "validators": [], "order": ["safety", "safety"]},
     intent={"error": "argument.invalid"})
# issue 29, fresh blind reading 32: a retry configured by default must be named by order
case("deltas.input", "order-default-retry", anchor="deltas.vector-run",
     description="With two attempts and no retry key, retry defaults to len(attempts) = 2 and "
     "configures a retry middleware, so an order that does not name retry is malformed.",
     input={"attempts": [{"deltas": ["a"]}, {"deltas": ["b"]}], "validators": [],
            "order": ["safety"]},
     intent={"error": "argument.invalid"})
case("deltas.input", "order-retry-one", anchor="deltas.vector-run",
     description="Contrast: retry 1 configures no retry middleware, so the same order without "
     "retry is well formed.",
     input={"attempts": [{"deltas": ["a"]}, {"deltas": ["b"]}], "validators": [], "retry": 1,
            "order": ["safety"]},
     intent={"perCall": [t("a"), done()], "outcome": ok("a")})
case("deltas.input", "second-safety-not-a-list", anchor="deltas.vector-run",
     description="secondSafety is a list of validators: an object is malformed input.",
     input={"attempts": [{"deltas": ["a"]}], "validators": [],
            "secondSafety": {"kind": "deny", "patterns": ["xyz"]}},
     intent={"error": "argument.invalid"})
case("deltas.window", "durable-abort", anchor="deltas.cancellation",
     description="An abort entry aborts a durable call's signal too: nothing is delivered "
     "after it, and the call fails effect.aborted with the reason.",
     input={"mode": "durable", "configured": "collect",
            "attempts": [{"deltas": ["a", {"abort": "x"}, "b"]}]},
     intent={"perCall": None, "configured": [t("a")],
             "outcome": {**err("effect.aborted"), "reason": "x"}})
llm("on-reset-fail-closed-warns", anchor="deltas.fail-closed",
    description="With onReset the effect declares a configured sink (deltaSink none): under "
    "fail-closed it has a sink to refuse, so the call warns.",
    input={"onReset": True, "perCall": "none", "validators": [{"kind": "pii", "delta": False}],
           "input": {"messages": []}, "scripts": [{"chunks": text_script(["a"])}]},
    intent={"perCall": None, "deltaSink": None, "warnings": ["deltas.streaming-disabled"],
            "outcome": ok(msg(tx("a")))})
llm("abort-on-raising-sink", anchor="deltas.vector-llm",
    description="abortOn on a raising per-call sink: the sink records the chunk, aborts the "
    "signal, then raises (warned); the call fails effect.aborted with the reason.",
    input={"abortOn": "a", "perCall": "raise", "input": {"messages": []},
           "scripts": [{"chunks": text_script(["a", "b"]), "honorSignal": False}]},
    intent={"perCall": [pt("a")], "warnings": ["deltas.sink-raised"],
            "outcome": {**err("effect.aborted"), "reason": "stop at 'a'",
                        "cause": "effect.aborted"}})
case("deltas.llm", "no-input", anchor="deltas.vector-llm", function="deltas.llm",
     description="Without input the effect's input is null, which the effect refuses as the "
     "call's outcome: argument.invalid, the adapter never called.",
     input={"scripts": [{"chunks": text_script(["a"])}]},
     intent={"outcome": err("argument.invalid"),
             "adapter": {"calls": 0, "pulled": 0, "models": []}})
llm("system-null", anchor="deltas.llm-input",
    description="system may be absent, not null: a null system is malformed input of the "
    "effect, the call's outcome.",
    input={"input": {"messages": [], "system": None}, "scripts": [{"chunks": text_script(["a"])}]},
    intent={"outcome": err("argument.invalid"),
            "adapter": {"calls": 0, "pulled": 0, "models": []}})
llm("model-null", anchor="deltas.llm-input",
    description="model may be absent (the effect's), not null: a null model is malformed "
    "input of the effect, the call's outcome.",
    input={"input": {"messages": [], "model": None}, "scripts": [{"chunks": text_script(["a"])}]},
    intent={"outcome": err("argument.invalid"),
            "adapter": {"calls": 0, "pulled": 0, "models": []}})


# -- issue 29, the second fresh blind reading (spec/blind/effects-deltas.md) ---------------------

case("deltas.input", "modes-null", anchor="deltas.vector-run",
     description="modes may be absent (both modes), not null: a null optional member is a "
     "value of the wrong type (errors.vector-null), so the input is malformed.",
     input={"attempts": [{"deltas": ["a"]}], "modes": None},
     intent={"error": "argument.invalid"})

# -- issue 29, the third fresh blind reading (spec/blind/effects-deltas.md) ----------------------

llm("reasoning-into-text-delivered", anchor="deltas.collect-text",
    description="A reasoning-delta into an open text block is text of the message (the fold "
    "appends it to the text block), so it is delivered like a text-delta: the reconstruction "
    "equals the message's text.",
    input={"scripts": [{"chunks": [start(0), delta(0, "think", "reasoning-delta"),
                                   delta(0, "a"), end(0, tx("thinka")), finish()]}]},
    intent={"perCall": [pt("think"), pt("a"), pdone()], "outcome": ok(msg(tx("thinka")))})
case("deltas.guards", "swallowed-sever-then-raise", anchor="deltas.sever-sticky",
     description="An effect swallows a sever, then raises an error of its own: that error is "
     "the attempt's failure; the runtime puts the sever in its place only when the effect "
     "returns.",
     input={"attempts": [{"catchSever": True, "deltas": ["fine ", "s3cr3t"], "end": False,
                          "outcome": "raise"}],
            "validators": [SECRET]},
     intent={"perCall": [t("fine ")], "outcome": err("effect.scripted-failure")})
case("deltas.input", "catch-sever-covers-end", anchor="deltas.vector-run",
     description="catchSever swallows every exception from the channel, the end chunk's "
     "write included: the sever it raises again is swallowed too, so the scripted raise is "
     "the call's failure.",
     input={"attempts": [{"catchSever": True, "deltas": ["s3cr3t"], "outcome": "raise"}],
            "validators": [SECRET]},
     intent={"perCall": [], "outcome": err("effect.scripted-failure")})
llm("raise-after-null", anchor="deltas.vector-llm",
    description="A script's raiseAfter is an integer >= 0 when present: null is malformed "
    "(errors.vector-null; stream.consume's own counts read null as absent, deltas.llm's "
    "scripts do not).",
    input={"scripts": [{"chunks": text_script(["a"]), "raiseAfter": None}]},
    intent={"error": "argument.invalid"})
llm("assembler-error-retried", anchor="deltas.llm-output",
    description="The assembler's error is the attempt's ordinary failure, so a retry retries "
    "it: the second attempt streams afresh after its reset chunk and succeeds.",
    input={"retry": 2,
           "scripts": [{"chunks": [start(0), delta(0, "x"),
                                   {"type": "text-delta", "index": -1, "text": "y"},
                                   finish()]},
                       {"chunks": text_script(["ok"])}]},
    intent={"perCall": [pt("x"), preset(2), pt("ok"), pdone()],
            "adapter": {"calls": 2, "pulled": 7, "models": ["m1", "m1"]},
            "outcome": ok(msg(tx("ok")))})


# -- issue 30: the survivors of samples 473986, 321483 and 238680 (effects) ----------------------

case("deltas.input", "delta-window-one", anchor="deltas.vector-run",
     description="deltaWindow is an integer >= 1: a window of 1, the smallest, is accepted (0 is "
     "argument.invalid, deltas.input/delta-window-zero). Its one character before the new "
     "delta is enough to see a 2-character rule split across two deltas (guards.running-text).",
     input={"attempts": [{"deltas": ["xa", "bx"]}], "deltaWindow": 1,
            "validators": [{"kind": "deny", "patterns": {"ab": "ab"}}]},
     intent={"perCall": [t("xa")], "outcome": err("governance.delta-severed")})

# -- issue 30: the survivors of samples 252125, 13564 and 97256 (effects, s10e) ---------------

case("deltas.input", "delta-window-zero-no-validators", anchor="deltas.vector-run",
     description="deltaWindow is an integer >= 1, checked whether or not validators are given: "
     "0 with no validators (so no safety middleware to refuse it) is argument.invalid "
     "(1 is accepted: deltas.input/delta-window-one).",
     input={"attempts": [{"deltas": ["a"]}], "deltaWindow": 0},
     intent={"error": "argument.invalid"})
case("deltas.input", "late-a-string", anchor="deltas.vector-run",
     description="\"late\" is a list of strings: a bare string is malformed, not a list of "
     "its characters (a list of strings is accepted: deltas.window/late-writes).",
     input={"attempts": [{"deltas": ["a"]}], "late": "late"},
     intent={"error": "argument.invalid"})
llm("feedback-metered", anchor="deltas.vector-llm",
    description="The runtime's meter has budget 2^62: a first call that reported usage "
    "(17 tokens) leaves the feedBack call admitted, so it reaches the effect and is refused "
    "by guard_request (governance.tainted-request), not by the meter (effect.over-budget).",
    input={"scripts": [{"chunks": text_script(["go"], USAGE)}], "feedBack": True},
    intent={"usage": [USAGE], "feedBack": {
        "outcome": {"ok": False, "code": "governance.tainted-request"}, "adapterCalls": 0}})

# The meter's budget, 2^62, is reached only by a call of more than 128 attempts each
# reporting close to the most a case can write (four counters near 2^53, INTERPRETING.md
# section 7): 130 attempts of 2^48 * 127 tokens each spend 2^62 + 126 * 2^48, the 131st is
# refused. Attempt 130 is admitted with 2^62 - 2^48 spent, far from 2^62 for a reader
# over doubles (whose spacing there is 2^10).
METER_USAGE = {"inputTokens": 2**53, "outputTokens": 2**53, "cacheReadTokens": 2**53,
               "cacheWriteTokens": 2**53 - 2**48}
METER_ATTEMPTS = 130
llm("meter-budget-reached", anchor="deltas.vector-llm",
    description="The runtime's meter has budget 2^62: each attempt streams a message the "
    "output phase rejects (governance.safety-violation, retried) after reporting "
    "2^48 * 127 tokens; the 131st attempt, with 2^62 + 126 * 2^48 spent, is refused "
    "effect.over-budget before the adapter is called, and the 130th, with 2^62 - 2^48 spent, "
    "was admitted.",
    input={"scripts": [{"chunks": [start(0), end(0, tx("x")),
                                   {"type": "usage", "usage": METER_USAGE}, finish()]}]
           * METER_ATTEMPTS,
           "retry": METER_ATTEMPTS + 1,
           "validators": [{"kind": "deny", "patterns": {"x": "x"}, "phases": ["output"]}]},
    intent={"usage": [METER_USAGE] * METER_ATTEMPTS,
            "adapter": {"calls": METER_ATTEMPTS, "pulled": 4 * METER_ATTEMPTS,
                        "models": ["m1"] * METER_ATTEMPTS},
            "outcome": err("effect.over-budget")})


# -- issue 30: mutation s11es, the effects survivors of a fresh 60-mutant sample ----------------

case("deltas.window", "late-end-after-sever", anchor="deltas.writer",
     description="The end chunk an effect writes after its call settled is dropped like a late "
     "text, before the sever check (deltas.writer: the end chunk takes steps 1-3, the live "
     "window before the sever): after a severed call it reaches no sink and raises nothing, "
     "not even the attempt's sever.",
     input={"attempts": [{"deltas": ["a", "s3cr3t"]}], "validators": [SECRET],
            "configured": "collect", "lateEnd": True},
     intent={"perCall": [t("a")], "configured": [t("a")], "warnings": [],
             "outcome": err("governance.delta-severed")})
case("deltas.window", "late-end-after-success", anchor="deltas.live-window",
     description="The end chunk an effect writes again after its call succeeded is dropped: the "
     "per-call sink saw the one terminal chunk the call's success sent, with the usage of the "
     "end chunk written during the call, and nothing after it.",
     input={"attempts": [{"deltas": ["a"], "usage": USAGE}], "configured": "collect",
            "lateEnd": True},
     intent={"perCall": [t("a"), done(USAGE)], "configured": [t("a")], "warnings": [],
             "outcome": ok("a")})
case("deltas.holdback", "release-in-steps-drop-on-sever", anchor="deltas.hold-back",
     description="Extension: each delivery is exactly the text the guard newly released: with "
     "KEY (8 wide, holds 7), 'hello world' releases 'hell', then 'KE' releases 'o ' only (6 "
     "released in all, 4 of them delivered before), so 'worldKE' stays held and is dropped "
     "when 'Y-1' completes the match.",
     input={"attempts": [{"deltas": ["hello ", "world", "KE", "Y-1"]}], "validators": [KEY],
            "holdBack": True, "configured": "collect"},
     intent={"perCall": [t("hell"), t("o ")], "configured": [t("hell"), t("o ")],
             "outcome": err("governance.delta-severed")}, tier="may")
case("deltas.input", "late-end-not-a-boolean", anchor="deltas.vector-run",
     description="\"lateEnd\" is a boolean: a string is malformed input (true is accepted: "
     "deltas.window/late-end-after-sever).",
     input={"attempts": [{"deltas": ["a"]}], "lateEnd": "true"},
     intent={"error": "argument.invalid"})


# -- issue 30: mutation s12e, the effects sweep s11 (a 100-mutant effects sample) ----------------

case("deltas.holdback", "second-safety-off-by-default", anchor="deltas.hold-back",
     description="Extension, off by default: without holdBack neither safety middleware holds "
     "back, the second one (secondSafety) included: the input of "
     "deltas.holdback/two-guards-second-wider without holdBack delivers each delta whole, as "
     "it is written, though KEY (8 wide) could start in the held part.",
     input={"attempts": [{"deltas": ["hello ", "world"]}],
            "validators": [{"kind": "deny", "patterns": ["xyz"]}], "secondSafety": [KEY]},
     intent={"perCall": [t("hello "), t("world"), done()], "outcome": ok("hello world")},
     tier="may")
case("deltas.input", "second-safety-no-delta-form-without-hold-back", anchor="deltas.vector-run",
     description="Without holdBack, a secondSafety validator that has no delta form (pii on the "
     "input phase only) is accepted and guards no delta: the input of "
     "deltas.input/hold-back-second-safety-no-delta-form without holdBack runs.",
     input={"attempts": [{"deltas": ["a"]}], "validators": [],
            "secondSafety": [{"kind": "pii", "phases": ["input"]}]},
     intent={"perCall": [t("a"), done()], "warnings": [], "outcome": ok("a")})


def check_intent(c: Case, expect: dict[str, Any]) -> None:
    intent, where = c["intent"], f"{c['group']}/{c['name']}"
    if "error" in intent:
        assert expect == {"error": {"code": intent["error"]}}, (where, expect)
        return
    assert "result" in expect, (where, expect)
    for key, value in intent.items():
        assert expect["result"].get(key) == value, (where, key, expect["result"].get(key), value)


def case_file(c: Case) -> tuple[Path, dict[str, Any]]:
    return vectorkit.case_file(c, check_intent)


def write_all() -> int:
    """Rewrite every case file of our groups (stale files of our groups are removed)."""
    return vectorkit.write_all(CASES, GROUPS, check_intent)


if __name__ == "__main__":
    sys.exit(vectorkit.main(sys.argv[1:], CASES, GROUPS, check_intent))
