"""Stream-layer throughput: assembler (and checker) time per chunk at 10K, 100K and 1M chunks.

spec: stream.assembler.linear — "The fold MUST be linear in the number of chunks". Linear means
the time per chunk stays flat as the stream grows; the script prints each size's time per chunk
and its ratio to the 10K figure (a quadratic fold would show ratios near 10 and 100). It prints
measurements only and asserts nothing. Run: ``python bench/bench_stream.py`` (well under a
minute).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from loom_ref.stream import (
    BlockAssembler,
    BlockEnd,
    BlockStart,
    BlockType,
    FinishChunk,
    FinishReason,
    ReasoningBlock,
    ReasoningDelta,
    StreamChunk,
    TextDelta,
    TokenUsage,
    ToolCallBlock,
    ToolCallDelta,
    UsageChunk,
    check,
)

SIZES = (10_000, 100_000, 1_000_000)


def make_stream(total: int) -> list[StreamChunk]:
    """``total`` chunks: a reasoning block, a text block (delta-only, as a tolerant stream may
    be) and a tool call, their deltas interleaved. Delta objects are reused: the fold does not
    care about identity, and this keeps a 1M-chunk stream cheap to build."""
    deltas = total - 7
    reasoning = ReasoningDelta(index=0, text="thinking ")
    text = TextDelta(index=1, text="word ")
    argument = ToolCallDelta(index=2, id="call-1", arguments_delta='"x",')
    body: list[StreamChunk] = [
        BlockStart(index=0, block_type=BlockType.REASONING),
        BlockStart(index=2, block_type=BlockType.TOOL_CALL),
    ]
    cycle = (reasoning, text, argument)
    body.extend(cycle[i % 3] for i in range(deltas))
    body.append(BlockEnd(index=0, block=ReasoningBlock(text="(carried)")))
    body.append(BlockEnd(index=2, block=ToolCallBlock(id="call-1", name="f", arguments="[]")))
    body.append(UsageChunk(usage=TokenUsage(input_tokens=10, output_tokens=deltas)))
    body.append(FinishChunk(reason=FinishReason.tool_calls()))
    body.insert(2, ToolCallDelta(index=2, id="call-1", name="f", arguments_delta="["))
    assert len(body) == total
    return body


def assemble_once(chunks: list[StreamChunk]) -> None:
    assembler = BlockAssembler()
    for chunk in chunks:
        assembler.feed(chunk)
    assembler.result()


def check_once(chunks: list[StreamChunk]) -> None:
    check(chunks)


def best_of(
    runs: int, work: Callable[[list[StreamChunk]], None], chunks: list[StreamChunk]
) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        work(chunks)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    print("(fsync policy: none on every line; no journal is written here)")
    for label, work in (("assembler", assemble_once), ("checker", check_once)):
        base: float | None = None
        for size in SIZES:
            chunks = make_stream(size)
            seconds = best_of(3 if size < 1_000_000 or label == "assembler" else 1, work, chunks)
            per_chunk_ns = seconds / size * 1e9
            base = base or per_chunk_ns
            print(
                f"{label:9s} {size:>9,d} chunks: {seconds:7.3f} s  "
                f"{per_chunk_ns:7.1f} ns/chunk  ratio to 10K: {per_chunk_ns / base:4.2f}"
            )


if __name__ == "__main__":
    main()
