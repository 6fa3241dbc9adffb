// Delta guards (spec/governance.md §4.3), hold-back (§4.4, extension) and their vector
// functions `guards.run` and `guards.steps` (§4.5), written from the spec text. No npm deps.
//
// Rules (spec/governance.md):
// - `check(delta)` runs before delivery; a sever is thrown, the delta is neither delivered
//   nor added to the running text (#guards.before-delivery).
// - The running text is the last `window` (default 4096) characters accepted before the
//   delta, then the whole delta (#guards.running-text, #guards.window); a bounded rule
//   re-scans only from fresh - (w - 1) (#guards.tail-scan). Sever details: the violation's,
//   span made absolute, plus delta_index and cause.
// - The token budget sums ceil(len / 4) per delta; the delta that would exceed it is severed
//   (#guards.token-budget, #guards.token-count).
// - One lifecycle table for every guard; a severed guard re-raises its sever, marked
//   repeated, until reset (#guards.lifecycle, #guards.sticky-sever); reset clears the running
//   text, the count and the delta index (#guards.reset).
// - A chain runs its guards in order, the first sever wins (#guards.chain-order), and severs
//   as a whole: its guards *stage* a delta (`stage(delta)` checks and returns a commit) and
//   the commits run only once none severed, so no guard takes a severed delta; a severed
//   chain re-raises its sever without consulting its guards. A check-only guard may be the
//   last of a chain only; a commit is valid once, before the guard is staged again or reset
//   (#guards.chain-sever).
// - Hold-back checks each delta through one chain (the validators' guard, then `after`, a
//   token budget), releases all but the last max_width - 1 characters, drops the held text
//   on any sever of that chain or a reset, flushes the rest once, and after a sever flushes
//   nothing but the sever again, repeated (#guards.hold-back*).
// - The whole input is checked before the first delta or step runs; which refusal an input
//   with two problems gets is implementation-defined (#guards.vector-run): this adapter reads
//   the validators before the deltas, loom-ref the deltas first, and the fuzzer excuses it.

import { LoomError } from "./journal.mjs";
import { buildValidator, cpLength, cpTail, invalid, members } from "./governance.mjs";

// spec: guards.lifecycle — the table; a missing pair is governance.guard-state
const TRANSITIONS = {
  "open accept": "open", "open sever": "severed", "open flush": "flushed", "open reset": "open",
  "severed reset": "open", "flushed reset": "open",
};

/** A `DeltaSevered` (the running-text guard's code, or the budget's subclass code). */
export const isSever = (e) => e instanceof LoomError &&
  ["governance.delta-severed", "governance.stream-token-budget"].includes(e.code);

class Guard {
  constructor() {
    // `generation` counts stages and resets: a commit is valid only for its own (#guards.chain-sever)
    Object.assign(this, { state: "open", sever: null, generation: 0 });
  }
  /** Moves the lifecycle by `event`; a severed guard re-raises its sever (#guards.sticky-sever). */
  step(event) {
    if (this.state === "severed" && event !== "reset") {
      throw new LoomError(this.sever.code, this.sever.message, { ...this.sever.details, repeated: true });
    }
    const next = TRANSITIONS[`${this.state} ${event}`];
    if (!next) throw new LoomError("governance.guard-state", `${event} on a ${this.state} guard`);
    this.state = next;
  }
  severWith(error) {
    this.step("sever");
    this.sever = error;
    throw error;
  }
  /** Opens a stage: earlier commits go stale; a severed or flushed guard refuses. */
  open(delta) {
    needDelta(delta);
    this.generation += 1;
    if (this.state !== "open") this.step("accept"); // sticky sever, or guard-state
    return this.generation;
  }
  /** A commit of stage `gen`: runs `take` once, only while no stage or reset came since. */
  commit(gen, take) {
    let used = false;
    return () => {
      if (used || gen !== this.generation) throw new LoomError("governance.guard-state", "a stale commit");
      used = true;
      this.step("accept");
      return take();
    };
  }
  check(delta) {
    return this.stage(delta)(); // spec: guards.chain-sever — check(delta) is stage(delta)()
  }
  reset() {
    this.step("reset");
    this.generation += 1;
    this.sever = null;
    this.clear();
  }
}

const needDelta = (delta) => {
  // spec: guards.before-delivery — a delta that is not a string is argument.invalid
  if (typeof delta !== "string") throw invalid("a delta must be a string");
};
const needWindow = (window) => {
  if (!Number.isInteger(window) || window < 1) throw invalid(`window must be a positive integer, got ${window}`);
};

