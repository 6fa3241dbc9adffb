// The effect runtime's vector functions `effects.backoff` (spec/effects.md section 3.7) and
// `effects.route` (section 3.8), over effects-runtime.mjs. No npm dependencies.
//
// `effects.route` builds a runtime from the input (scripted effects, grants, middleware, a
// budget meter, a manual clock), runs the steps in order and reports what a caller could
// observe of each: the outcome and a trace of probes, executions, emits, meter records and
// clock sleeps. Malformed input is the vector's own `argument.invalid`; what the runtime
// raises for a call is that call's outcome.

import { Crash, LoomError } from "./journal.mjs";
import {
  BudgetMeter, DecideScope, EffectRuntime, EnvelopeMiddleware, GrantAuthorizer, InvalidArgument,
  KillSwitch, MODES, ManualClock, RateLimitMiddleware, RetryMiddleware, Signal, backoffDelay,
  effectCall, round6,
} from "./effects-runtime.mjs";

const copy = (v) => (v === undefined ? null : JSON.parse(JSON.stringify(v)));
class Malformed extends LoomError {
  constructor(message) {
    super("argument.invalid", `malformed effects.route input: ${message}`);
  }
}
const jsonType = (v) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

// Reads an object's members; refuses unknown ones and values of the wrong type.
function fields(value, where, allowed) {
  if (jsonType(value) !== "object") throw new Malformed(`${where} must be an object`);
  const extra = Object.keys(value).filter((k) => !allowed.includes(k));
  if (extra.length) throw new Malformed(`${where}: unknown key(s) ${extra.join(", ")}`);
  return value;
}
function need(v, type, where, optional = true) {
  if (v === undefined && optional) return v;
  const ok = type === "integer" ? Number.isInteger(v) : jsonType(v) === type;
  if (!ok) throw new Malformed(`${where} must be a ${type}`);
  return v;
}
// Ids, names, codes and reasons are non-empty strings (#effects.route-vector).
const text = (v, where, optional = true) => {
  if (v === undefined && optional) return v;
  if (typeof v !== "string" || !v) throw new Malformed(`${where} must be a non-empty string`);
  return v;
};
// A call's executionId, stepId and idempotencyKey ARE null when absent (#effects.route-vector):
// an explicit null is accepted for them.
const nullable = (v, where) => (v === null ? null : need(v, "string", where) ?? null);
const strings = (v, where) => need(v, "array", where).map((s, i) => need(s, "string", `${where}[${i}]`, false));
const modesOf = (v, where) => {
  if (v === undefined) return MODES;
  const modes = strings(v, where);
  if (!modes.length || modes.some((m) => !MODES.includes(m))) throw new Malformed(`${where}: bad modes`);
  return modes;
};
const count = (v, where, optional = true) => {
  if (v === undefined && optional) return v;
  if (!Number.isInteger(v) || v < 0) throw new Malformed(`${where} must be an int >= 0`);
  return v;
};
const nonNegative = (v, where, optional = true) => {
  if (v === undefined && optional) return v;
  if (!Number.isFinite(v) || v < 0) throw new Malformed(`${where} must be a number >= 0`);
  return v;
};
const nonEmpty = (v, where) => {
  if (!need(v, "array", where, false).length) throw new Malformed(`${where} is empty`);
  return v;
};

// -- effects.backoff (section 3.7) ---------------------------------------------------------
function backoff(input) {
  fields(input, "input", ["attempt", "base_delay", "multiplier", "max_delay", "jitter", "key"]);
  const { attempt, base_delay: baseDelay, multiplier, max_delay: maxDelay, jitter, key } = input;
  return backoffDelay(attempt, { baseDelay, multiplier, maxDelay, jitter, key });
}

// -- effects.route (section 3.8) -----------------------------------------------------------
const ENTRY_KEYS = ["usage", "emit", "advance", "kill", "abort", "return", "echo", "raise", "crash"];

