// The conformance functions of spec/deltas.md §3a.9 and §3a.10: `deltas.run` (one governed
// streamed call of a scripted effect: what each sink saw and the outcome), `deltas.record`
// (a chunk's JSON form), `deltas.llm` (the LLM effect over scripted chunks) and `deltas.replay`
// (a kernel run, resume and read-only replay: deltas are live-only). No npm dependencies.
//
// Every function answers argument.invalid for a malformed input, unknown keys included
// (#deltas.vector-run).

import { LoomError, MemoryStore } from "./journal.mjs";
import { Runtime } from "./kernel.mjs";
import { decodeChunk } from "./stream.mjs";
import { Tainted, buildValidator, invalid } from "./governance.mjs";
import {
  DecideScope, EffectDelta, EffectRegistry, EffectRuntime, RetryMiddleware, Signal, checkUsage, endChunk,
  patternRedactor, redactionMiddleware, safetyMiddleware, streamBudgetMiddleware,
} from "./deltas.mjs";
import { ScriptedAdapter, createLlmEffect } from "./llm.mjs";
import { RateLimitMiddleware } from "./effects-runtime.mjs";

const jsonType = (v) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
const isObject = (v) => jsonType(v) === "object";
// An optional member: its default when absent; null is a value of the wrong type (the spec's
// null rule: only the members it names may be null), which the member's check then refuses.
const opt = (v, dflt) => (v === undefined ? dflt : v);
const copy = (v) => (v === undefined ? null : JSON.parse(JSON.stringify(v)));

function keysOf(obj, allowed, what) {
  if (!isObject(obj)) throw invalid(`${what} is an object`);
  for (const k of Object.keys(obj)) if (!allowed.includes(k)) throw invalid(`unknown ${what} key ${k}`);
  return obj;
}
const want = (v, type, what) => {
  if (jsonType(v) !== type) throw invalid(`${what} is a ${type}`);
  return v;
};
const oneOf = (v, names, what) => {
  if (!names.includes(v)) throw invalid(`${what} is one of ${names.join(", ")}`);
  return v;
};
const posInt = (v, what) => {
  if (!Number.isInteger(v) || v < 1) throw invalid(`${what} is a positive integer`);
  return v;
};

/** spec §3a.9: warning messages as codes. */
const warningCode = (m) => (m.startsWith("streaming disabled") ? "deltas.streaming-disabled"
  : m.startsWith("delta sink raised") ? "deltas.sink-raised" : m);

/** A "collect" / "raise" / "none" sink and what it recorded; `sequence`, when given, gets
 * every delivery as {sink: what, chunk} (deltas.run's interleaved sequence). */
function sink(kind, what, raise = () => new Error("scripted sink failure"), sequence = null) {
  oneOf(kind, ["collect", "raise", "none"], what);
  if (kind === "none") return { fn: null, seen: null };
  const seen = [];
  return { seen, fn: (chunk) => {
    seen.push(chunk.toJSON());
    if (sequence) sequence.push({ sink: what, chunk: chunk.toJSON() });
    if (kind === "raise") throw raise();
  } };
}

function outcomeOf(run, extra = () => ({})) {
  try {
    return { ok: true, output: copy(run()) };
  } catch (e) {
    if (!(e instanceof LoomError)) throw e;
    return { ok: false, code: e.code, ...extra(e) };
  }
}

// -- deltas.run (§3a.9) ---------------------------------------------------------------------
const RUN_KEYS = ["attempts", "input", "scope", "toolId", "mode", "retry", "redact", "validators",
  "deltaWindow", "holdBack", "secondSafety", "maxStreamTokens", "inspectsOutput", "rewrite", "order", "perCall",
  "configured", "late", "lateEnd", "kill", "rateLimit", "deny", "refuse", "modes", "overBudget", "aborted", "sequence"];
