"""The portability audit: every case is checked for the hazards of INTERPRETING.md section 15,
and every hit is either neutral or carries its capability.

A hit is *neutral* when a faithful implementation in another language cannot answer it
differently for its language's reason. Where the reading can be simulated, the test runs
loom_ref on the case as the other reading sees it (a *twin*, ``loom_ref.conformance.
portability``) and holds the twin's answer to the twin's expectation:

- astral characters (``utf16_twin``: each as two stand-ins, one per UTF-16 unit, UTF-8 byte
  counts and code-unit sort order kept): a case is neutral when its twin passes; otherwise it
  MUST require ``text.code-points``, and a case that requires it MUST NOT be neutral;
- lone surrogates (``replacement_twin``: U+FFFD for each, as Go's and Rust's JSON readers do):
  the same with ``text.lone-surrogates``;
- integral floats and ``-0`` (``integer_twin``: ``1.0`` read as ``1``): the twin MUST pass (no
  case pins either answer, section 7);
- integers beyond +-2**53: none;
- patterns: every one in the portable dialect, labelled ``python-re``, or the refused point of
  the case (the lint's check);
- message text: an expected ``message`` is a pattern, or a text the case itself scripts;
- whitespace a language's ``strip``/``trim``/``\\s`` disagrees on (U+FEFF, U+001C-U+001F,
  U+0085, ...): the spec rule the case pins spells its set out by code point;
- case folding: every IGNORECASE case is a dialect case (simple case folding, patterns.flags)
  and holds no character assigned after Unicode 13.0, whose folding is implementation-defined.
"""

from __future__ import annotations

import json
import os
import re
import unicodedata
from collections.abc import Mapping
from typing import Any

import pytest

from loom_ref.conformance.case import Case
from loom_ref.conformance.inprocess import LoomRefAdapter
from loom_ref.conformance.match import is_pattern, match
from loom_ref.conformance.portability import (
    PATTERNS_PYTHON_RE,
    TEXT_CODE_POINTS,
    TEXT_LONE_SURROGATES,
    case_patterns,
    dialect_problems,
    integer_twin,
    numbers,
    replacement_twin,
    strings,
    utf16_twin,
)
from loom_ref.conformance.provenance import ANCHOR_RE
from loom_ref.conformance.runner import expectation_of

from .helpers import CASES

SPEC = os.path.join(os.path.dirname(CASES), "..", "spec")
INTERPRETING = os.path.join(os.path.dirname(CASES), "INTERPRETING.md")
#: Whitespace that Python's str.strip / isspace, ECMAScript's trim / \s and ASCII-only readers
#: disagree on.
CONTESTED_SPACE = set("\ufeff\x1c\x1d\x1e\x1f\x85\xa0\u1680\u180e\u200b\u2028\u2029\u202f"
                      "\u205f\u3000\x0b\x0c") | {chr(c) for c in range(0x2000, 0x200B)}


def _load() -> list[dict[str, Any]]:
    found = []
    for group in sorted(os.listdir(CASES)):
        for name in sorted(os.listdir(os.path.join(CASES, group))):
            with open(os.path.join(CASES, group, name), encoding="utf-8") as f:
                found.append(json.load(f))
    return found


ALL = _load()
ADAPTER = LoomRefAdapter()


def passes(case: Mapping[str, Any]) -> bool:
    """Whether loom_ref, run on ``case`` without its expectation, answers what it expects."""
    reply = ADAPTER.run({k: v for k, v in case.items() if k not in ("expect", "excludeModes")})
    observations = json.loads(json.dumps(reply.get("observations")))
    # as the runner compares: errors partially (INTERPRETING.md section 7)
    expected = expectation_of(Case(data=case))
    return "observations" in reply and match(expected, observations) == []


def requires(case: Mapping[str, Any]) -> set[str]:
    return set(case.get("requires", ()))


def test_every_case_passes_as_it_is() -> None:  # the twins below are compared to this
    assert [c["id"] for c in ALL if not passes(c)] == []


#: Cases a twin cannot model, each with why it is neutral all the same; each must still be
#: one the twin gets wrong (so an entry goes once the twin learns the case).
TWIN_BLIND = {
    "journal.format/surrogate-pair-escape":
        "the astral character is a JSON escape pair inside a CRC-checked journal line, which "
        "the twin cannot rewrite; the case pins the escape's decoding into one character, "
        "which a UTF-16 reader does alike",
}


def test_astral_text_is_neutral_or_requires_code_points() -> None:
    wrong = []
    hits = 0
    for case in ALL:
        twin = utf16_twin(case)
        labelled = TEXT_CODE_POINTS in requires(case)
        if twin is None:
            if labelled:
                wrong.append((case["id"], "requires text.code-points but holds no astral text"))
            continue
        hits += 1
        if case["id"] in TWIN_BLIND:
            assert not passes(twin) and not labelled, case["id"]
            continue
        neutral = passes(twin)
        if neutral == labelled:
            wrong.append((case["id"], "neutral: drop text.code-points" if neutral else
                          "a UTF-16 reading answers differently: require text.code-points"))
    assert wrong == []
    assert hits >= 9


