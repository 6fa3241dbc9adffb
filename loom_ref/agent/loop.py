"""``agent_loop``: the ReAct loop as an ordinary generator over the execution context.

Spec: ``spec/agent.md``; ADR 0087 D1: *"agentLoop$(ctx, config, input) is an ordinary function
over ExecutionContext. Called FROM a runner body, issuing ctx.execute per turn. Not a step,
not a builder, not a new seam"*. Use it as ``answer = yield from agent_loop(ctx, config,
input)``. A run, in order:

1. ``agent.loop-input``: the input is a prompt string (one user text message) or
   ``{"messages": [wire messages]}`` (at least one).
2. Skills (``#skills``) and recall (``#recall``) decisions, when configured
   (``agent.skills``, ``agent.recall``), build the system prompt (``agent.system-prompt``).
3. For turn ``i = 0, 1, ...`` below ``max_iterations`` (``agent.max-iterations``):

   a. compaction, when configured and triggered: the recorded step ``#turn:<i>:compact``
      (``agent.compaction-step``);
   b. ``agent.turn-step``: the model call, the step ``#turn:<i>`` with input ``{"messages",
      "tools", "system"}`` (one ``execute`` per turn, ADR 0087 D1/D3), or the router's
      recorded decisions (``agent.router``). Its output must be an assistant message
      (``agent.model-response``) and not a claim-check envelope
      (``agent.claim-check-not-model``); it is appended to the transcript. A model call that
      failed with ``effect.llm-error`` / ``effect.llm-aborted`` (the step's journaled
      ``STEP_FAILED``, or the routed decider's raise) ends the run with the turn error
      ``agent.turn-error`` / ``agent.turn-aborted`` (``agent.turn-error``, seed 001: "The
      agent loop translates a finish-error/aborted into a turn error -- it never logs a
      normal completed assistant message for a failed step"); so does the compaction step;
   c. with ``stream_min_chars`` set, the turn's text is appended to the durable stream in
      sentence batches (``agent.stream-text``, through ``chunk_deltas``);
   c'. a reply cut at the output-token ceiling (its ``finish`` is ``max-tokens``,
      ``deltas.llm-output-finish``) runs none of its tool calls: the message enters the
      transcript without them, then the notice :data:`MAX_TOKENS_NOTICE` as a user message,
      and the loop goes on to the next turn (``agent.max-tokens-turn``);
   d. no tool call in the message: the run's answer is ``{"text", "message", "turns"}``;
   e. else, for tool call ``j`` in message order: an approval gate if asked
      (``agent.approval-gate``), then the step ``#turn:<i>:tool:<j>``
      (``agent.identity``); all the turn's results go into one ``tool`` message.

``agent.warn-transcript``: with no compaction configured, the loop warns once per drive of the
body when the transcript's byte count first exceeds ``warn_transcript_bytes`` (ADR 0087
amendment 2026-10-31: "warns once per run"). The warning is a diagnostic, never journaled:
a recovered or resumed execution drives the body again and may warn again.

Everything the loop computes -- ids, the transcript, the compaction plan -- is a function of
the input and of values the kernel served, so a replay rebuilds it exactly
(``agent.compaction-pure``, ``kernel.step-identity``).
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from typing import Any

from loom_ref.agent.approval import read_approval
from loom_ref.agent.canonical import canonical_json
from loom_ref.agent.choices import compose_system, recall, select_skills
from loom_ref.agent.chunk_deltas import chunk_deltas
from loom_ref.agent.claim_check import CLAIM_CHECK_CONFIG_FIELD, is_claim_check_envelope
from loom_ref.agent.compaction import Compaction, compaction_plan
from loom_ref.agent.config import AgentLoopConfig
from loom_ref.agent.errors import (
    ClaimCheckedOutputError,
    CompactionOutputError,
    MaxIterationsError,
    ModelResponseError,
    ModelTurnError,
)
from loom_ref.agent.identity import compact_step_id, tool_step_id, turn_step_id
from loom_ref.agent.router import DecideSeam
from loom_ref.agent.tools import (
    TOOL_ARGUMENTS,
    TOOL_CALL_LIMIT,
    UNKNOWN_TOOL,
    refusal_content,
    tool_error_content,
    tool_result_content,
)
from loom_ref.agent.transcript import Transcript
from loom_ref.effects.collect import LLM_ABORTED, LLM_ERROR
from loom_ref.effects.llm_effect import llm_output_from_json
from loom_ref.errors import InvalidArgument, LoomError, warn
from loom_ref.journal.codec import parse_json
from loom_ref.kernel.context import ExecutionContext
from loom_ref.kernel.errors import StepFailedError
from loom_ref.stream.blocks import Message, Role, TextBlock, ToolCallBlock, ToolResultBlock
from loom_ref.stream.errors import WireError
from loom_ref.stream.finish import FinishKind
from loom_ref.stream.wire import block_to_json, message_from_json, message_to_json

__all__ = ["MAX_TOKENS_NOTICE", "SUMMARY_PREFIX", "TRANSCRIPT_WARNING", "TURN_ABORTED",
           "TURN_ERROR", "agent_loop", "initial_messages", "max_tokens_notice", "summary_message"]

#: spec: agent.summary-message -- the text that introduces a compaction summary.
SUMMARY_PREFIX = "Summary of the earlier conversation:\n"

#: spec: agent.max-tokens-turn -- what the model reads after a reply cut at the token ceiling.
MAX_TOKENS_NOTICE = (
    "Your previous reply reached the output-token limit and was cut off, so none of its tool "
    "calls was run. Continue from where it stopped, in shorter steps, and make again any tool "
    "call you still need."
)

#: spec: agent.warn-transcript -- the stable code the transcript warning starts with.
TRANSCRIPT_WARNING = "agent.transcript-bytes"
TURN_ERROR = "agent.turn-error"
TURN_ABORTED = "agent.turn-aborted"
#: spec: agent.turn-error -- the model call's failure code -> the loop's turn error code.
_TURN_CODES = {LLM_ERROR: TURN_ERROR, LLM_ABORTED: TURN_ABORTED}


def initial_messages(input: Any) -> list[Any]:
    """The transcript a run starts from (spec: agent.loop-input)."""
    if isinstance(input, str):
        return [{"role": "user", "content": [{"type": "text", "text": input}]}]
    if isinstance(input, Mapping) and set(input) == {"messages"}:
        raw = input["messages"]
        if isinstance(raw, list) and raw:
            try:
                return [message_to_json(message_from_json(m, f"$.messages[{i}]"))
                        for i, m in enumerate(raw)]
            except WireError as exc:
                raise InvalidArgument(f"malformed agent input: {exc.message}",
                                      code="argument.agent-input") from None
    raise InvalidArgument("the agent input must be a prompt string or {messages: [...]} with "
                          "at least one message", code="argument.agent-input")


def summary_message(summary: str) -> dict[str, Any]:
    """The message a compaction puts in place of the folded ones (spec: agent.summary-message):
    a user text message ``SUMMARY_PREFIX + summary``."""
    if not isinstance(summary, str):  # spec: errors.invalid-argument
        raise InvalidArgument(f"a summary is a str, got {type(summary).__name__}")
    return {"role": "user", "content": [{"type": "text", "text": SUMMARY_PREFIX + summary}]}


def max_tokens_notice() -> dict[str, Any]:
    """The user message that follows a ``max-tokens`` turn (spec: agent.max-tokens-turn)."""
    return {"role": "user", "content": [{"type": "text", "text": MAX_TOKENS_NOTICE}]}


def _query(messages: list[Any]) -> str:
    for message in reversed(messages):
        if message["role"] == "user":
            return "\n".join(b["text"] for b in message["content"] if b["type"] == "text")
    return ""


def _text(message: Message) -> str:
    return "".join(b.text for b in message.content if isinstance(b, TextBlock))


def _not_envelope(value: Any, what: str, tool_id: str) -> None:
    # spec: agent.claim-check-not-model
    if is_claim_check_envelope(value):
        raise ClaimCheckedOutputError(
            f"the {what} {tool_id!r} returned a claim-check envelope; the loop needs its "
            f"result in full: remove {tool_id!r} from {CLAIM_CHECK_CONFIG_FIELD} (the seed's "
            "execution.claimCheck.toolIds)", tool_id=tool_id)


def _assistant(raw: Any, tool_id: str) -> tuple[Message, bool]:
    """The model response's message, and whether it was cut at the output-token ceiling
    (spec: agent.model-response, deltas.llm-output-finish)."""
    _not_envelope(raw, "model step", tool_id)
    try:
        message, finish = llm_output_from_json(raw)
    except WireError as exc:  # spec: agent.model-response
        raise ModelResponseError(f"the model step {tool_id!r} did not return a message: "
                                 f"{exc.message}", tool_id=tool_id) from None
    if message.role is not Role.ASSISTANT:
        raise ModelResponseError(f"the model step {tool_id!r} returned a "
                                 f"{message.role.value} message, not an assistant message",
                                 tool_id=tool_id)
    if finish is not None and finish.failed:  # a failed stream is never an output
        raise ModelResponseError(f"the model step {tool_id!r} returned a message with finish "
                                 f"{finish.kind.value}", tool_id=tool_id)
    return message, finish is not None and finish.kind is FinishKind.MAX_TOKENS


def _model_call(step: str, call: Generator[Any, Any, Any]) -> Generator[Any, Any, Any]:
    """Drive ``call`` (a model or compaction call); a failed model stream becomes the turn
    error (spec: agent.turn-error). ``step`` names the step or decisions, for the message.

    The failure is recognised by its code, whatever raised it: the ``StepFailedError`` of a
    durable step, or whatever a routed call's decider raised (``LlmStreamFailed`` from
    ``create_llm_effect``, or any other implementation's error with that code)."""
    try:
        return (yield from call)
    except LoomError as exc:
        code = _TURN_CODES.get(exc.code)
        if code is None:
            raise
        raise ModelTurnError(f"the model call {step!r} failed: {exc.code}: {exc.message}",
                             code=code, step=step, cause=exc.to_json()) from exc


