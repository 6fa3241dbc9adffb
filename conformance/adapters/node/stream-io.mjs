// The stream protocol's edges, as vector functions: the consumer wrapper over a scripted
// adapter (`stream.consume`), the OpenAI-compatible mapping from a server-sent-events body to
// chunks (`stream.openai_map`) and app attribution (`stream.attribution_headers`). Written
// from spec/stream.md; no npm dependencies, no network (the mapping is the pure path).
//
// Rules (spec/stream.md):
// - Two error paths, one outcome (#stream.adapter.consumer-wrapper): an adapter that raises
//   ends in `finish aborted` (signal aborted) or `finish error` with its code; one that stops
//   without a finish ends in `finish error` (stream.missing-finish); an aborted signal severs
//   the stream before the next chunk; nothing is read after the adapter's own finish.
// - The scripted adapter (#stream.scripted): script n on call n, exhausted past the last,
//   `raiseAfter` k raises after k chunks, honours its signal; chunks pass unchecked.
// - The OpenAI mapping (#stream.openai): WHATWG server-sent events, `[DONE]` ends; text and
//   reasoning blocks open at their first non-empty fragment; a provider tool-call index gets
//   its own protocol index; usage and finish are deferred to the end; disjoint usage; a stop
//   with no block is an empty response. `stream.openai_fold` reads the same chunks behind the
//   consumer wrapper and folds them (#stream.vectors.openai-fold).
// - Attribution (#stream.attribution): the User-Agent only, from static, printable,
//   single-line identity facts; header names in lowercase (#stream.vectors.header-names).

import { LoomError } from "./journal.mjs";
import { assemble, decodeChunks, decodeUsage, isObject, jsonType, list, wireError } from "./stream.mjs";

const failure = (message, code) => ({ message, code });
const finishError = (message, code) => ({ type: "finish", reason: { kind: "error", failure: failure(message, code) } });
const finishAborted = (message) => ({ type: "finish", reason: { kind: "aborted", failure: failure(message, "stream.aborted") } });

// -- the scripted adapter (#stream.scripted) -----------------------------------------------
export class ScriptedAdapter {
  /** `scripts`: [{chunks, raiseAfter?}], script n answering call n. */
  constructor(scripts, { honorSignal = true } = {}) {
    Object.assign(this, { scripts, honorSignal, calls: 0 });
  }

  // spec: stream.scripted — "a call past the last MUST raise stream.scripted.exhausted", from
  // stream() itself; the iterator raises once its signal has aborted, or after raiseAfter chunks.
  stream(request, signal) {
    const n = this.calls++;
    if (n >= this.scripts.length) throw new LoomError("stream.scripted.exhausted", `no script for call ${n + 1}`);
    const { chunks, raiseAfter } = this.scripts[n];
    const honor = this.honorSignal;
    return (function* scripted() {
      for (let i = 0; i < chunks.length; i++) {
        if (i === raiseAfter) throw new LoomError("stream.scripted.failure", `scripted failure after ${i} chunks`);
        if (honor && signal.aborted) throw new LoomError("stream.aborted", "the signal aborted");
        yield chunks[i];
      }
      // spec: stream.scripted — a raiseAfter at or past the script's length raises when its
      // chunks run out
      if (raiseAfter !== undefined && raiseAfter >= chunks.length) {
        throw new LoomError("stream.scripted.failure", `scripted failure after ${chunks.length} chunks`);
      }
    })();
  }
}

