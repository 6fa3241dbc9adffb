// The portable pattern dialect `portable-1` (spec/governance.md §4.2.1), written from the spec
// text: a checker, then the engine's own RegExp. No npm dependencies.
//
// Rules (spec/governance.md):
// - #patterns.grammar: literals (any code point but ( ) * + . ? [ \ ] ^ $ { | } and lone
//   surrogates), the escapes \ before ^ $ \ . * + ? ( ) [ ] { } | (and - in a class) and
//   \n \r \t, classes [..] / [^..] of characters and ranges (a - first or last is itself; no
//   [ inside, no && ~~ ||, never empty), (..) and (?:..) groups, alternation, and greedy
//   * + ? {n} {n,} {n,m} (no leading zeros).
// - #patterns.limits: at most 4096 code points; a repeated operand never matches the empty
//   string; the product of nested counts at most 1000 (RE2's rule: a count is the maximum, or
//   the minimum when unbounded, and 0 does not count); expanded size at most 10000; groups
//   nested at most 32 deep.
// - #patterns.reasons: a pattern outside is `argument.pattern` with a `reason`.
// - #patterns.semantics: a pattern in the dialect is compiled unchanged, `new RegExp(p, "u")`
//   (with "i" for IGNORECASE: the `u` flag's case folding is Unicode simple case folding, the
//   dialect's). Widths count code points.

import { LoomError } from "./journal.mjs";

export const DIALECT = "portable-1";
const MAX_LENGTH = 4096;
const MAX_SIZE = 10000;
const MAX_REPEAT = 1000;
const MAX_DEPTH = 32;
const SYNTAX_CHARS = new Set("^$\\.*+?()[]{}|");
const CONTROL = { n: "\n", r: "\r", t: "\t" };
const CLASS_ESCAPES = new Set("dDwWsSpPhHvVRXN");
const ANCHOR_ESCAPES = new Set("bBAZzG");
const QUANTIFIER = /^\{(0|[1-9][0-9]*)(?:(,)(0|[1-9][0-9]*)?)?\}/;
/** The text from code point `i` of `s` up to and including the next "}" (a quantifier's). */
const braces = (s, i) => {
  const close = s.indexOf("}", i);
  return s.slice(i, close < 0 ? s.length : close + 1).join("");
};

/** `argument.pattern` with its reason (#patterns.reasons); `position` counts code points. */
const outside = (reason, message, position) =>
  new LoomError("argument.pattern", `outside the ${DIALECT} pattern dialect (${reason}) at ${position}: ${message}`,
    { reason, position, dialect: DIALECT });

// a node: {min, max (Infinity: unbounded), size, counts}
const seq = (items) => items.length === 1 ? items[0] : {
  min: items.reduce((a, n) => a + n.min, 0), max: items.reduce((a, n) => a + n.max, 0),
  size: items.reduce((a, n) => a + n.size, 0), counts: Math.max(1, ...items.map((n) => n.counts)),
};
const alt = (branches) => branches.length === 1 ? branches[0] : {
  min: Math.min(...branches.map((n) => n.min)), max: Math.max(...branches.map((n) => n.max)),
  size: branches.reduce((a, n) => a + n.size, 0), counts: Math.max(...branches.map((n) => n.counts)),
};
const ONE = { min: 1, max: 1, size: 1, counts: 1 };

