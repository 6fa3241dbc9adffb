// The stream protocol's vector functions `stream.check`, `stream.assemble`, `stream.decode`
// and `stream.enforce`, written from spec/stream.md and seed 001 (dsh-llm "LLM Streaming").
// No npm dependencies. The adapter seam, the OpenAI mapping and attribution are stream-io.mjs.
//
// Rules (spec/stream.md):
// - The wire form (#stream.wire): closed unions of seven chunk variants, four block types and
//   five finish kinds; camelCase fields, optional ones omitted (never null); malformed JSON is
//   a `stream.wire.*` error, but `index` may be any number and tool arguments any JSON value,
//   because those two are the checker's to judge (#stream.wire.checker-owned-values).
// - The checker (#stream.checker): every violation, in chunk order, as {rule, index}. Two
//   tables, one for each block index and one for the stream; a lookup miss is the violation
//   and leaves its machine where it was. Per-chunk rules (index, raw JSON) apply to every chunk.
// - The assembler (#stream.assembler): folds chunks into an assistant message as dsh-llm's
//   assembler does (tolerant: every chunk folds), with the interrupted prefix; strict mode is
//   the checker in front of the same fold.
// - The strict form (#stream.errors.rule-codes): `enforce` passes on the valid prefix, then
//   raises the first violation, its rule id the code and its chunk index the detail.

import { LoomError } from "./journal.mjs";

// -- the wire form (#stream.wire) ----------------------------------------------------------
const CHUNK_TYPES = ["block-start", "text-delta", "reasoning-delta", "tool-call-delta",
  "block-end", "usage", "finish"];
const BLOCK_TYPES = ["text", "reasoning", "tool-call", "tool-result"];
const FINISH_KINDS = ["stop", "tool-calls", "max-tokens", "aborted", "error"];
const FAILED_KINDS = new Set(["aborted", "error"]); // spec: stream.finish.failure
const DELTA_BLOCK_TYPE = { "text-delta": "text", "reasoning-delta": "reasoning",
  "tool-call-delta": "tool-call" };
const USAGE_OPTIONAL = ["cacheReadTokens", "cacheWriteTokens", "reasoningTokens"];

export const wireError = (code, message, path) => new LoomError(`stream.wire.${code}`, message, { path });

export const jsonType = (v) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
export const isObject = (v) => jsonType(v) === "object";

// Reads the members of one JSON object; `done()` refuses any member nobody read (closed union).
export class Fields {
  constructor(value, path) {
    if (!isObject(value)) throw wireError("not-an-object", `expected an object, got ${jsonType(value)}`, path);
    Object.assign(this, { value, path, read: new Set() });
  }
  get(name, reader, optional = false) {
    this.read.add(name);
    const where = `${this.path}.${name}`;
    if (!Object.hasOwn(this.value, name)) {
      if (optional) return undefined;
      throw wireError("missing-field", `missing field ${name}`, where);
    }
    return reader(this.value[name], where);
  }
  done() {
    const extra = Object.keys(this.value).filter((k) => !this.read.has(k)).sort();
    if (extra.length) throw wireError("unknown-field", `unknown field(s) ${extra.join(", ")}`, this.path);
  }
}

const typed = (type) => (v, path) => {
  if (jsonType(v) !== type) throw wireError("field-type", `expected a ${type}, got ${jsonType(v)}`, path);
  return v;
};
const string = typed("string");
const boolean = typed("boolean");
const number = typed("number"); // spec: stream.wire.checker-owned-values — any number as index
const anyValue = (v) => v; // spec: stream.wire.checker-owned-values — arguments of any type
const variant = (names, label) => (v, path) => {
  if (!names.includes(string(v, path))) throw wireError("unknown-variant", `unknown ${label} ${v}`, path);
  return v;
};
const count = (v, path) => {
  if (!Number.isInteger(number(v, path)) || v < 0) {
    throw wireError("bad-value", `a token count must be a non-negative integer, got ${v}`, path);
  }
  return v;
};

export function decodeUsage(value, path) {
  const f = new Fields(value, path);
  const usage = { inputTokens: f.get("inputTokens", count), outputTokens: f.get("outputTokens", count) };
  for (const name of USAGE_OPTIONAL) {
    const n = f.get(name, count, true);
    if (n !== undefined) usage[name] = n; // spec: stream.usage.absent-not-zero
  }
  f.done();
  return usage;
}

