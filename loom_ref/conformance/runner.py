"""The runner: sends cases to an implementation, and decides pass / fail / skip / error.

Rules (``conformance/INTERPRETING.md`` sections 4, 7 and 9):

- Every message sent and every reply received is validated against its schema; a reply that
  fails is the implementation's protocol error and the case is *errored*.
- A case whose requirements the implementation did not declare among its capabilities is
  *skipped* with that reason, and so is a case the implementation answers ``skipped``.
  Nothing unsupported is ever counted as passed.
- A case *passes* when the observations match the expectation (:mod:`.match`); errors are
  compared partially: the expected code, and any other member the case gives (``line``,
  ``reason``), may not differ; the implementation may report more.
- Generated variants (:mod:`.derive`) of a case run after it, and only if it passed; if it
  did not, they are skipped with that reason, so one broken rule reads as one failure.
- The audit: every file under ``cases/`` must have been run (or be reported as unreadable);
  a file that was not is an error of the run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import attrs

from loom_ref.conformance.case import Case, Family
from loom_ref.conformance.derive import derive
from loom_ref.conformance.impl import Implementation, TransportError
from loom_ref.conformance.inprocess import PROTOCOL_VERSION
from loom_ref.conformance.match import match
from loom_ref.conformance.schemas import SchemaSet, describe
from loom_ref.enums import LoomEnum

__all__ = ["CaseResult", "Runner", "Status", "SuiteResult", "expectation_of"]

Progress = Callable[[int, int, str], None]


class Status(LoomEnum):
    """The verdict on one case."""

    PASS = "pass"
    FAIL = "fail"
    SKIP = "skip"
    ERROR = "error"


@attrs.frozen(kw_only=True)
class CaseResult:
    """The verdict on one case, with what a reader needs to act on a failure."""

    id: str
    group: str
    anchor: str
    tier: str
    mode: str
    status: Status
    description: str = ""
    message: str = ""
    diff: tuple[str, ...] = ()
    base_id: str | None = None
    path: str | None = None


@attrs.frozen(kw_only=True)
class SuiteResult:
    """A whole run: the implementation's self-description, every verdict, and problems with
    the suite itself (unreadable or unconsumed files, implementation crashes)."""

    implementation: Mapping[str, Any]
    results: tuple[CaseResult, ...]
    problems: tuple[str, ...] = ()
    crashes: tuple[str, ...] = ()

    def count(self, status: Status) -> int:
        return sum(1 for r in self.results if r.status is status)

    @property
    def ok(self) -> bool:
        """No failure, no error, no problem with the suite."""
        return not self.problems and not any(
            r.status in (Status.FAIL, Status.ERROR) for r in self.results)


def _partial(error: Any) -> Any:
    return {"$partial": error} if isinstance(error, Mapping) and "$partial" not in error else error


def expectation_of(case: Case) -> Any:
    """The pattern the observations of ``case`` must match (errors compared partially)."""
    expect = case.expect
    if case.family is Family.VECTOR:
        if "error" in expect:
            return {"error": _partial(expect["error"])}
        return {"result": expect["result"]}
    actions = []
    for obs in expect["actions"]:
        obs = dict(obs)
        if "raised" in obs:
            obs["raised"] = _partial(obs["raised"])
        result = obs.get("result")
        if isinstance(result, Mapping) and "error" in result:
            obs["result"] = {**result, "error": _partial(result["error"])}
        actions.append(obs)
    journal = expect["journal"]
    if isinstance(journal, Mapping) and "error" in journal:
        journal = {"error": _partial(journal["error"])}
    return {"actions": actions, "journal": journal}


class Runner:
    """Runs cases against one implementation."""

    def __init__(self, impl: Implementation, schemas: SchemaSet, *, generated: bool = True,
                 progress: Progress | None = None) -> None:
        self.impl = impl
        self.schemas = schemas
        self.generated = generated
        self.progress = progress
        self.info: dict[str, Any] = {}
        self.capabilities: set[str] = set()
        self.seq = 0
        self.problems: list[str] = []

    def _request(self, kind: str, message: Mapping[str, Any]) -> Any:
        problems = self.schemas.problems(kind, message)
        if problems:  # the runner's own bug: never blame the implementation for it
            raise TransportError(f"the runner built an invalid {kind} message: "
                                 f"{describe(problems)}")
        reply = self.impl.request(message)
        reply_problems = self.schemas.problems(f"{kind}-reply", reply)
        if reply_problems:
            raise TransportError(f"invalid {kind} reply: {describe(reply_problems)}")
        return reply

    def start(self) -> dict[str, Any]:
        """Shake hands; remember the implementation's capabilities."""
        reply = self._request("start", {"cmd": "start", "protocol": PROTOCOL_VERSION})
        if reply["protocol"] != PROTOCOL_VERSION:
            raise TransportError(f"the implementation speaks protocol {reply['protocol']}, "
                                 f"the runner {PROTOCOL_VERSION}")
        self.info = dict(reply["implementation"])
        self.capabilities = set(self.info["capabilities"])
        return self.info

    def stop(self) -> None:
        try:
            self._request("stop", {"cmd": "stop"})
        except TransportError as exc:
            self.problems.append(f"stop: {exc.message}")
        finally:
            self.impl.close()

    def _result(self, case: Case, status: Status, message: str = "",
                diff: Sequence[str] = ()) -> CaseResult:
        return CaseResult(id=case.id, group=case.group, anchor=case.anchor,
                          tier=case.tier.value, mode=case.mode, status=status,
                          description=case.description, message=message, diff=tuple(diff),
                          base_id=case.base_id, path=case.path)

    def run_case(self, case: Case) -> CaseResult:
        """Send one case; judge the reply."""
        missing = [c for c in case.requires if c not in self.capabilities]
        if missing:
            return self._result(case, Status.SKIP,
                                f"the implementation does not declare capability {missing[0]!r}")
        self.seq += 1
        try:
            reply = self._request("run", {"cmd": "run", "seq": self.seq, "case": case.to_run()})
        except TransportError as exc:
            detail = exc.details.get("stderr")
            return self._result(case, Status.ERROR, exc.message,
                                [f"stderr: {detail[-500:]}"] if detail else ())
        if reply["seq"] != self.seq:
            return self._result(case, Status.ERROR,
                                f"reply seq {reply['seq']} answers no request (sent {self.seq})")
        if "skipped" in reply:
            return self._result(case, Status.SKIP, reply["skipped"]["reason"])
        if "errored" in reply:
            context = reply["errored"].get("context")
            lines = [str(context)[-800:]] if context is not None else []
            return self._result(case, Status.ERROR, reply["errored"]["message"], lines)
        observations = reply["observations"]
        kind = "vectorObservations" if case.family is Family.VECTOR else "scenarioObservations"
        shape = self.schemas.problems_def(kind, observations)
        if shape:
            return self._result(case, Status.ERROR, f"observations of the wrong shape for a "
                                f"{case.family.value}: {describe(shape)}")
        mismatches = match(expectation_of(case), observations)
        if mismatches:
            return self._result(case, Status.FAIL, f"{len(mismatches)} mismatch(es)",
                                [m.render() for m in mismatches])
        return self._result(case, Status.PASS)

    def run(self, cases: Iterable[Case], *, files: Sequence[str] = (),
            file_problems: Sequence[str] = ()) -> SuiteResult:
        """Run ``cases`` (and their variants); audit that every one of ``files`` ran."""
        self.problems.extend(file_problems)
        plan = [(case, derive(case) if self.generated else []) for case in cases]
        total = sum(1 + len(variants) for _, variants in plan)
        results: list[CaseResult] = []
        try:
            self.start()
        except TransportError as exc:
            self.impl.close()
            raise TransportError(f"start failed: {exc.message}") from None
        try:
            for case, variants in plan:
                self._tick(len(results), total, case.id)
                base = self.run_case(case)
                results.append(base)
                for variant in variants:
                    if base.status is Status.PASS:
                        self._tick(len(results), total, variant.id)
                        results.append(self.run_case(variant))
                    else:
                        results.append(self._result(
                            variant, Status.SKIP,
                            f"not run: base case {case.id} did not pass ({base.status.value})"))
            self._tick(len(results), total, "")
        finally:
            self.stop()
        ran = {r.path for r in results if r.path is not None}
        self.problems.extend(f"{f}: case file not consumed by the run" for f in files
                             if f not in ran)
        crashes = tuple(f"{c.case_id}: {c.what} (exit status {c.exit_status})"
                        for c in getattr(self.impl, "crashes", ()))
        return SuiteResult(implementation=self.info, results=tuple(results),
                           problems=tuple(self.problems), crashes=crashes)

    def _tick(self, done: int, total: int, case_id: str) -> None:
        if self.progress is not None:
            self.progress(done, total, case_id)
