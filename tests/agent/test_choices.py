"""Skills, recall and routing through the real ctx.decide (spec: agent.skills, agent.recall,
agent.choices-replay, agent.router; ADR 0087 D6 Verification: "a DRIFTING selector ... without
the seam a replay rebuilds a prompt without the skill; with it, the recorded set is served.
Plus recall bounded by recallLimit, and a G2 control where neither is configured")."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from loom_ref.agent import (
    AgentLoopConfig,
    AgentTool,
    DecideSeam,
    ListMemory,
    ReasoningRouter,
    Recall,
    Skills,
    agent_loop,
    compose_system,
)
from loom_ref.journal import MemoryStore, Status
from loom_ref.kernel import Choice, ExecutionContext, Workflow

from .helpers import Host, crash_then, journal, loop_workflow, reply, runtime, started

LIB = {"math": "Show your arithmetic.", "tone": "Be terse."}
SCRIPTS = [reply("", [("lookup", {"q": "x"})]), reply("The answer is 4.")]


class Drifting:
    """A selector that answers differently on its second call."""

    def __init__(self, first: Any, then: Any) -> None:
        self.answers = [first, then]
        self.calls = 0

    def __call__(self, scope: Any, query: Any) -> Any:
        self.calls += 1
        return self.answers[min(self.calls - 1, 1)]


BASE = AgentLoopConfig(model_tool_id="llm", tools=[AgentTool(name="lookup")])


def unrecorded_workflow(selector: Drifting) -> Workflow:
    """The hole the seam closes: selection computed in the body, not recorded."""

    def body(ctx: ExecutionContext, input: Any) -> Any:
        names = selector(None, input)
        config = attrs.evolve(BASE, system=compose_system("", [(n, LIB[n]) for n in names], []))
        return (yield from agent_loop(ctx, config, input))

    return Workflow(name="agent", body=body)


def crash_after_turn_zero_then_recover(make: Any) -> tuple[list[str], Drifting]:
    """Crash once turn 0's tool step completed, recover; return each turn's system prompt
    and the selector the crashed and the recovering process shared."""
    def run(rt: Any) -> Any:
        return rt.start("agent", "what is 2+2?", execution_id="a1")

    base = MemoryStore()
    host, wf = make(Drifting(["math"], []))
    run(runtime(base, host, wf))
    k = next(i for i, e in enumerate(journal(base), 1) if e["kind"] == "STEP_COMPLETED"
             and e["payload"]["stepId"] == "#turn:0:tool:0")
    selector = Drifting(["math"], [])
    store = crash_then(k, lambda: make(selector), run)
    host, wf = make(selector)
    assert runtime(store, host, wf).recover("a1").status is Status.COMPLETED
    return [p["input"]["system"] for p in started(journal(store)) if p["toolId"] == "llm"], \
        selector


def test_without_the_seam_a_recovered_run_rebuilds_a_different_prompt() -> None:
    systems, _ = crash_after_turn_zero_then_recover(
        lambda sel: (Host(SCRIPTS), unrecorded_workflow(sel)))
    assert "Show your arithmetic." in systems[0]
    assert systems[1] == ""  # the replayed body re-selected and the skill is gone


def test_with_the_seam_the_recorded_set_is_served() -> None:
    systems, selector = crash_after_turn_zero_then_recover(lambda sel: (
        Host(SCRIPTS), loop_workflow(attrs.evolve(BASE, skills=Skills(library=LIB,
                                                                      select=sel)))))
    assert systems[0] == systems[1] == "## Skills\n\n### math\nShow your arithmetic."
    assert selector.calls == 1  # the recovery was served the recorded set


def test_the_skills_decision_records_choice_context_alternatives_and_policy() -> None:
    config = attrs.evolve(BASE, system="You help.", skills=Skills(
        library=LIB, select=lambda scope, q: Choice(value=["tone", "math"], policy_id="p1",
                                                    propensity=0.25)))
    store, host = MemoryStore(), Host(SCRIPTS)
    runtime(store, host, loop_workflow(config)).start("agent", "what is 2+2?",
                                                      execution_id="a1")
    decision = next(e["payload"] for e in journal(store) if e["kind"] == "DECISION_RECORDED")
    assert decision == {"decisionId": "#skills", "choice": ["tone", "math"],
                        "policy": {"id": "p1", "propensity": 0.25},
                        "context": {"query": "what is 2+2?"}, "alternatives": ["math", "tone"]}
    system = started(journal(store))[0]["input"]["system"]
    assert system == ("You help.\n\n## Skills\n\n### tone\nBe terse.\n\n### math\n"
                      "Show your arithmetic.")


def test_an_unknown_skill_fails_the_run_with_a_stable_code() -> None:
    config = attrs.evolve(BASE, skills=Skills(library=LIB, select=lambda s, q: ["nope"]))
    result = runtime(MemoryStore(), Host(SCRIPTS), loop_workflow(config)).start(
        "agent", "hi", execution_id="a1")
    assert result.status is Status.FAILED
    assert result.error["code"] == "agent.unknown-skill"


class Greedy:
    """A memory that ignores the limit it is given."""

    def __init__(self) -> None:
        self.searches = 0

    def search(self, scope: Any, query: str, limit: int) -> list[str]:
        self.searches += 1
        return [f"fact {i}" for i in range(50)]


@pytest.mark.parametrize("memory", [ListMemory([f"price fact {i}" for i in range(20)]),
                                    Greedy()], ids=["list", "greedy"])
def test_recall_is_bounded_by_recall_limit_and_served_on_replay(memory: Any) -> None:
    config = attrs.evolve(BASE, recall=Recall(memory=memory, recall_limit=3))
    store, host = MemoryStore(), Host(SCRIPTS)
    rt = runtime(store, host, loop_workflow(config))
    assert rt.start("agent", "the price please", execution_id="a1").status is Status.COMPLETED
    decision = next(e["payload"] for e in journal(store) if e["kind"] == "DECISION_RECORDED")
    assert decision["decisionId"] == "#recall"
    assert decision["context"] == {"query": "the price please", "recallLimit": 3}
    assert len(decision["choice"]) == 3
    system = started(journal(store))[0]["input"]["system"]
    assert system.count("\n- ") == 3 and system.startswith("## Relevant memory")
    assert memory.searches == 1
    assert rt.replay("a1").status is Status.COMPLETED
    assert memory.searches == 1  # spec: agent.choices-replay


def test_list_memory_ranks_by_shared_words_newest_first() -> None:
    memory = ListMemory(["the sky is blue", "price is 10", "price of tea is 3", "unrelated"])
    search: Any = memory.search
    assert search(None, "price tea", 5) == ["price of tea is 3", "price is 10"]
    assert search(None, "what is the price", 2) == ["price of tea is 3", "price is 10"]
    assert search(None, "nothing shared", 5) == []


def test_g2_control_neither_configured_records_no_decision() -> None:
    store = MemoryStore()
    runtime(store, Host(SCRIPTS), loop_workflow(BASE)).start("agent", "hi", execution_id="a1")
    assert not any(e["kind"] == "DECISION_RECORDED" for e in journal(store))
    assert started(journal(store))[0]["input"]["system"] == ""


# --- routed model access ------------------------------------------------------------------

def answer(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}]}


def route_host() -> Host:
    return Host(SCRIPTS, tools={"cheap": lambda req: answer("cheap: unsure"),
                                "strong": lambda req: answer("strong: 4")})


class FakeSeamRouter:
    """AgentRunner's fake seam: the route is computed in the body and only noted as a fact
    (the call decision's context), so it cannot be served."""

    def __init__(self, select: Drifting) -> None:
        self.select = select
        self.taken: list[str] = []

    def reason(self, decide: DecideSeam, request: dict[str, Any]) -> Any:
        route = self.select(None, request)
        self.taken.append(route)
        return (yield decide("call:0", lambda scope: scope.invoke_transient(route, request),
                             context={"route": route}))


def test_the_real_seam_serves_the_route_and_a_fake_seam_re_routes() -> None:
    # real seam: the route is a recorded decision, served on replay
    select = Drifting("cheap", "strong")
    config = AgentLoopConfig(router=ReasoningRouter(routes=("cheap", "strong"), select=select))
    store, host = MemoryStore(), route_host()
    rt = runtime(store, host, loop_workflow(config))
    result = rt.start("agent", "2+2?", execution_id="a1")
    assert result.output["text"] == "cheap: unsure"
    decisions = [e["payload"] for e in journal(store) if e["kind"] == "DECISION_RECORDED"]
    assert [d["decisionId"] for d in decisions] == ["#turn:0:route", "#turn:0:call:0"]
    assert decisions[0]["choice"] == "cheap"
    assert decisions[0]["alternatives"] == ["cheap", "strong"]
    assert rt.replay("a1").status is Status.COMPLETED
    assert select.calls == 1  # the replay took the logged route without asking again

    # fake seam: the replay re-routes -- it takes strong where the log says cheap
    fake = FakeSeamRouter(Drifting("cheap", "strong"))
    store2 = MemoryStore()
    rt2 = runtime(store2, route_host(), loop_workflow(AgentLoopConfig(router=fake)))
    rt2.start("agent", "2+2?", execution_id="a1")
    rt2.replay("a1")
    logged = next(e["payload"] for e in journal(store2) if e["kind"] == "DECISION_RECORDED")
    assert logged["context"] == {"route": "cheap"}
    assert fake.taken == ["cheap", "strong"]


def test_elevation_is_a_recorded_decision_and_moves_to_the_stronger_route() -> None:
    router = ReasoningRouter(routes=("cheap", "strong"), select=lambda s, r: "cheap",
                             elevate=lambda s, msg, route: "unsure" in str(msg))
    store, host = MemoryStore(), route_host()
    rt = runtime(store, host, loop_workflow(AgentLoopConfig(router=router)))
    result = rt.start("agent", "2+2?", execution_id="a1")
    assert result.output["text"] == "strong: 4"
    decisions = [(e["payload"]["decisionId"], e["payload"]["choice"]) for e in journal(store)
                 if e["kind"] == "DECISION_RECORDED"]
    assert [d[0] for d in decisions] == ["#turn:0:route", "#turn:0:call:0",
                                         "#turn:0:elevate:0", "#turn:0:call:1"]
    assert decisions[2][1] is True
    assert [t for t, _ in host.calls] == ["cheap", "strong"]
    assert not any(e["kind"] == "STEP_STARTED" for e in journal(store))  # routed: no steps
    fresh = route_host()
    assert runtime(store, fresh, loop_workflow(AgentLoopConfig(router=router))).replay(
        "a1").status is Status.COMPLETED
    assert fresh.calls == []


def test_an_unknown_route_fails_the_run() -> None:
    router = ReasoningRouter(routes=("cheap",), select=lambda s, r: "gold")
    result = runtime(MemoryStore(), route_host(), loop_workflow(
        AgentLoopConfig(router=router))).start("agent", "2+2?", execution_id="a1")
    assert result.status is Status.FAILED
    assert result.error["code"] == "agent.unknown-route"


def test_a_query_that_is_no_str_is_refused_before_any_decision() -> None:
    # spec: errors.invalid-argument -- select_skills and recall check a Python caller's query
    # when the generator starts, before they yield their decision (the loop's own query is
    # always the transcript's text, a str)
    from loom_ref.agent import recall, select_skills
    from loom_ref.errors import InvalidArgument

    asked: list[str] = []

    def decide(decision_id: str, decider: Any, **_kw: Any) -> Any:
        asked.append(decision_id)
        return "command"

    skills = Skills(library={"s": "do s"}, select=lambda scope, query: ["s"])
    for query in (1, None, ["q"]):
        with pytest.raises(InvalidArgument, match="query"):
            next(select_skills(decide, skills, query))  # type: ignore[arg-type]
        with pytest.raises(InvalidArgument, match="query"):
            next(recall(decide=decide, memory=ListMemory(["q"]), query=query,  # type: ignore[arg-type]
                        recall_limit=1))
    assert asked == []
    assert next(select_skills(decide, skills, "q")) == "command"
    found = next(recall(decide=decide, memory=ListMemory(["q"]), query="q", recall_limit=1))
    assert found == "command"
    assert asked == ["#skills", "#recall"]
