// Governed streaming deltas: a small effect runtime with the guarded delta channel (the vector
// functions are in deltas-vectors.mjs), written from spec/deltas.md (chapter 3a) and
// spec/effects.md (chapter 3); taint, validators and delta guards (spec/governance.md,
// chapter 4) come from governance.mjs and governance-guards.mjs. No npm dependencies.
//
// Rules (spec/deltas.md):
// - A chunk is a text chunk {delta}, a reset chunk {delta: "", reset, attempt >= 2} or the
//   terminal chunk {delta: "", done, usage?}; its delta is tainted llm:<toolId>
//   (#deltas.record, #deltas.taint). JSON form: absent fields omitted (#deltas.json).
// - One channel per call on ctx.onDelta (#deltas.channel): each text delta passes every
//   attempt guard first (#deltas.guard-before-delivery, #deltas.guard-order), then goes to the
//   per-call sink, then the configured sink; a sink's exception is reported, never raised
//   (#deltas.sink-isolated); nothing is delivered after settlement or an abort
//   (#deltas.live-window); a sever is sticky for the attempt (#deltas.sever-sticky).
// - Attempt n > 1 starts with an eager reset chunk to both sinks and fresh guards
//   (#deltas.reset). The effect's end chunk is held; after the whole route returned, the
//   runtime sends the terminal chunk to the per-call sink only, if the attempt streamed
//   (#deltas.terminal). An output-inspecting middleware without a delta guard silences the
//   channel and warns once (#deltas.fail-closed).

import { LoomError } from "./journal.mjs";
import { Tainted, invalid, ruleMatches, walkStrings } from "./governance.mjs";
import { HoldBackGuard, RunningTextGuard, TokenBudgetGuard } from "./governance-guards.mjs";
// signals (#effects.signal-compose, #effects.signal-detach): the effects chapter's one implementation
import { ManualClock, NEVER, Signal, anyOf } from "./effects-runtime.mjs";

export { Signal };

const jsonType = (v) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
const isObject = (v) => jsonType(v) === "object";
const copy = (v) => (v === undefined ? null : JSON.parse(JSON.stringify(v)));
export const STREAMING_DISABLED = "streaming disabled: inspects output without a delta form";

// -- the record (#deltas.record, #deltas.json) ----------------------------------------------
const USAGE_KEYS = ["inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens", "reasoningTokens"];

/** The stream chapter's usage wire form (stream.usage); a copy, or argument.invalid. */
export function checkUsage(u) {
  if (!isObject(u)) throw invalid("usage is an object");
  for (const k of Object.keys(u)) if (!USAGE_KEYS.includes(k)) throw invalid(`unknown usage field ${k}`);
  for (const k of USAGE_KEYS.slice(0, 2)) if (!(k in u)) throw invalid(`usage needs ${k}`);
  const out = {};
  for (const k of USAGE_KEYS) {
    if (!(k in u)) continue;
    if (!Number.isInteger(u[k]) || u[k] < 0) throw invalid(`${k} is an int >= 0`);
    out[k] = u[k];
  }
  return out;
}

/** EffectDelta{delta: Tainted<str>, done?, reset?, attempt?, usage?} (spec: deltas.record). */
export class EffectDelta {
  constructor({ delta, done = false, reset = false, attempt = null, usage = null }) {
    if (!(delta instanceof Tainted) || typeof delta.value !== "string") throw invalid("delta is a tainted string");
    if (typeof done !== "boolean" || typeof reset !== "boolean") throw invalid("done and reset are booleans");
    const text = delta.value;
    if (done && reset) throw invalid("a chunk is a reset or a terminal, not both");
    if (reset) {
      if (text !== "" || usage !== null) throw invalid("a reset chunk is {delta: '', reset, attempt}");
      if (!Number.isInteger(attempt) || attempt < 2) throw invalid("a reset's attempt is an int >= 2");
    } else if (done) {
      if (text !== "" || attempt !== null) throw invalid("a terminal chunk is {delta: '', done, usage?}");
    } else if (text === "" || attempt !== null || usage !== null) {
      throw invalid("a text chunk carries a non-empty delta and nothing else");
    }
    Object.assign(this, { delta, done, reset, attempt, usage: usage === null ? null : checkUsage(usage) });
    Object.freeze(this);
  }
  toJSON() { // spec: deltas.json — absent fields omitted
    const out = { delta: this.delta.value, origin: this.delta.origin };
    if (this.done) out.done = true;
    if (this.reset) Object.assign(out, { reset: true, attempt: this.attempt });
    if (this.usage) out.usage = this.usage;
    return out;
  }
}

