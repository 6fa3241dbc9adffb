"""Seeded random scenarios: loom_ref's replaying kernel agrees with the linear model, and
every crash variant recovers. Hypothesis draws the programs."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from loom_ref.conformance.case import Case
from loom_ref.conformance.random_cases import random_case, random_cases

from .helpers import failures, run, unexplained


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False))
def test_random_program_passes_with_its_variants(rng: random.Random) -> None:
    case = Case(data=random_case(rng, 0, 0))
    suite = run(only=["no-such-group"], extra=[case])
    loose, _ = unexplained(suite)
    assert not loose, [(r.id, r.diff[:4]) for r in failures(suite) if r.id in loose]


def test_the_same_seed_gives_the_same_cases() -> None:
    a = [c.data for c in random_cases(5, 42)]
    b = [c.data for c in random_cases(5, 42)]
    c = [c.data for c in random_cases(5, 43)]
    assert a == b
    assert a != c
    assert all(x["id"] == f"random.s42/case-{i:04d}" for i, x in enumerate(a))
