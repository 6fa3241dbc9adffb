// The Anthropic Messages mapping of spec/stream.md (#stream.anthropic) as the vector function
// `stream.anthropic_map`: a streaming body's UTF-8 bytes, cut at given offsets, to protocol
// chunks and the assembled message; and the request bodies of both real adapters
// (`stream.anthropic_request`, `stream.openai_request`). Written from the spec text; no npm
// dependencies, no network.
//
// Rules (spec/stream.md § The Anthropic Messages adapter):
// - Bytes cut anywhere are decoded as UTF-8 incrementally (TextDecoder with `stream: true`,
//   keeping a byte order mark for the event-stream reader to drop), then read as server-sent
//   events; the end of the body ends a last event whose lines all ended (#stream.anthropic.sse).
// - Events are dispatched on their data's `type`: message_start (usage), content_block_*
//   (blocks), message_delta (stop reason, usage), message_stop (the end), error (finish error,
//   never a raise), ping and unknown types (nothing) (#stream.anthropic.events).
// - text / thinking / tool_use blocks are text / reasoning / tool-call blocks with their own
//   protocol index in start order; other blocks and signature_delta give nothing
//   (#stream.anthropic.blocks). Stop reasons (#stream.anthropic.stop-reason) and usage
//   (#stream.anthropic.usage) are mapped at the end, usage before finish.

import { LoomError } from "./journal.mjs";
import { Fields, assemble, decodeBlock, isObject, jsonType, list, wireError } from "./stream.mjs";
import { attributionHeaders, inputObject, parsePayload, sseData } from "./stream-io.mjs";

const failure = (message, code) => ({ kind: "error", failure: { message, code } });
const BLOCK_TYPES = { text: "text", thinking: "reasoning", tool_use: "tool-call" };
const DELTAS = { text: ["text_delta", "text"], reasoning: ["thinking_delta", "thinking"],
  "tool-call": ["input_json_delta", "partial_json"] };
const USAGE = { input_tokens: "inputTokens", output_tokens: "outputTokens",
  cache_read_input_tokens: "cacheReadTokens", cache_creation_input_tokens: "cacheWriteTokens" };
const isCount = (v) => Number.isInteger(v) && v >= 0;

/** spec: stream.anthropic.stop-reason */
export function mapStopReason(value) {
  if (value === "end_turn" || value === "stop_sequence") return { kind: "stop" };
  if (value === "tool_use") return { kind: "tool-calls" };
  if (value === "max_tokens" || value === "model_context_window_exceeded") return { kind: "max-tokens" };
  if (value === "refusal") return failure("the provider refused to continue the reply", "stream.provider.content-filter");
  return failure(`unknown stop_reason ${JSON.stringify(value)}`, "stream.provider.unknown-finish-reason");
}

/** Event payloads in, chunks out, until `ended`; then `end()`. */
export class MessagesStreamMapper {
  constructor() {
    Object.assign(this, { next: 0, blocks: new Map(), usage: {}, stop: null, error: null, ended: false });
  }

  feed(payload) {
    if (!isObject(payload)) throw new LoomError("stream.provider.malformed-event", `an event's data is a JSON ${jsonType(payload)}`);
    const out = [];
    if (this.ended) return out;
    switch (payload.type) {
      case "message_start":
        if (isObject(payload.message)) this.updateUsage(payload.message.usage);
        break;
      case "content_block_start":
        this.blockStart(payload, out);
        break;
      case "content_block_delta":
        this.blockDelta(payload, out);
        break;
      case "content_block_stop":
        this.blockStop(payload.index, out);
        break;
      case "message_delta": {
        const reason = isObject(payload.delta) ? payload.delta.stop_reason : undefined;
        if (typeof reason === "string") this.stop = mapStopReason(reason); // the last one wins
        this.updateUsage(payload.usage);
        break;
      }
      case "message_stop":
        this.ended = true;
        break;
      case "error": { // the in-band error: finish error, the second sanctioned error path
        const m = isObject(payload.error) ? payload.error.message : undefined;
        this.error = failure(typeof m === "string" && m !== "" ? m : "the provider reported an error in the stream",
          "stream.provider.in-band-error");
        this.ended = true;
        break;
      }
      default: // ping and unknown types
    }
    return out;
  }

  // spec: stream.anthropic.usage — each reported count replaces the one before
  updateUsage(raw) {
    if (!isObject(raw)) return;
    for (const member of Object.keys(USAGE)) if (isCount(raw[member])) this.usage[member] = raw[member];
  }

