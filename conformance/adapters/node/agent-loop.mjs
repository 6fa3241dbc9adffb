// The durable agent loop (spec/agent.md 6.1-6.3, 6.5-6.10, 6.12) as the body instruction
// `agent_loop` (conformance/INTERPRETING.md section 5a), over the kernel's execution context.
// Written from the spec text; it reuses the agent chapter's pure pieces (agent.mjs: canonical
// JSON, the compaction plan, tool-result content, the delta chunker; agent-model.mjs: the wire
// message decoder) and shares no code with loom_ref. No npm dependencies.
//
// Rules (spec/agent.md):
// - The loop is an ordinary body generator (#agent.loop-body): one `ctx.execute` per model
//   turn and per tool call, `ctx.suspend` for approval, `ctx.decide` for skills, recall and a
//   routed turn, `ctx.stream` for batched text. Its ids come from logged inputs only
//   (#agent.identity): `#turn:<i>`, `#turn:<i>:tool:<j>`, `#turn:<i>:compact`,
//   `<step id>:approval`, `#turn:<i>:route|call:<k>|elevate:<k>`, `#skills`, `#recall`.
// - The config is built each time the instruction runs: exactly one model access
//   (#agent.model-access), a compaction block that passes its guard (#agent.compaction-guard),
//   fields of the right shape (#agent.config-guard); what it refuses fails the run before any
//   turn.
// - A failed model (or compaction) call with effect.llm-error / effect.llm-aborted is the
//   turn error agent.turn-error / agent.turn-aborted (#agent.turn-error); any other failure
//   passes through unchanged.
// - A tool call that cannot or did not run is an error result the model sees; the loop goes
//   on (#agent.tool-error). Its message is journaled with the next turn's input, so the
//   loop's own messages are the spec's, word for word (an unknown name in canonical JSON).
//   A declined approval is an ordinary result (#agent.tool-refusal). A turn cut at the
//   output-token ceiling (its response's finish is max-tokens) runs no tool call: the model
//   sees its reply without the calls, then the notice, and the loop goes on
//   (#agent.max-tokens-turn).
// - The opaque form (#agent.step-opaque) runs the same loop inside ONE durable step
//   `agent_step`, its model and tool calls transient calls of the scripted world.

import { LoomError, allJsonValues, checkSchema } from "./journal.mjs";
import { Ctx } from "./kernel.mjs";
import {
  WHITESPACE, canonicalJson, chunkDeltas, compactionPlan, compareCodePoints, toolResultContent,
  utf8Length,
} from "./agent.mjs";
import { decodeMessage } from "./agent-model.mjs";
import { decodeReason } from "./stream.mjs";

const jsonType = (v) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
const isObject = (v) => jsonType(v) === "object";
const copy = (v) => (v === undefined ? null : JSON.parse(JSON.stringify(v)));
const fail = (code, message, details = {}) => new LoomError(code, message, details);
/** A config the case cannot mean (not a refusal of the loop's): the case is broken. */
const broken = (message) => new Error(`agent_loop: ${message}`);
const textOf = (message) => message.content.filter((b) => b.type === "text").map((b) => b.text).join("");
const isInt = (v, min) => Number.isInteger(v) && v >= min;
// JSON truthiness (INTERPRETING.md section 5): false, null, 0, "", [] and {} are false
const truthy = (v) => !(v === false || v === null || v === 0 || v === "" ||
  (Array.isArray(v) && !v.length) || (isObject(v) && !Object.keys(v).length));

// -- the config (INTERPRETING.md section 5a) -----------------------------------------------
const CONFIG_MEMBERS = ["modelToolId", "router", "system", "tools", "maxIterations",
  "maxToolCallsPerTurn", "needsApproval", "compaction", "warnTranscriptBytes", "skills", "recall",
  "streamMinChars", "approvalResumeSchema"];
const DEFAULT_REASON = "declined by the approver"; // spec: agent.approval-payload
const APPROVAL_ON = "AgentToolApproval"; // spec: agent.approval-gate

