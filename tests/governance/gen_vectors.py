"""The governance conformance vectors: defined here, checked against loom_ref, written as files.

Groups: ``taint.guard``, ``taint.unwrap``, ``validators.pii``, ``validators.deny``,
``validators.check``, ``guards.delta``, ``guards.budget``, ``guards.steps``, ``guards.holdback``
(the hold-back extension: tier ``may``), and ``validators.dialect`` (the portable pattern
dialect, defined in ``gen_dialect.py``).

Every case states its ``intent`` (the part of the verdict a human decided: ok or not, the rule,
the sever index, an error code); the ``expect`` written to the file is loom_ref's full answer,
and generation fails if that answer contradicts the intent. So a bug in loom_ref cannot
silently become a vector, and ``test_vectors.py`` keeps the files and loom_ref in step.

Rewrite the files: ``python -m tests.governance.gen_vectors --write`` (or ``LOOM_REGEN=1``
with pytest). Check only: run without ``--write``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from .. import vectorkit
from . import (
    gen_dialect,
    gen_mutation4,
    gen_mutation_s4,
    gen_mutation_s7g,
    gen_mutation_s10g,
    gen_mutation_s11g,
    gen_mutation_s12g,
)

GROUPS = (
    "taint.guard",
    "taint.unwrap",
    "validators.pii",
    "validators.deny",
    "validators.check",
    "guards.delta",
    "guards.budget",
    "guards.steps",
    "guards.holdback",
    "validators.dialect",
)

Case = dict[str, Any]
CASES: list[Case] = []


def case(
    group: str,
    name: str,
    *,
    anchor: str,
    description: str,
    function: str,
    input: dict[str, Any],
    intent: dict[str, Any],
    tier: str = "must",
    requires: tuple[str, ...] = (),
) -> None:
    """Register one case; ``intent`` is ``{"error": code}`` (with ``"details": {...}``, the
    error details the case pins) or a subset of the result; ``requires`` lists capabilities
    beyond the function's."""
    details = intent.get("details", {}) if "error" in intent else {}
    CASES.append(
        {
            "group": group,
            "name": name,
            "anchor": anchor,
            "tier": tier,
            "description": description,
            "function": function,
            "input": input,
            "intent": intent,
            "requires": requires,
            "errorDetails": sorted(details),
        }
    )


def tainted(value: Any, origin: str = "llm:planner") -> dict[str, Any]:
    return {"$tainted": {"value": value, "origin": origin}}


def chars(text: str, size: int = 1) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


PII = {"kind": "pii"}

# ---- taint.guard --------------------------------------------------------------------------
T = "taint.guard_request"
REFUSED = {"ok": False, "code": "governance.tainted-request"}
#: The refusal's path and origin are loom-ref's details (taint.guard-details): a seed case of
#: taint.guard-request pins the refusal alone.
SEED_REFUSED = {"$partial": REFUSED}
case(
    "taint.guard",
    "clean-request",
    anchor="taint.guard-request",
    function=T,
    description="A request with no tainted value passes the fence.",
    input={"request": {"messages": [{"role": "user", "content": "hello"}], "n": 1}},
    intent={"ok": True},
)
case(
    "taint.guard",
    "tainted-root",
    anchor="taint.guard-request",
    function=T,
    description="A tainted value as the whole request is refused (the path and origin the "
    "refusal reports are loom-ref's details, taint.guard-details: taint.guard/path-of-the-root).",
    input={"request": tainted("hi")},
    intent=SEED_REFUSED,
)
case(
    "taint.guard",
    "tainted-message-content",
    anchor="taint.guard-request",
    function=T,
    description="A delta fed back into a prompt's message content is refused (the path that "
    "names the message is loom-ref's detail: taint.guard/path-names-the-message).",
    input={
        "request": {
            "messages": [
                {"role": "system", "content": "be brief"},
                {"role": "user", "content": tainted("partial text")},
            ]
        }
    },
    intent=SEED_REFUSED,
)
case(
    "taint.guard",
    "tainted-deeply-nested",
    anchor="taint.guard-request",
    function=T,
    description="Nesting depth does not hide a tainted value (its path is loom-ref's detail: "
    "taint.guard/path-through-nesting).",
    input={"request": {"a": [[[[[[[[{"b": [tainted("x", "llm:deep")]}]]]]]]]]}},
    intent=SEED_REFUSED,
)
case(
    "taint.guard",
    "tainted-content-part",
    anchor="taint.guard-request",
    function=T,
    description="A tainted part among plain content parts is refused.",
    input={"request": {"content": ["plain", {"type": "text", "text": tainted("t")}]}},
    intent=SEED_REFUSED,
)
case(
    "taint.guard",
    "tainted-object-value",
    anchor="taint.guard-request",
    function=T,
    description="A tainted value may wrap any JSON value, not only a string.",
    input={"request": {"tool": tainted({"name": "x", "args": [1, 2]}, "llm:router")}},
    intent=SEED_REFUSED,
)
case(
    "taint.guard",
    "tainted-null-value",
    anchor="taint.guard-request",
    function=T,
    description="Even a tainted null is refused: it is the wrapper that is fenced.",
    input={"request": {"x": tainted(None)}},
    intent=SEED_REFUSED,
)
case(
    "taint.guard",
    "path-of-the-root",
    anchor="taint.guard-details",
    function=T,
    description='A tainted value as the whole request is refused at path "", with its origin.',
    input={"request": tainted("hi")},
    intent={**REFUSED, "path": "", "origin": "llm:planner"},
)
case(
    "taint.guard",
    "path-names-the-message",
    anchor="taint.guard-details",
    function=T,
    description="A delta fed back into a prompt's message content is refused at the JSON "
    "pointer of that content, which names the message.",
    input={
        "request": {
            "messages": [
                {"role": "system", "content": "be brief"},
                {"role": "user", "content": tainted("partial text")},
            ]
        }
    },
    intent={**REFUSED, "path": "/messages/1/content", "origin": "llm:planner"},
)
case(
    "taint.guard",
    "path-through-nesting",
    anchor="taint.guard-details",
    function=T,
    description="The path of a deeply nested tainted value names every level, with its origin.",
    input={"request": {"a": [[[[[[[[{"b": [tainted("x", "llm:deep")]}]]]]]]]]}},
    intent={**REFUSED, "path": "/a/0/0/0/0/0/0/0/0/b/0", "origin": "llm:deep"},
)
case(
    "taint.guard",
    "pointer-escaping",
    anchor="taint.guard-details",
    function=T,
    description="Path segments are RFC 6901 escaped: '/' as ~1 and '~' as ~0.",
    input={"request": {"a/b": {"c~d": tainted("x")}}},
    intent={**REFUSED, "path": "/a~1b/c~0d"},
)
case(
    "taint.guard",
    "first-in-document-order",
    anchor="taint.guard-details",
    function=T,
    description="With several tainted values, the first in document order (object members in "
    "their order, arrays by index) is reported.",
    input={"request": {"a": [1, tainted("x", "llm:first")], "b": tainted("y", "llm:second")}},
    intent={**REFUSED, "path": "/a/1", "origin": "llm:first"},
)
case(
    "taint.guard",
    "lookalike-is-plain",
    anchor="taint.vector-encoding",
    function=T,
    description='Only an object whose single key is "$tainted" encodes a tainted value; a '
    "string or another key that looks like it is plain data.",
    input={"request": {"note": "$tainted", "$taintedish": {"value": 1, "origin": "llm:x"}}},
    intent={"ok": True},
)
case(
    "taint.guard",
    "malformed-missing-origin",
    anchor="taint.vector-encoding",
    function=T,
    description='A "$tainted" object without an origin is malformed input.',
    input={"request": {"x": {"$tainted": {"value": "v"}}}},
    intent={"error": "argument.invalid"},
)
case(
    "taint.guard",
    "malformed-extra-key",
    anchor="taint.vector-encoding",
    function=T,
    description='"$tainted" must be the only key of its object.',
    input={"request": {"$tainted": {"value": "v", "origin": "llm:x"}, "other": 1}},
    intent={"error": "argument.invalid"},
)
case(
    "taint.guard",
    "empty-origin",
    anchor="taint.tainted-value",
    function=T,
    description="A tainted value's origin must be a non-empty string.",
    input={"request": tainted("v", "")},
    intent={"error": "argument.invalid"},
)
case(
    "taint.guard",
    "double-wrap",
    anchor="taint.no-double-wrap",
    function=T,
    description="A tainted value is never wrapped again.",
    input={"request": tainted(tainted("v", "llm:a"), "llm:b")},
    intent={"error": "argument.invalid"},
)

# ---- validators.pii -----------------------------------------------------------------------
OUT = "validators.check_output"
PII_VIOLATION = {"ok": False, "code": "governance.safety-violation", "validator": "pii"}


def pii_case(name: str, anchor: str, description: str, text: str, intent: dict[str, Any],
             requires: tuple[str, ...] = ()) -> None:
    case(
        "validators.pii",
        name,
        anchor=anchor,
        function=OUT,
        description=description,
        input={"validator": PII, "text": text},
        intent=intent,
        requires=requires,
    )


