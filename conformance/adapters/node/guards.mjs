// The governance pieces the delta channel wires into a call, written from spec/governance.md
// (chapter 4) for the deltas vectors: taint, pattern validators (pii, deny), the running-text
// delta guard, the stream token budget and the hold-back guard (extension). No npm dependencies.
//
// Rules (spec/governance.md):
// - A tainted value is a wrapper {value, origin}; guardRequest refuses a request holding one
//   anywhere (#taint.guard-request); the fence walks objects (key, then value) and arrays
//   (#taint.walk).
// - A validator has up to three forms (input, output, delta); a form rejects by raising
//   governance.safety-violation (#validators.phases, #validators.violation). A pattern rule
//   that can match the empty string is refused (#validators.rule-nonempty); rules are tried in
//   declaration order, the first with an accepted match wins (#validators.rule-order).
// - A delta guard checks each delta before delivery; a sever is sticky until reset
//   (#guards.before-delivery, #guards.sticky-sever, #guards.reset). The running text is the
//   last `window` characters accepted before the delta, then the whole delta
//   (#guards.running-text). "Characters" are code points, as in Python.

import { LoomError } from "./journal.mjs";

export const invalid = (message) => new LoomError("argument.invalid", message);
const jsonType = (v) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
const isObject = (v) => jsonType(v) === "object";
const cps = (s) => Array.from(s); // code points
const cpLen = (s) => cps(s).length;
const cpTail = (s, n) => (n <= 0 ? "" : cps(s).slice(-n).join(""));

// -- taint (#taint.tainted-value) -----------------------------------------------------------
export class Tainted {
  constructor(value, origin) {
    if (typeof origin !== "string" || !origin) throw invalid("a taint origin is a non-empty string");
    if (value instanceof Tainted) throw invalid("a tainted value is not wrapped again"); // spec: taint.no-double-wrap
    Object.assign(this, { value, origin });
    Object.freeze(this);
  }
}

/** spec: taint.guard-request, taint.guard-details — the first tainted node in document order. */
export function guardRequest(request) {
  const seen = new Set();
  const stack = [[request, ""]];
  const seg = (k) => String(k).replaceAll("~", "~0").replaceAll("/", "~1");
  while (stack.length) {
    const [v, path] = stack.pop();
    if (v instanceof Tainted) {
      throw new LoomError("governance.tainted-request", "the request holds a tainted value",
        { path, origin: v.origin });
    }
    if (v === null || typeof v !== "object" || seen.has(v)) continue; // spec: taint.cycles
    seen.add(v);
    const kids = Array.isArray(v) ? v.map((x, i) => [x, `${path}/${i}`])
      : Object.entries(v).map(([k, x]) => [x, `${path}/${seg(k)}`]);
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
  }
}

// Every string in a JSON-like value with its JSON pointer, in document order (#taint.walk):
// an object's keys are not tainted in JSON, so only values are visited; a tainted value's
// content is walked at the same path.
function* strings(value, path = "") {
  if (value instanceof Tainted) yield* strings(value.value, path);
  else if (typeof value === "string") yield [value, path];
  else if (Array.isArray(value)) for (const [i, x] of value.entries()) yield* strings(x, `${path}/${i}`);
  else if (isObject(value)) {
    for (const [k, x] of Object.entries(value)) {
      const seg = k.replaceAll("~", "~0").replaceAll("/", "~1");
      yield [k, `${path}/${seg}`]; // spec: validators.input-walk — mapping keys included
      yield* strings(x, `${path}/${seg}`);
    }
  }
}
export { strings as walkStrings };

