"""Which refusals an input with several problems deserves (spec: guards.vector-run, "Several
problems"; ``conformance/INTERPRETING.md`` section 14).

- The oracle (``loom_ref.governance.refusals``) names ``argument.pattern`` for a regex outside
  the dialect where a function compiles one, ``argument.invalid`` when the input is refused
  with the regexes mended, and otherwise loom-ref's own answer.
- The fuzzer's comparison counts two refusals as agreeing only when the input deserves both.
- No case pins a refusal for an input that deserves two: either answer must pass, so a case
  holds one problem only.
"""

from __future__ import annotations

from typing import Any

import pytest

from loom_ref.conformance.fuzz.compare import disagreement, either_refusal
from loom_ref.governance.refusals import PATTERN, VECTOR_REFUSALS, input_refusals, pattern_sites

from ..conformance.helpers import SCHEMAS, cases

INVALID = "argument.invalid"
OUT = "validators.check_output"


def deny(*patterns: Any, **extra: Any) -> dict[str, Any]:
    return {"kind": "deny", "patterns": list(patterns), **extra}


@pytest.mark.parametrize(("function", "data", "codes"), [
    # one problem: only that refusal
    (OUT, {"validator": deny("("), "text": "x"}, {PATTERN}),
    (OUT, {"validator": deny("x"), "text": None}, {INVALID}),
    (OUT, {"validator": deny("x", "x"), "text": "x"}, {INVALID}),
    # a regex outside the dialect and another problem: both
    (OUT, {"validator": deny("("), "text": None}, {PATTERN, INVALID}),
    (OUT, {"validator": deny("s", "s", "("), "text": "x"}, {PATTERN, INVALID}),
    (OUT, {"validator": deny("(", "("), "text": "x"}, {PATTERN, INVALID}),  # still duplicates
    (OUT, {"validator": {"kind": "deny", "patterns": {"a": "(", "b": 5}}, "text": "x"},
     {PATTERN, INVALID}),
    (OUT, {"validator": deny("(", flags=["VERBOSE"]), "text": "x"}, {PATTERN, INVALID}),
    ("validators.check", {"validator": deny("a++"), "phase": None, "value": "x"},
     {PATTERN, INVALID}),
    ("guards.run", {"validators": [deny("(")], "deltas": None}, {PATTERN, INVALID}),
    ("guards.steps", {"validators": [deny("(")], "steps": [{"flush": True}]},
     {PATTERN, INVALID}),
    # two different bad regexes, and nothing else wrong: the regex problem only
    (OUT, {"validator": deny("(", "a++"), "text": "x"}, {PATTERN}),
    # the stand-in never collides with a regex of the input, nor widens a hold-back
    ("guards.run", {"validators": [deny("(", "\U000f0000")], "deltas": ["x"], "window": 1,
                    "holdBack": True}, {PATTERN}),
    # the python-re extension compiles its regexes itself: not a portable pattern
    (OUT, {"validator": deny("(?<=a)b", dialect="python-re"), "text": None}, {INVALID}),
    # the repair leaves alone what holds no portable pattern: a python-re validator, an
    # item that is no validator, patterns that are neither an array nor an object
    ("guards.run", {"validators": [deny("("), deny("(?<=a)b", dialect="python-re")],
                    "deltas": ["x"]}, {PATTERN}),
    ("guards.run", {"validators": [deny("("), 5], "deltas": ["x"]}, {PATTERN, INVALID}),
    ("guards.run", {"validators": [deny("("), {"kind": "deny", "patterns": "x"}],
                    "deltas": ["x"]}, {PATTERN, INVALID}),
    # a well-formed input deserves no refusal; taint functions have no pattern to compete
    (OUT, {"validator": deny("x"), "text": "x"}, set()),
    ("taint.unwrap", {"value": 1}, {"argument.not-tainted"}),
    ("taint.unwrap", {"value": [{"$tainted": 5}]}, {INVALID}),
])
def test_input_refusals(function: str, data: Any, codes: set[str]) -> None:
    assert input_refusals(function, data) == codes
    assert VECTOR_REFUSALS[function](data) == codes


def test_pattern_sites_are_the_regexes_a_function_compiles() -> None:
    data = {"validators": [deny("a", "b"), {"kind": "deny", "patterns": {"n": "c", "m": 1}},
                           {"kind": "pii"}, deny("d", dialect="python-re"), "junk"],
            "deltas": ["("]}
    assert pattern_sites("guards.run", data) == ["a", "b", "c"]
    assert pattern_sites("taint.guard_request", {"request": deny("(")}) == []
    assert pattern_sites(OUT, {"validator": [deny("(")], "text": "x"}) == []


