// The governed effect route of spec/effects.md, in JavaScript: registration, the route's
// eight stages, the context, the meter, the kill switch, signals, R9 middleware (retry, rate
// limit, envelope), the decide scope, and the pure backoff schedule. Written from the spec
// text alone; it shares no code with loom_ref. No npm dependencies.
//
// Rules (spec/effects.md):
// - Every call takes one route (#effects.route-order): lookup, authorizer (once per call),
//   the middleware chain outermost first, then per attempt: mode check, metering admission,
//   kill switch, signal, execute. A refused attempt never reaches the effect, its sinks or
//   the meter's record (#effects.refusal-untouched); refusals are never retried.
// - `ctx.attempt` counts execute invocations: 0 before the first, n inside attempt n.
// - Every attempt that reached the effect is recorded once, returned or raised; an abort
//   seen when the effect settles rejects the call, winning over its own error.
// - Time is read only from the injected clock (#effects.injected-clock).
// - The backoff is a pure function of the attempt and a key (BLAKE2b-64 of it), so every
//   implementation retries on the same schedule (#effects.retry-backoff).
// The delta channel (`ctx.on_delta`, chapter 3a) is not implemented here.

import { LoomError } from "./journal.mjs";

// spec: errors.invalid-argument — local misuse; never retried (#effects.refusal-never-retried).
export class InvalidArgument extends LoomError {
  constructor(message) {
    super("argument.invalid", message);
  }
}
const invalid = (message) => new InvalidArgument(message);

// -- BLAKE2b (RFC 7693), unkeyed, any digest size; 64-bit words as BigInt -----------------
const MASK = (1n << 64n) - 1n;
const IV = ["6a09e667f3bcc908", "bb67ae8584caa73b", "3c6ef372fe94f82b", "a54ff53a5f1d36f1",
  "510e527fade682d1", "9b05688c2b3e6c1f", "1f83d9abfb41bd6b", "5be0cd19137e2179"]
  .map((h) => BigInt(`0x${h}`));