const nonEmpty = (v) => typeof v === "string" && v.length > 0;

/**
 * Builds the loop's config. What the loop refuses is a LoomError (spec: agent.model-access,
 * agent.compaction-guard, agent.config-guard: argument.invalid for a field of the wrong
 * shape); what the body language cannot express is a broken case (a plain Error).
 */
export function buildConfig(raw) {
  if (!isObject(raw)) throw broken("config is an object");
  const unknown = Object.keys(raw).filter((k) => !CONFIG_MEMBERS.includes(k));
  if (unknown.length) throw broken(`unknown config member(s) ${unknown.join(", ")}`);
  const bad = (message) => fail("argument.invalid", message);
  // spec: agent.model-access — exactly one of modelToolId (a non-empty string) and router.
  if (raw.modelToolId !== undefined && !nonEmpty(raw.modelToolId)) {
    throw fail("argument.agent-model-access", "modelToolId must be a non-empty string");
  }
  if ((raw.modelToolId === undefined) === (raw.router === undefined)) {
    throw fail("argument.agent-model-access", "an agent config needs exactly one of modelToolId and router");
  }
  const needs = raw.needsApproval ?? false;
  if (!(typeof needs === "boolean" || (Array.isArray(needs) && needs.every(nonEmpty)))) {
    throw broken("needsApproval is true, false or a list of tool names");
  }
  const cfg = {
    modelToolId: raw.modelToolId ?? null,
    router: raw.router ?? null,
    system: raw.system ?? "",
    maxIterations: raw.maxIterations ?? 25,
    maxToolCallsPerTurn: raw.maxToolCallsPerTurn ?? 16,
    needsApproval: needs,
    warnTranscriptBytes: raw.warnTranscriptBytes ?? 262144,
    skills: raw.skills ?? null,
    recall: raw.recall ? { recallLimit: 5, ...raw.recall } : null,
    streamMinChars: raw.streamMinChars ?? null,
    approvalResumeSchema: raw.approvalResumeSchema ?? null,
    compaction: null,
  };
  // spec: agent.config-guard
  if (typeof cfg.system !== "string") throw bad("system must be a string");
  for (const k of ["maxIterations", "maxToolCallsPerTurn"]) if (!isInt(cfg[k], 1)) throw bad(`${k} must be an int >= 1`);
  if (cfg.streamMinChars !== null && !isInt(cfg.streamMinChars, 1)) throw bad("streamMinChars must be an int >= 1");
  // spec: agent.approval-payload — a schema the kernel's subset refuses: argument.schema, when built
  if (cfg.approvalResumeSchema !== null) checkSchema(cfg.approvalResumeSchema, "approvalResumeSchema");
  if (cfg.warnTranscriptBytes !== false && !isInt(cfg.warnTranscriptBytes, 1)) {
    throw bad("warnTranscriptBytes must be an int >= 1 or false");
  }
  if (!Array.isArray(raw.tools ?? [])) throw broken("tools is a list");
  cfg.tools = (raw.tools ?? []).map((t) => {
    if (!isObject(t)) throw broken("a tool is an object");
    // a description given (null too) is a string; only an absent one is ""
    const tool = { name: t.name, toolId: t.toolId ?? t.name, description: t.description === undefined ? "" : t.description, parameters: t.parameters ?? {} };
    if (!nonEmpty(tool.name) || !nonEmpty(tool.toolId)) throw bad("a tool's name and toolId are non-empty strings");
    if (typeof tool.description !== "string") throw bad("a tool's description is a string");
    if (!isObject(tool.parameters)) throw bad("a tool's parameters are a JSON Schema object");
    return tool;
  });
  cfg.toolsByName = new Map(cfg.tools.map((t) => [t.name, t]));
  if (cfg.toolsByName.size !== cfg.tools.length) throw bad("tool names must be unique");
  if (raw.compaction !== undefined) {
    const { toolId, ...thresholds } = raw.compaction;
    // spec: agent.compaction-guard — checked when built (toolId included)
    if (!nonEmpty(toolId)) throw fail("argument.agent-compaction", "compaction needs a toolId");
    compactionPlan([], thresholds);
    cfg.compaction = { toolId, ...thresholds };
  }
  if (cfg.router) {
    const { routes } = cfg.router;
    if (!Array.isArray(routes) || !routes.length || !routes.every(nonEmpty)) {
      throw bad("routes must be non-empty tool ids (at least one)");
    }
    if (new Set(routes).size !== routes.length) throw bad("routes must be distinct");
  }
  if (cfg.skills) {
    const { library } = cfg.skills;
    if (!isObject(library) || !Object.entries(library).every(([k, v]) => k && typeof v === "string")) {
      throw bad("the skills library maps skill names to instruction strings");
    }
  }
  if (cfg.recall && !isInt(cfg.recall.recallLimit, 1)) throw bad("recallLimit must be an int >= 1");
  return cfg;
}

