// The agent chapter's model-calling vectors, `agent.model_effect` and `agent.summarize`, and
// `agent.render_transcript` (spec/agent.md 6.4, 6.9, 6.14), over a minimal governed transient
// call (spec/deltas.md 3a.2, 3a.3, 3a.7), the consumer wrapper and collector of llm.mjs and the
// stream decoder of stream.mjs. No npm dependencies.
//
// Rules:
// - The LLM effect's input (#deltas.llm-input, #agent.model-input): guard_request FIRST (a
//   tainted value anywhere is `governance.tainted-request`, the adapter never called), then
//   the input's shape (`argument.invalid`, unknown members too); a non-empty `system` is sent
//   as a leading system message; the effect's maxTokens / temperature fill what the input
//   leaves unset.
// - The call (#agent.model-output, #deltas.collect-text, #deltas.collect-finish): the adapter's
//   chunks pass the consumer wrapper (#stream.adapter.consumer-wrapper: nothing after the first
//   finish) and llm.mjs's collector, the one every governed model call uses; each non-empty
//   text delta the collector writes goes to the per-call sink, then to the configured sink
//   (#deltas.channel); a failed finish is `effect.llm-error` / `effect.llm-aborted`; on success
//   the runtime sends the terminal chunk, with the stream's usage, to the per-call sink only
//   (#deltas.terminal).
// - The summarizer (#agent.summarizer): a system message of instructions, a user message of
//   the rendered transcript (#agent.render-transcript); it returns `{"summary": <text>}`.

import { LoomError } from "./journal.mjs";
import { decodeChunk } from "./stream.mjs";
import { collectStream, consume } from "./llm.mjs";
import { members, renderTranscript } from "./agent.mjs";
import { decodeTainted, guardRequest } from "./governance.mjs";

const jsonType = (v) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
const isObject = (v) => jsonType(v) === "object";
const invalid = (message) => new LoomError("argument.invalid", message);

// -- messages in the wire form (spec/stream.md #stream.blocks) ----------------------------
const ROLES = ["system", "user", "assistant", "tool"];

/** One wire message, validated; its blocks go through the stream decoder (a `block-end` carries one). */
export function decodeMessage(value, path = "$") {
  if (!isObject(value)) throw invalid(`${path}: a message is an object`);
  const extra = Object.keys(value).filter((k) => k !== "role" && k !== "content");
  if (!ROLES.includes(value.role)) throw invalid(`${path}.role: one of ${ROLES.join(", ")}`);
  if (!Array.isArray(value.content)) throw invalid(`${path}.content: an array of blocks`);
  if (extra.length) throw invalid(`${path}: unknown member(s) ${extra.sort().join(", ")}`);
  const content = value.content.map((block, i) => {
    let decoded;
    try {
      decoded = decodeChunk({ type: "block-end", index: 0, block }, `${path}.content[${i}]`).block;
    } catch (e) {
      if (e instanceof LoomError) throw invalid(`${path}.content[${i}]: ${e.message}`);
      throw e;
    }
    return decoded; // arguments may be any JSON value (#stream.wire.checker-owned-values)
  });
  return { role: value.role, content };
}

const messageList = (v, path) => {
  if (!Array.isArray(v)) throw invalid(`${path}: an array of messages`);
  return v.map((m, i) => decodeMessage(m, `${path}[${i}]`));
};

const textMessage = (role, text) => ({ role, content: [{ type: "text", text }] });
const textOf = (message) => message.content.filter((b) => b.type === "text").map((b) => b.text).join("");

// -- the LLM effect's input (spec/deltas.md #deltas.llm-input) -----------------------------
const INPUT_MEMBERS = ["messages", "system", "tools", "model", "maxTokens", "temperature"];


