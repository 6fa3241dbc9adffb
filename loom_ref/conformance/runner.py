"""The runner: sends cases to an implementation, and decides pass / fail / skip / error.

Rules (``conformance/INTERPRETING.md`` sections 4, 7 and 9):

- Every message sent and every reply received is validated against its schema; a reply that
  fails is the implementation's protocol error and the case is *errored*.
- The start reply's capabilities must all be known to the suite (``capabilities.json``): a
  name the suite does not know (a misspelling, or one of a newer suite) is a protocol problem
  of the run, listed with the names the suite knows, so a run that tests nothing by mistake
  cannot pass.
- A case whose requirements the implementation did not declare among its capabilities is
  *skipped* with that reason, and so is a case the implementation answers ``skipped``.
  Nothing unsupported is ever counted as passed.
- A case *passes* when the observations match the expectation (:mod:`.match`); errors are
  compared partially: the expected code, and any other member the case gives (``line``,
  ``reason``), may not differ; the implementation may report more.
- Generated variants (:mod:`.derive`) of a case run after it, and only if it passed; if it
  did not, they are skipped with that reason, so one broken rule reads as one failure. The
  ``store`` variants follow the journal stores the start reply names, so the plan is made
  after ``start``; a store named twice is a problem of the run.
- A run in which no case executed (every one skipped) is a problem of the run, unless it is
  explicitly allowed (a starter adapter that implements nothing yet).
- The audit: every file under ``cases/`` must have been run (or be reported as unreadable);
  a file that was not is an error of the run.
- With several implementation processes (``--jobs``) the cases are spread over them; the
  verdicts, their order and the report are those of a run on one (:mod:`.pool`).
- An interrupted run (Ctrl-C, ``KeyboardInterrupt``) ends its implementations at once (their
  process groups, without ``stop``) and returns what it has: the verdicts of the cases that
  finished, ``interrupted`` set, and a problem saying how far it got, so the verdict is
  never a pass.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import attrs

from loom_ref import __version__
from loom_ref.conformance.case import Case, Family
from loom_ref.conformance.derive import derive
from loom_ref.conformance.impl import Implementation, TransportError
from loom_ref.conformance.match import Mismatch, match
from loom_ref.conformance.pool import Job, run_jobs
from loom_ref.conformance.provenance import (
    Profile,
    Provenance,
    profile_of,
    spec_provenance,
    weakest,
)
from loom_ref.conformance.rules import Rule, spec_rules
from loom_ref.conformance.schemas import SchemaSet, describe
from loom_ref.conformance.selection import selects_variant
from loom_ref.conformance.suite import Suite
from loom_ref.enums import LoomEnum

__all__ = ["CaseResult", "CaseStatus", "Runner", "Status", "SuiteResult", "expectation_of"]

Progress = Callable[[int, int, str], None]


class CaseStatus(LoomEnum):
    """The verdict on one case (``conformance/INTERPRETING.md``: pass, fail, skip, error).
    Not ``journal.Status``, an execution's status (spec: journal.fold)."""

    PASS = "pass"
    FAIL = "fail"
    SKIP = "skip"
    ERROR = "error"


#: The name before issue 22 (``loom_ref.conformance`` exports :class:`CaseStatus` only).
Status = CaseStatus


@attrs.frozen(kw_only=True)
class CaseResult:
    """The verdict on one case, with what a reader needs to act on a failure: the rule
    (anchor, tier, the spec file), each mismatch with its expected and actual JSON values,
    and, for a failure or an error, the case exactly as it was sent."""

    id: str
    group: str
    anchor: str
    tier: str
    mode: str
    status: Status
    description: str = ""
    message: str = ""
    mismatches: tuple[Mismatch, ...] = ()
    details: tuple[str, ...] = ()
    base_id: str | None = None
    path: str | None = None
    sent: Mapping[str, Any] | None = None
    provenance: Provenance = Provenance.LOOM_REF
    delivered: bool = False  # the case went to the implementation (its reply is the verdict)

    @property
    def profile(self) -> Profile:
        """The narrowest profile this verdict counts in (``core`` cases count in both)."""
        return profile_of(self.provenance)

    def counts_in(self, profile: Profile) -> bool:
        """Whether this verdict is part of ``profile``'s: every case is part of the
        loom-ref profile; only core cases are part of the core profile."""
        return profile is Profile.LOOM_REF or self.profile is Profile.CORE

    @property
    def diff(self) -> tuple[str, ...]:
        """The mismatches, one line each, then any other detail (stderr, context)."""
        return (*(m.render() for m in self.mismatches), *self.details)