/** spec: agent.approval-gate — needsApproval(toolCall, turn): `true`, or a list of tool names. */
const needsApproval = (cfg, call) =>
  cfg.needsApproval === true || (Array.isArray(cfg.needsApproval) && cfg.needsApproval.includes(call.name));

// -- the transcript (spec/agent.md 6.1, 6.8) -----------------------------------------------
/** spec: agent.loop-input — a prompt string, or {messages: [wire messages]} with at least one. */
function inputMessages(input) {
  if (typeof input === "string") return [{ role: "user", content: [{ type: "text", text: input }] }];
  const bad = (why) => fail("argument.agent-input", `the agent loop's input ${why}`);
  if (!isObject(input) || Object.keys(input).join() !== "messages") {
    throw bad("is a prompt string or {messages: [...]}");
  }
  if (!Array.isArray(input.messages) || !input.messages.length) throw bad("has at least one message");
  // spec: agent.loop-input — the messages enter the transcript as the wire form writes them
  // (re-encoded: isError false left out)
  return input.messages.map((m, i) => {
    try {
      return decodeMessage(m, `$.messages[${i}]`);
    } catch (e) {
      if (e instanceof LoomError) throw bad(`holds a malformed message: ${e.message}`);
      throw e;
    }
  });
}

/**
 * The messages and their running byte count (spec: agent.byte-count): each push measures the
 * pushed message alone; a fold subtracts the folded sizes and adds the summary's.
 */
class Transcript {
  constructor(cfg, warn) {
    Object.assign(this, { messages: [], sizes: [], bytes: 0, warned: false, warn });
    // spec: agent.warn-transcript — only without compaction; `false` disables it.
    this.warnAt = cfg.compaction || cfg.warnTranscriptBytes === false ? null : cfg.warnTranscriptBytes;
  }
  push(message) {
    const size = utf8Length(canonicalJson(message));
    this.messages.push(message);
    this.sizes.push(size);
    this.bytes += size;
    // once per drive of the body, when the count first exceeds the bound (never journaled)
    if (this.warnAt !== null && !this.warned && this.bytes > this.warnAt) {
      this.warned = true;
      this.warn(`agent.transcript-bytes: the transcript is ${this.bytes} bytes, over ${this.warnAt}; ` +
        "configure compaction to bound it");
    }
  }
  fold(count, summary) {
    const size = utf8Length(canonicalJson(summary));
    this.bytes += size - this.sizes.slice(0, count).reduce((s, n) => s + n, 0);
    this.messages.splice(0, count, summary);
    this.sizes.splice(0, count, size);
  }
}

// -- model turns (spec/agent.md 6.3, 6.4, 6.11) --------------------------------------------
const LLM_TURN_CODES = { "effect.llm-error": "agent.turn-error", "effect.llm-aborted": "agent.turn-aborted" };