def _check_context(ctx: object, *methods: str) -> None:
    """spec: errors.invalid-argument -- ``ctx`` is the runner body's execution context (or a
    wrapper of it): it has an ``execution_id`` and the command builders the caller uses."""
    if not hasattr(ctx, "execution_id") or not all(
            callable(getattr(ctx, name, None)) for name in methods):
        raise InvalidArgument(f"ctx must be an ExecutionContext, got {type(ctx).__name__}")


def _one(cmd: Any) -> Generator[Any, Any, Any]:
    return (yield cmd)


class _Warner:
    """spec: agent.warn-transcript -- once per drive, uncompacted transcripts only."""

    __slots__ = ("done", "limit", "on_warn", "where")

    def __init__(self, config: AgentLoopConfig, where: str) -> None:
        limit = config.warn_transcript_bytes
        self.limit = 0 if limit is False or config.compaction is not None else limit
        self.on_warn = config.on_warn
        self.where = where
        self.done = False

    def check(self, transcript: Transcript) -> None:
        if self.done or not self.limit or transcript.bytes <= self.limit:
            return
        self.done = True
        message = (
            f"{TRANSCRIPT_WARNING}: the transcript of {self.where!r} is {transcript.bytes} "
            f"bytes, over warn_transcript_bytes={self.limit}; every turn journals it whole, so "
            "the journal grows with the square of the turns: configure "
            "compaction=Compaction(after_bytes=...) or set warn_transcript_bytes=False")
        if self.on_warn is not None:
            self.on_warn(message)
        else:
            warn(message, stacklevel=5)