// -- regex width (#validators.width) --------------------------------------------------------
// [min, max] characters of a match, for the common regex subset the suite uses (literals,
// classes, escapes, groups, look-around, alternation, quantifiers). max Infinity: unbounded.
export function regexWidth(src) {
  let i = 0;
  const bad = () => invalid(`regex ${JSON.stringify(src)} is outside the supported subset at ${i}`);
  const alt = () => {
    const branches = [seq()];
    while (src[i] === "|") {
      i++;
      branches.push(seq());
    }
    return [Math.min(...branches.map((b) => b[0])), Math.max(...branches.map((b) => b[1]))];
  };
  const seq = () => {
    let lo = 0;
    let hi = 0;
    while (i < src.length && src[i] !== "|" && src[i] !== ")") {
      const [a, b] = quant(atom());
      lo += a;
      hi += b;
    }
    return [lo, hi];
  };
  const atom = () => {
    const c = src[i];
    if (c === "(") {
      i++;
      let zero = false;
      if (src[i] === "?") {
        if (src[i + 1] === ":") i += 2;
        else if (src[i + 1] === "=" || src[i + 1] === "!") [i, zero] = [i + 2, true];
        else if (src[i + 1] === "<" && (src[i + 2] === "=" || src[i + 2] === "!")) [i, zero] = [i + 3, true];
        else if (src[i + 1] === "<" || (src[i + 1] === "P" && src[i + 2] === "<")) i = src.indexOf(">", i) + 1;
        else throw bad();
      }
      const w = alt();
      if (src[i] !== ")") throw bad();
      i++;
      return zero ? [0, 0] : w;
    }
    if (c === "[") {
      i++;
      if (src[i] === "^") i++;
      if (src[i] === "]") i++;
      while (i < src.length && src[i] !== "]") i += src[i] === "\\" ? 2 : 1;
      if (src[i] !== "]") throw bad();
      i++;
      return [1, 1];
    }
    if (c === "\\") {
      const e = src[i + 1];
      i += 2;
      if (e === undefined) throw bad();
      if ("bBAZz".includes(e)) return [0, 0];
      if (/[1-9]/.test(e)) return [0, Infinity]; // a back-reference: width of its group, not known here
      if (e === "x") i += 2;
      else if (e === "u") i += 4;
      return [1, 1];
    }
    if (c === "^" || c === "$") {
      i++;
      return [0, 0];
    }
    if ("*+?{".includes(c) && !(c === "{" && !/^\{\d*(,\d*)?\}/.test(src.slice(i)))) throw bad();
    if (c === ")") throw bad();
    i++;
    return [1, 1];
  };
  const quant = ([a, b]) => {
    let lo;
    let hi;
    const m = /^\{(\d*)(?:(,)(\d*))?\}/.exec(src.slice(i));
    if (src[i] === "*") [lo, hi] = [0, Infinity];
    else if (src[i] === "+") [lo, hi] = [1, Infinity];
    else if (src[i] === "?") [lo, hi] = [0, 1];
    else if (m && m[1] !== "" ) {
      lo = Number(m[1]);
      hi = m[2] ? (m[3] === "" ? Infinity : Number(m[3])) : lo;
    } else return [a, b];
    i += src[i] === "{" ? m[0].length : 1;
    if (src[i] === "?") i++; // lazy
    return [a * lo, b === 0 || hi === 0 ? 0 : b * hi];
  };
  const w = alt();
  if (i !== src.length) throw bad();
  return w;
}

// -- pattern rules and validators (#validators.*) -------------------------------------------
const FLAG = { IGNORECASE: "i", MULTILINE: "m", DOTALL: "s" };

/** spec: validators.rule-nonempty, validators.width — compile one rule. */
export function compileRule(name, regex, { flags = "", maxWidth = null, accept = null } = {}) {
  if (typeof regex !== "string") throw invalid("a rule's regex is a string");
  let re;
  try {
    // `u`: match code points, as Python's re does on str (a `.` takes one astral character)
    re = new RegExp(regex.replaceAll("(?P<", "(?<"), `${flags}gu`);
  } catch (e) {
    throw invalid(`regex ${JSON.stringify(regex)} does not compile: ${e.message}`);
  }
  const [lo, hi] = regexWidth(regex);
  if (lo === 0) throw invalid(`rule ${name} can match the empty string`);
  let width = hi;
  if (maxWidth !== null) {
    if (hi !== Infinity && maxWidth < hi) throw invalid(`max_width ${maxWidth} is below the width of ${name}`);
    width = Math.min(hi, maxWidth);
  }
  return { name, re, width, accept };
}