const ATTEMPT_KEYS = ["deltas", "end", "usage", "outcome", "output", "catchSever"];
const CHAIN = ["retry", "redact", "safety", "secondSafety", "budget", "inspector", "rewrite", "rateLimit", "refuse"];

function decodeAttempt(a, scoped) {
  keysOf(a, ATTEMPT_KEYS, "attempt");
  const script = { deltas: want(opt(a.deltas, []), "array", "deltas"), end: opt(a.end, true),
    usage: "usage" in a ? checkUsage(a.usage) : null, outcome: oneOf(opt(a.outcome, "return"), ["return", "raise"], "outcome"),
    catchSever: opt(a.catchSever, false) };
  want(script.end, "boolean", "end");
  want(script.catchSever, "boolean", "catchSever");
  for (const d of script.deltas) {
    if (typeof d === "string") continue;
    // {"write": v}: the effect writes v, which is not a string, to ctx.onDelta (#deltas.writer)
    if (isObject(d) && "write" in d) {
      keysOf(d, ["write"], "write entry");
      if (typeof d.write === "string") throw invalid("a write entry's value is not a string");
      continue;
    }
    keysOf(d, ["abort", "source"], "abort entry");
    want(d.abort, "string", "abort");
    if (d.abort === "") throw invalid("an abort reason is a non-empty string"); // deltas.vector-run
    oneOf(opt(d.source, "call"), ["call", "execution"], "source");
    if (d.source === "execution" && !scoped) throw invalid("an execution's cancel needs the scope");
  }
  if ("output" in a) script.output = a.output;
  return script;
}

