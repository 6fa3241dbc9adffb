#!/usr/bin/env node
// The loom conformance protocol over a minimal JavaScript kernel: proof that the protocol and
// the cases are language-neutral. No npm dependencies.
//
//   node conformance/adapters/node/loom-adapter.mjs
//   loom-ref conformance --impl "node conformance/adapters/node/loom-adapter.mjs"
//
// Implements scenarios (the body language, scripted effects and deciders, every action, crash
// and torn-write options, and options.alwaysReplay: kernel.mjs replays strictly after each step
// outcome, decision, stream append and resume) and these vector functions, one chapter module
// each:
// - journal.parse, journal.parse-log (the store log), journal.fold (journal.mjs; a line's
//   nesting, names and ids: journal-text.mjs); journal.power-loss (journal-powerloss.mjs: a
//   simulated disk), journal.store-on-disk (journal-disk.mjs: a file store and a store log
//   written through it);
// - stream.check, stream.assemble, stream.decode, stream.enforce (stream.mjs); stream.consume,
//   stream.openai_map, stream.sse_data, stream.attribution_headers, stream.usage_billed (stream-io.mjs); stream.anthropic_map,
//   stream.anthropic_request, stream.openai_request (stream-anthropic.mjs);
// - taint.guard_request, taint.unwrap, validators.check, validators.check_output
//   (governance.mjs, with dialect.mjs for the validators' portable patterns), guards.run,
//   guards.steps (governance-guards.mjs): chapter 4's one implementation, which the deltas
//   modules use too;
// - effects.backoff, effects.route (effects.mjs over effects-runtime.mjs);
// - deltas.run, deltas.record, deltas.llm, deltas.replay (deltas-vectors.mjs over deltas.mjs,
//   llm.mjs and the governance modules);
// - the agent chapter's vectors (agent.mjs, agent-model.mjs);
// and the capability `agent`: the body instruction `agent_loop` (agent-loop.mjs), whose
// opaque form's `agent_step` effect the scripted world's host provides.
// It declares no other capability (not patterns.python-re), so the runner reports every
// other group as skipped.

import { createInterface } from "node:readline";
import {
  Crash, LoomError, MemoryStore, checkPayload, checkSchema, fold, parseJournal, parseLog,
} from "./journal.mjs";
import { Runtime, UncodedError } from "./kernel.mjs";
import { EFFECTS_VECTORS } from "./effects.mjs";
import { GOVERNANCE_VECTORS } from "./governance.mjs";
import { GUARD_VECTORS } from "./governance-guards.mjs";
import { STREAM_VECTORS } from "./stream.mjs";
import { AGENT_VECTORS } from "./agent.mjs";
import { AGENT_MODEL_VECTORS } from "./agent-model.mjs";
import { agentLoopInstruction } from "./agent-loop.mjs";
import { DELTAS_VECTORS } from "./deltas-vectors.mjs";
import { STREAM_IO_VECTORS } from "./stream-io.mjs";
import { STREAM_ANTHROPIC_VECTORS } from "./stream-anthropic.mjs";
import { JOURNAL_DISK_VECTORS } from "./journal-disk.mjs";
import { JOURNAL_CONTENT_VECTORS } from "./journal-content.mjs";

// every chapter module's vector functions, by conformance function name
const CHAPTER_VECTORS = {
  ...STREAM_VECTORS, ...STREAM_IO_VECTORS, ...STREAM_ANTHROPIC_VECTORS, ...GOVERNANCE_VECTORS, ...GUARD_VECTORS,
  ...EFFECTS_VECTORS, ...DELTAS_VECTORS,
  ...AGENT_VECTORS, ...AGENT_MODEL_VECTORS, ...JOURNAL_DISK_VECTORS, ...JOURNAL_CONTENT_VECTORS,
};
// text.code-points: every chapter module counts code points; text.lone-surrogates: JSON.parse
// keeps a lone surrogate (INTERPRETING.md section 15). Not patterns.python-re: the deny
// patterns are portable-1 only (dialect.mjs).
const CAPABILITIES = ["scenario", "crash", "torn-write", "always-replay", "agent",
  "text.code-points", "text.lone-surrogates",
  "journal.parse", "journal.parse-log",
  "journal.fold", ...Object.keys(CHAPTER_VECTORS)];
const copy = (v) => (v === undefined ? null : JSON.parse(JSON.stringify(v)));
class ScenarioBug extends Error {}
// a scripted raise: with a code a Loom error, without one an error that carries none
const scripted = (r) => (r.code === undefined ? new UncodedError(r.message)
  : new LoomError(r.code, r.message));