def _reply(code: str | None) -> dict[str, Any]:
    observations = {"error": {"code": code}} if code else {"result": {"ok": True}}
    return {"seq": 1, "observations": observations}


def test_two_deserved_refusals_agree_and_nothing_else_does() -> None:
    both = {"validator": deny("("), "text": None}
    regex_only = {"validator": deny("("), "text": "x"}
    for function, data, ref, other, agree in [
        (OUT, both, PATTERN, INVALID, True),
        (OUT, both, INVALID, PATTERN, True),
        (OUT, regex_only, PATTERN, INVALID, False),  # invalid is not deserved
        (OUT, {"validator": deny("x"), "text": None}, INVALID, PATTERN, False),
        (OUT, both, PATTERN, None, False),  # a result against a refusal
        (OUT, both, PATTERN, "argument.not-tainted", False),
    ]:
        assert either_refusal(function, data, _reply(ref)["observations"],
                              _reply(other)["observations"]) is agree
        diff = disagreement(function, _reply(ref), _reply(other), SCHEMAS, data)
        assert (diff == []) is agree, (data, ref, other, diff)
    # without the input, codes must be equal (the old comparison)
    assert disagreement(OUT, _reply(PATTERN), _reply(INVALID), SCHEMAS) != []
    # a function with no oracle compares codes exactly
    assert not either_refusal("journal.parse", {}, _reply("a.b")["observations"],
                              _reply("c.d")["observations"])


def test_no_case_pins_one_of_two_deserved_refusals() -> None:
    # spec: guards.vector-run -- cases pin a refusal only for an input with one problem
    pinned = [c for c in cases() if c.family.value == "vector"
              and c.data["function"] in VECTOR_REFUSALS and "error" in c.expect]
    assert len(pinned) >= 40
    two = [(c.id, sorted(input_refusals(str(c.data["function"]), c.data["input"])))
           for c in pinned if len(input_refusals(str(c.data["function"]), c.data["input"])) > 1]
    assert two == []


def test_the_streaming_vectors_read_validators_with_the_same_oracle() -> None:
    # spec: deltas.vector-run -- "which one is implementation-defined ... a differential
    # comparison MUST NOT count two such refusals of one input as a disagreement"; found by
    # the fuzzer (seed 5): deltaWindow null beside a deny pattern outside the dialect
    from loom_ref.effects.refusals import VECTOR_REFUSALS as STREAMING

    both = {"attempts": [{"deltas": ["a"]}], "deltaWindow": None,
            "validators": [deny("a.b"), deny("s3cr3t")]}
    regex_only = {"attempts": [{"deltas": ["a"]}], "validators": [deny("a.b")]}
    redact = {"attempts": [{"deltas": ["a"]}], "redact": [deny("(")], "sequence": 1}
    assert STREAMING["deltas.run"](both) == {PATTERN, INVALID}
    assert STREAMING["deltas.run"](regex_only) == {PATTERN}
    assert STREAMING["deltas.run"](redact) == {PATTERN, INVALID}
    assert STREAMING["deltas.llm"]({"scripts": [], "validators": [deny("(")]}) == {
        PATTERN, INVALID}
    assert disagreement("deltas.run", _reply(INVALID), _reply(PATTERN), SCHEMAS, both) == []
    assert disagreement("deltas.run", _reply(PATTERN), _reply(INVALID), SCHEMAS,
                        regex_only) != []


def test_answers_past_two_to_the_53_are_not_compared() -> None:
    # INTERPRETING.md section 14, numbers past 2^53: found by the fuzzer (seed 5), a sum of
    # drawn token counts exact in Python and rounded in JavaScript
    def result(n: int) -> dict[str, Any]:
        return {"seq": 1, "observations": {"result": {"billedInputTokens": n}}}

    past = 2 ** 53 + 19
    assert disagreement("stream.usage_billed", result(past), result(past + 1), SCHEMAS) == []
    assert disagreement("stream.usage_billed", result(2 ** 53), result(2 ** 53 - 1),
                        SCHEMAS) != []
    assert disagreement("stream.usage_billed", result(5), result(6), SCHEMAS) != []
