"""The stream layer: the ``StreamChunk`` protocol, its contract checker, the ``BlockAssembler``,
the ``LlmAdapter`` seam with its consumer wrapper, a scripted adapter and two real ones
(OpenAI-compatible chat completions, Anthropic Messages), and the JSON wire form. Normative
text: ``spec/stream.md``.
"""

from loom_ref.stream.adapter import LlmAdapter, LlmRequest, ToolSpec, consume, guard_stream
from loom_ref.stream.anthropic import AnthropicAdapter, build_messages_body
from loom_ref.stream.anthropic_mapping import MessagesStreamMapper, map_messages_stream
from loom_ref.stream.assembler import AssembledStream, BlockAssembler, assemble
from loom_ref.stream.blocks import (
    BlockType,
    ContentBlock,
    Message,
    ReasoningBlock,
    Role,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from loom_ref.stream.chunks import (
    BlockEnd,
    BlockStart,
    ChunkType,
    FinishChunk,
    ReasoningDelta,
    StreamChunk,
    TextDelta,
    ToolCallDelta,
    UsageChunk,
    is_chunk,
)
from loom_ref.stream.contract import ContractChecker, Violation, check, check_strict, enforce
from loom_ref.stream.errors import (
    AssemblerError,
    ContractViolationError,
    ProviderError,
    ScriptedFailure,
    StreamAborted,
    WireError,
)
from loom_ref.stream.finish import Failure, FinishKind, FinishReason
from loom_ref.stream.identity import APP_IDENTITY, AppIdentity, attribution_headers
from loom_ref.stream.openai_compat import OpenAICompatAdapter, build_chat_body
from loom_ref.stream.openai_mapping import ChatCompletionsMapper
from loom_ref.stream.rules import Rule
from loom_ref.stream.scripted import Script, ScriptedAdapter
from loom_ref.stream.sse import SseDecoder, SseEvent
from loom_ref.stream.usage import TokenUsage
from loom_ref.stream.vectors import VECTOR_FUNCTIONS
from loom_ref.stream.wire import (
    block_from_json,
    block_to_json,
    chunk_from_json,
    chunk_to_json,
    chunks_from_json,
    chunks_to_json,
    finish_reason_from_json,
    finish_reason_to_json,
    message_from_json,
    message_to_json,
    usage_from_json,
    usage_to_json,
)

__all__ = [
    "APP_IDENTITY",
    "VECTOR_FUNCTIONS",
    "AnthropicAdapter",
    "AppIdentity",
    "AssembledStream",
    "AssemblerError",
    "BlockAssembler",
    "BlockEnd",
    "BlockStart",
    "BlockType",
    "ChatCompletionsMapper",
    "ChunkType",
    "ContentBlock",
    "ContractChecker",
    "ContractViolationError",
    "Failure",
    "FinishChunk",
    "FinishKind",
    "FinishReason",
    "LlmAdapter",
    "LlmRequest",
    "Message",
    "MessagesStreamMapper",
    "OpenAICompatAdapter",
    "ProviderError",
    "ReasoningBlock",
    "ReasoningDelta",
    "Role",
    "Rule",
    "Script",
    "ScriptedAdapter",
    "ScriptedFailure",
    "SseDecoder",
    "SseEvent",
    "StreamAborted",
    "StreamChunk",
    "TextBlock",
    "TextDelta",
    "TokenUsage",
    "ToolCallBlock",
    "ToolCallDelta",
    "ToolResultBlock",
    "ToolSpec",
    "UsageChunk",
    "Violation",
    "WireError",
    "assemble",
    "attribution_headers",
    "block_from_json",
    "block_to_json",
    "build_chat_body",
    "build_messages_body",
    "check",
    "check_strict",
    "chunk_from_json",
    "chunk_to_json",
    "chunks_from_json",
    "chunks_to_json",
    "consume",
    "enforce",
    "finish_reason_from_json",
    "finish_reason_to_json",
    "guard_stream",
    "is_chunk",
    "map_messages_stream",
    "message_from_json",
    "message_to_json",
    "usage_from_json",
    "usage_to_json",
]
