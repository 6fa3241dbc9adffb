"""The runtime: starts, resumes, recovers, resolves and replays executions.

Spec: ``spec/kernel.md``.

- ``kernel.recover``: after a crash a fresh runtime with fresh effect instances MUST recover
  an execution from its journal alone: completed work is served, only the remaining calls are
  made, and the final journal equals the uncrashed run's (in-doubt steps aside).
- ``kernel.resume-schema``: a resume payload MUST be checked against its gate's schema before
  anything is appended; a malformed payload is refused and nothing is written.
- ``kernel.resume-gate``: resuming a gate the execution is not waiting on, or resuming the same
  gate twice, is :class:`GateNotWaitingError`; nothing is written.
- ``kernel.resolve``: an in-doubt step is resolved explicitly: complete it with an output,
  fail it with an error, or retry it (invoke the effect again with the same idempotency key).
- ``kernel.replay-readonly``: :meth:`Runtime.replay` drives a body against its journal without
  writing and without calling effects, and reports where the history ends or how it diverged.
- ``kernel.failure-reporting``: what the body did comes back as an :class:`ExecutionResult`
  (its output, or the error it ended with: status ``failed``); what the runtime refused or
  could not do is raised as a ``LoomError`` -- a divergence included, raised after
  ``EXECUTION_FAILED`` is journaled, so a later call returns that same error as a ``failed``
  result.

Every method opens the journal as its single writer and closes it before returning, whatever
happens (a simulated :class:`~loom_ref.journal.faults.Crash` included: the lock of a dead
process is released by the OS).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import attrs

from loom_ref.errors import InvalidArgument, LoomWarning, warn
from loom_ref.journal.events import Event, EventKind, check_events
from loom_ref.journal.fold import ExecutionState, Status, fold
from loom_ref.journal.store import (
    Journal,
    JournalExistsError,
    JournalStore,
    check_execution_id,
    check_store,
)
from loom_ref.kernel.driver import drive
from loom_ref.kernel.errors import (
    ExecutionExistsError,
    GateNotWaitingError,
    InvalidResumeError,
    NotInDoubtError,
    NotStartedError,
    UnknownWorkflowError,
)
from loom_ref.kernel.result import ExecutionResult
from loom_ref.kernel.seam import EffectHost, check_effect_host
from loom_ref.kernel.workflow import Workflow
from loom_ref.schema import validate

__all__ = ["LoomWarning", "Runtime", "replay"]  # LoomWarning: re-exported from loom_ref.errors

K = EventKind
_MISSING: Any = object()


def _default_warn(message: str) -> None:
    warn(message, stacklevel=4)  # spec: errors.warning-category


def _result_from_state(execution_id: str, state: ExecutionState, journal: Journal | None
                       ) -> ExecutionResult:
    return ExecutionResult(
        execution_id=execution_id, status=state.status, output=state.output, error=state.error,
        waiting_on=state.waiting_gate if state.status is Status.SUSPENDED else None,
        in_doubt_step=state.in_doubt_step, torn=journal.torn if journal else None,
    )


def _started(journal: Journal) -> Mapping[str, Any]:
    """The EXECUTION_STARTED payload of a started execution (its first event, by the
    transition table)."""
    return journal.events[0].payload


class Runtime:
    """Drives executions of registered workflows over a journal store and an effect host.

    ``effects`` is anything that satisfies :class:`~loom_ref.kernel.seam.EffectHost`: the
    plain ``EffectRegistry`` or the governed ``loom_ref.effects.EffectRuntime``.
    ``on_warn`` receives one-line warnings (torn tails, in-doubt steps); default: Python's
    ``warnings`` with category :class:`~loom_ref.errors.LoomWarning`
    (spec: errors.warning-category).
    """

    def __init__(
        self, *, store: JournalStore, effects: EffectHost,
        workflows: Iterable[Workflow] | Mapping[str, Workflow],
        on_warn: Callable[[str], None] | None = None,
    ) -> None:
        if isinstance(workflows, str | bytes) or not isinstance(workflows, Iterable):
            raise InvalidArgument(f"workflows must be an iterable or mapping of Workflow records, "
                                  f"got {type(workflows).__name__}")
        items = workflows.values() if isinstance(workflows, Mapping) else workflows
        self._workflows: dict[str, Workflow] = {}
        for wf in items:
            if not isinstance(wf, Workflow):
                raise InvalidArgument(f"workflows must be Workflow records, got {wf!r}")
            if wf.name in self._workflows:
                raise InvalidArgument(f"two workflows are named {wf.name!r}")
            self._workflows[wf.name] = wf
        check_effect_host(effects)
        if on_warn is not None and not callable(on_warn):
            raise InvalidArgument("on_warn must be callable")
        self.store = check_store(store)
        self.effects = effects
        self.on_warn = on_warn or _default_warn

    def workflow(self, name: str) -> Workflow:
        """The workflow registered as ``name``."""
        if not isinstance(name, str):
            raise InvalidArgument(f"a workflow name is a str, got {name!r}")
        try:
            return self._workflows[name]
        except KeyError:
            raise UnknownWorkflowError(f"no workflow named {name!r}", workflow=name) from None

    # -- helpers ---------------------------------------------------------------------------
    def _open(self, execution_id: str) -> Journal:
        """Open the journal as its single writer; the store truncates a torn tail as it
        opens, and it is warned about here, before any other check (spec:
        kernel.journal-open)."""
        journal = self.store.open(check_execution_id(execution_id))
        if journal.torn is not None:  # spec: journal.torn-tail (reported, never silent)
            self.on_warn(
                f"journal.torn-tail: {execution_id!r} line {journal.torn.line} (event "
                f"{len(journal.events) + 1}) was torn "
                f"({journal.torn.size} bytes); treated as not written"
            )
        return journal

    def _drive(self, journal: Journal, started: Mapping[str, Any], *,
               retry_step: str | None = None) -> ExecutionResult:
        """Drive the body from the start; ``started`` is the EXECUTION_STARTED payload (the
        workflow's name, and the input as journaled)."""
        result = drive(
            workflow=self.workflow(started["workflow"]), events=journal.events,
            journal=journal, effects=self.effects, execution_id=journal.execution_id,
            input=started["input"], retry_step=retry_step, on_warn=self.on_warn,
        )
        if journal.torn is not None:
            result = attrs.evolve(result, torn=journal.torn)
        return result

    # -- public API ------------------------------------------------------------------------
    def start(self, workflow: str, input: Any = None, *, execution_id: str) -> ExecutionResult:
        """Start ``workflow`` with ``input`` as ``execution_id`` and drive it as far as it goes.

        The id is the caller's (no randomness inside the kernel). A journal that holds only
        its header (a crash tore the first event) is started afresh.
        """
        check_execution_id(execution_id)
        wf = self.workflow(workflow)  # spec: kernel.start -- an unknown workflow is refused
        try:
            journal = self.store.create(execution_id)
        except JournalExistsError:
            journal = self._open(execution_id)
            if journal.events:  # spec: kernel.start -- an existing execution is refused
                journal.close()
                raise ExecutionExistsError(f"execution {execution_id!r} has already started",
                                           execution_id=execution_id) from None
        try:
            started = journal.append(
                K.EXECUTION_STARTED,
                {"executionId": execution_id, "workflow": wf.name, "input": input})
            return self._drive(journal, started.payload)
        finally:
            journal.close()

    def recover(self, execution_id: str) -> ExecutionResult:
        """Continue an execution from its journal after a crash (``kernel.recover``).

        A finished, suspended or in-doubt execution is reported as it stands; a running one
        (or one whose resume was journaled before the crash) is driven on.
        """
        journal = self._open(execution_id)  # none: journal.not-found (kernel.missing-execution)
        try:
            state = fold(journal.events)  # spec: kernel.journal-checked
            if state.status is Status.NOT_STARTED:  # spec: kernel.missing-execution
                raise NotStartedError(f"execution {execution_id!r} never started",
                                      execution_id=execution_id)
            if state.status is Status.RUNNING or state.pending_resume:
                # spec: kernel.journaled-workflow -- looked up before anything is appended
                assert state.workflow is not None
                self.workflow(state.workflow)
            if state.status is Status.SUSPENDED and state.pending_resume:
                journal.append(K.EXECUTION_RESUMED, {"gateId": state.waiting_gate})
                state = fold(journal.events)
            if state.status is not Status.RUNNING:  # spec: kernel.recover-reports
                return _result_from_state(execution_id, state, journal)
            return self._drive(journal, _started(journal))
        finally:
            journal.close()

    def resume(self, execution_id: str, gate_id: str, payload: Any = None) -> ExecutionResult:
        """Deliver ``payload`` to the gate ``gate_id`` and drive the execution on."""
        journal = self._open(execution_id)
        try:
            state = fold(journal.events)
            if state.status is not Status.SUSPENDED or state.waiting_gate != gate_id or (
                state.pending_resume
            ):  # spec: kernel.resume-gate
                waiting = state.waiting_gate if state.status is Status.SUSPENDED else None
                raise GateNotWaitingError(
                    f"execution {execution_id!r} is {state.status.value}"
                    + (f", waiting on {waiting!r}" if waiting else "")
                    + f"; gate {gate_id!r} cannot be resumed"
                    + (" (already resumed)" if state.pending_resume else ""),
                    execution_id=execution_id, gate_id=gate_id, waiting_on=waiting,
                )
            assert state.workflow is not None
            # spec: kernel.resume-schema -- the gate's journaled schema and the workflow's,
            # both checked before any append
            suspended = next(e for e in reversed(journal.events)
                             if e.kind is K.EXECUTION_SUSPENDED)
            schemas = [s for s in (suspended.payload.get("resumeSchema"),
                                   self.workflow(state.workflow).resume_schemas.get(gate_id))
                       if s is not None]
            problems = [p for schema in schemas for p in validate(payload, schema)]
            if problems:  # every problem of both schemas, the gate's own first
                raise InvalidResumeError(
                    f"resume payload for gate {gate_id!r} is invalid: "
                    + "; ".join(f"{p['path'] or '(the payload)'}: {p['message']}"
                                for p in problems),
                    gate_id=gate_id, problems=problems,
                )
            # spec: kernel.resume-events -- both appended before the drive
            journal.append(K.RESUME_RECEIVED, {"gateId": gate_id, "payload": payload})
            journal.append(K.EXECUTION_RESUMED, {"gateId": gate_id})
            return self._drive(journal, _started(journal))
        finally:
            journal.close()

    def resolve(self, execution_id: str, step_id: str, *, output: Any = _MISSING,
                error: Mapping[str, Any] | None = None, retry: bool = False) -> ExecutionResult:
        """Resolve an in-doubt step: exactly one of ``output=``, ``error={code, message}`` or
        ``retry=True`` (``kernel.resolve``); then drive the execution on."""
        chosen = [output is not _MISSING, error is not None, bool(retry)]
        if sum(chosen) != 1:
            raise InvalidArgument("resolve takes exactly one of output=, error= or retry=True")
        if error is not None and not (
            isinstance(error, Mapping) and isinstance(error.get("code"), str)
            and isinstance(error.get("message"), str)
        ):
            raise InvalidArgument("error must be {'code': str, 'message': str}")
        journal = self._open(execution_id)
        try:
            state = fold(journal.events)
            if state.status is not Status.IN_DOUBT or state.in_doubt_step != step_id:
                raise NotInDoubtError(
                    f"step {step_id!r} of {execution_id!r} is not in doubt "
                    f"(execution is {state.status.value})", step_id=step_id,
                )
            assert state.workflow is not None
            self.workflow(state.workflow)  # spec: kernel.journaled-workflow -- before appending
            if retry:
                return self._drive(journal, _started(journal), retry_step=step_id)
            if error is not None:
                journal.append(K.STEP_FAILED, {"stepId": step_id, "error": dict(error)})
            else:
                journal.append(K.STEP_COMPLETED, {"stepId": step_id, "output": output})
            return self._drive(journal, _started(journal))
        finally:
            journal.close()

    def state(self, execution_id: str) -> ExecutionState:
        """The folded state of an execution, read without taking the writer's lock."""
        return fold(self.store.read(check_execution_id(execution_id)).events)

    def replay(self, execution_id: str) -> ExecutionResult:
        """Replay an execution against its journal, read-only (``kernel.replay-readonly``).

        It takes no writer's lock and truncates nothing; a torn tail it finds is warned about
        and reported, as every call does (spec: kernel.drive-report)."""
        parsed = self.store.read(check_execution_id(execution_id))
        if parsed.torn is not None:  # spec: journal.torn-tail (reported, never silent)
            self.on_warn(
                f"journal.torn-tail: {execution_id!r} line {parsed.torn.line} was torn "
                f"({parsed.torn.size} bytes); treated as not written"
            )
        events = parsed.events
        # spec: kernel.journal-checked -- folded before anything else, so a journal whose
        # first event is not EXECUTION_STARTED is illegal, not "never started"
        if fold(events).status is Status.NOT_STARTED:  # spec: kernel.missing-execution
            raise NotStartedError(f"execution {execution_id!r} never started")
        result = _replay(self.workflow(events[0].payload["workflow"]), events,
                         effects=self.effects, on_warn=self.on_warn)
        return result if parsed.torn is None else attrs.evolve(result, torn=parsed.torn)


def replay(workflow: Workflow, events: Sequence[Event], *, effects: EffectHost | None = None,
           on_warn: Callable[[str], None] | None = None) -> ExecutionResult:
    """Drive ``workflow`` against ``events`` without writing and without calling effects.

    Returns the status where the history ends (completed, failed, suspended on a gate, or
    running when the body would issue a command the journal does not hold yet); raises
    :class:`~loom_ref.kernel.errors.NondeterminismError` on any divergence.
    ``effects`` is used only by deciders whose decision is not in the journal. Events that
    break the transition table raise :class:`~loom_ref.journal.fold.IllegalTransitionError`
    before the body runs.
    (spec: kernel.replay-readonly)
    """
    if not isinstance(workflow, Workflow):
        raise InvalidArgument(f"workflow must be a Workflow, got {type(workflow).__name__}")
    if effects is not None:
        check_effect_host(effects)
    if on_warn is not None and not callable(on_warn):
        raise InvalidArgument("on_warn must be callable")
    events = check_events(events)  # a caller's events: checked as a reader checks a journal's
    if fold(events).status is Status.NOT_STARTED:  # spec: kernel.journal-checked first
        raise NotStartedError("the events hold no EXECUTION_STARTED")
    return _replay(workflow, events, effects=effects, on_warn=on_warn)


def _replay(workflow: Workflow, events: Sequence[Event], *, effects: EffectHost | None,
            on_warn: Callable[[str], None] | None) -> ExecutionResult:
    """:func:`replay` of events a journal reader checked (or :func:`replay` did)."""
    first = events[0].payload  # the drive's history index checks journal.transitions
    return drive(workflow=workflow, events=events, journal=None, effects=effects,
                 execution_id=first["executionId"], input=first["input"],
                 on_warn=on_warn or _default_warn)
