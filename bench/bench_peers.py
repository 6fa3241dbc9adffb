"""loom_ref beside the peers a user would pick instead, at matched durability, in one process.

Run on demand (not in CI): ``pip install -e '.[bench]'``, then ``python bench/bench_peers.py``.
A peer that is not installed is skipped with a line saying so.

The peers, and the durability each is set to (their documentation's strongest setting):

- DBOS Transact on SQLite: the system database in WAL mode with ``synchronous=FULL`` (set on
  every connection DBOS opens), so every commit syncs the WAL before it returns; a one-step
  workflow commits its start, the step's output and its end.
- LangGraph with ``langgraph-checkpoint-sqlite``: ``SqliteSaver`` (WAL) with
  ``synchronous=FULL``, invoked with ``durability="sync"`` ("changes are persisted
  synchronously before the next step starts").
- loom_ref: the store log, the file store and the SQLite store at its default fsync policy,
  ``write-ahead`` (``spec/journal.md`` 1.8: as safe as ``every-event``), and the store log at
  ``every-event`` for comparison.

Rows (each a ratio of the best of ``--rounds`` alternating rounds, in this one process):

1. durable 1-step executions/s, and 10-step executions/s;
2. recovery of an execution of 1,000 completed steps whose process died before it finished
   (loom_ref: ``Runtime.recover`` on a file store; DBOS: its recovery, which re-enqueues the
   workflow and re-runs it, serving every recorded step; DBOS reads that queue, and a
   handle its result, once a second as shipped, so here both are read every 10 ms, to time
   the work, not the wait);
3. an agent loop's time per turn at 20, 80 and 200 turns (each turn: a model step and a tool
   step, ~2.8 KB of new transcript), loom_ref with the content-resolving store (extension,
   ``spec/journal.md`` 1.10) and inline, against the same loop as a LangGraph graph.
4. the 1-step and agent rows again with every sync taken out on both sides (loom_ref at
   fsync ``never``, the peers at ``synchronous=OFF``): what each side costs beside its syncs.
   On a shared virtual disk whose fsync takes from 0.3 to 4 ms from one minute to the next,
   these lines move far less than the durable ones, and with the fsync counts they say
   where the durable ratio goes on a given disk.

Every line states both sides' durability and their fsyncs (``fsync`` + ``fdatasync`` calls)
per execution or per turn, counted with ``strace -f -c`` on a run of each side in a child
process: the difference between a run of 2n and of n executions (or of 2t and t turns),
divided by n (t), so a side's set-up syncs do not count. Without strace the counts say so.

Targets (issue 19; judged in ``bench/README.md``): 1-step executions/s at least 10x DBOS with at
most 2 fsyncs per execution; the agent loop at 200 turns with the content-resolving store at
most 0.25x LangGraph's time per turn.

Usage: python bench/bench_peers.py [--rounds 3] [--executions 300] [--turns 20,80,200]
       [--only kernel,recover,agent,unsynced]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Generator
from typing import Any

from peers import RECOVERY_POLL, TEXT, Dbos, dbos_die, langgraph_agent

from loom_ref.agent import AgentLoopConfig, AgentTool, agent_loop
from loom_ref.effects import Effect
from loom_ref.journal import (
    ContentResolvingStore,
    Crash,
    FaultInjectingStore,
    FileStore,
    FsyncPolicy,
    LogStore,
    SqliteStore,
)
from loom_ref.kernel import EffectRegistry, ExecutionContext, Runtime, Workflow

HERE = os.path.abspath(__file__)
WA = FsyncPolicy.WRITE_AHEAD


def have(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


# -- loom_ref's side ---------------------------------------------------------------------------

def steps_body(ctx: ExecutionContext, spec: Any) -> Generator[Any, Any, Any]:
    for i in range(spec["steps"]):
        yield ctx.execute("echo", {"i": i, "x": spec["x"]})
    return spec["steps"]


STEPS = Workflow(name="steps", body=steps_body)
ECHO = EffectRegistry([Effect(tool_id="echo", execute=lambda ctx, input: input)])


def loom_store(kind: str, d: str, policy: FsyncPolicy = WA) -> Any:
    if kind == "log":
        return LogStore(os.path.join(d, "store.log"), fsync=policy)
    if kind == "sqlite":
        return SqliteStore(os.path.join(d, "store.db"), fsync=policy)
    os.makedirs(os.path.join(d, "journals"), exist_ok=True)
    return FileStore(os.path.join(d, "journals"), fsync=policy)


def loom_executions(kind: str, policy: FsyncPolicy, steps: int, n: int, d: str) -> float:
    """Executions/s of ``n`` ``steps``-step executions on a fresh store in ``d``."""
    store = loom_store(kind, d, policy)
    rt = Runtime(store=store, effects=ECHO,
                 workflows=[STEPS])
    t0 = time.perf_counter()
    for i in range(n):
        rt.start("steps", {"steps": steps, "x": i}, execution_id=f"e{i}")
    elapsed = time.perf_counter() - t0
    getattr(store, "close", lambda: None)()
    return n / elapsed


def loom_crashed(d: str, steps: int) -> str:
    """A file store in ``d`` holding an execution of ``steps`` completed steps whose process
    died before it finished; returns the journal's path."""
    store = FileStore(d, fsync=WA)
    crashing = FaultInjectingStore(store, crash_after=1 + 2 * steps)
    rt = Runtime(store=crashing, effects=ECHO,
                 workflows=[STEPS])
    try:
        rt.start("steps", {"steps": steps + 1, "x": 0}, execution_id="big")
    except Crash:
        pass
    return store.path("big")