/** The first accepted match of the first rule that has one (spec: validators.rule-order). */
function scan(rules, text) {
  for (const rule of rules) {
    rule.re.lastIndex = 0;
    for (const m of text.matchAll(rule.re)) {
      if (rule.accept && !rule.accept(m[0])) continue;
      const start = cpLen(text.slice(0, m.index));
      return { rule: rule.name, span: [start, start + cpLen(m[0])] };
    }
  }
  return null;
}

const violation = (validator, phase, hit, extra = {}) => new LoomError("governance.safety-violation",
  `validator ${validator} rejected the ${phase} (rule ${hit.rule})`, // spec: validators.no-echo
  { validator, phase, rule: hit.rule, span: hit.span, ...extra });

/** `pattern_validator(name, rules)` with the forms named in `phases`. */
export function patternValidator(name, rules, phases = ["input", "output", "delta"]) {
  const v = { name, rules };
  if (phases.includes("input")) {
    v.input = (value) => { // spec: validators.input-walk
      for (const [s, path] of strings(value)) {
        const hit = scan(rules, s);
        if (hit) throw violation(name, "input", hit, { path });
      }
    };
  }
  const form = (phase) => (text) => {
    const hit = scan(rules, text);
    if (hit) throw violation(name, phase, hit);
  };
  if (phases.includes("output")) v.output = form("output");
  if (phases.includes("delta")) v.delta = form("delta");
  return v;
}