/** What an effect writes to end its stream: its end-of-stream chunk (usage optional). */
export const endChunk = (usage = null, origin = "effect:end") =>
  new EffectDelta({ delta: new Tainted("", origin), done: true, usage });

// -- the channel (#deltas.channel) ----------------------------------------------------------
const isReset = (v) => v instanceof EffectDelta && v.reset;

class Channel {
  constructor(rt, call, effect, signal) {
    const silent = rt.streamingBlockedBy.length > 0; // spec: deltas.fail-closed
    Object.assign(this, { rt, call, signal, silent, origin: `llm:${call.toolId}`, dropped: 0, settled: false,
      perCall: call.onDelta ?? null, configured: effect.deltaSink ?? null });
    if (silent && (this.perCall || this.configured)) rt.onWarn(STREAMING_DISABLED); // once per call
    this.beginAttempt(1, null);
  }

  /** spec: deltas.reset — attempt n > 1: an eager reset, fresh guards, nothing held. */
  beginAttempt(n, ctx) {
    if (n > 1 && !this.silent) {
      this.deliver(new EffectDelta({ delta: new Tainted("", this.origin), reset: true, attempt: n }), false);
    }
    this.guards = [];
    if (ctx && !this.silent) {
      for (const m of this.rt.middleware) { // spec: deltas.guard-order — outermost first
        const g = m.deltaGuard ? m.deltaGuard(ctx) : null;
        if (g === null || g === undefined) continue;
        if (typeof g.reset === "function") g.reset();
        this.guards.push(g);
      }
    }
    Object.assign(this, { severed: null, heldEnd: null, streamed: false, received: [], delivered: 0,
      released: new Map() });
  }

  write(value) {
    // spec: deltas.live-window — dropped silently once settled or aborted
    if (this.settled || this.signal.aborted) return void (this.dropped += 1);
    if (this.severed) throw this.severed; // spec: deltas.sever-sticky
    if (isReset(value)) throw invalid("reset chunks are the runtime's"); // spec: deltas.reset
    if (value instanceof EffectDelta && value.done) {
      if (!this.silent) [this.heldEnd, this.streamed] = [value, true]; // spec: deltas.terminal — held
      return;
    }
    if (typeof value !== "string") throw invalid("an effect writes a text delta or its end chunk");
    if (value === "" || this.silent) return;
    try { // spec: deltas.guard-before-delivery — every guard, in order, before any sink
      for (const g of this.guards) {
        const out = typeof g.check === "function" ? g.check(value) : g(value);
        // a hold-back guard (one with flush) returns what it releases
        if (typeof g.flush === "function") this.released.set(g, (this.released.get(g) ?? "") + out);
      }
    } catch (e) {
      this.severed = e;
      throw e;
    }
    this.streamed = true;
    this.received.push(value);
    this.deliverText();
  }

  // spec: deltas.hold-back — deliver what EVERY hold-back guard released (all of it without one).
  deliverText(all = false) {
    const text = this.received.join("");
    let upTo = text.length;
    if (!all) for (const r of this.released.values()) upTo = Math.min(upTo, r.length);
    if (upTo <= this.delivered) return;
    const piece = text.slice(this.delivered, upTo);
    this.delivered = upTo;
    this.deliver(new EffectDelta({ delta: new Tainted(piece, this.origin) }), false);
  }

  deliver(chunk, terminal) {
    const sinks = terminal ? [this.perCall] : [this.perCall, this.configured]; // per-call first
    for (const sink of sinks) {
      if (!sink) continue;
      if (this.settled || this.signal.aborted) return void (this.dropped += 1); // before each sink
      try {
        sink(chunk);
      } catch (e) { // spec: deltas.sink-isolated
        this.rt.onWarn(`delta sink raised: ${e.constructor.name}: ${e.message}`);
      }
    }
  }