function decodeFailure(value, path) {
  const f = new Fields(value, path);
  const failure = { message: f.get("message", string) };
  const code = f.get("code", string, true);
  if (code !== undefined) failure.code = code;
  f.done();
  return failure;
}

export function decodeReason(value, path) {
  const f = new Fields(value, path);
  const kind = f.get("kind", variant(FINISH_KINDS, "finish kind"));
  const failure = f.get("failure", decodeFailure, !FAILED_KINDS.has(kind));
  f.done();
  if (failure === undefined) return { kind };
  // spec: stream.finish.failure — "the other kinds MUST NOT" carry a failure
  if (!FAILED_KINDS.has(kind)) throw wireError("bad-value", `a ${kind} finish carries no failure`, `${path}.failure`);
  return { kind, failure };
}

export function decodeBlock(value, path) {
  const f = new Fields(value, path);
  const type = f.get("type", variant(BLOCK_TYPES, "block type"));
  let block;
  if (type === "text" || type === "reasoning") {
    block = { type, text: f.get("text", string) };
  } else if (type === "tool-call") {
    block = { type, id: f.get("id", string), name: f.get("name", string), arguments: f.get("arguments", anyValue) };
  } else {
    block = { type, callId: f.get("callId", string), content: f.get("content", string) };
    if (f.get("isError", boolean, true)) block.isError = true; // "isError only when true"
  }
  f.done();
  return block;
}

const CHUNK_FIELDS = {
  "block-start": (f) => ({ index: f.get("index", number), blockType: f.get("blockType", variant(BLOCK_TYPES, "block type")) }),
  "text-delta": (f) => ({ index: f.get("index", number), text: f.get("text", string) }),
  "reasoning-delta": (f) => ({ index: f.get("index", number), text: f.get("text", string) }),
  "tool-call-delta": (f) => {
    const out = { index: f.get("index", number), id: f.get("id", string) };
    const name = f.get("name", string, true);
    if (name !== undefined) out.name = name;
    out.argumentsDelta = f.get("argumentsDelta", anyValue);
    return out;
  },
  "block-end": (f) => ({ index: f.get("index", number), block: f.get("block", decodeBlock) }),
  usage: (f) => ({ usage: f.get("usage", decodeUsage) }),
  finish: (f) => ({ reason: f.get("reason", decodeReason) }),
};

/** One wire chunk, validated and copied (spec: stream.wire.malformed). */
export function decodeChunk(value, path) {
  const f = new Fields(value, path);
  const type = f.get("type", variant(CHUNK_TYPES, "chunk type"));
  const chunk = { type, ...CHUNK_FIELDS[type](f) };
  f.done();
  return chunk;
}

/** A member that must be a JSON array (`not-a-list` otherwise). */
export const list = (v, path) => {
  if (!Array.isArray(v)) throw wireError("not-a-list", `expected an array, got ${jsonType(v)}`, path);
  return v;
};

/** A chunk list, read item by item: the first malformed chunk is the error. */
export const decodeChunks = (items, path) => items.map((item, i) => decodeChunk(item, `${path}[${i}]`));

/** The `{"chunks": [...]}` input of a vector, every chunk decoded before anything judges it. */
function inputChunks(input) {
  const f = new Fields(input, "$");
  const items = f.get("chunks", list);
  f.done();
  return decodeChunks(items, "$.chunks");
}

// -- the contract checker (#stream.checker) ------------------------------------------------
const RULE = {
  usageBeforeFinish: "stream.usage-before-finish",
  singleUsage: "stream.single-usage",
  singleFinish: "stream.single-finish",
  nothingAfterFinish: "stream.nothing-after-finish",
  index: "stream.index-non-negative-integer",
  blockStartUnique: "stream.block-start-unique",
  blockStartAfterEnd: "stream.block-start-after-end",
  deltaTargetsOpen: "stream.delta-targets-open-block",
  blockEndClosesOpen: "stream.block-end-closes-open-block",
  openAtFinish: "stream.open-blocks-at-finish",
  rawJson: "stream.tool-arguments-raw-json",
  identity: "stream.tool-call-identity-stable",
};

