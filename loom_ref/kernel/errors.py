"""Errors the kernel raises, each with its stable code (``spec/kernel.md``)."""

from __future__ import annotations

from typing import Any

from loom_ref.errors import KernelError

__all__ = [
    "DuplicateIdError",
    "ExecutionExistsError",
    "GateNotWaitingError",
    "InvalidResumeError",
    "NondeterminismError",
    "NotInDoubtError",
    "NotStartedError",
    "StepFailedError",
    "UnknownWorkflowError",
]


class StepFailedError(KernelError):
    """The error a body receives when a step failed (``kernel.step-failure``).

    ``code`` and ``message`` are the journaled ``STEP_FAILED.error``, so a body sees the
    identical error live and on replay. ``step_id`` names the step.
    """

    code = "kernel.step-failed"

    def __init__(self, *, step_id: str, error: dict[str, Any]) -> None:
        super().__init__(str(error.get("message", "")), code=str(error.get("code")),
                         step_id=step_id)
        self.step_id = step_id
        self.error = error

    def to_json(self) -> dict[str, Any]:
        return dict(self.error)


class NondeterminismError(KernelError):
    """The body diverged from its journal (``kernel.nondeterminism``).

    ``details["expected"]`` is what the journal holds at that point (seq, kind, ids) and
    ``details["actual"]`` what the body did instead; ``headline`` is the message without
    them (for a reader that shows the two as a diff, as ``loom-ref replay`` does).
    (spec: kernel.replay-compare)
    """

    code = "kernel.nondeterminism"

    def __init__(self, message: str, *, expected: dict[str, Any], actual: dict[str, Any]) -> None:
        super().__init__(f"{message}: expected {expected}, got {actual}",
                         expected=expected, actual=actual)
        self.headline = message
        self.expected = expected
        self.actual = actual

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message,
                "expected": self.expected, "actual": self.actual}


class DuplicateIdError(KernelError):
    """Two commands of one execution used the same step, decision or gate id.
    (spec: kernel.duplicate-id)
    """

    code = "kernel.duplicate-id"


class UnknownWorkflowError(KernelError):
    """No workflow of that name is registered with the runtime (spec: kernel.start)."""

    code = "kernel.unknown-workflow"


class ExecutionExistsError(KernelError):
    """``start`` was given the id of an execution that has already started (spec: kernel.start)."""

    code = "kernel.execution-exists"


class NotStartedError(KernelError):
    """The journal holds no EXECUTION_STARTED, so there is nothing to recover.
    (spec: kernel.recover)
    """

    code = "kernel.not-started"


class GateNotWaitingError(KernelError):
    """``resume`` named a gate the execution is not waiting on (``kernel.resume-gate``)."""

    code = "kernel.gate-not-waiting"


class InvalidResumeError(KernelError):
    """A resume payload failed its gate's schema; nothing was written (``kernel.resume-schema``).

    ``details["problems"]`` lists each failure as ``{path, message}``.
    """

    code = "kernel.invalid-resume"


class NotInDoubtError(KernelError):
    """``resolve`` named a step that is not in doubt (spec: kernel.resolve)."""

    code = "kernel.not-in-doubt"
