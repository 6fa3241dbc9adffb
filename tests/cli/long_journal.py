"""A long agent journal to draw (the browser tests, ``bench/bench_timeline.py``): an agent
loop of a few hundred turns, each turn a model step and a tool step, every seventh tool of the
first turns behind an approval gate (a human approves it), a compaction step whenever the
transcript passes 24 messages, and one step that fails and is fed back to the model as data.
Deterministic and offline; :func:`long_agent_journal` writes the journal file and returns its
path. (Gates come in the first :data:`GATED_TURNS` turns only.)"""

from __future__ import annotations

import json
from collections.abc import Generator
from pathlib import Path
from typing import Any

from loom_ref.agent import APPROVAL_RESUME_SCHEMA, AgentLoopConfig, AgentTool, agent_loop
from loom_ref.agent.compaction import Compaction
from loom_ref.effects import Effect, EffectContext
from loom_ref.journal import FileStore, FsyncPolicy, Status
from loom_ref.kernel import EffectRegistry, ExecutionContext, Runtime, Workflow

GATE_EVERY = 7
#: Gates only in the first turns: each resume replays the history so far, so a gate late in
#: a 10,000-event run would make building the journal slow, not the picture richer.
GATED_TURNS = 300


def _registry(turns: int) -> EffectRegistry:
    made = [0]  # the model's turns so far (one process runs the whole journal)

    def model(ctx: EffectContext, input: Any) -> Any:
        seen = made[0]
        made[0] += 1
        if seen + 1 >= turns:
            return {"role": "assistant", "content": [{"type": "text", "text": "All done."}]}
        gated = seen % GATE_EVERY == GATE_EVERY - 1 and seen < GATED_TURNS
        name = "write" if gated else "fetch"
        return {"role": "assistant", "content": [
            {"type": "text", "text": f"Step {seen}: I will {name} page {seen}."},
            {"type": "tool-call", "id": f"c{seen}", "name": name,
             "arguments": json.dumps({"page": seen})}]}

    def fetch(ctx: EffectContext, input: Any) -> Any:
        if input["page"] == 40:
            raise ConnectionError("page 40 timed out")
        return {"page": input["page"], "body": f"text of page {input['page']}"}

    def write(ctx: EffectContext, input: Any) -> Any:
        return {"written": input["page"]}

    def summarize(ctx: EffectContext, input: Any) -> Any:
        return {"summary": f"{len(input['messages'])} earlier messages about pages."}

    return EffectRegistry([Effect(tool_id="llm", execute=model, idempotent=True),
                           Effect(tool_id="fetch", execute=fetch, idempotent=True),
                           Effect(tool_id="write", execute=write),
                           Effect(tool_id="summarize", execute=summarize)])


def _run(where: Path, turns: int) -> Path:
    config = AgentLoopConfig(
        model_tool_id="llm", tools=[AgentTool(name="fetch"), AgentTool(name="write")],
        max_iterations=turns + 2, needs_approval=lambda call, turn: call.name == "write",
        approval_resume_schema=APPROVAL_RESUME_SCHEMA,
        compaction=Compaction(tool_id="summarize", after_messages=24, keep_recent=8))

    def body(ctx: ExecutionContext, input: Any) -> Generator[Any, Any, Any]:
        return (yield from agent_loop(ctx, config, input))

    store = FileStore(where, fsync=FsyncPolicy.NEVER)
    rt = Runtime(store=store, effects=_registry(turns),
                 workflows=[Workflow(name="reader", body=body)], on_warn=lambda m: None)
    result = rt.start("reader", "Read every page and report.", execution_id="long")
    while result.status is Status.SUSPENDED:
        result = rt.resume("long", str(result.waiting_on), {"approved": True})
    assert result.status is Status.COMPLETED, result
    return Path(store.path("long"))


def long_agent_journal(where: Path, events: int = 1000) -> Path:
    """A completed agent journal of at least ``events`` events (a few more: a turn is not
    cut), in the directory ``where`` (emptied first)."""
    turns = max(events // 5, 2)
    while True:
        for old in where.glob("*.jsonl"):
            old.unlink()
        path = _run(where, turns)
        count = sum(1 for _ in path.open("rb")) - 1
        if count >= events:
            return path
        turns += max((events - count) // 4, 1)