/** spec: agent.turn-error — a failed model or compaction call is the loop's turn error. */
function turnError(e, step) {
  if (!(e instanceof LoomError) || !(e.code in LLM_TURN_CODES)) return e; // passes through unchanged
  const cause = { code: e.code, message: e.message };
  return fail(LLM_TURN_CODES[e.code], `model call ${step} failed with ${e.code}: ${e.message}`, { step, cause });
}

const isEnvelope = (v) => isObject(v) && v.__loomClaimCheck === true;

/** spec: agent.claim-check-not-model — an envelope where a message or summary is due. */
const claimChecked = (tool) => fail("agent.claim-checked-output",
  `the output of ${tool} is a claim-check envelope; remove ${tool} from ` +
  "claim_check_middleware(tool_ids=...) (execution.claimCheck.toolIds)");

/**
 * spec: agent.model-response — an assistant message in the wire form, as recorded, with an
 * optional `finish` (#deltas.llm-output-finish), read first. Returns the message without it,
 * and whether the reply was cut at the output-token ceiling.
 */
function assistantMessage(output, tool) {
  if (isEnvelope(output)) throw claimChecked(tool);
  let message = output;
  let finish = null;
  try {
    if (isObject(output) && Object.hasOwn(output, "finish")) {
      finish = decodeReason(output.finish, "$.finish");
      message = Object.fromEntries(Object.entries(output).filter(([k]) => k !== "finish"));
    }
    decodeMessage(message);
  } catch (e) {
    if (!(e instanceof LoomError)) throw e;
    throw fail("agent.model-response", `${tool} did not return a wire message: ${e.message}`);
  }
  if (message.role !== "assistant") {
    throw fail("agent.model-response", `${tool} returned a ${message.role} message, not an assistant one`);
  }
  if (finish && (finish.kind === "error" || finish.kind === "aborted")) {
    throw fail("agent.model-response", `${tool} returned a message with finish ${finish.kind}`); // never an output
  }
  return { message, truncated: finish !== null && finish.kind === "max-tokens" };
}

// spec: agent.max-tokens-turn — what the model reads after a reply cut at the token ceiling
export const MAX_TOKENS_NOTICE = "Your previous reply reached the output-token limit and was cut off, " +
  "so none of its tool calls was run. Continue from where it stopped, in shorter steps, and make " +
  "again any tool call you still need.";

/** spec: agent.turn-step — turn i is the durable step #turn:<i> against modelToolId. */
function* modelTurn(ctx, cfg, i, request) {
  const step = `#turn:${i}`;
  try {
    return yield ctx.execute(cfg.modelToolId, request, step);
  } catch (e) {
    throw turnError(e, step);
  }
}

/**
 * spec: agent.router — #turn:<i>:route (the selector's choice; alternatives the routes), then
 * #turn:<i>:call:<k>, whose decider calls the route transiently (the recorded choice is the
 * message), then, with `elevate` and a stronger route left, #turn:<i>:elevate:<k>.
 */
function* routedTurn(ctx, cfg, i, request, world) {
  const { routes, decider, elevate } = cfg.router;
  const id = (name) => `#turn:${i}:${name}`;
  // contexts: the route's {turn}, a call's and an elevation's {route}; an elevation's
  // alternatives [false, true] (spec: agent.router)
  const route = yield ctx.decide(id("route"), world.decider(decider, id("route")),
    { context: { turn: i }, alternatives: routes });
  let r = routes.indexOf(route);
  if (typeof route !== "string" || r < 0) {
    throw fail("agent.unknown-route", `route ${JSON.stringify(route)} is not one of ${routes.join(", ")}`);
  }
  for (let k = 0; ; k++) {
    const callId = id(`call:${k}`);
    const call = (scope) => {
      world.trace.push({ decider: { decisionId: callId } });
      return { value: scope.invokeTransient(routes[r], copy(request)) };
    };
    let message;
    try {
      message = yield ctx.decide(callId, call, { context: { route: routes[r] } });
    } catch (e) {
      throw turnError(e, callId);
    }
    if (!elevate || r === routes.length - 1) return message;
    // the predicate's answer is recorded as its JSON truth (a choice's value as it is)
    const predicate = world.decider(elevate, id(`elevate:${k}`));
    const truth = (scope) => {
      const answer = predicate(scope);
      return answer.policy !== undefined ? answer : { value: truthy(answer.value) };
    };
    const up = yield ctx.decide(id(`elevate:${k}`), truth,
      { context: { route: routes[r] }, alternatives: [false, true] });
    if (up !== true) return message;
    r += 1;
  }
}

