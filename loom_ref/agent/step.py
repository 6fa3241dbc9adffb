"""``agent_step``: the cheap opaque form -- the whole loop inside ONE effect, ONE frame.

Spec: ``spec/agent.md`` § The opaque form; ADR 0087 D1: *"agentStep$ stays, and is not
deprecated. It is the cheap opaque form: one frame instead of 2N, for an agent that wants none
of the above. Adopters choose the cost."*

- ``agent.step-opaque``: ``agent_step(ctx, config, input)`` yields one ``execute`` of the
  ``agent_step`` effect (input ``{"input": input}``); the
  :class:`~loom_ref.effects.effect.Effect` built by :func:`create_agent_step_effect`
  (``agent.effect-forms``: either host hosts it) runs :func:`~loom_ref.agent.loop.agent_loop`
  to its answer inside the call. Its model and tool calls are *transient* calls through the
  given host (as the calling execution), and its decisions run their deciders in a
  ``DecideScope``; nothing of it is journaled except the step's input and answer. The loop sees
  what a runner body would: an inner call's failure as the ``StepFailedError`` a durable step
  raises, a decider's raise raised into it (``kernel.decider-throws``), so a failed model call
  is the loop's turn error here too (``agent.turn-error``).
- The trade-off, stated: one frame instead of ``2N`` journal events' worth of durability. A
  crash anywhere re-runs the whole loop (every model and tool call again, with no idempotency
  key), ``max_iterations`` is the only bound, no approval gate can park mid-loop, no decision
  is served on replay, and nothing reaches the durable stream. A config with
  ``needs_approval`` or ``stream_min_chars`` is refused when the effect is built
  (``argument.agent-step``): both need the runner body's context, which an effect does not
  have.
"""

from __future__ import annotations

import json
from collections.abc import Generator
from typing import Any

from loom_ref.agent.config import AgentLoopConfig
from loom_ref.agent.errors import AgentStepConfigError
from loom_ref.agent.loop import agent_loop
from loom_ref.effects.call import EffectCall, Mode
from loom_ref.effects.context import EffectContext
from loom_ref.effects.effect import Effect
from loom_ref.effects.scope import DecideScope, TransientHost
from loom_ref.errors import InvalidArgument
from loom_ref.kernel.commands import Choice, Decide, Execute
from loom_ref.kernel.context import ExecutionContext
from loom_ref.kernel.driver import error_json
from loom_ref.kernel.errors import StepFailedError
from loom_ref.signals import Signal

__all__ = ["AGENT_STEP_TOOL_ID", "AgentStepEffect", "agent_step", "create_agent_step_effect"]

AGENT_STEP_TOOL_ID = "agent_step"


def agent_step(ctx: ExecutionContext, config: AgentLoopConfig, input: Any, *,
               tool_id: str = AGENT_STEP_TOOL_ID, step_id: str | None = None
               ) -> Generator[Any, Any, Any]:
    """One frame: ``answer = yield from agent_step(ctx, config, input)`` (the effect under
    ``tool_id`` must be ``create_agent_step_effect(config, host)``). ``config`` is accepted
    for symmetry with :func:`agent_loop`; the effect holds the config it runs.
    (spec: agent.step-opaque)"""
    if not callable(getattr(ctx, "execute", None)):  # spec: errors.invalid-argument
        raise InvalidArgument(f"ctx must be an ExecutionContext, got {type(ctx).__name__}")
    if not isinstance(config, AgentLoopConfig):
        raise InvalidArgument(f"config must be an AgentLoopConfig, got {type(config).__name__}")
    return (yield ctx.execute(tool_id, {"input": input}, step_id=step_id))


def _roundtrip(value: Any) -> Any:
    return json.loads(json.dumps(value))


class AgentStepEffect:
    """The ``execute(ctx, input)`` of the ``agent_step`` effect: the loop inside one effect
    call (spec: agent.step-opaque)."""

    def __init__(self, config: AgentLoopConfig, host: TransientHost) -> None:
        if not isinstance(config, AgentLoopConfig):
            raise InvalidArgument("config must be an AgentLoopConfig")
        if not callable(getattr(host, "invoke_transient_call", None)):
            raise InvalidArgument("host must have invoke_transient_call(call) (an EffectHost)")
        if config.needs_approval is not None:  # spec: agent.step-opaque
            raise AgentStepConfigError("agent_step cannot park on an approval gate: use "
                                       "agent_loop in a runner body for needs_approval")
        if config.stream_min_chars is not None:
            raise AgentStepConfigError("agent_step cannot reach the durable stream: use "
                                       "agent_loop in a runner body for stream_min_chars")
        self.config = config
        self.host = host

    def __call__(self, ctx: EffectContext, payload: Any) -> Any:
        if not isinstance(ctx, EffectContext):  # spec: errors.invalid-argument
            raise InvalidArgument(f"the agent_step effect takes (ctx, input), got "
                                  f"{type(ctx).__name__}")
        if not isinstance(payload, dict) or set(payload) != {"input"}:  # spec: agent.step-input
            raise InvalidArgument("the agent_step input must be {input: ...}")
        principal = ctx.principal
        loop_ctx = ExecutionContext(principal)
        try:
            loop_input = _roundtrip(payload["input"])
        except (TypeError, ValueError) as exc:  # spec: errors.invalid-argument
            raise InvalidArgument(
                f"the agent_step input is not made of JSON values: {exc}") from None
        gen = agent_loop(loop_ctx, self.config, loop_input)
        send: Any = None
        throw: BaseException | None = None
        while True:
            try:
                cmd = gen.send(send) if throw is None else gen.throw(throw)
            except StopIteration as stop:
                return stop.value
            send, throw = None, None
            if isinstance(cmd, Execute):
                call = EffectCall(tool_id=cmd.tool_id, input=_roundtrip(cmd.input),
                                  mode=Mode.TRANSIENT, principal=principal,
                                  execution_id=ctx.execution_id, signal=ctx.signal)
                try:
                    send = _roundtrip(self.host.invoke_transient_call(call))
                except Exception as exc:  # the same error a durable step would raise
                    throw = StepFailedError(step_id=cmd.step_id,
                                            error=error_json(exc, "effect.failed"))
            else:  # the loop yields nothing else here: no gate, no stream (refused when built)
                send, throw = self._decide(cmd, principal, ctx.signal)

    def _decide(self, cmd: Decide, principal: str, signal: Signal
                ) -> tuple[Any, BaseException | None]:
        """A decision of the loop inside the call (skills, recall, a router): its decider runs
        in a ``DecideScope`` over the host; a throw goes back into the loop as the kernel
        raises it (kernel.decider-throws). Returns ``(send, throw)``."""
        assert isinstance(cmd, Decide), cmd
        try:
            with DecideScope(self.host, principal, execution_signal=signal) as scope:
                choice = cmd.decider(scope)
        except Exception as exc:
            return None, exc
        return _roundtrip(choice.value if isinstance(choice, Choice) else choice), None


def create_agent_step_effect(config: AgentLoopConfig, host: TransientHost, *,
                             tool_id: str = AGENT_STEP_TOOL_ID) -> Effect:
    """The ``agent_step`` effect, registered as ``tool_id``: the whole loop in one call, its
    inner calls through ``host`` (the same registry or runtime the kernel uses; spec:
    agent.step-opaque, agent.effect-forms)."""
    return Effect(tool_id=tool_id, execute=AgentStepEffect(config, host))