def _compact(ctx: ExecutionContext, comp: Compaction, transcript: Transcript, turn: int
             ) -> Generator[Any, Any, None]:
    """spec: agent.compaction-step -- the summary is its own recorded ``:compact`` step."""
    plan = compaction_plan(transcript.sizes, transcript.bytes,
                           after_messages=comp.after_messages, after_bytes=comp.after_bytes,
                           keep_recent=comp.keep_recent)
    if not plan.compact:
        return
    folded = transcript.messages[: plan.fold]
    step_id = compact_step_id(turn)
    out = yield from _model_call(step_id, _one(ctx.execute(comp.tool_id, {"messages": folded},
                                                           step_id=step_id)))
    _not_envelope(out, "compaction tool", comp.tool_id)
    if isinstance(out, Mapping) and set(out) == {"summary"} and isinstance(out["summary"], str):
        summary = out["summary"]
    elif isinstance(out, str):
        summary = out
    else:  # spec: agent.compaction-output
        raise CompactionOutputError(
            f"the compaction tool {comp.tool_id!r} must return {{summary: str}}, got {out!r}"[:300],
            tool_id=comp.tool_id)
    transcript.fold(plan.fold, summary_message(summary))


def _run_tool(ctx: ExecutionContext, config: AgentLoopConfig, turn: int, j: int,
              call: ToolCallBlock) -> Generator[Any, Any, ToolResultBlock]:
    """One tool call of a turn: checks, the approval gate, the step (spec: agent.tool-error,
    agent.tool-refusal, agent.approval-gate)."""
    name = call.name

    def error(code: str, message: str) -> ToolResultBlock:
        return ToolResultBlock(call_id=call.id, content=tool_error_content(name, code, message),
                               is_error=True)

    if j >= config.max_tool_calls_per_turn:
        return error(TOOL_CALL_LIMIT, f"more than {config.max_tool_calls_per_turn} tool calls "
                     "in one turn; this one was not run")
    tool = config.tool(name)
    if tool is None:
        return error(UNKNOWN_TOOL, f"there is no tool named {canonical_json(name)}")
    raw = call.arguments
    try:  # spec: journal.json-values -- the arguments will be journaled as the step's input
        args = parse_json(raw) if isinstance(raw, str) and raw.strip() else (
            {} if isinstance(raw, str) else None)
    except ValueError:
        return error(TOOL_ARGUMENTS, "arguments are not valid JSON")
    if not isinstance(args, dict):
        return error(TOOL_ARGUMENTS, "arguments must be a JSON object")
    step_id = tool_step_id(turn, j)  # spec: agent.identity
    if config.needs_approval is not None and config.needs_approval(call, turn):
        # spec: agent.approval-gate -- park BEFORE the effect runs
        typed = ({} if config.approval_resume_schema is None  # spec: agent.approval-payload
                 else {"resume_schema": config.approval_resume_schema})
        payload = yield ctx.suspend(config.approval_gate(step_id), on=config.approval_on,
                                    correlation_key=step_id, **typed)
        approved, reason = read_approval(payload)
        if not approved:  # spec: agent.tool-refusal -- a refusal is data
            return ToolResultBlock(call_id=call.id, content=refusal_content(name, reason))
    try:
        result = yield ctx.execute(tool.tool_id, args, step_id=step_id)
    except StepFailedError as exc:  # spec: agent.tool-error -- the journaled code and
        return error(exc.code, exc.message)  # message as they are (kernel.step-failure)
    return ToolResultBlock(call_id=call.id, content=tool_result_content(name, result))