@attrs.frozen(kw_only=True)
class SuiteResult:
    """A whole run: the versions, the implementation's self-description, every verdict, and
    problems with the run itself (unreadable or unconsumed files, unknown capabilities, a run
    in which nothing executed, implementation crashes)."""

    implementation: Mapping[str, Any]
    results: tuple[CaseResult, ...]
    problems: tuple[str, ...] = ()
    crashes: tuple[str, ...] = ()
    suite_version: str = ""
    runner_version: str = __version__
    cases_dir: str | None = None
    rules: Mapping[str, Rule] = attrs.field(factory=dict)
    profile: Profile = Profile.CORE
    interrupted: bool = False

    def count(self, status: Status) -> int:
        return sum(1 for r in self.results if r.status is status)

    def results_in(self, profile: Profile) -> tuple[CaseResult, ...]:
        """The verdicts that are part of ``profile``."""
        return tuple(r for r in self.results if r.counts_in(profile))

    def ok_in(self, profile: Profile) -> bool:
        """No failure and no error in ``profile``, and no problem with the run."""
        return not self.problems and not any(
            r.status in (Status.FAIL, Status.ERROR) for r in self.results_in(profile))

    @property
    def ok(self) -> bool:
        """The verdict of the profile judged (:attr:`profile`, INTERPRETING.md section 9a):
        no failure and no error among its cases, and no problem with the run."""
        return self.ok_in(self.profile)


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
    """Runs cases against one implementation, through one or more of its processes."""

    def __init__(self, impl: Implementation | Sequence[Implementation], suite: Suite, *,
                 generated: bool = True, only: Sequence[str] = (),
                 allow_all_skipped: bool = False, progress: Progress | None = None,
                 profile: Profile = Profile.CORE) -> None:
        self.workers: list[Implementation] = (list(impl) if isinstance(impl, Sequence)
                                              else [impl])
        self.suite = suite
        self.schemas = SchemaSet(suite.schemas_dir)
        self.generated = generated
        self.only = tuple(only)
        self.allow_all_skipped = allow_all_skipped
        self.progress = progress
        self.info: dict[str, Any] = {}
        self.capabilities: set[str] = set()
        self.seq = 0
        self.problems: list[str] = []
        self.stores: tuple[str, ...] = ()
        self.profile = profile
        self.provenance = spec_provenance(suite.spec_dir)

    # -- messages ---------------------------------------------------------------------------------
    def message(self, kind: str, message: Mapping[str, Any]) -> Mapping[str, Any]:
        """``message``, checked against its schema (a failure is the runner's own bug)."""
        problems = self.schemas.problems(kind, message)
        case = message.get("case")
        family = case.get("family") if isinstance(case, Mapping) else None
        if problems and family in ("scenario", "vector"):  # say what the case's own
            # alternative refuses, not just "matches 0 of the oneOf alternatives"
            problems = [{**p, "path": "/case" + p["path"]} for p in
                        self.schemas.problems_def(f"{family}Run", case)] or problems
        if problems:
            raise TransportError(f"the runner built an invalid {kind} message: "
                                 f"{describe(problems)}")
        return message

    def check_reply(self, kind: str, reply: Any) -> Any:
        problems = self.schemas.problems(f"{kind}-reply", reply)
        if problems:
            raise TransportError(f"invalid {kind} reply: {describe(problems)}")
        return reply

    def _request(self, worker: Implementation, kind: str, message: Mapping[str, Any]) -> Any:
        return self.check_reply(kind, worker.request(self.message(kind, message)))

    def start(self) -> dict[str, Any]:
        """Shake hands with every worker; remember the first one's self-description."""
        for i, worker in enumerate(self.workers):
            reply = self._request(worker, "start", {"cmd": "start",
                                                    "protocol": self.suite.protocol})
            if reply["protocol"] != self.suite.protocol:
                raise TransportError(f"the implementation speaks protocol {reply['protocol']}, "
                                     f"the suite {self.suite.protocol}")
            if i == 0:
                self.info = dict(reply["implementation"])
                self.capabilities = set(self.info["capabilities"])
                self.problems += self.unknown_capabilities(self.info["capabilities"])
                stores = list(self.info.get("stores", ()))
                if len(set(stores)) < len(stores):
                    self.problems.append(f"start: the implementation names a store twice: "
                                         f"{stores}")
                self.stores = tuple(dict.fromkeys(stores))
        return self.info

    def unknown_capabilities(self, declared: Iterable[str]) -> list[str]:
        """A problem line for each declared capability the suite does not know."""
        known = sorted(self.suite.capabilities)
        out = []
        for name in declared:
            if name in self.suite.capabilities:
                continue
            close = difflib.get_close_matches(name, known, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            out.append(f"start: the implementation declares capability {name!r}, which suite "
                       f"{self.suite.version} does not know{hint}; known: {', '.join(known)}")
        return out

    def abandon(self) -> None:
        """End every worker now, without ``stop`` (an interrupted run)."""
        for worker in self.workers:
            worker.abandon()

    def stop(self) -> None:
        for worker in self.workers:
            try:
                self._request(worker, "stop", {"cmd": "stop"})
            except TransportError as exc:
                self.problems.append(f"stop: {exc.message}")
            finally:
                worker.close()

    # -- one case ---------------------------------------------------------------------------------
    def _result(self, case: Case, status: Status, message: str = "", *,
                mismatches: Sequence[Mismatch] = (), details: Sequence[str] = (),
                sent: Mapping[str, Any] | None = None) -> CaseResult:
        return CaseResult(id=case.id, group=case.group, anchor=case.anchor,
                          tier=case.tier.value, mode=case.mode, status=status,
                          description=case.description, message=message,
                          mismatches=tuple(mismatches), details=tuple(details),
                          base_id=case.base_id, path=case.path, sent=sent,
                          provenance=self.provenance_of(case))

    def provenance_of(self, case: Case) -> Provenance:
        """A case's own provenance; a variant's is also that of its mode's rule (a crash
        variant of a seed case under the in-doubt rule, a loom-ref choice, is loom-ref's)."""
        if case.mode == "base":
            return case.provenance
        return weakest(case.provenance,
                       self.provenance.get(case.anchor, Provenance.LOOM_REF))

    def prepare(self, case: Case) -> CaseResult | Mapping[str, Any]:
        """The ``run`` message for ``case``, or its verdict when it is not to be sent."""
        missing = [c for c in case.requires if c not in self.capabilities]
        if missing:
            return self._result(case, Status.SKIP,
                                f"the implementation does not declare capability {missing[0]!r}")
        self.seq += 1
        return self.message("run", {"cmd": "run", "seq": self.seq, "case": case.to_run()})

    def judge(self, case: Case, message: Mapping[str, Any], reply: Any) -> CaseResult:
        """The verdict on ``reply`` (or the TransportError that took its place)."""
        return attrs.evolve(self._judge(case, message, reply), delivered=True)

    def _judge(self, case: Case, message: Mapping[str, Any], reply: Any) -> CaseResult:
        sent = message["case"]
        if isinstance(reply, TransportError):
            detail = reply.details.get("stderr")
            return self._result(case, Status.ERROR, reply.message, sent=sent,
                                details=[f"stderr: {detail[-500:]}"] if detail else ())
        try:
            return self._judge_reply(case, message, reply)
        except RecursionError:  # a reply the transport let through, too deep to compare
            return self._result(case, Status.ERROR, "the reply nests too deeply to be "
                                "checked", sent=sent)

    def _judge_reply(self, case: Case, message: Mapping[str, Any], reply: Any) -> CaseResult:
        sent = message["case"]
        try:
            self.check_reply("run", reply)
        except TransportError as exc:
            return self._result(case, Status.ERROR, exc.message, sent=sent)
        if reply["seq"] != message["seq"]:
            return self._result(case, Status.ERROR, f"reply seq {reply['seq']} answers no "
                                f"request (sent {message['seq']})", sent=sent)
        if "skipped" in reply:
            return self._result(case, Status.SKIP, reply["skipped"]["reason"])
        if "errored" in reply:
            context = reply["errored"].get("context")
            lines = [str(context)[-800:]] if context is not None else []
            return self._result(case, Status.ERROR, reply["errored"]["message"],
                                details=lines, sent=sent)
        observations = reply["observations"]
        kind = "vectorObservations" if case.family is Family.VECTOR else "scenarioObservations"
        shape = self.schemas.problems_def(kind, observations)
        if shape:
            return self._result(case, Status.ERROR, f"observations of the wrong shape for a "
                                f"{case.family.value}: {describe(shape)}", sent=sent)
        mismatches = match(expectation_of(case), observations)
        if mismatches:
            return self._result(case, Status.FAIL, f"{len(mismatches)} mismatch(es)",
                                mismatches=mismatches, sent=sent)
        return self._result(case, Status.PASS)

    def run_case(self, case: Case) -> CaseResult:
        """Send one case to the first worker; judge the reply."""
        prepared = self.prepare(case)
        if isinstance(prepared, CaseResult):
            return prepared
        worker = self.workers[0]
        try:
            reply = worker.request(prepared)
        except TransportError as exc:
            reply = exc
        return self.judge(case, prepared, reply)

    # -- a whole run ------------------------------------------------------------------------------
    def _variants(self, case: Case) -> list[Case]:
        if not self.generated:
            return []
        return [v for v in derive(case, self.stores)
                if selects_variant(self.only, case.id, v.id)]

    def run(self, cases: Iterable[Case], *, files: Sequence[str] = (),
            file_problems: Sequence[str] = ()) -> SuiteResult:
        """Run ``cases`` (and their variants); audit that every one of ``files`` ran."""
        self.problems.extend(file_problems)
        try:
            self.start()
        except TransportError as exc:
            for worker in self.workers:
                worker.close()
            raise TransportError(f"start failed: {exc.message}") from None
        except KeyboardInterrupt:
            self.abandon()
            raise
        plan = [(case, self._variants(case)) for case in cases]
        slots: list[CaseResult | None] = []
        jobs: list[Job] = []
        for case, variants in plan:
            jobs.append(Job(position=len(slots), case=case,
                            variants=tuple((len(slots) + 1 + i, v)
                                           for i, v in enumerate(variants))))
            slots.extend([None] * (1 + len(variants)))
        interrupted = False
        try:
            run_jobs(self, jobs, slots, progress=self.progress)
        except KeyboardInterrupt:
            interrupted = True
            self.abandon()
        else:
            self.stop()
        results = [r for r in slots if r is not None]
        if interrupted:
            self.problems.append(f"interrupted (Ctrl-C) after {len(results)} of {len(slots)} "
                                 "cases and variants: the implementation was stopped, the "
                                 "verdict is partial")
        ran = {r.path for r in results if r.path is not None}
        if not interrupted:
            self.problems.extend(f"{f}: case file not consumed by the run" for f in files
                                 if f not in ran)
        executed = [r for r in results if r.status is not Status.SKIP]
        in_profile = [r for r in executed if r.counts_in(self.profile)]
        if executed and not in_profile and not self.allow_all_skipped and not interrupted:
            self.problems.append(
                f"no case of the {self.profile.value} profile ran ({len(executed)} of the "
                "loom-ref profile did): its verdict is untested; --profile loom-ref judges "
                "every case (INTERPRETING.md section 9a)")
        if results and not executed and not self.allow_all_skipped and not interrupted:
            sent = self.seq > 0
            why = ("the implementation answered skipped to every case it was sent" if sent
                   else f"the implementation declared {len(self.capabilities)} "
                        "capabilities, none that a selected case needs")
            self.problems.append(f"no case ran: all {len(results)} were skipped ({why}); a "
                                 "run that tests nothing does not pass (--allow-all-skipped "
                                 "allows it)")
        order = {r.id: i for i, r in enumerate(results)}
        crashes = sorted((c for w in self.workers for c in getattr(w, "crashes", ())),
                         key=lambda c: order.get(c.case_id or "", -1))
        rules = spec_rules(self.suite.spec_dir)
        used = {r.anchor for r in results}
        return SuiteResult(
            implementation=self.info, results=tuple(results), problems=tuple(self.problems),
            crashes=tuple(f"{c.case_id or '(start or stop)'}: {c.what}; {c.ending}"
                          for c in crashes),
            suite_version=self.suite.version, cases_dir=self.suite.cases_dir,
            rules={a: rules[a] for a in sorted(used) if a in rules}, profile=self.profile,
            interrupted=interrupted)

    def skip_variants(self, job: Job, base: CaseResult) -> list[tuple[int, CaseResult]]:
        """The variants of a base case that did not pass, each skipped with the reason."""
        return [(pos, self._result(v, Status.SKIP, f"not run: base case {job.case.id} did "
                                   f"not pass ({base.status.value})"))
                for pos, v in job.variants]