  blockStart(payload, out) {
    const key = payload.index;
    const content = payload.content_block;
    if (!isCount(key) || this.blocks.has(key) || !isObject(content)) return; // the first start wins
    const type = Object.hasOwn(BLOCK_TYPES, content.type) ? BLOCK_TYPES[content.type] : null;
    if (type === null) {
      this.blocks.set(key, null); // no protocol form: dropped with its deltas and stop
      return;
    }
    const block = { index: this.next++, type, parts: [], id: "", name: "", input: "{}" };
    this.blocks.set(key, block);
    out.push({ type: "block-start", index: block.index, blockType: type });
    if (type === "tool-call") {
      block.id = typeof content.id === "string" && content.id !== "" ? content.id : `call-${block.index}`;
      block.name = typeof content.name === "string" ? content.name : "";
      if (isObject(content.input)) block.input = JSON.stringify(content.input);
      const first = { type: "tool-call-delta", index: block.index, id: block.id };
      if (block.name !== "") first.name = block.name;
      first.argumentsDelta = ""; // the call's first delta: its id and name
      out.push(first);
    } else {
      this.fragment(block, content[DELTAS[type][1]], out);
    }
  }

  blockDelta(payload, out) {
    const block = isCount(payload.index) ? this.blocks.get(payload.index) : undefined;
    if (!block || !isObject(payload.delta)) return;
    const [kind, member] = DELTAS[block.type];
    if (payload.delta.type === kind) this.fragment(block, payload.delta[member], out);
  }

  fragment(block, piece, out) {
    if (typeof piece !== "string" || piece === "") return; // the empty first partial_json too
    block.parts.push(piece);
    if (block.type === "tool-call") out.push({ type: "tool-call-delta", index: block.index, id: block.id, argumentsDelta: piece });
    else out.push({ type: `${block.type}-delta`, index: block.index, text: piece });
  }

  blockStop(key, out) {
    const block = isCount(key) ? this.blocks.get(key) : undefined;
    if (!block) return;
    this.blocks.set(key, null);
    if (block.type === "tool-call" && block.parts.length === 0) { // no fragment: the start's input
      block.parts.push(block.input);
      out.push({ type: "tool-call-delta", index: block.index, id: block.id, argumentsDelta: block.input });
    }
    const text = block.parts.join("");
    out.push({ type: "block-end", index: block.index, block: block.type === "tool-call"
      ? { type: "tool-call", id: block.id, name: block.name, arguments: text } : { type: block.type, text } });
  }

  end() {
    const out = [];
    const reason = this.error ?? this.stop ?? failure("the provider's stream ended without a stop_reason", "stream.provider.no-finish-reason");
    if (reason.kind !== "error") {
      const open = [...this.blocks.entries()].filter(([, b]) => b).sort(([, a], [, b]) => a.index - b.index);
      for (const [key] of open) this.blockStop(key, out);
    }
    if ("input_tokens" in this.usage && "output_tokens" in this.usage) {
      const usage = {};
      for (const [member, name] of Object.entries(USAGE)) if (member in this.usage) usage[name] = this.usage[member];
      out.push({ type: "usage", usage });
    }
    out.push({ type: "finish", reason });
    return out;
  }
}

/** The whole pure path: byte pieces to chunks (#stream.anthropic.sse). */
export function mapMessagesStream(pieces) {
  const utf8 = new TextDecoder("utf-8", { ignoreBOM: true });
  const mapper = new MessagesStreamMapper();
  const out = [];
  function* texts() {
    for (const piece of pieces) yield utf8.decode(piece, { stream: true });
    yield utf8.decode();
  }
  for (const data of sseData(texts(), { endsLastEvent: true })) {
    const payload = parsePayload(data); // as the OpenAI mapping reads it (#stream.openai.json-payload)
    out.push(...mapper.feed(payload));
    if (mapper.ended) break;
  }
  out.push(...mapper.end());
  return out;
}

// spec: stream.vectors.input-order — not-an-object, unknown-field, missing-field, then `sse`
// (a string), then `cuts` (an array of strictly increasing integers inside the body).
function bodyPieces(input) {
  inputObject(input, "$", ["sse"], ["cuts"]);
  if (typeof input.sse !== "string") throw wireError("field-type", "sse must be a string", "$.sse");
  // a lone surrogate has no UTF-8 (TextEncoder would silently write U+FFFD for it)
  if (!input.sse.isWellFormed()) throw wireError("bad-value", "sse holds a lone surrogate", "$.sse");
  const body = new TextEncoder().encode(input.sse);
  const cuts = Object.hasOwn(input, "cuts") ? input.cuts : [];
  if (!Array.isArray(cuts)) throw wireError("not-a-list", "cuts must be an array", "$.cuts");
  const bounds = [0];
  cuts.forEach((cut, i) => {
    if (!Number.isInteger(cut)) throw wireError("field-type", "a cut is an integer", `$.cuts[${i}]`);
    if (!(bounds[bounds.length - 1] < cut && cut < body.length)) {
      throw wireError("bad-value", "cuts are increasing byte offsets inside the body", `$.cuts[${i}]`);
    }
    bounds.push(cut);
  });
  bounds.push(body.length);
  return bounds.slice(1).map((b, i) => body.subarray(bounds[i], b));
}