def agent_loop(ctx: ExecutionContext, config: AgentLoopConfig, input: Any
               ) -> Generator[Any, Any, dict[str, Any]]:
    """Run the agent loop inside a runner body (see the module rules).

    spec: agent.loop-body -- an ordinary generator over the execution context: every command
    it yields is one the body could yield itself (``execute``, ``decide``, ``suspend``,
    ``stream``); no new command, event kind or payload field."""
    _check_context(ctx, "execute", "decide", "suspend", "stream")
    if not isinstance(config, AgentLoopConfig):
        raise InvalidArgument(f"config must be an AgentLoopConfig, got {type(config).__name__}")
    transcript = Transcript(initial_messages(input))
    query = _query(transcript.messages)
    skills: list[tuple[str, str]] = []
    if config.skills is not None:
        names = yield from select_skills(ctx.decide, config.skills, query)
        skills = [(n, config.skills.library[n]) for n in names]
    memories: list[str] = []
    if config.recall is not None:
        memories = yield from recall(decide=ctx.decide, memory=config.recall.memory,
                                     query=query, recall_limit=config.recall.recall_limit)
    system = compose_system(config.system, skills, memories)
    tools = [t.to_json() for t in config.tools]
    warner = _Warner(config, ctx.execution_id)
    warner.check(transcript)
    for turn in range(config.max_iterations):
        if config.compaction is not None:
            yield from _compact(ctx, config.compaction, transcript, turn)
        request = {"messages": transcript.snapshot(), "tools": tools, "system": system}
        if config.model_tool_id is not None:  # spec: agent.turn-step
            step_id = turn_step_id(turn)
            raw = yield from _model_call(step_id, _one(ctx.execute(
                config.model_tool_id, request, step_id=step_id)))
            message, truncated = _assistant(raw, config.model_tool_id)
        else:
            assert config.router is not None
            raw = yield from _model_call(turn_step_id(turn), config.router.reason(
                DecideSeam(ctx, turn), request))
            message, truncated = _assistant(raw, "router")
        if truncated:  # spec: agent.max-tokens-turn -- no tool call of it ever runs
            message = Message(role=Role.ASSISTANT, content=[
                b for b in message.content if not isinstance(b, ToolCallBlock)])
        message_json = message_to_json(message)
        if message.content or not truncated:
            transcript.push(message_json)
        if truncated:
            transcript.push(max_tokens_notice())
        warner.check(transcript)
        text = _text(message)
        if config.stream_min_chars is not None and text:  # spec: agent.stream-text
            batches: list[str] = []
            chunker = chunk_deltas(batches.append, min_chars=config.stream_min_chars)
            chunker.push(text)
            chunker.flush()
            for batch in batches:
                yield ctx.stream({"turn": turn, "text": batch})
        if truncated:
            continue  # spec: agent.max-tokens-turn -- never the answer, never a tool call
        calls = [b for b in message.content if isinstance(b, ToolCallBlock)]
        if not calls:
            return {"text": text, "message": message_json, "turns": turn + 1}  # spec: agent.answer
        results = []
        for j, call in enumerate(calls):
            block = yield from _run_tool(ctx, config, turn, j, call)
            results.append(block_to_json(block))
        transcript.push({"role": "tool", "content": results})
        warner.check(transcript)
    raise MaxIterationsError(  # spec: agent.max-iterations
        f"no final answer after max_iterations={config.max_iterations} turns",
        max_iterations=config.max_iterations)
