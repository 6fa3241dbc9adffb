"""Every public entry point of the agent layer answers a bad argument with a loom_ref error
carrying a stable code, never an internal exception (spec: errors.invalid-argument).

The model is ``tests/kernel/test_bad_arguments.py``: each entry point is called with one
argument replaced by each value of ``BAD`` (every other argument good). The call may accept
the value; if it raises, the error MUST be a :class:`~loom_ref.errors.LoomError` whose
``code`` is a non-empty string. The loop's generators run inside a real runner body; a body
that fails journals its error, so the body here lets only loom_ref errors reach the kernel and
turns any other exception into :class:`Leaked`, which the test reports. Effects are called
directly with their context, so an internal exception is not hidden behind ``effect.failed``.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

import pytest

from loom_ref.agent import (
    VECTOR_FUNCTIONS,
    AgentLoopConfig,
    AgentTool,
    ClaimCheckMiddleware,
    Compaction,
    DecideSeam,
    DeltaChunker,
    ListMemory,
    MemoryContentStore,
    ReasoningRouter,
    Recall,
    Skills,
    Transcript,
    agent_loop,
    agent_step,
    canonical_bytes,
    canonical_json,
    chunk_deltas,
    claim_check_envelope,
    claim_check_middleware,
    compaction_plan,
    compose_system,
    content_ref,
    create_agent_model_effect,
    create_agent_step_effect,
    create_summarizer_effect,
    initial_messages,
    is_claim_check_envelope,
    kept_suffix_for_bytes,
    message_bytes,
    read_approval,
    recall,
    refusal_content,
    render_transcript,
    resolve_claim_check,
    select_skills,
    summary_message,
    tool_error_content,
    tool_result_content,
)
from loom_ref.effects import Effect, EffectCall, EffectContext, ManualClock, Mode
from loom_ref.errors import InvalidArgument, LoomError
from loom_ref.journal import MemoryStore
from loom_ref.kernel import EffectRegistry, ExecutionContext, Runtime, Workflow
from loom_ref.signals import Signal
from loom_ref.stream import FinishChunk, FinishReason, ScriptedAdapter

from ..badargs import Leaked, leaks, try_call, with_member

ANSWER = {"role": "assistant", "content": [{"type": "text", "text": "done"}]}
USER = {"role": "user", "content": [{"type": "text", "text": "hi"}]}
CALL = {"role": "assistant", "content": [
    {"type": "tool-call", "id": "c1", "name": "t", "arguments": "{}"}]}
ADAPTER = ScriptedAdapter([FinishChunk(reason=FinishReason.stop())])


def noop(*args: Any) -> None:
    """A good callable argument."""


def registry() -> EffectRegistry:
    return EffectRegistry([Effect(tool_id="llm", execute=lambda ctx, input: ANSWER),
                           Effect(tool_id="t", execute=lambda ctx, input: {"ok": 1}),
                           Effect(tool_id="summarize",
                                  execute=lambda ctx, input: {"summary": "s"})])


def in_body(gen_of: Callable[[ExecutionContext], Generator[Any, Any, Any]]) -> Any:
    """Run ``yield from gen_of(ctx)`` in a runner body; a non-loom_ref exception is Leaked."""
    def b(ctx: ExecutionContext, inp: Any) -> Generator[Any, Any, Any]:
        try:
            return (yield from gen_of(ctx))
        except LoomError:
            raise
        except Exception as exc:
            raise Leaked(f"{type(exc).__name__}: {exc}") from exc
    rt = Runtime(store=MemoryStore(), effects=registry(), workflows=[Workflow(name="b", body=b)],
                 on_warn=lambda message: None)
    result = rt.start("b", None, execution_id="e1")
    error = result.error
    assert not (isinstance(error, dict) and error.get("code") in ("kernel.body-error",
                                                                  "effect.failed")), error
    return result


def one(cmd: Any) -> Generator[Any, Any, Any]:
    return (yield cmd)


def config(**override: Any) -> AgentLoopConfig:
    args: dict[str, Any] = {"model_tool_id": "llm", "on_warn": lambda message: None}
    args.update(override)
    return AgentLoopConfig(**args)


def loop(cfg: Callable[[], AgentLoopConfig] = config, input: Any = "hi") -> Any:
    return in_body(lambda ctx: agent_loop(ctx, cfg(), input))


def context(input: Any = None) -> EffectContext:
    call = EffectCall(tool_id="x", input=input, mode=Mode.TRANSIENT, principal="p1")
    return EffectContext(call, Signal(), ManualClock())


def vectors(value: Any) -> None:
    """Every vector function with the whole input, and each input member, replaced."""
    chunks = [{"type": "finish", "reason": {"kind": "stop"}}]
    inputs: dict[str, dict[str, Any]] = {
        "agent.message_bytes": {"message": USER},
        "agent.compaction_plan": {"sizes": [1, 2], "afterMessages": 1, "afterBytes": None,
                                  "keepRecent": None},
        "agent.kept_suffix": {"sizes": [1, 2], "afterBytes": 2, "keepRecent": 1},
        "agent.chunk_deltas": {"deltas": ["a. "], "minChars": 1},
        "agent.claim_check_envelope": {"result": {"a": 1}, "preview": True},
        "agent.content_ref": {"value": {"a": 1}},
        "agent.tool_result_content": {"name": "t", "result": 1},
        "agent.model_effect": {"input": {"messages": [USER]}, "chunks": chunks,
                               "maxTokens": 5, "temperature": 0.5},
        "agent.summarize": {"messages": [USER], "chunks": chunks, "instructions": "i"},
        "agent.render_transcript": {"messages": [USER]},
    }
    assert set(inputs) == set(VECTOR_FUNCTIONS)
    for name, good in inputs.items():
        fn = VECTOR_FUNCTIONS[name]
        try_call(fn, value)
        for member in good:
            try_call(fn, with_member(good, member, value))
            try_call(fn, with_member(good, member, [value]))
    try_call(VECTOR_FUNCTIONS["agent.compaction_plan"], {"sizes": [1, 2], "afterMessages": 1,
                                                      "afterBytes": None, "keepRecent": value})
    try_call(VECTOR_FUNCTIONS["agent.model_effect"], {"input": {"messages": [value]},
                                                   "chunks": chunks})
    try_call(VECTOR_FUNCTIONS["agent.claim_check_envelope"], {"result": {"$tainted": {
        "value": 1, "origin": value}}})


def step_effect(value: Any, where: str) -> Any:
    """The agent_step effect's execute with its context or its input replaced."""
    execute = create_agent_step_effect(config(), registry()).execute
    if where == "ctx":
        return execute(value, {"input": "hi"})
    if where == "input":
        return execute(context(), value)
    return execute(context(), {"input": value})


