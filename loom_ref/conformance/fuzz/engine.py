"""The fuzz loop: draw, send to both, compare, shrink a disagreement, write it as a draft case.

Rules (``conformance/INTERPRETING.md`` section 14):

- Every vector function both implementations declare (and ``--only`` selects) is fuzzed with
  inputs drawn from the suite's own cases (:mod:`.mutations`); each input goes to both, as a
  ``run`` of a vector case without ``expect``, and the answers are compared (:mod:`.compare`).
- The first disagreement of a function is shrunk (hypothesis) to a minimal input; what is
  reported and written is that input, with both answers.
- ``--scenarios N`` also sends N seeded random scenarios (section 11) to both and compares
  their observations; a scenario disagreement is reported whole (not shrunk).
- A run is bounded: ``--examples`` inputs per function at most, and ``--time-limit`` seconds
  in all, shared out between the functions still to go. ``--seed`` reproduces a run against
  the same implementations. A crashed or hung implementation is started again, as the runner
  does, and the input counts as that side's failure.
- A draft case (:func:`write_drafts`) is an ordinary vector (or scenario) case whose
  ``expect`` is the reference's answer, under ``draft.<function>/``, carrying a ``draft``
  member with both answers, the function, the seed and the case the input grew from. The
  runner runs it (``--cases``); lint refuses it until a maintainer has decided who is right
  and promoted it (dropped ``draft``, given it a real id and anchor). Where the reference
  failed, the draft and the report show only the first line of its message, no traceback and
  no path of its source (:func:`~loom_ref.conformance.fuzz.compare.public_reply`).
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import attrs
from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis.errors import HypothesisException

from loom_ref.conformance.case import Case, canonical_json
from loom_ref.conformance.fuzz.compare import (
    disagreement,
    expect_of,
    failure_of,
    public_reply,
    scenario_disagreement,
    scenario_expect_of,
)
from loom_ref.conformance.fuzz.mutations import Corpus, inputs
from loom_ref.conformance.impl import Implementation, TransportError
from loom_ref.conformance.schemas import SchemaSet
from loom_ref.conformance.suite import Suite
from loom_ref.errors import ConformanceError

__all__ = ["Finding", "FuzzResult", "Fuzzer", "Tally", "write_drafts"]

SCENARIOS = "(random scenarios)"


@attrs.frozen(kw_only=True)
class Finding:
    """One disagreement: the input (shrunk, for a vector), where it grew from, both answers."""

    function: str
    origin: str
    case: Mapping[str, Any]
    answers: Mapping[str, Any]
    differences: tuple[str, ...]


@attrs.define
class Tally:
    """What one function's fuzzing did."""

    function: str
    tried: int = 0
    disagreements: int = 0
    implementation_failed: int = 0
    reference_failed: int = 0
    note: str = ""


@attrs.frozen(kw_only=True)
class FuzzResult:
    implementation: Mapping[str, Any]
    reference: Mapping[str, Any]
    seed: int
    tallies: tuple[Tally, ...]
    findings: tuple[Finding, ...]

    @property
    def ok(self) -> bool:
        return not self.findings


class _Disagrees(Exception):
    """Raised inside the property so that hypothesis shrinks the input."""


