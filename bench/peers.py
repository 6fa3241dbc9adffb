"""The peers' side of ``bench_peers.py``: DBOS Transact on SQLite and the same agent loop as a
LangGraph graph, each at its strongest durability (``bench_peers.py``'s module docstring
says which). Imported by ``bench_peers.py`` only, and only when the peer is installed."""

from __future__ import annotations

import json
import operator
import os
import subprocess
import sys
import time
from typing import Annotated, Any, TypedDict

#: The script a DBOS child process runs (``--dbos-die``).
SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench_peers.py")
#: How often the DBOS process that recovers reads its internal queue and a handle its result
#: (DBOS reads each once a second as shipped: here the work is timed, not the wait).
RECOVERY_POLL = 0.01
#: The model's ~0.7 KB of text per turn (both loops).
TEXT = ("The agent reasons about the data it has seen so far. " * 200)[:700]


# -- DBOS --------------------------------------------------------------------------------------

_WORKFLOW: list[Any] = []
#: The ``synchronous`` setting of the peers' SQLite connections: FULL, or OFF for the rows
#: that take every sync out on both sides (``bench_peers.py --only unsynced``).
SYNCHRONOUS = ["FULL"]


def _registered() -> Any:
    """The DBOS workflow, registered once per process (DBOS keeps registrations across
    instances), with every SQLite connection SQLAlchemy opens set to WAL and FULL."""
    if _WORKFLOW:
        return _WORKFLOW[0]
    import sqlalchemy as sa
    from dbos import DBOS

    @sa.event.listens_for(sa.engine.Engine, "connect")
    def _durable(dbapi_conn: Any, _record: Any) -> None:
        cursor = dbapi_conn.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA synchronous={SYNCHRONOUS[0]}")
        cursor.close()

    @DBOS.step()
    def echo(x: Any) -> Any:
        return x

    @DBOS.workflow()
    def steps(n: int, x: int) -> int:
        for i in range(n):
            echo({"i": i, "x": x})
        if DIE:  # not an argument: the recovering process re-runs it with the same ones
            os._exit(3)  # the process dies with every step recorded, the workflow pending
        return n

    _WORKFLOW.append(steps)
    return steps


class Dbos:
    """DBOS Transact on SQLite, WAL, synchronous=FULL (module rules)."""

    def __init__(self, path: str, *, poll: float | None = None) -> None:
        import sqlalchemy as sa
        from dbos import DBOS, SetWorkflowID

        self.sa, self.DBOS, self.SetWorkflowID = sa, DBOS, SetWorkflowID
        self.path = path
        self.dbos = DBOS(config={"name": "bench", "system_database_url": f"sqlite:///{path}",
                                 "log_level": "WARNING", "run_admin_server": False})
        self.steps = _registered()
        if poll is not None:  # private, and only the wait: how often recovery's queue is read
            self.dbos._registry.get_internal_queue()._polling_interval_sec = poll
        DBOS.launch()
        self.rounds = 0

    def settings(self) -> str:
        with self.dbos._sys_db.engine.connect() as conn:
            mode = conn.execute(self.sa.text("PRAGMA journal_mode")).scalar()
            sync = conn.execute(self.sa.text("PRAGMA synchronous")).scalar()
        names = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}
        return f"journal_mode={mode}, synchronous={names.get(sync, sync)}"

    def executions(self, steps: int, n: int) -> float:
        self.rounds += 1
        t0 = time.perf_counter()
        for i in range(n):
            with self.SetWorkflowID(f"r{self.rounds}-{steps}-{i}"):
                self.steps(steps, i)
        return n / (time.perf_counter() - t0)

    def recover(self, path: str, steps: int) -> float:
        """Seconds for DBOS to recover a workflow of ``steps`` recorded steps, left pending by
        a child process that died."""
        self.rounds += 1
        wid = f"big-{self.rounds}"
        subprocess.run([sys.executable, SCRIPT, "--dbos-die", path, wid, str(steps)], check=False,
                       stdout=subprocess.DEVNULL)
        t0 = time.perf_counter()
        handles = self.DBOS._recover_pending_workflows()
        results = [h.get_result(polling_interval_sec=RECOVERY_POLL) for h in handles]
        elapsed = time.perf_counter() - t0
        assert results == [steps], results
        return elapsed

    def close(self) -> None:
        self.DBOS.destroy()


#: Whether this process is the child that dies mid-workflow (``--dbos-die``).
DIE = False


def dbos_die(path: str, wid: str, steps: int) -> None:
    """The child: run ``steps`` steps of a workflow and die before it ends."""
    global DIE
    DIE = True
    side = Dbos(path)
    with side.SetWorkflowID(wid):
        side.steps(steps, 0)


# -- LangGraph ---------------------------------------------------------------------------------

class AgentState(TypedDict):
    """The graph's state: the transcript (each node's messages appended) and the turn."""

    messages: Annotated[list[Any], operator.add]
    turn: int


def langgraph_agent(turns: int, d: str, name: str = "lg") -> float:
    """Seconds per turn of the same agent loop as a LangGraph graph (module rules)."""
    import sqlite3

    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.graph import END, START, StateGraph

    def model(state: AgentState) -> dict[str, Any]:
        turn = state["turn"]
        if turn + 1 >= turns:
            return {"messages": [{"role": "assistant", "content": [
                {"type": "text", "text": "Done."}]}], "turn": turn + 1}
        return {"messages": [{"role": "assistant", "content": [
            {"type": "text", "text": TEXT},
            {"type": "tool-call", "id": f"c{turn}", "name": "fetch",
             "arguments": json.dumps({"page": turn})}]}], "turn": turn + 1}

    def tool(state: AgentState) -> dict[str, Any]:
        call = state["messages"][-1]["content"][1]
        page = json.loads(call["arguments"])["page"]
        return {"messages": [{"role": "tool", "content": [{
            "type": "tool-result", "id": call["id"],
            "content": json.dumps({"page": page, "body": "x" * 2000})}]}]}

    def route(state: AgentState) -> str:
        return "tool" if len(state["messages"][-1]["content"]) > 1 else END

    graph = StateGraph(AgentState)
    graph.add_node("model", model)
    graph.add_node("tool", tool)
    graph.add_edge(START, "model")
    graph.add_conditional_edges("model", route, ["tool", END])
    graph.add_edge("tool", "model")
    conn = sqlite3.connect(os.path.join(d, f"{name}.db"), check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(f"PRAGMA synchronous={SYNCHRONOUS[0]}")
    app = graph.compile(checkpointer=SqliteSaver(conn))
    t0 = time.perf_counter()
    out = app.invoke({"messages": [{"role": "user", "content": [
        {"type": "text", "text": "Read every page and report."}]}], "turn": 0},
        {"configurable": {"thread_id": "t"}, "recursion_limit": 4 * turns + 10},
        durability="sync")
    elapsed = time.perf_counter() - t0
    assert out["turn"] == turns, out["turn"]
    conn.close()
    return elapsed / turns