function runVector(input) {
  keysOf(input, RUN_KEYS, "deltas.run input");
  const scoped = opt(input.scope, false);
  want(scoped, "boolean", "scope");
  if (!Array.isArray(input.attempts) || !input.attempts.length) throw invalid("attempts is a non-empty list");
  const attempts = input.attempts.map((a) => decodeAttempt(a, scoped));
  const toolId = want(opt(input.toolId, "llm"), "string", "toolId");
  if (!toolId) throw invalid("toolId is non-empty");
  const mode = oneOf(opt(input.mode, "transient"), ["transient", "durable"], "mode");
  if (scoped && mode === "durable") throw invalid("the scope is transient only");
  const sequence = [];
  const perCall = sink(opt(input.perCall, (mode === "durable" ? "none" : "collect")), "perCall", undefined, sequence);
  if (mode === "durable" && perCall.fn) throw invalid("a durable call has no per-call sink");
  const configured = sink(opt(input.configured, "none"), "configured", undefined, sequence);
  const showSequence = want(opt(input.sequence, false), "boolean", "sequence");
  // the stages of the route, each asked to refuse (#deltas.refused-call)
  const reason = (key) => {
    if (!(key in input)) return null;
    if (typeof input[key] !== "string" || input[key] === "") throw invalid(`${key} is a non-empty reason`);
    return input[key];
  };
  const [denyReason, refuseReason, budgetReason, abortReason] = ["deny", "refuse", "overBudget", "aborted"].map(reason);
  let modes = ["durable", "transient"];
  if ("modes" in input) {
    modes = want(input.modes, "array", "modes");
    if (!modes.length || modes.some((m) => m !== "durable" && m !== "transient")) {
      throw invalid('modes is a non-empty list of "durable" / "transient"');
    }
  }
  const retry = posInt(opt(input.retry, attempts.length), "retry");
  if (retry > attempts.length) throw invalid("retry is at most len(attempts)");
  const late = want(opt(input.late, []), "array", "late");
  late.forEach((s) => want(s, "string", "late"));
  const lateEnd = want(opt(input.lateEnd, false), "boolean", "lateEnd");

  // the chain, by name (default: the order of the table)
  const built = {};
  if (retry > 1) built.retry = new RetryMiddleware(retry);
  if ("redact" in input) {
    if (input.redact === false) built.redact = redactionMiddleware(); // no redactor (#deltas.redaction-inspects)
    else {
      const vs = want(input.redact, "array", "redact").map(buildValidator);
      built.redact = redactionMiddleware({ redactOutput: patternRedactor(vs) });
    }
  }
  if ("validators" in input || "deltaWindow" in input || "holdBack" in input) {
    const vs = want(opt(input.validators, []), "array", "validators").map(buildValidator);
    const holdBack = want(opt(input.holdBack, false), "boolean", "holdBack");
    built.safety = safetyMiddleware(vs, { deltaWindow: posInt(opt(input.deltaWindow, 4096), "deltaWindow"), holdBack });
  }
  if ("secondSafety" in input) { // several hold-back guards compose (#deltas.hold-back)
    const vs = want(input.secondSafety, "array", "secondSafety").map(buildValidator);
    const holdBack = want(opt(input.holdBack, false), "boolean", "holdBack");
    built.secondSafety = safetyMiddleware(vs, { deltaWindow: posInt(opt(input.deltaWindow, 4096), "deltaWindow"), holdBack });
  }
  if ("maxStreamTokens" in input) {
    const n = input.maxStreamTokens;
    if (!Number.isInteger(n) || n < 0) throw invalid("maxStreamTokens is an int >= 0");
    built.budget = streamBudgetMiddleware(n);
  }
  if (want(opt(input.inspectsOutput, false), "boolean", "inspectsOutput")) {
    built.inspector = { inspectsOutput: true, deltaGuard: null, handle: (c, i, next) => next(c, i) };
  }
  if ("rewrite" in input) {
    const rw = keysOf(input.rewrite, ["replace", "inspectsOutput"], "rewrite");
    const [from, to] = want(rw.replace, "array", "replace");
    if (rw.replace.length !== 2 || typeof from !== "string" || typeof to !== "string" || !from) throw invalid("replace");
    built.rewrite = { inspectsOutput: want(opt(rw.inspectsOutput, false), "boolean", "inspectsOutput"), deltaGuard: null,
      handle: (c, i, next) => {
        const out = next(c, i);
        return typeof out === "string" ? out.replaceAll(from, to) : out; // a non-string passes unchanged
      } };
  }
  if ("rateLimit" in input) { // #effects.rate-limit
    const rl = keysOf(input.rateLimit, ["capacity", "rate", "per"], "rateLimit");
    built.rateLimit = new RateLimitMiddleware({ capacity: rl.capacity, rate: rl.rate,
      per: rl.per === undefined ? "tool" : rl.per });
  }
  if (refuseReason !== null) { // a middleware that refuses before next
    built.refuse = { inspectsOutput: false, deltaGuard: null,
      handle: () => { throw new LoomError("effect.refused", refuseReason); } };
  }
  let order = CHAIN.filter((n) => n in built);
  if ("order" in input) {
    const given = want(input.order, "array", "order");
    if (given.length !== order.length || [...given].sort().join() !== [...order].sort().join()) {
      throw invalid("order names exactly the configured middleware");
    }
    order = given;
  }

  const warnings = [];
  const refuseAll = (r) => (r === null ? null : { allowed: false, reason: r });
  const rt = new EffectRuntime({ middleware: order.map((n) => built[n]), onWarn: (m) => warnings.push(warningCode(m)),
    authorizer: denyReason === null ? null : { authorize: () => refuseAll(denyReason) },
    meter: budgetReason === null ? null : { admit: () => refuseAll(budgetReason), record: () => {} } });
  const callSignal = new Signal();
  if (abortReason !== null) callSignal.abort(abortReason); // aborted before the call
  const executionSignal = new Signal();
  const channels = [];
  let executions = 0;
  rt.register({ toolId, modes, deltaSink: configured.fn, execute: (ctx) => {
    const script = attempts[executions];
    executions += 1;
    channels.push(ctx.onDelta);
    const write = (v) => {
      try {
        ctx.onDelta(v);
      } catch (e) {
        if (!script.catchSever) throw e;
      }
    };
    const texts = [];
    for (const d of script.deltas) {
      if (typeof d === "string") {
        texts.push(d);
        write(d);
      } else if ("write" in d) write(d.write);
      else (d.source === "execution" ? executionSignal : callSignal).abort(d.abort);
    }
    if (script.end) write(endChunk(script.usage));
    if (script.outcome === "raise") throw new LoomError("effect.scripted-failure", "scripted failure");
    return "output" in script ? script.output : texts.join("");
  } });
  if ("kill" in input) rt.killSwitch.kill(reason("kill"), toolId); // a non-empty reason (#deltas.vector-run)

  const callInput = input.input ?? null;
  const outcome = outcomeOf(() => {
    if (mode === "durable") {
      return rt.invoke({ toolId, input: callInput, mode, principal: "x1", executionId: "x1",
        stepId: `${toolId}#1`, idempotencyKey: `x1/${toolId}#1`, signal: callSignal, onDelta: null });
    }
    if (scoped) {
      return new DecideScope(rt, "x1", { executionSignal })
        .invokeTransient(toolId, callInput, { signal: callSignal, onDelta: perCall.fn });
    }
    return rt.callTransient(toolId, callInput, { principal: "p", signal: callSignal, onDelta: perCall.fn });
  }, (e) => (e.code === "effect.aborted" ? { reason: e.details.reason } : {}));
  for (const write of channels) for (const s of late) write(s); // spec: deltas.live-window
  if (lateEnd) for (const write of channels) write(endChunk()); // a late end chunk: dropped too
  const result = { perCall: perCall.seen, configured: configured.seen, warnings, executions, outcome };
  if (showSequence) result.sequence = sequence; // both sinks' deliveries, interleaved (#deltas.channel)
  return result;
}

