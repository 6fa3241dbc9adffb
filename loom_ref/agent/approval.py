"""Approval: a gate before a tool's effect, and a refusal that is data.

Spec: ``spec/agent.md`` § Approval; ADR 0087 D4: *"needsApproval(toolCall, turn) returning true
... suspends on a gate (default AgentToolApproval) BEFORE the effect runs -- the point of
asking. A resume carrying { approved: false } feeds a refusal back to the model as a tool
result rather than throwing"*, and *"Pair the gate with flow$({ resumeSchemas })"*.

- ``agent.approval-gate``: when ``needs_approval(tool_call, turn)`` is true, the loop yields
  ``ctx.suspend(gate, on="AgentToolApproval", correlation_key=<step id>)`` before the tool's
  ``execute``; the gate id is ``config.approval_gate(step_id)`` (default ``<step
  id>:approval``). ``needs_approval`` MUST be a pure function of its arguments: a replay calls
  it again, and a different answer is a divergence the kernel reports.
- ``agent.approval-payload``: the payload ``{"approved": bool, "reason"?: str}``
  (:data:`APPROVAL_RESUME_SCHEMA`). ``approved: true`` runs the tool. Anything else -- ``false``
  or, on a workflow that did not declare the schema, a payload that is not exactly
  ``approved: true`` -- is a refusal (fail closed), fed to the model as
  ``agent.tool-refusal``; the tool's effect never runs and no step is journaled for it.
- ``AgentLoopConfig(approval_resume_schema=APPROVAL_RESUME_SCHEMA)`` types every approval
  gate the loop opens with the gate's own schema (``ctx.suspend(..., resume_schema=...)``,
  journaled with the gate; ``kernel.resume-schema``): the kernel's form for gates a body
  builds at run time, so no workflow has to list the gate ids in advance.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    pass

__all__ = [
    "APPROVAL_ON",
    "APPROVAL_RESUME_SCHEMA",
    "DEFAULT_REFUSAL_REASON",
    "read_approval",
]

APPROVAL_ON = "AgentToolApproval"
DEFAULT_REFUSAL_REASON = "declined by the approver"

#: The resume payload of an approval gate (spec: agent.approval-payload).
APPROVAL_RESUME_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "required": ["approved"],
    "properties": {"approved": {"type": "boolean"}, "reason": {"type": "string"}},
    "additionalProperties": False,
}


def read_approval(payload: Any) -> tuple[bool, str]:
    """``(approved, reason)`` from a resume payload; anything but ``approved: true`` is a
    refusal (spec: agent.approval-payload)."""
    if isinstance(payload, Mapping) and payload.get("approved") is True:
        return True, ""
    reason = payload.get("reason") if isinstance(payload, Mapping) else None
    return False, reason if isinstance(reason, str) and reason else DEFAULT_REFUSAL_REASON