pii_case(
    "card-spaces",
    "validators.pii-card",
    "A Luhn-valid 16-digit card with spaces.",
    "card: 4111 1111 1111 1111.",
    {**PII_VIOLATION, "rule": "card", "span": [6, 25]},
)
pii_case(
    "card-dashes",
    "validators.pii-card",
    "A Luhn-valid card with dashes.",
    "6011-1111-1111-1117",
    {**PII_VIOLATION, "rule": "card", "span": [0, 19]},
)
pii_case(
    "card-plain-amex",
    "validators.pii-card",
    "A 15-digit Luhn-valid number.",
    "amex 378282246310005 ok",
    {**PII_VIOLATION, "rule": "card", "span": [5, 20]},
)
pii_case(
    "card-13-digits",
    "validators.pii-card",
    "13 digits is the shortest card.",
    "4222222222222",
    {**PII_VIOLATION, "rule": "card"},
)
pii_case(
    "card-luhn-fails",
    "validators.pii-card",
    "16 digits failing the Luhn check: not a card.",
    "4111 1111 1111 1112",
    {"ok": True},
)
pii_case(
    "card-12-digits",
    "validators.pii-card",
    "12 digits is too short for a card.",
    "411111111111",
    {"ok": True},
)
pii_case(
    "card-19-digits",
    "validators.pii-card",
    "19 digits (Luhn-valid) is the longest card: the accept side of the 20-digit refusal.",
    "4111111111111111110",
    {**PII_VIOLATION, "rule": "card", "span": [0, 19]},
)
pii_case(
    "card-20-digit-run-spaced",
    "validators.pii-card",
    "A Luhn-valid 19-digit card followed by a separator and a 20th digit: the run goes on "
    "past the match (a separator followed by a digit), so it is longer than 19 digits and "
    "no part of it is a card.",
    "4111 1111 1111 1111 110 5",
    {"ok": True},
)
pii_case(
    "card-20-digits",
    "validators.pii-card",
    "A run of 20 digits is not a card, and no 13-19 digit part of it is one.",
    "41111111111111111111",
    {"ok": True},
)
pii_case(
    "card-20-digits-luhn-valid",
    "validators.pii-card",
    "A run of 20 digits that passes Luhn as a whole (41111111111111111115) is still not a card: "
    "a card has at most 19 digits, and the run is maximal, so no 13-19 digit part of it is one.",
    "41111111111111111115",
    {"ok": True},
)
pii_case(
    "card-run-is-maximal",
    "validators.pii-card",
    "A valid card followed by ' 22' is one 18-digit run, which fails Luhn.",
    "4111 1111 1111 1111 22",
    {"ok": True},
)
pii_case(
    "card-double-separator",
    "validators.pii-card",
    "Two separators in a row end a run.",
    "4111  1111 1111 1111",
    {"ok": True},
)
pii_case(
    "card-non-ascii-digits",
    "validators.pii-card",
    "Only ASCII digits count.",
    "٤١١١١١١١١١١١١١١١",
    {"ok": True},
)
pii_case(
    "email",
    "validators.pii-email",
    "An email address.",
    "write to bob.smith+x@example.co.uk today",
    {**PII_VIOLATION, "rule": "email", "span": [9, 34]},
)
pii_case(
    "email-no-tld",
    "validators.pii-email",
    "A host without a dotted TLD is not matched.",
    "root@localhost",
    {"ok": True},
)
pii_case(
    "ssn",
    "validators.pii-ssn",
    "A US SSN ddd-dd-dddd.",
    "ssn 123-45-6789",
    {**PII_VIOLATION, "rule": "ssn", "span": [4, 15]},
)
pii_case(
    "ssn-adjacent-digit",
    "validators.pii-ssn",
    "An SSN shape touching another digit is not matched.",
    "1123-45-6789",
    {"ok": True},
)
pii_case(
    "clean",
    "validators.pii-card",
    "Ordinary text with small numbers passes.",
    "order 12345 shipped on 2026-10-06, qty 3",
    {"ok": True},
)
pii_case(
    "rule-order",
    "validators.rule-order",
    "Rules are tried in order card, email, ssn: the card is reported although the email "
    "comes first in the text.",
    "bob@example.com 4111111111111111",
    {**PII_VIOLATION, "rule": "card", "span": [16, 32]},
)

pii_case(
    "refused-candidate-resumes-after-its-start",
    "validators.rule-conditions",
    "A candidate the boundary refuses (123-45-6789 after a digit) does not end the scan: it "
    "resumes one character after the candidate's start and finds the next ssn.",
    "0123-45-6789  123-45-6789",
    {"ok": False, "rule": "ssn", "span": [14, 25]},
)
pii_case(
    "card-boundary-sees-digit-and-separator",
    "validators.rule-conditions",
    "The card boundary looks two characters back: a run after '1 ' continues a longer run and "
    "is refused; the separate run later is the card.",
    "1 4111 1111 1111 1111 and 4111111111111111",
    {"ok": False, "rule": "card", "span": [26, 42]},
)


# ---- validators.deny ----------------------------------------------------------------------
DENY_VIOLATION = {"ok": False, "code": "governance.safety-violation", "validator": "deny-patterns"}
#: A violation's details are loom-ref's (validators.violation): a seed case pins the refusal
#: alone and leaves every other member open (present or not).
OPEN_DENY_VIOLATION = {"$partial": {"ok": False, "code": "governance.safety-violation"}}
KEYS = {"api-key": "sk-[A-Za-z0-9]{8}", "password": "password=[^ ]{1,32}"}


def deny_case(
    name: str,
    description: str,
    validator: dict[str, Any],
    text: str,
    intent: dict[str, Any],
    anchor: str = "validators.deny",
) -> None:
    case(
        "validators.deny",
        name,
        anchor=anchor,
        function=OUT,
        description=description,
        input={"validator": {"kind": "deny", **validator}, "text": text},
        intent=intent,
    )


deny_case(
    "named-match",
    "A named pattern matches: the output is refused. The violation's details (the rule's "
    "name, the span, the validator's name) are loom-ref's (validators.violation), left open "
    "here; validators.deny/rule-named pins them.",
    {"patterns": KEYS},
    "key=sk-AbCd1234 here",
    OPEN_DENY_VIOLATION,
)
deny_case(
    "rule-named",
    "A named pattern matches; the rule is reported by its name, with the span of the match "
    "and the validator's name deny-patterns (loom-ref's violation details).",
    {"patterns": KEYS},
    "key=sk-AbCd1234 here",
    {**DENY_VIOLATION, "rule": "api-key", "span": [4, 15]},
    anchor="validators.violation",
)
deny_case(
    "no-match", "No pattern matches.", {"patterns": KEYS}, "nothing secret here", {"ok": True}
)
deny_case(
    "list-names-by-regex",
    "A list of patterns names each rule by its regex.",
    {"patterns": ["hunter[0-9]"]},
    "pw hunter2",
    {**DENY_VIOLATION, "rule": "hunter[0-9]", "span": [3, 10]},
)
deny_case(
    "case-sensitive-default",
    "Patterns are case-sensitive unless flagged.",
    {"patterns": ["secret"]},
    "a SECRET b",
    {"ok": True},
)
deny_case(
    "ignorecase-flag",
    "The IGNORECASE flag makes matching case-insensitive. The violation's details are "
    "loom-ref's (validators.violation), left open here.",
    {"patterns": ["secret"], "flags": ["IGNORECASE"]},
    "a SECRET b",
    OPEN_DENY_VIOLATION,
)
deny_case(
    "rule-order",
    "The first rule in order with a match is reported, not the earliest "
    "match in the text; an object's rules are in name order.",
    {"patterns": {"second": "aaa", "first": "zzz"}},
    "aaa zzz",
    {**DENY_VIOLATION, "rule": "first", "span": [4, 7]},
    anchor="validators.rule-order",
)
deny_case(
    "bad-regex",
    "A pattern that is not a regex at all (an unterminated group) is refused: outside the "
    "portable dialect, reason syntax.",
    {"patterns": ["("]},
    "x",
    {"error": "argument.pattern", "details": {"reason": "syntax"}},
    anchor="patterns.reasons",
)
deny_case(
    "duplicate-regex-refused",
    "A patterns list holding the same regex twice is refused: each regex names its rule, and "
    "rule names must be unique.",
    {"patterns": ["s", "s"]},
    "a",
    {"error": "argument.invalid"},
)
deny_case(
    "empty-match-refused",
    "A pattern that can match empty text is refused: it would match everything.",
    {"patterns": ["a*"]},
    "x",
    {"error": "argument.invalid"},
    anchor="validators.rule-nonempty",
)

# ---- guards.delta -------------------------------------------------------------------------
G = "guards.run"
SEVERED = "governance.delta-severed"


#: A seed case's ``rule``: the name a sever reports is loom-ref's (``validators.violation``),
#: pinned by ``guards.delta/deny-split-names-the-rule``.
OPEN_RULE = {"$any": None}


def run_case(
    group: str,
    name: str,
    anchor: str,
    description: str,
    input: dict[str, Any],
    intent: dict[str, Any],
    tier: str = "must",
    requires: tuple[str, ...] = (),
) -> None:
    case(
        group,
        name,
        anchor=anchor,
        function=G,
        description=description,
        input=input,
        intent=intent,
        tier=tier,
        requires=requires,
    )