// -- the request (#stream.anthropic.request, #stream.anthropic.headers) --------------------
const invalid = (message) => new LoomError("argument.invalid", message);
const ROLES = ["system", "user", "assistant", "tool"];
const PRINTABLE = /^[\x20-\x7e]+$/;

// A message in the wire form (#stream.wire.check-order): role, content, unknown members, blocks.
function decodeMessage(value, path) {
  const f = new Fields(value, path);
  const role = f.get("role", (v, where) => {
    if (typeof v !== "string") throw wireError("field-type", `expected a string, got ${jsonType(v)}`, where);
    if (!ROLES.includes(v)) throw wireError("unknown-variant", `unknown role ${v}`, where);
    return v;
  });
  const items = f.get("content", list);
  f.done();
  return { role, content: items.map((b, i) => decodeBlock(b, `${path}.content[${i}]`)) };
}

function requestOf(value) {
  const data = inputObject(value, "$.request", ["model", "messages"], ["tools", "maxTokens", "temperature"]);
  const messages = list(data.messages, "$.request.messages").map((m, i) => decodeMessage(m, `$.request.messages[${i}]`));
  // null is a value, not an absence: tools: null is not-a-list (spec: stream.vectors.input-order)
  const tools = list(data.tools === undefined ? [] : data.tools, "$.request.tools").map((t, i) => {
    const tool = inputObject(t, `$.request.tools[${i}]`, ["name"], ["description", "parameters"]);
    const { name, description = "", parameters = {} } = tool;
    if (typeof name !== "string" || name === "") throw invalid("a tool's name is a non-empty string");
    if (typeof description !== "string") throw invalid("a tool's description is a string");
    if (!isObject(parameters)) throw invalid("a tool's parameters are a JSON Schema object");
    return { name, description, parameters };
  });
  const { model, maxTokens = null, temperature = null } = data;
  if (typeof model !== "string" || model === "") throw invalid("model is a non-empty string");
  if (maxTokens !== null && !Number.isInteger(maxTokens)) throw invalid("maxTokens is an int or null");
  if (temperature !== null && !Number.isFinite(temperature)) throw invalid("temperature is a finite number or null");
  return { model, messages, tools, maxTokens, temperature };
}

// spec: stream.anthropic.request — a tool call's raw arguments as the object `input` must be,
// holding no number beyond a double's range (stream.openai.number-range: JSON.parse reads
// 1e400 as Infinity, which the body could not hold)
function toolInput(call) {
  if (typeof call.arguments !== "string") throw invalid("arguments must be a raw JSON string");
  if (/^[ \t\n\r]*$/.test(call.arguments)) return {};
  let value;
  try {
    value = parsePayload(call.arguments);
  } catch {
    value = null;
  }
  if (!isObject(value)) throw invalid("the Messages API needs a tool call's arguments as a JSON object");
  return value;
}

function contentOf(message) {
  const out = [];
  for (const b of message.content) {
    if (b.type === "text") {
      if (message.role === "tool") throw invalid("a tool message holds tool results only");
      if (b.text !== "") out.push({ type: "text", text: b.text });
    } else if (b.type === "tool-call") {
      if (message.role !== "assistant") throw invalid(`a ${message.role} message cannot hold a tool call`);
      out.push({ type: "tool_use", id: b.id, name: b.name, input: toolInput(b) });
    } else if (b.type === "tool-result") {
      if (message.role === "assistant") throw invalid("an assistant message cannot hold a tool result");
      const result = { type: "tool_result", tool_use_id: b.callId, content: b.content };
      if (b.isError) result.is_error = true;
      out.push(result);
    } else if (message.role !== "assistant") {
      throw invalid(`a ${message.role} message cannot hold reasoning`);
    } // reasoning: not sent back
  }
  return out;
}

