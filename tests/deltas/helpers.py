"""Shared helpers for the governed-streaming tests: scripted streaming effects and sinks."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from loom_ref.effects import EffectContext, EffectDelta, delta_to_json
from loom_ref.stream import (
    BlockEnd,
    BlockStart,
    BlockType,
    FinishChunk,
    FinishReason,
    ReasoningBlock,
    ReasoningDelta,
    StreamChunk,
    TextBlock,
    TextDelta,
    TokenUsage,
    UsageChunk,
)


class Sink:
    """A sink that records the JSON form of every chunk; ``log`` (shared) records order."""

    def __init__(self, name: str = "sink", log: list[str] | None = None,
                 fail: bool = False) -> None:
        self.name = name
        self.chunks: list[EffectDelta] = []
        self.log = log
        self.fail = fail

    def __call__(self, chunk: EffectDelta) -> None:
        self.chunks.append(chunk)
        if self.log is not None:
            self.log.append(self.name)
        if self.fail:
            raise RuntimeError(f"{self.name} is broken")

    @property
    def seen(self) -> list[dict[str, Any]]:
        return [delta_to_json(c) for c in self.chunks]

    @property
    def text(self) -> str:
        """The reconstruction a consumer builds: clear on reset, append text."""
        out = ""
        for c in self.chunks:
            if c.reset:
                out = ""
            elif not c.done:
                out += c.delta.value
        return out


def streaming(attempts: Sequence[Sequence[str]], *, end: bool = True,
              usage: TokenUsage | None = None, fail_until: int = 0,
              output: Callable[[str], Any] | None = None) -> Callable[[EffectContext, Any], Any]:
    """An execute that writes attempt n's deltas (the last script repeats), sends its end
    chunk, fails while ``ctx.attempt <= fail_until``, and returns the attempt's text."""

    def execute(ctx: EffectContext, _input: Any) -> Any:
        script = attempts[min(ctx.attempt, len(attempts)) - 1]
        assert ctx.on_delta is not None
        for piece in script:
            ctx.on_delta(piece)
        if end:
            ctx.on_delta.end(usage)
        if ctx.attempt <= fail_until:
            raise ConnectionError(f"attempt {ctx.attempt} lost the connection")
        text = "".join(script)
        return text if output is None else output(text)

    return execute


def text_stream(pieces: Sequence[str], *, usage: TokenUsage | None = None,
                finish: FinishReason | None = None, reasoning: Sequence[str] = ()
                ) -> list[StreamChunk]:
    """A well-formed chunk stream: optional reasoning block 0, text block 1, usage, finish."""
    chunks: list[StreamChunk] = []
    if reasoning:
        chunks.append(BlockStart(index=0, block_type=BlockType.REASONING))
        chunks.extend(ReasoningDelta(index=0, text=r) for r in reasoning)
        chunks.append(BlockEnd(index=0, block=ReasoningBlock(text="".join(reasoning))))
    chunks.append(BlockStart(index=1, block_type=BlockType.TEXT))
    chunks.extend(TextDelta(index=1, text=p) for p in pieces)
    reason = finish or FinishReason.stop()
    if not reason.failed:
        chunks.append(BlockEnd(index=1, block=TextBlock(text="".join(pieces))))
    if usage is not None:
        chunks.append(UsageChunk(usage=usage))
    chunks.append(FinishChunk(reason=reason))
    return chunks