run_case(
    "guards.delta",
    "clean-stream",
    "guards.before-delivery",
    "A clean stream is delivered delta by delta, unchanged.",
    {"validators": [PII], "deltas": ["Hello", ", wor", "ld!"]},
    {"delivered": ["Hello", ", wor", "ld!"], "severedAt": None, "code": None},
)
run_case(
    "guards.delta",
    "card-split-across-deltas",
    "guards.running-text",
    "A card split across deltas is seen whole in the running text and severed at the delta "
    "carrying its last digit, which is not delivered.",
    {"validators": [PII], "deltas": ["pay 4111 11", "11 1111 11", "11 now"]},
    {"delivered": ["pay 4111 11", "11 1111 11"], "severedAt": 2, "code": SEVERED, "rule": "card"},
)
run_case(
    "guards.delta",
    "ssn-char-by-char",
    "guards.running-text",
    "An SSN streamed one character at a time is severed at its last digit.",
    {"validators": [PII], "deltas": chars("ssn: 123-45-6789")},
    {"severedAt": 15, "code": SEVERED, "rule": "ssn"},
)
run_case(
    "guards.delta",
    "deny-split",
    "guards.running-text",
    "A deny pattern split over three deltas is caught.",
    {
        "validators": [{"kind": "deny", "patterns": {"key": "sk-[a-z]{6}"}}],
        "deltas": ["use sk", "-abc", "def now"],
    },
    {"delivered": ["use sk", "-abc"], "severedAt": 2, "code": SEVERED, "rule": OPEN_RULE},
)
run_case(
    "guards.delta",
    "deny-split-names-the-rule",
    "validators.violation",
    "A deny pattern split over three deltas is caught, and the sever names the pattern's "
    "rule by its name (loom-ref's violation details).",
    {
        "validators": [{"kind": "deny", "patterns": {"key": "sk-[a-z]{6}"}}],
        "deltas": ["use sk", "-abc", "def now"],
    },
    {"delivered": ["use sk", "-abc"], "severedAt": 2, "code": SEVERED, "rule": "key"},
)
run_case(
    "guards.delta",
    "first-delta",
    "guards.before-delivery",
    "A first delta that holds a match is never delivered.",
    {"validators": [PII], "deltas": ["123-45-6789 is mine", "more"]},
    {"delivered": [], "severedAt": 0, "code": SEVERED},
)
run_case(
    "guards.delta",
    "prefix-delivered",
    "guards.limit-prefix",
    "Limit: text before a match completes is delivered -- here the email's prefix up to "
    "its second TLD letter.",
    {"validators": [PII], "deltas": ["mail bob@exam", "ple.c", "om"]},
    {"delivered": ["mail bob@exam", "ple.c"], "severedAt": 2, "rule": "email"},
)
run_case(
    "guards.delta",
    "card-prefix-of-longer-run",
    "validators.pii-card",
    "The delta form cannot wait: a digit run that is a valid card so far severs even though "
    "more digits follow (the output form would accept the 18-digit run).",
    {"validators": [PII], "deltas": ["4111 1111 1111 1111", " 22"]},
    {"delivered": [], "severedAt": 0, "rule": "card"},
)
run_case(
    "guards.delta",
    "wider-than-window-evades",
    "guards.limit-window",
    "Limit: a pattern wider than the window, split across deltas, evades the delta form "
    "(the output form still sees the whole result).",
    {
        "validators": [{"kind": "deny", "patterns": {"key": "KEY-[0-9]{12}"}}],
        "window": 8,
        "deltas": chars("id KEY-123456789012 end"),
    },
    {"severedAt": None, "code": None},
    tier="may",
)
run_case(
    "guards.delta",
    "default-window-exactly-4096",
    "guards.window",
    "The default window keeps the last 4096 characters: an a followed by 4095 x's, then b, "
    "is severed by ax*b (the a is the window's first character).",
    {
        "validators": [{"kind": "deny", "patterns": {"k": "ax*b"}}],
        "deltas": ["a" + "x" * 4095, "b"],
    },
    {"severedAt": 1, "code": SEVERED, "rule": "k"},
)
run_case(
    "guards.delta",
    "default-window-one-past",
    "guards.limit-window",
    "Limit: with the default window of 4096, an a followed by 4096 x's, then b, evades ax*b "
    "(the a is one character before the window).",
    {
        "validators": [{"kind": "deny", "patterns": {"k": "ax*b"}}],
        "deltas": ["a" + "x" * 4096, "b"],
    },
    {"delivered": ["a" + "x" * 4096, "b"], "severedAt": None, "code": None},
    tier="may",
)
run_case(
    "guards.delta",
    "window-one",
    "guards.window",
    "A window of 1, the smallest, is accepted and keeps the last character: a then b is "
    "severed by ab.",
    {"validators": [{"kind": "deny", "patterns": {"k": "ab"}}], "window": 1, "deltas": ["a", "b"]},
    {"severedAt": 1, "code": SEVERED, "rule": "k"},
)
run_case(
    "guards.delta",
    "window-as-wide-as-pattern",
    "guards.window",
    "With a window as wide as the pattern the same stream is severed.",
    {
        "validators": [{"kind": "deny", "patterns": {"key": "KEY-[0-9]{12}"}}],
        "window": 16,
        "deltas": chars("id KEY-123456789012 end"),
    },
    {"severedAt": 18, "code": SEVERED, "rule": OPEN_RULE},
)
run_case(
    "guards.delta",
    "long-delta-checked-whole",
    "guards.running-text",
    "A delta longer than the window is checked whole.",
    {
        "validators": [{"kind": "deny", "patterns": ["secret"]}],
        "window": 4,
        "deltas": ["ok", "secret and a lot more text after it"],
    },
    {"delivered": ["ok"], "severedAt": 1, "code": SEVERED, "rule": OPEN_RULE},
)
run_case(
    "guards.delta",
    "two-validators",
    "guards.running-text",
    "Every validator's delta form sees the running text; the first to reject severs.",
    {
        "validators": [PII, {"kind": "deny", "patterns": {"word": "forbidden"}}],
        "deltas": ["this is forb", "idden"],
    },
    {"delivered": ["this is forb"], "severedAt": 1, "rule": OPEN_RULE},
)
run_case(
    "guards.delta",
    "no-validators",
    "guards.before-delivery",
    "With no validators everything is delivered.",
    {"validators": [], "deltas": ["123-45-6789"]},
    {"delivered": ["123-45-6789"], "severedAt": None},
)
run_case(
    "guards.delta",
    "output-only-validator-refused",
    "validators.fail-closed",
    "Fail-closed: a validator with no delta form cannot guard a stream.",
    {"validators": [{"kind": "pii", "delta": False}], "deltas": ["x"]},
    {"error": "argument.invalid"},
)
run_case(
    "guards.delta",
    "output-only-validator-refused-no-deltas",
    "validators.fail-closed",
    "Fail-closed: a validator with no delta form is refused when the guard is built, so even "
    "a stream of no deltas is refused.",
    {"validators": [{"kind": "pii", "delta": False}], "deltas": []},
    {"error": "argument.invalid"},
)

# ---- guards.budget ------------------------------------------------------------------------
BUDGET = "governance.stream-token-budget"
run_case(
    "guards.budget",
    "exactly-at-budget",
    "guards.token-budget",
    "Spending exactly the budget is allowed (ceil(len/4) tokens per delta).",
    {"maxTokens": 3, "deltas": ["abcd", "efgh", "ijkl"]},
    {"severedAt": None, "delivered": ["abcd", "efgh", "ijkl"]},
)
run_case(
    "guards.budget",
    "sever-before-breach",
    "guards.token-budget",
    "The delta that would exceed the budget is never delivered.",
    {"maxTokens": 3, "deltas": ["abcd", "efgh", "ijkl", "m"]},
    {"delivered": ["abcd", "efgh", "ijkl"], "severedAt": 3, "code": BUDGET, "rule": None},
)
run_case(
    "guards.budget",
    "rounding-up-per-delta",
    "guards.token-count",
    "The default count rounds each delta up: five 1-character deltas are 5 tokens.",
    {"maxTokens": 4, "deltas": ["a", "b", "c", "d", "e"]},
    {"severedAt": 4, "code": BUDGET},
)
run_case(
    "guards.budget",
    "validators-before-budget",
    "guards.chain-order",
    "When the validators and the budget would both sever a delta, the validators' sever "
    "is reported.",
    {"validators": [PII], "maxTokens": 1, "deltas": ["ab", "123-45-6789"]},
    {"severedAt": 1, "code": SEVERED},
)

# ---- guards.holdback (extension) ----------------------------------------------------------
KEY4 = {"kind": "deny", "patterns": {"key": "KEY-[0-9]{4}"}}
run_case(
    "guards.holdback",
    "clean-released-and-flushed",
    "guards.hold-back-flush",
    "Extension: text is released once it cannot start a match (the last max_width-1 = 7 "
    "characters are held); the rest is flushed on success.",
    {"validators": [KEY4], "holdBack": True, "deltas": ["hello ", "wor", "ld, all ok"]},
    {"delivered": ["", "he", "llo world,"], "flushed": " all ok", "severedAt": None},
    tier="may",
)
run_case(
    "guards.holdback",
    "secret-prefix-never-released",
    "guards.hold-back",
    "Extension: no character of a match reaches the sink; the held text is dropped at the sever.",
    {"validators": [KEY4], "holdBack": True, "deltas": chars("my KEY-1234 ok", 2)},
    {"delivered": ["", "", "", "m", "y "], "flushed": None, "severedAt": 5, "code": SEVERED},
    tier="may",
)
run_case(
    "guards.holdback",
    "python-re-bounded-width",
    "patterns.python-re",
    "Extension: a python-re rule's width comes from Python's own parser, so abc is bounded "
    "(width 3) and hold-back holds its last 2 characters.",
    {"validators": [{"kind": "deny", "dialect": "python-re", "patterns": {"k": "abc"}}],
     "holdBack": True, "deltas": ["0123456789"]},
    {"delivered": ["01234567"], "flushed": "89", "severedAt": None},
    tier="may",
    requires=("patterns.python-re",),
)
run_case(
    "guards.holdback",
    "card-held-back",
    "guards.hold-back",
    "Extension: with pii, a card's digits are never released before the sever.",
    {"validators": [PII], "holdBack": True, "deltas": ["x" * 400, "card 4111 ", "1111 1111 1111"]},
    {"delivered": ["x" * 56, "x" * 10], "severedAt": 2, "rule": "card"},
    tier="may",
)
run_case(
    "guards.holdback",
    "unbounded-refused",
    "guards.hold-back-width",
    "Extension: hold-back refuses a pattern of unbounded width.",
    {
        "validators": [{"kind": "deny", "patterns": ["sk-[a-z]+"]}],
        "holdBack": True,
        "deltas": ["x"],
    },
    {"error": "argument.invalid"},
    tier="may",
)
run_case(
    "guards.holdback",
    "unbounded-with-max-width",
    "guards.hold-back-width",
    "Extension: an explicit maxWidth bounds an unbounded pattern for hold-back.",
    {
        "validators": [{"kind": "deny", "patterns": ["sk-[a-z]+"], "maxWidth": 6}],
        "holdBack": True,
        "deltas": ["abc ", "sk", "-", "ab"],
    },
    {"delivered": ["", "a", "b"], "severedAt": 3, "rule": "sk-[a-z]+"},
    tier="may",
)


