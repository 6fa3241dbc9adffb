"""``loom-ref conformance show CASE``: one case, the rule it pins, and the lines that run it.

Rules (``conformance/INTERPRETING.md`` section 1, the one-case loop):

- ``CASE`` is a case id, or the id of a generated variant (``<id>#<mode>[@<n>]``), which is
  derived from its base case exactly as a run derives it, and described as a variant: what
  the mode changed in the base case and what it expects (:func:`describe_variant`), with
  the base case's own description after it.
- What is shown: the id, family, tier, the function or the capabilities it needs; the rule
  (``spec/FILE.md#anchor``) and its words, quoted from the spec; the description; the case as
  the implementation receives it; the expectation (the runner's alone, never sent); and the
  exact protocol lines a run sends (``start``, ``run`` with seq 1, ``stop``), which
  ``--lines`` prints alone, ready to pipe into an adapter.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from loom_ref.conformance.case import Case, load_case
from loom_ref.conformance.derive import derive
from loom_ref.conformance.impl import protocol_line
from loom_ref.conformance.rules import spec_rules
from loom_ref.conformance.suite import Suite
from loom_ref.errors import ConformanceError

__all__ = ["describe_variant", "find_case", "protocol_messages", "render_show"]


def find_case(suite: Suite, case_id: str) -> Case:
    """The case (or generated variant) named ``case_id`` in ``suite``."""
    base_id, _, _ = case_id.partition("#")
    group, sep, name = base_id.partition("/")
    if not sep or not name or "/" in name:
        raise ConformanceError(f"{case_id!r} is not a case id (<group>/<name>)",
                               code="conformance.no-case")
    path = os.path.join(suite.cases_dir, group, name + ".json")
    try:
        base = load_case(path, root=suite.cases_dir)
    except ConformanceError:
        raise ConformanceError(f"no case {base_id!r} in {suite.cases_dir}",
                               code="conformance.no-case") from None
    if base_id == case_id:
        return base
    _, _, mode = case_id.partition("#")
    # a store variant names its store: derive it as if the implementation named that one
    stores = ("", mode.removeprefix("store@")) if mode.startswith("store@") else ()
    variants = {v.id: v for v in derive(base, stores)}
    if case_id not in variants:
        known = ", ".join(sorted(variants)[:8]) or "none"
        raise ConformanceError(f"case {base_id} has no generated variant {case_id!r} "
                               f"(its variants: {known}{', ...' if len(variants) > 8 else ''})",
                               code="conformance.no-case")
    return variants[case_id]


def describe_variant(case: Case) -> str:
    """What a generated variant is (``INTERPRETING.md`` section 8): what its mode did to the
    base case, and what is expected of it."""
    _, _, suffix = case.id.partition("#")
    mode, _, n = suffix.partition("@")
    base = case.base_id
    if mode == "prefix":
        return (f"the journal text of {base} cut after its first {n} bytes, as a crash in "
                "the middle of a write leaves it: every whole line before the cut parses as "
                "in the base case, and the bytes after the last newline are the torn tail, "
                "reported with its line number and size")
    if mode == "crash":
        then = ("recovery finds the effect's step started but not finished, and it is not "
                "idempotent: it parks in doubt (STEP_IN_DOUBT, warning kernel.in-doubt), and "
                "resolve {retry} makes the rest of the calls"
                if case.anchor == "kernel.in-doubt" else
                "recover makes only the calls the crash left unmade, nothing twice")
        return (f"{base} with the process crashed right after journal event {n} is "
                f"written; {then}; the outcome and the journal are the base case's")
    if mode == "torn":
        return (f"{base} with the process crashed while writing journal event {n}: its line "
                "is cut short (a torn tail); the next run warns journal.torn-tail, treats the "
                "event as not written and redoes the trace from it, to the base case's "
                "outcome and journal")
    if mode == "replay":
        return (f"{base} followed by a replay of its own journal: everything is served from "
                "the journal (no effect, transient or decider call) and it ends where the "
                "execution stands")
    if mode == "always-replay":
        return (f"{base} with options.alwaysReplay and a replay after every action that "
                "returned a result: each replay is served from the journal and ends as the "
                "action did")
    if mode == "store":
        return (f"{base} run on the implementation's journal store {n!r} (options.store): "
                "it must observe exactly what the base case observes on the first store")
    return f"a generated {mode} variant of {base}"


def protocol_messages(case: Case, protocol: int) -> list[Mapping[str, Any]]:
    """The messages a run sends for ``case`` alone."""
    return [{"cmd": "start", "protocol": protocol},
            {"cmd": "run", "seq": 1, "case": case.to_run()},
            {"cmd": "stop"}]


def protocol_text(case: Case, protocol: int) -> str:
    return b"".join(protocol_line(m) for m in protocol_messages(case, protocol)).decode()


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)


def render_show(suite: Suite, case: Case) -> str:
    """The whole picture of ``case``, as text."""
    rule = spec_rules(suite.spec_dir).get(case.anchor)
    what = (f"function {case.data['function']}" if case.family.value == "vector"
            else "a scenario")
    needs = ", ".join(case.requires)
    origin = (f" (a generated {case.mode} variant of {case.base_id}, INTERPRETING.md "
              "section 8)" if case.base_id else "")
    out = [f"{case.id}{origin}",
           f"  {case.family.value}, tier {case.tier.value}, {what}; needs: {needs}",
           f"  rule: {rule.link if rule else '#' + case.anchor} (suite {suite.version})"]
    if rule is not None:
        out.append(f"    > {rule.words}")
    if case.base_id:
        out.append(f"  this variant: {describe_variant(case)}.")
        if case.description:
            out.append(f"  its base case {case.base_id}: {case.description}")
    elif case.description:
        out.append(f"  {case.description}")
    if case.path:
        out.append(f"  file: {case.path}" + (" (the base case's; a variant has no file)"
                                             if case.base_id else ""))
    out += ["", "sent to the implementation (the run message's case):", _json(case.to_run()),
            "", "expected (the runner's alone, never sent):", _json(dict(case.expect)),
            "", "the protocol lines of a run of this case alone "
            f"(loom-ref conformance show '{case.id}' --lines | YOUR-ADAPTER):",
            protocol_text(case, suite.protocol).rstrip("\n")]
    return "\n".join(out) + "\n"


__all__ += ["protocol_text"]
