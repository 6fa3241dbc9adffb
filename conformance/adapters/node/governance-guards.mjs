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
// - A chain runs its guards in order, the first sever wins (#guards.chain-order).
// - Hold-back releases all but the last max_width - 1 characters, drops the held text on a
//   sever or reset, and flushes the rest once (#guards.hold-back*).

import { LoomError } from "./journal.mjs";
import { buildValidator, cpLength, cpTail, invalid, members } from "./governance.mjs";

// spec: guards.lifecycle — the table; a missing pair is governance.guard-state
const TRANSITIONS = {
  "open accept": "open", "open sever": "severed", "open flush": "flushed", "open reset": "open",
  "severed reset": "open", "flushed reset": "open",
};

class Guard {
  constructor() {
    Object.assign(this, { state: "open", sever: null });
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
  reset() {
    this.step("reset");
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
  check(delta) {
    needDelta(delta);
    if (this.state !== "open") this.step("accept"); // sticky sever, or guard-state
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
    this.step("accept");
    this.text = cpTail(running, this.window);
    this.accepted += cpLength(delta);
    this.index += 1;
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
  check(delta) {
    needDelta(delta);
    if (this.state !== "open") this.step("accept");
    const tokens = this.count(delta);
    if (!Number.isInteger(tokens) || tokens < 0) throw invalid("a token count is an int >= 0");
    if (this.used + tokens > this.maxTokens) {
      this.severWith(new LoomError("governance.stream-token-budget", `delta ${this.index} exceeds ${this.maxTokens} tokens`,
        { max_tokens: this.maxTokens, used: this.used, delta_tokens: tokens, delta_index: this.index, repeated: false }));
    }
    this.step("accept");
    this.used += tokens;
    this.index += 1;
  }
}

/** `HoldBackGuard(validators, window=4096)` (#guards.hold-back, extension). */
export class HoldBackGuard extends Guard {
  constructor(validators, window = 4096) {
    super();
    this.inner = new RunningTextGuard(validators, window);
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
  /** Checks `delta`, then returns what can no longer start a match. */
  check(delta) {
    needDelta(delta);
    if (this.state !== "open") this.step("accept");
    try {
      this.inner.check(delta);
    } catch (e) {
      if (!(e instanceof LoomError) || !e.code.startsWith("governance.")) throw e;
      this.held = ""; // spec: guards.hold-back-drop — never released
      this.severWith(e);
    }
    this.step("accept");
    const all = this.held + delta;
    this.held = cpTail(all, this.maxWidth - 1);
    return all.slice(0, all.length - this.held.length);
  }
  /** The held remainder, once the call has succeeded (#guards.hold-back-flush). */
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

/** `GuardChain(guards)`: in order, the first sever wins (#guards.chain-order). */
class GuardChain {
  constructor(guards) {
    this.guards = guards;
  }
  check(delta) {
    let out = delta;
    for (const g of this.guards) {
      const piece = g.check(delta);
      if (g instanceof HoldBackGuard) out = piece;
    }
    return out;
  }
  flush() {
    const holder = this.guards.find((g) => g instanceof HoldBackGuard);
    for (const g of this.guards) if (g.state === "severed") g.step("flush"); // re-raises the sever
    return holder.flush();
  }
  reset() {
    for (const g of this.guards) g.reset();
  }
}

/** The chain of a `guards.run` / `guards.steps` input: validators' guard, then the budget. */
function buildChain(input) {
  const given = (k, fallback) => (Object.hasOwn(input, k) ? input[k] : fallback); // null is not absent
  const validators = given("validators", []);
  if (!Array.isArray(validators)) throw invalid("validators must be a list");
  const built = validators.map(buildValidator);
  const window = given("window", 4096);
  const holdBack = given("holdBack", false);
  if (typeof holdBack !== "boolean") throw invalid("holdBack is a boolean");
  needWindow(window);
  const guards = [holdBack ? new HoldBackGuard(built, window) : new RunningTextGuard(built, window)];
  if (Object.hasOwn(input, "maxTokens")) guards.push(new TokenBudgetGuard(input.maxTokens));
  return { chain: new GuardChain(guards), holdBack };
}

const OPTIONS = ["validators", "window", "holdBack", "maxTokens"];
const isSever = (e) => e instanceof LoomError && ["governance.delta-severed", "governance.stream-token-budget"].includes(e.code);

export const GUARD_VECTORS = {
  "guards.run": (input) => {
    const { chain, holdBack } = buildChain(members(input, ["deltas"], OPTIONS));
    if (!Array.isArray(input.deltas)) throw invalid("deltas must be a list of strings");
    input.deltas.forEach(needDelta);
    const delivered = [];
    for (const delta of input.deltas) {
      try {
        delivered.push(chain.check(delta));
      } catch (e) {
        if (!isSever(e)) throw e;
        return { delivered, flushed: null, severedAt: e.details.delta_index, code: e.code, rule: e.details.rule ?? null };
      }
    }
    return { delivered, flushed: holdBack ? chain.flush() : null, severedAt: null, code: null, rule: null };
  },
  "guards.steps": (input) => {
    const { chain, holdBack } = buildChain(members(input, ["steps"], OPTIONS));
    if (!Array.isArray(input.steps)) throw invalid("steps must be a list");
    for (const s of input.steps) {
      const ok = typeof s === "string" || (s !== null && typeof s === "object" && Object.keys(s).length === 1 &&
        (s.reset === true || (s.flush === true && holdBack)));
      if (!ok) throw invalid(`bad step ${JSON.stringify(s)}`);
    }
    const outcomes = input.steps.map((s) => {
      try {
        if (typeof s === "string") return { delivered: chain.check(s) };
        if (s.reset) return (chain.reset(), { reset: true });
        return { flushed: chain.flush() };
      } catch (e) {
        if (isSever(e)) {
          return { severed: { code: e.code, rule: e.details.rule ?? null, deltaIndex: e.details.delta_index,
            repeated: e.details.repeated } };
        }
        if (e instanceof LoomError && e.code === "governance.guard-state") return { error: { code: e.code } };
        throw e;
      }
    });
    return { outcomes };
  },
};