# ---- taint.unwrap -------------------------------------------------------------------------
U = "taint.unwrap"
case(
    "taint.unwrap",
    "content",
    anchor="taint.unwrap-explicit",
    function=U,
    description="Unwrapping a tainted value returns its content, whatever JSON it is.",
    input={"value": tainted({"a": [1, "x"]}, "llm:t")},
    intent={"value": {"a": [1, "x"]}},
)
case(
    "taint.unwrap",
    "plain-value",
    anchor="taint.unwrap-explicit",
    function=U,
    description="Unwrapping a value that was never tainted is an error, not a no-op.",
    input={"value": "plain"},
    intent={"error": "argument.not-tainted"},
)
case(
    "taint.unwrap",
    "container-of-tainted",
    anchor="taint.unwrap-explicit",
    function=U,
    description="A container holding a tainted value is not itself tainted: unwrap refuses it.",
    input={"value": {"a": tainted(1, "llm:t")}},
    intent={"error": "argument.not-tainted"},
)
case(
    "taint.guard",
    "walks-lists-and-objects",
    anchor="taint.walk",
    function=T,
    description="The fence walks arrays and objects at every level; array members are walked "
    "in index order.",
    input={"request": [{"k": ["plain", {"z": 0}]}, {"k": [0, tainted("x", "llm:w")]}]},
    intent={**REFUSED, "path": "/1/k/1", "origin": "llm:w"},
)

# ---- validators.check ---------------------------------------------------------------------
C = "validators.check"


def check_case(name: str, anchor: str, description: str, validator: dict[str, Any], phase: str,
               value: Any, intent: dict[str, Any]) -> None:
    case("validators.check", name, anchor=anchor, function=C, description=description,
         input={"validator": validator, "phase": phase, "value": value}, intent=intent)


VIOLATION = {"ok": False, "code": "governance.safety-violation"}
check_case("three-phases", "validators.pii-delta-form",
           "pii_validator() ships a delta form: its delta phase rejects a running text.",
           PII, "delta", "ssn 123-45-6789",
           {**VIOLATION, "validator": "pii", "phase": "delta", "rule": "ssn", "span": [4, 15]})
check_case("deny-delta-form", "validators.pii-delta-form",
           "deny_patterns() ships a delta form too: its delta phase rejects a running text. The "
           "violation's details are loom-ref's (validators.violation), left open here.",
           {"kind": "deny", "patterns": ["secret"]}, "delta", "my secret",
           OPEN_DENY_VIOLATION)
check_case("missing-output-form-accepts", "validators.phases",
           "A validator without an output form accepts every output.",
           {"kind": "pii", "phases": ["input", "delta"]}, "output", "ssn 123-45-6789",
           {"ok": True})
check_case("missing-input-form-accepts", "validators.phases",
           "A validator without an input form accepts every input.",
           {"kind": "pii", "phases": ["output"]}, "input", {"ssn": "123-45-6789"}, {"ok": True})
check_case("missing-delta-form-refused", "validators.phases",
           "Checking a delta with a validator that has no delta form is a bad argument.",
           {"kind": "pii", "delta": False}, "delta", "x", {"error": "argument.invalid"})
check_case("output-details", "validators.violation",
           "A violation names the validator, phase, rule and span [start, end) in the text.",
           PII, "output", "mail: bob@example.com",
           {**VIOLATION, "validator": "pii", "phase": "output", "rule": "email",
            "span": [6, 21]})
check_case("no-echo", "validators.no-echo",
           "The violation's details are exactly validator, phase, rule and span: the matched "
           "secret is not among them (the message is checked by the unit tests).",
           {"kind": "deny", "patterns": {"key": "sk-[a-z]{4}"}}, "output", "use sk-abcd now",
           {**VIOLATION, "validator": "deny-patterns", "phase": "output", "rule": "key",
            "span": [4, 11], "$exact": True})
check_case("input-path", "validators.input-walk",
           "The input form scans every string of the value and reports the first violating one "
           "in document order with its JSON pointer; the span is within that string.",
           PII, "input", {"a": ["fine", "x 123-45-6789"], "b": "bob@example.com"},
           {**VIOLATION, "validator": "pii", "phase": "input", "rule": "ssn", "span": [2, 13],
            "path": "/a/1"})
check_case("input-mapping-key", "validators.input-walk",
           "Mapping keys are scanned too.",
           PII, "input", {"bob@example.com": 1},
           {**VIOLATION, "phase": "input", "rule": "email", "path": "/bob@example.com"})
check_case("input-inside-tainted", "validators.input-walk",
           "Strings inside a tainted value are scanned (the walk enters it at segment 'value').",
           PII, "input", {"n": tainted("ssn 123-45-6789", "llm:t")},
           {**VIOLATION, "phase": "input", "rule": "ssn", "path": "/n/value"})
check_case("input-clean", "validators.input-walk", "A clean value passes the input form.",
           PII, "input", {"a": ["fine", 12], "b": {"c": None}}, {"ok": True})

# ---- more guards --------------------------------------------------------------------------
# the last 19 digits of this 20-digit run pass Luhn; its first 19 do not (checked by hand with
# a separate Luhn function): the tail scan starts inside the run, yet must not see a card there
RUN20 = "4 6 9 7 1 2 7 8 8 9 8 8 0 4 2 3 5 6 8 5"
run_case(
    "guards.delta",
    "tail-scan-keeps-verdict",
    "guards.tail-scan",
    "The tail scan starts inside a 20-digit run, whose last 19 digits alone would be a card; "
    "the verdict is the full scan's: a 20-digit run is no card, nothing is severed.",
    {"validators": [PII], "deltas": [RUN20[:37], RUN20[37:]]},
    {"delivered": [RUN20[:37], RUN20[37:]], "severedAt": None},
)
run_case(
    "guards.delta",
    "no-redaction",
    "guards.limit-no-redaction",
    "A guard never masks: each delta is delivered verbatim (the card's first digits "
    "included) until the delta completing the card is severed whole.",
    {"validators": [PII], "deltas": ["card 4111 1111", " 1111 11", "11 thanks"]},
    {"delivered": ["card 4111 1111", " 1111 11"], "severedAt": 2, "rule": "card"},
)
run_case(
    "guards.delta",
    "window-zero",
    "errors.invalid-argument",
    "A public constructor refuses a bad argument (a window of 0) with argument.invalid.",
    {"validators": [PII], "window": 0, "deltas": ["x"]},
    {"error": "argument.invalid"},
)
run_case(
    "guards.delta",
    "malformed-deltas",
    "guards.vector-run",
    "Malformed input is an error with a code: deltas must be a list of strings.",
    {"validators": [PII], "deltas": "x"},
    {"error": "argument.invalid"},
)
run_case(
    "guards.holdback",
    "computed-width",
    "validators.width",
    "Extension: the hold is the computed width minus one -- 6 for ab|abcdef, so 5 "
    "characters are held back.",
    {"validators": [{"kind": "deny", "patterns": {"w": "ab|abcdef"}}], "holdBack": True,
     "deltas": ["0123456789"]},
    {"delivered": ["01234"], "flushed": "56789", "severedAt": None},
    tier="may",
)
run_case(
    "guards.holdback",
    "computed-width-optional",
    "validators.width",
    "Extension: an optional character counts in the width: KEY-?[0-9]{3} is 7 wide.",
    {"validators": [{"kind": "deny", "patterns": {"k": "KEY-?[0-9]{3}"}}], "holdBack": True,
     "deltas": ["abcdefghij"]},
    {"delivered": ["abcd"], "flushed": "efghij", "severedAt": None},
    tier="may",
)

S = "guards.steps"
KEY4_SEVER = {"code": SEVERED, "rule": "key", "deltaIndex": 1, "repeated": False,
              "span": [4, 12]}


def steps_case(name: str, anchor: str, description: str, input: dict[str, Any],
               outcomes: Any, tier: str = "must") -> None:
    case("guards.steps", name, anchor=anchor, function=S, description=description,
         input=input, intent={"error": outcomes} if isinstance(outcomes, str)
         else {"outcomes": outcomes}, tier=tier)


steps_case(
    "reset-is-true-not-one", "guards.vector-run",
    "A reset step is exactly {\"reset\": true}: {\"reset\": 1} is a member of the wrong "
    "type, argument.invalid (1 is not true, though Python counts 1 == True).",
    {"validators": [PII], "steps": ["a", {"reset": 1}]}, "argument.invalid")
steps_case(
    "unknown-input-member", "guards.vector-run",
    "An input member guards.steps does not list (deltas, a member of guards.run) is malformed "
    "input: argument.invalid.",
    {"validators": [PII], "steps": ["a"], "deltas": ["a"]}, "argument.invalid")
steps_case(
    "flush-is-true-not-one", "guards.vector-run",
    "A flush step is exactly {\"flush\": true}: {\"flush\": 1} is argument.invalid.",
    {"validators": [PII], "holdBack": True, "steps": ["a", {"flush": 1}]}, "argument.invalid")