def test_lone_surrogates_are_neutral_or_require_their_capability() -> None:
    wrong = []
    for case in ALL:
        twin = replacement_twin(case)
        labelled = TEXT_LONE_SURROGATES in requires(case)
        neutral = twin is None or passes(twin)
        if neutral == labelled:
            wrong.append(case["id"])
    assert wrong == []


def test_integral_floats_and_negative_zero_are_neutral() -> None:
    twins = [(c["id"], t) for c in ALL if (t := integer_twin(c)) is not None]
    assert len(twins) >= 10  # the backoff and clock cases write 1.0
    assert [i for i, t in twins if not passes(t)] == []


def test_no_integer_beyond_two_to_the_53() -> None:
    assert [(c["id"], p) for c in ALL for p, v in numbers(c)
            if isinstance(v, int) and abs(v) > 2**53] == []


def test_every_pattern_is_portable_labelled_or_the_point() -> None:
    assert [(c["id"], p) for c in ALL for p in dialect_problems(c)] == []
    carrying = [c for c in ALL if case_patterns(c)]
    assert len(carrying) >= 60
    # a case labelled python-re requires the extension; "dialect": "portable-1" written out is
    # a refused member, its pattern in the dialect (validators.deny/dialect-portable-1-refused)
    labelled = [c["id"] for c in carrying
                if any(label == "python-re" for _, _, label in case_patterns(c))]
    assert labelled and all(PATTERNS_PYTHON_RE in requires(c) for c in ALL
                            if c["id"] in labelled)


def _messages(expect: Any, path: str = "") -> list[tuple[str, Any]]:
    """The ``message`` of every error-shaped object (one with a ``code``) of an expectation."""
    if isinstance(expect, Mapping):
        if is_pattern(expect):
            return []
        found = [(f"{path}.message", expect["message"])] if {"code", "message"} <= set(
            expect) else []
        return found + [m for k, v in expect.items() if k != "message"
                        for m in _messages(v, f"{path}.{k}")]
    if isinstance(expect, list):
        return [m for i, v in enumerate(expect) for m in _messages(v, f"{path}[{i}]")]
    return []


def _spec_text() -> str:
    return "".join(open(os.path.join(SPEC, n), encoding="utf-8").read()
                   for n in sorted(os.listdir(SPEC)) if n.endswith(".md"))


def test_no_message_text_an_implementation_writes_is_compared() -> None:
    """An expected error message is a pattern, a text the case scripts (a string of its input,
    or a JSON string inside one, as a provider's body spells its error's message), or a default
    the spec spells out (`"scripted failure"`): never words an implementation chooses."""
    spec = _spec_text()
    wrong = []
    for case in ALL:
        scripted = {s for _, s in strings({k: v for k, v in case.items() if k != "expect"})}
        for path, value in _messages(case["expect"]):
            if is_pattern(value) or (isinstance(value, str) and (
                    value in scripted or f'"{value}"' in spec
                    or any(json.dumps(value) in s for s in scripted))):
                continue
            wrong.append((case["id"], path, value))
    assert wrong == []


def _rule_text(anchor: str) -> str:
    """The spec paragraph (a list item) that defines ``anchor``."""
    for name in os.listdir(SPEC):
        if not name.endswith(".md"):
            continue
        with open(os.path.join(SPEC, name), encoding="utf-8") as f:
            text = f.read()
        found = next((m for m in ANCHOR_RE.finditer(text) if m.group(1) == anchor), None)
        if found is not None:
            at = found.start()
            start = text.rfind("\n- ", 0, at)
            return text[start:at]
    raise AssertionError(f"no rule {anchor}")


def test_contested_whitespace_is_spelled_out_by_the_rule() -> None:
    hits = [c for c in ALL if any(ch in CONTESTED_SPACE for _, s in strings(c) for ch in s)]
    assert len(hits) >= 5
    vague = [(c["id"], c["anchor"]) for c in hits
             if not re.search(r"U\+[0-9A-F]{4}", _rule_text(c["anchor"]))]
    assert vague == []


def test_ignorecase_cases_are_dialect_cases() -> None:
    folded = [c for c in ALL if "IGNORECASE" in json.dumps(c.get("input", {}))]
    assert len(folded) >= 5
    assert [c["id"] for c in folded if dialect_problems(c)] == []


#: The case pairs Unicode 14.0 added (capital, small): Go 1.16 to 1.20 fold by Unicode 13.0
#: and do not know them (spec/governance.md, patterns.flags).
CASED_IN_14 = {chr(p) for capital in (0x2C2F, 0xA7C0, 0xA7D0, 0xA7D6, 0xA7D8)
               for p in (capital, capital + (0x30 if capital == 0x2C2F else 1))} | {
    chr(p) for lo, hi in ((0x10570, 0x1057A), (0x1057C, 0x1058A), (0x1058C, 0x10592),
                          (0x10594, 0x10595)) for c in range(lo, hi + 1) for p in (c, c + 0x27)}