// -- the consumer wrapper (#stream.adapter.consumer-wrapper) -------------------------------
/** Both error paths as one: every call through it ends in exactly one finish. */
export function* consume(adapter, request, signal) {
  let source = null;
  const close = () => { if (source) source.return(); };
  try {
    source = adapter.stream(request, signal);
    for (;;) {
      // spec: stream.adapter.consumer-wrapper — "an aborted signal severs the stream before the
      // next chunk with finish aborted (stream.aborted) and closes the adapter's iterator"
      if (signal.aborted) {
        close();
        yield finishAborted("the signal aborted");
        return;
      }
      const step = source.next();
      if (step.done) {
        yield finishError("the adapter's stream ended without a finish", "stream.missing-finish");
        return;
      }
      yield step.value;
      if (step.value.type === "finish") {
        close(); // "nothing is read after the adapter's own finish"
        return;
      }
    }
  } catch (e) {
    // spec: stream.adapter.two-error-paths — a raise becomes a terminal finish
    if (signal.aborted) yield finishAborted(`aborted: ${e.message}`);
    else yield finishError(String(e.message), typeof e.code === "string" ? e.code : "stream.adapter-raised");
  }
}

// -- server-sent events (#stream.openai.sse) ----------------------------------------------
/**
 * WHATWG event-stream decoding over text pieces cut anywhere: LF, CRLF or CR line ends (a CR
 * at the end of a piece waits for the next piece, which may start with its LF), `:` comments,
 * one space after the colon dropped, `data` lines joined with LF, dispatch on a blank line.
 * Yields each event's data; a partial event at the end of input is discarded, unless
 * `endsLastEvent` (#stream.anthropic.sse): then the end of input dispatches a pending event
 * whose lines all ended, and only a last line without line end is dropped.
 */
export function* sseData(pieces, { endsLastEvent = false } = {}) {
  let pending = "";
  let data = null; // the data buffer, as lines
  const line = function* (text) {
    if (text === "") {
      if (data !== null) yield data.join("\n");
      data = null;
      return;
    }
    if (text.startsWith(":")) return; // a comment
    const colon = text.indexOf(":");
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? "" : text.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") (data ??= []).push(value);
    // event, id, retry and unknown fields do not change the data
  };
  let start = true;
  for (const piece of pieces) {
    pending += piece;
    // WHATWG decodes the stream as UTF-8, which drops one leading BOM (stream.openai.sse:
    // stream.openai/leading-bom and leading-bom-after-empty-piece pin it)
    if (start && pending !== "") {
      if (pending.startsWith("\uFEFF")) pending = pending.slice(1);
      start = false;
    }
    for (;;) {
      const m = /\r\n|\r|\n/.exec(pending);
      if (!m) break;
      // a CR at the very end may be the first half of a CRLF cut between two pieces
      if (m[0] === "\r" && m.index === pending.length - 1) break;
      const text = pending.slice(0, m.index);
      pending = pending.slice(m.index + m[0].length);
      yield* line(text);
    }
  }
  if (pending.endsWith("\r")) yield* line(pending.slice(0, -1)); // the input ended: a lone CR
  // what is left is a partial line of a partial event: discarded
  if (endsLastEvent && data !== null) yield data.join("\n");
}

// -- the chat-completions mapping (#stream.openai) -----------------------------------------
const FINISH_REASONS = { stop: "stop", tool_calls: "tool-calls", function_call: "tool-calls", length: "max-tokens" };
const isCount = (v) => Number.isInteger(v) && v >= 0;

const countOrNull = (v) => (isCount(v) ? v : null); // a count that is not one is not reported

/**
 * spec: stream.openai.disjoint-usage — cached prompt tokens subtracted out of the input and
 * reported apart; reasoning tokens reported as a breakdown of the whole completion; usage
 * without both totals, or inconsistent, is absent (null). A
 * detail count that is not a non-negative integer counts as not reported; DeepSeek's
 * `prompt_cache_hit_tokens` is read when `cached_tokens` is not reported.
 */