steps_case(
    "reset-clears-running-text", "guards.reset",
    "reset clears the running text and the delta index: the SSN split across the reset is "
    "not seen, and the next sever counts deltas from the reset.",
    {"validators": [PII], "steps": ["123-45-", "6789", {"reset": True}, "6789",
                                    "x 123-45-6789"]},
    [{"delivered": "123-45-"},
     {"severed": {"code": SEVERED, "rule": "ssn", "deltaIndex": 1, "repeated": False,
                  "span": [0, 11]}},
     {"reset": True}, {"delivered": "6789"},
     {"severed": {"code": SEVERED, "rule": "ssn", "deltaIndex": 1, "repeated": False,
                  "span": [6, 17]}}],
)
steps_case(
    "sever-span-absolute", "guards.running-text",
    "A sever's span is absolute in the attempt's text, counting what the window cut away, and "
    "counts from the last reset: with window 3, xxxxa then b is severed by ab at [4, 6]; the "
    "sever raised again carries the same span; after a reset, ab is severed at [0, 2].",
    {"validators": [{"kind": "deny", "patterns": {"k": "ab"}}], "window": 3,
     "steps": ["xxxxa", "b", "c", {"reset": True}, "ab"]},
    [{"delivered": "xxxxa"},
     {"severed": {"code": SEVERED, "rule": "k", "deltaIndex": 1, "repeated": False,
                  "span": [4, 6]}},
     {"severed": {"code": SEVERED, "rule": "k", "deltaIndex": 1, "repeated": True,
                  "span": [4, 6]}},
     {"reset": True},
     {"severed": {"code": SEVERED, "rule": "k", "deltaIndex": 0, "repeated": False,
                  "span": [0, 2]}}],
)
steps_case(
    "reset-clears-budget", "guards.reset",
    "reset clears a token budget's count: the next attempt has its whole budget. (A seed "
    "case: the sever pins its code only, as $partial; its other details are the vector's "
    "loom-ref form, pinned by the loom-ref cases of guards.steps. Each delta is one letter, "
    "one token under any counter, so the case does not rest on loom-ref's ceil(len / 4), "
    "guards.token-count.)",
    {"maxTokens": 2, "steps": ["a", "b", "c", {"reset": True}, "d", "e"]},
    [{"delivered": "a"}, {"delivered": "b"},
     {"severed": {"$partial": {"code": "governance.stream-token-budget"}}},
     {"reset": True}, {"delivered": "d"}, {"delivered": "e"}],
)
steps_case(
    "sticky-sever", "guards.sticky-sever",
    "A severed guard stays severed: a later clean delta raises the same sever again, marked "
    "repeated, until reset.",
    {"validators": [PII], "steps": ["123-45-6789", "clean", {"reset": True}, "clean"]},
    [{"severed": {"code": SEVERED, "rule": "ssn", "deltaIndex": 0, "repeated": False,
                  "span": [0, 11]}},
     {"severed": {"code": SEVERED, "rule": "ssn", "deltaIndex": 0, "repeated": True,
                  "span": [0, 11]}},
     {"reset": True}, {"delivered": "clean"}],
)
steps_case(
    "flushed-guard", "guards.lifecycle",
    "Extension (hold-back): a flushed guard takes no delta and no second flush "
    "(governance.guard-state) until reset.",
    {"validators": [KEY4], "holdBack": True,
     "steps": ["hello", {"flush": True}, "more", {"flush": True}, {"reset": True}, "ok"]},
    [{"delivered": ""}, {"flushed": "hello"}, {"error": {"code": "governance.guard-state"}},
     {"error": {"code": "governance.guard-state"}}, {"reset": True}, {"delivered": ""}],
    tier="may",
)
steps_case(
    "severed-flush", "guards.sticky-sever",
    "Extension (hold-back): a severed guard's flush raises the sever again, releasing nothing.",
    {"validators": [KEY4], "holdBack": True, "steps": ["abc KEY-12", "34", {"flush": True}]},
    [{"delivered": "abc"}, {"severed": KEY4_SEVER},
     {"severed": {**KEY4_SEVER, "repeated": True}}],
    tier="may",
)
steps_case(
    "held-text-dropped-at-sever", "guards.hold-back-drop",
    "Extension (hold-back): the text held at a sever is dropped, never released: after the "
    "reset, a flush releases nothing.",
    {"validators": [KEY4], "holdBack": True,
     "steps": ["abc KEY-12", "34", {"reset": True}, {"flush": True}]},
    [{"delivered": "abc"}, {"severed": KEY4_SEVER}, {"reset": True}, {"flushed": ""}],
    tier="may",
)
steps_case(
    "held-text-dropped-at-reset", "guards.hold-back-drop",
    "Extension (hold-back): reset drops the held text too.",
    {"validators": [KEY4], "holdBack": True, "steps": ["hello", {"reset": True},
                                                      {"flush": True}]},
    [{"delivered": ""}, {"reset": True}, {"flushed": ""}],
    tier="may",
)
steps_case(
    "malformed-step", "guards.vector-run",
    "Malformed input is an error with a code: a flush step without hold-back.",
    {"validators": [PII], "steps": [{"flush": True}]},
    "argument.invalid",
)


# ---- rules the spec text had left open (found by writing the Node adapter from it) ----------
EMOJI = "\U0001F600"  # one code point, two UTF-16 units
check_case("input-tainted-origin", "validators.input-walk",
           "A tainted value is walked as a record, value then origin: the origin string is "
           "scanned too, at the segment origin.",
           PII, "input", {"n": tainted("fine", "llm:bob@example.com")},
           {**VIOLATION, "rule": "email", "path": "/n/origin", "span": [4, 19]})
check_case("input-integer-like-names", "validators.input-walk",
           "Document order is the case's member order, the code-point order of the names: "
           "\"10\" before \"9\" (a JavaScript object would iterate \"9\" first).",
           PII, "input", {"10": "x 123-45-6789", "9": "bob@example.com"},
           {**VIOLATION, "rule": "ssn", "path": "/10"})
case(
    "taint.guard",
    "integer-like-names",
    anchor="taint.guard-details",
    function=T,
    description='The first tainted node in document order: member "10" comes before "9" '
    "(code-point order of the names, the canonical case file's order).",
    input={"request": {"10": tainted(1, "llm:ten"), "9": tainted(1, "llm:nine")}},
    intent={**REFUSED, "path": "/10", "origin": "llm:ten"},
)
pii_case(
    "email-after-astral",
    "validators.violation",
    "A span counts code points: two emoji before the address are two characters, not four.",
    EMOJI * 2 + " bob@example.com",
    {**PII_VIOLATION, "rule": "email", "span": [3, 18]},
    requires=("text.code-points",),  # a UTF-16 span would be [5, 20]
)
run_case(
    "guards.budget",
    "astral-code-points",
    "guards.token-count",
    "The token count's len is in code points: five emoji are ceil(5 / 4) = 2 tokens, within a "
    "budget of 2 (in UTF-16 units they would be 3).",
    {"maxTokens": 2, "deltas": [EMOJI * 5]},
    {"delivered": [EMOJI * 5], "severedAt": None},
    requires=("text.code-points",),
)
run_case(
    "guards.holdback",
    "astral-code-points",
    "guards.hold-back",
    "Extension: hold-back keeps max_width - 1 code points: of eight emoji under an 8-wide "
    "rule, one is released and seven are flushed.",
    {"validators": [KEY4], "holdBack": True, "deltas": [EMOJI * 8]},
    {"delivered": [EMOJI], "flushed": EMOJI * 7, "severedAt": None},
    tier="may",
    requires=("text.code-points",),
)
run_case(
    "guards.delta",
    "window-edge-tail-scan",
    "guards.tail-scan",
    "A match lying wholly in the window's text is not reported: the window (11) cut the digit "
    "before 123-45-6789, but the next delta only re-scans where a match could end in it.",
    {"validators": [PII], "window": 11, "deltas": ["x9123-45-6789", "y"]},
    {"delivered": ["x9123-45-6789", "y"], "severedAt": None},
)
run_case(
    "guards.delta",
    "unknown-input-member",
    "guards.vector-run",
    "An input member the function does not list is malformed input: argument.invalid.",
    {"validators": [PII], "deltas": ["a"], "deltaWindow": 4},
    {"error": "argument.invalid"},
)
case(
    "validators.check",
    "unknown-validator-kind",
    anchor="guards.vector-run",
    function=C,
    description='A validator description of a kind other than "pii" and "deny" is malformed '
                'input, whatever members it has: argument.invalid.',
    input={"validator": {"kind": "regex", "patterns": ["x"]}, "phase": "output", "value": "x"},
    intent={"error": "argument.invalid"},
)
case(
    "taint.guard",
    "input-not-an-object",
    anchor="taint.vector-encoding",
    function=T,
    description='The input of taint.guard_request is an object {"request": ...}: an array '
                'is malformed input, argument.invalid.',
    input=[{"request": 1}],
    intent={"error": "argument.invalid"},
)
case(
    "validators.check",
    "missing-phase",
    anchor="guards.vector-run",
    function=C,
    description="A missing required input member is malformed input: argument.invalid.",
    input={"validator": PII, "value": "x"},
    intent={"error": "argument.invalid"},
)
deny_case(
    "empty-rule-name",
    "A rule name must be a non-empty string.",
    {"patterns": {"": "secret"}},
    "secret",
    {"error": "argument.invalid"},
)
run_case(
    "guards.holdback",
    "max-width-ignored-for-bounded",
    "validators.deny",
    "Extension: maxWidth bounds only unbounded rules; a bounded rule (width 6) keeps its own "
    "width, so hold-back holds 5 characters, not 2.",
    {"validators": [{"kind": "deny", "patterns": ["abcdef"], "maxWidth": 3}], "holdBack": True,
     "deltas": ["xxxxxxxxxx"]},
    {"delivered": ["xxxxx"], "flushed": "xxxxx", "severedAt": None},
    tier="may",
)
run_case(
    "guards.holdback",
    "no-validators",
    "guards.hold-back-width",
    "Extension: hold-back with no validators holds nothing: each delta is released whole and "
    "the flush is empty.",
    {"validators": [], "holdBack": True, "deltas": ["abc", "de"]},
    {"delivered": ["abc", "de"], "flushed": "", "severedAt": None},
    tier="may",
)

# ---- a sever severs the whole chain; inputs of the wrong type (found by the Node adapter) ----
BUDGET_SEVER = {"code": BUDGET, "rule": None, "deltaIndex": 1, "repeated": False,
                "span": None}
