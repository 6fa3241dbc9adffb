"""The ids an agent loop gives its steps, decisions and gates.

Spec: ``spec/agent.md`` (``agent.identity``), ADR 0087 D2: *"Identity: #turn:<i> and
#turn:<i>:tool:<j>"* -- "the turn index from the number of completed turns, the tool index
from the model response -- which is itself a recorded task output. So a recovery re-run
re-derives exactly the same id sequence".

- the model call of turn ``i`` (0-based, the number of completed turns): ``#turn:<i>``;
- tool call ``j`` (0-based, its position among the tool calls of turn ``i``'s recorded model
  response): ``#turn:<i>:tool:<j>``;
- the compaction before turn ``i``'s model call: ``#turn:<i>:compact``;
- the approval gate of a tool step: ``<step id>:approval`` (the default);
- a routed turn's decisions: ``#turn:<i>:<name>`` (``route``, ``call:<k>``, ``elevate:<k>``);
- the run's skill selection and memory recall: ``#skills`` and ``#recall``.

Every id is built from a counter the loop derives from journaled values only, never from a
clock, a random source or the process.
"""

from __future__ import annotations

__all__ = [
    "RECALL_DECISION_ID",
    "SKILLS_DECISION_ID",
    "approval_gate_id",
    "compact_step_id",
    "tool_step_id",
    "turn_decision_id",
    "turn_step_id",
]

SKILLS_DECISION_ID = "#skills"
RECALL_DECISION_ID = "#recall"


def turn_step_id(turn: int) -> str:
    """``#turn:<i>``: the model call of turn ``i`` (spec: agent.identity)."""
    return f"#turn:{turn}"


def tool_step_id(turn: int, index: int) -> str:
    """``#turn:<i>:tool:<j>``: tool call ``j`` of turn ``i`` (spec: agent.identity)."""
    return f"#turn:{turn}:tool:{index}"


def compact_step_id(turn: int) -> str:
    """``#turn:<i>:compact``: the compaction that runs before turn ``i``'s model call.
    (spec: agent.identity)
    """
    return f"#turn:{turn}:compact"


def turn_decision_id(turn: int, name: str) -> str:
    """``#turn:<i>:<name>``: a decision a routed turn records (spec: agent.identity)."""
    return f"#turn:{turn}:{name}"


def approval_gate_id(step_id: str) -> str:
    """The default approval gate of a tool step: ``<step id>:approval`` (spec: agent.identity;
    the name is loom-ref's, agent.approval-gate-id: the seed's "a gate (default
    AgentToolApproval)" names no id, and loom-ref puts that name in the gate's ``on``)."""
    return f"{step_id}:approval"