// -- the scripted world (INTERPRETING.md section 6) ----------------------------------------
class World {
  constructor(effects = {}, deciders = {}) {
    Object.assign(this, { effects, deciders, counts: {}, deciderCounts: {}, drifts: {}, trace: [] });
    this.provided = {}; // effects the implementation provides itself (agent_step)
    this.warn = () => {};
  }
  provide(tool, fn) {
    this.provided[tool] = fn;
  }
  next(table, name, script) {
    const n = table[name] || 0;
    table[name] = n + 1;
    return script[Math.min(n, script.length - 1)];
  }
  // this host is the kernel's plain one: it runs each call once, so its attempt is 1
  // (kernel.effect-forms), which an `attempt` entry returns
  answer(tool, input, attempt) {
    if (!(tool in this.effects)) throw new LoomError("effect.unknown-tool", `no effect ${tool}`);
    const e = this.next(this.counts, tool, this.effects[tool].script);
    if ("raise" in e) throw scripted(e.raise);
    if ("attempt" in e) return attempt;
    return "echo" in e ? copy(input) : copy(e.return);
  }
  // an effect's own declaration of its modes (default both): refused before it runs
  allows(tool, mode) {
    const modes = this.effects[tool] && this.effects[tool].modes;
    if (modes && !modes.includes(mode)) {
      throw new LoomError("effect.mode-refused", `${tool} does not allow ${mode} calls`);
    }
  }
  host(failing) {
    const host = {
      invoke: ({ tool, stepId, key, input }) => {
        const provided = this.provided[tool];
        // a replay's effects take every call, registered or not (INTERPRETING.md 6, replay)
        if (!failing && !(tool in this.effects) && !provided) throw new LoomError("effect.unknown-tool", `no effect ${tool}`);
        if (!failing) this.allows(tool, "durable");
        this.trace.push({ call: { tool, stepId, idempotencyKey: key, input: copy(input) } });
        if (failing) throw new LoomError("conformance.called-on-replay", "replay called an effect");
        return provided ? provided(copy(input), host) : this.answer(tool, input, 1);
      },
      invokeTransient: (tool, input) => {
        if (!failing && !(tool in this.effects)) throw new LoomError("effect.unknown-tool", `no effect ${tool}`);
        if (!failing) this.allows(tool, "transient");
        this.trace.push({ transient: { tool, input: copy(input) } });
        if (failing) throw new LoomError("conformance.called-on-replay", "replay called an effect");
        return this.answer(tool, input, 1);
      },
      isIdempotent: (tool) => Boolean(this.effects[tool] && this.effects[tool].idempotent),
    };
    return host;
  }
  decider(name, decisionId) {
    return (scope) => {
      this.trace.push({ decider: { decisionId } });
      if (!(name in this.deciders)) throw new ScenarioBug(`no decider ${name}`);
      const e = this.next(this.deciderCounts, name, this.deciders[name].script);
      if ("raise" in e) throw scripted(e.raise);
      if ("choice" in e) return { value: copy(e.choice), policy: e.policy, propensity: e.propensity ?? null };
      if ("invokeTransient" in e) {
        return { value: scope.invokeTransient(e.invokeTransient.tool, copy(e.invokeTransient.input)) };
      }
      return { value: copy(e.return) };
    };
  }
  drift(name, values) {
    const n = this.drifts[name] || 0;
    this.drifts[name] = n + 1;
    return copy(values[Math.min(n, values.length - 1)]);
  }
}

// -- the body language (INTERPRETING.md section 5) -----------------------------------------
const jsonEqual = (a, b) => {
  if (typeof a === "boolean" || typeof b === "boolean") return a === b;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (a && typeof a === "object") {
    if (!b || typeof b !== "object" || Array.isArray(b)) return false;
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && jsonEqual(a[k], b[k]));
  }
  return a === b;
};
const walk = (v, path) => {
  for (const k of path) {
    if (v && typeof v === "object" && !Array.isArray(v) && typeof k === "string") {
      v = Object.prototype.hasOwnProperty.call(v, k) ? v[k] : null;
    }
    else if (Array.isArray(v) && Number.isInteger(k)) v = v.at(k) ?? null;
    else return null;
  }
  return v;
};