// -- deltas.record (§3a.10) -----------------------------------------------------------------
function recordVector(input) {
  keysOf(input, ["delta", "origin", "done", "reset", "attempt", "usage"], "chunk");
  if (typeof input.delta !== "string") throw invalid("delta is a string");
  for (const k of ["attempt", "usage"]) if (input[k] === null) throw invalid(`${k} is not null`); // null rule
  return new EffectDelta({ delta: new Tainted(input.delta, input.origin), done: opt(input.done, false),
    reset: opt(input.reset, false), attempt: opt(input.attempt, null), usage: opt(input.usage, null) }).toJSON();
}

// -- deltas.llm (§3a.10) --------------------------------------------------------------------
const LLM_KEYS = ["scripts", "input", "toolId", "model", "retry", "validators", "maxStreamTokens", "perCall",
  "deltaSink", "onReset", "runtime", "abortOn", "feedBack"];

function decodeScripts(scripts) {
  if (!Array.isArray(scripts) || !scripts.length) throw invalid("scripts is a non-empty list");
  return scripts.map((s) => {
    keysOf(s, ["chunks", "raiseAfter", "honorSignal"], "script");
    const chunks = want(s.chunks, "array", "chunks").map((c, i) => {
      try {
        return decodeChunk(c, `$.chunks[${i}]`);
      } catch (e) {
        throw e instanceof LoomError ? invalid(`${e.code}: ${e.message}`) : e;
      }
    });
    const out = { chunks };
    if ("raiseAfter" in s) {
      if (!Number.isInteger(s.raiseAfter) || s.raiseAfter < 0) throw invalid("raiseAfter is an int >= 0");
      out.raiseAfter = s.raiseAfter;
    }
    if ("honorSignal" in s) out.honorSignal = want(s.honorSignal, "boolean", "honorSignal");
    return out;
  });
}