def summarizer(value: Any) -> None:
    """The summarizer effect (both provider forms) with its input replaced."""
    for provider in (ADAPTER, lambda text: "s"):
        effect = create_summarizer_effect(provider, tool_id="summarize", model="m")
        try_call(effect.execute, context(), value)
        try_call(effect.execute, context(), {"messages": value})
        try_call(effect.execute, context(), {"messages": [value]})


def model_effect(value: Any) -> None:
    """The agent's model effect with its input replaced."""
    effect = create_agent_model_effect(ADAPTER, tool_id="llm", model="m", max_tokens=5)
    try_call(effect.execute, context(), value)
    try_call(effect.execute, context(), {"messages": value})


def wrapped(value: Any) -> Any:
    effect = ClaimCheckMiddleware(MemoryContentStore(), ["t"]).wrap(
        Effect(tool_id="t", execute=lambda ctx, input: value))
    return effect.execute(context(), None)


ROUTER = ReasoningRouter(routes=["llm"], select=lambda scope, request: "llm")
SKILLS = Skills(library={"s": "do s"}, select=lambda scope, query: ["s"])
STORE = MemoryContentStore()
ENVELOPE = claim_check_envelope({"a": 1}, STORE)

#: entry point name -> a function of the bad value that calls it with that value in one place
ENTRY_POINTS: dict[str, Callable[[Any], Any]] = {
    # configuration
    "AgentLoopConfig(model_tool_id)": lambda v: config(model_tool_id=v),
    "AgentLoopConfig(router)": lambda v: config(model_tool_id=None, router=v),
    "AgentLoopConfig(system)": lambda v: config(system=v),
    "AgentLoopConfig(tools)": lambda v: config(tools=v),
    "AgentLoopConfig(tools[0])": lambda v: config(tools=[v]),
    "AgentLoopConfig(max_iterations)": lambda v: config(max_iterations=v),
    "AgentLoopConfig(max_tool_calls_per_turn)": lambda v: config(max_tool_calls_per_turn=v),
    "AgentLoopConfig(needs_approval)": lambda v: config(needs_approval=v),
    "AgentLoopConfig(approval_gate)": lambda v: config(approval_gate=v),
    "AgentLoopConfig(approval_on)": lambda v: config(approval_on=v),
    "AgentLoopConfig(compaction)": lambda v: config(compaction=v),
    "AgentLoopConfig(warn_transcript_bytes)": lambda v: config(warn_transcript_bytes=v),
    "AgentLoopConfig(on_warn)": lambda v: config(on_warn=v),
    "AgentLoopConfig(skills)": lambda v: config(skills=v),
    "AgentLoopConfig(recall)": lambda v: config(recall=v),
    "AgentLoopConfig(stream_min_chars)": lambda v: config(stream_min_chars=v),
    "AgentLoopConfig.tool": lambda v: config(tools=[AgentTool(name="t")]).tool(v),
    "AgentTool(name)": lambda v: AgentTool(name=v),
    "AgentTool(tool_id)": lambda v: AgentTool(name="t", tool_id=v),
    "AgentTool(description)": lambda v: loop(lambda: config(
        tools=[AgentTool(name="t", description=v)])),
    "AgentTool(parameters)": lambda v: AgentTool(name="t", parameters=v),
    "AgentTool(parameters) member": lambda v: loop(lambda: config(
        tools=[AgentTool(name="t", parameters={"a": v})])),
    "Compaction(tool_id)": lambda v: Compaction(tool_id=v, after_messages=2),
    "Compaction(after_messages)": lambda v: Compaction(tool_id="s", after_messages=v),
    "Compaction(after_bytes)": lambda v: Compaction(tool_id="s", after_bytes=v),
    "Compaction(keep_recent)": lambda v: Compaction(tool_id="s", after_bytes=9, keep_recent=v),
    "Skills(library)": lambda v: Skills(library=v, select=noop),
    "Skills(select)": lambda v: Skills(library={}, select=v),
    "Recall(memory)": lambda v: Recall(memory=v),
    "Recall(recall_limit)": lambda v: Recall(memory=ListMemory([]), recall_limit=v),
    "ListMemory(items)": lambda v: ListMemory(v),
    "ListMemory(items[0])": lambda v: ListMemory([v]),
    "ListMemory.search(query)": lambda v: ListMemory(["a b"]).search(None, v, 1),  # type: ignore[arg-type]
    "ListMemory.search(limit)": lambda v: ListMemory(["a b"]).search(None, "a", v),  # type: ignore[arg-type]
    "ReasoningRouter(routes)": lambda v: ReasoningRouter(routes=v, select=noop),
    "ReasoningRouter(select)": lambda v: ReasoningRouter(routes=["llm"], select=v),
    "ReasoningRouter(elevate)": lambda v: ReasoningRouter(routes=["llm"], select=noop,
                                                          elevate=v),
    # the loop and its pieces, in a runner body
    "agent_loop(ctx)": lambda v: in_body(lambda ctx: agent_loop(v, config(), "hi")),
    "agent_loop(config)": lambda v: in_body(lambda ctx: agent_loop(ctx, v, "hi")),
    "agent_loop(input)": lambda v: loop(input=v),
    "agent_loop(input.messages)": lambda v: loop(input={"messages": v}),
    "agent_loop(input.messages[0])": lambda v: loop(input={"messages": [v]}),
    "agent_loop(router)": lambda v: loop(lambda: config(model_tool_id=None, router=ROUTER)),
    "agent_step(ctx)": lambda v: in_body(lambda ctx: agent_step(v, config(), "hi")),
    "agent_step(config)": lambda v: in_body(lambda ctx: agent_step(ctx, v, "hi")),
    "agent_step(input)": lambda v: in_body(lambda ctx: agent_step(ctx, config(), v)),
    "agent_step(tool_id)": lambda v: in_body(lambda ctx: agent_step(ctx, config(), "hi",
                                                                     tool_id=v)),
    "agent_step(step_id)": lambda v: in_body(lambda ctx: agent_step(ctx, config(), "hi",
                                                                     step_id=v)),
    # a callable decide is a callback: that it raises when called is not an argument error
    "select_skills(decide)": lambda v: callable(v) or in_body(
        lambda ctx: select_skills(v, SKILLS, "q")),
    "select_skills(skills)": lambda v: in_body(lambda ctx: select_skills(ctx.decide, v, "q")),
    "select_skills(query)": lambda v: in_body(lambda ctx: select_skills(ctx.decide, SKILLS, v)),
    "recall(decide)": lambda v: callable(v) or in_body(lambda ctx: recall(
        decide=v, memory=ListMemory(["a"]), query="a", recall_limit=1)),
    "recall(memory)": lambda v: in_body(lambda ctx: recall(
        decide=ctx.decide, memory=v, query="a", recall_limit=1)),
    "recall(query)": lambda v: in_body(lambda ctx: recall(
        decide=ctx.decide, memory=ListMemory(["a"]), query=v, recall_limit=1)),
    "recall(recall_limit)": lambda v: in_body(lambda ctx: recall(
        decide=ctx.decide, memory=ListMemory(["a"]), query="a", recall_limit=v)),
    "DecideSeam(ctx)": lambda v: DecideSeam(v, 0)("route", noop),
    "DecideSeam(turn)": lambda v: in_body(lambda ctx: ROUTER.reason(DecideSeam(ctx, v), {})),
    "DecideSeam(name)": lambda v: in_body(lambda ctx: one(DecideSeam(ctx, 0)(v, noop))),
    "DecideSeam(decider)": lambda v: in_body(lambda ctx: one(DecideSeam(ctx, 0)("n", v))),
    "ReasoningRouter.reason(decide)": lambda v: in_body(lambda ctx: ROUTER.reason(v, {})),
    "ReasoningRouter.reason(request)": lambda v: in_body(lambda ctx: ROUTER.reason(
        DecideSeam(ctx, 0), v)),
    "initial_messages": lambda v: initial_messages(v),
    "summary_message": lambda v: summary_message(v),
    "compose_system(system)": lambda v: compose_system(v, [("s", "t")], ["m"]),
    "compose_system(skills)": lambda v: compose_system("sys", v, ["m"]),
    "compose_system(skills[0])": lambda v: compose_system("sys", [v], ["m"]),
    "compose_system(memories)": lambda v: compose_system("sys", [("s", "t")], v),
    "compose_system(memories[0])": lambda v: compose_system("sys", [], [v]),
    "AgentLoopConfig(approval_resume_schema)": lambda v: config(approval_resume_schema=v),
    "read_approval": lambda v: read_approval(v),
    "read_approval(reason)": lambda v: read_approval({"approved": False, "reason": v}),
    # transcript, canonical JSON, tool contents
    "canonical_json": lambda v: canonical_json(v),
    "canonical_bytes": lambda v: canonical_bytes(v),
    "message_bytes": lambda v: message_bytes(v),
    "Transcript(messages)": lambda v: Transcript(v),
    "Transcript(messages[0])": lambda v: Transcript([v]),
    "Transcript.push": lambda v: Transcript().push(v),
    "Transcript.fold(count)": lambda v: Transcript([USER, USER]).fold(v, USER),
    "Transcript.fold(summary)": lambda v: Transcript([USER, USER]).fold(1, v),
    "tool_result_content(name)": lambda v: tool_result_content(v, 1),
    "tool_result_content(result)": lambda v: tool_result_content("t", v),
    "refusal_content(name)": lambda v: refusal_content(v, "r"),
    "refusal_content(reason)": lambda v: refusal_content("t", v),
    "tool_error_content(name)": lambda v: tool_error_content(v, "c", "m"),
    "tool_error_content(code)": lambda v: tool_error_content("t", v, "m"),
    "tool_error_content(message)": lambda v: tool_error_content("t", "c", v),
    # compaction
    "compaction_plan(sizes)": lambda v: compaction_plan(v, 3, after_messages=1,
                                                        after_bytes=None, keep_recent=1),
    "compaction_plan(sizes[0])": lambda v: compaction_plan([v, 1], 3, after_messages=None,
                                                           after_bytes=1, keep_recent=1),
    "compaction_plan(total_bytes)": lambda v: compaction_plan([1, 2], v, after_messages=None,
                                                              after_bytes=1, keep_recent=1),
    "compaction_plan(after_messages)": lambda v: compaction_plan(
        [1, 2], 3, after_messages=v, after_bytes=None, keep_recent=1),
    "compaction_plan(after_bytes)": lambda v: compaction_plan(
        [1, 2], 3, after_messages=None, after_bytes=v, keep_recent=1),
    "compaction_plan(keep_recent)": lambda v: compaction_plan(
        [1, 2], 3, after_messages=1, after_bytes=1, keep_recent=v),
    "kept_suffix_for_bytes(sizes)": lambda v: kept_suffix_for_bytes(v, 2, 1),
    "kept_suffix_for_bytes(sizes[0])": lambda v: kept_suffix_for_bytes([1, v], 2, 1),
    "kept_suffix_for_bytes(after_bytes)": lambda v: kept_suffix_for_bytes([1, 2], v, 1),
    "kept_suffix_for_bytes(keep_recent)": lambda v: kept_suffix_for_bytes([1, 2], 2, v),
    # streaming granularity
    "chunk_deltas(emit)": lambda v: chunk_deltas(v),
    "chunk_deltas(min_chars)": lambda v: chunk_deltas(noop, min_chars=v),
    "DeltaChunker(emit)": lambda v: DeltaChunker(v, 1),
    "DeltaChunker.push": lambda v: DeltaChunker(lambda text: None, 1).push(v),
    # claim-check
    "content_ref": lambda v: content_ref(v),
    "claim_check_envelope(result)": lambda v: claim_check_envelope(v, MemoryContentStore()),
    "claim_check_envelope(store)": lambda v: claim_check_envelope({"a": 1}, v),
    "claim_check_envelope(digest)": lambda v: claim_check_envelope(
        {"a": 1}, MemoryContentStore(), digest=v),
    "claim_check_envelope(preview)": lambda v: claim_check_envelope(
        {"a": 1}, MemoryContentStore(), preview=v),
    "is_claim_check_envelope": lambda v: is_claim_check_envelope(v),
    "resolve_claim_check(store)": lambda v: resolve_claim_check(v, ENVELOPE),
    "resolve_claim_check(envelope)": lambda v: resolve_claim_check(STORE, v),
    "resolve_claim_check(envelope.ref)": lambda v: resolve_claim_check(
        STORE, {**ENVELOPE, "ref": v}),
    "MemoryContentStore.put": lambda v: MemoryContentStore().put(v),
    "MemoryContentStore.get": lambda v: MemoryContentStore().get(v),
    "claim_check_middleware(store)": lambda v: claim_check_middleware(v, ["t"]),
    "claim_check_middleware(tool_ids)": lambda v: claim_check_middleware(STORE, v),
    "claim_check_middleware(tool_ids[0])": lambda v: claim_check_middleware(STORE, [v]),
    "claim_check_middleware(digests)": lambda v: claim_check_middleware(STORE, ["t"],
                                                                        digests=v),
    "claim_check_middleware(preview)": lambda v: claim_check_middleware(STORE, ["t"],
                                                                        preview=v),
    "ClaimCheckMiddleware.check(tool_id)": lambda v: claim_check_middleware(
        STORE, ["t"]).check(v, 1),
    "ClaimCheckMiddleware.check(result)": lambda v: claim_check_middleware(
        STORE, ["t"]).check("t", v),
    "ClaimCheckMiddleware.wrap(effect)": lambda v: claim_check_middleware(
        STORE, ["t"]).wrap(v),
    "ClaimCheckMiddleware.wrap(...) result": wrapped,
    # effect factories and the effects they build
    "create_agent_model_effect(adapter)": lambda v: create_agent_model_effect(
        v, tool_id="llm", model="m"),
    "create_agent_model_effect(tool_id)": lambda v: create_agent_model_effect(
        ADAPTER, tool_id=v, model="m"),
    "create_agent_model_effect(model)": lambda v: create_agent_model_effect(
        ADAPTER, tool_id="llm", model=v),
    "create_agent_model_effect(on_delta)": lambda v: create_agent_model_effect(
        ADAPTER, tool_id="llm", model="m", on_delta=v),
    "create_agent_model_effect(on_reset)": lambda v: create_agent_model_effect(
        ADAPTER, tool_id="llm", model="m", on_reset=v),
    "create_agent_model_effect(max_tokens)": lambda v: create_agent_model_effect(
        ADAPTER, tool_id="llm", model="m", max_tokens=v),
    "create_agent_model_effect(temperature)": lambda v: create_agent_model_effect(
        ADAPTER, tool_id="llm", model="m", temperature=v),
    "create_agent_model_effect(idempotent)": lambda v: create_agent_model_effect(
        ADAPTER, tool_id="llm", model="m", idempotent=v),
    "model effect execute(input)": model_effect,
    "create_agent_step_effect(config)": lambda v: create_agent_step_effect(v, registry()),
    "create_agent_step_effect(host)": lambda v: create_agent_step_effect(config(), v),
    "create_agent_step_effect(tool_id)": lambda v: create_agent_step_effect(
        config(), registry(), tool_id=v),
    "agent_step effect execute(ctx)": lambda v: step_effect(v, "ctx"),
    "agent_step effect execute(input)": lambda v: step_effect(v, "input"),
    "agent_step effect execute({input})": lambda v: step_effect(v, "input.input"),
    "create_summarizer_effect(provider)": lambda v: create_summarizer_effect(
        v, tool_id="summarize", model="m"),
    "create_summarizer_effect(tool_id)": lambda v: create_summarizer_effect(
        ADAPTER, tool_id=v, model="m"),
    "create_summarizer_effect(model)": lambda v: create_summarizer_effect(
        ADAPTER, tool_id="summarize", model=v),
    "create_summarizer_effect(instructions)": lambda v: create_summarizer_effect(
        ADAPTER, tool_id="summarize", model="m", instructions=v),
    "summarizer execute(input)": summarizer,
    "render_transcript": lambda v: render_transcript(v),
    "render_transcript([v])": lambda v: render_transcript([v]),
    "render_transcript(tool-call arguments)": lambda v: render_transcript([{
        "role": "assistant", "content": [{"type": "tool-call", "id": "c", "name": "t",
                                          "arguments": v}]}]),
    # the conformance vector functions
    "VECTOR_FUNCTIONS": vectors,
}


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_a_bad_argument_is_a_loom_error_with_a_code(
    entry: str, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # nothing here should touch a file; if it does, not the repo's
    leaked = leaks(entry, ENTRY_POINTS[entry])
    assert not leaked, f"{entry} leaked internal exceptions:\n" + "\n".join(leaked)


def test_the_loop_runs_with_the_good_arguments_used_above() -> None:
    # the table's good arguments are good: each loop above fails only for its bad value
    assert loop().output["text"] == "done"
    assert loop(lambda: config(model_tool_id=None, router=ROUTER)).output["turns"] == 1
    assert step_effect({"input": "hi"}, "input")["text"] == "done"
    assert isinstance(InvalidArgument("x"), LoomError)


def test_values_that_failed_later_are_refused_where_they_are_given() -> None:
    # spec: errors.invalid-argument -- each of these was accepted and failed later (a router
    # without select, a non-str tool description, a negative turn), or failed with an
    # internal exception
    with pytest.raises(InvalidArgument):
        ReasoningRouter(routes=["llm"], select=None)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument):
        AgentTool(name="t", description=None)  # type: ignore[arg-type]
    failed = in_body(lambda ctx: ROUTER.reason(DecideSeam(ctx, -1), {}))  # in a body: journaled
    assert failed.error["code"] == "argument.invalid" and "turn" in failed.error["message"]
    with pytest.raises(InvalidArgument) as info:
        Compaction(tool_id="s", after_messages="3")  # type: ignore[arg-type]
    assert info.value.code == "argument.agent-compaction"  # its own code, not a TypeError
    with pytest.raises(ValueError) as fold:  # still a ValueError for callers that catch one
        Transcript([USER]).fold(2, USER)
    assert isinstance(fold.value, InvalidArgument)
    with pytest.raises(InvalidArgument) as surrogate:
        content_ref({"a": "\ud800"})
    assert surrogate.value.code == "argument.claim-check-value"
    # a dict has get() but is not a content store
    with pytest.raises(InvalidArgument):
        resolve_claim_check({}, ENVELOPE)  # type: ignore[arg-type]
    # the vector functions answer such inputs with a code instead of crashing
    for name, payload in [("agent.message_bytes", {"message": float("nan")}),
                          ("agent.tool_result_content", {"name": "t", "result": float("inf")}),
                          ("agent.content_ref", {"value": "\ud800"})]:
        with pytest.raises(InvalidArgument):
            VECTOR_FUNCTIONS[name](payload)
    # good arguments keep their answers
    assert compaction_plan([5, 5, 5], 15, after_messages=None, after_bytes=10,
                           keep_recent=8).to_json() == {
        "compact": True, "reason": "bytes", "keep": 1, "fold": 2, "skipped": False}
    assert kept_suffix_for_bytes([], 10, 1) == 0
    assert compose_system("", [], []) == ""
