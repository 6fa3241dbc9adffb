"""The ``validators.dialect`` vectors: the portable pattern dialect ``portable-1``.

Registered into ``gen_vectors.CASES`` by :func:`register` (``gen_vectors.py`` writes them).
Every case runs ``validators.check_output`` with a deny validator:

- one case per reason a pattern is outside the dialect (spec: patterns.reasons), each
  pattern with exactly one problem, so that the reason is determined; the description says
  where the engines part ways;
- patterns in the dialect that exercise each construct of the grammar and the semantics
  every engine shares (spec: patterns.grammar, patterns.semantics), IGNORECASE as simple case
  folding (spec: patterns.flags);
- the ``python-re`` extension (spec: patterns.python-re, tier ``may``, capability
  ``patterns.python-re``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

GROUP = "validators.dialect"
OUT = "validators.check_output"
VIOLATION = {"ok": False, "code": "governance.safety-violation", "validator": "deny-patterns"}


def register(case: Callable[..., None]) -> None:
    """Register every case of the group with ``case`` (``gen_vectors.case``)."""

    def deny(name: str, anchor: str, description: str, validator: dict[str, Any], text: str,
             intent: dict[str, Any], **extra: Any) -> None:
        case(GROUP, name, anchor=anchor, function=OUT, description=description,
             input={"validator": {"kind": "deny", **validator}, "text": text}, intent=intent,
             **extra)

    def outside(reason: str, pattern: str, why: str, **extra: Any) -> None:
        deny(f"reason-{reason}", "patterns.reasons",
             f"{pattern!r} is outside the portable dialect, reason {reason}: {why}",
             {"patterns": [pattern]}, "x",
             {"error": "argument.pattern", "details": {"reason": reason}}, **extra)

    outside("syntax", "secret)", "an unbalanced ) is no regex in any engine.")
    outside("length", "a" * 4097, "at most 4096 code points (V8 refuses long case-folded "
            "literals).")
    outside("surrogate", "\ud800", "a lone surrogate, which Go and Rust strings cannot hold.",
            requires=("text.lone-surrogates",))
    outside("escape", "sk\\-[a-z]{4}", "\\- outside a class is a syntax error to ECMAScript "
            "with the u flag, a literal - to Python.")
    outside("class-escape", "\\d{4}", "Python's \\d matches any script's decimal digits, "
            "ECMAScript's only 0-9.")
    outside("dot", "s.cret", "Python's . matches a carriage return, ECMAScript's does not.")
    deny("details-members", "patterns.reasons",
         "A refused pattern's error details carry reason, position (an integer: the code point "
         "where the problem was found; its value is informative, so not pinned) and dialect "
         "\"portable-1\".", {"patterns": ["s.cret"]}, "x",
         {"error": "argument.pattern",
          "details": {"reason": "dot", "position": {"$type": "integer"}, "dialect": "portable-1"}})
    outside("anchor", "secret$", "Python's $ also matches before a final newline, "
            "ECMAScript's does not.")
    outside("lookaround", "(?<![0-9])123", "RE2, Go and Rust have no look-around.")
    outside("backreference", "(a)\\1", "RE2, Go and Rust have no backreferences.")
    outside("group", "(?i)secret", "inline flags: ECMAScript has none.")
    outside("quantifier", "a++", "Python 3.11 reads a possessive quantifier, ECMAScript, Go "
            "and Rust refuse it.")
    outside("empty-repeat", "x(?:|a)*", "the repeated operand can match the empty string: on "
            "'xaa' Python's re matches 'x', ECMAScript 'xaa'.")
    outside("repeat", "(?:a{10}){101}", "nested counts multiply to 1010, above RE2's 1000.")
    deny("reason-repeat-unbounded", "patterns.reasons",
         "'a{1001,}' is outside the portable dialect, reason repeat: a minimum above RE2's "
         "1000 is out with no maximum as with one.",
         {"patterns": ["a{1001,}"]}, "x",
         {"error": "argument.pattern", "details": {"reason": "repeat"}})
    deny("reason-syntax-lone-backslash", "patterns.reasons",
         "'secret\\' is outside the portable dialect, reason syntax: a pattern that ends "
         "with a lone \\ escapes nothing, in any engine.",
         {"patterns": ["secret\\"]}, "x",
         {"error": "argument.pattern", "details": {"reason": "syntax"}})
    outside("size", "[a-z]{1000}" * 11, "expanded size 11000, above 10000 (RE2's and Rust's "
            "program size limits).")
    outside("nesting", "(" * 33 + "a" + ")" * 33, "33 nested groups, above 32.")
    outside("class", "[^]", "an empty class: ECMAScript's [^] matches any character, "
            "Python reads [^]...] as a class holding ].")

    deny("in-dialect-accepted", "patterns.dialect",
         "A pattern in the dialect is accepted and compiled unchanged, whatever it looks like: "
         "an empty group, escaped braces that are no count, an escaped ^ and - in a class.",
         {"patterns": ["x(?:)\\{2\\}[\\^\\-]"]}, "a x{2}^", {**VIOLATION, "span": [2, 7]})

    S = "patterns.semantics"
    deny("every-construct", "patterns.grammar",
         "A pattern using every construct of the dialect: alternation in a non-capturing group, "
         "a capturing group, a class with ranges, a counted repeat and an escaped literal.",
         {"patterns": ["(?:sk|pk)_(live|test)-[A-Za-z0-9]{4,8}\\.?"]},
         "key pk_test-Ab12cd34.", {**VIOLATION, "span": [4, 21]})
    deny("escaped-syntax-literals", "patterns.grammar",
         "Every syntax character escaped with \\ is itself.",
         {"patterns": ["\\$\\^\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\\\"]},
         "a $^.*+?()[]{}|\\ b", {**VIOLATION, "span": [2, 16]})
    deny("control-escapes", "patterns.grammar",
         "\\t, \\r and \\n are the tab, carriage return and line feed.",
         {"patterns": ["a\\tb\\r\\nc"]}, "-a\tb\r\nc-", {**VIOLATION, "span": [1, 7]})
    deny("class-dash-first-caret-later", "patterns.grammar",
         "In a class a - first (or last) is itself, and a ^ that is not first is itself.",
         {"patterns": ["[-^a]{3}"]}, "x-^a", {**VIOLATION, "span": [1, 4]})
    deny("leftmost-first", S,
         "Alternation is leftmost-first, as a backtracking engine (and RE2 / Rust by default) "
         "finds it: ab|abcdef on 'abcdef' matches 'ab', not the longest alternative.",
         {"patterns": ["ab|abcdef"]}, "abcdef", {**VIOLATION, "span": [0, 2]})
    deny("greedy", S, "Quantifiers are greedy: a{2,4} on 'aaaaa' matches four.",
         {"patterns": ["a{2,4}"]}, "aaaaa", {**VIOLATION, "span": [0, 4]})
    deny("negated-class-takes-line-feed", S,
         "A negated class matches any character it does not list, a line feed included.",
         {"patterns": ["a[^b]c"]}, "a\nc", {**VIOLATION, "span": [0, 3]})

    F = "patterns.flags"
    deny("ignorecase-kelvin-sign", F,
         "IGNORECASE is simple case folding: k matches U+212A KELVIN SIGN, whose folding is k.",
         {"patterns": ["k"], "flags": ["IGNORECASE"]}, "\u212a", {**VIOLATION, "span": [0, 1]})
    deny("ignorecase-sharp-s", F,
         "Simple case folding maps U+1E9E LATIN CAPITAL LETTER SHARP S to U+00DF.",
         {"patterns": ["\u00df"], "flags": ["IGNORECASE"]}, "\u1e9e",
         {**VIOLATION, "span": [0, 1]})
    deny("ignorecase-dotted-i", F,
         "Simple case folding leaves U+0130 (I with dot above) and U+0131 (dotless i) alone: i "
         "matches neither (Python's re.IGNORECASE would match both).",
         {"patterns": ["i"], "flags": ["IGNORECASE"]}, "\u0130 \u0131", {"ok": True})
    deny("ignorecase-class", F, "A class folds too: [a-z]{6} matches 'SECRET'.",
         {"patterns": ["[a-z]{6}"], "flags": ["IGNORECASE"]}, "a SECRET",
         {**VIOLATION, "span": [2, 8]})
    deny("multiline-dotall-change-nothing", F,
         "MULTILINE and DOTALL are accepted and change nothing: the dialect has no anchors "
         "and no '.'.", {"patterns": ["a\\nb"], "flags": ["MULTILINE", "DOTALL"]}, "a\nb",
         {**VIOLATION, "span": [0, 3]})

    deny("python-re-lookbehind", "patterns.python-re",
         "The python-re extension takes Python's re syntax, look-behind included: only for an "
         "implementation that declares patterns.python-re.",
         {"patterns": ["(?<![0-9])123"], "dialect": "python-re"}, "9123 x123",
         {**VIOLATION, "span": [6, 9]}, tier="may", requires=("patterns.python-re",))
