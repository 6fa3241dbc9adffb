"""The kernel chapter (``spec/kernel.md``): runner bodies as generators, the commands they
yield, step identity, replay, recovery, gates and in-doubt steps."""

from loom_ref.effects.scope import DecideScope
from loom_ref.kernel.commands import Choice, Command, Decide, Execute, Stream, Suspend
from loom_ref.kernel.context import ExecutionContext
from loom_ref.kernel.errors import (
    DuplicateIdError,
    ExecutionExistsError,
    GateNotWaitingError,
    InvalidResumeError,
    NondeterminismError,
    NotInDoubtError,
    NotStartedError,
    StepFailedError,
    UnknownWorkflowError,
)
from loom_ref.kernel.result import ExecutionResult
from loom_ref.kernel.runtime import LoomWarning, Runtime, replay
from loom_ref.kernel.seam import EffectHost, EffectRegistry
from loom_ref.kernel.workflow import Body, Workflow

__all__ = [
    "Body",
    "Choice",
    "Command",
    "Decide",
    "DecideScope",
    "DuplicateIdError",
    "EffectHost",
    "EffectRegistry",
    "Execute",
    "ExecutionContext",
    "ExecutionExistsError",
    "ExecutionResult",
    "GateNotWaitingError",
    "InvalidResumeError",
    "LoomWarning",
    "NondeterminismError",
    "NotInDoubtError",
    "NotStartedError",
    "Runtime",
    "StepFailedError",
    "Stream",
    "Suspend",
    "UnknownWorkflowError",
    "Workflow",
    "replay",
]