// The life of one block index: (state, event) -> state; a miss is the event's rule.
const BLOCK_TRANSITIONS = { "unseen start": "open", "open delta": "open", "open end": "closed" };
const BLOCK_MISS_RULE = { start: RULE.blockStartUnique, delta: RULE.deltaTargetsOpen, end: RULE.blockEndClosesOpen };
// spec: stream.block-start-after-end — a start of an index after its block-end (loom-ref's choice)
const BLOCK_MISS_OVERRIDES = { "closed start": RULE.blockStartAfterEnd };

// The life of the stream: (state, event) -> state; a miss names its rule.
const STREAM_TRANSITIONS = {
  "streaming block": "streaming", "streaming usage": "usage-seen", "streaming finish": "finished",
  "usage-seen block": "usage-seen", "usage-seen finish": "finished",
};
const STREAM_MISS_RULE = {
  "usage-seen usage": RULE.singleUsage, // spec: stream.single-usage
  "finished usage": RULE.usageBeforeFinish, // spec: stream.usage-before-finish
  "finished finish": RULE.singleFinish, // spec: stream.single-finish
  "finished block": RULE.nothingAfterFinish, // spec: stream.nothing-after-finish
};

const streamEvent = (chunk) => (chunk.type === "usage" || chunk.type === "finish" ? chunk.type : "block");
const blockEvent = (chunk) => (chunk.type === "block-start" ? "start" : chunk.type === "block-end" ? "end" : "delta");
const blockTypeOf = (chunk) => chunk.blockType ?? chunk.block?.type ?? DELTA_BLOCK_TYPE[chunk.type];

/** spec: stream.index-non-negative-integer (an integral float such as 1.0 is the integer 1). */
export const isValidIndex = (index) => Number.isInteger(index) && index >= 0;

// spec: stream.index-non-negative-integer — judged on every block chunk, even after finish.
function checkIndex(chunk, report) {
  if ("index" in chunk && !isValidIndex(chunk.index)) report(RULE.index);
}

// spec: stream.tool-arguments-raw-json — argumentsDelta and block-end arguments are strings.
function checkRawArguments(chunk, report) {
  if (chunk.type === "tool-call-delta" && typeof chunk.argumentsDelta !== "string") report(RULE.rawJson);
  if (chunk.type === "block-end" && chunk.block.type === "tool-call" && typeof chunk.block.arguments !== "string") {
    report(RULE.rawJson);
  }
}

// spec: stream.tool-call-identity-stable — one id per block; a name, once given, stays.
function checkIdentity(block, id, name, report) {
  if (block.id === undefined) block.id = id;
  else if (id !== block.id) report(RULE.identity);
  if (name === undefined) return;
  if (block.name === undefined) block.name = name;
  else if (name !== block.name) report(RULE.identity);
}

// spec: stream.block-start-unique, stream.block-start-after-end, stream.delta-targets-open-block,
// stream.block-end-closes-open-block — the block table, plus "of its own type".
function feedBlock(blocks, chunk, report) {
  if (!isValidIndex(chunk.index)) return; // "A chunk with an invalid index addresses no block."
  const event = blockEvent(chunk);
  const type = blockTypeOf(chunk);
  const block = blocks.get(chunk.index);
  const move = `${block ? block.state : "unseen"} ${event}`;
  const next = BLOCK_TRANSITIONS[move];
  if (!next) return report(BLOCK_MISS_OVERRIDES[move] ?? BLOCK_MISS_RULE[event]);
  if (!block) return void blocks.set(chunk.index, { state: next, type });
  if (block.type !== type) return report(BLOCK_MISS_RULE[event]);
  if (chunk.type === "tool-call-delta") checkIdentity(block, chunk.id, chunk.name, report);
  if (chunk.type === "block-end" && type === "tool-call") checkIdentity(block, chunk.block.id, chunk.block.name, report);
  block.state = next;
}

// spec: stream.open-blocks-at-finish — open blocks only under error or aborted; reported once.
function checkOpenAtFinish(blocks, chunk, report) {
  if (FAILED_KINDS.has(chunk.reason.kind)) return;
  if ([...blocks.values()].some((b) => b.state === "open")) report(RULE.openAtFinish);
}