/** spec §3a.10: what a failed outcome carries, as chapter 3's effects.route error. */
function errorExtra(e) {
  if (e.code === "effect.aborted") {
    return { reason: e.details.reason, ...(e.details.cause ? { cause: e.details.cause } : {}) };
  }
  if (e.code === "effect.llm-error" || e.code === "effect.llm-aborted") {
    const { code = null, message } = e.details.failure; // a failure without a code: null
    return { failure: { code, message } };
  }
  return {};
}

function llmVector(input) {
  keysOf(input, LLM_KEYS, "deltas.llm input");
  const scripts = decodeScripts(input.scripts);
  const toolId = want(opt(input.toolId, "planner"), "string", "toolId");
  const model = want(opt(input.model, "m1"), "string", "model");
  const useRuntime = want(opt(input.runtime, true), "boolean", "runtime");
  const retry = posInt(opt(input.retry, 1), "retry");
  const middleware = [];
  if (retry > 1) middleware.push(new RetryMiddleware(retry));
  if ("validators" in input) middleware.push(safetyMiddleware(want(input.validators, "array", "validators").map(buildValidator)));
  if ("maxStreamTokens" in input) middleware.push(streamBudgetMiddleware(input.maxStreamTokens));
  if (!useRuntime && middleware.length) throw invalid("no middleware without a runtime");
  const sinkFailure = () => new LoomError("effect.scripted-sink-failure", "scripted sink failure");
  const perCall = sink(opt(input.perCall, "collect"), "perCall", sinkFailure);
  const deltaSink = sink(opt(input.deltaSink, "none"), "deltaSink", sinkFailure);
  const resets = want(opt(input.onReset, false), "boolean", "onReset") ? [] : null;
  const signal = new Signal();
  const at = "abortOn" in input ? want(input.abortOn, "string", "abortOn") : null;
  if (at === "") throw invalid("abortOn is a non-empty string"); // #deltas.vector-llm
  let firstText = null; // the first text chunk's (tainted) delta, for feedBack
  const onDelta = perCall.fn && ((chunk) => {
    const text = !chunk.done && !chunk.reset;
    if (text && firstText === null) firstText = chunk.delta;
    try {
      perCall.fn(chunk);
    } finally {
      if (text && chunk.delta.value === at) signal.abort(`stop at '${at}'`);
    }
  });
  const adapter = new ScriptedAdapter(scripts);
  const effect = createLlmEffect(adapter, { toolId, model, deltaSink: deltaSink.fn,
    onReset: resets ? (n) => resets.push(n) : null });
  const warnings = [];
  const usage = [];
  // spec: deltas.vector-llm -- a BudgetMeter of budget 2^62 (one unit asked per attempt), kept
  // for its records; a call of more than 128 heavy attempts reaches it (meter-budget-reached)
  const budget = 2 ** 62;
  let spent = 0;
  const meter = {
    admit: () => ({ allowed: spent + 1 <= budget, reason: `budget cannot cover ${toolId}` }),
    record: (call, u) => { usage.push(u); spent += Object.values(u).reduce((s, n) => s + n, 0); },
  };
  const rt = new EffectRuntime({ middleware, meter, onWarn: (m) => warnings.push(warningCode(m)) });
  rt.register(effect);
  const call = (callInput, sig, sinkFn) => {
    if (useRuntime) return rt.callTransient(toolId, callInput, { principal: "x1", signal: sig, onDelta: sinkFn });
    const ctx = { call: { toolId, input: callInput, mode: "transient", principal: "x1", signal: sig, onDelta: sinkFn },
      toolId, mode: "transient", principal: "x1", signal: sig, attempt: 1, onDelta: null, usage: {},
      reportUsage: (u) => Object.assign(ctx.usage, u) };
    try {
      return effect.execute(ctx, callInput);
    } finally {
      usage.push(ctx.usage);
    }
  };
  const outcome = outcomeOf(() => call(copy(input.input ?? null), signal, onDelta), errorExtra);
  // everything but feedBack describes the first call only
  const result = copy({ perCall: perCall.seen, deltaSink: deltaSink.seen, resets, warnings, usage,
    adapter: { calls: adapter.calls, pulled: adapter.pulled, models: adapter.models }, outcome });
  if (want(opt(input.feedBack, false), "boolean", "feedBack")) {
    // the first text chunk's delta, still tainted, fed back into a prompt (#deltas.taint)
    if (firstText === null) throw invalid("feedBack needs a text chunk on the per-call sink");
    const prompt = { messages: [{ role: "user", content: [{ type: "text", text: firstText }] }] };
    const before = adapter.calls;
    const fb = outcomeOf(() => call(prompt, new Signal(), null), errorExtra);
    result.feedBack = { outcome: fb, adapterCalls: adapter.calls - before };
  }
  return result;
}

