"""Whether two implementations' answers to one input agree, by the suite's own matching rules.

Rules (``conformance/INTERPRETING.md`` sections 7 and 14):

- The reference's answer (``--against``, loom-ref by default) is turned into the expectation a
  case would hold (:func:`expect_of`): a result as it is, an error by its ``code`` alone
  (codes, never messages), and every informative string, a failure's ``message``
  (``spec/stream.md``), as ``{"$type": "string"}``. The other answer is matched against it
  exactly as the runner matches a case's observations (section 7).
- A scenario's observations are compared whole, each error by its code (the kernel's error
  messages are text a case never pins: ``{"$type": "string"}``).
- The reference's ``errored`` or ``crashed`` answer is compared, reported and written as
  :func:`public_reply` shows it: its first line, no traceback, no path of its source.
- Both skipping agree; one skipping does not. An ``errored`` reply, a reply that breaks the
  protocol's schema, a crash or a timeout agrees with nothing.
- Two refusals of one input with different codes agree when both codes are among the
  refusals the input deserves: where the spec lets an input with several problems be refused
  for any of them (``spec/governance.md``, ``guards.vector-run``), the function's oracle
  (:func:`~loom_ref.conformance.functions.load_refusals`) names them, computed by loom-ref
  whatever the reference side is.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

from loom_ref.conformance.case import Case
from loom_ref.conformance.functions import load_refusals
from loom_ref.conformance.match import match
from loom_ref.conformance.runner import expectation_of
from loom_ref.conformance.schemas import SchemaSet, describe

__all__ = ["disagreement", "either_refusal", "expect_of", "failure_of", "public_reply",
           "scenario_disagreement", "scenario_expect_of"]

_STRING = {"$type": "string"}
_NO_INPUT = object()


@functools.cache
def _oracles() -> dict[str, Any]:
    return load_refusals()


def _code(observations: Any) -> str | None:
    error = observations.get("error") if isinstance(observations, Mapping) else None
    code = error.get("code") if isinstance(error, Mapping) else None
    return code if isinstance(code, str) else None


def either_refusal(function: str, value: Any, reference: Mapping[str, Any],
                   other: Mapping[str, Any]) -> bool:
    """Whether two answers to ``value`` are refusals with different codes that the input
    both deserves (INTERPRETING.md section 14): then neither side is wrong."""
    ref_code, other_code = _code(reference), _code(other)
    if ref_code is None or other_code is None or ref_code == other_code:
        return False
    oracle = _oracles().get(function)
    if oracle is None:
        return False
    deserved = oracle(value)
    return ref_code in deserved and other_code in deserved


def _informative(value: Any, parent: str | None = None) -> Any:
    if isinstance(value, Mapping):
        return {k: (_STRING if k == "message" and parent == "failure" and isinstance(v, str)
                    else _informative(v, k)) for k, v in value.items()}
    if isinstance(value, list):
        return [_informative(v, parent) for v in value]
    return value


#: a token that names a file of the reference's source (its path, a module file, a frame)
_SOURCE_TOKEN = re.compile(r"""[^\s'"(),]*(?:loom_ref|site-packages|\.py\b)[^\s'"(),]*""")


def public_reply(reply: Any) -> Any:
    """``reply`` as a fuzz report or draft case may show the reference's: an ``errored`` or
    ``crashed`` answer keeps only its first line (the error's type and message), every token
    naming a file of the reference's source replaced by ``<source>``, and no ``context``
    (no traceback, no source line, no path). A blind implementer reads drafts; loom-ref's
    source must not reach them through one (issue 29; INTERPRETING.md section 14)."""
    if not isinstance(reply, Mapping):
        return reply
    if isinstance(reply.get("errored"), Mapping):
        message = _redacted(reply["errored"].get("message"))
        return {**{k: v for k, v in reply.items() if k != "errored"},
                "errored": {"message": message}}
    if "crashed" in reply:
        return {**reply, "crashed": _redacted(reply["crashed"])}
    return reply


def _redacted(message: Any) -> str:
    first = str(message if message is not None else "").strip().splitlines()
    text = _SOURCE_TOKEN.sub("<source>", first[0] if first else "")
    return text or "errored"


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


def disagreement(function: str, reference: Any, other: Any, schemas: SchemaSet,
                 value: Any = _NO_INPUT) -> list[str]:
    """How ``other``'s reply differs from ``reference``'s for a vector of ``function`` whose
    input was ``value``, one line each; [] when they agree. Without ``value`` two refusals
    agree only with the same code."""
    ref_failure, other_failure = failure_of(reference, schemas), failure_of(other, schemas)
    if ref_failure or other_failure:
        return [f"{side}: {why}" for side, why in (("reference", ref_failure),
                                                   ("implementation", other_failure)) if why]
    if "skipped" in reference or "skipped" in other:
        if "skipped" in reference and "skipped" in other:
            return []
        return ["one side skipped the input, the other answered it"]
    if value is not _NO_INPUT and either_refusal(function, value, reference["observations"],
                                                 other["observations"]):
        return []
    if _beyond_safe(reference["observations"]) or _beyond_safe(other["observations"]):
        return []  # INTERPRETING.md section 15, numbers: not a portable answer to compare
    case = Case(data={"id": "fuzz/x", "anchor": "x", "tier": "must", "description": "x",
                      "family": "vector", "function": function,
                      "expect": expect_of(reference["observations"])})
    return [m.render() for m in match(expectation_of(case), other["observations"])]


_SAFE = 2 ** 53


def _beyond_safe(value: Any) -> bool:
    """Whether ``value`` holds an integer beyond +-2^53, which no case may hold
    (INTERPRETING.md section 15, numbers): an answer such as a sum of drawn counts past it is
    exact in one language and rounded in another, so two such answers are not compared."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return abs(value) > _SAFE
    if isinstance(value, float):
        return value.is_integer() and abs(value) > _SAFE
    if isinstance(value, Mapping):
        return any(_beyond_safe(v) for v in value.values())
    if isinstance(value, list):
        return any(_beyond_safe(v) for v in value)
    return False


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