/** The checker fed one chunk at a time: `feed` returns that chunk's violations. */
export class IncrementalChecker {
  constructor() {
    Object.assign(this, { blocks: new Map(), state: "streaming", position: 0 });
  }
  get finished() {
    return this.state === "finished";
  }
  feed(chunk) {
    const index = this.position++;
    const found = [];
    const report = (rule) => void found.push({ rule, index });
    checkIndex(chunk, report);
    checkRawArguments(chunk, report);
    const event = streamEvent(chunk);
    const next = STREAM_TRANSITIONS[`${this.state} ${event}`];
    if (!next) {
      report(STREAM_MISS_RULE[`${this.state} ${event}`]);
      return found;
    }
    if (event === "finish") checkOpenAtFinish(this.blocks, chunk, report);
    if (event === "block") feedBlock(this.blocks, chunk, report);
    this.state = next;
    return found;
  }
}

/** `check(chunks)`: every violation, in chunk order, as `{rule, index}`. */
export function check(chunks) {
  const checker = new IncrementalChecker();
  const found = chunks.flatMap((chunk) => checker.feed(chunk));
  // spec: stream.single-finish — "A missing finish is reported at index len(chunks)".
  if (!checker.finished) found.push({ rule: RULE.singleFinish, index: chunks.length });
  return found;
}

// -- the assembler (#stream.assembler) -----------------------------------------------------
// It folds as dsh-llm's assembler does: every chunk folds wherever it comes (the last usage
// and the last finish win), a missing finish is `stop`, stragglers after a block-end are
// ignored, and only what no fold can take raises (#stream.assembler.type-errors). `strict`
// puts the contract checker in front of the same fold (#stream.assembler.strict).

// spec: stream.assembler.interrupted — what ECMAScript's trim removes is exactly the blank set
const isBlank = (text) => text.trim() === "";
const TEXTUAL = new Set(["text", "reasoning"]);

/** Folds chunks into content blocks; `result()` at any time. */
export class BlockAssembler {
  constructor({ strict = false } = {}) {
    this.slots = new Map(); // insertion order is first-seen order
    this.usage = null;
    this.finish = null;
    this.checker = strict ? new IncrementalChecker() : null;
    this.failed = null; // spec: stream.assembler.failed-stays-failed
  }

  guard() {
    if (this.failed) throw new LoomError(this.failed.code, `the assembler failed earlier: ${this.failed.message}`);
  }

  feed(chunk) {
    this.guard();
    try {
      if (this.checker) {
        const first = this.checker.feed(chunk)[0];
        if (first) throw new LoomError(first.rule, `chunk ${first.index} breaks ${first.rule}`, { index: first.index });
      }
      this.fold(chunk);
    } catch (error) {
      if (error instanceof LoomError) this.failed = error;
      throw error;
    }
  }

  // spec: stream.assembler.folds-everything, stream.assembler.deltas-by-block-type
  fold(chunk) {
    switch (chunk.type) {
      case "usage":
        this.usage = chunk.usage; // the last wins
        return;
      case "finish":
        this.finish = chunk.reason; // the last wins
        return;
      case "block-start":
        this.slot(chunk.index, chunk.blockType);
        return;
      case "text-delta":
      case "reasoning-delta": {
        const slot = this.slot(chunk.index, DELTA_BLOCK_TYPE[chunk.type]);
        if (slot && TEXTUAL.has(slot.type)) slot.parts.push(chunk.text);
        return;
      }
      case "tool-call-delta": {
        const slot = this.slot(chunk.index, "tool-call");
        if (!slot) return;
        rawJson(chunk.argumentsDelta, "argumentsDelta");
        if (slot.type !== "tool-call") return;
        slot.id = chunk.id; // the last delta's id
        if (chunk.name) slot.name = chunk.name; // the last non-empty name
        slot.parts.push(chunk.argumentsDelta); // spec: stream.assembler.arguments-unparsed
        return;
      }
      default: {
        const slot = this.slot(chunk.index, chunk.block.type);
        if (!slot) return;
        if (chunk.block.type === "tool-call") rawJson(chunk.block.arguments, "block-end tool-call arguments");
        slot.ended = chunk.block; // spec: stream.assembler.first-block-end-wins
        slot.parts = [];
      }
    }
  }