export function disjointUsage(u) {
  if (!isObject(u) || !isCount(u.prompt_tokens) || !isCount(u.completion_tokens)) return null;
  const inDetails = isObject(u.prompt_tokens_details) ? u.prompt_tokens_details : {};
  const outDetails = isObject(u.completion_tokens_details) ? u.completion_tokens_details : {};
  const cached = countOrNull(inDetails.cached_tokens) ?? countOrNull(u.prompt_cache_hit_tokens);
  const reasoning = countOrNull(outDetails.reasoning_tokens);
  if ((cached ?? 0) > u.prompt_tokens || (reasoning ?? 0) > u.completion_tokens) return null; // inconsistent
  // spec: stream.usage.reasoning-breakdown — outputTokens is the whole completion
  const usage = { inputTokens: u.prompt_tokens - (cached ?? 0), outputTokens: u.completion_tokens };
  if (cached !== null) usage.cacheReadTokens = cached;
  if (reasoning !== null) usage.reasoningTokens = reasoning;
  return usage;
}

// JSON truthiness, as an in-band `error` member is judged: null, false, 0, "", [] and {} are not errors.
const truthy = (v) => !(v === null || v === undefined || v === false || v === 0 || v === ""
  || (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0));

/** `chat.completion.chunk` payloads in, protocol chunks out; `end()` once the stream ended. */
export class ChatCompletionsMapper {
  constructor() {
    this.next = 0; // the next protocol index
    this.current = null; // the open text or reasoning block: {index, type, parts}
    this.calls = new Map(); // provider tool-call index -> {index, id, name, parts}
    this.usage = null;
    this.finish = null; // the first finish_reason, mapped; deferred to the end
    this.error = null; // the first in-band error; wins over finish_reason at the end
  }

  /**
   * One event's payload (a JSON object): the chunks it maps to. spec: stream.openai.payload —
   * the members in this order: an in-band `error` (recorded, the stream goes on), `usage`,
   * then each choice of index 0: its delta (reasoning, text, tool calls), its finish_reason.
   */
  feed(payload) {
    const out = [];
    if (truthy(payload.error) && this.error === null) {
      // spec: stream.openai.in-band-error — an in-band {"error": ...} payload ends the stream in error
      const m = isObject(payload.error) ? payload.error.message : undefined;
      const message = typeof m === "string" && m !== "" ? m : "the provider reported an error in the stream";
      this.error = { kind: "error", failure: failure(message, "stream.provider.in-band-error") };
    }
    // spec: stream.openai.defer-usage-and-finish — remembered now, emitted at the end; the
    // last well-formed report wins, a malformed one is ignored
    if (Object.hasOwn(payload, "usage")) this.usage = disjointUsage(payload.usage) ?? this.usage;
    if (!Array.isArray(payload.choices)) return out;
    for (const choice of payload.choices) {
      if (!isObject(choice) || (Object.hasOwn(choice, "index") ? choice.index : 0) !== 0) continue;
      if (isObject(choice.delta)) this.delta(choice.delta, out);
      const reason = choice.finish_reason;
      if (typeof reason === "string" && this.finish === null) this.finish = mapFinish(reason);
    }
    return out;
  }

  delta(delta, out) {
    let reasoning = delta.reasoning_content;
    if (typeof reasoning !== "string" || reasoning === "") reasoning = delta.reasoning; // OpenRouter
    if (typeof reasoning === "string") this.text("reasoning", reasoning, out);
    if (typeof delta.content === "string") this.text("text", delta.content, out);
    if (Array.isArray(delta.tool_calls)) {
      delta.tool_calls.forEach((call, position) => { if (isObject(call)) this.toolCall(call, position, out); });
    }
  }

  // Text and reasoning open a block at their first non-empty fragment; a switch between the
  // two closes the current one.
  text(type, fragment, out) {
    if (fragment === "") return;
    if (this.current && this.current.type !== type) this.closeCurrent(out);
    if (!this.current) {
      this.current = { index: this.next++, type, parts: [] };
      out.push({ type: "block-start", index: this.current.index, blockType: type });
    }
    this.current.parts.push(fragment);
    out.push({ type: `${type === "text" ? "text" : "reasoning"}-delta`, index: this.current.index, text: fragment });
  }