// -- compaction (spec/agent.md 6.9) --------------------------------------------------------
const SUMMARY_PREFIX = "Summary of the earlier conversation:\n"; // spec: agent.summary-message

function* compact(ctx, cfg, i, transcript) {
  const plan = compactionPlan(transcript.sizes, cfg.compaction); // spec: agent.compaction-pure
  if (!plan.compact) return; // below both thresholds, or agent.compaction-skip
  const step = `#turn:${i}:compact`;
  let output;
  try { // spec: agent.compaction-step, agent.compaction-io — the folded messages, oldest first
    output = yield ctx.execute(cfg.compaction.toolId, { messages: copy(transcript.messages.slice(0, plan.fold)) }, step);
  } catch (e) {
    throw turnError(e, step);
  }
  if (isEnvelope(output)) throw claimChecked(cfg.compaction.toolId);
  // exactly {summary: str}, or a bare string
  const summary = typeof output === "string" ? output
    : isObject(output) && Object.keys(output).join() === "summary" ? output.summary : undefined;
  if (typeof summary !== "string") { // spec: agent.compaction-output
    throw fail("agent.compaction-output", `${step} returned neither {summary: str} nor a string`);
  }
  transcript.fold(plan.fold, { role: "user", content: [{ type: "text", text: SUMMARY_PREFIX + summary }] });
}

// -- tool calls (spec/agent.md 6.5, 6.6) ---------------------------------------------------
const BLANK = new RegExp(`^[${WHITESPACE}]*$`, "u");

/**
 * spec: agent.tool-spec, agent.tool-error — the call's arguments parsed: a JSON
 * object, a blank string being {}; otherwise the message of the agent.tool-arguments result.
 */
function parseArguments(raw) {
  if (typeof raw !== "string") return { error: "arguments must be a JSON object" };
  if (BLANK.test(raw)) return { args: {} };
  let value;
  try {
    value = JSON.parse(raw);
  } catch {
    return { error: "arguments are not valid JSON" };
  }
  // journal.json-values: no number beyond a double's range (1e999), no lone surrogate
  if (!allJsonValues(value)) return { error: "arguments are not valid JSON" };
  return isObject(value) ? { args: value } : { error: "arguments must be a JSON object" };
}

function* toolCall(ctx, cfg, i, j, call) {
  const step = `#turn:${i}:tool:${j}`;
  const block = (content, isError) => ({ type: "tool-result", callId: call.id, content, ...(isError ? { isError: true } : {}) });
  // spec: agent.tool-error — `{"tool": <name>, "error": {"code", "message"}}`, isError
  const error = (code, message) =>
    block(`{"tool":${canonicalJson(call.name)},"error":${canonicalJson({ code, message })}}`, true);
  // spec: agent.tool-error — checked in this order, each message word for word
  if (j >= cfg.maxToolCallsPerTurn) {
    return error("agent.tool-call-limit",
      `more than ${cfg.maxToolCallsPerTurn} tool calls in one turn; this one was not run`);
  }
  const tool = cfg.toolsByName.get(call.name);
  if (!tool) return error("agent.unknown-tool", `there is no tool named ${canonicalJson(call.name)}`);
  const { args, error: why } = parseArguments(call.arguments);
  if (why) return error("agent.tool-arguments", why);
  if (needsApproval(cfg, call)) {
    // spec: agent.approval-gate — park BEFORE the tool's execute
    // spec: agent.approval-payload — the gate carries the config's schema, if any
    const payload = yield ctx.suspend(`${step}:approval`, APPROVAL_ON, step, cfg.approvalResumeSchema);
    if (!(isObject(payload) && payload.approved === true)) { // spec: agent.approval-payload, fail closed
      const reason = isObject(payload) && typeof payload.reason === "string" && payload.reason ? payload.reason : DEFAULT_REASON;
      return block(toolResultContent(call.name, { refused: true, reason }), false); // agent.tool-refusal
    }
  }
  let output;
  try {
    output = yield ctx.execute(tool.toolId, args, step);
  } catch (e) {
    if (!(e instanceof LoomError)) throw e;
    return error(e.code, e.message); // its journaled code and message
  }
  return block(toolResultContent(call.name, output), false); // spec: agent.tool-result
}