steps_case(
    "chain-severed-as-whole", "guards.chain-sever",
    "A chain in which a guard severed re-raises that sever, repeated, until reset: the budget "
    "severs 123-45-, and the validators' guard never took it, so 6789 is not a new ssn sever.",
    {"validators": [PII], "maxTokens": 2,
     "steps": ["abc", "123-45-", "6789", {"reset": True}, "6789"]},
    [{"delivered": "abc"}, {"severed": BUDGET_SEVER},
     {"severed": {**BUDGET_SEVER, "repeated": True}}, {"reset": True}, {"delivered": "6789"}],
)
steps_case(
    "chain-severed-by-validators", "guards.chain-sever",
    "After the validators' sever the chain re-raises it, repeated: a later delta over the "
    "budget is that sever again, not a budget sever.",
    {"validators": [PII], "maxTokens": 4,
     "steps": ["ab", "123-45-6789", "0123456789abcdefg", {"reset": True}, "0123456789abcdef"]},
    [{"delivered": "ab"},
     {"severed": {"code": SEVERED, "rule": "ssn", "deltaIndex": 1, "repeated": False,
                  "span": [2, 13]}},
     {"severed": {"code": SEVERED, "rule": "ssn", "deltaIndex": 1, "repeated": True,
                  "span": [2, 13]}},
     {"reset": True}, {"delivered": "0123456789abcdef"}],
)
steps_case(
    "budget-sever-then-flush", "guards.hold-back-flush",
    "Extension (hold-back): after the budget severs a delta, a flush raises the sever again, "
    "repeated: no part of the severed delta (nor the text held before it) is released.",
    {"validators": [KEY4], "holdBack": True, "maxTokens": 2,
     "steps": ["abcdefgh", "ijklmnop", {"flush": True}, "q", {"reset": True}, "abcdefgh",
               {"flush": True}]},
    [{"delivered": "a"}, {"severed": BUDGET_SEVER},
     {"severed": {**BUDGET_SEVER, "repeated": True}},
     {"severed": {**BUDGET_SEVER, "repeated": True}}, {"reset": True}, {"delivered": "a"},
     {"flushed": "bcdefgh"}],
    tier="may",
)
run_case(
    "guards.holdback",
    "budget-sever-drops-held",
    "guards.hold-back-drop",
    "Extension: a budget sever is the hold-back guard's sever: the held text is dropped and "
    "nothing is flushed.",
    {"validators": [KEY4], "holdBack": True, "maxTokens": 2,
     "deltas": ["abcdefgh", "ijklmnop", "q"]},
    {"$exact": True, "delivered": ["a"], "flushed": None, "severedAt": 1, "code": BUDGET,
     "rule": None},
    tier="may",
)
run_case(
    "guards.delta",
    "validators-null",
    "guards.vector-run",
    "validators is an array: null is a member of the wrong type, argument.invalid.",
    {"validators": None, "deltas": ["a"]},
    {"error": "argument.invalid"},
)
run_case(
    "guards.delta",
    "validators-object",
    "guards.vector-run",
    "validators is an array: an object, even an empty one, is argument.invalid.",
    {"validators": {}, "deltas": ["a"]},
    {"error": "argument.invalid"},
)
steps_case(
    "validators-null", "guards.vector-run",
    "validators is an array: null is a member of the wrong type, argument.invalid.",
    {"validators": None, "steps": ["a"]},
    "argument.invalid",
)
deny_case(
    "flags-null",
    "flags is an array of flag names: null is argument.invalid.",
    {"patterns": ["secret"], "flags": None},
    "secret",
    {"error": "argument.invalid"},
    anchor="guards.vector-run",
)
deny_case(
    "flags-string",
    "flags is an array of flag names: a string, even an empty one, is argument.invalid.",
    {"patterns": ["secret"], "flags": ""},
    "secret",
    {"error": "argument.invalid"},
    anchor="guards.vector-run",
)
deny_case(
    "flags-member-not-string",
    "A flags member that is not a flag name (here an array) is argument.invalid.",
    {"patterns": ["secret"], "flags": [["IGNORECASE"]]},
    "secret",
    {"error": "argument.invalid"},
    anchor="guards.vector-run",
)
deny_case(
    "max-width-not-integer",
    "maxWidth must be a positive integer even where no rule uses it (every rule bounded).",
    {"patterns": ["secret"], "maxWidth": True},
    "secret",
    {"error": "argument.invalid"},
)
deny_case(
    "repeat-count-too-large",
    "A repeat count above 1000 (RE2's and Go's limit) is outside the portable dialect, though "
    "the regex is otherwise well formed: argument.pattern, reason repeat, and no text is "
    "checked.",
    {"patterns": ["secret", "a{1001}"]},
    "secret",
    {"error": "argument.pattern", "details": {"reason": "repeat"}},
    anchor="patterns.limits",
)
deny_case(
    "repeat-count-largest",
    "A repeat count of 1000, the largest of the portable dialect, compiles: the rule is bounded"
    " and the text is checked.",
    {"patterns": ["secret", "a{1000}"]},
    "a secret",
    {**DENY_VIOLATION, "rule": "secret", "span": [2, 8]},
    anchor="patterns.limits",
)
check_case("phases-member-not-string", "guards.vector-run",
           "A phases member that is not a phase name (here an array) is argument.invalid.",
           {"kind": "pii", "phases": [["output"]]}, "output", "x",
           {"error": "argument.invalid"})

# ---- points the chapter had left open (issue 29: found by a blind Go implementation) -----------
V = "guards.vector-run"
NOT_REPORTED = {"severedAt": None, "code": None, "rule": None}
case("taint.guard", "whitespace-origin", anchor="taint.tainted-value", function=T,
     description="A non-empty origin is one of at least one code point, whitespace included: "
     "an origin is a label, never trimmed, so \" \" is an origin.",
     input={"request": tainted("x", " ")}, intent={**REFUSED, "path": "", "origin": " "})
case("taint.guard", "non-string-origin", anchor="taint.vector-encoding", function=T,
     description="A tainted value's origin is a string: 5 is a malformed encoding, "
     "argument.invalid.",
     input={"request": {"$tainted": {"value": "x", "origin": 5}}},
     intent={"error": "argument.invalid"})
case("taint.guard", "tainted-container-holds-tainted", anchor="taint.no-double-wrap", function=T,
     description="Only the direct wrap is refused: a tainted value whose content holds a "
     "tainted value inside a list is allowed, and the fence reports the outer one at its path.",
     input={"request": {"a": tainted([tainted("x", "llm:in")], "llm:out")}},
     intent={**REFUSED, "path": "/a", "origin": "llm:out"})
case("taint.guard", "malformed-after-tainted", anchor="taint.vector-encoding", function=T,
     description="The input is decoded whole before the fence walks it: a malformed $tainted "
     "object after a tainted value the fence would report first is still argument.invalid.",
     input={"request": [tainted("x"), {"$tainted": 5}]}, intent={"error": "argument.invalid"})
case("taint.guard", "null-request", anchor=V, function=T,
     description="A request is any JSON, null included: null holds no tainted value.",
     input={"request": None}, intent={"ok": True})
case("taint.unwrap", "nested-tainted-kept", anchor="taint.no-double-wrap", function=U,
     description="Unwrapping a tainted value whose content holds another tainted value (in a "
     "mapping) returns the content with the inner value still tainted, encoded as in the input.",
     input={"value": tainted({"a": tainted(1, "llm:in")}, "llm:out")},
     intent={"value": {"a": tainted(1, "llm:in")}})
case("taint.unwrap", "malformed-inside-plain", anchor="taint.vector-encoding", function=U,
     description="A malformed $tainted object inside a plain value is argument.invalid, not "
     "argument.not-tainted: the input is decoded before unwrap looks at it.",
     input={"value": [{"$tainted": 5}]}, intent={"error": "argument.invalid"})

check_case("output-value-not-string-without-form", V,
           "For the output phase the value must be a string, even when the validator has no "
           "output form (which would accept any text): 5 is argument.invalid.",
           {"kind": "pii", "phases": ["input"]}, "output", 5, {"error": "argument.invalid"})
check_case("phases-unknown-name", V,
           "phases lists names among input, output and delta: another is argument.invalid.",
           {"kind": "pii", "phases": ["output", "stream"]}, "output", "x",
           {"error": "argument.invalid"})
check_case("phases-duplicates-count-once", V,
           "A phase named twice in phases counts once: the output form is kept.",
           {"kind": "pii", "phases": ["output", "output"]}, "output", "ssn 123-45-6789",
           {**VIOLATION, "validator": "pii", "phase": "output", "rule": "ssn", "span": [4, 15]})
check_case("phases-empty-keeps-no-form", V,
           "phases [] keeps no form: the output phase then accepts (validators.phases).",
           {"kind": "pii", "phases": []}, "output", "ssn 123-45-6789", {"ok": True})
check_case("phases-delta-with-delta-false", V,
           "\"delta\": false drops the delta form whatever phases lists: checking a delta is "
           "then refused (validators.phases).",
           {"kind": "pii", "phases": ["delta"], "delta": False}, "delta", "x",
           {"error": "argument.invalid"})
check_case("pii-takes-no-patterns", V,
           "A member a validator kind does not list is argument.invalid: a pii validator has no "
           "patterns.", {"kind": "pii", "patterns": ["x"]}, "output", "x",
           {"error": "argument.invalid"})

deny_case("flag-unknown-name", "A vector's flags name IGNORECASE, MULTILINE or DOTALL only: "
          "VERBOSE is argument.invalid, never argument.pattern with reason flag (that reason "
          "is for re flags handed to loom-ref's API).",
          {"patterns": ["secret"], "flags": ["VERBOSE"]}, "secret",
          {"error": "argument.invalid"}, anchor="patterns.flags")