  closeCurrent(out) {
    const { index, type, parts } = this.current;
    out.push({ type: "block-end", index, block: { type, text: parts.join("") } });
    this.current = null;
  }

  // spec: stream.openai.tool-call-identity — one protocol index per provider index (a call
  // without an integer index is keyed by its position in the list); id and name taken the
  // first time they appear, never concatenated; `call-<protocol index>` for a call whose first
  // fragment has no id; parsed arguments re-stringified. A fragment that brings nothing new
  // (no arguments, no new name) after the first gives no delta.
  toolCall(call, position, out) {
    const key = Number.isInteger(call.index) ? call.index : position;
    const fn = isObject(call.function) ? call.function : {};
    let block = this.calls.get(key);
    const first = !block;
    if (first) {
      if (this.current) this.closeCurrent(out); // the first fragment of a tool call closes it
      const index = this.next++;
      const id = typeof call.id === "string" && call.id !== "" ? call.id : `call-${index}`;
      block = { index, id, name: undefined, parts: [] };
      this.calls.set(key, block);
      out.push({ type: "block-start", index, blockType: "tool-call" });
    }
    let name;
    if (block.name === undefined && typeof fn.name === "string" && fn.name !== "") name = block.name = fn.name;
    let args = fn.arguments ?? "";
    if (typeof args !== "string") args = JSON.stringify(args);
    if (!first && args === "" && name === undefined) return;
    block.parts.push(args);
    const chunk = { type: "tool-call-delta", index: block.index, id: block.id };
    if (name !== undefined) chunk.name = name;
    chunk.argumentsDelta = args;
    out.push(chunk);
  }

  /** The end of the provider's stream: closing block-ends, usage if any, finish. */
  end() {
    const out = [];
    let finish = this.error ?? this.finish ?? {
      kind: "error", // spec: stream.openai.no-finish-reason-is-error — blocks left open
      failure: failure("the provider's stream ended without a finish_reason", "stream.provider.no-finish-reason"),
    };
    // spec: stream.openai.empty-response — a stop (or absent) finish with no block opened
    if (this.error === null && this.next === 0 && (this.finish === null || this.finish.kind === "stop")) {
      finish = { kind: "error", failure: failure("the provider completed a response with no content", "stream.provider.empty-response") };
    }
    if (finish.kind !== "error" && finish.kind !== "aborted") {
      // "On a normal finish, including max-tokens, every open block is closed", in index order
      const open = [];
      if (this.current) open.push(this.current);
      for (const b of this.calls.values()) open.push(b);
      open.sort((a, b) => a.index - b.index);
      for (const b of open) {
        if (b === this.current) this.closeCurrent(out);
        else out.push({ type: "block-end", index: b.index,
          block: { type: "tool-call", id: b.id, name: b.name ?? "", arguments: b.parts.join("") } });
      }
      this.calls.clear();
    }
    if (this.usage) out.push({ type: "usage", usage: this.usage });
    out.push({ type: "finish", reason: finish });
    return out;
  }
}

// Mapping of finish_reason: content_filter and any other value are errors.
function mapFinish(reason) {
  if (Object.hasOwn(FINISH_REASONS, reason)) return { kind: FINISH_REASONS[reason] };
  if (reason === "content_filter") {
    return { kind: "error", failure: failure("the provider's content filter stopped the reply", "stream.provider.content-filter") };
  }
  return { kind: "error", failure: failure(`unknown finish_reason ${JSON.stringify(reason)}`, "stream.provider.unknown-finish-reason") };
}

/**
 * An event's data read as JSON (#stream.openai.json-payload: NaN and Infinity are not JSON,
 * JSON.parse refuses them) holding no number beyond a double's range (#stream.openai.number-range:
 * JSON.parse reads 1e400 as Infinity, refused here); else stream.provider.malformed-event.
 */
