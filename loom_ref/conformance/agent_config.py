"""The ``agent_loop`` instruction on loom_ref: a JSON loop config over the scripted world.

Rules (``conformance/INTERPRETING.md`` section 5a). ``{"op": "agent_loop", "config": {...},
"input": <expr>, "as"?: var}`` runs ``answer = yield from agent_loop(ctx, config, input)``
(``spec/agent.md``) with every collaborator taken from the case's scripted world, so a fresh
process after a crash gets the same answers by the world's invocation counts:

- ``modelToolId``: the model is an ordinary scripted effect; its script entries return
  assistant messages in the stream wire form (``spec/stream.md``). ``router: {routes,
  decider, elevate?}`` is the alternative: a ``ReasoningRouter`` whose selector and elevation
  predicate are the scripted deciders named; its model calls are transient calls of the
  route tools.
- ``tools: [{name, toolId?, description?, parameters?}]`` are scripted effects;
  ``compaction: {toolId, afterMessages?, afterBytes?, keepRecent?}`` names a scripted
  summarizer effect.
- ``needsApproval``: ``true`` (every call) or a list of tool names;
  ``approvalResumeSchema``: the schema every approval gate carries (``agent.approval-payload``).
- ``skills: {library: {name: instructions}, decider}``: the selector is the scripted decider;
  ``recall: {decider, recallLimit?}``: the scripted decider's answer is the memory's search
  result (the loop keeps at most ``recallLimit`` of it).
- ``system``, ``maxIterations``, ``maxToolCallsPerTurn``, ``warnTranscriptBytes`` (an int or
  ``false``), ``streamMinChars``: as in ``AgentLoopConfig``.

With ``opaque: true`` the instruction is the one-frame form instead, ``answer = yield from
agent_step(ctx, config, input)``: ONE durable step ``agent_step`` (input ``{"input"}``) whose
effect runs the whole loop inside the call, its model and tool calls transient calls of the
scripted world (``spec/agent.md`` 6.12). Such a config takes no skills, recall or router
(their deciders would run untraced inside the effect).

The config is built when the instruction runs (each drive of the body), so a config the loop
refuses (``agent.model-access``) fails the run before any turn. Every decision the loop takes
is traced as ``{"decider": {decisionId}}`` when its decider runs (never when replay serves
it); the loop's warnings are reported by code (the text before the first ``:``).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping
from typing import Any

from loom_ref.agent import (
    AGENT_STEP_TOOL_ID,
    AgentLoopConfig,
    AgentTool,
    Compaction,
    ReasoningRouter,
    Recall,
    Skills,
    agent_loop,
    agent_step,
    create_agent_step_effect,
)
from loom_ref.conformance.expressions import ScenarioBug
from loom_ref.conformance.world import World
from loom_ref.effects import Effect, EffectCall, EffectContext
from loom_ref.stream.blocks import ToolCallBlock

__all__ = ["AGENT_STEP_TOOL_ID", "CONFIG_KEYS", "OpaqueAgent", "build_config", "run_agent_loop"]

#: Members of an ``agent_loop`` config (INTERPRETING.md section 5a).
CONFIG_KEYS = frozenset({
    "modelToolId", "router", "system", "tools", "maxIterations", "maxToolCallsPerTurn",
    "needsApproval", "compaction", "warnTranscriptBytes", "skills", "recall", "streamMinChars",
    "approvalResumeSchema"})

_SIMPLE = {"modelToolId": "model_tool_id", "system": "system",
           "maxIterations": "max_iterations", "maxToolCallsPerTurn": "max_tool_calls_per_turn",
           "warnTranscriptBytes": "warn_transcript_bytes", "streamMinChars": "stream_min_chars",
           "approvalResumeSchema": "approval_resume_schema"}


class _TracedCtx:
    """The execution context as the loop sees it: decisions are traced when their decider
    runs; everything else is the runner's context unchanged."""

    def __init__(self, ctx: Any, world: World) -> None:
        self._ctx = ctx
        self._world = world
        self.execution_id = ctx.execution_id

    def execute(self, *args: Any, **kwargs: Any) -> Any:
        return self._ctx.execute(*args, **kwargs)

    def suspend(self, *args: Any, **kwargs: Any) -> Any:
        return self._ctx.suspend(*args, **kwargs)

    def stream(self, data: Any) -> Any:
        return self._ctx.stream(data)

    def decide(self, decision_id: str, decider: Callable[[Any], Any], **kwargs: Any) -> Any:
        world = self._world

        def traced(scope: Any) -> Any:
            world.trace_decider(decision_id)
            return decider(scope)

        return self._ctx.decide(decision_id, traced, **kwargs)


def _scripted(world: World, name: Any, choice: Callable[..., Any]) -> Callable[[Any], Any]:
    """The next answer of scripted decider ``name`` (a ``Choice`` when it has a policy)."""
    if not isinstance(name, str):
        raise ScenarioBug(f"a decider name must be a string, got {name!r}")

    def answer(scope: Any) -> Any:
        got = world.answer(name, lambda tool, value: scope.invoke_transient(tool, value))
        if got.policy is None:
            return got.value
        return choice(value=got.value, policy_id=got.policy, propensity=got.propensity)

    return answer


class _ScriptedMemory:
    """A memory whose search result is a scripted decider's answer."""

    def __init__(self, answer: Callable[[Any], Any]) -> None:
        self.answer = answer

    def search(self, scope: Any, query: str, limit: int) -> Any:
        return self.answer(scope)