function evaluate(x, env) {
  if (Array.isArray(x)) return x.map((v) => evaluate(v, env));
  if (x === null || typeof x !== "object") return x;
  const keys = Object.keys(x);
  if (!(keys.length === 1 && keys[0].startsWith("$"))) {
    return Object.fromEntries(keys.map((k) => [k, evaluate(x[k], env)]));
  }
  const arg = x[keys[0]];
  switch (keys[0]) {
    case "$literal": return arg;
    case "$var":
      if (!(arg in env.vars)) throw new ScenarioBug(`unbound ${arg}`);
      return env.vars[arg];
    case "$input": return walk(env.input, arg || []);
    case "$get": return walk(evaluate(arg[0], env), arg.slice(1));
    case "$eq": return jsonEqual(evaluate(arg[0], env), evaluate(arg[1], env));
    case "$not": return !truthy(evaluate(arg, env));
    case "$add": return arg.reduce((s, v) => s + evaluate(v, env), 0);
    case "$concat": return arg.map((v) => evaluate(v, env)).join("");
    case "$drift": return env.drift(arg.name, arg.values);
    default: throw new ScenarioBug(`unknown operator ${keys[0]}`);
  }
}
const truthy = (v) => !(v === false || v === null || v === 0 || v === "" ||
  (Array.isArray(v) && !v.length) || (v && typeof v === "object" && !Object.keys(v).length));

class Return {
  constructor(value) {
    this.value = value;
  }
}

function* block(ctx, body, env, world) {
  for (const ins of body) {
    let result = null;
    switch (ins.op) {
      case "execute":
        result = yield ctx.execute(ins.tool, evaluate(ins.input ?? null, env), ins.stepId);
        break;
      case "decide": {
        const extra = {};
        for (const k of ["context", "alternatives"]) if (k in ins) extra[k] = evaluate(ins[k], env);
        result = yield ctx.decide(ins.id, world.decider(ins.decider ?? ins.id, ins.id), extra);
        break;
      }
      case "suspend":
        result = yield ctx.suspend(ins.gate, ins.on ?? null, ins.correlationKey ?? null,
          ins.resumeSchema ?? null);
        break;
      case "stream":
        yield ctx.stream(evaluate(ins.data, env));
        break;
      case "set":
        env.vars[ins.var] = evaluate(ins.value, env);
        break;
      case "if":
        yield* block(ctx, truthy(evaluate(ins.cond, env)) ? ins.then : (ins.else || []), env, world);
        break;
      case "repeat":
        for (let i = 0; i < ins.times; i++) {
          if (ins.as) env.vars[ins.as] = i;
          yield* block(ctx, ins.body, env, world);
        }
        break;
      case "try":
        try {
          yield* block(ctx, ins.body, env, world);
        } catch (e) {
          if (!(e instanceof LoomError) && !(e instanceof UncodedError)) throw e;
          if (ins.catch.as) env.vars[ins.catch.as] = { code: e instanceof LoomError ? e.code : null };
          yield* block(ctx, ins.catch.body, env, world);
        }
        break;
      case "return":
        throw new Return(evaluate(ins.value ?? null, env));
      case "raise":
        throw new LoomError(ins.code, ins.message);
      case "yield": // a plain JSON value, no command: the kernel refuses it (kernel.commands)
        yield evaluate(ins.value ?? null, env);
        break;
      case "agent_loop":
        result = yield* agentLoopInstruction(ctx, ins, evaluate(ins.input ?? null, env), world);
        break;
      default:
        throw new ScenarioBug(`unknown op ${ins.op}`);
    }
    if (ins.as && ["execute", "decide", "suspend", "agent_loop"].includes(ins.op)) env.vars[ins.as] = result;
  }
}

function compile(workflow, world) {
  return {
    name: workflow.name,
    resumeSchemas: workflow.resumeSchemas || {},
    body: function* (ctx, input) {
      const env = { vars: {}, input, drift: (n, v) => world.drift(n, v) };
      try {
        yield* block(ctx, workflow.body, env, world);
      } catch (e) {
        if (e instanceof Return) return e.value;
        throw e;
      }
      return null;
    },
  };
}

// -- scenarios (INTERPRETING.md section 6) --------------------------------------------------
const errorObs = (e) => {
  const out = { code: e.code };
  // index: the chunk a contract violation was raised at (spec: stream.assembler.strict)
  for (const k of ["line", "reason", "position", "dialect", "index"]) if (e.details && e.details[k] !== undefined) out[k] = e.details[k];
  // kernel.schema-problems: the distinct JSON Pointers of a refused payload's problems, sorted
  if (e.code === "kernel.invalid-resume" && e.details && e.details.problems) {
    out.paths = [...new Set(e.details.problems.map((p) => p.path))].sort(byCodePoint);
  }
  return out;
};
const byCodePoint = (a, b) => {
  const x = [...a].map((c) => c.codePointAt(0));
  const y = [...b].map((c) => c.codePointAt(0));
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
};