  /** spec: deltas.terminal — after the whole route returned. */
  succeeded() {
    if (this.silent || !this.streamed || this.signal.aborted) return;
    for (const g of this.guards) if (typeof g.flush === "function") g.flush(); // spec: deltas.hold-back
    this.deliverText(true);
    const usage = this.heldEnd ? this.heldEnd.usage : null;
    this.deliver(new EffectDelta({ delta: new Tainted("", this.origin), done: true, usage }), true);
  }
}

// -- the runtime (#effects.route-order) -----------------------------------------------------
const REFUSALS = new Set(["effect.refused", "effect.denied", "effect.rate-limited", "effect.mode-refused",
  "effect.over-budget", "effect.killed", "effect.aborted"]);
/** spec: effects.refusal-never-retried */
export const retryable = (e) => e instanceof LoomError && !REFUSALS.has(e.code) &&
  !e.code.startsWith("argument.") && e.code !== "governance.tainted-request";

export function aborted(reason, cause = null) {
  const e = new LoomError("effect.aborted", String(reason), { reason });
  if (cause) e.details.cause = cause;
  return e;
}

export class KillSwitch {
  constructor() {
    this.reasons = new Map();
  }
  kill(reason, toolId = null) {
    this.reasons.set(toolId, reason);
  }
  reasonFor(toolId) {
    return this.reasons.get(toolId) ?? this.reasons.get(null) ?? null;
  }
}

// The doors both hosts share (spec: effects.host-seam, effects.registration): each host's
// own route(call) does the rest.
class Host {
  register(effect) { // spec: effects.registration
    if (this.effects.has(effect.toolId)) throw invalid(`${effect.toolId} is registered`);
    this.effects.set(effect.toolId, { modes: ["durable", "transient"], idempotent: false, deltaSink: null, ...effect });
  }
  invokeTransient(call) {
    if (call.mode !== "transient") throw invalid("invoke_transient takes a transient call");
    return this.route(call);
  }
  invoke(call) {
    if (call.mode !== "durable") throw invalid("invoke takes a durable call");
    return this.route(call);
  }
  isIdempotent(toolId) {
    return Boolean(this.effects.get(toolId)?.idempotent);
  }
}

export class EffectRuntime extends Host {
  constructor({ authorizer = null, middleware = [], meter = null, onWarn = (m) => console.error(m),
    clock = new ManualClock() } = {}) {
    super();
    Object.assign(this, { authorizer, middleware, meter, onWarn, clock, killSwitch: new KillSwitch(), effects: new Map() });
    // spec: deltas.fail-closed — inspects output with no delta guard
    this.streamingBlockedBy = middleware.filter((m) => m.inspectsOutput && !m.deltaGuard);
  }

  callTransient(toolId, input, { principal, signal = null, onDelta = null }) {
    return this.invokeTransient({ toolId, input, mode: "transient", principal, executionId: null, signal, onDelta });
  }

  route(call) {
    const effect = this.effects.get(call.toolId);
    if (!effect) throw new LoomError("effect.unknown-tool", `no effect ${call.toolId}`); // spec: effects.unknown-tool
    if (this.authorizer) { // spec: effects.authorizer — once per call, before the channel opens
      const d = this.authorizer.authorize(call.principal, call.toolId, call.mode);
      if (!d.allowed) {
        throw new LoomError("effect.denied", d.reason, { toolId: call.toolId, principal: call.principal, mode: call.mode });
      }
    }
    const signal = call.signal ?? NEVER;
    const channel = new Channel(this, call, effect, signal);
    const ctx = { call, toolId: call.toolId, mode: call.mode, principal: call.principal,
      executionId: call.executionId ?? null, idempotencyKey: call.mode === "durable" ? call.idempotencyKey : null,
      signal, clock: this.clock, attempt: 0, usage: {}, onDelta: (v) => channel.write(v), channel,
      reportUsage: (u) => { // spec: effects.usage
        for (const [k, n] of Object.entries(u)) ctx.usage[k] = (ctx.usage[k] ?? 0) + n;
      } };
    const inner = (c, input) => this.attempt(effect, channel, c, input);
    const chain = this.middleware.reduceRight((next, m) => (c, input) => m.handle(c, input, next), inner);
    try {
      const output = chain(ctx, call.input);
      channel.succeeded();
      return output;
    } finally {
      channel.settled = true;
    }
  }

