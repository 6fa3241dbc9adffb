// Taint and safety validators (spec/governance.md §4.1, §4.2) and their vector functions
// `taint.guard_request`, `taint.unwrap`, `validators.check_output`, `validators.check` (§4.5),
// written from the spec text. No npm dependencies. The delta guards are in governance-guards.mjs.
//
// Rules (spec/governance.md):
// - A tainted value is `{value, origin}` with a non-empty string origin, never wrapped twice
//   (#taint.tainted-value, #taint.no-double-wrap); vectors write it `{"$tainted": {value,
//   origin}}`, exactly those keys (#taint.vector-encoding).
// - The fence walks the request in document order (each key, then its value; lists), and
//   reports the first tainted node's JSON pointer and origin, never its value
//   (#taint.guard-request, #taint.guard-details, #taint.walk).
// - A validator has up to three forms; a form rejects with `governance.safety-violation`
//   carrying validator, phase, rule, span (and path for input), never the matched text
//   (#validators.phases, #validators.violation, #validators.no-echo).
// - Pattern rules: a `portable-1` regex (dialect.mjs, #patterns.dialect) compiled natively,
//   never empty-matching, tried in declaration order, the first rule with an accepted match
//   reported at its leftmost accepted match (#validators.rule-nonempty, #validators.rule-order);
//   conditions in code (accept on the matched text, boundary on the text around it) refuse a
//   candidate, and the scan resumes one character after its start
//   (#validators.rule-conditions). Characters, spans and widths count code points.

import { LoomError } from "./journal.mjs";
import { compilePortable } from "./dialect.mjs";

export const invalid = (message) => new LoomError("argument.invalid", message);
const jsonType = (v) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
const isObject = (v) => jsonType(v) === "object";
const has = (o, k) => Object.hasOwn(o, k);

// -- code points -----------------------------------------------------------------------------
/** The number of code points in `s` (a Python `len`). */
export const cpLength = (s) => {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff || i + 1 === s.length) n++;
    else {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
      n++;
    }
  }
  return n;
};
/** The UTF-16 offset of code point `k` of `s` (k may be the length). */
export const cpOffset = (s, k) => {
  let i = 0;
  for (let n = 0; n < k && i < s.length; n++) i += s.codePointAt(i) > 0xffff ? 2 : 1;
  return i;
};
/** The last `k` code points of `s`. */
export const cpTail = (s, k) => {
  let i = s.length;
  for (let n = 0; n < k && i > 0; n++) {
    const c = s.charCodeAt(i - 1);
    i -= c >= 0xdc00 && c <= 0xdfff && i >= 2 && s.charCodeAt(i - 2) >= 0xd800 && s.charCodeAt(i - 2) <= 0xdbff ? 2 : 1;
  }
  return s.slice(i);
};

// -- taint (#taint.*) ------------------------------------------------------------------------
export class Tainted {
  constructor(value, origin) {
    // spec: taint.tainted-value — origin non-empty string; taint.no-double-wrap
    if (typeof origin !== "string" || origin === "") throw invalid("a taint origin must be a non-empty string");
    if (value instanceof Tainted) throw invalid("a tainted value must not be wrapped again");
    Object.assign(this, { value, origin });
    Object.freeze(this);
  }
}

/** A vector's JSON with `{"$tainted": ...}` nodes made Tainted (#taint.vector-encoding). */
export function decodeTainted(v) {
  if (Array.isArray(v)) return v.map(decodeTainted);
  if (!isObject(v)) return v;
  if (has(v, "$tainted")) {
    const t = v.$tainted;
    if (Object.keys(v).length !== 1) throw invalid("a $tainted object has no other key");
    if (!isObject(t) || Object.keys(t).length !== 2 || !has(t, "value") || !has(t, "origin")) {
      throw invalid("a $tainted object holds exactly value and origin");
    }
    return new Tainted(decodeTainted(t.value), t.origin);
  }
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, decodeTainted(x)]));
}
const encodeTainted = (v) => {
  if (v instanceof Tainted) return { $tainted: { value: encodeTainted(v.value), origin: v.origin } };
  if (Array.isArray(v)) return v.map(encodeTainted);
  if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, encodeTainted(x)]));
  return v;
};

const pointerSegment = (k) => String(k).replaceAll("~", "~0").replaceAll("/", "~1");

/**
 * Every node of `v` in document order as `[node, pointer, isKey]`: a JSON object's members
 * in name order, which is the order of the canonical case file (JavaScript's own order puts
 * integer-like names first), each key (a node of its own) then its value; list items in
 * order. A tainted value is a node; `into` says whether to walk on into it, as the record it
 * is: its `value`, then its `origin`.
 * Iterative, so nesting depth is not limited by the call stack (#taint.cycles).
 */