export function buildMessagesBody(request, defaultMaxTokens) {
  const system = [];
  const messages = [];
  for (const message of request.messages) {
    if (message.role === "system") {
      if (message.content.some((b) => b.type !== "text")) throw invalid("a system message holds text blocks only");
      system.push(...message.content.map((b) => b.text).filter((t) => t !== ""));
      continue;
    }
    const role = message.role === "assistant" ? "assistant" : "user";
    const content = contentOf(message);
    if (!content.length) continue; // an empty message is refused by the API
    const last = messages[messages.length - 1];
    if (last && last.role === role) last.content.push(...content); // one turn per role
    else messages.push({ role, content });
  }
  const maxTokens = request.maxTokens ?? defaultMaxTokens;
  // spec: stream.anthropic.request — the least max_tokens the API takes
  if (maxTokens < 1) throw invalid("max_tokens must be at least 1");
  const body = { model: request.model, max_tokens: maxTokens, messages, stream: true };
  if (system.length) body.system = system.join("\n\n");
  if (request.tools.length) {
    body.tools = request.tools.map((t) => ({ name: t.name, description: t.description,
      input_schema: Object.keys(t.parameters).length ? t.parameters : { type: "object" } }));
  }
  if (request.temperature !== null) body.temperature = request.temperature;
  return body;
}

function requestVector(input) {
  const data = inputObject(input, "$", ["request", "apiKey", "identity"], ["defaultMaxTokens", "version"]);
  const request = requestOf(data.request);
  const identity = inputObject(data.identity, "$.identity", ["product", "version", "url"]);
  const userAgent = attributionHeaders(identity)["user-agent"]; // argument.invalid on bad values
  const { apiKey, version = "2023-06-01", defaultMaxTokens = 4096 } = data;
  for (const [name, v] of [["apiKey", apiKey], ["version", version]]) {
    if (typeof v !== "string" || !PRINTABLE.test(v)) throw invalid(`${name} must be a non-empty single-line printable ASCII string`);
  }
  if (!Number.isInteger(defaultMaxTokens) || defaultMaxTokens < 1) throw invalid("defaultMaxTokens is an int >= 1");
  // spec: stream.vectors.header-names — every name in lowercase
  const headers = { "user-agent": userAgent, "x-api-key": apiKey, "anthropic-version": version,
    "content-type": "application/json", accept: "text/event-stream" };
  return { method: "POST", path: "/v1/messages", headers, body: buildMessagesBody(request, defaultMaxTokens) };
}

// -- the OpenAI-compatible request (#stream.openai.request) ---------------------------------
// A message's text is its text blocks' texts joined with nothing between them.
const textOf = (message) => message.content.filter((b) => b.type === "text").map((b) => b.text).join("");

function chatMessages(message) {
  const { role, content } = message;
  if (role === "system") {
    if (content.some((b) => b.type !== "text")) throw invalid("a system message holds text blocks only");
    return [{ role: "system", content: textOf(message) }];
  }
  if (role === "assistant") {
    if (content.some((b) => b.type === "tool-result")) throw invalid("an assistant message cannot hold a tool result");
    const out = { role: "assistant", content: textOf(message) || null };
    const calls = content.filter((b) => b.type === "tool-call").map((b) => {
      // spec: stream.tool-arguments-raw-json — sent as the raw text they are
      if (typeof b.arguments !== "string") throw invalid("arguments must be a raw JSON string");
      return { id: b.id, type: "function", function: { name: b.name, arguments: b.arguments } };
    });
    if (calls.length) out.tool_calls = calls;
    return [out]; // reasoning is not sent back
  }
  // user and tool messages: each run of text one user message, each tool result a tool message
  const out = [];
  let run = [];
  const flush = () => {
    if (run.length) out.push({ role: "user", content: run.join("") });
    run = [];
  };
  for (const b of content) {
    if (b.type === "text") {
      if (role === "tool") throw invalid("a tool message holds tool results only");
      run.push(b.text);
    } else if (b.type === "tool-result") {
      flush();
      out.push({ role: "tool", tool_call_id: b.callId, content: b.content });
    } else {
      throw invalid(`a ${role} message cannot hold a ${b.type} block`);
    }
  }
  flush();
  return out;
}

export function buildChatBody(request) {
  const body = { model: request.model, messages: request.messages.flatMap(chatMessages),
    stream: true, stream_options: { include_usage: true } };
  if (request.tools.length) {
    body.tools = request.tools.map((t) => ({ type: "function",
      function: { name: t.name, description: t.description, parameters: t.parameters } }));
  }
  if (request.maxTokens !== null) body.max_tokens = request.maxTokens;
  if (request.temperature !== null) body.temperature = request.temperature;
  return body;
}

export const STREAM_ANTHROPIC_VECTORS = {
  "stream.openai_request": (input) => {
    const data = inputObject(input, "$", ["request"], []);
    return { body: buildChatBody(requestOf(data.request)) };
  },
  "stream.anthropic_request": requestVector,
  "stream.anthropic_map": (input) => {
    const chunks = mapMessagesStream(bodyPieces(input));
    const { message, finish, usage } = assemble(chunks);
    return { chunks, message, finish, usage };
  },
};