// -- deltas.replay (§3a.10) -----------------------------------------------------------------
function replayVector(input) {
  keysOf(input, ["deltas", "configured", "host"], "deltas.replay input");
  // the governed runtime, or the kernel's plain registry (spec: deltas.no-runtime)
  const hostKind = oneOf(opt(input.host, "runtime"), ["runtime", "registry"], "host");
  const deltas = want(input.deltas, "array", "deltas");
  if (!deltas.length) throw invalid("deltas is a non-empty list");
  deltas.forEach((d) => {
    if (typeof d !== "string" || !d) throw invalid("each delta is a non-empty string");
  });
  const configuredKind = oneOf(opt(input.configured, "collect"), ["collect", "none"], "configured");
  let phase = null;
  const newPhase = () => ({ perCall: [], configured: configuredKind === "collect" ? [] : null, executions: [] });
  const rt = hostKind === "registry" ? new EffectRegistry() : new EffectRuntime({ onWarn: () => {} });
  rt.register({ toolId: "llm", deltaSink: configuredKind === "collect" ? (c) => phase.configured.push(c.toJSON()) : null,
    execute: (ctx) => {
      phase.executions.push(ctx.mode);
      for (const d of deltas) ctx.onDelta(d);
      ctx.onDelta(endChunk());
      return deltas.join("");
    } });
  const host = {
    invoke: ({ tool, stepId, key, input: i }) => rt.invoke({ toolId: tool, input: i, mode: "durable",
      principal: "x1", executionId: "x1", stepId, idempotencyKey: key, signal: null, onDelta: null }),
    invokeTransient: (tool, i) => rt.invokeTransient({ toolId: tool, input: i, mode: "transient",
      principal: "x1", executionId: "x1", signal: null, onDelta: null }),
    isIdempotent: (tool) => rt.isIdempotent(tool),
  };
  const decider = () => {
    const scope = new DecideScope(rt, "x1");
    try {
      return { value: scope.invokeTransient("llm", null, { onDelta: (c) => phase.perCall.push(c.toJSON()) }) };
    } finally {
      scope.close();
    }
  };
  const workflow = { name: "w", resumeSchemas: {}, body: function* (ctx) {
    const step = yield ctx.execute("llm", null);
    const plan = yield ctx.decide("plan", decider);
    const payload = yield ctx.suspend("approve");
    return [step, plan, payload];
  } };
  const store = new MemoryStore();
  const kernel = new Runtime({ store, effects: host, workflows: [workflow], warn: () => {}, fault: null });
  const observe = (run) => {
    phase = newPhase();
    const r = run();
    return { status: r.status, output: r.status === "completed" ? copy(r.output) : null, ...phase };
  };
  const start = observe(() => kernel.start("w", null, "x1"));
  const resume = observe(() => kernel.resume("x1", "approve", "ok"));
  const replay = observe(() => kernel.replay("x1"));
  const journal = store.read("x1").events.map((e) => ({ kind: e.kind, payload: e.payload }));
  return { start, resume, replay, journal };
}

export const DELTAS_VECTORS = {
  "deltas.run": runVector,
  "deltas.record": recordVector,
  "deltas.llm": llmVector,
  "deltas.replay": replayVector,
};
