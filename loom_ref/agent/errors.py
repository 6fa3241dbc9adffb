"""Errors the agent loop raises, each with its stable code (``spec/agent.md``).

Configuration mistakes are :class:`~loom_ref.errors.InvalidArgument` subclasses (``argument.*``
codes), raised when the config is built, before any turn runs. Conditions found while a loop
runs are ``agent.*`` codes: the body raises them, so the kernel journals them as
``EXECUTION_FAILED`` with the same code (``kernel.body-failure``).
"""

from __future__ import annotations

from loom_ref.errors import EffectError, InvalidArgument, KernelError

__all__ = [
    "AgentStepConfigError",
    "ClaimCheckedOutputError",
    "CompactionConfigError",
    "CompactionOutputError",
    "ContentNotFoundError",
    "MaxIterationsError",
    "ModelAccessError",
    "ModelResponseError",
    "ModelTurnError",
    "UnknownRouteError",
    "UnknownSkillError",
]


class ModelAccessError(InvalidArgument):
    """Neither (or both) of ``model_tool_id`` and ``router`` was configured
    (spec: agent.model-access)."""

    code = "argument.agent-model-access"


class CompactionConfigError(InvalidArgument):
    """A compaction block with neither threshold, or an unusable ``keep_recent``
    (spec: agent.compaction-guard)."""

    code = "argument.agent-compaction"


class AgentStepConfigError(InvalidArgument):
    """The opaque one-frame form was given a config that needs a gate or a durable stream,
    which an effect cannot reach (spec: agent.step-opaque)."""

    code = "argument.agent-step"


class MaxIterationsError(KernelError):
    """The loop made ``max_iterations`` turns without a final answer
    (spec: agent.max-iterations)."""

    code = "agent.max-iterations"


class ModelTurnError(EffectError):
    """A model call ended with ``finish error`` or ``finish aborted``: a turn error, never a
    normal assistant message (spec: agent.turn-error). The LOOP raises it when the turn's
    model step (or routed call, or compaction step) failed with ``effect.llm-error`` /
    ``effect.llm-aborted``. ``code`` is ``agent.turn-error`` or ``agent.turn-aborted``;
    ``details["step"]`` names the step, ``details["cause"]`` is the underlying
    ``{code, message}``."""

    code = "agent.turn-error"


class ModelResponseError(KernelError):
    """The model step returned something that is not an assistant message in the wire form
    (spec: agent.model-response)."""

    code = "agent.model-response"


class ClaimCheckedOutputError(KernelError):
    """A model or compaction step came back as a claim-check envelope: the tool is listed in
    the claim-check middleware's ``tool_ids`` (spec: agent.claim-check-not-model)."""

    code = "agent.claim-checked-output"


class CompactionOutputError(KernelError):
    """The compaction tool returned neither ``{"summary": str}`` nor a string
    (spec: agent.compaction-output)."""

    code = "agent.compaction-output"


class UnknownSkillError(KernelError):
    """A skill selection named a skill the library does not hold (spec: agent.skills)."""

    code = "agent.unknown-skill"


class ContentNotFoundError(EffectError):
    """A claim-check reference is not in the content store (spec: agent.claim-check-ref)."""

    code = "agent.content-not-found"


class UnknownRouteError(KernelError):
    """A router's selector chose a route it does not have (spec: agent.router)."""

    code = "agent.unknown-route"
