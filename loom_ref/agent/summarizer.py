"""A ready compaction tool: ``create_summarizer_effect(provider)``.

Spec: ``spec/agent.md`` § Compaction; ADR 0087 amendment 2026-10-31: *"createSummarizerEffect
(provider) is a ready-made compaction.toolId"*.

- ``agent.compaction-io``: a compaction tool's input is ``{"messages": [the folded messages,
  oldest first]}``; its output is ``{"summary": str}`` (a bare string is accepted too).
- ``agent.summarizer``: the result is an ``Effect`` (``agent.effect-forms``) that renders
  the folded messages as text (:func:`render_transcript`) and asks the provider for a
  summary. ``provider`` is either an ``LlmAdapter`` (then ``model`` is required; the request
  is a system message holding ``instructions`` and one user message holding the rendered
  text, sent through ``create_llm_effect``'s body -- the same machinery as the model turn --
  so a failed finish raises ``effect.llm-error`` / ``effect.llm-aborted``, the compaction
  step is journaled as failed with that code, and the loop ends the run with its turn error,
  ``agent.turn-error``) or a plain callable ``provider(text) -> str``.
- ``agent.render-transcript``: one line group per message, ``<role>: <text>`` for text
  blocks, ``<role> called <name>(<arguments>)`` for tool calls, ``tool result: <content>``
  (``tool error: ...`` when ``isError``) for tool results; reasoning blocks are left out;
  groups are separated by a blank line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from loom_ref.effects.effect import Effect
from loom_ref.effects.llm_effect import create_llm_effect, llm_output_from_json
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
    from loom_ref.effects.context import EffectContext

__all__ = ["DEFAULT_SUMMARY_INSTRUCTIONS", "create_summarizer_effect", "render_transcript"]

DEFAULT_SUMMARY_INSTRUCTIONS = (
    "Summarize the conversation below for the assistant that continues it. Keep every fact, "
    "decision, open question and tool result it will still need; drop pleasantries."
)


def render_transcript(messages: Sequence[Any]) -> str:
    """The folded messages as plain text (spec: agent.render-transcript)."""
    if not isinstance(messages, list | tuple):  # spec: errors.invalid-argument
        raise InvalidArgument(f"messages must be a list, got {type(messages).__name__}")
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
                if not isinstance(block.arguments, str):  # spec: stream.tool-arguments-raw-json
                    raise InvalidArgument(f"messages[{i}]: a tool call's arguments must be a "
                                          f"raw JSON string, got {type(block.arguments).__name__}")
                lines.append(f"{role} called {block.name}({block.arguments})")
            elif isinstance(block, ToolResultBlock):
                kind = "tool error" if block.is_error else "tool result"
                lines.append(f"{kind}: {block.content}")
        if lines:
            groups.append("\n".join(lines))
    return "\n\n".join(groups)


def create_summarizer_effect(provider: LlmAdapter | Callable[[str], str], *, tool_id: str,
                             model: str | None = None,
                             instructions: str = DEFAULT_SUMMARY_INSTRUCTIONS) -> Effect:
    """A ready ``Compaction(tool_id=...)`` effect (ADR 0087 amendment 2026-10-31; module
    rules). Over an ``LlmAdapter`` it runs ``create_llm_effect``'s body, so the summary call
    streams, fences taint and fails exactly as a model turn does (spec: agent.summarizer)."""
    if not isinstance(instructions, str) or not instructions:
        raise InvalidArgument("instructions must be a non-empty string")
    if isinstance(provider, LlmAdapter):
        if not isinstance(model, str) or not model:
            raise InvalidArgument("a summarizer over an LlmAdapter needs model=")
        llm = create_llm_effect(provider, tool_id=tool_id, model=model).execute
        system = Message(role=Role.SYSTEM, content=[TextBlock(text=instructions)])

        def summarize(ctx: EffectContext, text: str) -> str:
            request = LlmRequest(model=model, messages=[
                system, Message(role=Role.USER, content=[TextBlock(text=text)])])
            output = llm(ctx, request)  # spec: agent.summarizer -- a failed finish raises
            message, _ = llm_output_from_json(output)  # a max-tokens summary is what came
            return "".join(b.text for b in message.content if isinstance(b, TextBlock))
    elif callable(provider):
        call = provider

        def summarize(ctx: EffectContext, text: str) -> str:
            summary = call(text)
            if not isinstance(summary, str):
                raise InvalidArgument("a summarizer provider must return a string")
            return summary
    else:
        raise InvalidArgument("provider must be an LlmAdapter or a callable text -> str")

    def execute(ctx: EffectContext, input: Any) -> Any:
        if not isinstance(input, Mapping) or not isinstance(input.get("messages"), list):
            raise InvalidArgument("the compaction input must be {messages: [...]}")
        return {"summary": summarize(ctx, render_transcript(input["messages"]))}

    return Effect(tool_id=tool_id, execute=execute)