  // The type of the open block at `index` (seen, not yet ended), or null: right after a
  // text or reasoning delta was fed, "text" here means its text went into a text block
  // (deltas.collect-text).
  openBlockType(index) {
    const slot = this.slots.get(index);
    return slot && !slot.ended ? slot.type : null;
  }

  // The open slot at `index` (opened if unseen: stream.assembler.delta-only), or null for a
  // straggler after its block-end.
  slot(index, type) {
    // spec: stream.assembler.type-errors
    if (!isValidIndex(index)) throw new LoomError(RULE.index, `index ${index} is not a non-negative integer`);
    let slot = this.slots.get(index);
    if (!slot) this.slots.set(index, (slot = { index, type, parts: [], id: undefined, name: undefined, ended: null }));
    return slot.ended ? null : slot;
  }

  static blockOf(slot) {
    if (slot.ended) return slot.ended;
    if (TEXTUAL.has(slot.type)) return { type: slot.type, text: slot.parts.join("") };
    if (slot.type === "tool-call") {
      // spec: stream.assembler.unnamed-call
      return { type: "tool-call", id: slot.id ?? `call-${slot.index}`, name: slot.name ?? "", arguments: slot.parts.join("") };
    }
    return null; // an open tool-result has no content: dropped
  }

  // spec: stream.assembler.first-seen-order, stream.assembler.max-tokens-drops-tool-calls
  blocks() {
    this.guard();
    const dropCalls = this.finish !== null && this.finish.kind === "max-tokens";
    return [...this.slots.values()].map(BlockAssembler.blockOf)
      .filter((b) => b !== null && !(dropCalls && b.type === "tool-call"));
  }

  // spec: stream.assembler.interrupted
  interruptedBlocks() {
    this.guard();
    return [...this.slots.values()].map(BlockAssembler.blockOf)
      .filter((b) => b !== null && TEXTUAL.has(b.type) && !isBlank(b.text));
  }

  result() {
    this.guard();
    if (this.checker && !this.checker.finished) {
      throw new LoomError(RULE.singleFinish, "the stream ended without a finish chunk", { index: this.checker.position });
    }
    return {
      message: { role: "assistant", content: this.blocks() },
      finish: this.finish ?? { kind: "stop" }, // spec: stream.assembler.missing-finish-is-stop
      usage: this.usage,
      interrupted: this.interruptedBlocks(),
    };
  }
}

function rawJson(value, what) {
  if (typeof value !== "string") throw new LoomError(RULE.rawJson, `${what} is not a string`);
}

export function assemble(chunks, options = {}) {
  const assembler = new BlockAssembler(options);
  for (const chunk of chunks) assembler.feed(chunk);
  return assembler.result();
}

// -- the strict form (#stream.errors.rule-codes) --------------------------------------------
/**
 * `enforce(chunks)` as data: how many chunks it passed on before its first violation, and
 * that violation as `{code, index}` (null for a valid stream). The checker reports in chunk order,
 * and a chunk's violations never depend on later chunks, so its first report is the one a
 * streaming enforce meets first; a missing finish (index len(chunks)) comes after every chunk.
 */
export function enforce(chunks) {
  const first = check(chunks)[0];
  if (!first) return { yielded: chunks.length, raised: null };
  // the chunks before the first violation are the valid prefix it yields
  return { yielded: first.index, raised: { code: first.rule, index: first.index } };
}

// -- vector functions (spec/stream.md § Conformance vectors) -------------------------------
export const STREAM_VECTORS = {
  "stream.check": (input) => ({ violations: check(inputChunks(input)) }),
  "stream.assemble": (input) => {
    const f = new Fields(input, "$");
    const items = f.get("chunks", list);
    const strict = f.get("strict", boolean, true) ?? false;
    f.done();
    return assemble(decodeChunks(items, "$.chunks"), { strict });
  },
  // decoded into the closed union and encoded again: decodeChunk already writes the wire form
  // (optional fields omitted, isError only when true, an integral index a JS integer).
  "stream.decode": (input) => ({ chunks: inputChunks(input) }),
  "stream.enforce": (input) => enforce(inputChunks(input)),
};