  // stages 4-8, once per attempt (spec: effects.route-order)
  attempt(effect, channel, ctx, input) {
    if (!effect.modes.includes(ctx.mode)) throw new LoomError("effect.mode-refused", `${ctx.mode} refused`);
    if (this.meter) {
      const d = this.meter.admit(ctx.call);
      if (!d.allowed) throw new LoomError("effect.over-budget", d.reason);
    }
    const kill = this.killSwitch.reasonFor(ctx.toolId);
    if (kill !== null) throw new LoomError("effect.killed", kill);
    if (ctx.signal.aborted) throw aborted(ctx.signal.reason);
    ctx.attempt += 1; // spec: effects.retry-attempts
    channel.beginAttempt(ctx.attempt, ctx);
    ctx.usage = {};
    let output;
    let error = null;
    try {
      output = effect.execute(ctx, input);
    } catch (e) {
      error = e;
    }
    if (this.meter) this.meter.record(ctx.call, { ...ctx.usage }, ctx.mode === "transient");
    // spec: effects.signal-abort — settlement after an abort is never success
    if (ctx.signal.aborted) throw aborted(ctx.signal.reason, error?.code ?? null);
    if (error) throw error;
    if (channel.severed) throw channel.severed; // spec: deltas.sever-sticky — fail-closed
    return output;
  }
}

/**
 * The kernel's plain host (spec: kernel.effect-forms): it looks the tool up, refuses a mode the
 * effect does not allow, and runs execute once (attempt 1) with no governance. Its ctx.onDelta
 * is the direct channel (spec: deltas.no-runtime): text chunks to the per-call sink, then the
 * configured one, the end chunk to the per-call sink only, nothing guarded or isolated; the
 * silent channel when the call has neither sink.
 */
export class EffectRegistry extends Host {
  constructor({ clock = new ManualClock() } = {}) {
    super();
    Object.assign(this, { clock, effects: new Map() });
  }
  route(call) {
    const effect = this.effects.get(call.toolId);
    if (!effect) throw new LoomError("effect.unknown-tool", `no effect ${call.toolId}`);
    if (!effect.modes.includes(call.mode)) throw new LoomError("effect.mode-refused", `${call.mode} refused`);
    const perCall = call.onDelta ?? null;
    const configured = effect.deltaSink ?? null;
    const origin = `llm:${call.toolId}`;
    const direct = (value) => {
      if (value instanceof EffectDelta && value.done) { // the end chunk: per-call sink only
        if (perCall) perCall(new EffectDelta({ delta: new Tainted("", origin), done: true, usage: value.usage }));
        return;
      }
      if (typeof value !== "string") throw invalid("an effect writes a text delta or its end chunk");
      if (value === "") return;
      const chunk = new EffectDelta({ delta: new Tainted(value, origin) });
      for (const sink of [perCall, configured]) if (sink) sink(chunk);
    };
    const ctx = { call, toolId: call.toolId, mode: call.mode, principal: call.principal,
      executionId: call.executionId ?? null, idempotencyKey: call.mode === "durable" ? call.idempotencyKey : null,
      signal: call.signal ?? NEVER, clock: this.clock, attempt: 1, usage: {},
      onDelta: perCall || configured ? direct : () => {},
      reportUsage: (u) => {
        for (const [k, n] of Object.entries(u)) ctx.usage[k] = (ctx.usage[k] ?? 0) + n;
      } };
    return effect.execute(ctx, call.input);
  }
}