// A tool is {name (a non-empty string), description?, parameters?}: an unknown member is
// argument.invalid, as for the input itself (#deltas.llm-input).
const TOOL_MEMBERS = ["name", "description", "parameters"];
function decodeTool(v, path) {
  if (!isObject(v)) throw invalid(`${path}: a tool is an object`);
  const extra = Object.keys(v).filter((k) => !TOOL_MEMBERS.includes(k));
  if (extra.length) throw invalid(`${path}: unknown member(s) ${extra.sort().join(", ")}`);
  const { name, description = "", parameters = {} } = v;
  if (typeof name !== "string" || !name) throw invalid(`${path}.name: a non-empty string`);
  if (typeof description !== "string") throw invalid(`${path}.description: a string`);
  if (!isObject(parameters)) throw invalid(`${path}.parameters: an object`);
  return { name, description, parameters };
}

/** The request the adapter receives: `{model, messages, tools, maxTokens, temperature}`. */
function llmRequest(input, effect) {
  guardRequest(input);
  if (!isObject(input)) throw invalid("the LLM effect's input is an object");
  const extra = Object.keys(input).filter((k) => !INPUT_MEMBERS.includes(k));
  if (extra.length) throw invalid(`unknown input member(s) ${extra.sort().join(", ")}`);
  if (!Object.hasOwn(input, "messages")) throw invalid("the input has messages");
  const messages = messageList(input.messages, "$.messages");
  const { system = "", tools = [], model = effect.model } = input;
  if (typeof system !== "string") throw invalid("system is a string");
  if (!Array.isArray(tools)) throw invalid("tools is an array");
  if (typeof model !== "string" || !model) throw invalid("model is a non-empty string");
  const maxTokens = input.maxTokens ?? effect.maxTokens;
  const temperature = input.temperature ?? effect.temperature;
  checkSampling(maxTokens, temperature);
  return {
    model,
    messages: system ? [textMessage("system", system), ...messages] : messages, // spec: agent.model-input
    tools: tools.map((t, i) => decodeTool(t, `$.tools[${i}]`)),
    maxTokens,
    temperature,
  };
}

// Types only, no ranges (loom-ref accepts maxTokens 0). loom-ref checks the effect's own values
// but passes the input's through unchecked; the spec calls malformed input argument.invalid.
function checkSampling(maxTokens, temperature) {
  if (maxTokens !== null && !Number.isInteger(maxTokens)) throw invalid("maxTokens is an int");
  if (temperature !== null && typeof temperature !== "number") throw invalid("temperature is a number");
}

// -- the adapter and its consumer wrapper (spec/stream.md #stream.adapter) -----------------
/** A provider that records each request and streams the same chunks on every call. */
function scriptedProvider(chunks) {
  if (!Array.isArray(chunks)) throw invalid("chunks is an array");
  // A malformed chunk is a malformed vector input: argument.invalid, not its stream.wire code.
  const decoded = chunks.map((c, i) => {
    try {
      return decodeChunk(c, `$.chunks[${i}]`);
    } catch (e) {
      if (e instanceof LoomError) throw invalid(`$.chunks[${i}]: ${e.code}: ${e.message}`);
      throw e;
    }
  });
  const requests = [];
  const stream = (request) => {
    requests.push(JSON.parse(JSON.stringify(request)));
    return (function* () { yield* decoded; })();
  };
  return { requests, stream };
}

// -- the call (spec/deltas.md 3a.2, 3a.3, 3a.7) --------------------------------------------
const deltaJson = (chunk) => {
  const out = { delta: chunk.delta, origin: chunk.origin };
  for (const k of ["done", "reset", "attempt", "usage"]) if (chunk[k] !== undefined) out[k] = chunk[k];
  return out; // spec: deltas.json
};

/**
 * spec: deltas.collect-text, deltas.collect-finish — the LLM effect's body over one stream:
 * the consumer wrapper and the collector of llm.mjs, one implementation for every governed
 * model call (#agent.model-input). The signal never aborts here.
 */
function collect(provider, request, ctx, toolId) {
  const signal = { aborted: false, reason: null };
  const effectCtx = { ...ctx, toolId, signal, call: {}, reportUsage: () => {} };
  return collectStream(consume(provider, request, signal), effectCtx);
}

