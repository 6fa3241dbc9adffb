// The LLM effect of spec/deltas.md §3a.7: the scripted adapter and the consumer wrapper
// (spec/stream.md), the stream collector, and create_llm_effect. No npm dependencies.
//
// Rules:
// - consume(adapter, request, signal) folds both error paths into one finish: a raised error
//   becomes `finish aborted` (signal aborted) or `finish error` with its code; a stream without
//   finish ends in `finish error` (stream.missing-finish); an aborted signal severs before the
//   next chunk (#stream.adapter.consumer-wrapper).
// - collect_stream reads the signal before each chunk and raises effect.aborted once it has
//   aborted (#deltas.collect-signal); each non-empty text delta goes to ctx.onDelta after the
//   assembler took it, reasoning and tool calls never (#deltas.collect-text); finish error /
//   aborted raise effect.llm-error / effect.llm-aborted, a success reports usage and writes the
//   end chunk (#deltas.collect-finish); without a runtime it delivers itself (#deltas.no-runtime).
// - The effect fences its input with guardRequest FIRST (#deltas.llm-input) and returns the
//   assembled message (#deltas.llm-output), with `finish` for a max-tokens reply
//   (#deltas.llm-output-finish); with onReset the configured sink's resets go there
//   (#deltas.llm-sinks).

import { LoomError } from "./journal.mjs";
import { BlockAssembler } from "./stream.mjs";
import { Tainted, guardRequest, invalid } from "./governance.mjs";
import { EffectDelta } from "./deltas.mjs";

const jsonType = (v) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
const isObject = (v) => jsonType(v) === "object";

// -- the scripted adapter (#stream.scripted) ------------------------------------------------
export class ScriptedAdapter {
  constructor(scripts) {
    Object.assign(this, { scripts, calls: 0, pulled: 0, models: [] });
  }
  stream(request, signal) {
    const n = this.calls++;
    this.models.push(request.model);
    if (n >= this.scripts.length) throw new LoomError("stream.scripted.exhausted", `no script for call ${n + 1}`);
    const { chunks, raiseAfter = null, honorSignal = true } = this.scripts[n];
    const self = this;
    return (function* () {
      for (const [k, chunk] of chunks.entries()) {
        if (honorSignal && signal.aborted) throw new LoomError("stream.aborted", String(signal.reason));
        if (raiseAfter !== null && k === raiseAfter) throw new LoomError("stream.scripted.failure", `raised after ${k} chunks`);
        self.pulled += 1;
        yield chunk;
      }
      // stream.scripted: a raiseAfter at or past the script's length raises once its chunks
      // have run out (not a missing finish)
      if (raiseAfter !== null && raiseAfter >= chunks.length) {
        throw new LoomError("stream.scripted.failure", `raised after ${chunks.length} chunks`);
      }
    })();
  }
}

const finish = (kind, code, message) => ({ type: "finish", reason: { kind, failure: { message, code } } });

/** spec: stream.adapter.consumer-wrapper */
export function* consume(adapter, request, signal) {
  let source = null;
  try {
    for (;;) {
      if (signal.aborted) { // severs before the next chunk
        yield finish("aborted", "stream.aborted", `aborted: ${signal.reason}`);
        return;
      }
      let r;
      try {
        if (source === null) source = adapter.stream(request, signal);
        r = source.next();
      } catch (e) {
        if (!(e instanceof Error)) throw e;
        const code = e instanceof LoomError ? e.code : "stream.adapter-raised";
        yield finish(signal.aborted ? "aborted" : "error", code, e.message);
        return;
      }
      if (r.done) {
        yield finish("error", "stream.missing-finish", "the stream ended without a finish");
        return;
      }
      yield r.value;
      if (r.value.type === "finish") return; // nothing is read after the adapter's finish
    }
  } finally {
    if (source) source.return();
  }
}

