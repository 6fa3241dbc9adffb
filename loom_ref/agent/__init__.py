"""The durable agent loop (``spec/agent.md``; ADR 0087 with its three amendments).

``agent_loop`` is an ordinary generator over the execution context, used from a runner body
(``answer = yield from agent_loop(ctx, config, input)``): one durable step per model turn and
per tool call, approval gates before tool effects, skills and recall through ``ctx.decide``,
compaction as a recorded ``:compact`` step. ``agent_step`` is the opaque one-frame form.
One concept per module; this module only re-exports.
"""

from loom_ref.agent.approval import (
    APPROVAL_ON,
    APPROVAL_RESUME_SCHEMA,
    read_approval,
)
from loom_ref.agent.canonical import canonical_bytes, canonical_json
from loom_ref.agent.choices import (
    ListMemory,
    Memory,
    Recall,
    Skills,
    compose_system,
    recall,
    select_skills,
)
from loom_ref.agent.chunk_deltas import DEFAULT_MIN_CHARS, DeltaChunker, chunk_deltas
from loom_ref.agent.claim_check import (
    CLAIM_CHECK_CONFIG_FIELD,
    CLAIM_CHECK_KEY,
    PREVIEW_CHARS,
    ClaimCheckMiddleware,
    ContentStore,
    MemoryContentStore,
    claim_check_envelope,
    claim_check_middleware,
    content_ref,
    is_claim_check_envelope,
    resolve_claim_check,
)
from loom_ref.agent.compaction import (
    DEFAULT_KEEP_RECENT,
    Compaction,
    CompactionPlan,
    compaction_plan,
    kept_suffix_for_bytes,
)
from loom_ref.agent.config import DEFAULT_WARN_TRANSCRIPT_BYTES, AgentLoopConfig, NeedsApproval
from loom_ref.agent.errors import (
    AgentStepConfigError,
    ClaimCheckedOutputError,
    CompactionConfigError,
    CompactionOutputError,
    ContentNotFoundError,
    MaxIterationsError,
    ModelAccessError,
    ModelResponseError,
    ModelTurnError,
    UnknownRouteError,
    UnknownSkillError,
)
from loom_ref.agent.identity import (
    RECALL_DECISION_ID,
    SKILLS_DECISION_ID,
    approval_gate_id,
    compact_step_id,
    tool_step_id,
    turn_decision_id,
    turn_step_id,
)
from loom_ref.agent.loop import (
    MAX_TOKENS_NOTICE,
    SUMMARY_PREFIX,
    TURN_ABORTED,
    TURN_ERROR,
    agent_loop,
    initial_messages,
    max_tokens_notice,
    summary_message,
)
from loom_ref.agent.model_effect import create_agent_model_effect
from loom_ref.agent.router import DecideSeam, ReasoningRouter, Router
from loom_ref.agent.step import (
    AGENT_STEP_TOOL_ID,
    agent_step,
    create_agent_step_effect,
)
from loom_ref.agent.summarizer import (
    DEFAULT_SUMMARY_INSTRUCTIONS,
    create_summarizer_effect,
    render_transcript,
)
from loom_ref.agent.tools import (
    AgentTool,
    refusal_content,
    tool_error_content,
    tool_result_content,
)
from loom_ref.agent.transcript import Transcript, message_bytes
from loom_ref.agent.vectors import VECTOR_FUNCTIONS

__all__ = [
    "AGENT_STEP_TOOL_ID",
    "APPROVAL_ON",
    "APPROVAL_RESUME_SCHEMA",
    "CLAIM_CHECK_CONFIG_FIELD",
    "CLAIM_CHECK_KEY",
    "DEFAULT_KEEP_RECENT",
    "DEFAULT_MIN_CHARS",
    "DEFAULT_SUMMARY_INSTRUCTIONS",
    "DEFAULT_WARN_TRANSCRIPT_BYTES",
    "MAX_TOKENS_NOTICE",
    "PREVIEW_CHARS",
    "RECALL_DECISION_ID",
    "SKILLS_DECISION_ID",
    "SUMMARY_PREFIX",
    "TURN_ABORTED",
    "TURN_ERROR",
    "VECTOR_FUNCTIONS",
    "AgentLoopConfig",
    "AgentStepConfigError",
    "AgentTool",
    "ClaimCheckMiddleware",
    "ClaimCheckedOutputError",
    "Compaction",
    "CompactionConfigError",
    "CompactionOutputError",
    "CompactionPlan",
    "ContentNotFoundError",
    "ContentStore",
    "DecideSeam",
    "DeltaChunker",
    "ListMemory",
    "MaxIterationsError",
    "Memory",
    "MemoryContentStore",
    "ModelAccessError",
    "ModelResponseError",
    "ModelTurnError",
    "NeedsApproval",
    "ReasoningRouter",
    "Recall",
    "Router",
    "Skills",
    "Transcript",
    "UnknownRouteError",
    "UnknownSkillError",
    "agent_loop",
    "agent_step",
    "approval_gate_id",
    "canonical_bytes",
    "canonical_json",
    "chunk_deltas",
    "claim_check_envelope",
    "claim_check_middleware",
    "compact_step_id",
    "compaction_plan",
    "compose_system",
    "content_ref",
    "create_agent_model_effect",
    "create_agent_step_effect",
    "create_summarizer_effect",
    "initial_messages",
    "is_claim_check_envelope",
    "kept_suffix_for_bytes",
    "max_tokens_notice",
    "message_bytes",
    "read_approval",
    "recall",
    "refusal_content",
    "render_transcript",
    "resolve_claim_check",
    "select_skills",
    "summary_message",
    "tool_error_content",
    "tool_result_content",
    "tool_step_id",
    "turn_decision_id",
    "turn_step_id",
]