/** `RunningTextGuard(validators, window=4096)` (#guards.running-text). */
export class RunningTextGuard extends Guard {
  constructor(validators, window = 4096) {
    super();
    needWindow(window);
    // spec: validators.fail-closed — a validator without a delta form is refused here
    for (const v of validators) if (!v.forms.delta) throw invalid(`validator ${v.name} has no delta form`);
    Object.assign(this, { validators, window });
    this.clear();
  }
  clear() {
    Object.assign(this, { text: "", accepted: 0, index: 0 });
  }
  stage(delta) {
    const gen = this.open(delta);
    const fresh = cpLength(this.text);
    const running = this.text + delta;
    for (const v of this.validators) {
      try {
        v.forms.delta(running, fresh);
      } catch (e) {
        if (e.code !== "governance.safety-violation") throw e;
        const shift = this.accepted - fresh; // running-text offsets -> the attempt's text
        const details = { ...e.details, span: e.details.span.map((x) => x + shift), delta_index: this.index,
          cause: e.code, repeated: false };
        this.severWith(new LoomError("governance.delta-severed", `delta ${this.index} severed by ${v.name}`, details));
      }
    }
    return this.commit(gen, () => {
      this.text = cpTail(running, this.window);
      this.accepted += cpLength(delta);
      this.index += 1;
    });
  }
}

/** `approx_token_count(delta)`: ceil(len / 4) (#guards.token-count). */
export const approxTokenCount = (delta) => Math.ceil(cpLength(delta) / 4);

/** `stream_token_budget(max_tokens, count)` (#guards.token-budget). */
export class TokenBudgetGuard extends Guard {
  constructor(maxTokens, count = approxTokenCount) {
    super();
    if (!Number.isInteger(maxTokens) || maxTokens < 0) throw invalid(`maxTokens must be an int >= 0, got ${maxTokens}`);
    Object.assign(this, { maxTokens, count });
    this.clear();
  }
  clear() {
    Object.assign(this, { used: 0, index: 0 });
  }
  stage(delta) {
    const gen = this.open(delta);
    const tokens = this.count(delta);
    if (!Number.isInteger(tokens) || tokens < 0) throw invalid("a token count is an int >= 0");
    if (this.used + tokens > this.maxTokens) {
      this.severWith(new LoomError("governance.stream-token-budget", `delta ${this.index} exceeds ${this.maxTokens} tokens`,
        { max_tokens: this.maxTokens, used: this.used, delta_tokens: tokens, delta_index: this.index, repeated: false }));
    }
    return this.commit(gen, () => {
      this.used += tokens;
      this.index += 1;
    });
  }
}

/**
 * `GuardChain(guards)`: in order, the first sever wins (#guards.chain-order), and the chain
 * severs as a whole (#guards.chain-sever). Its commit returns what the last guard's commit
 * (or check) returned.
 */
export class GuardChain extends Guard {
  constructor(guards) {
    super();
    if (!Array.isArray(guards)) throw invalid("a chain takes a list of guards");
    guards.forEach((g, i) => {
      // spec: guards.chain-sever — a guard with only check may be the last of a chain only
      const ok = g && typeof g === "object" && (typeof g.stage === "function" ||
        (i === guards.length - 1 && typeof g.check === "function"));
      if (!ok) throw invalid(`guard ${i} of a chain cannot stage a delta`);
    });
    this.guards = guards;
  }
  clear() {
    for (const g of this.guards) g.reset();
  }
  stage(delta) {
    const gen = this.open(delta); // a severed chain re-raises without consulting its guards
    const commits = [];
    let checked;
    try {
      for (const g of this.guards) {
        if (typeof g.stage === "function") commits.push(g.stage(delta));
        else checked = { value: g.check(delta) }; // the last, check-only: the commit point
      }
    } catch (e) {
      if (isSever(e)) this.severWith(e);
      throw e;
    }
    return this.commit(gen, () => {
      let out;
      for (const c of commits) out = c();
      return checked ? checked.value : out;
    });
  }
}