const RAW_ACTIONS = new Set(["tear", "appendBytes", "corrupt", "holdWriter", "releaseWriter"]);

function runScenario(c) {
  const eid = c.executionId || "e1";
  const world = new World(c.effects, c.deciders);
  const workflow = compile(c.workflow, world);
  const store = new MemoryStore();
  let held = null;
  const actions = c.actions.map((a) => {
    world.trace = [];
    const warnings = [];
    world.warn = (m) => warnings.push(m.split(":")[0].trim());
    const fault = { after: a.crash ? a.crash.afterEvent : 0, torn: Boolean(a.crash && a.crash.torn),
      count: 0, onAppend: (ev) => world.trace.push({ event: { kind: ev.kind, payload: copy(ev.payload) } }) };
    const rt = new Runtime({ store, effects: world.host(a.do === "replay"), workflows: [workflow],
      warn: (m) => warnings.push(m.split(":")[0].trim()), fault, alwaysReplay: Boolean(c.options?.alwaysReplay) });
    let obs;
    try {
      obs = { result: outcome(act(a, rt), c.observe || []) };
    } catch (e) {
      if (e instanceof Crash) obs = { crashed: true };
      else if (e instanceof LoomError) obs = { raised: errorObs(e) };
      else throw e;
    }
    return { ...obs, trace: world.trace, warnings };
  });
  function act(a, rt) {
    // each action is a fresh process that builds the workflow again: a resumeSchemas entry
    // outside the subset is refused here (kernel.resume-schema, argument.schema)
    if (!RAW_ACTIONS.has(a.do)) {
      for (const [gate, schema] of Object.entries(workflow.resumeSchemas)) {
        // kernel.ids: the keys are gate ids, non-empty strings
        if (gate === "") throw new LoomError("argument.id", "resumeSchemas keys are gate ids (non-empty strings)");
        checkSchema(schema, `resumeSchemas[${gate}]`);
      }
    }
    switch (a.do) {
      case "start": return rt.start(a.workflow ?? workflow.name, a.input, eid);
      case "resume": return rt.resume(eid, a.gate, a.payload);
      case "recover": return rt.recover(eid);
      case "resolve": return rt.resolve(eid, a.step, a);
      case "replay": return rt.replay(eid);
      default: return raw(a);
    }
  }
  function raw(a) {
    // the byte edits work on a journal that exists (INTERPRETING.md section 6)
    if (a.do !== "releaseWriter" && !store.exists(eid)) throw new LoomError("journal.not-found", `no journal ${eid}`);
    if (a.do === "holdWriter") {
      // a second writer opens as any writer does: a torn tail is truncated and warned about
      // (INTERPRETING.md section 6, journal.torn-tail)
      const j = store.open(eid, null);
      if (j.torn) world.warn(`journal.torn-tail: line ${j.torn.line} was torn`);
      held = eid;
    } else if (a.do === "releaseWriter") {
      store.writers.delete(held);
      held = null;
    } else {
      const buf = store.data.get(eid);
      if (a.do === "appendBytes") {
        store.data.set(eid, Buffer.concat([buf, Buffer.from(a.text, "utf8")]));
      } else {
        const lines = [];
        let s = 0;
        for (let i = 0; i <= buf.length; i++) {
          if (i === buf.length || buf[i] === 0x0a) {
            lines.push(buf.subarray(s, i));
            s = i + 1;
          }
        }
        const n = a.line - 1;
        if (n >= lines.length) throw new ScenarioBug(`${a.do} line ${a.line}: the journal has no such line`);
        if (a.do === "tear") {
          const keep = a.whole ? lines[n].length : Math.max(1, Math.floor(lines[n].length / 2));
          const head = lines.slice(0, n).map((l) => Buffer.concat([l, Buffer.from("\n")]));
          store.data.set(eid, Buffer.concat([...head, lines[n].subarray(0, keep)]));
        } else {
          const line = Buffer.from(lines[n]);
          if (!/,"crc":"[0-9a-f]{8}"\}$/.test(line.toString("latin1"))) { // INTERPRETING.md 6
            throw new ScenarioBug(`corrupt line ${a.line}: the line has no crc member`);
          }
          const digits = line.subarray(-10, -2).toString("latin1") === "00000000" ? "ffffffff" : "00000000";
          line.write(digits, line.length - 10, "latin1");
          lines[n] = line;
          store.data.set(eid, Buffer.concat(lines.flatMap((l, i) => (i ? [Buffer.from("\n"), l] : [l]))));
        }
      }
    }
    return null;
  }
  if (held) store.writers.delete(held);
  let journal = null;
  if (store.exists(eid)) {
    try {
      const parsed = store.read(eid);
      journal = { events: parsed.events.map((e) => ({ kind: e.kind, payload: e.payload })),
        tornTail: parsed.torn !== null };
    } catch (e) {
      if (!(e instanceof LoomError)) throw e;
      journal = { error: errorObs(e) };
    }
  }
  return { actions: actions.map((o) => (o.result === null ? { done: true, trace: o.trace, warnings: o.warnings } : o)), journal };
}