// -- skills and recall (spec/agent.md 6.7) -------------------------------------------------
function* choices(ctx, cfg, query, world) {
  let skills = [];
  if (cfg.skills) { // spec: agent.skills
    const names = Object.keys(cfg.skills.library).sort(compareCodePoints); // agent.skills: by code point
    skills = yield ctx.decide("#skills", world.decider(cfg.skills.decider, "#skills"),
      { context: { query }, alternatives: names });
    if (!Array.isArray(skills)) throw fail("agent.unknown-skill", "the skill selection is not a list of names");
    const unknown = skills.filter((s) => typeof s !== "string" || !Object.hasOwn(cfg.skills.library, s));
    if (unknown.length) throw fail("agent.unknown-skill", `no skill named ${unknown.map(String).join(", ")}`);
  }
  let items = [];
  if (cfg.recall) { // spec: agent.recall — the decider keeps at most recallLimit items
    const { decider, recallLimit } = cfg.recall;
    const search = world.decider(decider, "#recall");
    const bounded = (scope) => {
      const answer = search(scope);
      // spec: agent.recall — a list of strings, bounded; else argument.invalid, nothing recorded.
      // The memory answers a value, never a decision: a Choice is not a list of strings.
      if (answer.policy !== undefined || !Array.isArray(answer.value)) throw fail("argument.invalid", "a memory's search must return a list");
      const value = answer.value.slice(0, recallLimit);
      if (!value.every((v) => typeof v === "string")) throw fail("argument.invalid", "a memory's search must return strings");
      return { ...answer, value };
    };
    items = yield ctx.decide("#recall", bounded, { context: { query, recallLimit } });
  }
  // spec: agent.system-prompt — parts joined by a blank line, an empty part omitted
  const parts = [cfg.system];
  if (skills.length) parts.push(["## Skills", ...skills.map((s) => `### ${s}\n${cfg.skills.library[s]}`)].join("\n\n"));
  if (items.length) parts.push(["## Relevant memory", ...items.map((m) => `- ${m}`)].join("\n"));
  return parts.filter((p) => p).join("\n\n");
}