const luhn = (match) => { // spec: validators.pii-card
  const digits = match.replace(/[ -]/g, "");
  let sum = 0;
  for (let k = 0; k < digits.length; k++) {
    let d = Number(digits[digits.length - 1 - k]);
    if (k % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
};

/** spec: validators.pii-card, validators.pii-email, validators.pii-ssn — in checking order. */
export const piiRules = () => [
  compileRule("card", "(?<![0-9])(?<![0-9][ -])[0-9](?:[ -]?[0-9]){12,18}(?![0-9])(?![ -][0-9])", { accept: luhn }),
  compileRule("email", "[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\\.[A-Za-z0-9-]{1,63}){0,3}\\.[A-Za-z]{2,24}"),
  compileRule("ssn", "(?<![0-9])[0-9]{3}-[0-9]{2}-[0-9]{4}(?![0-9])"),
];

const PHASES = ["input", "output", "delta"];

/** A `<validator>` of spec/governance.md §4.5. */
export function decodeValidator(spec) {
  if (!isObject(spec)) throw invalid("a validator is an object");
  const known = spec.kind === "pii" ? ["kind", "delta", "phases"]
    : spec.kind === "deny" ? ["kind", "patterns", "flags", "delta", "maxWidth", "phases"] : null;
  if (!known) throw invalid(`unknown validator kind ${spec.kind}`);
  for (const k of Object.keys(spec)) if (!known.includes(k)) throw invalid(`unknown validator key ${k}`);
  if ("delta" in spec && typeof spec.delta !== "boolean") throw invalid("delta is a boolean");
  let phases = spec.phases ?? PHASES;
  if (!Array.isArray(phases) || phases.some((p) => !PHASES.includes(p))) throw invalid("bad phases");
  if (spec.delta === false) phases = phases.filter((p) => p !== "delta");
  if (spec.kind === "pii") return patternValidator("pii", piiRules(), phases);
  // spec: validators.deny
  const flags = spec.flags ?? [];
  if (!Array.isArray(flags) || flags.some((f) => !(f in FLAG))) throw invalid("bad flags");
  const maxWidth = spec.maxWidth ?? null;
  if (maxWidth !== null && !(Number.isInteger(maxWidth) && maxWidth > 0)) throw invalid("bad maxWidth");
  const p = spec.patterns;
  let entries;
  if (Array.isArray(p)) entries = p.map((r) => [r, r]);
  else if (isObject(p)) entries = Object.keys(p).sort().map((k) => [k, p[k]]); // name order
  else throw invalid("patterns is an object or a list");
  if (!entries.length) throw invalid("no patterns");
  const rules = entries.map(([n, r]) => {
    const rule = compileRule(n, r, { flags: flags.map((f) => FLAG[f]).join("") });
    if (rule.width === Infinity && maxWidth !== null) rule.width = maxWidth;
    return rule;
  });
  return patternValidator("deny", rules, phases);
}

// -- delta guards (#guards.*) ---------------------------------------------------------------
const repeated = (e) => new LoomError(e.code, e.message, { ...e.details, repeated: true }); // spec: guards.sticky-sever

/** spec: guards.running-text — each validator's delta form over the running text. */
export class RunningTextGuard {
  constructor(validators, window = 4096) {
    if (!Number.isInteger(window) || window < 1) throw invalid("a window is a positive integer");
    // spec: validators.fail-closed — a validator without a delta form is refused
    if (validators.some((v) => !v.delta)) throw invalid("a validator without a delta form");
    Object.assign(this, { validators, window });
    this.reset();
  }
  reset() { // spec: guards.reset
    Object.assign(this, { text: "", index: 0, severed: null, held: [], flushed: false });
  }
  check(delta) {
    if (typeof delta !== "string") throw invalid("a delta is a string");
    if (this.severed) throw repeated(this.severed);
    if (this.flushed) throw new LoomError("governance.guard-state", "the guard was flushed"); // spec: guards.lifecycle
    const before = cpTail(this.text, this.window);
    const running = before + delta;
    for (const v of this.validators) {
      try {
        v.delta(running);
      } catch (e) {
        if (!(e instanceof LoomError) || e.code !== "governance.safety-violation") throw e;
        const offset = cpLen(this.text) - cpLen(before);
        this.severed = new LoomError("governance.delta-severed", `delta ${this.index} severed`,
          { ...e.details, span: e.details.span.map((x) => x + offset), delta_index: this.index, cause: e.code });
        this.held = []; // spec: guards.hold-back-drop
        throw this.severed;
      }
    }
    this.text = cpTail(this.text + delta, this.window);
    this.index += 1;
  }
}

/** spec: guards.hold-back, guards.hold-back-width (extension). */
export class HoldBackGuard extends RunningTextGuard {
  constructor(validators, window = 4096) {
    super(validators, window);
    const widths = validators.flatMap((v) => {
      if (!v.rules) throw invalid("hold-back takes pattern validators only");
      return v.rules.map((r) => r.width);
    });
    this.maxWidth = Math.max(1, ...widths);
    if (this.maxWidth === Infinity) throw invalid("hold-back needs bounded rules (give max_width)");
    if (window < this.maxWidth) throw invalid("the window is narrower than the widest rule");
  }
  feed(delta) {
    this.check(delta);
    this.held.push(...cps(delta));
    const keep = this.maxWidth - 1;
    const n = Math.max(0, this.held.length - keep);
    return this.held.splice(0, n).join("");
  }
  flush() { // spec: guards.hold-back-flush
    if (this.severed) throw repeated(this.severed);
    if (this.flushed) throw new LoomError("governance.guard-state", "flushed twice");
    this.flushed = true;
    return this.held.splice(0).join("");
  }
}

/** spec: guards.token-count — ceil(len / 4) characters per token. */
export const approxTokenCount = (delta) => Math.ceil(cpLen(delta) / 4);

/** spec: guards.token-budget — severs the delta that would take the sum above the budget. */
export class StreamTokenBudget {
  constructor(maxTokens, count = approxTokenCount) {
    if (!Number.isInteger(maxTokens) || maxTokens < 0) throw invalid("max_tokens is an int >= 0");
    Object.assign(this, { maxTokens, count });
    this.reset();
  }
  reset() {
    Object.assign(this, { used: 0, index: 0, severed: null });
  }
  check(delta) {
    if (typeof delta !== "string") throw invalid("a delta is a string");
    if (this.severed) throw repeated(this.severed);
    const n = this.count(delta);
    if (this.used + n > this.maxTokens) {
      this.severed = new LoomError("governance.stream-token-budget", `delta ${this.index} exceeds the budget`,
        { max_tokens: this.maxTokens, used: this.used, delta_tokens: n, delta_index: this.index });
      throw this.severed;
    }
    this.used += n;
    this.index += 1;
  }
}