class Fuzzer:
    """Fuzz ``implementation`` against ``reference`` on inputs grown from ``cases``."""

    def __init__(self, implementation: Implementation, reference: Implementation, suite: Suite,
                 cases: Sequence[Case], *, examples: int = 1000, seed: int = 0,
                 time_limit: float | None = None,
                 progress: Callable[[str, int, int], None] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.sides = {"implementation": implementation, "reference": reference}
        self.suite, self.schemas = suite, SchemaSet(suite.schemas_dir)
        self.cases = {c.id: c for c in cases}
        self.corpus = Corpus.of(cases)  # narrowed to what both sides declare at start()
        self.examples, self.seed, self.time_limit = examples, seed, time_limit
        self.progress, self.clock = progress, clock
        self.infos: dict[str, Mapping[str, Any]] = {}
        self.seq = 0

    # -- the conversation ---------------------------------------------------------------------
    def start(self) -> None:
        for side, impl in self.sides.items():
            try:
                reply = impl.request({"cmd": "start", "protocol": self.suite.protocol})
            except TransportError as exc:
                raise ConformanceError(f"{side}: start failed: {exc.message}",
                                       code="conformance.transport") from None
            problems = self.schemas.problems("start-reply", reply)
            if problems:
                raise ConformanceError(f"{side}: invalid start reply", code="conformance.transport")
            self.infos[side] = dict(reply["implementation"])
        both = self.capabilities("implementation") & self.capabilities("reference")
        self.corpus = Corpus.of(self.cases.values(), capabilities=both)

    def stop(self) -> None:
        for impl in self.sides.values():
            try:
                impl.request({"cmd": "stop"})
            except TransportError:
                pass
            impl.close()

    def capabilities(self, side: str) -> set[str]:
        return set(self.infos[side].get("capabilities", ()))

    def ask(self, case: Mapping[str, Any]) -> dict[str, Any]:
        """Each side's reply to ``case`` (``{"crashed": what}`` for a transport failure)."""
        self.seq += 1
        message = {"cmd": "run", "seq": self.seq, "case": case}
        replies: dict[str, Any] = {}
        for side, impl in self.sides.items():
            try:
                replies[side] = impl.request(message)
            except TransportError as exc:
                replies[side] = {"crashed": exc.message}
        # the reference's failures as a report or draft may show them: no traceback, no path
        # of its source, which a blind implementer reading a draft must not see
        replies["reference"] = public_reply(replies["reference"])
        return replies

    def vector_case(self, function: str, origin: str, value: Any) -> dict[str, Any]:
        """The case sent for ``value``, an input of ``function`` grown from case ``origin``."""
        base = self.cases.get(origin)
        anchor = base.anchor if base is not None else "conformance.fuzz"
        return {"id": f"fuzz.{function}/n{self.seq + 1}", "anchor": anchor, "tier": "must",
                "description": f"fuzz: an input of {function} grown from {origin}",
                "family": "vector", "function": function, "input": value}

    def _count(self, tally: Tally, replies: Mapping[str, Any]) -> None:
        tally.tried += 1
        if failure_of(replies["implementation"], self.schemas):
            tally.implementation_failed += 1
        if failure_of(replies["reference"], self.schemas):
            tally.reference_failed += 1

    # -- one function --------------------------------------------------------------------------
    def fuzz_function(self, function: str, deadline: float) -> tuple[Tally, Finding | None]:
        """Up to ``examples`` inputs of ``function`` (until ``deadline``); the first
        disagreement, shrunk."""
        tally = Tally(function=function)
        found: list[Finding] = []

        @hypothesis_seed(self.seed)
        @settings(max_examples=self.examples, deadline=None, database=None,
                  derandomize=False, phases=[Phase.generate, Phase.shrink],
                  suppress_health_check=list(HealthCheck), report_multiple_bugs=False,
                  verbosity=Verbosity.quiet, print_blob=False)
        @given(inputs(self.corpus, function))
        def probe(drawn: tuple[str, Any]) -> None:
            if not found and self.clock() > deadline:
                return
            origin, value = drawn
            case = self.vector_case(function, origin, value)
            replies = self.ask(case)
            if not found:
                self._count(tally, replies)
                if self.progress is not None:
                    self.progress(function, tally.tried, self.examples)
            diff = disagreement(function, replies["reference"], replies["implementation"],
                                self.schemas, value)
            if diff:
                found.append(Finding(function=function, origin=origin, case=case,
                                     answers=replies, differences=tuple(diff)))
                raise _Disagrees

        try:
            probe()
        except _Disagrees:
            pass
        except HypothesisException as exc:  # flaky (an answer that changes), unsatisfiable
            tally.note = f"{type(exc).__name__}: the last disagreement seen is reported"
        if found:
            tally.disagreements = 1
        elif self.clock() > deadline and tally.tried < self.examples:
            tally.note = "stopped by the time limit"
        return tally, (found[-1] if found else None)

    # -- random scenarios ------------------------------------------------------------------------
    def fuzz_scenarios(self, scenarios: Iterable[Case], deadline: float
                       ) -> tuple[Tally, list[Finding]]:
        tally = Tally(function=SCENARIOS)
        findings: list[Finding] = []
        for case in scenarios:
            if self.clock() > deadline:
                tally.note = "stopped by the time limit"
                break
            sent = case.to_run()
            replies = self.ask(sent)
            self._count(tally, replies)
            diff = scenario_disagreement(replies["reference"], replies["implementation"],
                                         self.schemas)
            if diff:
                tally.disagreements += 1
                findings.append(Finding(function=SCENARIOS, origin=case.id, case=sent,
                                        answers=replies, differences=tuple(diff)))
        return tally, findings

    # -- a whole run -----------------------------------------------------------------------------
    def run(self, functions: Sequence[str], scenarios: Sequence[Case] = ()) -> FuzzResult:
        """Fuzz ``functions`` (those both sides declare; the others are tallied with a note),
        then ``scenarios``. Inputs grow from the cases whose capabilities both declare."""
        self.start()
        try:
            start = self.clock()
            limit = self.time_limit
            tallies: list[Tally] = []
            findings: list[Finding] = []
            both = self.capabilities("implementation") & self.capabilities("reference")
            todo = [f for f in functions if f in both and f in self.corpus.seeds]
            parts = len(todo) + (1 if scenarios else 0)
            for i, function in enumerate(todo):
                left = None if limit is None else limit - (self.clock() - start)
                deadline = (float("inf") if left is None
                            else self.clock() + max(0.0, left) / (parts - i))
                tally, finding = self.fuzz_function(function, deadline)
                tallies.append(tally)
                findings += [finding] if finding is not None else []
            if scenarios:
                if "scenario" in both:
                    left = None if limit is None else limit - (self.clock() - start)
                    deadline = float("inf") if left is None else self.clock() + max(0.0, left)
                    tally, found = self.fuzz_scenarios(scenarios, deadline)
                    tallies.append(tally)
                    findings += found
                else:
                    tallies.append(Tally(function=SCENARIOS, note="not declared by both sides"))
            for function in functions:
                if function not in both:
                    side = ("implementation" if function not in
                            self.capabilities("implementation") else "reference")
                    tallies.append(Tally(function=function, note=f"not declared by the {side}"))
        finally:
            self.stop()
        return FuzzResult(implementation=self.infos.get("implementation", {}),
                          reference=self.infos.get("reference", {}), seed=self.seed,
                          tallies=tuple(tallies), findings=tuple(findings))


def _name(info: Mapping[str, Any]) -> str:
    return f"{info.get('name', '?')} {info.get('version', '?')}"


def draft_case(finding: Finding, result: FuzzResult, base: Case | None) -> dict[str, Any]:
    """The draft case file for ``finding``."""
    ref, impl = finding.answers["reference"], finding.answers["implementation"]
    vector = finding.function != SCENARIOS
    source = ref if "observations" in ref else impl
    observations = source.get("observations") if isinstance(source, Mapping) else None
    if observations is None:
        expect: Any = None
    elif vector:
        expect = expect_of(observations)
    else:
        expect = scenario_expect_of(observations)
    who = (_name(result.reference) if source is ref else
           f"{_name(result.implementation)} (the reference gave no answer: unverified)")
    digest = hashlib.sha1(canonical_json(dict(finding.case)).encode()).hexdigest()[:10]
    group = f"draft.{finding.function}" if vector else "draft.scenario"
    data: dict[str, Any] = {
        **{k: v for k, v in finding.case.items() if k not in ("id", "description")},
        "id": f"{group}/{digest}",
        "anchor": base.anchor if base is not None else str(finding.case.get("anchor", "")),
        "tier": base.tier.value if base is not None else "must",
        "provenance": (base.provenance.value if base is not None
                       else str(finding.case.get("provenance", "loom-ref"))),
        "description": (f"DRAFT found by loom-ref conformance fuzz (seed {result.seed}): "
                        f"{_name(result.implementation)} and {_name(result.reference)} "
                        f"disagree; the expectation is {who}'s answer"),
        "expect": expect,
        "draft": {"function": finding.function, "seed": result.seed, "from": finding.origin,
                  "implementation": dict(result.implementation),
                  "reference": dict(result.reference),
                  "answers": {"implementation": impl, "reference": ref},
                  "differences": list(finding.differences),
                  "promote": "decide who is right by the spec; then drop this member, give the "
                             "case a real name, anchor and description, and move it under "
                             "cases/<group>/"},
    }
    return data


def write_drafts(result: FuzzResult, out_dir: str, cases: Mapping[str, Case]) -> list[str]:
    """Write one draft case per finding under ``out_dir/<group>/``; their paths."""
    paths = []
    for finding in result.findings:
        data = draft_case(finding, result, cases.get(finding.origin))
        group, name = str(data["id"]).split("/", 1)
        os.makedirs(os.path.join(out_dir, group), exist_ok=True)
        path = os.path.join(out_dir, group, name + ".json")
        with open(path, "w", encoding="utf-8") as f:
            f.write(canonical_json(data))
        paths.append(path)
    return paths
