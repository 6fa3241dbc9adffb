"""Governance cases that close the survivors of a 120-mutant governance sweep (issue 30,
scored on commit becc1a0, branch s12g):

- the default token count is ``ceil(len / 4)`` at its step: a delta of 4 characters counts 1
  token, one of 5 counts 2, so with a budget of 2 ``abcd`` is delivered and ``efghi`` (1 + 2 =
  3 > 2) is severed (spec: guards.token-count, the accept side at 4 and the refuse side at 5).

``gen_vectors.py`` calls :func:`register` with its ``case``, so ``python -m
tests.governance.gen_vectors --write`` writes these cases with the rest.
"""

from __future__ import annotations

from collections.abc import Callable

RUN = "guards.run"
BUDGET = "governance.stream-token-budget"


def register(case: Callable[..., None]) -> None:
    """Add this module's cases through ``gen_vectors.case``."""
    case(
        "guards.budget",
        "four-characters-one-token-five-two",
        anchor="guards.token-count",
        function=RUN,
        description="The default count is ceil(len / 4) per delta, at its step: abcd (4 "
        "characters) is 1 token and efghi (5) is 2, so with a budget of 2 abcd is delivered "
        "and efghi (1 + 2 = 3 > 2) is severed at delta 1.",
        input={"maxTokens": 2, "deltas": ["abcd", "efghi"]},
        intent={"delivered": ["abcd"], "severedAt": 1, "code": BUDGET, "rule": None,
                "flushed": None},
    )


__all__ = ["register"]