def test_ignorecase_cases_hold_no_character_assigned_after_unicode_13() -> None:
    # spec: patterns.flags -- how a character assigned after Unicode 13.0 folds is
    # implementation-defined, so no IGNORECASE case holds one (one this Python does not know
    # is later than its own database, 14.0 or newer)
    assert len(CASED_IN_14) == 80
    assert all(c.lower() != c.upper() for c in CASED_IN_14)
    folded = [c for c in ALL if "IGNORECASE" in json.dumps(c.get("input", {}))]
    late = [(c["id"], f"U+{ord(ch):04X}") for c in folded for _, s in strings(c) for ch in s
            if ch in CASED_IN_14 or unicodedata.category(ch) == "Cn"]
    assert late == []


@pytest.mark.parametrize("capability", [TEXT_CODE_POINTS, TEXT_LONE_SURROGATES,
                                        PATTERNS_PYTHON_RE])
def test_each_capability_is_used_and_documented(capability: str) -> None:
    """Section 15's table names the capability and every case that requires it."""
    users = [c["id"] for c in ALL if capability in requires(c)]
    assert users
    with open(INTERPRETING, encoding="utf-8") as f:
        chapter = f.read().split("## 15. Portability", 1)[1]
    row = next(line for line in chapter.splitlines() if line.startswith(f"| `{capability}` |"))
    assert sorted(re.findall(r"`([a-z]+(?:\.[a-z-]+)+/[a-z0-9-]+)`", row)) == sorted(users)


# -- the machinery can fail: synthetic cases ------------------------------------------------------


def _deny_case(pattern: Any, expect: Any, **extra: Any) -> dict[str, Any]:
    return {"id": "x.y/z", "family": "vector", "function": "validators.check_output",
            "anchor": "validators.deny", "tier": "must", "description": "",
            "input": {"validator": {"kind": "deny", "patterns": [pattern], **extra},
                      "text": "a\U0001F600b"},
            "expect": expect, **({"requires": extra.pop("requires")} if "requires" in extra
                                 else {})}


def test_the_pattern_check_refuses_what_it_should() -> None:
    ok = {"result": {"ok": True}}
    refused = {"error": {"code": "argument.pattern"}}
    assert dialect_problems(_deny_case("a[^b]b", ok)) == []
    assert dialect_problems(_deny_case("a.b", ok))  # outside, not the point
    assert dialect_problems(_deny_case("a.b", refused)) == []  # the point of the case
    assert dialect_problems(_deny_case("a[^b]b", refused))  # the point, but nothing outside
    labelled = _deny_case("(?<=a)b", ok, dialect="python-re")
    assert dialect_problems(labelled)  # without the capability
    labelled["requires"] = [PATTERNS_PYTHON_RE]
    assert dialect_problems(labelled) == []
    regex = {**_deny_case("a", ok), "expect": {"result": {"name": {"$regex": "^x"}}}}
    assert dialect_problems(regex)
    body = [{"op": "suspend", "gate": "g", "resumeSchema": {
        "properties": {"pattern": {"type": "string", "pattern": "a.b"}}}}]
    scenario = {"family": "scenario", "workflow": {"name": "w", "body": body,
                                                   "resumeSchemas": {"g": {"pattern": "[a]"}}},
                "expect": {}}
    assert sorted(p for p, _, _ in case_patterns(scenario)) == [
        "$.workflow.body[0].resumeSchema.properties.pattern.pattern",
        "$.workflow.resumeSchemas.g.pattern"]
    assert len(dialect_problems(scenario)) == 1


def test_the_utf16_twin_tells_a_span_that_counts_code_points() -> None:
    case = _deny_case("b", {"result": {"ok": False, "code": "governance.safety-violation",
                                       "validator": "deny-patterns", "rule": "b",
                                       "span": [2, 3]}})
    assert passes(case)
    twin = utf16_twin(case)
    assert twin is not None and "\U0001F600" not in json.dumps(twin, ensure_ascii=False)
    assert not passes(twin)  # a code-unit reading puts b at [3, 4]
    assert utf16_twin({**case, "input": {"text": "plain"}, "expect": {}}) is None


def test_the_other_twins() -> None:
    case = {"input": {"key": "s:\ud800", "base": 1.0, "n": 2}, "expect": {"result": 1.0}}
    assert replacement_twin(case) == {"input": {"key": "s:\ufffd", "base": 1.0, "n": 2},
                                      "expect": {"result": 1.0}}
    assert integer_twin(case) == {"input": {"key": "s:\ud800", "base": 1, "n": 2},
                                  "expect": {"result": 1.0}}
    assert replacement_twin({"input": "x"}) is None and integer_twin({"input": 1.5}) is None