/**
 * One transient call of an LLM effect through a governed runtime with a recording per-call
 * sink; the effect's configured sink records too. Returns what each saw and the outcome.
 */
function callTransient(effect, input) {
  const origin = `llm:${effect.toolId}`; // spec: deltas.taint
  const perCall = [];
  const onDelta = [];
  let end = null;
  let streamed = false;
  const ctx = {
    onDelta: (text) => {
      if (typeof text !== "string") {
        end = text; // held, never forwarded by the channel (spec: deltas.terminal)
        streamed = true;
        return;
      }
      if (!text) return;
      streamed = true;
      const chunk = { delta: text, origin };
      perCall.push(deltaJson(chunk)); // per-call first, then the configured sink (#deltas.channel)
      onDelta.push(deltaJson(chunk));
    },
  };
  let outcome;
  try {
    outcome = { output: effect.execute(ctx, input) };
    // spec: deltas.terminal — after the whole route succeeded, to the per-call sink only.
    if (streamed) perCall.push(deltaJson({ delta: "", origin, done: true, usage: end?.usage ?? undefined }));
  } catch (e) {
    if (!(e instanceof LoomError)) throw e;
    outcome = { error: { code: e.code } }; // the vector reports the code alone
  }
  return { outcome, perCall, onDelta };
}

/** `create_llm_effect`'s body (spec: deltas.llm-input, deltas.llm-output). */
const llmEffect = (provider, options) => ({
  toolId: options.toolId,
  execute: (ctx, input) => collect(provider, llmRequest(input, options), ctx, options.toolId),
});

// -- the vectors (spec/agent.md 6.14) ------------------------------------------------------
function modelEffect(input) {
  const i = members(input, ["input", "chunks"], ["maxTokens", "temperature"]);
  const provider = scriptedProvider(i.chunks);
  const options = { toolId: "llm", model: "m1", maxTokens: i.maxTokens ?? null, temperature: i.temperature ?? null };
  checkSampling(options.maxTokens, options.temperature); // the effect's own: refused when it is built
  const effect = llmEffect(provider, options);
  const { outcome, perCall, onDelta } = callTransient(effect, decodeTainted(i.input));
  return { requests: provider.requests, outcome, perCall, onDelta };
}

// spec: agent.summarizer — the default instructions, word for word.
const DEFAULT_INSTRUCTIONS = "Summarize the conversation below for the assistant that continues it. " +
  "Keep every fact, decision, open question and tool result it will still need; drop pleasantries.";

// spec: agent.summarizer — instructions, then the rendered transcript; `{"summary": text}`.
function summarize(input) {
  const i = members(input, ["messages", "chunks"], ["instructions"]);
  // absent means the default; null is an instructions of the wrong type
  const instructions = i.instructions === undefined ? DEFAULT_INSTRUCTIONS : i.instructions;
  if (typeof instructions !== "string" || !instructions) throw invalid("instructions is a non-empty string");
  const provider = scriptedProvider(i.chunks);
  const inner = llmEffect(provider, { toolId: "summarize", model: "m1", maxTokens: null, temperature: null });
  const effect = {
    toolId: "summarize",
    execute: (ctx, callInput) => {
      const { messages } = members(callInput, ["messages"]);
      const request = { messages: [textMessage("system", instructions),
        textMessage("user", renderTranscript(messageList(messages, "$.messages")))] };
      return { summary: textOf(inner.execute(ctx, request)) };
    },
  };
  const { outcome } = callTransient(effect, { messages: i.messages });
  return { requests: provider.requests, outcome };
}

export const AGENT_MODEL_VECTORS = {
  "agent.model_effect": modelEffect,
  "agent.summarize": summarize,
  "agent.render_transcript": (input) =>
    ({ text: renderTranscript(messageList(members(input, ["messages"]).messages, "$.messages")) }),
};
