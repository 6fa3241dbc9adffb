"""Vectors for ``effects.backoff`` (spec ``effects.retry-backoff``), consensus-specs style.

:data:`CASES` lists the inputs; :func:`expected` asks loom_ref for each answer. The test checks
that every case file under ``conformance/cases/effects.backoff/`` equals what loom_ref answers
now (so the files cannot drift) and that no stray file exists. Regenerate the files with::

    LOOM_REGEN_VECTORS=1 python -m pytest tests/effects/test_effects_backoff_vectors.py

Independent checks (not derived from loom_ref) pin the answers: jitter-free delays computed by
hand, and the jitter fraction recomputed here straight from the spec's BLAKE2b formula.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loom_ref.conformance.case import canonical_json as canonical
from loom_ref.effects import backoff_delay, jitter_fraction
from loom_ref.effects.vectors import vector_backoff
from loom_ref.errors import LoomError
from tests.casefiles import stamp

GROUP = "effects.backoff"
CASE_DIR = Path(__file__).resolve().parents[2] / "conformance" / "cases" / GROUP


def _input(attempt: int, *, base: float = 0.1, mult: float = 2.0, cap: float = 10.0,
           jitter: float = 0.0, key: str = ":") -> dict[str, Any]:
    return {"attempt": attempt, "base_delay": base, "multiplier": mult, "max_delay": cap,
            "jitter": jitter, "key": key}


#: name -> (description, input)
CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "first-attempt": ("attempt 1 waits base_delay", _input(1)),
    "exponential": ("attempt 3 waits base * multiplier**2", _input(3)),
    "capped": ("the delay never exceeds max_delay", _input(10, base=1.0, cap=30.0)),
    "huge-attempt": ("a huge attempt number is capped without overflow",
                     _input(1_000_000, base=1.0, cap=5.0)),
    "zero-base": ("a zero base delay stays zero", _input(7, base=0.0)),
    "multiplier-one": ("multiplier 1 is a constant delay", _input(4, base=0.5, mult=1.0)),
    "jitter-half": ("half jitter, keyed by seed and idempotency key",
                    _input(1, jitter=0.5, key="seed:exec-1/model#1")),
    "jitter-full": ("full jitter on attempt 2", _input(2, base=1.0, jitter=1.0,
                                                       key=":exec-1/model#1")),
    "jitter-other-key": ("another key gives another delay", _input(2, base=1.0, jitter=1.0,
                                                                   key=":exec-2/model#1")),
    "round-tie-even": ("round(x, 6) rounds the exact binary value, a tie to even: "
                       "0.0078125 (= 1/128) gives 0.007812", _input(1, base=0.0078125)),
    "error-attempt-zero": ("attempts are 1-based", _input(0)),
    "error-jitter-above-one": ("jitter is a fraction in [0, 1]", _input(1, jitter=1.5)),
    "error-multiplier-below-one": ("the multiplier never shrinks the delay",
                                   _input(2, mult=0.5)),
    "error-negative-base": ("delays are non-negative", _input(1, base=-1.0)),
    "error-negative-max-delay": ("a negative delay is refused, the cap's too",
                                 _input(1, cap=-1.0)),
    "max-below-base": ("a max_delay below base_delay is no error: the cap applies from the "
                       "first attempt", _input(2, base=5.0, cap=1.5)),
    "error-attempt-boolean": ("attempt is an integer, and a boolean is not a number "
                              "(INTERPRETING.md section 7)", {**_input(1), "attempt": True}),
    "error-lone-surrogate-key": ("utf8(key) is undefined for a lone surrogate: the key is "
                                 "refused", _input(1, jitter=0.5, key="s:\ud800")),
    "jitter-non-ascii-key": ("the key is hashed as its UTF-8 bytes: a key beyond ASCII "
                             "(two- and three-byte characters)",
                             _input(2, base=1.0, jitter=1.0, key="s\u00e9:\u65e5")),
    "error-missing-key": ("all six members are required: an input without key is refused",
                          {k: v for k, v in _input(1).items() if k != "key"}),
    "error-extra-member": ("no other member is allowed: an unknown one is refused",
                           {**_input(1), "seed": "s"}),
    "error-key-number": ("key is a string: a number is refused", {**_input(1), "key": 5}),
    "error-base-delay-string": ("base_delay is a number: a string is refused",
                                {**_input(1), "base_delay": "0.1"}),
    "error-jitter-boolean": ("jitter is a number, and a boolean is not one "
                             "(INTERPRETING.md section 7)", {**_input(1), "jitter": False}),
}


def expected(input: dict[str, Any]) -> dict[str, Any]:
    """What loom_ref answers for ``input`` (the ``expect`` field of a case): the conformance
    function's answer, which reads the input (every member required, no other) and calls
    ``backoff_delay``."""
    try:
        return {"result": vector_backoff(input)}
    except LoomError as error:
        return {"error": {"code": error.code}}


#: Cases that depend on a reading of INTERPRETING.md section 15 (Portability): a JSON reader
#: that turns a lone surrogate into U+FFFD (Go's, Rust's) would hash the key instead.
REQUIRES = {"error-lone-surrogate-key": ["text.lone-surrogates"]}


def case(name: str) -> dict[str, Any]:
    description, input = CASES[name]
    doc = {
        "id": f"{GROUP}/{name}",
        "anchor": "effects.retry-backoff",
        "tier": "must",
        "description": description,
        "family": "vector",
        "function": "effects.backoff",
        "input": input,
        "expect": expected(input),
    }
    if name in REQUIRES:
        doc["requires"] = REQUIRES[name]
    return doc


def test_case_files_match_reference() -> None:
    if os.environ.get("LOOM_REGEN_VECTORS") == "1":
        CASE_DIR.mkdir(parents=True, exist_ok=True)
        for stale in CASE_DIR.glob("*.json"):
            stale.unlink()
        for name in CASES:
            (CASE_DIR / f"{name}.json").write_text(canonical(stamp(case(name))), encoding="utf-8")
    files = sorted(p.stem for p in CASE_DIR.glob("*.json"))
    assert files == sorted(CASES)
    for name in CASES:
        text = (CASE_DIR / f"{name}.json").read_text(encoding="utf-8")
        loaded = json.loads(text)
        assert text == canonical(loaded), f"{name}: not canonical JSON"
        # The file's answer is what loom_ref computes from the file's own input.
        assert loaded["expect"] == expected(loaded["input"]), name
        assert loaded == stamp(case(name)), name


@pytest.mark.parametrize(
    ("name", "delay"),
    [("first-attempt", 0.1), ("exponential", 0.4), ("capped", 30.0), ("huge-attempt", 5.0),
     ("zero-base", 0.0), ("multiplier-one", 0.5), ("round-tie-even", 0.007812)],
)
def test_jitter_free_delays_by_hand(name: str, delay: float) -> None:
    assert expected(CASES[name][1]) == {"result": delay}


def _spec_fraction(key: str, attempt: int) -> float:
    # Straight from spec/effects.md effects.retry-backoff.
    digest = hashlib.blake2b((key + "#" + str(attempt)).encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2**64


@pytest.mark.parametrize("name", ["jitter-half", "jitter-full", "jitter-other-key",
                                  "jitter-non-ascii-key"])
def test_jittered_delays_follow_the_formula(name: str) -> None:
    input = CASES[name][1]
    u = _spec_fraction(input["key"], input["attempt"])
    d = min(input["max_delay"], input["base_delay"] * input["multiplier"] ** (input["attempt"] - 1))
    want = round(d * (1 - input["jitter"] + input["jitter"] * u), 6)
    assert expected(input) == {"result": want}


def test_keys_decorrelate() -> None:
    assert expected(CASES["jitter-full"][1]) != expected(CASES["jitter-other-key"][1])


@pytest.mark.parametrize("name", [n for n in CASES if n.startswith("error-")])
def test_bad_arguments_are_invalid_argument(name: str) -> None:
    assert expected(CASES[name][1]) == {"error": {"code": "argument.invalid"}}


@settings(max_examples=200, deadline=None)
@given(
    attempt=st.integers(1, 60),
    base=st.floats(0, 100),
    mult=st.floats(1, 10),
    cap=st.floats(0, 1000),
    jitter=st.floats(0, 1),
    key=st.text(max_size=20),
)
def test_delay_within_bounds_and_deterministic(
    attempt: int, base: float, mult: float, cap: float, jitter: float, key: str
) -> None:
    delay = backoff_delay(attempt, base_delay=base, multiplier=mult, max_delay=cap,
                          jitter=jitter, key=key)
    again = backoff_delay(attempt, base_delay=base, multiplier=mult, max_delay=cap,
                          jitter=jitter, key=key)
    assert delay == again
    assert 0.0 <= jitter_fraction(key, attempt) < 1.0
    try:
        d = min(cap, base * mult ** (attempt - 1))
    except OverflowError:
        d = cap
    # Repeated multiplication may differ from pow in the last bits; rounding adds 5e-7.
    assert d * (1 - jitter) * (1 - 1e-9) - 1e-6 <= delay <= d * (1 + 1e-9) + 1e-6
