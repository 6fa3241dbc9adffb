"""collect_stream: fold a model's chunk stream inside an effect, feeding the delta channel.

Spec: ``spec/deltas.md`` § The stream collector. Rules enforced here:

- ``deltas.collect-signal``: "collectStream also checks the signal in its loop and severs at
  the next chunk" (ADR 0119 #6): before each chunk the collector reads ``ctx.signal``; once
  it has aborted it closes the source and raises ``effect.aborted`` with the reason.
- ``deltas.llm-pull-stops`` (loom-ref's choice): the LLM effect's chunks come through
  ``consume``, which checks the signal before each read, so no chunk is pulled after the abort.
- ``deltas.collect-text``: the text of each non-empty ``text-delta`` or ``reasoning-delta``
  that the assembler appended to a text block is written to ``ctx.on_delta`` as it arrives
  (a ``reasoning-delta`` into an open text block is text of the message: the fold appends it
  there, spec: stream.assembler.deltas-by-block-type); a delta the fold ignores (a straggler
  after its block ended, one into a tool-call or tool-result block) or appends to a reasoning
  block is not, so on success the delivered text rebuilds the text blocks of the returned
  message (ADR 0119 #11: "the reconstruction equals the recorded decision"). Reasoning and
  tool-call deltas are otherwise NOT delivered (loom-ref choice: the seed's live view is
  text; reasoning belongs to the returned message, and delivering it would show sinks text
  that the reconstruction rule does not cover). A
  guard's sever propagates: the collector never catches it (ADR 0119: "an effect MUST NOT
  catch it around the call").
- ``deltas.collect-finish``: a ``finish`` of kind ``error`` raises ``effect.llm-error`` and
  one of kind ``aborted`` raises ``effect.llm-aborted`` (a turn error: never a normal
  message); so does a stream that ends without a finish (``effect.llm-error`` with failure code
  ``stream.missing-finish``, as ``consume`` would have ended it). The end-of-stream chunk is
  written only after a successful finish, carrying the stream's usage.
- ``deltas.collect-failed-usage`` (loom-ref's choice): after a failed stream no usage is
  reported, even when a usage chunk came before the failure; the raise comes first.
- ``deltas.collect-usage``: the usage is reported with ``ctx.report_usage`` as its billed,
  disjoint counters (``inputTokens``, ``outputTokens``, ``cacheReadTokens``,
  ``cacheWriteTokens``, each when reported), whose sum is what the call spent;
  ``reasoningTokens`` is a breakdown of ``outputTokens`` (spec: stream.usage.reasoning-breakdown),
  so it is not reported as a counter: a meter summing the counters would charge it twice.
- ``deltas.no-runtime``: when ``ctx.on_delta`` is ``None`` (no runtime stands between the
  effect and its sinks) the collector delivers directly: text chunks to the call's per-call
  sink, then to ``configured``; the end chunk to the per-call sink only. Nothing guards this
  path, and a sink's exception propagates: only the runtime isolates sinks.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import attrs

from loom_ref.effects.context import EffectContext
from loom_ref.effects.deltas import DirectWriter
from loom_ref.effects.errors import AbortedError
from loom_ref.errors import EffectError, InvalidArgument
from loom_ref.stream.adapter import MISSING_FINISH
from loom_ref.stream.assembler import AssembledStream, BlockAssembler
from loom_ref.stream.blocks import BlockType
from loom_ref.stream.chunks import FinishChunk, ReasoningDelta, StreamChunk, TextDelta
from loom_ref.stream.finish import FinishKind, FinishReason
from loom_ref.stream.usage import TokenUsage
from loom_ref.stream.wire import usage_to_json

if TYPE_CHECKING:
    from loom_ref.effects.call import DeltaSink

__all__ = ["LLM_ABORTED", "LLM_ERROR", "LlmStreamFailed", "billed_usage", "collect_stream"]

LLM_ERROR = "effect.llm-error"
LLM_ABORTED = "effect.llm-aborted"


class LlmStreamFailed(EffectError):
    """The model's stream ended with ``finish error`` (``effect.llm-error``) or ``finish
    aborted`` (``effect.llm-aborted``); ``details["failure"]`` is ``{code, message}``
    (spec: deltas.collect-finish)."""

    code = LLM_ERROR


def billed_usage(usage: TokenUsage) -> dict[str, int]:
    """The counters ``ctx.report_usage`` receives for ``usage`` (spec: deltas.collect-usage):
    the disjoint counts in their wire names, without the ``reasoningTokens`` breakdown."""
    counters = usage_to_json(usage)
    counters.pop("reasoningTokens", None)
    return counters


def _close(source: object) -> None:
    close = getattr(source, "close", None)
    if callable(close):
        close()


def collect_stream(
    chunks: Iterable[StreamChunk],
    ctx: EffectContext,
    *,
    configured: DeltaSink | None = None,
) -> AssembledStream:
    """Fold ``chunks`` with a ``BlockAssembler``, writing text deltas to ``ctx.on_delta``;
    return the assembled stream or raise for a failed finish (see the module rules).

    ``configured`` is the effect's configured sink, used only when ``ctx.on_delta`` is
    ``None`` (a context built by hand: spec: deltas.no-runtime).
    """
    if isinstance(chunks, str | bytes) or not isinstance(chunks, Iterable):
        raise InvalidArgument(f"chunks must be an iterable of StreamChunk, got {chunks!r}")
    if not isinstance(ctx, EffectContext):
        raise InvalidArgument(f"ctx must be the call's EffectContext, got {type(ctx).__name__}")
    if configured is not None and not callable(configured):
        raise InvalidArgument(f"configured must be callable or None, got {configured!r}")
    write = ctx.on_delta if ctx.on_delta is not None else DirectWriter(  # deltas.no-runtime
        tool_id=ctx.tool_id, per_call=ctx.call.on_delta, configured=configured)
    signal = ctx.signal
    assembler = BlockAssembler()
    source = iter(chunks)
    try:
        for chunk in source:
            if signal.aborted:  # spec: deltas.collect-signal
                raise AbortedError(signal.reason)
            assembler.feed(chunk)
            if ((type(chunk) is TextDelta or type(chunk) is ReasoningDelta) and chunk.text
                    and assembler.open_block_type(chunk.index) is BlockType.TEXT):
                # spec: deltas.collect-text -- only text the fold appended to a text block
                # (a reasoning-delta into a text block included; not a straggler, nor text
                # the fold makes reasoning); a sever propagates
                write(chunk.text)
            elif isinstance(chunk, FinishChunk):
                break
    finally:
        _close(source)
    if signal.aborted:
        raise AbortedError(signal.reason)
    result = assembler.result()
    if not assembler.finished:  # spec: deltas.collect-finish -- never a normal message
        result = attrs.evolve(result, finish=FinishReason.error(
            "the model stream ended without a finish chunk", MISSING_FINISH))
    failure = result.finish.failure
    # spec: deltas.collect-finish; raising here reports no usage (deltas.collect-failed-usage)
    if result.finish.failed and failure is not None:
        aborted = result.finish.kind is FinishKind.ABORTED
        raise LlmStreamFailed(
            f"the model stream ended with finish {result.finish.kind.value}"
            + (f" ({failure.code})" if failure.code else "")
            + f": {failure.message}",
            code=LLM_ABORTED if aborted else LLM_ERROR,
            failure={"code": failure.code, "message": failure.message},
        )
    if result.usage is not None:
        ctx.report_usage(billed_usage(result.usage))  # spec: deltas.collect-usage
    write.end(result.usage)  # spec: deltas.writer
    return result
