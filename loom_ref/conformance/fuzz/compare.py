"""Whether two implementations' answers to one input agree, by the suite's own matching rules.

Rules (``conformance/INTERPRETING.md`` sections 7 and 14):

- The reference's answer (``--against``, loom-ref by default) is turned into the expectation a
  case would hold (:func:`expect_of`): a result as it is, an error by its ``code`` alone
  (codes, never messages), and every informative string, a failure's ``message``
  (``spec/stream.md``), as ``{"$type": "string"}``. The other answer is matched against it
  exactly as the runner matches a case's observations (section 7).
- A scenario's observations are compared whole, each error by its code (the kernel's error
  messages are text a case never pins: ``{"$type": "string"}``).
- Both skipping agree; one skipping does not. An ``errored`` reply, a reply that breaks the
  protocol's schema, a crash or a timeout agrees with nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from loom_ref.conformance.case import Case
from loom_ref.conformance.match import match
from loom_ref.conformance.runner import expectation_of
from loom_ref.conformance.schemas import SchemaSet, describe

__all__ = ["disagreement", "expect_of", "failure_of", "scenario_disagreement",
           "scenario_expect_of"]

_STRING = {"$type": "string"}


def _informative(value: Any, parent: str | None = None) -> Any:
    if isinstance(value, Mapping):
        return {k: (_STRING if k == "message" and parent == "failure" and isinstance(v, str)
                    else _informative(v, k)) for k, v in value.items()}
    if isinstance(value, list):
        return [_informative(v, parent) for v in value]
    return value


def failure_of(reply: Any, schemas: SchemaSet) -> str | None:
    """Why ``reply`` is no answer at all (crashed, errored, off-schema), or None."""
    if not isinstance(reply, Mapping):
        return "no reply"
    if "crashed" in reply:
        return f"crashed: {reply['crashed']}"
    problems = schemas.problems("run-reply", reply)
    if problems:
        return f"invalid reply: {describe(problems)}"
    if "errored" in reply:
        return f"errored: {reply['errored'].get('message', '')}"
    return None


def expect_of(observations: Mapping[str, Any]) -> dict[str, Any]:
    """The ``expect`` a vector case would hold for the reference's ``observations``."""
    if "error" in observations:
        return {"error": {"code": observations["error"].get("code")}}
    return {"result": _informative(observations.get("result"))}


def disagreement(function: str, reference: Any, other: Any, schemas: SchemaSet) -> list[str]:
    """How ``other``'s reply differs from ``reference``'s for a vector of ``function``, one
    line each; [] when they agree."""
    ref_failure, other_failure = failure_of(reference, schemas), failure_of(other, schemas)
    if ref_failure or other_failure:
        return [f"{side}: {why}" for side, why in (("reference", ref_failure),
                                                   ("implementation", other_failure)) if why]
    if "skipped" in reference or "skipped" in other:
        if "skipped" in reference and "skipped" in other:
            return []
        return ["one side skipped the input, the other answered it"]
    case = Case(data={"id": "fuzz/x", "anchor": "x", "tier": "must", "description": "x",
                      "family": "vector", "function": function,
                      "expect": expect_of(reference["observations"])})
    return [m.render() for m in match(expectation_of(case), other["observations"])]


def _messages(value: Any, parent: str | None = None) -> Any:
    """Scenario observations with every error's ``message`` (under ``error`` or ``raised``)
    as ``{"$type": "string"}``."""
    if isinstance(value, Mapping):
        return {k: (_STRING if k == "message" and parent in ("error", "raised")
                    and isinstance(v, str) else _messages(v, k)) for k, v in value.items()}
    if isinstance(value, list):
        return [_messages(v, parent) for v in value]
    return value


def scenario_expect_of(observations: Mapping[str, Any]) -> dict[str, Any]:
    """The ``expect`` a scenario case would hold for the reference's ``observations``."""
    return {"actions": _messages(observations.get("actions", [])),
            "journal": _messages(observations.get("journal"))}


def scenario_disagreement(reference: Any, other: Any, schemas: SchemaSet) -> list[str]:
    """How ``other``'s reply to a scenario differs from ``reference``'s; [] when they agree."""
    ref_failure, other_failure = failure_of(reference, schemas), failure_of(other, schemas)
    if ref_failure or other_failure:
        return [f"{side}: {why}" for side, why in (("reference", ref_failure),
                                                   ("implementation", other_failure)) if why]
    if "skipped" in reference or "skipped" in other:
        return [] if "skipped" in reference and "skipped" in other else [
            "one side skipped the scenario, the other ran it"]
    case = Case(data={"id": "fuzz/x", "anchor": "x", "tier": "must", "description": "x",
                      "family": "scenario",
                      "expect": scenario_expect_of(reference["observations"])})
    return [m.render() for m in match(expectation_of(case), other["observations"])]
