"""Governance cases that close the survivors of an 80-mutant governance sample (issue 30, seed
282287, branch s7g):

- the threshold at which a ``python-re`` rule's width counts as unbounded (2^30, spec:
  patterns.python-re), on both sides: a ``maxWidth`` bounds a rule of width 2^30, while a rule
  of width 2^30 - 1 keeps its own, too wide for the window of a hold-back guard (extension
  cases: tier ``may``, capability ``patterns.python-re``);
- ``validators.check_output``'s input is a JSON object: an array, even one holding exactly the
  two member names, is ``argument.invalid`` (spec: guards.vector-run).

``gen_vectors.py`` calls :func:`register` with its ``case`` and ``run_case``, so ``python -m
tests.governance.gen_vectors --write`` writes these cases with the rest.
"""

from __future__ import annotations

from collections.abc import Callable

#: 2^30: from this maximum width on, a python-re rule counts as unbounded.
UNBOUNDED = 1 << 30


def register(case: Callable[..., None], run_case: Callable[..., None]) -> None:
    """Add this module's cases through ``gen_vectors.case`` and ``gen_vectors.run_case``."""
    run_case(
        "guards.holdback",
        "python-re-width-2-30-is-unbounded",
        "patterns.python-re",
        f"Extension: the python-re rule abc|a{{{UNBOUNDED}}} has a maximum width of 2^30, "
        "which counts as unbounded, so maxWidth 3 bounds it: hold-back holds the last 2 "
        "characters.",
        {"validators": [{"kind": "deny", "dialect": "python-re", "maxWidth": 3,
                         "patterns": {"k": f"abc|a{{{UNBOUNDED}}}"}}],
         "holdBack": True, "deltas": ["0123456789"]},
        {"delivered": ["01234567"], "flushed": "89", "severedAt": None},
        tier="may",
        requires=("patterns.python-re",),
    )
    run_case(
        "guards.holdback",
        "python-re-width-below-2-30-is-bounded",
        "patterns.python-re",
        f"Extension: the python-re rule abc|a{{{UNBOUNDED - 1}}} has a maximum width of "
        "2^30 - 1, which is bounded: it keeps its own width (maxWidth 3 bounds only unbounded "
        "rules, validators.deny), wider than the window, so the hold-back guard is refused: "
        "argument.invalid.",
        {"validators": [{"kind": "deny", "dialect": "python-re", "maxWidth": 3,
                         "patterns": {"k": f"abc|a{{{UNBOUNDED - 1}}}"}}],
         "holdBack": True, "deltas": ["0123456789"]},
        {"error": "argument.invalid"},
        tier="may",
        requires=("patterns.python-re",),
    )
    case(
        "validators.pii",
        "output-input-array-of-member-names",
        anchor="guards.vector-run",
        function="validators.check_output",
        description='validators.check_output\'s input is a JSON object {"validator", "text"}: '
        'an array, even one holding exactly the two member names, is malformed input, '
        "argument.invalid.",
        input=["validator", "text"],
        intent={"error": "argument.invalid"},
    )


__all__ = ["register"]