// -- the loop (spec/agent.md 6.1) ----------------------------------------------------------
/** `answer = yield* agentLoop(ctx, cfg, input, world)`: {text, message, turns}. */
export function* agentLoop(ctx, cfg, input, world) {
  const transcript = new Transcript(cfg, world.warn);
  inputMessages(input).forEach((m) => transcript.push(m));
  const users = transcript.messages.filter((m) => m.role === "user");
  // spec: agent.recall — the newest user message's text blocks joined by a newline ("" for none)
  const query = users.length ? users[users.length - 1].content.filter((b) => b.type === "text")
    .map((b) => b.text).join("\n") : "";
  const system = yield* choices(ctx, cfg, query, world);
  const tools = cfg.tools.map(({ name, description, parameters }) => ({ name, description, parameters }));
  for (let i = 0; i < cfg.maxIterations; i++) {
    if (cfg.compaction) yield* compact(ctx, cfg, i, transcript); // before turn i's model call
    const request = { messages: copy(transcript.messages), tools, system };
    const output = cfg.router ? yield* routedTurn(ctx, cfg, i, request, world) : yield* modelTurn(ctx, cfg, i, request);
    let { message, truncated } = assistantMessage(output, cfg.router ? `the route of #turn:${i}` : cfg.modelToolId);
    if (truncated) { // spec: agent.max-tokens-turn — none of its tool calls ever runs
      message = { ...message, content: message.content.filter((b) => b.type !== "tool-call") };
      if (message.content.length) transcript.push(message); // an empty assistant message is not sent
      transcript.push({ role: "user", content: [{ type: "text", text: MAX_TOKENS_NOTICE }] });
    } else {
      transcript.push(message);
    }
    if (cfg.streamMinChars !== null) { // spec: agent.stream-text — after the turn's step
      const batches = [];
      const chunker = chunkDeltas((b) => batches.push(b), cfg.streamMinChars);
      chunker(textOf(message));
      chunker.flush();
      for (const text of batches) yield ctx.stream({ turn: i, text });
    }
    if (truncated) continue; // never the answer, never a tool call
    const calls = message.content.filter((b) => b.type === "tool-call");
    if (!calls.length) return { text: textOf(message), message, turns: i + 1 };
    const results = [];
    for (let j = 0; j < calls.length; j++) results.push(yield* toolCall(ctx, cfg, i, j, calls[j]));
    transcript.push({ role: "tool", content: results });
  }
  // spec: agent.max-iterations
  throw fail("agent.max-iterations", `the agent loop needs more than maxIterations (${cfg.maxIterations}) model calls`);
}

// -- the opaque form (spec/agent.md 6.12) --------------------------------------------------
/**
 * The `agent_step` effect: the whole loop inside one call, its model and tool calls transient
 * calls through `host`. A failed inner call is raised into the loop as a durable step's
 * failure would be, so a failed model call is the turn error.
 */
function runOpaque(cfg, input, world, host) {
  const gen = agentLoop(new Ctx(), cfg, input, world);
  let send = null;
  let toThrow = null;
  for (;;) {
    const step = toThrow === null ? gen.next(send) : gen.throw(toThrow);
    if (step.done) return step.value;
    [send, toThrow] = [null, null];
    const cmd = step.value;
    if (cmd.kind !== "execute") throw broken(`the opaque form cannot ${cmd.kind}`);
    try {
      send = host.invokeTransient(cmd.tool, copy(cmd.input));
    } catch (e) {
      if (!(e instanceof LoomError)) throw e;
      toThrow = fail(e.code, e.message);
    }
  }
}

/**
 * The instruction `{"op": "agent_loop", config, input, opaque?}`. `world` gives the scripted
 * deciders (`decider(name, decisionId)`), the trace, `warn(message)` and `provide(tool, fn)`
 * (an effect the implementation itself provides).
 */
export function* agentLoopInstruction(ctx, ins, input, world) {
  const cfg = buildConfig(ins.config);
  if (!ins.opaque) return yield* agentLoop(ctx, cfg, input, world);
  // spec: agent.step-opaque — no gate can park and nothing reaches the durable stream
  if (cfg.needsApproval !== false || cfg.streamMinChars !== null) {
    throw fail("argument.agent-step", "the opaque agent_step takes no needsApproval or streamMinChars");
  }
  if (cfg.skills || cfg.recall || cfg.router) throw broken("the opaque form takes no skills, recall or router");
  world.provide("agent_step", (callInput, host) => {
    // spec: agent.step-input -- the call's input is {input}, refused before the loop otherwise
    if (callInput === null || typeof callInput !== "object" || Array.isArray(callInput) ||
        Object.keys(callInput).length !== 1 || !("input" in callInput)) {
      throw fail("argument.invalid", "the agent_step input must be {input: ...}");
    }
    return runOpaque(cfg, callInput.input, world, host);
  });
  return yield ctx.execute("agent_step", { input });
}
