"""Governance cases that close the governance survivors of three fresh mutation samples
(issue 30, seeds 252125, 13564 and 97256, branch s10g):

- a pii rule's required literal (``-`` for ssn, ``@`` for email) standing first in the text,
  at offset 0, before the match it belongs to: the match after it is still found (spec:
  validators.pii-ssn, validators.pii-email; the literal is a scan shortcut that never changes
  a verdict);
- ``guards.steps`` with a ``python-re`` rule whose look-ahead makes a match lying wholly
  before the delta: the sever's span is the match that ends in the delta, not the one passed
  over (spec: guards.tail-scan; extension case, tier ``may``, capability
  ``patterns.python-re``);
- a deny validator holding every member its shape lists, ``dialect`` included, is accepted
  (spec: guards.vector-run; extension case);
- ``guards.steps``'s input is a JSON object: an array, even one holding exactly the member
  name ``steps``, is ``argument.invalid`` (spec: guards.vector-run).

``gen_vectors.py`` calls :func:`register` with its ``case``, so ``python -m
tests.governance.gen_vectors --write`` writes these cases with the rest.
"""

from __future__ import annotations

from collections.abc import Callable

OUT = "validators.check_output"
STEPS = "guards.steps"
PII_VIOLATION = {"ok": False, "code": "governance.safety-violation", "validator": "pii"}
SEVERED = "governance.delta-severed"
PYTHON_RE = ("patterns.python-re",)


def register(case: Callable[..., None]) -> None:
    """Add this module's cases through ``gen_vectors.case``."""
    case(
        "validators.pii",
        "ssn-after-leading-hyphen",
        anchor="validators.pii-ssn",
        function=OUT,
        description="A hyphen as the text's first character (offset 0) hides nothing: the "
        "SSN after it is found, at [2, 13].",
        input={"validator": {"kind": "pii"}, "text": "- 123-45-6789"},
        intent={**PII_VIOLATION, "rule": "ssn", "span": [2, 13]},
    )
    case(
        "validators.pii",
        "email-after-leading-at",
        anchor="validators.pii-email",
        function=OUT,
        description="An @ as the text's first character (offset 0) belongs to no address "
        "and hides nothing: the address after it is found, at [2, 17].",
        input={"validator": {"kind": "pii"}, "text": "@ bob@example.com"},
        intent={**PII_VIOLATION, "rule": "email", "span": [2, 17]},
    )
    case(
        "guards.steps",
        "python-re-lookahead-skipped-span",
        anchor="guards.tail-scan",
        function=STEPS,
        description="Extension: with the python-re rule a(?=bc)|bc|zzzz, the steps ab then "
        "c: the look-ahead's match a (0-1) lies wholly before the delta and is passed over; "
        "the sever's span is that of bc, [1, 3], the match that ends in the delta.",
        input={"validators": [{"kind": "deny", "dialect": "python-re",
                               "patterns": {"k": "a(?=bc)|bc|zzzz"}}],
               "steps": ["ab", "c"]},
        intent={"outcomes": [
            {"delivered": "ab"},
            {"severed": {"code": SEVERED, "rule": "k", "deltaIndex": 1, "repeated": False,
                         "span": [1, 3]}}]},
        tier="may",
        requires=PYTHON_RE,
    )
    case(
        "validators.deny",
        "python-re-every-member",
        anchor="guards.vector-run",
        function=OUT,
        description="Extension: a deny validator holding every member its shape lists at once "
        "(kind, patterns, flags, delta, maxWidth and dialect python-re) is accepted: a+b "
        "under IGNORECASE finds AAB in xAAB, at [1, 4].",
        input={"validator": {"kind": "deny", "patterns": {"k": "a+b"}, "flags": ["IGNORECASE"],
                             "delta": True, "maxWidth": 8, "dialect": "python-re"},
               "text": "xAAB"},
        intent={"ok": False, "code": "governance.safety-violation",
                "validator": "deny-patterns", "rule": "k", "span": [1, 4]},
        tier="may",
        requires=PYTHON_RE,
    )
    case(
        "guards.steps",
        "input-array-of-member-names",
        anchor="guards.vector-run",
        function=STEPS,
        description="guards.steps's input is a JSON object: an array, even one holding exactly "
        'the member name "steps", is malformed input, argument.invalid.',
        input=["steps"],
        intent={"error": "argument.invalid"},
    )


__all__ = ["register"]
