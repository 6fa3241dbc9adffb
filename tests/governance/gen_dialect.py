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

    # where the text had left a reason open (issue 29: found by a blind Go implementation)
    def refused(name: str, pattern: str, reason: str, why: str,
                anchor: str = "patterns.reasons") -> None:
        deny(name, anchor, f"{pattern!r} is outside the portable dialect, reason {reason}: {why}",
             {"patterns": [pattern]}, "x",
             {"error": "argument.pattern", "details": {"reason": reason}})

    refused("reason-escape-class-backspace", "[\\b]", "escape", "inside a class only the "
            "class grammar applies; \\b there is a backspace to Python and ECMAScript, never "
            "an anchor.")
    refused("reason-escape-class-backslash-digit", "[\\1]", "escape", "inside a class \\1 is "
            "an octal escape to Python, never a backreference.")
    refused("reason-class-escape-in-class", "[\\d]", "class-escape", "a class escape stays a "
            "class escape inside a class.")
    refused("reason-anchor-word-boundary", "a\\b", "anchor", "outside a class \\b is the "
            "word boundary.")
    refused("reason-syntax-count-at-start", "{2}", "syntax", "a well-formed count where an atom "
            "is expected has nothing to repeat.")
    refused("reason-escape-brace-at-start", "{x", "escape", "a { that opens no count where an "
            "atom is expected is a literal to Python, an error to ECMAScript's u mode.")
    refused("reason-quantifier-malformed-count", "a{,3}", "quantifier", "a { after an atom "
            "that opens no well-formed count ({,n} is a count to Python, a literal to others).")
    refused("reason-quantifier-count-after-star", "a*{2}", "quantifier", "a counted "
            "quantifier right after a quantifier.")
    refused("reason-empty-repeat-optional", "a(?:b?)?", "empty-repeat", "? is a quantifier "
            "too: its operand b? can match the empty string.", anchor="patterns.limits")
    refused("reason-empty-repeat-zero-count", "a(?:b?){0}", "empty-repeat", "{0} is a "
            "quantifier too: its operand b? can match the empty string.",
            anchor="patterns.limits")
    refused("reason-repeat-under-zero-count", "(?:a{1001}){0}b", "repeat", "a single count "
            "above 1000 is out even under {0}: engines refuse the count before they look "
            "around it.", anchor="patterns.limits")
    refused("reason-repeat-maximum-under-zero-count", "(?:a{0,1001}){0}b", "repeat", "a "
            "single count's maximum above 1000 is out even under {0} and with a minimum of 0: "
            "each count of {n,m} is held to 1000, the maximum as well as the minimum.",
            anchor="patterns.limits")
    refused("reason-size-counts-maximum", "x[a-z]{1,1000}" * 10, "size", "{1,1000} counts its "
            "maximum for the expanded size: ten times 1001 is 10010, above 10000.",
            anchor="patterns.limits")
    deny("size-counts-minimum-of-open", "patterns.limits",
         "{900,} counts its minimum for the expanded size: eleven times 901 is 9911, within "
         "10000, so the pattern is in the dialect.",
         {"patterns": ["x[a-z]{900,}" * 11]}, "x", {"ok": True})
    # issue 30: each limit of patterns.limits pinned on both sides, exactly at N and at N+1
    deny("length-at-limit", "patterns.limits",
         "A pattern of exactly 4096 code points (the limit) is in the dialect.",
         {"patterns": ["a" * 4096]}, "x", {"ok": True})
    deny("nesting-at-limit", "patterns.limits",
         "Groups nested exactly 32 deep (the limit) are in the dialect.",
         {"patterns": ["(" * 32 + "a" + ")" * 32]}, "x", {"ok": True})
    # issue 30 (sample 803808): the depth is the nesting, not the count of groups met so far
    deny("siblings-are-not-depth", "patterns.limits",
         "33 groups side by side are each 1 deep (a group at the top level is 1 deep): the "
         "pattern is in the dialect.", {"patterns": ["(?:a)" * 33]}, "x", {"ok": True})
    deny("nesting-at-limit-after-sibling", "patterns.limits",
         "A closed group before 32 nested groups does not change their depth: 32 deep is in.",
         {"patterns": ["(?:a)" + "(" * 32 + "b" + ")" * 32]}, "x", {"ok": True})
    deny("reason-nesting-after-sibling", "patterns.limits",
         "A closed group before 33 nested groups does not lower their depth: 33 deep is out "
         "(reason nesting).",
         {"patterns": ["(?:a)" + "(" * 33 + "b" + ")" * 33]}, "x",
         {"error": "argument.pattern", "details": {"reason": "nesting"}})
    deny("size-at-limit", "patterns.limits",
         "An expanded size of exactly 10000 (ten [a-z]{1000}) is in the dialect.",
         {"patterns": ["[a-z]{1000}" * 10]}, "x", {"ok": True})
    deny("reason-repeat-zero-count-not-multiplied", "patterns.limits",
         "A count of 0 is not multiplied, so it does not cancel the counts around it: "
         "(?:(?:a{50}){0}b){30} has a path of 50 times 30, 1500, above 1000 (reason repeat).",
         {"patterns": ["(?:(?:a{50}){0}b){30}"]}, "x",
         {"error": "argument.pattern", "details": {"reason": "repeat"}})
    deny("count-at-limit-under-zero-count", "patterns.limits",
         "A single count of exactly 1000 under {0} is in the dialect (the accept side of "
         "reason-repeat-under-zero-count's 1001): (?:a{1000}){0}b.",
         {"patterns": ["(?:a{1000}){0}b"]}, "x", {"ok": True})
    deny("reason-size-one-past", "patterns.limits",
         "An expanded size of 10001 (ten [a-z]{1000} and one more character) is outside the "
         "dialect, reason size.",
         {"patterns": ["[a-z]{1000}" * 10 + "a"]}, "x",
         {"error": "argument.pattern", "details": {"reason": "size"}})
    deny("reason-repeat-one-past", "patterns.limits",
         "Nested counts multiplying to 1001, one past the limit: (?:a{7}){143} is outside the "
         "dialect, reason repeat.",
         {"patterns": ["(?:a{7}){143}"]}, "x",
         {"error": "argument.pattern", "details": {"reason": "repeat"}})
    deny("repeat-product-at-limit", "patterns.limits",
         "Nested counts multiplying to exactly 1000 are in the dialect: (?:a{2}){500}.",
         {"patterns": ["(?:a{2}){500}"]}, "x", {"ok": True})
    refused("reason-class-misplaced-dash", "[a-b-c]", "class", "a - after a range is neither "
            "between two characters of a range nor first or last.")
    refused("reason-syntax-reversed-range", "[z-a]", "syntax", "a reversed range is no regex "
            "in any engine.")
    refused("reason-backreference-named", "(?P=n)", "backreference", "a named backreference "
            "(Python's); RE2, Go and Rust have none.")
    refused("reason-escape-nul", "\\0", "escape", "\\0 is NUL to ECMAScript and Python, an "
            "error to Go: the dialect has no such escape (a case file holds the character).")
    refused("reason-group-bare", "a(?", "group", "any (? form but (?: is out, a bare one "
            "too.")

    # issue 29, the third blind reading
    refused("reason-syntax-unterminated-class-after-dash", "[a-", "syntax", "the pattern ends "
            "inside a class; a - the pattern ends after is the class's last (in the grammar), "
            "so the one problem is the unterminated class.")
    refused("reason-syntax-quantifier-after-open-group", "(*a)", "syntax", "a quantifier right "
            "after ( has nothing to repeat, as one after | or at the start.")
    refused("reason-quantifier-malformed-count-after-quantifier", "a*{x", "quantifier", "a { "
            "after a quantified atom that opens no well-formed count is read where a "
            "quantifier stands (a { never starts an atom).")
    refused("reason-class-set-operator-across-range", "[&-&&]", "class", "two equal unescaped "
            "& adjacent in the pattern text, the second ending a range: consecutive means "
            "adjacent in the text, whatever items the characters belong to.")
    deny("class-range-between-set-characters", "patterns.grammar",
         "[a&-&] holds no two equal adjacent & ~ |: the range &-& lies between a and the end, "
         "so the class is in the dialect.", {"patterns": ["[a&-&]"]}, "x&",
         {**VIOLATION, "span": [1, 2]})
    # issue 29, the governance chapter's fresh (fourth) blind reading: open points pinned
    refused("reason-syntax-reversed-range-escaped-end", "[a-\\-]", "syntax", "an escaped "
            "range end is the character it stands for: a-\\- runs from a down to -, reversed.")
    deny("class-range-from-escaped-dash", "patterns.grammar",
         "An escaped range start is the character it stands for: [\\--a] is the range from - "
         "to a, in the dialect, and matches _ (U+005F lies between).", {"patterns": ["[\\--a]"]},
         "x_", {**VIOLATION, "span": [1, 2]})
    refused("reason-escape-beside-set-character", "[a\\&&]", "escape", "an escaped character "
            "is never one of two equal consecutive & ~ |: the one problem is the escape \\&, "
            "outside the class grammar.", anchor="patterns.grammar")
    deny("class-escaped-bar-beside-bar", "patterns.grammar",
         "An escaped character is never one of two equal consecutive & ~ |: [\\||] (an escaped "
         "| then |) is in the dialect.", {"patterns": ["[\\||]"]}, "x|",
         {**VIOLATION, "span": [1, 2]})
    deny("nesting-at-limit-with-class", "patterns.limits",
         "A class is not a group: 32 nested groups around a class are in the dialect.",
         {"patterns": ["(" * 32 + "[a]" + ")" * 32]}, "x", {"ok": True})

    # issue 30: each reason the parser gives, as the coverage of the suite found them unreached
    refused("reason-syntax-count-min-above-max", "a{3,2}", "syntax", "a count {m,n} with m "
            "above n is no regex in any engine.")
    refused("reason-escape-unescaped-bracket", "a]", "escape", "an unescaped ] outside a "
            "class is a literal to Python, an error to ECMAScript's u mode.")
    refused("reason-escape-unescaped-brace", "a}", "escape", "an unescaped } is a literal to "
            "Python, an error to ECMAScript's u mode.")
    refused("reason-class-unescaped-bracket", "[[]", "class", "an unescaped [ inside a class "
            "opens a nested class (or a POSIX class) to some engines.")
    refused("reason-class-two-dashes", "[--]", "class", "a class of two dashes: the first - "
            "is first, the second last, and the class is still refused.")
    refused("reason-class-range-ends-with-dash", "[a--]", "class", "a range whose end is an "
            "unescaped - (a-- before the ]).")

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
    deny("class-dash-first-ignorecase", "patterns.grammar",
         "A - first in a class is itself under IGNORECASE too: [-q]y matches -Y.",
         {"patterns": ["[-q]y"], "flags": ["IGNORECASE"]}, "a-Y", {**VIOLATION, "span": [1, 3]})
    deny("class-dash-last-ignorecase", "patterns.grammar",
         "A - last in a class is itself under IGNORECASE too: y[q-] matches Y-.",
         {"patterns": ["y[q-]"], "flags": ["IGNORECASE"]}, "aY-", {**VIOLATION, "span": [1, 3]})
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
    deny("ignorecase-negated-class", F,
         "A negated class is negated after folding: under IGNORECASE [^ak] matches neither A "
         "nor U+212A KELVIN SIGN (each folds to a member).",
         {"patterns": ["[^ak]"], "flags": ["IGNORECASE"]}, "A\u212a", {"ok": True})
    # issue 30: every construct under IGNORECASE (loom-ref re-emits the pattern for Python)
    deny("ignorecase-every-construct", F,
         "IGNORECASE folds through every construct: a non-capturing group with alternation "
         "repeated by +, a capturing group made optional by ?, a literal repeated by *: "
         "x(?:ab|cd)+(e)?z* matches 'XABCDEZZ' whole.",
         {"patterns": ["x(?:ab|cd)+(e)?z*"], "flags": ["IGNORECASE"]}, "-XABCDEZZ-",
         {**VIOLATION, "span": [1, 9]})
    deny("ignorecase-class-without-i", F,
         "A class holding none of I, i, U+0130, U+0131 folds as any class: [x-z]{2} matches "
         "'XY'.", {"patterns": ["[x-z]{2}"], "flags": ["IGNORECASE"]}, "a XY",
         {**VIOLATION, "span": [2, 4]})
    deny("ignorecase-dotted-capital-i-literal", F,
         "Under IGNORECASE a literal U+0130 (I with dot above) matches only itself: simple case "
         "folding gives it no other (its folding to i is full folding, status F and T), so "
         "neither i nor I matches it.",
         {"patterns": ["\u0130"], "flags": ["IGNORECASE"]}, "iI\u0130",
         {**VIOLATION, "span": [2, 3]})
    deny("ignorecase-dotless-i-literal", F,
         "Under IGNORECASE a literal U+0131 (dotless i) matches only itself: it has no simple "
         "case folding, so neither I nor i matches it.",
         {"patterns": ["\u0131"], "flags": ["IGNORECASE"]}, "Ii\u0131",
         {**VIOLATION, "span": [2, 3]})
    deny("ignorecase-astral-literal", F,
         "IGNORECASE folds outside the BMP too: U+10400 DESERET CAPITAL LONG I matches U+10428, "
         "its simple case folding (spans count code points: the match is one).",
         {"patterns": ["\U00010400"], "flags": ["IGNORECASE"]}, "a\U00010428",
         {**VIOLATION, "span": [1, 2]}, requires=("text.code-points",))
    deny("ignorecase-astral-in-class", F,
         "An astral member of a class folds too: [a U+10400] matches U+10428.",
         {"patterns": ["[a\U00010400]"], "flags": ["IGNORECASE"]}, "-\U00010428",
         {**VIOLATION, "span": [1, 2]}, requires=("text.code-points",))
    deny("ignorecase-astral-alternative", F,
         "An alternation of single characters, one astral, matches that character under "
         "IGNORECASE (CPython 3.11's re, compiling it into a set, would not even match "
         "U+10400 itself).",
         {"patterns": ["a|\U00010400"], "flags": ["IGNORECASE"]}, "-\U00010400",
         {**VIOLATION, "span": [1, 2]}, requires=("text.code-points",))
    deny("multiline-dotall-change-nothing", F,
         "MULTILINE and DOTALL are accepted and change nothing: the dialect has no anchors "
         "and no '.'.", {"patterns": ["a\\nb"], "flags": ["MULTILINE", "DOTALL"]}, "a\nb",
         {**VIOLATION, "span": [0, 3]})

    deny("python-re-bad-regex", "patterns.python-re",
         "Under the python-re extension a regex Python's re cannot compile (an unbalanced "
         "group) is argument.invalid, not argument.pattern: only for an implementation that "
         "declares patterns.python-re.",
         {"patterns": ["(secret"], "dialect": "python-re"}, "x",
         {"error": "argument.invalid"}, tier="may", requires=("patterns.python-re",))
    deny("python-re-lookbehind", "patterns.python-re",
         "The python-re extension takes Python's re syntax, look-behind included: only for an "
         "implementation that declares patterns.python-re.",
         {"patterns": ["(?<![0-9])123"], "dialect": "python-re"}, "9123 x123",
         {**VIOLATION, "span": [6, 9]}, tier="may", requires=("patterns.python-re",))