def _obj(value: Any, what: str, keys: set[str]) -> Mapping[str, Any]:
    if not isinstance(value, Mapping) or not set(value) <= keys:
        raise ScenarioBug(f"{what} must be an object with members among {sorted(keys)}, "
                          f"got {value!r}")
    return value


def build_config(spec: Any, world: World, on_warn: Callable[[str], None]) -> AgentLoopConfig:
    """An ``AgentLoopConfig`` from the JSON ``spec`` (module rules). Mistakes of the case are
    ``ScenarioBug``; what the loop itself refuses raises the loop's own error."""
    from loom_ref.kernel import Choice

    spec = _obj(spec, "an agent_loop config", set(CONFIG_KEYS))
    kwargs: dict[str, Any] = {_SIMPLE[k]: v for k, v in spec.items() if k in _SIMPLE}
    kwargs["on_warn"] = on_warn
    if "router" in spec:
        r = _obj(spec["router"], "router", {"routes", "decider", "elevate"})
        elevate = _scripted(world, r["elevate"], Choice) if "elevate" in r else None
        select = _scripted(world, r.get("decider"), Choice)
        kwargs["router"] = ReasoningRouter(
            routes=r.get("routes"), select=lambda scope, request: select(scope),
            elevate=None if elevate is None else (lambda scope, message, route: elevate(scope)))
    if "tools" in spec:
        tools = []
        for t in spec["tools"]:
            t = _obj(t, "a tool", {"name", "toolId", "description", "parameters"})
            extra = {"tool_id": t["toolId"]} if "toolId" in t else {}
            tools.append(AgentTool(name=t.get("name", ""), description=t.get("description", ""),
                                   parameters=t.get("parameters", {}), **extra))
        kwargs["tools"] = tools
    if "needsApproval" in spec:
        rule = spec["needsApproval"]
        if rule is True:
            kwargs["needs_approval"] = lambda call, turn: True
        elif isinstance(rule, list) and all(isinstance(n, str) for n in rule):
            names = frozenset(rule)
            kwargs["needs_approval"] = lambda call, turn: _named(call, names)
        elif rule is not False:
            raise ScenarioBug(f"needsApproval must be true, false or tool names, got {rule!r}")
    if "compaction" in spec:
        c = _obj(spec["compaction"], "compaction",
                 {"toolId", "afterMessages", "afterBytes", "keepRecent"})
        extra = {"keep_recent": c["keepRecent"]} if "keepRecent" in c else {}
        kwargs["compaction"] = Compaction(tool_id=c.get("toolId", ""),
                                          after_messages=c.get("afterMessages"),
                                          after_bytes=c.get("afterBytes"), **extra)
    if "skills" in spec:
        s = _obj(spec["skills"], "skills", {"library", "decider"})
        select = _scripted(world, s.get("decider"), Choice)
        kwargs["skills"] = Skills(library=s.get("library", {}),
                                  select=lambda scope, query: select(scope))
    if "recall" in spec:
        m = _obj(spec["recall"], "recall", {"decider", "recallLimit"})
        memory = _ScriptedMemory(_scripted(world, m.get("decider"), Choice))
        extra = {"recall_limit": m["recallLimit"]} if "recallLimit" in m else {}
        kwargs["recall"] = Recall(memory=memory, **extra)
    return AgentLoopConfig(**kwargs)


def _named(call: ToolCallBlock, names: frozenset[str]) -> bool:
    return call.name in names


class OpaqueAgent:
    """The ``agent_step`` effect of a scenario (``opaque: true``): the config is the one the
    body's instruction built in this drive, the host the action's effect registry, so the
    loop's model and tool calls are transient calls of the scripted world."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.effect: Effect | None = None
        self.host: Any = self

    def invoke_transient_call(self, call: EffectCall) -> Any:
        """The host before any action built one: never called (a replay serves the step)."""
        raise ScenarioBug("no effect host for agent_step")

    def build(self, config: AgentLoopConfig) -> None:
        """The effect of this drive; refuses a config the opaque form cannot run
        (``argument.agent-step``), in the body, before the step."""
        self.effect = create_agent_step_effect(config, self.host)

    def execute(self, ctx: EffectContext, input: Any) -> Any:
        """The durable call of ``agent_step``: traced, then the whole loop inside it."""
        self.world.record_call(ctx.tool_id, input, step_id=ctx.call.step_id or "",
                               idempotency_key=ctx.idempotency_key or "")
        if self.effect is None:
            raise ScenarioBug("agent_step was called, but no opaque agent_loop ran")
        return self.effect.execute(ctx, input)


def run_agent_loop(ctx: Any, spec: Any, input: Any, world: World,
                   on_warn: Callable[[str], None], *, opaque: OpaqueAgent | None = None
                   ) -> Generator[Any, Any, Any]:
    """The body of an ``agent_loop`` instruction (module rules)."""
    config = build_config(spec, world, on_warn)
    if opaque is not None:  # spec: agent.step-opaque -- one frame
        if any(k in spec for k in ("skills", "recall", "router")):
            raise ScenarioBug("an opaque agent_loop takes no skills, recall or router")
        opaque.build(config)
        return (yield from agent_step(ctx, config, input))
    return (yield from agent_loop(_TracedCtx(ctx, world), config, input))  # type: ignore[arg-type]
