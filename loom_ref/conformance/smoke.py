"""``loom-ref conformance smoke --impl CMD``: is the harness sound, in seconds?

Rules (``conformance/INTERPRETING.md`` section 1). A smoke run is a short conversation that
checks the adapter rather than the implementation behind it:

1. ``start``: a valid reply, the suite's protocol, and only capabilities the suite knows.
2. For each declared capability, one case that needs it (the first, by id, whose other
   requirements are declared too), run and judged as a full run judges it.
3. A ``run`` request whose case the implementation cannot read (``{"id": "smoke/malformed"}``,
   no family): the reply MUST be ``errored``, with the request's ``seq``, and the
   implementation MUST go on answering (section 4).
4. ``stop``: answered ``{"ok": true}``.

Every step prints one line; the smoke passes when every step did (a case the implementation
answers ``skipped`` is a step that passed: it is the harness being tested).
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from loom_ref.conformance.case import Case
from loom_ref.conformance.impl import Implementation, TransportError
from loom_ref.conformance.runner import Runner, Status
from loom_ref.conformance.schemas import describe
from loom_ref.conformance.suite import Suite

__all__ = ["MALFORMED", "SmokeStep", "smoke"]

#: The case of step 3: readable JSON, but no case the implementation can run.
MALFORMED = {"id": "smoke/malformed"}


@attrs.frozen(kw_only=True)
class SmokeStep:
    """One checked step: whether it went as the protocol says, and what happened."""

    ok: bool
    what: str


def _pick(cases: Sequence[Case], capability: str, declared: set[str]) -> Case | None:
    for case in sorted(cases, key=lambda c: c.id):
        if capability in case.requires and set(case.requires) <= declared:
            return case
    return None


def smoke(impl: Implementation, suite: Suite, cases: Sequence[Case]) -> list[SmokeStep]:
    """Run the smoke conversation with ``impl``; the steps in order."""
    runner = Runner(impl, suite, generated=False)
    steps: list[SmokeStep] = []
    try:
        info = runner.start()
    except TransportError as exc:
        impl.close()
        return [SmokeStep(ok=False, what=f"start: {exc.message}")]
    declared = sorted(runner.capabilities)
    steps.append(SmokeStep(ok=True, what=f"start: {info['name']} {info['version']}, "
                                         f"{len(declared)} capabilities"))
    steps += [SmokeStep(ok=False, what=p) for p in runner.problems]
    runner.problems.clear()
    for capability in declared:
        if capability not in suite.capabilities:
            continue
        case = _pick(cases, capability, runner.capabilities)
        if case is None:
            steps.append(SmokeStep(ok=True, what=f"{capability}: no case of this suite needs "
                                                 "only what is declared"))
            continue
        result = runner.run_case(case)
        ok = result.status in (Status.PASS, Status.SKIP)
        detail = f" ({result.message})" if result.message and not ok else ""
        if result.status is Status.SKIP:
            detail = f" (the implementation skipped it: {result.message})"
        steps.append(SmokeStep(ok=ok, what=f"{capability}: {result.id} "
                                           f"{result.status.value}{detail}"))
    runner.seq += 1
    seq = runner.seq
    try:
        reply = impl.request({"cmd": "run", "seq": seq, "case": MALFORMED})
        problems = runner.schemas.problems("run-reply", reply)
        if problems:
            steps.append(SmokeStep(ok=False, what=f"malformed request: invalid reply: "
                                                  f"{describe(problems)}"))
        elif "errored" not in reply or reply["seq"] != seq:
            steps.append(SmokeStep(ok=False, what="malformed request: expected "
                                   f"{{\"seq\": {seq}, \"errored\": ...}}, got {reply!r:.200}"))
        else:
            steps.append(SmokeStep(ok=True, what="malformed request: answered errored"))
    except TransportError as exc:
        steps.append(SmokeStep(ok=False, what=f"malformed request: {exc.message}"))
    try:
        runner.check_reply("stop", impl.request({"cmd": "stop"}))
        steps.append(SmokeStep(ok=True, what="stop: ok"))
    except TransportError as exc:
        steps.append(SmokeStep(ok=False, what=f"stop: {exc.message}"))
    finally:
        impl.close()
    return steps
