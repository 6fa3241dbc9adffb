"""Governance cases that close the governance survivors of three fresh mutation samples
(issue 30, seeds 473986, 321483 and 238680):

- IGNORECASE through a class that holds ``i`` (plain and negated), where loom-ref decides the
  fold group ``I``/``i``/U+0130/U+0131 itself (spec: patterns.flags), and through counted
  quantifiers ``{n,m}`` and ``{n,}`` (loom-ref re-emits the pattern for Python's ``re``);
- an empty alternative adds nothing to a pattern's expanded size nor to its product of
  nested counts (spec: patterns.limits), each exactly at the limit;
- ``guards.run`` with every input member it lists present at once (spec: guards.vector-run).

``gen_vectors.py`` calls :func:`register` with its ``case``, so ``python -m
tests.governance.gen_vectors --write`` writes these cases with the rest.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

DIALECT = "validators.dialect"
OUT = "validators.check_output"
VIOLATION = {"ok": False, "code": "governance.safety-violation", "validator": "deny-patterns"}
SEVERED = "governance.delta-severed"


def register(case: Callable[..., None]) -> None:
    """Add this module's cases through ``gen_vectors.case``."""

    def deny(name: str, anchor: str, description: str, validator: dict[str, Any], text: str,
             intent: dict[str, Any]) -> None:
        case(DIALECT, name, anchor=anchor, function=OUT, description=description,
             input={"validator": {"kind": "deny", **validator}, "text": text}, intent=intent)

    deny("ignorecase-class-holding-i", "patterns.flags",
         "Under IGNORECASE a class holding i matches I and i (their simple case foldings are "
         "equal): [hi]{2} matches 'HI'.",
         {"patterns": ["[hi]{2}"], "flags": ["IGNORECASE"]}, "-HI-",
         {**VIOLATION, "span": [1, 3]})
    deny("ignorecase-negated-class-holding-i", "patterns.flags",
         "Under IGNORECASE a negated class holding i matches neither I nor i (negated after "
         "folding): [^i] finds nothing in 'Ii'.",
         {"patterns": ["[^i]"], "flags": ["IGNORECASE"]}, "Ii", {"ok": True})
    deny("ignorecase-counted-range", "patterns.flags",
         "IGNORECASE keeps a count's maximum: a{1,2} on 'AAA' matches the first two.",
         {"patterns": ["a{1,2}"], "flags": ["IGNORECASE"]}, "AAA",
         {**VIOLATION, "span": [0, 2]})
    deny("ignorecase-counted-open", "patterns.flags",
         "IGNORECASE keeps an open count open: a{2,} on '-AAA' matches all three.",
         {"patterns": ["a{2,}"], "flags": ["IGNORECASE"]}, "-AAA",
         {**VIOLATION, "span": [1, 4]})
    deny("size-empty-alternative-adds-nothing", "patterns.limits",
         "An alternation is the sum of its parts and an empty alternative has none, so it adds "
         "0: ten [a-z]{1000} (size 10000, the largest) then (?:|) is in the dialect.",
         {"patterns": ["[a-z]{1000}" * 10 + "(?:|)"]}, "x", {"ok": True})
    deny("counts-empty-alternative-adds-nothing", "patterns.limits",
         "A path through an empty alternative has no count, so (?:x(?:y|)){1000} multiplies "
         "to 1000, the largest: in the dialect.",
         {"patterns": ["(?:x(?:y|)){1000}"]}, "x", {"ok": True})

    case("guards.delta", "every-input-member", anchor="guards.vector-run", function="guards.run",
         description="guards.run takes every input member it lists at once (validators, "
         "window, deltas, holdBack false, maxTokens): KEY-1234 split over three deltas is "
         "severed at delta 2.",
         input={"validators": [{"kind": "deny", "patterns": {"key": "KEY-[0-9]{4}"}}],
                "window": 16, "deltas": ["KEY-", "12", "34 ok"], "holdBack": False,
                "maxTokens": 100},
         intent={"delivered": ["KEY-", "12"], "flushed": None, "severedAt": 2,
                 "code": SEVERED, "rule": "key"})


__all__ = ["register"]