/** `HoldBackGuard(validators, window=4096, after=[])` (#guards.hold-back, extension). */
export class HoldBackGuard extends Guard {
  constructor(validators, window = 4096, after = []) {
    super();
    // spec: guards.hold-back-width — `after` is checked after the validators, in one chain
    if (!Array.isArray(after)) throw invalid("after is a list of guards");
    this.inner = new GuardChain([new RunningTextGuard(validators, window), ...after]);
    // spec: guards.hold-back-width — bounded pattern rules only, window at least the widest
    const widths = validators.flatMap((v) => {
      if (!v.rules) throw invalid(`validator ${v.name} is not a pattern validator`);
      return v.rules.map((r) => r.width);
    });
    if (widths.includes(Infinity)) throw invalid("hold-back needs bounded rules (give maxWidth)");
    this.maxWidth = Math.max(1, ...widths);
    if (window < this.maxWidth) throw invalid(`window ${window} is narrower than the widest rule (${this.maxWidth})`);
    this.clear();
  }
  clear() {
    this.held = "";
  }
  /** `feed(delta)`: checks `delta` through the chain, then returns what can no longer start a match. */
  check(delta) {
    needDelta(delta);
    if (this.state !== "open") this.step("accept"); // sticky sever, or guard-state
    try {
      this.inner.check(delta);
    } catch (e) {
      if (!isSever(e)) throw e;
      // spec: guards.hold-back-drop — a sever of the chain (validators or budget): the held
      // text is dropped and the severed delta never held
      this.held = "";
      this.severWith(e);
    }
    this.step("accept");
    const all = this.held + delta;
    this.held = cpTail(all, this.maxWidth - 1);
    return all.slice(0, all.length - this.held.length);
  }
  feed(delta) {
    return this.check(delta);
  }
  /** The held remainder, once the call has succeeded; after a sever, the sever again (#guards.hold-back-flush). */
  flush() {
    this.step("flush");
    const out = this.held;
    this.held = "";
    return out;
  }
  reset() {
    super.reset();
    this.inner.reset();
  }
}

/**
 * The guard of a `guards.run` / `guards.steps` input (§4.5): `GuardChain([RunningTextGuard,
 * budget?])`, or with hold-back `HoldBackGuard(validators, window, after=[budget?])`.
 */
function buildGuard(input) {
  const given = (k, fallback) => (Object.hasOwn(input, k) ? input[k] : fallback); // null is not absent
  const validators = given("validators", []);
  if (!Array.isArray(validators)) throw invalid("validators must be a list");
  const built = validators.map(buildValidator);
  const window = given("window", 4096);
  const holdBack = given("holdBack", false);
  if (typeof holdBack !== "boolean") throw invalid("holdBack is a boolean");
  needWindow(window);
  // spec: guards.vector-run — an explicit null maxTokens is read as absent
  const budget = input.maxTokens === undefined || input.maxTokens === null ? [] : [new TokenBudgetGuard(input.maxTokens)];
  if (holdBack) return { guard: new HoldBackGuard(built, window, budget), holdBack };
  const chain = new GuardChain([new RunningTextGuard(built, window), ...budget]);
  return { guard: { check: (d) => (chain.check(d), d), reset: () => chain.reset() }, holdBack };
}

const OPTIONS = ["validators", "window", "holdBack", "maxTokens"];

export const GUARD_VECTORS = {
  "guards.run": (input) => {
    const { guard, holdBack } = buildGuard(members(input, ["deltas"], OPTIONS));
    if (!Array.isArray(input.deltas)) throw invalid("deltas must be a list of strings");
    input.deltas.forEach(needDelta);
    const delivered = [];
    for (const delta of input.deltas) {
      try {
        delivered.push(guard.check(delta));
      } catch (e) {
        if (!isSever(e)) throw e;
        return { delivered, flushed: null, severedAt: e.details.delta_index, code: e.code, rule: e.details.rule ?? null };
      }
    }
    return { delivered, flushed: holdBack ? guard.flush() : null, severedAt: null, code: null, rule: null };
  },
  "guards.steps": (input) => {
    members(input, ["steps"], OPTIONS);
    if (!Array.isArray(input.steps)) throw invalid("steps must be a list");
    // the steps are read before the guards are built, as loom-ref reads them: an input with a
    // bad step and a bad validator is refused for the step
    for (const s of input.steps) {
      const ok = typeof s === "string" || (s !== null && typeof s === "object" && Object.keys(s).length === 1 &&
        (s.reset === true || (s.flush === true && input.holdBack === true)));
      if (!ok) throw invalid(`bad step ${JSON.stringify(s)}`);
    }
    const { guard } = buildGuard(input);
    const outcomes = input.steps.map((s) => {
      try {
        if (typeof s === "string") return { delivered: guard.check(s) };
        if (s.reset) return (guard.reset(), { reset: true });
        return { flushed: guard.flush() };
      } catch (e) {
        if (isSever(e)) {
          return { severed: { code: e.code, rule: e.details.rule ?? null, deltaIndex: e.details.delta_index,
            repeated: e.details.repeated, span: e.details.span ?? null } };
        }
        if (e instanceof LoomError && e.code === "governance.guard-state") return { error: { code: e.code } };
        throw e;
      }
    });
    return { outcomes };
  },
};
