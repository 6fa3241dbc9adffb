"""A ready compaction tool: ``create_summarizer_effect(provider)``.

Spec: ``spec/agent.md`` § Compaction; ADR 0087 amendment 2026-10-31: *"createSummarizerEffect
(provider) is a ready-made compaction.toolId"*.

- ``agent.compaction-io``: a compaction tool's input is ``{"messages": [the folded messages,
  oldest first]}``; its output is ``{"summary": str}`` (a bare string is accepted too).
- ``agent.summarizer``: the effect renders the folded messages as text
  (:func:`render_transcript`) and asks the provider for a summary. ``provider`` is either an
  ``LlmAdapter`` (then ``model`` is required; the request is a system message holding
  ``instructions`` and one user message holding the rendered text, streamed like a model
  turn, so a failed finish is a turn error) or a plain callable ``provider(text) -> str``.
- ``agent.render-transcript``: one line group per message, ``<role>: <text>`` for text
  blocks, ``<role> called <name>(<arguments>)`` for tool calls, ``tool result: <content>``
  (``tool error: ...`` when ``isError``) for tool results; reasoning blocks are left out;
  groups are separated by a blank line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from loom_ref.agent.invocation import MISSING, unpack
from loom_ref.agent.model_effect import run_model_stream
from loom_ref.errors import InvalidArgument
from loom_ref.stream.adapter import LlmAdapter, LlmRequest
from loom_ref.stream.blocks import (
    Message,
    Role,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from loom_ref.stream.errors import WireError
from loom_ref.stream.wire import message_from_json

if TYPE_CHECKING:
    from loom_ref.effects.call import EffectCall
    from loom_ref.effects.context import EffectContext

__all__ = ["DEFAULT_SUMMARY_INSTRUCTIONS", "SummarizerEffect", "create_summarizer_effect",
           "render_transcript"]

DEFAULT_SUMMARY_INSTRUCTIONS = (
    "Summarize the conversation below for the assistant that continues it. Keep every fact, "
    "decision, open question and tool result it will still need; drop pleasantries."
)


def render_transcript(messages: Sequence[Any]) -> str:
    """The folded messages as plain text (spec: agent.render-transcript)."""
    groups: list[str] = []
    for i, raw in enumerate(messages):
        try:
            message = message_from_json(raw, f"$.messages[{i}]")
        except WireError as exc:
            raise InvalidArgument(f"malformed compaction input: {exc.message}") from None
        role = message.role.value
        lines: list[str] = []
        for block in message.content:
            if isinstance(block, TextBlock):
                lines.append(f"{role}: {block.text}")
            elif isinstance(block, ToolCallBlock):
                lines.append(f"{role} called {block.name}({block.arguments})")
            elif isinstance(block, ToolResultBlock):
                kind = "tool error" if block.is_error else "tool result"
                lines.append(f"{kind}: {block.content}")
        if lines:
            groups.append("\n".join(lines))
    return "\n\n".join(groups)


class SummarizerEffect:
    """The compaction effect (module rules); callable in both host forms."""

    def __init__(self, provider: LlmAdapter | Callable[[str], str], *, model: str | None,
                 instructions: str) -> None:
        if isinstance(provider, LlmAdapter):
            if not isinstance(model, str) or not model:
                raise InvalidArgument("a summarizer over an LlmAdapter needs model=")
        elif not callable(provider):
            raise InvalidArgument("provider must be an LlmAdapter or a callable text -> str")
        if not isinstance(instructions, str) or not instructions:
            raise InvalidArgument("instructions must be a non-empty string")
        self.provider = provider
        self.model = model
        self.instructions = instructions

    def __call__(self, target: EffectCall | EffectContext, input: Any = MISSING) -> Any:
        inv = unpack(target, input)
        payload = inv.input
        if not isinstance(payload, Mapping) or not isinstance(payload.get("messages"), list):
            raise InvalidArgument("the compaction input must be {messages: [...]}")
        text = render_transcript(payload["messages"])
        if not isinstance(self.provider, LlmAdapter):
            summary = self.provider(text)
            if not isinstance(summary, str):
                raise InvalidArgument("a summarizer provider must return a string")
            return {"summary": summary}
        assert self.model is not None
        request = LlmRequest(model=self.model, messages=[
            Message(role=Role.SYSTEM, content=[TextBlock(text=self.instructions)]),
            Message(role=Role.USER, content=[TextBlock(text=text)]),
        ])
        result = run_model_stream(self.provider, request, inv)
        return {"summary": "".join(b.text for b in result.message.content
                                   if isinstance(b, TextBlock))}


def create_summarizer_effect(provider: LlmAdapter | Callable[[str], str], *,
                             model: str | None = None,
                             instructions: str = DEFAULT_SUMMARY_INSTRUCTIONS
                             ) -> SummarizerEffect:
    """A ready ``Compaction(tool_id=...)`` effect (ADR 0087 amendment 2026-10-31)."""
    return SummarizerEffect(provider, model=model, instructions=instructions)