def loom_recover(template: str, d: str) -> float:
    """Seconds to recover a copy of the crashed journal ``template`` in ``d``."""
    shutil.copy(template, os.path.join(d, "big.jsonl"))
    rt = Runtime(store=FileStore(d, fsync=WA),
                 effects=ECHO, workflows=[STEPS])
    t0 = time.perf_counter()
    result = rt.recover("big")
    elapsed = time.perf_counter() - t0
    assert result.output is not None and len(result.served) >= 1000
    return elapsed


def agent_registry(turns: int) -> EffectRegistry:
    made = [0]

    def model(ctx: Any, input: Any) -> Any:
        turn = made[0]
        made[0] += 1
        if turn + 1 >= turns:
            return {"role": "assistant", "content": [{"type": "text", "text": "Done."}]}
        return {"role": "assistant", "content": [
            {"type": "text", "text": TEXT},
            {"type": "tool-call", "id": f"c{turn}", "name": "fetch",
             "arguments": json.dumps({"page": turn})}]}

    def fetch(ctx: Any, input: Any) -> Any:
        return {"page": input["page"], "body": "x" * 2000}

    return EffectRegistry([Effect(tool_id="llm", execute=model, idempotent=True),
                           Effect(tool_id="fetch", execute=fetch)])


def loom_agent(turns: int, d: str, content: bool, policy: FsyncPolicy = WA) -> float:
    """Seconds per turn of an uncompacted agent loop of ``turns`` turns on a store log
    (write-ahead unless ``policy`` says otherwise), with the content-resolving store or
    inline."""
    config = AgentLoopConfig(model_tool_id="llm", tools=[AgentTool(name="fetch")],
                             max_iterations=turns + 1, on_warn=lambda m: None)

    def body(ctx: ExecutionContext, x: Any) -> Generator[Any, Any, Any]:
        return (yield from agent_loop(ctx, config, x))

    log = LogStore(os.path.join(d, "agent.log"), fsync=policy)
    store: Any = ContentResolvingStore(log) if content else log
    rt = Runtime(store=store, effects=agent_registry(turns),
                 workflows=[Workflow(name="agent", body=body)], on_warn=lambda m: None)
    t0 = time.perf_counter()
    result = rt.start("agent", "Read every page and report.", execution_id="a")
    elapsed = time.perf_counter() - t0
    log.close()
    assert result.output["turns"] == turns, result
    return elapsed / turns


# -- counting fsyncs ---------------------------------------------------------------------------

