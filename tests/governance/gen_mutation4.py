"""Governance cases that close the governance survivors of a fresh mutation sample (issue 30,
seed 456059): a match the tail scan passes over (one lying wholly before the delta) resumes
the scan one character after its start, not two (``guards.tail-scan``). Only a ``python-re``
rule's look-ahead can lie wholly before the delta with no condition, so the case is the
extension's (tier ``may``, capability ``patterns.python-re``).

``gen_vectors.py`` calls :func:`register` with its ``run_case``, so ``python -m
tests.governance.gen_vectors --write`` writes these cases with the rest.
"""

from __future__ import annotations

from collections.abc import Callable

SEVERED = "governance.delta-severed"


def register(run_case: Callable[..., None]) -> None:
    """Add this module's cases through ``gen_vectors.run_case``."""
    run_case(
        "guards.delta",
        "python-re-lookahead-skipped-next-start",
        "guards.tail-scan",
        "Extension: with the python-re rule a(?=bc)|bc|zzzz, the deltas ab then c: the "
        "look-ahead's match a (0-1) lies wholly before the delta and is passed over, the scan "
        "going on one character after its start, where bc (1-3) ends in the delta: severed "
        "at delta 1.",
        {"validators": [{"kind": "deny", "dialect": "python-re",
                         "patterns": {"k": "a(?=bc)|bc|zzzz"}}],
         "deltas": ["ab", "c"]},
        {"delivered": ["ab"], "severedAt": 1, "code": SEVERED, "rule": "k"},
        tier="may",
        requires=("patterns.python-re",),
    )


__all__ = ["register"]
