"""Driving a runner body: serve what the journal holds, run what it does not, journal it.

Spec: ``spec/kernel.md``. The rules, in the order a drive meets them:

- ``kernel.replay-serve``: a command the journal already holds MUST be served from it: a
  completed step's output is returned and its effect is not called; a failed step's error is
  raised again; a recorded decision's choice is returned and the decider does not run (ADR
  0119 decision 5: "a recorded decision serves choice and the decider never runs"); a gate
  with a journaled resume returns its payload.
- ``kernel.replay-compare``: each command is compared with the journal at that point: a
  different kind, id or tool (or a body that ends while history remains) is a
  :class:`NondeterminismError` with expected and actual. The drive never continues past it;
  a writing drive journals EXECUTION_FAILED first, so a diverged execution never looks running.
- ``kernel.json-roundtrip``: every value a body or an effect receives (inputs, outputs,
  choices, resume payloads) is the journaled JSON value, decoded: live and on replay alike.
  Live, it is the payload of the event ``append`` returns (decoded from the line written);
  on replay, the payload parsed from the journal.
- ``kernel.step-failure``: an effect's exception is journaled as STEP_FAILED ``{code,
  message}`` and raised into the body as :class:`StepFailedError`, identically on replay.
- ``kernel.in-doubt``: a step with STEP_STARTED and no outcome, found when a drive reaches it,
  is in doubt (K9). An effect that declares itself idempotent is invoked again with the same
  idempotency key; any other gets STEP_IN_DOUBT and the execution parks until resolved.
- ``kernel.duplicate-id``: two commands of one execution with the same id raise
  :class:`DuplicateIdError` into the body.
- ``kernel.decider-throws``: a decider that raises records nothing; its exception is raised
  into the body (ADR 0119 decision 8: "nothing is recorded because the decider threw").

A drive is either *writing* (``journal`` given: start, resume, recover, resolve) or
*read-only* (``journal`` is None: :func:`~loom_ref.kernel.runtime.replay`), which stops where
the history ends and never calls an effect.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from loom_ref.effects.call import EffectCall, Mode
from loom_ref.effects.scope import DecideScope
from loom_ref.enums import plain_members
from loom_ref.errors import EffectError, InvalidArgument, LoomError
from loom_ref.journal.codec import check_line_text, event_line, from_written_text, to_json_text
from loom_ref.journal.events import Event, EventKind, PayloadError, check_payload
from loom_ref.journal.fold import Status
from loom_ref.journal.store import Journal
from loom_ref.kernel.commands import Choice, Decide, Execute, Stream, Suspend
from loom_ref.kernel.context import ExecutionContext
from loom_ref.kernel.errors import DuplicateIdError, NondeterminismError, StepFailedError
from loom_ref.kernel.history import Recorded, index_history
from loom_ref.kernel.result import ExecutionResult
from loom_ref.kernel.seam import EffectHost
from loom_ref.kernel.workflow import Workflow
from loom_ref.schema import json_equal
from loom_ref.signals import any_of

__all__ = ["drive", "error_json"]

K = plain_members(EventKind)  # EventKind.X, read fast per event (loom_ref.enums)
_COMMAND_KIND = {Execute: "execute", Decide: "decide", Suspend: "suspend", Stream: "stream"}


_SCALARS = frozenset({str, int, bool, type(None)})


def _copy(value: Any) -> Any:
    """The value a body receives: the journaled JSON value, decoded (``kernel.json-roundtrip``).

    Strings, integers, booleans and null decode to themselves, so they skip the round trip.
    """
    if type(value) in _SCALARS:
        return value
    return json.loads(json.dumps(value))


def error_json(exc: BaseException, default_code: str) -> dict[str, Any]:
    """The ``{code, message}`` journaled for an exception."""
    if isinstance(exc, LoomError):
        return exc.to_json()
    return {"code": default_code, "message": f"{type(exc).__name__}: {exc}"}


def _command_id(cmd: Any) -> str:
    if isinstance(cmd, Execute):
        return cmd.step_id
    if isinstance(cmd, Decide):
        return cmd.decision_id
    if isinstance(cmd, Suspend):
        return cmd.gate_id
    return str(cmd.stream_id)


def _describe(cmd: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"command": _COMMAND_KIND[type(cmd)], "id": _command_id(cmd)}
    if isinstance(cmd, Execute):
        out["toolId"] = cmd.tool_id
    return out


def _event_of(cmd: Any, execution_id: str, choice: Any = None) -> tuple[EventKind, dict[str, Any]]:
    """The event a command journals when it runs live (a decision's with ``choice``)."""
    if isinstance(cmd, Execute):
        return K.STEP_STARTED, {"stepId": cmd.step_id, "toolId": cmd.tool_id, "input": cmd.input,
                                "idempotencyKey": f"{execution_id}/{cmd.step_id}"}
    if isinstance(cmd, Decide):  # spec: kernel.decision-record -- policy {id, propensity};
        # context and alternatives only when given
        payload: dict[str, Any] = {"decisionId": cmd.decision_id}
        if isinstance(choice, Choice):
            payload["choice"] = choice.value
            payload["policy"] = {"id": choice.policy_id, "propensity": choice.propensity}
        else:
            payload["choice"] = choice
        if cmd.context is not None:
            payload["context"] = cmd.context
        if cmd.alternatives is not None:
            payload["alternatives"] = cmd.alternatives
        return K.DECISION_RECORDED, payload
    if isinstance(cmd, Suspend):
        # spec: kernel.gate-record -- on and correlationKey null when not given
        gate = {"gateId": cmd.gate_id, "on": cmd.on, "correlationKey": cmd.correlation_key}
        if cmd.resume_schema is not None:  # spec: kernel.resume-schema (journaled)
            gate["resumeSchema"] = cmd.resume_schema
        return K.EXECUTION_SUSPENDED, gate
    return K.STREAM_APPENDED, {"streamId": cmd.stream_id, "data": cmd.data}


def _refusal(kind: EventKind, payload: dict[str, Any]) -> PayloadError | None:
    """The error a writer would refuse this event with, or None: what a drive that finds no
    record of a command checks before it compares (spec: kernel.unwritable-event)."""
    try:
        check_payload(kind, payload)
        text = to_json_text(payload)
        check_line_text(event_line(1, kind.value, text))
        from_written_text(text)
    except PayloadError as exc:
        return exc
    except (TypeError, ValueError) as exc:
        return PayloadError(f"{kind.value} payload is not made of JSON values: {exc}",
                            kind=kind.value)
    return None


class _NoHost:
    """The host of a read-only replay's deciders: it has no effects to call."""

    def invoke_transient_call(self, call: EffectCall) -> Any:
        raise EffectError(f"read-only replay has no effect host for {call.tool_id!r}",
                          code="effect.no-host")


_NO_HOST = _NoHost()


class _Park(Exception):
    def __init__(self, status: Status, **fields: Any) -> None:
        self.status = status
        self.fields = fields


class _Drive:
    def __init__(
        self, *, workflow: Workflow, events: Sequence[Event], journal: Journal | None,
        effects: EffectHost | None, execution_id: str, input: Any, retry_step: str | None,
        on_warn: Callable[[str], None],
    ) -> None:
        self.workflow = workflow
        self.journal = journal
        self.effects = effects
        self.execution_id = execution_id
        self.input = input
        self.retry_step = retry_step
        self.on_warn = on_warn
        self.records, self.terminal = index_history(events)
        self.cursor = 0
        self.seen: set[str] = set()
        self.served: list[str] = []
        self.ran: list[str] = []
        self.ctx = ExecutionContext(execution_id)

    # -- journal -------------------------------------------------------------------------
    def append(self, kind: EventKind, payload: dict[str, Any]) -> Event:
        assert self.journal is not None
        return self.journal.append(kind, payload)

    # -- the loop ------------------------------------------------------------------------
    def run(self) -> ExecutionResult:
        gen = self.workflow.body(self.ctx, self.input)
        send: Any = None
        throw: BaseException | None = None
        while True:
            try:
                cmd = gen.send(send) if throw is None else gen.throw(throw)
            except StopIteration as stop:
                return self.finish(stop.value, None)
            except Exception as exc:  # the body failed
                return self.finish(None, exc)
            send, throw = None, None
            try:
                send, throw = self.handle(cmd)
            except _Park as park:
                gen.close()
                return self.result(park.status, **park.fields)
            except NondeterminismError as exc:  # spec: kernel.failure-reporting -- raised
                gen.close()
                if self.journal is not None:
                    self.append(K.EXECUTION_FAILED, {"error": exc.to_json()})
                raise

    def result(self, status: Status, **fields: Any) -> ExecutionResult:
        return ExecutionResult(execution_id=self.execution_id, status=status,
                               served=tuple(self.served), ran=tuple(self.ran), **fields)

    def handle(self, cmd: Any) -> tuple[Any, BaseException | None]:
        kind = _COMMAND_KIND.get(type(cmd))
        if kind is None:
            return None, InvalidArgument(
                f"a body must yield commands built by ctx (execute, decide, suspend, stream), "
                f"got {type(cmd).__name__}", code="argument.command",
            )
        cid = _command_id(cmd)
        if cid in self.seen:  # spec: kernel.duplicate-id
            return None, DuplicateIdError(f"id {cid!r} is used twice in one execution", id=cid)
        self.seen.add(cid)
        if self.cursor < len(self.records):
            rec = self.records[self.cursor]
            if rec.kind == kind and rec.id == cid and (
                not isinstance(cmd, Execute) or rec.tool_id == cmd.tool_id
            ):
                self.cursor += 1
                return self.serve(rec, cmd)
            # spec: kernel.decider-throws, kernel.unwritable-event (a hole)
            refused = self.hole(cmd)
            if refused is not None:
                return None, refused
            raise NondeterminismError(  # spec: kernel.replay-compare
                "the body diverged from its journal", expected=rec.describe(),
                actual=_describe(cmd),
            )
        if self.journal is None:  # read-only replay: the history ends here
            if self.terminal is None:  # ... running: the body goes on where it stops
                raise _Park(Status.RUNNING)
            # ... finished: the body MUST end as it did (spec: kernel.replay-end); another
            # command is a divergence, except a hole as mid-history: a decision whose decider
            # throws again, a command whose event the writer would refuse again
            # (spec: kernel.decider-throws, kernel.unwritable-event)
            refused = self.hole(cmd)
            if refused is not None:
                return None, refused
            raise NondeterminismError(
                "the body issued a command where its finished history ends",
                expected=_terminal(self.terminal), actual=_describe(cmd))
        return self.live(cmd)

    def hole(self, cmd: Any) -> BaseException | None:
        """A command the journal has no record of where it holds another (or has ended): the
        error to raise into the body if the history stays consistent, else None (a
        divergence). A decider runs again and only a throw is consistent
        (``kernel.decider-throws``); a command whose event the writer would refuse, as it
        refused it when it ran live, is refused again (``kernel.unwritable-event``)."""
        choice = None
        if isinstance(cmd, Decide):
            try:
                choice = self.run_decider(cmd)
            except Exception as exc:
                return exc
        return _refusal(*_event_of(cmd, self.execution_id, choice))

    # -- serving from the log ------------------------------------------------------------
    def serve(self, rec: Recorded, cmd: Any) -> tuple[Any, BaseException | None]:
        if rec.kind == "execute":
            if rec.outcome is None:
                return self.in_doubt(rec, cmd)
            self.served.append(rec.id)
            p = rec.outcome.payload
            if rec.outcome.kind is K.STEP_COMPLETED:
                return p["output"], None
            return None, StepFailedError(step_id=rec.id, error=dict(p["error"]))
        if rec.kind == "suspend":
            if rec.outcome is None:
                raise _Park(Status.SUSPENDED, waiting_on=rec.id)
            self.served.append(rec.id)
            return rec.outcome.payload["payload"], None
        self.served.append(rec.id)
        assert rec.start is not None
        if rec.kind == "decide":
            return rec.start.payload["choice"], None
        return None, None

    def in_doubt(self, rec: Recorded, cmd: Execute) -> tuple[Any, BaseException | None]:
        # spec: kernel.in-doubt
        if self.journal is None:
            raise _Park(Status.IN_DOUBT if rec.marked_in_doubt else Status.RUNNING,
                        in_doubt_step=rec.id)
        assert self.effects is not None and rec.start is not None
        if rec.id == self.retry_step or self.effects.is_idempotent(rec.tool_id or ""):
            start = rec.start.payload
            return self.invoke(cmd, start["input"], start["idempotencyKey"])
        if not rec.marked_in_doubt:
            self.append(K.STEP_IN_DOUBT, {"stepId": rec.id})
            self.on_warn(f"kernel.in-doubt: step {rec.id!r} of {self.execution_id!r} started "
                         "but has no outcome; resolve it with complete, fail or retry")
        raise _Park(Status.IN_DOUBT, in_doubt_step=rec.id)

    # -- running live --------------------------------------------------------------------
    def live(self, cmd: Any) -> tuple[Any, BaseException | None]:
        if isinstance(cmd, Execute):
            kind, payload = _event_of(cmd, self.execution_id)
            try:
                started = self.append(kind, payload)
            except PayloadError as exc:  # spec: kernel.unwritable-event -- into the body
                return None, exc
            return self.invoke(cmd, started.payload["input"], payload["idempotencyKey"])
        if isinstance(cmd, Decide):
            try:
                choice = self.run_decider(cmd)
            except Exception as exc:  # spec: kernel.decider-throws, kernel.decider-errors
                return None, exc  # (as raised: an error without a code stays without one)
            try:
                recorded = self.append(*_event_of(cmd, self.execution_id, choice))
            except PayloadError as exc:
                return None, exc
            self.ran.append(cmd.decision_id)
            return recorded.payload["choice"], None
        if isinstance(cmd, Suspend):
            try:
                self.append(*_event_of(cmd, self.execution_id))
            except PayloadError as exc:  # a schema that is not made of JSON values
                return None, exc
            self.ran.append(cmd.gate_id)
            raise _Park(Status.SUSPENDED, waiting_on=cmd.gate_id)
        try:
            self.append(*_event_of(cmd, self.execution_id))
        except PayloadError as exc:
            return None, exc
        self.ran.append(cmd.stream_id)
        return None, None

    def run_decider(self, cmd: Decide) -> Any:
        """Run a decider inside its scope; a throw propagates (nothing recorded)."""
        host = self.effects if self.effects is not None else _NO_HOST
        with DecideScope(host, self.execution_id, execution_signal=self.ctx.signal) as scope:
            return cmd.decider(scope)

    def invoke(self, cmd: Execute, input: Any, key: str) -> tuple[Any, BaseException | None]:
        assert self.effects is not None
        # the call's signal: the execution's cancel, composed with the body's own if it gave one
        signal = self.ctx.signal if cmd.signal is None else any_of(self.ctx.signal, cmd.signal)
        call = EffectCall(
            tool_id=cmd.tool_id, input=input, mode=Mode.DURABLE,
            principal=self.execution_id, execution_id=self.execution_id, step_id=cmd.step_id,
            idempotency_key=key, signal=signal,
        )
        self.ran.append(cmd.step_id)
        try:
            output = self.effects.invoke(call)
        except Exception as exc:  # spec: kernel.step-failure
            error = error_json(exc, "effect.failed")
            self.append(K.STEP_FAILED, {"stepId": cmd.step_id, "error": error})
            return None, StepFailedError(step_id=cmd.step_id, error=error)
        finally:
            if signal is not self.ctx.signal:
                signal.detach()  # type: ignore[attr-defined]
        try:
            completed = self.append(K.STEP_COMPLETED, {"stepId": cmd.step_id, "output": output})
        except PayloadError as exc:
            error = exc.to_json()
            self.append(K.STEP_FAILED, {"stepId": cmd.step_id, "error": error})
            return None, StepFailedError(step_id=cmd.step_id, error=error)
        return completed.payload["output"], None

    # -- the end ---------------------------------------------------------------------------
    def finish(self, output: Any, exc: Exception | None) -> ExecutionResult:
        if self.cursor < len(self.records):  # spec: kernel.replay-compare
            actual = {"command": "return" if exc is None else "raise"}
            err = NondeterminismError("the body ended before its journal did",
                                      expected=self.records[self.cursor].describe(),
                                      actual=actual)
            if self.journal is not None:
                self.append(K.EXECUTION_FAILED, {"error": err.to_json()})
            raise err
        if self.journal is None:
            return self.finish_replay(output, exc)
        if exc is None:
            try:
                done = self.append(K.EXECUTION_COMPLETED, {"output": output})
            except PayloadError as bad:
                exc = bad
            else:
                return self.result(Status.COMPLETED, output=done.payload["output"])
        error = error_json(exc, "kernel.body-error")
        self.append(K.EXECUTION_FAILED, {"error": error})
        return self.result(Status.FAILED, error=error)

    def finish_replay(self, output: Any, exc: Exception | None) -> ExecutionResult:
        """The end of a read-only drive: where the history ends, or how the body's own end
        differs from a finished history's (spec: kernel.replay-end)."""
        term = self.terminal
        if term is None:  # spec: kernel.replay-readonly -- the history ends here
            return self.result(Status.RUNNING)
        if exc is None:  # spec: kernel.unwritable-event -- an output the writer would refuse
            exc = _refusal(K.EXECUTION_COMPLETED, {"output": output})  # failed the execution
        if exc is None:
            if term.kind is not K.EXECUTION_COMPLETED or not json_equal(
                    _copy(output), term.payload["output"]):
                raise NondeterminismError(
                    "the replayed body returned a different result",
                    expected=_terminal(term), actual={"command": "return", "output": output},
                )
            return self.result(Status.COMPLETED, output=_copy(output))
        error = error_json(exc, "kernel.body-error")
        recorded = term.payload["error"] if term.kind is K.EXECUTION_FAILED else None
        if recorded is None or (recorded.get("code"), recorded.get("message")) != (
                error.get("code"), error.get("message")):
            raise NondeterminismError(
                "the replayed body failed differently", expected=_terminal(term),
                actual={"command": "raise", "error": error},
            )
        return self.result(Status.FAILED, error=error)


def _terminal(term: Event) -> dict[str, Any]:
    """The ``expected`` side of a divergence met where the history has ended: its seq, and
    ``return`` with the output or ``raise`` with the error (spec: kernel.replay-compare)."""
    if term.kind is K.EXECUTION_COMPLETED:
        return {"seq": term.seq, "command": "return", "output": term.payload["output"]}
    return {"seq": term.seq, "command": "raise", "error": term.payload["error"]}


def drive(
    *, workflow: Workflow, events: Sequence[Event], journal: Journal | None,
    effects: EffectHost | None, execution_id: str, input: Any,
    retry_step: str | None = None, on_warn: Callable[[str], None],
) -> ExecutionResult:
    """Run ``workflow``'s body from the start against ``events`` (see the module rules)."""
    return _Drive(workflow=workflow, events=events, journal=journal, effects=effects,
                  execution_id=execution_id, input=input, retry_step=retry_step,
                  on_warn=on_warn).run()