function checkEntry(e, where) {
  fields(e, where, ENTRY_KEYS);
  if (["return", "echo", "raise", "crash"].filter((k) => k in e).length > 1) {
    throw new Malformed(`${where}: more than one ending`);
  }
  if ("echo" in e && e.echo !== true) throw new Malformed(`${where}.echo must be true`);
  if ("crash" in e && e.crash !== true) throw new Malformed(`${where}.crash must be true`);
  if ("raise" in e) {
    fields(e.raise, `${where}.raise`, ["code", "message"]);
    text(e.raise.code, `${where}.raise.code`, false);
    need(e.raise.message, "string", `${where}.raise.message`);
  }
  if ("usage" in e) {
    const list = Array.isArray(e.usage) ? e.usage : [e.usage];
    list.forEach((u, i) => need(u, "object", `${where}.usage[${i}]`, false));
  }
  if ("emit" in e) need(e.emit, "array", `${where}.emit`, false);
  if ("advance" in e) need(e.advance, "number", `${where}.advance`, false);
  if ("kill" in e) checkKill(e.kill, `${where}.kill`);
  if ("abort" in e && typeof e.abort === "string") text(e.abort, `${where}.abort`, false);
  if ("abort" in e && typeof e.abort !== "string") {
    fields(e.abort, `${where}.abort`, ["reason", "source"]);
    // source defaults to call, as the bare reason's does (#effects.route-vector)
    if (!("source" in e.abort)) e.abort = { ...e.abort, source: "call" };
    if (!["call", "execution", "scope"].includes(e.abort.source)) throw new Malformed(`${where}.abort.source`);
    if (e.abort.source === "scope" && "reason" in e.abort) throw new Malformed(`${where}.abort: closing takes no reason`);
    if (e.abort.source !== "scope") text(e.abort.reason, `${where}.abort.reason`, false);
  }
}
function checkKill(k, where) {
  fields(k, where, ["reason", "toolId"]);
  text(k.reason, `${where}.reason`, false);
  text(k.toolId, `${where}.toolId`);
}

function buildMiddleware(m, i, trace) {
  const where = `middleware[${i}]`;
  need(m, "object", where, false);
  switch (m.kind) {
    case "retry": {
      fields(m, where, ["kind", "maxAttempts", "baseDelay", "multiplier", "maxDelay", "jitter", "seed", "retryOn"]);
      const opts = {};
      for (const k of ["baseDelay", "multiplier", "maxDelay", "jitter"]) if (k in m) opts[k] = need(m[k], "number", `${where}.${k}`);
      if ("seed" in m) opts.seed = need(m.seed, "string", `${where}.seed`);
      if ("retryOn" in m) {
        const codes = strings(m.retryOn, `${where}.retryOn`);
        // an empty string is no error code (#effects.route-vector)
        for (const c of codes) text(c, `${where}.retryOn[]`, false);
        opts.retryOn = (e) => codes.includes(e.code);
      }
      return new RetryMiddleware(m.maxAttempts, opts);
    }
    case "rateLimit":
      fields(m, where, ["kind", "capacity", "rate", "per"]);
      // an optional member given as null is of the wrong type (a rateLimit's per included)
      return new RateLimitMiddleware({ capacity: m.capacity, rate: m.rate,
        per: m.per === undefined ? "tool" : m.per });
    case "envelope":
      fields(m, where, ["kind"]);
      return new EnvelopeMiddleware();
    case "probe":
      fields(m, where, ["kind", "name", "setInput", "return"]);
      text(m.name, `${where}.name`, false);
      return { handle: (ctx, input, next) => probe(m, ctx, input, next, trace) };
    default:
      throw new Malformed(`${where}: unknown kind ${m.kind}`);
  }
}

// A probe traces what it sees on the way in and out; it may rewrite the input or answer.
function probe(m, ctx, input, next, trace) {
  trace.push({ enter: m.name, attempt: ctx.attempt, input: copy(input) });
  if ("return" in m) {
    trace.push({ leave: m.name, attempt: ctx.attempt, output: copy(m.return) });
    return copy(m.return);
  }
  let out;
  try {
    out = next(ctx, "setInput" in m ? copy(m.setInput) : input);
  } catch (e) {
    if (e instanceof LoomError) trace.push({ leave: m.name, attempt: ctx.attempt, error: e.code });
    throw e;
  }
  trace.push({ leave: m.name, attempt: ctx.attempt, output: copy(out) });
  return out;
}

// What the case may observe of a call's error (section 3.8, "<error>"): the members are
// chosen by the code, whoever raised it (a scripted raise of a refusal code included, with
// null for what it does not carry).
function errorOf(e) {
  const out = { code: e.code };
  const d = e.details ?? {};
  if (e.code === "effect.aborted") {
    out.reason = d.reason ?? null;
    if (d.cause) out.cause = d.cause.code;
  } else if (e.code === "effect.killed") {
    out.message = e.message;
  } else if (e.code === "effect.denied") {
    Object.assign(out, { toolId: d.toolId ?? null, principal: d.principal ?? null, mode: d.mode ?? null });
  } else if (e.code === "effect.rate-limited") {
    out.retryAfter = d.retryAfter === undefined || d.retryAfter === null ? null : round6(d.retryAfter);
  } else if (d.scripted) {
    out.message = e.message;
  }
  return out;
}