/** `checkPattern(source)`: `{min, max}` widths in code points (max Infinity when unbounded). */
export function checkPattern(source) {
  if (typeof source !== "string") throw new LoomError("argument.invalid", "a pattern is a string");
  const s = [...source]; // code points (a lone surrogate is one element)
  if (s.length > MAX_LENGTH) throw outside("length", `${s.length} code points, at most ${MAX_LENGTH}`, MAX_LENGTH);
  s.forEach((c, k) => {
    if (c.length === 1 && c >= "\ud800" && c <= "\udfff") throw outside("surrogate", "a lone surrogate", k);
  });
  let i = 0;
  let depth = 0;
  const fail = (reason, message, at = i) => { throw outside(reason, message, at); };
  const peek = (k = 0) => s[i + k];

  function alternation() {
    const branches = [sequence()];
    while (peek() === "|") {
      i++;
      branches.push(sequence());
    }
    return alt(branches);
  }
  function sequence() {
    const items = [];
    while (peek() !== undefined && peek() !== "|" && peek() !== ")") items.push(piece());
    return items.length ? seq(items) : { min: 0, max: 0, size: 0, counts: 1 };
  }
  function piece() {
    const item = atom();
    const start = i;
    const q = quantifier();
    if (!q) return item;
    const [lo, hi, counted] = q;
    if (peek() !== undefined && "*+?{".includes(peek())) {
      fail("quantifier", "a quantifier after a quantifier (lazy, possessive or doubled)");
    }
    if (item.min === 0) fail("empty-repeat", "the repeated operand can match the empty string", start);
    const count = counted ? (hi === Infinity ? lo : hi) : 1;
    const counts = count > 0 ? item.counts * count : item.counts;
    if (counts > MAX_REPEAT) fail("repeat", `nested counts multiply to ${counts}, at most ${MAX_REPEAT}`, start);
    const max = hi === 0 ? 0 : hi * item.max; // Infinity when either is unbounded
    return { min: lo * item.min, max, size: item.size * Math.max(count, 1), counts };
  }
  function quantifier() {
    const c = peek();
    if (c === "*") return (i++, [0, Infinity, false]);
    if (c === "+") return (i++, [1, Infinity, false]);
    if (c === "?") return (i++, [0, 1, false]);
    if (c !== "{") return null;
    const m = QUANTIFIER.exec(braces(s, i));
    if (!m) fail("quantifier", "a { starts {n}, {n,} or {n,m} (digits, no leading zero, no space)");
    const lo = Number(m[1]);
    const hi = m[2] === undefined ? lo : m[3] === undefined ? Infinity : Number(m[3]);
    if (hi < lo) fail("syntax", "the minimum is above the maximum");
    if (lo > MAX_REPEAT || (hi !== Infinity && hi > MAX_REPEAT)) fail("repeat", `a count above ${MAX_REPEAT}`);
    i += [...m[0]].length;
    return [lo, hi, true];
  }
  function atom() {
    const c = peek();
    if (c === "(") return group();
    if (c === "[") return charClass();
    if (c === "\\") return (escape(false), ONE);
    if ("*+?".includes(c)) fail("syntax", "nothing to repeat");
    if (c === "{") fail(QUANTIFIER.test(braces(s, i)) ? "syntax" : "escape", "a literal { is written \\{");
    if (c === "]" || c === "}") fail("escape", `a literal ${c} is written \\${c}`);
    if (c === ".") fail("dot", "'.' is not in the dialect");
    if (c === "^" || c === "$") fail("anchor", `the anchor ${c} is not in the dialect`);
    i++;
    return ONE;
  }
  function group() {
    const start = i++;
    if (peek() === "?") {
      const rest = s.slice(i, i + 3).join("");
      if (rest.startsWith("?:")) i += 2;
      else if (/^\?(=|!|<=|<!)/.test(rest)) fail("lookaround", "look-around is not in the dialect", start);
      else if (rest.startsWith("?P=")) fail("backreference", "backreferences are not in the dialect", start);
      else fail("group", "the only (? form in the dialect is (?:...)", start);
    }
    if (++depth > MAX_DEPTH) fail("nesting", `groups nested deeper than ${MAX_DEPTH}`, start);
    const body = alternation();
    if (peek() !== ")") fail("syntax", "missing ), unterminated group", start);
    i++;
    depth--;
    return body;
  }
  /** The character an escape stands for (consumed). */
  function escape(inClass) {
    const start = i;
    const c = peek(1);
    if (c === undefined) fail("syntax", "the pattern ends with a lone \\");
    i += 2;
    if (SYNTAX_CHARS.has(c) || (inClass && c === "-")) return c;
    if (c in CONTROL) return CONTROL[c];
    if (CLASS_ESCAPES.has(c)) fail("class-escape", `\\${c} means different things to different engines`, start);
    if (!inClass && ANCHOR_ESCAPES.has(c)) fail("anchor", `the anchor \\${c} is not in the dialect`, start);
    if (!inClass && (/[1-9]/.test(c) || c === "k")) fail("backreference", "backreferences are not in the dialect", start);
    return fail("escape", `\\${c} is not an escape of the dialect`, start);
  }
  function classChar() {
    const c = peek();
    if (c === undefined) fail("syntax", "unterminated character class");
    if (c === "\\") return escape(true);
    if (c === "[") fail("class", "a [ inside a class is written \\[");
    if ("&~|".includes(c) && peek(1) === c) fail("class", `${c}${c} inside a class is a set operation to Rust`);
    i++;
    return c;
  }
  function charClass() {
    const start = i++;
    if (peek() === "^") i++;
    if (peek() === "]") fail("class", "an empty class ([] or [^]) is not in the dialect", start);
    let first = true;
    let dashOnly = false; // the class so far is a leading "-" alone
    for (;;) {
      const c = peek();
      if (c === undefined) fail("syntax", "unterminated character class", start);
      if (c === "]") break;
      if (c === "-") {
        // a - first or last is itself; one the pattern ends after is last (the class is
        // then unterminated, reason syntax: patterns.reasons)
        if (first || peek(1) === "]" || peek(1) === undefined) {
          if (!first && dashOnly) fail("class", "a class of two dashes, [--]");
          i++;
          dashOnly = first;
          first = false;
          continue;
        }
        fail("class", "a - inside a class stands between two characters of a range, or first or last");
      }
      const low = classChar();
      if (peek() === "-" && peek(1) !== undefined && peek(1) !== "]") {
        i++;
        if (peek() === "-") fail("class", "a range ends with an unescaped -");
        const high = classChar();
        if (high.codePointAt(0) < low.codePointAt(0)) fail("syntax", "reversed range");
      }
      first = dashOnly = false;
    }
    i++;
    return ONE;
  }

  const tree = alternation();
  if (i < s.length) fail("syntax", "unbalanced )");
  if (tree.size > MAX_SIZE) fail("size", `expanded size ${tree.size}, at most ${MAX_SIZE}`, 0);
  return { min: tree.min, max: tree.max };
}

/** A checked pattern as the engine's own RegExp (#patterns.semantics): global, `u`, `i` for IGNORECASE. */
export function compilePortable(source, ignoreCase = false) {
  const { min, max } = checkPattern(source);
  return { regex: new RegExp(source, ignoreCase ? "giu" : "gu"), min, max };
}