deny_case("flags-duplicated", "A flag named twice counts once.",
          {"patterns": ["secret"], "flags": ["IGNORECASE", "IGNORECASE"]}, "a SECRET",
          {**DENY_VIOLATION, "rule": "secret", "span": [2, 8]}, anchor=V)
deny_case("dialect-portable-1-refused", "The dialect member exists to ask for the python-re "
          "extension: its one value is python-re, and \"portable-1\" written out is "
          "argument.invalid (the dialect is portable-1 when the member is absent).",
          {"patterns": ["secret"], "dialect": "portable-1"}, "secret",
          {"error": "argument.invalid"}, anchor=V)
deny_case("max-width-zero", "maxWidth is an integer of at least 1: 0 is argument.invalid.",
          {"patterns": ["a[0-9]*b"], "maxWidth": 0}, "x", {"error": "argument.invalid"},
          anchor=V)
deny_case("max-width-zero-all-bounded", "maxWidth 0 is argument.invalid even when every "
          "rule is bounded and keeps its own width, so the value is never used (governance "
          "sample of this stop: a check of 0 on that path alone).",
          {"patterns": ["ab"], "maxWidth": 0}, "x", {"error": "argument.invalid"}, anchor=V)
deny_case("max-width-one-all-bounded", "maxWidth 1, the least accepted, with every rule "
          "bounded: the rules keep their own width and the text is checked.",
          {"patterns": ["ab"], "maxWidth": 1}, "xaby",
          {**DENY_VIOLATION, "rule": "ab", "span": [1, 3]}, anchor=V)
deny_case("max-width-null-absent", "An explicit null maxWidth is read as absent.",
          {"patterns": ["secret"], "maxWidth": None}, "my secret",
          {**DENY_VIOLATION, "rule": "secret", "span": [3, 9]}, anchor=V)
deny_case("delta-null", "null for an optional member other than maxTokens and maxWidth is a "
          "member of the wrong type: \"delta\": null is argument.invalid.",
          {"patterns": ["secret"], "delta": None}, "x", {"error": "argument.invalid"},
          anchor=V)

# the last 13 digits of this 20-digit run pass Luhn (4111111111119); the run is no card
CUT_RUN = "1234567" + "4111111111119"
run_case("guards.delta", "card-cut-by-window-not-reported", "guards.tail-scan",
         "With window 13 the running text keeps only the last 13 digits of a 20-digit run that "
         "was accepted whole (no card); those 13 pass the Luhn check, but a match lying wholly "
         "before the new delta is an artefact of the window's cut and is not reported.",
         {"validators": [PII], "window": 13, "deltas": [CUT_RUN, "y"]},
         {**NOT_REPORTED, "delivered": [CUT_RUN, "y"]})
run_case("guards.delta", "max-width-bounds-tail-scan", "validators.width",
         "maxWidth bounds an unbounded rule for the tail scan: a[0-9]*b with maxWidth 3 scans "
         "only the last 2 characters before a delta, so a match 5 wide split across deltas is "
         "not caught (the caller's promise); without maxWidth it is.",
         {"validators": [{"kind": "deny", "patterns": ["a[0-9]*b"], "maxWidth": 3}],
          "deltas": ["a12", "3b"]},
         {**NOT_REPORTED, "delivered": ["a12", "3b"]})
run_case("guards.delta", "unbounded-scans-whole-window", "guards.tail-scan",
         "Without maxWidth the unbounded rule a[0-9]*b is handed the whole running text: the "
         "match split across deltas is severed.",
         {"validators": [{"kind": "deny", "patterns": ["a[0-9]*b"]}], "deltas": ["a12", "3b"]},
         {"delivered": ["a12"], "severedAt": 1, "code": SEVERED, "rule": "a[0-9]*b"})
run_case("guards.delta", "window-negative", V, "A window is an integer of at least 1: -1 is "
         "argument.invalid.", {"validators": [PII], "window": -1, "deltas": ["x"]},
         {"error": "argument.invalid"})
run_case("guards.delta", "window-null", V, "\"window\": null is a member of the wrong type, "
         "argument.invalid (only maxTokens and maxWidth read null as absent).",
         {"validators": [PII], "window": None, "deltas": ["x"]}, {"error": "argument.invalid"})
run_case("guards.delta", "malformed-delta-after-sever", V,
         "The whole input is checked before the first delta is fed: a delta that is not a "
         "string refuses the input even after a delta the guard would sever.",
         {"validators": [PII], "deltas": ["123-45-6789", 5]}, {"error": "argument.invalid"})
run_case("guards.budget", "zero-budget", "guards.token-count",
         "A budget of 0 is allowed and lets only empty deltas through (an empty delta counts 0).",
         {"maxTokens": 0, "deltas": ["", "a"]},
         {"delivered": [""], "severedAt": 1, "code": BUDGET, "rule": None})
run_case("guards.budget", "negative-budget-refused", "guards.token-count",
         "A budget is an integer of at least 0: -1 is argument.invalid.",
         {"maxTokens": -1, "deltas": ["a"]}, {"error": "argument.invalid"})
run_case("guards.budget", "max-tokens-null-absent", V,
         "An explicit null maxTokens is read as absent: no budget.",
         {"maxTokens": None, "deltas": ["abcdefgh"]},
         {**NOT_REPORTED, "delivered": ["abcdefgh"]})

steps_case("malformed-step-after-sever", V,
           "The whole steps list is checked before the first step runs: a step that is not a "
           "delta, a reset or a flush refuses the input even after a step the guard severs.",
           {"validators": [PII], "steps": ["123-45-6789", 5]}, "argument.invalid")
steps_case("step-with-two-orders", V,
           "A step object is exactly {\"reset\": true} or {\"flush\": true}: one with both "
           "members is argument.invalid.",
           {"holdBack": True, "steps": [{"reset": True, "flush": True}]}, "argument.invalid",
           tier="may")
steps_case("hold-back-null", V, "\"holdBack\": null is a member of the wrong type, "
           "argument.invalid.", {"holdBack": None, "steps": ["a"]}, "argument.invalid")

run_case("guards.holdback", "no-delta-form-refused", "guards.hold-back-width",
         "Extension: hold-back checks as RunningTextGuard does, so a validator without a delta "
         "form (delta: false) is refused, argument.invalid.",
         {"validators": [{"kind": "deny", "patterns": ["ab"], "delta": False}], "holdBack": True,
          "deltas": ["a"]}, {"error": "argument.invalid"}, tier="may")
run_case("guards.holdback", "pii-needs-window-345", "guards.hold-back-width",
         "Extension: pii's widest rule (email) is 345 characters, so a window of 344 is "
         "narrower than it: argument.invalid.",
         {"validators": [PII], "holdBack": True, "window": 344, "deltas": ["a"]},
         {"error": "argument.invalid"}, tier="may")
run_case("guards.holdback", "pii-window-345-accepted", "guards.hold-back-width",
         "Extension: a window exactly as wide as the widest rule (pii's email, 345) is not "
         "narrower than it, so the guard is made: the accept side of pii-needs-window-345.",
         {"validators": [PII], "holdBack": True, "window": 345, "deltas": ["ab"]},
         {**NOT_REPORTED, "delivered": [""], "flushed": "ab"}, tier="may")
run_case("guards.holdback", "zero-count-is-bounded", "validators.width",
         "Extension: a {0} makes its operand 0 wide whatever it is, so (?:a+){0}b is bounded (1 "
         "wide) and hold-back holds nothing back for it.",
         {"validators": [{"kind": "deny", "patterns": ["(?:a+){0}b"]}], "holdBack": True,
          "deltas": ["xyz", "a"]}, {**NOT_REPORTED, "delivered": ["xyz", "a"], "flushed": ""},
         tier="may")

# issue 29, the governance chapter's third blind reading: points a case had not pinned
check_case("pii-max-width-null-refused", V,
           "A member a validator kind does not list is argument.invalid whatever its value: "
           "reading null as absent is for members the kind lists, so a pii validator with "
           "\"maxWidth\": null is refused.", {"kind": "pii", "maxWidth": None}, "output", "x",
           {"error": "argument.invalid"})
check_case("input-strings-before-rules", "validators.input-walk",
           "The input form checks each string against every rule before the next string: the "
           "first string in document order that any rule rejects is reported (/a, an email), "
           "not the first rule that rejects any string (card, at /b).",
           PII, "input", {"a": "x@y.co", "b": "4111 1111 1111 1111"},
           {**VIOLATION, "validator": "pii", "phase": "input", "rule": "email", "span": [0, 6],
            "path": "/a"})
deny_case("max-width-below-minimum-width", "maxWidth bounds only unbounded rules, and is "
          "never checked against a regex's own width there: a[0-9]*b (at least 2 wide) with "
          "maxWidth 1 is accepted, and its output form still scans the whole text.",
          {"patterns": ["a[0-9]*b"], "maxWidth": 1}, "xa12b",
          {**DENY_VIOLATION, "rule": "a[0-9]*b", "span": [1, 5]}, anchor="validators.width")
# issue 29, the governance chapter's fresh (fourth) blind reading: open points pinned
check_case("input-key-before-value", "validators.input-walk",
           "A mapping key is checked before its value: the key's ssn is reported, not the "
           "value's email, both at the member's pointer.",
           PII, "input", {"123-45-6789": "bob@example.com"},
           {**VIOLATION, "validator": "pii", "phase": "input", "rule": "ssn", "span": [0, 11],
            "path": "/123-45-6789"})
steps_case("empty-delta-counts", "guards.running-text",
           "Every delta handed to check counts in delta_index, an empty delta included: \"\" "
           "then an ssn severs at index 1.", {"validators": [PII], "steps": ["", "123-45-6789"]},
           [{"delivered": ""}, {"severed": {"code": SEVERED, "rule": "ssn", "deltaIndex": 1,
                                            "repeated": False,
                                            "span": [0, 11]}}])