const CALL_KEYS = ["tool", "input", "mode", "door", "principal", "executionId", "stepId", "idempotencyKey",
  "aborted", "watchSignal", "scope"];
const SCOPE_CALL_KEYS = ["tool", "input", "aborted", "watchSignal", "scope"];

function route(input) {
  fields(input, "input", ["effects", "grants", "middleware", "meter", "clock", "steps"]);
  const trace = [];
  const clockStart = nonNegative(input.clock, "clock") ?? 0;
  const clock = new ManualClock(clockStart);
  const sleep = clock.sleep.bind(clock);
  clock.sleep = (s) => {
    trace.push({ sleep: s });
    sleep(s);
  };
  let meter = null;
  if (input.meter !== undefined) {
    fields(input.meter, "meter", ["budget", "estimate"]);
    const estimate = count(input.meter.estimate, "meter.estimate") ?? 1;
    meter = new BudgetMeter(count(input.meter.budget, "meter.budget", false), { estimate: () => estimate });
    const record = meter.record.bind(meter);
    meter.record = (call, usage, advisory) => {
      const rec = record(call, usage, advisory);
      trace.push({ record: copy(rec) });
      return rec;
    };
  }
  let authorizer;
  if (input.grants !== undefined) {
    authorizer = new GrantAuthorizer(need(input.grants, "array", "grants").map((g, i) => {
      fields(g, `grants[${i}]`, ["principal", "toolId", "modes"]);
      text(g.principal, `grants[${i}].principal`, false);
      text(g.toolId, `grants[${i}].toolId`, false);
      return { principal: g.principal, toolId: g.toolId, modes: modesOf(g.modes, `grants[${i}].modes`) };
    }));
  }
  const middleware = (need(input.middleware, "array", "middleware") ?? [])
    .map((m, i) => buildMiddleware(m, i, trace));
  const killSwitch = new KillSwitch();
  const rt = new EffectRuntime({ authorizer, middleware, meter, killSwitch, clock });
  const scopes = new Map();
  let running = null; // the call being run: {signal (the caller's), scope}

  nonEmpty(input.effects, "effects").forEach((e, i) => {
    const where = `effects[${i}]`;
    fields(e, where, ["toolId", "modes", "idempotent", "script"]);
    const script = need(e.script, "array", `${where}.script`, false);
    if (!script.length) throw new Malformed(`${where}.script is empty`);
    script.forEach((s, j) => checkEntry(s, `${where}.script[${j}]`));
    rt.register({ toolId: text(e.toolId, `${where}.toolId`, false), modes: modesOf(e.modes, `${where}.modes`),
      idempotent: need(e.idempotent, "boolean", `${where}.idempotent`) ?? false,
      execute: (ctx, inp) => scripted(script[Math.min(ctx.attempt, script.length) - 1], ctx, inp) });
  });

  // One attempt of a scripted effect: usage, emit, advance, kill, abort, then its ending.
  function scripted(entry, ctx, inp) {
    if (running.watch && !running.seen) running.seen = ctx.signal;
    trace.push({ execute: { attempt: ctx.attempt, toolId: ctx.toolId, mode: ctx.mode, principal: ctx.principal,
      executionId: ctx.executionId, idempotencyKey: ctx.idempotencyKey, input: copy(inp), now: ctx.clock.now() } });
    if ("usage" in entry) for (const u of [entry.usage].flat()) ctx.reportUsage(copy(u));
    for (const ev of entry.emit ?? []) ctx.emit(copy(ev));
    if ("advance" in entry) clock.advance(entry.advance); // the clock refuses to move back
    if ("kill" in entry) killSwitch.kill(entry.kill.reason, { toolId: entry.kill.toolId ?? null });
    if ("abort" in entry) {
      const a = typeof entry.abort === "string" ? { reason: entry.abort, source: "call" } : entry.abort;
      if (a.source === "call") running.signal.abort(a.reason);
      else if (!running.scope) throw new Malformed(`abort from ${a.source} needs a call through a scope`);
      else if (a.source === "execution") running.scope.executionSignal.abort(a.reason);
      else running.scope.close();
    }
    if (entry.crash) throw new Crash(0);
    if (entry.raise) {
      // the effect's own failure; only argument.invalid is the invalid-argument error
      const { code, message = "scripted failure" } = entry.raise;
      if (code === "argument.invalid") {
        const e = new InvalidArgument(message);
        e.details.scripted = true;
        throw e;
      }
      throw new LoomError(code, message, { scripted: true });
    }
    return entry.echo ? copy(inp) : copy(entry.return ?? null);
  }

  function runCall(c) {
    need(c, "object", "call", false);
    fields(c, "call", c.scope !== undefined ? SCOPE_CALL_KEYS : CALL_KEYS);
    const tool = text(c.tool, "call.tool", false);
    const inp = copy(c.input ?? null);
    need(c.watchSignal, "boolean", "call.watchSignal");
    const signal = new Signal();
    if (c.aborted !== undefined) signal.abort(text(c.aborted, "call.aborted"));
    running = { signal, scope: null, watch: Boolean(c.watchSignal), seen: null };
    if (c.scope !== undefined) {
      running.scope = scopes.get(c.scope);
      if (!running.scope) throw new Malformed(`no scope ${c.scope}`);
      return () => running.scope.invokeTransient(tool, inp, { signal });
    }
    const mode = c.mode === undefined ? "transient" : c.mode; // null is no mode
    if (!MODES.includes(mode)) throw new Malformed(`call.mode ${mode}`);
    const door = c.door === undefined ? (mode === "durable" ? "invoke" : "invokeTransient") : c.door;
    const principal = text(c.principal, "call.principal") ?? "p";
    if (door === "callTransient") {
      for (const k of ["mode", "executionId", "stepId", "idempotencyKey"]) {
        if (k in c) throw new Malformed(`callTransient takes no ${k}`);
      }
      return () => rt.callTransient(tool, inp, { principal, signal });
    }
    if (!["invoke", "invokeTransient"].includes(door)) throw new Malformed(`call.door ${door}`);
    const call = effectCall({ toolId: tool, input: inp, mode, principal,
      executionId: nullable(c.executionId, "call.executionId"),
      stepId: nullable(c.stepId, "call.stepId"),
      idempotencyKey: nullable(c.idempotencyKey, "call.idempotencyKey"),
      signal, onEmit: (ev) => trace.push({ emit: copy(ev) }) });
    return () => rt[door](call);
  }

  const watched = [];
  const results = nonEmpty(input.steps, "steps").map((step, i) => {
    need(step, "object", `steps[${i}]`, false);
    const keys = Object.keys(step);
    if (keys.length !== 1) throw new Malformed(`steps[${i}] must have exactly one key`);
    const [kind] = keys;
    const arg = step[kind];
    switch (kind) {
      case "call": {
        const go = runCall(arg);
        trace.length = 0;
        const out = { trace };
        try {
          out.outcome = { output: copy(go()) };
        } catch (e) {
          if (e instanceof Crash) out.outcome = { crashed: true };
          else if (e instanceof LoomError && !(e instanceof Malformed)) out.outcome = { error: errorOf(e) };
          else throw e;
        }
        out.trace = copy(trace);
        if (running.watch) watched.push([out, running]);
        return out;
      }
      case "advance":
        clock.advance(nonNegative(arg, "advance", false));
        return {};
      case "kill":
        checkKill(arg, "kill");
        killSwitch.kill(arg.reason, { toolId: arg.toolId ?? null });
        return {};
      case "revive":
        fields(arg, "revive", ["toolId"]);
        killSwitch.revive({ toolId: need(arg.toolId, "string", "revive.toolId") ?? null });
        return {};
      case "scope": {
        fields(arg, "scope", ["name", "executionId", "executionAborted"]);
        const name = text(arg.name, "scope.name", false); // a name in use: replaced
        const executionSignal = new Signal();
        if (arg.executionAborted !== undefined) executionSignal.abort(text(arg.executionAborted, "scope.executionAborted"));
        scopes.set(name, new DecideScope(rt, text(arg.executionId, "scope.executionId", false), { executionSignal }));
        return {};
      }
      case "close":
        if (!scopes.has(arg)) throw new Malformed(`no scope ${arg}`);
        scopes.get(arg).close();
        return {};
      case "cancelExecution":
        fields(arg, "cancelExecution", ["scope", "reason"]);
        if (!scopes.has(arg.scope)) throw new Malformed(`no scope ${arg.scope}`);
        scopes.get(arg.scope).executionSignal.abort(text(arg.reason, "cancelExecution.reason", false));
        return {};
      case "isIdempotent":
        return { idempotent: rt.isIdempotent(text(arg, "isIdempotent", false)) };
      default:
        throw new Malformed(`unknown step ${kind}`);
    }
  });
  // signalAtEnd: the state, after the last step, of the signal the effect saw.
  for (const [out, r] of watched) {
    out.signalAtEnd = r.seen === null ? null
      : r.seen.aborted ? { aborted: true, reason: r.seen.reason } : { aborted: false };
  }
  return { steps: results };
}

export const EFFECTS_VECTORS = { "effects.backoff": backoff, "effects.route": route };