export function parsePayload(data) {
  const beyond = (_key, value) => {
    if (typeof value === "number" && !Number.isFinite(value)) throw new RangeError("a number beyond the range of a double");
    return value;
  };
  try {
    return JSON.parse(data, beyond);
  } catch (e) {
    throw new LoomError("stream.provider.malformed-event", `an event's data is not JSON: ${e.message}`);
  }
}

/** The whole pure path, body text to chunks (`map_event_stream`), chunk by chunk. */
export function* eventStreamChunks(pieces) {
  const mapper = new ChatCompletionsMapper();
  for (const data of sseData(pieces)) {
    // spec: stream.openai.sse, stream.openai.done-whitespace — the end marker, ASCII whitespace
    // stripped (not trim: U+FEFF, U+00A0)
    if (data.replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, "") === "[DONE]") break;
    const payload = parsePayload(data);
    // spec: stream.openai.object-payload
    if (!isObject(payload)) throw new LoomError("stream.provider.malformed-event", `an event's data is a JSON ${jsonType(payload)}`);
    yield* mapper.feed(payload);
  }
  yield* mapper.end(); // [DONE], or the body's end (#stream.openai.end-of-body)
}

export const mapEventStream = (pieces) => [...eventStreamChunks(pieces)];

/**
 * spec: stream.vectors.openai-fold — the mapping's chunks behind the consumer wrapper (a raise
 * becomes a terminal finish error with its code), folded by the tolerant assembler.
 */
function openaiFold(pieces) {
  const adapter = { stream: () => eventStreamChunks(pieces) };
  const { message, finish, usage } = assemble([...consume(adapter, {}, { aborted: false, reason: null })]);
  return { message, finish, usage };
}

// -- attribution (#stream.attribution) -----------------------------------------------------
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/; // an RFC 9110 token
const PRINTABLE = /^[\x20-\x7e]+$/; // single-line printable ASCII

/** spec: stream.attribution.user-agent, stream.attribution.static */
export function attributionHeaders(identity) {
  const bad = (message) => new LoomError("argument.invalid", message);
  if (!isObject(identity)) throw bad("the identity is not an object");
  for (const name of ["product", "version", "url"]) {
    const v = identity[name];
    if (typeof v !== "string") throw bad(`identity ${name} is not a string`);
    if (!PRINTABLE.test(v)) throw bad(`identity ${name} is not single-line printable ASCII`);
  }
  for (const name of ["product", "version"]) {
    if (!TOKEN.test(identity[name])) throw bad(`identity ${name} is not a product token`);
  }
  // the url stands in the header's comment as it is
  if (/[()\\]/.test(identity.url)) throw bad("identity url holds '(', ')' or '\\'");
  // spec: stream.vectors.header-names — the name in lowercase (one header in any case)
  return { "user-agent": `${identity.product}/${identity.version} (+${identity.url})` };
}

// -- vector functions (spec/stream.md § Conformance vectors) -------------------------------
// spec: stream.vectors.input-order — the inputs of these three functions are read as objects
// of known members: not-an-object, then unknown-field (any member it does not define), then
// missing-field (a required one absent), then the members' values in the order listed.
export function inputObject(value, path, required, optional = []) {
  if (!isObject(value)) throw wireError("not-an-object", `expected an object, got ${jsonType(value)}`, path);
  const extra = Object.keys(value).filter((k) => !required.includes(k) && !optional.includes(k)).sort();
  if (extra.length) throw wireError("unknown-field", `unknown field(s) ${extra.join(", ")}`, path);
  for (const name of [...required].sort()) {
    if (!Object.hasOwn(value, name)) throw wireError("missing-field", `missing field ${name}`, `${path}.${name}`);
  }
  return value;
}

// A count (`calls`, `abortAfter`, `raiseAfter`): a non-negative integer, else field-type.
const count = (v, path) => {
  if (!Number.isInteger(v) || v < 0) throw wireError("field-type", `expected a non-negative integer, got ${JSON.stringify(v)}`, path);
  return v;
};