_COUNTED = re.compile(r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(fsync|fdatasync)\s*$")


def _syncs_of(args: list[str]) -> int | None:
    """fsync + fdatasync calls of a child run of this script with ``args`` (strace -f -c)."""
    strace = shutil.which("strace")
    if strace is None:
        return None
    with tempfile.NamedTemporaryFile("r", suffix=".strace") as out:
        subprocess.run([strace, "-f", "-c", "-e", "trace=fsync,fdatasync", "-o", out.name,
                        sys.executable, HERE, "--count", *args], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        text = out.read()
    return sum(int(m.group(1)) for line in text.splitlines() if (m := _COUNTED.match(line)))


def syncs_per(what: str, small: int) -> float | None:
    """fsyncs per execution (or per turn) of ``what``: (count at 2n - count at n) / n; None
    without strace."""
    one, two = _syncs_of([what, str(small)]), _syncs_of([what, str(2 * small)])
    if one is None or two is None:
        return None
    return (two - one) / small


def said(syncs: float | None) -> str:
    return "fsyncs not counted (strace not found)" if syncs is None else f"{syncs:.1f} fsyncs"


def count_child(what: str, n: int) -> None:
    """The counted child: run ``what`` once at size ``n`` (see :func:`syncs_per`)."""
    with tempfile.TemporaryDirectory() as d:
        kind, _, rest = what.partition(":")
        if kind == "loom":
            store, policy, steps = rest.split(":")
            loom_executions(store, FsyncPolicy(policy), int(steps), n, d)
        elif kind == "dbos":
            side = Dbos(os.path.join(d, "dbos.sqlite"))
            side.executions(int(rest), n)
            side.close()
        elif kind == "dbos-recover":  # launching recovers the pending workflow; wait for it
            side = Dbos(rest, poll=RECOVERY_POLL)
            if n:
                side.DBOS.retrieve_workflow(f"count-{n}").get_result(
                    polling_interval_sec=RECOVERY_POLL)
            side.close()
        elif kind == "loom-agent":
            loom_agent(n, d, content=rest == "content")
        elif kind == "langgraph":
            langgraph_agent(n, d)


# -- the rows ----------------------------------------------------------------------------------

def best_of(rounds: int, *measures: Callable[[], float], low: bool = False) -> list[float]:
    """Each measure's best over ``rounds`` rounds, the rounds alternating between them (the
    highest rate, or with ``low`` the lowest time)."""
    pick = min if low else max
    best: list[float | None] = [None] * len(measures)
    for _ in range(rounds):
        for i, measure in enumerate(measures):
            value = measure()
            best[i] = value if best[i] is None else pick(best[i], value)  # type: ignore[type-var]
    return [b for b in best if b is not None]


def in_dir(measure: Callable[[str], float]) -> Callable[[], float]:
    def run() -> float:
        with tempfile.TemporaryDirectory() as d:
            return measure(d)
    return run


def kernel_rows(args: argparse.Namespace, dbos: Dbos | None) -> None:
    n = args.executions
    dbos_label = "DBOS (SQLite WAL, synchronous=FULL)"
    for steps in (1, 10):
        count = max(n // steps, 20)
        ours = [("store log", "log", WA), ("file store", "file", WA),
                ("SQLite store", "sqlite", WA), ("store log", "log", FsyncPolicy.EVERY_EVENT)]
        dbos_syncs = said(syncs_per(f"dbos:{steps}", 10)) if dbos else ""
        for label, kind, policy in ours:
            counted = syncs_per(f"loom:{kind}:{policy.value}:{steps}", 10)
            loom_syncs = said(counted)
            measure = in_dir(lambda d, k=kind, p=policy, s=steps, c=count: loom_executions(
                k, p, s, c, d))
            if dbos is None:
                rate, = best_of(args.rounds, measure)
                print(f"durable {steps}-step executions/s, loom_ref {label} (fsync "
                      f"{policy.value}, {loom_syncs} per execution): {rate:9,.0f}; DBOS "
                      "skipped (not installed: pip install -e '.[bench]')")
                continue
            rate, theirs = best_of(args.rounds, measure, lambda s=steps, c=count: dbos.executions(
                s, max(c // 10, 10)))
            verdict = ""
            if steps == 1 and kind == "log" and policy is WA:
                met = rate / theirs >= 10 and counted is not None and counted <= 2
                verdict = f"   target >= 10x with <= 2 fsyncs: {'met' if met else 'NOT met'}"
            print(f"durable {steps}-step executions/s, loom_ref {label} (fsync {policy.value}, "
                  f"{loom_syncs} per execution) {rate:9,.0f} vs {dbos_label} "
                  f"({dbos_syncs} per execution) {theirs:7,.0f}: {rate / theirs:5.1f}x faster"
                  f"{verdict}")


def _loom_recover_syncs(template: str) -> int:
    """fsync + fdatasync calls of one loom_ref recovery (loom_ref is Python: counted by
    wrapping ``os``'s two calls)."""
    calls = [0]
    real = {name: getattr(os, name) for name in ("fsync", "fdatasync") if hasattr(os, name)}

    def counting(fn: Callable[[int], None]) -> Callable[[int], None]:
        def call(fd: int) -> None:
            calls[0] += 1
            fn(fd)
        return call

    for name, fn in real.items():
        setattr(os, name, counting(fn))
    try:
        in_dir(lambda e: loom_recover(template, e))()
    finally:
        for name, fn in real.items():
            setattr(os, name, fn)
    return calls[0]


def _dbos_recover_syncs(d: str, steps: int) -> str:
    """fsyncs of DBOS recovering a pending workflow of ``steps`` steps: a traced process that
    launches DBOS on a database holding one (launching recovers it) and waits for its
    result, less a traced process that launches on the same database with nothing left."""
    path = os.path.join(d, "counted.sqlite")
    subprocess.run([sys.executable, HERE, "--dbos-die", path, f"count-{steps}", str(steps)],
                   check=False, stdout=subprocess.DEVNULL)
    recovering = _syncs_of([f"dbos-recover:{path}", str(steps)])
    idle = _syncs_of([f"dbos-recover:{path}", "0"])
    return said(None if recovering is None or idle is None else recovering - idle)


def recover_rows(args: argparse.Namespace, dbos: Dbos | None) -> None:
    steps = 1000
    with tempfile.TemporaryDirectory() as d:
        template = loom_crashed(d, steps)
        ours = in_dir(lambda e: loom_recover(template, e))
        loom_syncs = f"{_loom_recover_syncs(template)} fsyncs"
        if dbos is None:
            t, = best_of(args.rounds, ours, low=True)
            print(f"recover an execution of {steps:,} completed steps, loom_ref file store "
                  f"(fsync write-ahead, {loom_syncs}): {t * 1e3:.1f} ms; DBOS skipped (not "
                  "installed)")
            return
        dbos_syncs = _dbos_recover_syncs(d, steps)
        t, theirs = best_of(args.rounds, ours, lambda: dbos.recover(dbos.path, steps), low=True)
        print(f"recover an execution of {steps:,} completed steps, loom_ref file store "
              f"(fsync write-ahead, {loom_syncs}) {t * 1e3:7.1f} ms vs DBOS recovery (SQLite "
              f"WAL, synchronous=FULL, {dbos_syncs}; its internal queue and the result "
              f"read every {RECOVERY_POLL * 1e3:.0f} ms, where DBOS as shipped reads each every "
              f"1 s) {theirs * 1e3:7.1f} ms: {theirs / t:5.1f}x faster")


def agent_rows(args: argparse.Namespace) -> None:
    turns = [int(t) for t in args.turns.split(",")]
    lg = have("langgraph") and have("langgraph.checkpoint.sqlite")
    ours_syncs = said(syncs_per("loom-agent:content", 5))
    inline_syncs = said(syncs_per("loom-agent:inline", 5))
    lg_syncs = said(syncs_per("langgraph:", 5)) if lg else ""
    for t in turns:
        content = in_dir(lambda d, t=t: loom_agent(t, d, True))
        inline = in_dir(lambda d, t=t: loom_agent(t, d, False))
        if not lg:
            a, b = best_of(args.rounds, content, inline, low=True)
            print(f"agent loop, {t} turns, ms per turn: loom_ref content-resolving store "
                  f"{a * 1e3:.2f}, inline {b * 1e3:.2f} (store log, fsync write-ahead, "
                  f"{ours_syncs} per turn); LangGraph skipped (not installed: pip install -e "
                  "'.[bench]')")
            continue
        a, b, theirs = best_of(args.rounds, content, inline,
                               in_dir(lambda d, t=t: langgraph_agent(t, d)), low=True)
        verdict = ""
        if t == 200:
            verdict = f"   target <= 0.25: {'met' if a / theirs <= 0.25 else 'NOT met'}"
        print(f"agent loop, {t:3} turns, ms per turn: loom_ref with the content-resolving store "
              f"{a * 1e3:6.2f} ({ours_syncs} per turn), inline {b * 1e3:6.2f} ({inline_syncs} "
              f"per turn) (store log, fsync write-ahead) vs LangGraph (SqliteSaver WAL, "
              f"synchronous=FULL, durability='sync', {lg_syncs} per turn) {theirs * 1e3:6.2f}: "
              f"ratio {a / theirs:.2f} (inline {b / theirs:.2f}){verdict}")


def unsynced_rows(args: argparse.Namespace) -> None:
    """The same comparisons with every sync taken out on both sides (loom_ref at fsync
    ``never``, the peers' SQLite at ``synchronous=OFF``): what each side costs beside its
    syncs, which a noisy disk does not move."""
    import peers

    peers.SYNCHRONOUS[0] = "OFF"
    never = FsyncPolicy.NEVER
    off = "synchronous=OFF, 0 fsyncs"
    with tempfile.TemporaryDirectory() as d:
        if have("dbos"):
            dbos = Dbos(os.path.join(d, "unsynced.sqlite"))
            try:
                rate, theirs = best_of(args.rounds, in_dir(
                    lambda e: loom_executions("log", never, 1, args.executions, e)),
                    lambda: dbos.executions(1, max(args.executions // 10, 10)))
            finally:
                dbos.close()
            print(f"unsynced: 1-step executions/s, loom_ref store log (fsync never, 0 fsyncs) "
                  f"{rate:9,.0f} vs DBOS (SQLite WAL, {off}) {theirs:7,.0f}: "
                  f"{rate / theirs:5.1f}x faster")
        else:
            print("unsynced: DBOS skipped (not installed)")
    if not have("langgraph"):
        print("unsynced: LangGraph skipped (not installed)")
        return
    for t in [int(t) for t in args.turns.split(",")]:
        a, theirs = best_of(args.rounds, in_dir(lambda d, t=t: loom_agent(t, d, True, never)),
                            in_dir(lambda d, t=t: langgraph_agent(t, d)), low=True)
        print(f"unsynced: agent loop, {t:3} turns, ms per turn: loom_ref with the "
              f"content-resolving store (store log, fsync never, 0 fsyncs) {a * 1e3:6.2f} vs "
              f"LangGraph (SqliteSaver WAL, {off}, durability='sync') {theirs * 1e3:6.2f}: "
              f"ratio {a / theirs:.2f}")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--dbos-die":
        dbos_die(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--count":
        count_child(sys.argv[2], int(sys.argv[3]))
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--executions", type=int, default=300)
    ap.add_argument("--turns", default="20,80,200")
    ap.add_argument("--only", default="kernel,recover,agent,unsynced")
    args = ap.parse_args()
    only = set(args.only.split(","))
    print(f"(best of {args.rounds} alternating rounds per line, in one process; fsyncs counted "
          "with strace -f -c in child runs)")
    with tempfile.TemporaryDirectory() as d:
        for row in ("kernel", "recover"):
            if row not in only:
                continue
            if not have("dbos"):
                print("DBOS skipped: not installed (pip install -e '.[bench]')")
                (kernel_rows if row == "kernel" else recover_rows)(args, None)
                continue
            poll = RECOVERY_POLL if row == "recover" else None
            dbos = Dbos(os.path.join(d, f"{row}.sqlite"), poll=poll)
            print(f"DBOS {_version('dbos')}: system database {dbos.settings()}")
            try:
                (kernel_rows if row == "kernel" else recover_rows)(args, dbos)
            finally:
                dbos.close()
    if "unsynced" in only:
        unsynced_rows(args)
    if "agent" in only:
        if have("langgraph"):
            print(f"LangGraph {_version('langgraph')}, langgraph-checkpoint-sqlite "
                  f"{_version('langgraph-checkpoint-sqlite')}")
        else:
            print("LangGraph skipped: not installed (pip install -e '.[bench]')")
        agent_rows(args)


def _version(dist: str) -> str:
    from importlib.metadata import version
    try:
        return version(dist)
    except Exception:
        return "?"


if __name__ == "__main__":
    main()