function* walk(v, into) {
  const stack = [[v, "", false]];
  while (stack.length) {
    const item = stack.pop();
    yield item;
    const [node, path, isKey] = item;
    if (isKey) continue;
    let children = [];
    // a tainted value is a record of two fields, `value` then `origin` (#taint.walk)
    if (node instanceof Tainted) children = into ? [[node.value, `${path}/value`, false], [node.origin, `${path}/origin`, false]] : [];
    else if (Array.isArray(node)) children = node.map((x, i) => [x, `${path}/${i}`, false]);
    else if (isObject(node)) {
      children = Object.keys(node).sort(byCodePoint).flatMap((k) => {
        const at = `${path}/${pointerSegment(k)}`;
        return [[k, at, true], [node[k], at, false]];
      });
    }
    for (let j = children.length - 1; j >= 0; j--) stack.push(children[j]);
  }
}

/** Every string of `v` with its pointer, walked as `taint.walk` (keys and tainted content included). */
export function* walkStrings(v) {
  for (const [node, path] of walk(v, true)) if (typeof node === "string") yield [node, path];
}

/** `guard_request(request)` (#taint.guard-request): raise at the first tainted node. */
export function guardRequest(request) {
  for (const [node, path] of walk(request, false)) {
    if (node instanceof Tainted) {
      // spec: taint.guard-details — path and origin, never the value
      throw new LoomError("governance.tainted-request", `tainted value (origin ${node.origin}) at ${JSON.stringify(path)}`,
        { path, origin: node.origin, key: false });
    }
  }
}

/** `unwrap_tainted(v)` (#taint.unwrap-explicit). */
export function unwrapTainted(v) {
  if (!(v instanceof Tainted)) throw new LoomError("argument.not-tainted", "unwrap of a value that is not tainted");
  return v.value;
}

// -- validators (#validators.*) --------------------------------------------------------------
export const PHASES = ["input", "output", "delta"];

const violation = (validator, phase, rule, span, path) => {
  const details = { validator, phase, rule, span };
  if (path !== undefined) details.path = path;
  // spec: validators.no-echo — neither message nor details hold the matched text
  return new LoomError("governance.safety-violation", `${validator} rejected the ${phase} (rule ${rule})`, details);
};

/**
 * A pattern rule (`compile_rule`): `{name, regex, min, width, accept, boundary}`; width
 * Infinity = unbounded. `flags` is a set of "i", "m", "s": only "i" changes a portable pattern
 * (#patterns.flags).
 */
export function compileRule(name, source, flags, { maxWidth = null, accept = null, boundary = null } = {}) {
  const { regex, min, max } = compilePortable(source, flags.has("i"));
  // spec: validators.rule-nonempty
  if (min === 0) throw invalid(`rule ${name} can match the empty string`);
  let width = max;
  if (maxWidth !== null) {
    // spec: validators.width — a promise that may bound an unbounded regex, never below its own width
    if (!Number.isInteger(maxWidth) || maxWidth < 1 || (max !== Infinity && maxWidth < max)) throw invalid(`max_width ${maxWidth} is below the width of ${name}`);
    width = maxWidth;
  }
  return { name, regex, min, width, accept, boundary };
}

/**
 * The leftmost match of `rule` in `text` at or after code point `from` that its conditions
 * accept, as a code-point span, or null (#validators.rule-conditions). The boundary condition
 * sees the whole text, before `from` included (#guards.tail-scan); after a refused candidate
 * the scan resumes one code point after that candidate's start. A match ending at or before
 * code point `fresh` (where a delta begins) lies wholly in text checked before: it is passed
 * over the same way, never reported (#guards.tail-scan).
 */
export function ruleMatch(rule, text, from = 0, fresh = 0) {
  const re = rule.regex;
  re.lastIndex = cpOffset(text, from);
  let m;
  while ((m = re.exec(text)) !== null) {
    const start = cpLength(text.slice(0, m.index));
    const end = start + cpLength(m[0]);
    if (end > fresh && (!rule.boundary || rule.boundary(text, m.index, m.index + m[0].length))
        && (!rule.accept || rule.accept(m[0]))) return [start, end];
    re.lastIndex = m.index + (text.codePointAt(m.index) > 0xffff ? 2 : 1);
  }
  return null;
}

/** Every accepted match of `rule` in `text`, each scan resuming at the last one's end (a redactor's). */
export function* ruleMatches(rule, text) {
  let from = 0;
  let span;
  while ((span = ruleMatch(rule, text, from)) !== null) {
    yield span;
    from = span[1];
  }
}