/** spec: effects.scope-principal, effects.scope-closed — a decision's scope. */
export class DecideScope {
  constructor(host, executionId, { executionSignal = null } = {}) {
    Object.assign(this, { host, executionId, executionSignal, lifetime: new Signal() });
  }
  invokeTransient(toolId, input, { signal = null, onDelta = null } = {}) {
    if (this.lifetime.aborted) throw aborted("scope closed");
    const composed = anyOf(this.executionSignal, signal, this.lifetime);
    try {
      return this.host.invokeTransient({ toolId, input, mode: "transient", principal: this.executionId,
        executionId: this.executionId, signal: composed, onDelta });
    } finally {
      composed.detach();
    }
  }
  close() {
    this.lifetime.abort("scope closed");
  }
}

// -- middleware (#deltas.safety-phases ... #deltas.redaction-inspects) ----------------------
export class RetryMiddleware {
  constructor(maxAttempts) {
    this.maxAttempts = maxAttempts;
  }
  handle(ctx, input, next) {
    for (let n = 1; ; n++) {
      try {
        return next(ctx, input);
      } catch (e) {
        if (n >= this.maxAttempts || !retryable(e)) throw e; // base_delay 0: no sleep
      }
    }
  }
}

/** spec: deltas.output-text — the texts the output form checks. */
function outputTexts(output) {
  const texts = [];
  if (isObject(output) && typeof output.role === "string" && Array.isArray(output.content)) {
    texts.push(output.content.filter((b) => isObject(b) && b.type === "text" && typeof b.text === "string")
      .map((b) => b.text).join(""));
  }
  for (const [s] of walkStrings(output)) texts.push(s);
  return texts;
}

export function safetyMiddleware(validators, { deltaWindow = 4096, holdBack = false } = {}) {
  const outputs = validators.filter((v) => v.forms.output);
  const m = {
    inspectsOutput: outputs.length > 0,
    deltaGuard: null,
    handle(ctx, input, next) {
      for (const v of validators) if (v.forms.input) v.forms.input(input); // before next
      const output = next(ctx, input);
      for (const text of outputTexts(output)) for (const v of outputs) v.forms.output(text); // after next
      return output;
    },
  };
  // spec: deltas.safety-delta-guard — only when every output form has a delta form; hold-back
  // has no streaming-disabled fallback: it needs that guard, else argument.invalid
  if (holdBack && !validators.every((v) => v.forms.delta)) {
    throw invalid("hold-back needs validators with delta forms");
  }
  if (outputs.every((v) => v.forms.delta)) {
    const deltas = validators.filter((v) => v.forms.delta);
    const Guard = holdBack ? HoldBackGuard : RunningTextGuard;
    new Guard(deltas, deltaWindow); // refuse a bad configuration now, not mid-call
    m.deltaGuard = () => (deltas.length ? new Guard(deltas, deltaWindow) : null);
  }
  return m;
}

export const streamBudgetMiddleware = (maxTokens) => {
  new TokenBudgetGuard(maxTokens);
  return { inspectsOutput: false, deltaGuard: () => new TokenBudgetGuard(maxTokens),
    handle: (ctx, input, next) => next(ctx, input) };
};

/** spec: deltas.redaction-inspects — pattern_redactor masks every accepted match. */
export function patternRedactor(validators, mask = "[redacted]") {
  // a validator with no output form has no rule to mask: refused (#deltas.vector-run)
  if (validators.some((v) => !v.forms.output)) throw invalid("pattern_redactor needs output forms");
  const rules = validators.flatMap((v) => v.rules);
  // each rule in turn masks its accepted matches (conditions included,
  // #validators.rule-conditions) in the text the earlier rules left
  const maskText = (s) => {
    for (const r of rules) {
      const cps = [...s];
      let out = "";
      let end = 0;
      for (const [a, b] of ruleMatches(r, s)) {
        out += cps.slice(end, a).join("") + mask;
        end = b;
      }
      s = out + cps.slice(end).join("");
    }
    return s;
  };
  const walk = (v) => (typeof v === "string" ? maskText(v) : Array.isArray(v) ? v.map(walk)
    : isObject(v) ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)])) : v);
  return walk;
}

export const redactionMiddleware = ({ redactOutput = null } = {}) => ({
  inspectsOutput: redactOutput !== null, deltaGuard: null,
  handle: (ctx, input, next) => {
    const out = next(ctx, input);
    return redactOutput ? redactOutput(out) : out;
  },
});