// -- the collector (#deltas.collect-*) ------------------------------------------------------
export function collectStream(chunks, ctx, { configured = null } = {}) {
  const origin = `llm:${ctx.toolId}`;
  const chunk = (fields) => new EffectDelta({ ...fields, delta: new Tainted(fields.delta ?? "", origin) });
  // spec: deltas.no-runtime — without a runtime: per-call sink, then configured; errors propagate
  const direct = (c, terminal) => {
    if (ctx.call.onDelta) ctx.call.onDelta(c);
    if (!terminal && configured) configured(c);
  };
  const assembler = new BlockAssembler();
  const source = chunks[Symbol.iterator]();
  try {
    for (;;) {
      if (ctx.signal.aborted) { // spec: deltas.collect-signal
        const e = new LoomError("effect.aborted", String(ctx.signal.reason), { reason: ctx.signal.reason });
        throw e;
      }
      const r = source.next();
      if (r.done) break;
      assembler.feed(r.value);
      // spec: deltas.collect-text -- only text the fold appended to a text block (a
      // reasoning-delta into an open text block included; no straggler, no delta into a
      // reasoning, tool-call or tool-result block)
      if ((r.value.type === "text-delta" || r.value.type === "reasoning-delta") && r.value.text !== ""
          && assembler.openBlockType(r.value.index) === "text") {
        if (ctx.onDelta) ctx.onDelta(r.value.text);
        else direct(chunk({ delta: r.value.text }), false);
      }
      if (r.value.type === "finish") break;
    }
  } finally {
    source.return?.();
  }
  let { message, finish: reason, usage } = assembler.result();
  if (assembler.finish === null) { // spec: deltas.collect-finish — never a normal message
    reason = { kind: "error", failure: { message: "the model stream ended without a finish chunk", code: "stream.missing-finish" } };
  }
  if (reason.kind === "error" || reason.kind === "aborted") { // spec: deltas.collect-finish
    const code = reason.kind === "error" ? "effect.llm-error" : "effect.llm-aborted";
    throw new LoomError(code, reason.failure.message, { failure: reason.failure });
  }
  if (usage) { // spec: deltas.collect-usage — the billed counters, without the breakdown
    const { reasoningTokens, ...billed } = usage;
    ctx.reportUsage(billed);
  }
  const end = chunk({ done: true, usage });
  if (ctx.onDelta) ctx.onDelta(end);
  else direct(end, true);
  return llmOutput(message, reason);
}

/** spec: deltas.llm-output-finish — a reply cut at the token ceiling says so. */
export const llmOutput = (message, reason) => (reason.kind === "max-tokens" ? { ...message, finish: { kind: "max-tokens" } } : message);

// -- the request (#deltas.llm-input) --------------------------------------------------------
const ROLES = ["system", "user", "assistant", "tool"];
const BLOCK_FIELDS = {
  text: { text: "string" }, reasoning: { text: "string" },
  "tool-call": { id: "string", name: "string", arguments: "string" },
  "tool-result": { callId: "string", content: "string", isError: "boolean?" },
};

function fields(obj, spec, what) {
  if (!isObject(obj)) throw invalid(`${what} is an object`);
  for (const k of Object.keys(obj)) if (!(k in spec)) throw invalid(`unknown ${what} field ${k}`);
  for (const [k, t] of Object.entries(spec)) {
    const optional = t.endsWith("?");
    if (!(k in obj)) {
      if (!optional) throw invalid(`${what} needs ${k}`);
      continue;
    }
    const want = t.replace("?", "");
    if (want !== "any" && jsonType(obj[k]) !== want && !(want === "number" && jsonType(obj[k]) === "number")) {
      throw invalid(`${what}.${k} is a ${want}`);
    }
  }
  return obj;
}

function decodeMessage(m) {
  fields(m, { role: "string", content: "array" }, "message");
  if (!ROLES.includes(m.role)) throw invalid(`unknown role ${m.role}`);
  for (const b of m.content) {
    if (!isObject(b) || !(b.type in BLOCK_FIELDS)) throw invalid("unknown content block");
    fields(b, { type: "string", ...BLOCK_FIELDS[b.type] }, `${b.type} block`);
  }
  return m;
}

/** The `LlmRequest` JSON form; `model` defaults to the effect's. */
export function decodeRequest(input, model) {
  // maxTokens and temperature may be absent or null (both mean unset); maxTokens is any int
  // (0 included: only "not an int" is refused)
  fields(input, { messages: "array", system: "string?", tools: "array?", model: "string?",
    maxTokens: "any?", temperature: "any?" }, "LLM input");
  input.messages.forEach(decodeMessage);
  for (const t of input.tools ?? []) {
    fields(t, { name: "string", description: "string?", parameters: "object?" }, "tool");
    if (!t.name) throw invalid("a tool's name is a non-empty string");
  }
  const { maxTokens = null, temperature = null } = input;
  if (maxTokens !== null && !Number.isInteger(maxTokens)) throw invalid("maxTokens is an int");
  if (temperature !== null && typeof temperature !== "number") throw invalid("temperature is a number");
  const chosen = input.model ?? model;
  if (typeof chosen !== "string" || !chosen) throw invalid("model is a non-empty string");
  return { ...input, model: chosen };
}

/** spec: deltas.llm-input, deltas.llm-output, deltas.llm-sinks */
export function createLlmEffect(adapter, { toolId, model = null, deltaSink = null, onReset = null,
  modes = ["durable", "transient"], idempotent = false }) {
  if (typeof toolId !== "string" || toolId === "") throw invalid("toolId must be a non-empty string");
  if (model !== null && (typeof model !== "string" || model === "")) {
    throw invalid("model must be a non-empty string or null");
  }
  let configured = deltaSink;
  if (onReset) {
    configured = (c) => (c.reset ? onReset(c.attempt) : deltaSink?.(c));
  }
  return {
    toolId, modes, idempotent, deltaSink: configured,
    execute(ctx, input) {
      guardRequest(input); // FIRST: a tainted prompt never reaches the adapter
      const request = decodeRequest(input, model);
      return collectStream(consume(adapter, request, ctx.signal), ctx, { configured });
    },
  };
}