const SIGMA = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
  [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
  [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
  [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
  [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
  [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
  [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
  [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
  [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
  [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
];
const rotr = (x, n) => ((x >> BigInt(n)) | (x << BigInt(64 - n))) & MASK;

function compress(h, block, t, last) {
  const v = [...h, ...IV];
  v[12] ^= t & MASK;
  v[13] ^= t >> 64n;
  if (last) v[14] ^= MASK;
  const m = Array.from({ length: 16 }, (_, i) => block.readBigUInt64LE(i * 8));
  const g = (a, b, c, d, x, y) => {
    v[a] = (v[a] + v[b] + x) & MASK;
    v[d] = rotr(v[d] ^ v[a], 32);
    v[c] = (v[c] + v[d]) & MASK;
    v[b] = rotr(v[b] ^ v[c], 24);
    v[a] = (v[a] + v[b] + y) & MASK;
    v[d] = rotr(v[d] ^ v[a], 16);
    v[c] = (v[c] + v[d]) & MASK;
    v[b] = rotr(v[b] ^ v[c], 63);
  };
  for (let r = 0; r < 12; r++) {
    const s = SIGMA[r % 10];
    g(0, 4, 8, 12, m[s[0]], m[s[1]]);
    g(1, 5, 9, 13, m[s[2]], m[s[3]]);
    g(2, 6, 10, 14, m[s[4]], m[s[5]]);
    g(3, 7, 11, 15, m[s[6]], m[s[7]]);
    g(0, 5, 10, 15, m[s[8]], m[s[9]]);
    g(1, 6, 11, 12, m[s[10]], m[s[11]]);
    g(2, 7, 8, 13, m[s[12]], m[s[13]]);
    g(3, 4, 9, 14, m[s[14]], m[s[15]]);
  }
  for (let i = 0; i < 8; i++) h[i] ^= v[i] ^ v[i + 8];
}

export function blake2b(data, outlen) {
  const h = [...IV];
  h[0] ^= 0x01010000n ^ BigInt(outlen);
  const blocks = Math.max(1, Math.ceil(data.length / 128));
  for (let i = 0; i < blocks; i++) {
    const block = Buffer.alloc(128);
    data.copy(block, 0, i * 128, Math.min(data.length, (i + 1) * 128));
    const last = i === blocks - 1;
    compress(h, block, BigInt(last ? data.length : (i + 1) * 128), last);
  }
  const out = Buffer.alloc(64);
  h.forEach((w, i) => out.writeBigUInt64LE(w, i * 8));
  return out.subarray(0, outlen);
}

// -- numbers --------------------------------------------------------------------------------
// round(x, 6) as the spec writes it: the exact binary value rounded to 6 decimals, an exact
// tie to even, then read back as the nearest double (`toFixed` rounds ties away from zero).
export function round6(x) {
  if (!Number.isFinite(x)) return x;
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const expBits = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & ((1n << 52n) - 1n);
  if (expBits) mant |= 1n << 52n;
  const e = expBits ? expBits - 1075 : -1074;
  const num = mant * 1000000n;
  let q;
  if (e >= 0) {
    q = num << BigInt(e);
  } else {
    const den = 1n << BigInt(-e);
    q = num / den;
    const twice = (num % den) * 2n;
    if (twice > den || (twice === den && q & 1n)) q += 1n;
  }
  const digits = q.toString().padStart(7, "0");
  const v = Number(`${digits.slice(0, -6)}.${digits.slice(-6)}`);
  return bits >> 63n ? -v : v;
}

const isNumber = (v) => typeof v === "number" && Number.isFinite(v);

// spec: effects.retry-backoff — the delay after failed attempt n, a pure function.
export function backoffDelay(attempt, { baseDelay, multiplier, maxDelay, jitter, key }) {
  // Any integer (INTERPRETING.md section 7 allows up to +-2**53, beyond the safe integers).
  if (!Number.isInteger(attempt) || attempt < 1) throw invalid(`attempt must be an integer >= 1, got ${attempt}`);
  if (!isNumber(multiplier) || multiplier < 1) throw invalid(`multiplier must be >= 1, got ${multiplier}`);
  if (!isNumber(jitter) || jitter < 0 || jitter > 1) throw invalid(`jitter must lie in [0, 1], got ${jitter}`);
  for (const [name, v] of [["base_delay", baseDelay], ["max_delay", maxDelay]]) {
    if (!isNumber(v) || v < 0) throw invalid(`${name} must be a non-negative number, got ${v}`);
  }
  // effects.retry-backoff: utf8(key) is undefined for a lone surrogate
  if (typeof key !== "string" || !key.isWellFormed()) throw invalid("key must be a well-formed string");
  let d = baseDelay;
  for (let i = 1; i < attempt && !(d >= maxDelay || d === 0 || multiplier === 1); i++) d *= multiplier;
  d = Math.min(maxDelay, d);
  // str(n): the decimal integer, in full (BigInt: String(1e21) would be "1e+21")
  const digest = blake2b(Buffer.from(`${key}#${BigInt(attempt)}`, "utf8"), 8);
  const u = Number(digest.readBigUInt64BE(0)) / 2 ** 64;
  return round6(d * (1 - jitter + jitter * u));
}

// -- errors (#effects.refusal-codes) -------------------------------------------------------
export class EffectRefusal extends LoomError {}
const refusal = (code, message, details = {}) => new EffectRefusal(code, message, details);
export const aborted = (reason, cause = null) =>
  refusal("effect.aborted", `aborted: ${reason}`, { reason, cause });

// spec: effects.refusal-never-retried — what is never retried is decided by the error's kind,
// not by its code: a refusal or an invalid argument. (This runtime has no taint fence, the
// third kind the rule names.)
const neverRetried = (e) => e instanceof EffectRefusal || e instanceof InvalidArgument;

// -- signals (#effects.signal-compose, #effects.signal-detach) -----------------------------
export class Signal {
  constructor() {
    Object.assign(this, { aborted: false, reason: null, listeners: new Set() });
  }
  abort(reason) {
    if (this.aborted) return;
    Object.assign(this, { aborted: true, reason });
    for (const f of [...this.listeners]) f(reason);
    this.listeners.clear();
  }
  listen(f) {
    this.listeners.add(f);
    return () => this.listeners.delete(f);
  }
}
export const NEVER = Object.freeze(new Signal());

// any_of(inputs): aborted at once with the first already-aborted input's reason, otherwise as
// soon as any input aborts. `detach()` drops its listeners from the inputs.
export function anyOf(...inputs) {
  const out = new Signal();
  const given = inputs.filter(Boolean);
  const first = given.find((s) => s.aborted);
  if (first) {
    out.abort(first.reason);
    out.detach = () => {};
    return out;
  }
  const offs = given.map((s) => s.listen((reason) => out.abort(reason)));
  out.detach = () => offs.forEach((off) => off());
  return out;
}

// -- the fixed stages ----------------------------------------------------------------------
export class ManualClock {
  constructor(start = 0) {
    this.t = start;
  }
  now() {
    return this.t;
  }
  sleep(seconds) {
    this.advance(seconds);
  }
  advance(seconds) {
    if (!isNumber(seconds) || seconds < 0) throw invalid(`the clock never moves back (${seconds})`);
    this.t += seconds;
  }
}

export const ALLOW_ALL = { authorize: () => ({ allowed: true, reason: "" }) };

// spec: effects.authorizer — a grant matches principal, tool id ("*" any) and mode.
export class GrantAuthorizer {
  constructor(grants) {
    this.grants = grants;
  }
  authorize(principal, toolId, mode) {
    const ok = this.grants.some((g) => (g.principal === "*" || g.principal === principal) &&
      (g.toolId === "*" || g.toolId === toolId) && g.modes.includes(mode));
    return { allowed: ok, reason: ok ? "" : `no grant for ${principal} on ${toolId} (${mode})` };
  }
}

// spec: effects.metering-admission, effects.metering-record
export class BudgetMeter {
  constructor(budget, { estimate = () => 1 } = {}) {
    Object.assign(this, { budget, estimate, spent: 0, records: [] });
  }
  admit(call) {
    const ok = this.spent + this.estimate(call) <= this.budget;
    return { allowed: ok, reason: ok ? "" : `budget ${this.budget} exhausted (spent ${this.spent})` };
  }
  record(call, usage, advisory) {
    const charged = Object.values(usage).reduce((s, n) => s + n, 0);
    this.spent += charged;
    const rec = { toolId: call.toolId, principal: call.principal, mode: call.mode, usage: { ...usage },
      charged, advisory };
    this.records.push(rec);
    return rec;
  }
}

// spec: effects.kill-switch — global or per tool; revive releases the same scope only.
export class KillSwitch {
  constructor() {
    Object.assign(this, { global: null, tools: new Map() });
  }
  kill(reason, { toolId = null } = {}) {
    if (toolId === null) this.global = reason;
    else this.tools.set(toolId, reason);
  }
  revive({ toolId = null } = {}) {
    if (toolId === null) this.global = null;
    else this.tools.delete(toolId);
  }
  engaged(toolId) {
    return this.global ?? this.tools.get(toolId) ?? null;
  }
}

// -- records and the context ---------------------------------------------------------------
export const MODES = ["durable", "transient"];

export function effectCall({ toolId, input = null, mode, principal, executionId = null, stepId = null,
  idempotencyKey = null, signal = null, onDelta = null, onEmit = null }) {
  if (!MODES.includes(mode)) throw invalid(`mode must be durable or transient, got ${mode}`);
  if (typeof idempotencyKey === "string" && !idempotencyKey.isWellFormed()) {
    throw invalid("idempotencyKey must be a well-formed string"); // effects.retry-backoff
  }
  return { toolId, input, mode, principal, executionId, stepId, idempotencyKey, signal, onDelta, onEmit };
}

// spec: effects.context
class EffectContext {
  constructor(call, clock) {
    Object.assign(this, { call, toolId: call.toolId, mode: call.mode, principal: call.principal,
      executionId: call.executionId, signal: call.signal ?? NEVER, attempt: 0, clock,
      emitted: [], usage: {} });
    this.idempotencyKey = call.mode === "durable" ? call.idempotencyKey : null;
  }
  // spec: effects.emit — durable: kept and forwarded to on_emit; transient: a no-op.
  emit(event) {
    if (this.mode !== "durable") return;
    this.emitted.push(event);
    if (this.call.onEmit) this.call.onEmit(event);
  }
  // spec: effects.usage — counters str -> int >= 0 added to the running attempt's usage.
  reportUsage(usage) {
    if (!usage || typeof usage !== "object" || Array.isArray(usage)) throw invalid("usage must be a mapping");
    for (const [k, n] of Object.entries(usage)) {
      if (!Number.isInteger(n) || n < 0) throw invalid(`usage ${k} must be an int >= 0, got ${n}`);
    }
    for (const [k, n] of Object.entries(usage)) this.usage[k] = (this.usage[k] || 0) + n;
  }
}

// -- the runtime ---------------------------------------------------------------------------
export class EffectRuntime {
  constructor({ authorizer = ALLOW_ALL, middleware = [], meter = null, killSwitch = new KillSwitch(),
    clock = new ManualClock() } = {}) {
    Object.assign(this, { authorizer, middleware, meter, killSwitch, clock, effects: new Map() });
  }

  // spec: effects.registration, effects.lean-route — the chain is composed once, here.
  register({ toolId, execute, modes = MODES, idempotent = false }) {
    if (typeof toolId !== "string") throw invalid("tool id must be a string");
    if (this.effects.has(toolId)) throw invalid(`tool id ${toolId} is already registered`);
    const entry = { toolId, execute, modes, idempotent };
    entry.chain = this.middleware.reduceRight((next, mw) => (ctx, input) => mw.handle(ctx, input, next),
      (ctx, input) => this.attempt(entry, ctx, input));
    this.effects.set(toolId, entry);
  }

  // spec: effects.host-seam — each door accepts only its own mode.
  invoke(call) {
    if (call.mode !== "durable") throw invalid(`invoke takes a durable call, got ${call.mode}`);
    return this.route(call);
  }
  invokeTransient(call) {
    if (call.mode !== "transient") throw invalid(`invoke_transient takes a transient call, got ${call.mode}`);
    return this.route(call);
  }
  callTransient(toolId, input, { principal, signal = null, onDelta = null }) {
    return this.route(effectCall({ toolId, input, mode: "transient", principal, signal, onDelta }));
  }
  isIdempotent(toolId) {
    const e = this.effects.get(toolId);
    return Boolean(e && e.idempotent);
  }

  // spec: effects.route-order — stages 1-3, once per call.
  route(call) {
    const entry = this.effects.get(call.toolId);
    if (!entry) throw new LoomError("effect.unknown-tool", `no effect registered as ${call.toolId}`); // spec: effects.unknown-tool
    const d = this.authorizer.authorize(call.principal, call.toolId, call.mode);
    if (!d.allowed) {
      throw refusal("effect.denied", d.reason, { toolId: call.toolId, principal: call.principal, mode: call.mode });
    }
    return entry.chain(new EffectContext(call, this.clock), call.input);
  }

  // Stages 4-8, once per attempt (the innermost `next`).
  attempt(entry, ctx, input) {
    if (!entry.modes.includes(ctx.mode)) {
      throw refusal("effect.mode-refused", `${entry.toolId} does not allow ${ctx.mode} calls`);
    }
    if (this.meter) {
      const d = this.meter.admit(ctx.call);
      if (!d.allowed) throw refusal("effect.over-budget", d.reason);
    }
    const kill = this.killSwitch.engaged(entry.toolId);
    if (kill !== null) throw refusal("effect.killed", kill);
    if (ctx.signal.aborted) throw aborted(ctx.signal.reason); // spec: effects.signal-abort
    ctx.attempt += 1; // spec: effects.retry-attempts — counts execute invocations
    ctx.usage = {};
    let output;
    let failure = null;
    try {
      output = entry.execute(ctx, input);
    } catch (e) {
      if (!(e instanceof Error)) throw e; // a crash is not an Exception: nothing after it runs
      failure = e;
    }
    // spec: effects.metering-record — every attempt that reached the effect, once.
    if (this.meter) this.meter.record(ctx.call, ctx.usage, ctx.mode === "transient");
    // spec: effects.signal-abort — settlement after an abort is never success.
    if (ctx.signal.aborted) throw aborted(ctx.signal.reason, failure);
    if (failure) throw failure;
    return output;
  }
}

// -- middleware (R9) -----------------------------------------------------------------------
// spec: effects.retry-attempts, effects.retry-backoff, effects.refusal-never-retried
export class RetryMiddleware {
  constructor(maxAttempts, { baseDelay = 0.1, multiplier = 2.0, maxDelay = 10.0, jitter = 0.0,
    retryOn = () => true, seed = "" } = {}) {
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw invalid("max_attempts must be an int >= 1");
    if (typeof seed !== "string" || !seed.isWellFormed()) throw invalid("seed must be a well-formed string");
    backoffDelay(1, { baseDelay, multiplier, maxDelay, jitter, key: "" }); // reject bad parameters now
    Object.assign(this, { maxAttempts, baseDelay, multiplier, maxDelay, jitter, retryOn, seed });
  }
  handle(ctx, input, next) {
    for (let n = 1; ; n++) {
      try {
        return next(ctx, input);
      } catch (e) {
        if (!(e instanceof Error) || n >= this.maxAttempts || neverRetried(e) || !this.retryOn(e)) throw e;
        const { baseDelay, multiplier, maxDelay, jitter } = this;
        ctx.clock.sleep(backoffDelay(n, { baseDelay, multiplier, maxDelay, jitter,
          key: `${this.seed}:${ctx.idempotencyKey ?? ""}` }));
      }
    }
  }
}

// spec: effects.rate-limit — a token bucket per key on ctx.clock.
export class RateLimitMiddleware {
  constructor({ capacity, rate, per = "tool" }) {
    if (!isNumber(capacity) || capacity < 1) throw invalid("capacity must be at least 1");
    if (!isNumber(rate) || rate < 0) throw invalid("rate must be a non-negative number");
    if (!["tool", "principal", "call"].includes(per)) throw invalid(`per must be tool, principal or call, got ${per}`);
    Object.assign(this, { capacity, rate, per, buckets: new Map() });
  }
  handle(ctx, input, next) {
    const key = { tool: ctx.toolId, principal: ctx.principal }[this.per] ??
      JSON.stringify([ctx.principal, ctx.toolId]);
    const now = ctx.clock.now();
    const b = this.buckets.get(key) ?? { tokens: this.capacity, last: now };
    b.tokens = Math.min(this.capacity, b.tokens + (now - b.last) * this.rate);
    b.last = now;
    this.buckets.set(key, b);
    if (b.tokens < 1) {
      const retryAfter = this.rate > 0 ? (1 - b.tokens) / this.rate : null;
      throw refusal("effect.rate-limited", `rate limited: ${key}`, { retryAfter });
    }
    b.tokens -= 1;
    return next(ctx, input);
  }
}

// spec: effects.envelope — {tool, result}; a failure passes through unwrapped.
export class EnvelopeMiddleware {
  handle(ctx, input, next) {
    return { tool: ctx.toolId, result: next(ctx, input) };
  }
}

// -- the decide scope (#effects.scope-principal, #effects.scope-closed) --------------------
export class DecideScope {
  constructor(host, executionId, { executionSignal = null } = {}) {
    Object.assign(this, { host, executionId, executionSignal, lifetime: new Signal() });
  }
  invokeTransient(toolId, input, { signal = null, onDelta = null } = {}) {
    if (this.lifetime.aborted) throw aborted(this.lifetime.reason);
    const composite = anyOf(this.executionSignal, signal, this.lifetime);
    try {
      return this.host.invokeTransient(effectCall({ toolId, input, mode: "transient",
        principal: this.executionId, executionId: this.executionId, signal: composite, onDelta }));
    } finally {
      composite.detach(); // spec: effects.signal-detach
    }
  }
  close() {
    this.lifetime.abort("scope closed");
  }
}