/**
 * `{scripts: [{chunks, raiseAfter?}, ...], calls?, abortAfter?}`: the input object, then
 * `scripts` (a non-empty array), then each script in order (its object, its chunks, its
 * `raiseAfter`), then `calls`, then `abortAfter`. A `raiseAfter` or `abortAfter` of null is
 * absent; `calls` defaults to one call per script.
 */
function consumeInput(input) {
  const data = inputObject(input, "$", ["scripts"], ["calls", "abortAfter"]);
  if (!Array.isArray(data.scripts) || data.scripts.length === 0) {
    throw wireError("not-a-list", "scripts must be a non-empty array", "$.scripts");
  }
  const scripts = data.scripts.map((s, i) => {
    const where = `$.scripts[${i}]`;
    const script = inputObject(s, where, ["chunks"], ["raiseAfter"]);
    const chunks = decodeChunks(list(script.chunks, `${where}.chunks`), `${where}.chunks`);
    const raiseAfter = script.raiseAfter ?? undefined;
    return { chunks, raiseAfter: raiseAfter === undefined ? undefined : count(raiseAfter, `${where}.raiseAfter`) };
  });
  const calls = count(Object.hasOwn(data, "calls") ? data.calls : scripts.length, "$.calls");
  const abortAfter = data.abortAfter ?? undefined;
  return { scripts, calls, abortAfter: abortAfter === undefined ? undefined : count(abortAfter, "$.abortAfter") };
}

function consumeVector(input) {
  const { scripts, calls, abortAfter } = consumeInput(input);
  const adapter = new ScriptedAdapter(scripts);
  const out = [];
  for (let n = 0; n < calls; n++) {
    // a fresh signal per call, aborting once the consumer has taken abortAfter chunks
    const signal = { aborted: abortAfter === 0, reason: null };
    const taken = [];
    for (const chunk of consume(adapter, { call: n }, signal)) {
      taken.push(chunk);
      if (taken.length === abortAfter) signal.aborted = true;
    }
    out.push(taken);
  }
  return { calls: out };
}

function openaiInput(input) {
  const { sse } = inputObject(input, "$", ["sse"]);
  if (typeof sse === "string") return [sse];
  if (Array.isArray(sse) && sse.every((p) => typeof p === "string")) return sse;
  throw wireError("field-type", "sse must be a string or an array of strings", "$.sse");
}

// The identity object is read like the input (stream.wire codes); its values are judged by
// attributionHeaders (argument.invalid).
function attributionInput(input) {
  const { identity } = inputObject(input, "$", ["identity"]);
  return inputObject(identity, "$.identity", ["product", "version", "url"]);
}

// Billed counters (#stream.usage.disjoint, #stream.usage.reasoning-breakdown): the input
// counts are disjoint, so billed input is their sum (an absent count adds nothing); output
// already holds reasoning, so billed output is outputTokens.
function usageBilled(input) {
  const { usage } = inputObject(input, "$", ["usage"]);
  const u = decodeUsage(usage, "$.usage");
  return {
    billedInputTokens: u.inputTokens + (u.cacheReadTokens ?? 0) + (u.cacheWriteTokens ?? 0),
    billedOutputTokens: u.outputTokens,
  };
}

export const STREAM_IO_VECTORS = {
  "stream.consume": consumeVector,
  "stream.openai_map": (input) => ({ chunks: mapEventStream(openaiInput(input)) }),
  "stream.openai_fold": (input) => openaiFold(openaiInput(input)),
  // #stream.vectors.sse-data: the decoding alone, each dispatched event's data ([DONE] too)
  "stream.sse_data": (input) => ({ data: [...sseData(openaiInput(input))] }),
  "stream.attribution_headers": (input) => ({ headers: attributionHeaders(attributionInput(input)) }),
  "stream.usage_billed": usageBilled,
};
