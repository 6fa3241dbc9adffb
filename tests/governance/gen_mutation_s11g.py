"""Governance cases that close the survivors of a fresh 60-mutant governance sample (issue 30,
scored on commit 297169a, branch s11g):

- an empty group adds nothing to a rule's width (a sequence is the sum of its parts, an empty
  one 0): ``ab(?:)`` is 2 wide, so hold-back holds back 1 code point of ``xyz``, not 2 (spec:
  validators.width; extension case, tier ``may``);
- ``*``, ``+`` and ``?`` count 1 in the product of nested counts: ``x(?:a{1000})?``,
  ``y(?:b{1000})*`` and ``(?:c{1000})+`` are at the limit of 1000, in the dialect (spec:
  patterns.limits);
- a validator description is a JSON object: an array holding one is malformed input,
  ``argument.invalid`` (spec: guards.vector-run).

``gen_vectors.py`` calls :func:`register` with its ``case``, so ``python -m
tests.governance.gen_vectors --write`` writes these cases with the rest.
"""

from __future__ import annotations

from collections.abc import Callable

OUT = "validators.check_output"
RUN = "guards.run"
CHECK = "validators.check"
NOT_REPORTED = {"severedAt": None, "code": None, "rule": None}


def register(case: Callable[..., None]) -> None:
    """Add this module's cases through ``gen_vectors.case``."""
    case(
        "guards.holdback",
        "empty-group-adds-no-width",
        anchor="validators.width",
        function=RUN,
        description="Extension: an empty group is an empty sequence, 0 wide (a sequence is the "
        "sum of its parts), so ab(?:) is 2 wide like ab: hold-back holds back 1 code point, "
        "delivering xy of xyz and flushing z.",
        input={"validators": [{"kind": "deny", "patterns": ["ab(?:)"]}], "holdBack": True,
               "deltas": ["xyz"]},
        intent={**NOT_REPORTED, "delivered": ["xy"], "flushed": "z"},
        tier="may",
    )
    case(
        "validators.dialect",
        "uncounted-quantifiers-count-one",
        anchor="patterns.limits",
        function=OUT,
        description="*, + and ? are no counted quantifiers: each counts 1 in the product of "
        "nested counts, so x(?:a{1000})?, y(?:b{1000})* and (?:c{1000})+ are at the limit of "
        "1000 and in the dialect; rule k finds x in x, at [0, 1].",
        input={"validator": {"kind": "deny",
                             "patterns": {"k": "x(?:a{1000})?", "m": "y(?:b{1000})*",
                                          "n": "(?:c{1000})+"}},
               "text": "x"},
        intent={"ok": False, "code": "governance.safety-violation",
                "validator": "deny-patterns", "rule": "k", "span": [0, 1]},
    )
    case(
        "validators.check",
        "validator-array-refused",
        anchor="guards.vector-run",
        function=CHECK,
        description="A validator description is a JSON object: an array holding one (a list "
        "of validators where one is expected) is a member of the wrong type, "
        "argument.invalid.",
        input={"validator": [{"kind": "pii"}], "phase": "output", "value": "x"},
        intent={"error": "argument.invalid"},
    )


__all__ = ["register"]
