"""Governance cases that close the survivors of a 120-mutant governance sweep (issue 30,
scored on commit becc1a0, branch s12g):

- the default token count is ``ceil(len / 4)`` at its step: a delta of 4 characters counts 1
  token, one of 5 counts 2, so with a budget of 2 ``abcd`` is delivered and ``efghi`` (1 + 2 =
  3 > 2) is severed (spec: guards.token-count, the accept side at 4 and the refuse side at 5);
- ``guards.run``'s input is a JSON object: an array holding exactly the member name
  ``deltas`` is malformed input, ``argument.invalid`` (spec: guards.vector-run), as for
  ``guards.steps`` (``guards.steps/input-array-of-member-names``);
- ``guards.steps`` takes every input member it lists at once (validators, window, holdBack
  false, maxTokens, steps), as ``guards.delta/every-input-member`` shows for ``guards.run``
  (spec: guards.vector-run).

``gen_vectors.py`` calls :func:`register` with its ``case``, so ``python -m
tests.governance.gen_vectors --write`` writes these cases with the rest.
"""

from __future__ import annotations

from collections.abc import Callable

RUN = "guards.run"
STEPS = "guards.steps"
SEVERED = "governance.delta-severed"
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
    case(
        "guards.delta",
        "input-array-of-member-names",
        anchor="guards.vector-run",
        function=RUN,
        description="guards.run's input is a JSON object: an array, even one holding exactly "
        'the member name "deltas", is malformed input, argument.invalid.',
        input=["deltas"],
        intent={"error": "argument.invalid"},
    )
    case(
        "guards.steps",
        "every-input-member",
        anchor="guards.vector-run",
        function=STEPS,
        description="guards.steps takes every input member it lists at once (validators, "
        "window, holdBack false, maxTokens, steps): efghi takes the budget of 2 to 3 and is "
        "severed at delta 1; after the reset, bad split over two deltas is severed at delta 1.",
        input={"validators": [{"kind": "deny", "patterns": {"bad": "bad"}}], "window": 8,
               "holdBack": False, "maxTokens": 2,
               "steps": ["abcd", "efghi", {"reset": True}, "ba", "d"]},
        intent={"outcomes": [
            {"delivered": "abcd"},
            {"severed": {"code": BUDGET, "rule": None, "deltaIndex": 1, "repeated": False,
                         "span": None}},
            {"reset": True},
            {"delivered": "ba"},
            {"severed": {"code": SEVERED, "rule": "bad", "deltaIndex": 1, "repeated": False,
                         "span": [0, 3]}},
        ]},
    )


__all__ = ["register"]
