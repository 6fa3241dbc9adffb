"""Agent-loop log growth: journal bytes at 50, 200 and 650 turns, uncompacted and compacted.

Reproduces the measurement of ADR 0087's 2026-10-31 amendment (issue #721): "an uncompacted
loop's folded state is O(turns^2) (3.5 MB of folded state at 50 turns, 54.9 MB at 200,
RangeError: Invalid string length serializing it by 650 turns)". The harness is offline and
scaled like Loom's: every turn the model writes ~0.7 KB of text plus one tool call, and the
tool returns ~2 KB, so the transcript grows ~2.7 KB a turn -- the growth Loom's two figures
imply (3.5 MB / (50*51/2) = 54.9 MB / (200*201/2) = 2.7 KB).

Printed, per turn count: the journal's bytes (what a file store writes), its largest line, the
size of the folded state (``fold(events)`` as canonical JSON) and the time per turn, for an
uncompacted loop, a loop compacted by message count, one compacted by bytes, and an
uncompacted loop on the content-resolving store (extension, ``spec/journal.md`` 1.10: each
message journaled once, by reference after that); then the growth ratios, the per-turn
increments and how the time per turn moves with the turn count. Every run journals into a
memory store (fsync: none; the bytes are what a file store would write). Nothing is asserted
about time; the script exits non-zero if a run does not complete (the uncompacted loop must
not crash at 650 turns).

Targets (issue 19, judged in ``bench/README.md``): with the content-resolving store, journal
bytes at 200 turns / 50 turns at most 4.5 (linear is 4; inline uncompacted is about 16), and
the time per turn flat in the turn count.

In loom-ref the quadratic lives in the JOURNAL (each turn's STEP_STARTED input holds the whole
transcript); ``fold`` keeps step outputs, not inputs, so the folded state is linear even
uncompacted, and the journal is a line per event, so nothing serialises one giant string.

Defaults take ~45 s and ~3.5 GB of memory on one core (the 650-turn uncompacted journal is
~630 MB, held in a MemoryStore and decoded by the reader); ``--turns 50,200`` takes seconds.

Usage: python bench/bench_agent.py [--turns 50,200,650] [--tool-bytes 2000] [--text-bytes 700]
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from collections.abc import Generator
from typing import Any

from loom_ref.agent import AgentLoopConfig, AgentTool, Compaction, agent_loop
from loom_ref.effects import Effect, EffectContext
from loom_ref.journal import ContentResolvingStore, MemoryStore, Status, fold
from loom_ref.kernel import EffectRegistry, ExecutionContext, Runtime, Workflow

LOOM = {50: "3.5 MB", 200: "54.9 MB", 650: "RangeError (failed to serialise)"}


def registry(turns: int, text_bytes: int, tool_bytes: int) -> EffectRegistry:
    """A scripted model (tool call each turn until the last) and a fixed-size tool."""
    made = [0]
    filler = ("The agent reasons about the data it has seen so far. " * 200)[:text_bytes]

    def model(ctx: EffectContext, input: Any) -> Any:
        turn = made[0]
        made[0] += 1
        if turn + 1 >= turns:
            return {"role": "assistant", "content": [{"type": "text", "text": "Done."}]}
        return {"role": "assistant", "content": [
            {"type": "text", "text": filler},
            {"type": "tool-call", "id": f"c{turn}", "name": "fetch",
             "arguments": json.dumps({"page": turn})}]}

    def fetch(ctx: EffectContext, input: Any) -> Any:
        return {"page": input["page"], "body": "x" * tool_bytes}

    def summarize(ctx: EffectContext, input: Any) -> Any:
        return {"summary": f"{len(input['messages'])} earlier messages about fetched pages."}

    return EffectRegistry([Effect(tool_id="llm", execute=model, idempotent=True),
                           Effect(tool_id="fetch", execute=fetch),
                           Effect(tool_id="summarize", execute=summarize)])


def state_bytes(events: Any) -> int:
    state = fold(events)
    doc = {"input": state.input, "output": state.output, "decisions": dict(state.decisions),
           "frames": {k: {"toolId": f.tool_id, "status": f.status.value, "output": f.output,
                          "error": f.error} for k, f in state.frames.items()}}
    return len(json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


#: The content-resolving store's mode (an uncompacted loop, the transcript by reference).
CONTENT = "content-resolving"


def run(turns: int, compaction: Compaction | None, text_bytes: int, tool_bytes: int,
        content: bool = False) -> dict[str, Any]:
    warnings: list[str] = []
    config = AgentLoopConfig(model_tool_id="llm", tools=[AgentTool(name="fetch")],
                             max_iterations=turns + 1, compaction=compaction,
                             on_warn=warnings.append)

    def body(ctx: ExecutionContext, input: Any) -> Generator[Any, Any, Any]:
        return (yield from agent_loop(ctx, config, input))

    memory = MemoryStore()
    store: Any = ContentResolvingStore(memory) if content else memory
    rt = Runtime(store=store, effects=registry(turns, text_bytes, tool_bytes),
                 workflows=[Workflow(name="agent", body=body)], on_warn=warnings.append)
    t0 = time.perf_counter()
    result = rt.start("agent", "Read every page and report.", execution_id="bench")
    seconds = time.perf_counter() - t0
    if result.status is not Status.COMPLETED or result.output["turns"] != turns:
        print(f"FAILED: {turns} turns, compaction={compaction}: {result.status} {result.error}")
        sys.exit(1)
    data = bytes(memory.data["bench"])
    events = store.read("bench").events
    lines = data.split(b"\n")[1:]  # the header line first, then one line per event
    per_turn = [0] * turns
    for event, line in zip(events, lines, strict=False):
        step = event.payload.get("stepId", "")
        if step.startswith("#turn:"):
            per_turn[int(step.split(":")[1])] += len(line) + 1
    return {"journal": len(data), "max_line": max(len(line) for line in lines),
            "state": state_bytes(events), "seconds": seconds, "warned": bool(warnings),
            "per_turn": per_turn}


def mb(n: float) -> str:
    return f"{n / 1e6:8.2f} MB"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", default="50,200,650")
    parser.add_argument("--text-bytes", type=int, default=700)
    parser.add_argument("--tool-bytes", type=int, default=2000)
    args = parser.parse_args(argv)
    counts = sorted(int(t) for t in args.turns.split(","))
    modes = {
        "uncompacted": None,
        "after_messages=24": Compaction(tool_id="summarize", after_messages=24, keep_recent=8),
        "after_bytes=64KiB": Compaction(tool_id="summarize", after_bytes=64 * 1024,
                                        keep_recent=8),
        CONTENT: None,
    }
    results: dict[str, dict[int, dict[str, Any]]] = {m: {} for m in modes}
    for mode, comp in modes.items():
        for n in counts:
            results[mode][n] = run(n, comp, args.text_bytes, args.tool_bytes,
                                   content=mode == CONTENT)

    print(f"Agent loop journal growth (~{args.text_bytes + args.tool_bytes + 80} B of "
          "transcript per turn; every run on a memory store, fsync: none)\n")
    header = f"{'turns':>6} | {'mode':<18} | {'journal':>11} | {'largest line':>12} | " \
             f"{'folded state':>12} | {'run s':>6} | {'ms/turn':>7} | fsync | Loom (folded state)"
    print(header)
    print("-" * len(header))
    for n in counts:
        for mode in modes:
            r = results[mode][n]
            loom = LOOM.get(n, "") if mode == "uncompacted" else ""
            print(f"{n:>6} | {mode:<18} | {mb(r['journal'])} | {mb(r['max_line'])[:-3]:>9} MB"
                  f" | {mb(r['state'])[:-3]:>9} MB | {r['seconds']:6.2f} | "
                  f"{r['seconds'] / n * 1e3:7.2f} | none  | {loom}")
    print()
    for mode in modes:
        js = [results[mode][n]["journal"] for n in counts]
        print(f"{mode} (memory store, fsync: none):")
        for (a, ja), (b, jb) in itertools.pairwise(zip(counts, js, strict=True)):
            per_turn = (jb - ja) / (b - a)
            print(f"  {a:>4} -> {b:<4} turns: journal x{jb / ja:6.2f} (turns^2 would be "
                  f"x{(b / a) ** 2:6.2f}, linear x{b / a:5.2f}); "
                  f"per-turn increment {per_turn / 1e3:9.1f} KB")
        last = results[mode][counts[-1]]["per_turn"]
        marks = sorted({min(10, len(last) - 2), len(last) // 2, len(last) - 2})
        print("  bytes journaled by turn k (its model step + tool step): " + ", ".join(
            f"k={k}: {last[k] / 1e3:.1f} KB" for k in marks))
        warned = any(results[mode][n]["warned"] for n in counts)
        print(f"  warn_transcript_bytes (256 KiB) warning fired: {warned}")
        per = [results[mode][n]["seconds"] / n for n in counts]
        print("  time per turn: " + ", ".join(f"{n} turns {p * 1e3:.2f} ms" for n, p in zip(
            counts, per, strict=True)) + f" (x{per[-1] / per[0]:.2f} from {counts[0]} to "
            f"{counts[-1]} turns; flat is x1)")
    if 50 in counts and 200 in counts:
        growth = results[CONTENT][200]["journal"] / results[CONTENT][50]["journal"]
        inline = results["uncompacted"][200]["journal"] / results["uncompacted"][50]["journal"]
        print(f"\ntarget (memory store, fsync: none; the bytes a file store writes): "
              f"content-resolving journal bytes 200 turns / 50 turns <= 4.5: "
              f"x{growth:.2f}, {'met' if growth <= 4.5 else 'NOT met'} (inline uncompacted "
              f"x{inline:.2f})")
    print("\nuncompacted: the per-turn increment grows with the turn count (O(turns^2) total);"
          "\ncompacted and content-resolving: the per-turn increment is flat (O(turns) total)."
          "\nEvery run completed.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