deny_case("tainted-key-is-a-rule-name", "$tainted is decoded only in the members that say so "
          "(request, taint.unwrap's and validators.check's value): in a deny validator's "
          "patterns it is plain data, a rule named $tainted.",
          {"patterns": {"$tainted": "secret"}}, "a secret",
          {**DENY_VIOLATION, "rule": "$tainted", "span": [2, 8]}, anchor=V)
deny_case("empty-pattern-refused", "The empty pattern is in the dialect but matches only "
          "empty text: refused, argument.invalid.", {"patterns": {"empty": ""}}, "x",
          {"error": "argument.invalid"}, anchor="validators.rule-nonempty")
deny_case("empty-group-refused", "() is in the dialect but matches only empty text: refused, "
          "argument.invalid.", {"patterns": {"g": "()"}}, "x",
          {"error": "argument.invalid"}, anchor="validators.rule-nonempty")
deny_case("zero-count-refused", "x{0} is in the dialect (x cannot match empty) but matches "
          "only empty text: refused, argument.invalid.", {"patterns": {"z": "x{0}"}}, "x",
          {"error": "argument.invalid"}, anchor="validators.rule-nonempty")
run_case("guards.delta", "validators-in-list-order", "guards.chain-order",
         "Several validators in one guard are checked in list order: when two reject the same "
         "delta, the first in the list is the sever's (rule b, not a).",
         {"validators": [{"kind": "deny", "patterns": ["b"]}, {"kind": "deny", "patterns": ["a"]}],
          "deltas": ["ab"]}, {"delivered": [], "severedAt": 0, "code": SEVERED, "rule": "b"})
run_case("guards.delta", "no-deltas", V, "deltas may be empty: nothing is delivered and "
         "nothing severed.", {"validators": [PII], "deltas": []},
         {**NOT_REPORTED, "delivered": [], "flushed": None})
steps_case("no-steps", V, "steps may be empty: no outcome.", {"validators": [PII], "steps": []},
           [])
run_case("guards.holdback", "no-deltas-flushes-empty", "guards.hold-back-flush",
         "Extension: with hold-back and no deltas, nothing is released and the flush returns "
         "\"\".", {"validators": [PII], "holdBack": True, "deltas": []},
         {**NOT_REPORTED, "delivered": [], "flushed": ""}, tier="may")
run_case("guards.holdback", "widest-rule-of-all-validators", "guards.hold-back",
         "Extension: hold-back holds back max_width - 1 characters, max_width being the widest "
         "rule of all the validators (a{5}, from the second): 4 characters, not 2.",
         {"validators": [{"kind": "deny", "patterns": ["abc"]},
                         {"kind": "deny", "patterns": ["a{5}"]}],
          "holdBack": True, "deltas": ["xxxxxxx"]},
         {**NOT_REPORTED, "delivered": ["xxx"], "flushed": "xxxx"}, tier="may")

# ---- issue 30: what the coverage of the suite found unreached ----------------------------------
case("taint.guard", "input-extra-member", anchor=V, function=T,
     description="taint.guard_request's input is exactly {\"request\"}: a member it does not "
     "list is argument.invalid.",
     input={"request": "x", "other": 1}, intent={"error": "argument.invalid"})
case("taint.unwrap", "input-extra-member", anchor=V, function=U,
     description="taint.unwrap's input is exactly {\"value\"}: a member it does not list is "
     "argument.invalid, even beside a tainted value.",
     input={"value": tainted("x"), "other": 1}, intent={"error": "argument.invalid"})
case("validators.pii", "input-extra-member", anchor=V, function=OUT,
     description="validators.check_output's input is exactly {\"validator\", \"text\"}: a "
     "member it does not list is argument.invalid.",
     input={"validator": PII, "text": "x", "phase": "output"},
     intent={"error": "argument.invalid"})
check_case("phase-unknown-name", V,
           "phase is one of input, output and delta: another name is argument.invalid.",
           PII, "stream", "x", {"error": "argument.invalid"})
check_case("phase-not-string", V,
           "phase is a string naming a phase: an array holding one is argument.invalid.",
           PII, ["output"], "x", {"error": "argument.invalid"})
deny_case("patterns-string-refused", "A bare string is not a collection of patterns: "
          "\"patterns\": \"secret\" is argument.invalid (never read as one regex, nor as "
          "its characters).",
          {"patterns": "secret"}, "secret", {"error": "argument.invalid"})
deny_case("patterns-empty-list-refused", "An empty collection of patterns is argument.invalid: "
          "a deny validator has at least one rule.",
          {"patterns": []}, "x", {"error": "argument.invalid"})
deny_case("patterns-empty-object-refused", "An empty object of patterns is argument.invalid, "
          "as an empty list is.",
          {"patterns": {}}, "x", {"error": "argument.invalid"})
deny_case("regex-not-string-refused", "A regex that is not a string (a rule named k whose "
          "regex is 5) is argument.invalid.",
          {"patterns": {"k": 5}}, "5", {"error": "argument.invalid"})

# ---- issue 30: the second edge set's survivors (tools/mutation/edge2.py) -------------------------
pii_case("ssn-digit-right-after", "validators.pii-ssn",
         "The SSN's right boundary is the character right after the match: a digit there "
         "(123-45-67890) makes it no SSN.",
         "id 123-45-67890", {"ok": True})
pii_case("ssn-digit-two-after", "validators.pii-ssn",
         "Only the character right after the match is looked at: a digit two characters "
         "after it (a space between) leaves the SSN matched.",
         "id 123-45-6789 0", {**PII_VIOLATION, "rule": "ssn", "span": [3, 14]})
pii_case("ssn-digit-two-before", "validators.pii-ssn",
         "Only the character right before the match is looked at: a digit two characters "
         "before it (a space between) leaves the SSN matched.",
         "0 123-45-6789", {**PII_VIOLATION, "rule": "ssn", "span": [2, 13]})
pii_case("email-local-part-64", "validators.pii-email",
         "A local part of exactly 64 characters is matched whole: the span starts at its "
         "first character.",
         "to " + "a" * 64 + "@example.com", {**PII_VIOLATION, "rule": "email", "span": [3, 79]})
pii_case("email-local-part-65", "validators.pii-email",
         "A run of 65 local-part characters before the @ is matched from its second "
         "character: the leftmost match holds the last 64.",
         "to " + "a" * 65 + "@example.com", {**PII_VIOLATION, "rule": "email", "span": [4, 80]})
run_case("guards.holdback", "widest-rule-first", "guards.hold-back",
         "Extension: hold-back holds back max_width - 1 characters, max_width being the widest "
         "rule of all the validators whatever their order (a{5}, from the first, before abc): 4 "
         "characters, not the last validator's 2.",
         {"validators": [{"kind": "deny", "patterns": ["a{5}"]},
                         {"kind": "deny", "patterns": ["abc"]}],
          "holdBack": True, "deltas": ["xxxxxxx"]},
         {**NOT_REPORTED, "delivered": ["xxx"], "flushed": "xxxx"}, tier="may")
steps_case(
    "reset-restarts-budget-delta-index", "guards.reset",
    "reset zeroes a token budget's delta index with its count: the next attempt's sever counts "
    "its deltas from the reset (deltaIndex 2 again, not 5).",
    {"maxTokens": 2, "steps": ["abcd", "efgh", "ijkl", {"reset": True}, "abcd", "efgh",
                               "ijkl"]},
    [{"delivered": "abcd"}, {"delivered": "efgh"},
     {"severed": {"code": "governance.stream-token-budget", "rule": None, "deltaIndex": 2,
                  "repeated": False, "span": None}},
     {"reset": True}, {"delivered": "abcd"}, {"delivered": "efgh"},
     {"severed": {"code": "governance.stream-token-budget", "rule": None, "deltaIndex": 2,
                  "repeated": False, "span": None}}],
)
check_case("input-key-before-its-value", "validators.input-walk",
           "A member is walked key first, then its value: when both violate (an SSN as the "
           "name, an email as the value), the key's violation is reported, at the member's "
           "pointer.",
           PII, "input", {"123-45-6789": "bob@example.com"},
           {**VIOLATION, "validator": "pii", "phase": "input", "rule": "ssn", "span": [0, 11],
            "path": "/123-45-6789"})

gen_dialect.register(case)  # the validators.dialect group (spec: patterns.*)
gen_mutation_s4.register(case)  # the survivors of samples 473986/321483/238680 (issue 30)
gen_mutation4.register(run_case)  # the survivors of sample 456059 (issue 30)
gen_mutation_s7g.register(case, run_case)  # governance sample 282287's survivors (s7g)
gen_mutation_s10g.register(case)  # samples 252125/13564/97256's survivors (s10g)
gen_mutation_s11g.register(case)  # the fresh sample scored on 297169a: its survivors (s11g)
gen_mutation_s12g.register(case)  # the 120-mutant sweep scored on becc1a0: its survivors (s12g)

# ---- machinery ----------------------------------------------------------------------------


def check_intent(c: Case, expect: dict[str, Any]) -> None:
    intent = c["intent"]
    where = f"{c['group']}/{c['name']}"
    if "error" in intent:
        assert expect == {"error": {"code": intent["error"], **intent.get("details", {})}}, (
            where, expect)
        return
    assert "result" in expect, (where, expect)
    if intent.get("$exact"):  # the whole result, not a part of it
        exact = {k: v for k, v in intent.items() if k != "$exact"}
        assert expect["result"] == exact, (where, expect["result"], exact)
        return
    for key, value in intent.items():
        assert expect["result"].get(key) == value, (where, key, expect["result"].get(key), value)


def case_file(c: Case) -> tuple[Path, dict[str, Any]]:
    return vectorkit.case_file(c, check_intent)


def write_all() -> int:
    """Rewrite every case file of our groups (stale files of our groups are removed)."""
    return vectorkit.write_all(CASES, GROUPS, check_intent)


if __name__ == "__main__":
    sys.exit(vectorkit.main(sys.argv[1:], CASES, GROUPS, check_intent))