// a result, with what the case's `observe` asks for (INTERPRETING.md section 6)
function outcome(r, observe = []) {
  if (r === null) return null;
  const out = { status: r.status };
  if (observe.includes("served")) out.served = r.served;
  if (observe.includes("ran")) out.ran = r.ran;
  if (observe.includes("torn")) out.torn = r.torn ? { line: r.torn.line, size: r.torn.size } : null;
  if (r.status === "completed") out.output = copy(r.output);
  if (r.status === "failed") out.error = { code: r.error.code };
  if (r.status === "suspended") out.waitingOn = r.waitingOn;
  if (r.status === "in-doubt") out.inDoubtStep = r.inDoubtStep;
  return out;
}

// -- vectors (INTERPRETING.md section 3) ----------------------------------------------------
const isObj = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
// A vector input of the wrong shape is the vector's own argument.invalid (INTERPRETING.md 3).
function journalText(input) {
  if (!isObj(input) || typeof input.text !== "string") {
    throw new LoomError("argument.invalid", "the input must be {text: <string>}");
  }
  return Buffer.from(input.text, "utf8");
}

const VECTORS = {
  "journal.parse": (input) => {
    const p = parseJournal(journalText(input));
    return { executionId: p.executionId, events: p.events, torn: p.torn };
  },
  "journal.parse-log": (input) => {
    const p = parseLog(journalText(input));
    return { executions: p.executions, order: p.order, torn: p.torn };
  },
  "journal.fold": (input) => {
    if (!isObj(input) || !Array.isArray(input.events)) {
      throw new LoomError("argument.invalid", "the input must be {events: [...]}");
    }
    const events = input.events.map((e, i) => {
      if (!isObj(e)) throw new LoomError("argument.invalid", `event ${i + 1} is not an object`);
      checkPayload(e.kind, e.payload);
      // journal.fold-vector: the result is keyed by these ids, and a JSON key is a string
      const key = e.kind.startsWith("STEP_") ? "stepId" : e.kind === "DECISION_RECORDED" ? "decisionId" : null;
      if (key && typeof e.payload[key] !== "string") {
        throw new LoomError("argument.invalid", `events[${i}]: the fold vector needs a string ${key}`);
      }
      // journal.fold-vector: a given seq is an integer (null is no exception), not checked
      if ("seq" in e && !Number.isInteger(e.seq)) {
        throw new LoomError("argument.invalid", `events[${i}].seq must be an integer`);
      }
      return { seq: "seq" in e ? e.seq : i + 1, kind: e.kind, payload: e.payload };
    });
    const s = fold(events);
    return { status: s.status, seq: s.seq, waitingOn: s.waitingGate, pendingResume: s.pendingResume,
      inDoubtStep: s.inDoubtStep, output: s.output, error: s.error,
      steps: Object.fromEntries(Object.entries(s.frames).map(([k, f]) => [k, f.status])),
      decisions: s.decisions };
  },
  ...CHAPTER_VECTORS,
};

function run(c) {
  try {
    if (c.family === "vector") {
      const fn = VECTORS[c.function];
      if (!fn) return { skipped: { reason: `no function ${c.function}` } };
      try {
        return { observations: { result: copy(fn(c.input)) } };
      } catch (e) {
        if (e instanceof LoomError) return { observations: { error: errorObs(e) } };
        throw e;
      }
    }
    return { observations: runScenario(c) };
  } catch (e) {
    return { errored: { message: `${e.constructor.name}: ${e.message}`, context: { stack: String(e.stack) } } };
  }
}

const rl = createInterface({ input: process.stdin });
rl.on("line", (line) => {
  if (!line.trim()) return;
  const msg = JSON.parse(line);
  let reply;
  if (msg.cmd === "start") {
    reply = { protocol: 1, implementation: { name: "loom-node-mini", version: "0.1.0",
      language: "javascript", capabilities: CAPABILITIES } };
  } else if (msg.cmd === "run") {
    reply = { seq: msg.seq, ...run(msg.case) };
  } else {
    reply = { ok: true };
  }
  process.stdout.write(JSON.stringify(reply) + "\n");
  if (msg.cmd === "stop") rl.close();
});