/** `pattern_validator(name, rules)`: every form scans with the rules in order. */
export function patternValidator(name, rules, phases = PHASES) {
  const scan = (phase, text, path, from = () => 0, fresh = 0) => {
    for (const rule of rules) {
      const span = ruleMatch(rule, text, from(rule), fresh);
      if (span) throw violation(name, phase, rule.name, span, path);
    }
  };
  const forms = {
    input: (value) => {
      // spec: validators.input-walk — every string (keys and tainted content included), in
      // document order, the first violating string reported with its path
      for (const [node, path] of walkStrings(value)) scan("input", node, path);
    },
    output: (text) => scan("output", text),
    // `fresh` (code points): where the new delta begins; a bounded rule scans from
    // fresh - (w - 1), an unbounded one from 0, and neither reports a match lying wholly
    // before the delta (#guards.tail-scan).
    delta: (text, fresh = 0) => scan("delta", text, undefined,
      (rule) => (rule.width === Infinity ? 0 : Math.max(0, fresh - (rule.width - 1))), fresh),
  };
  const validator = { name, rules, forms: {} };
  for (const p of phases) validator.forms[p] = forms[p];
  return validator;
}

// spec: validators.pii-card — Luhn over the ASCII digits of the run
const luhn = (run) => {
  const digits = run.replace(/[^0-9]/g, "");
  let sum = 0;
  for (let k = 0; k < digits.length; k++) {
    let d = Number(digits[digits.length - 1 - k]);
    if (k % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
};

// The boundary conditions of the PII rules, on UTF-16 offsets (the characters tested are
// ASCII, so a unit is a character here): "a digit" is 0-9, "a separator" a space or "-", and
// there is no character before the text or after it.
const digitAt = (s, k) => k >= 0 && k < s.length && s[k] >= "0" && s[k] <= "9";
const separatorAt = (s, k) => k >= 0 && k < s.length && (s[k] === " " || s[k] === "-");
// spec: validators.pii-card — the run is maximal: no digit, nor a digit and one separator,
// before it; no digit, nor one separator and a digit, after it
const cardBoundary = (s, start, end) =>
  !(digitAt(s, start - 1) || (separatorAt(s, start - 1) && digitAt(s, start - 2)))
  && !(digitAt(s, end) || (separatorAt(s, end) && digitAt(s, end + 1)));
// spec: validators.pii-ssn — no digit right before or right after
const ssnBoundary = (s, start, end) => !digitAt(s, start - 1) && !digitAt(s, end);

/** `pii_validator()`: card, email, ssn, in that order (#validators.pii-*). */
export function piiValidator(phases = PHASES) {
  const none = new Set();
  const rules = [
    // spec: validators.pii-card — 13-19 ASCII digits, one space or dash at most between two,
    // a maximal run (the boundary), Luhn. Widest 37.
    compileRule("card", "[0-9](?:[ -]?[0-9]){12,18}", none, { accept: luhn, boundary: cardBoundary }),
    // spec: validators.pii-email — local@label(.label){0,3}.tld. Widest 345.
    compileRule("email", "[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\\.[A-Za-z0-9-]{1,63}){0,3}\\.[A-Za-z]{2,24}", none),
    // spec: validators.pii-ssn — ddd-dd-dddd, no digit either side (the boundary). Widest 11.
    compileRule("ssn", "[0-9]{3}-[0-9]{2}-[0-9]{4}", none, { boundary: ssnBoundary }),
  ];
  return patternValidator("pii", rules, phases);
}

const FLAGS = { IGNORECASE: "i", MULTILINE: "m", DOTALL: "s" };

/** `deny_patterns(patterns, flags, max_width)` (#validators.deny). */
export function denyPatterns(patterns, flags = [], maxWidth = null, phases = PHASES) {
  let named;
  if (Array.isArray(patterns)) {
    named = patterns.map((p) => [p, p]); // a list: named by its regex text
    // rule names must be unique: a list holding one regex twice is argument.invalid
    if (new Set(patterns.map((p) => JSON.stringify(p))).size < patterns.length) throw invalid("rule names must be unique");
  }
  else if (isObject(patterns)) named = Object.keys(patterns).sort(byCodePoint).map((k) => [k, patterns[k]]);
  else throw invalid("patterns must be a mapping or a list of regexes");
  if (!named.length) throw invalid("deny_patterns needs at least one pattern");
  if (named.some(([name]) => typeof name !== "string" || name === "")) throw invalid("a rule name is a non-empty string");
  // spec: guards.vector-run — a flags member that is not a flag name (a string) is argument.invalid
  if (!Array.isArray(flags) || flags.some((f) => typeof f !== "string" || !has(FLAGS, f))) throw invalid("unknown regex flag");
  const set = new Set(flags.map((f) => FLAGS[f]));
  const rules = named.map(([name, source]) => {
    const rule = compileRule(name, source, set);
    // spec: validators.deny — `max_width=` bounds the unbounded rules
    return maxWidth !== null && rule.width === Infinity ? compileRule(name, source, set, { maxWidth }) : rule;
  });
  return patternValidator("deny-patterns", rules, phases);
}

/** Names in code-point order (Python's sort, and the canonical case file's order). */
export const byCodePoint = (a, b) => {
  const x = [...a].map((c) => c.codePointAt(0));
  const y = [...b].map((c) => c.codePointAt(0));
  for (let k = 0; k < Math.min(x.length, y.length); k++) if (x[k] !== y[k]) return x[k] - y[k];
  return x.length - y.length;
};

const checkKeys = (o, allowed, what) => {
  const extra = Object.keys(o).filter((k) => !allowed.includes(k));
  if (extra.length) throw invalid(`unknown member(s) of ${what}: ${extra.join(", ")}`);
};

/** A `<validator>` of §4.5 built: `{"kind": "pii" | "deny", ...}`. */
export function buildValidator(spec) {
  if (!isObject(spec)) throw invalid("a validator is an object");
  const common = ["kind", "delta", "phases"];
  let phases = PHASES;
  if (has(spec, "phases")) {
    if (!Array.isArray(spec.phases) || spec.phases.some((p) => !PHASES.includes(p))) throw invalid("bad phases");
    phases = PHASES.filter((p) => spec.phases.includes(p));
  }
  if (has(spec, "delta")) {
    if (typeof spec.delta !== "boolean") throw invalid("delta is a boolean");
    if (!spec.delta) phases = phases.filter((p) => p !== "delta");
  }
  if (spec.kind === "pii") {
    checkKeys(spec, common, "a pii validator");
    return piiValidator(phases);
  }
  if (spec.kind === "deny") {
    // `dialect` ("python-re", spec: patterns.python-re) is an extension this adapter does not
    // implement: it declares no `patterns.python-re` capability, and refuses the member
    checkKeys(spec, [...common, "patterns", "flags", "maxWidth"], "a deny validator");
    // spec: guards.vector-run — an explicit null maxWidth is read as absent; validators.deny —
    // otherwise a positive int even when no rule uses it
    const maxWidth = has(spec, "maxWidth") ? spec.maxWidth : null;
    if (maxWidth !== null && (!Number.isInteger(maxWidth) || maxWidth < 1)) throw invalid("bad maxWidth");
    return denyPatterns(spec.patterns, has(spec, "flags") ? spec.flags : [], maxWidth, phases);
  }
  throw invalid(`unknown validator kind ${JSON.stringify(spec.kind)}`);
}

/** `check_input` / `check_output` accept without a form; `check_delta` refuses (#validators.phases). */
export function checkPhase(validator, phase, value) {
  const form = validator.forms[phase];
  if (form) return form(value);
  if (phase === "delta") throw invalid(`validator ${validator.name} has no delta form`);
}

const needString = (v, what) => {
  if (typeof v !== "string") throw invalid(`${what} must be a string`);
  return v;
};
const verdict = (fn, keep) => {
  try {
    fn();
    return { ok: true };
  } catch (e) {
    if (e.code !== "governance.safety-violation") throw e;
    const out = { ok: false, code: e.code };
    for (const k of keep) if (has(e.details, k)) out[k] = e.details[k];
    return out;
  }
};

/** A vector input holds the members its function names, the required ones present (§4.5). */
export function members(input, required, optional = []) {
  if (!isObject(input)) throw invalid("a vector input is an object");
  checkKeys(input, [...required, ...optional], "the input");
  for (const k of required) if (!has(input, k)) throw invalid(`the input needs ${k}`);
  return input;
}

export const GOVERNANCE_VECTORS = {
  "taint.guard_request": (input) => {
    const request = decodeTainted(members(input, ["request"]).request);
    try {
      guardRequest(request);
      return { ok: true };
    } catch (e) {
      if (e.code !== "governance.tainted-request") throw e;
      return { ok: false, code: e.code, path: e.details.path, origin: e.details.origin };
    }
  },
  "taint.unwrap": (input) => ({ value: encodeTainted(unwrapTainted(decodeTainted(members(input, ["value"]).value))) }),
  "validators.check_output": (input) => {
    members(input, ["validator", "text"]);
    const validator = buildValidator(input.validator);
    const text = needString(input.text, "text");
    return verdict(() => checkPhase(validator, "output", text), ["validator", "rule", "span"]);
  },
  "validators.check": (input) => {
    members(input, ["validator", "phase", "value"]);
    const validator = buildValidator(input.validator);
    if (!PHASES.includes(input.phase)) throw invalid(`unknown phase ${JSON.stringify(input.phase)}`);
    const value = input.phase === "input" ? decodeTainted(input.value) : needString(input.value, "value");
    return verdict(() => checkPhase(validator, input.phase, value), ["validator", "phase", "rule", "span", "path"]);
  },
};
