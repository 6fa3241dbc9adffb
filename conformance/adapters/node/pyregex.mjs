// Python `re` patterns for the governance validators (spec/governance.md §4.2), translated to
// JavaScript RegExps, with the width facts the spec computes from the regex. No npm deps.
//
// Rules (spec/governance.md):
// - A rule's maximum match width is computed from the regex: Infinity (the spec's `None`,
//   unbounded) for `+`, `*`, `{n,}` (#validators.width); a rule that can match the empty
//   string (minimum width 0, a zero-width assertion alone included) is refused
//   (#validators.rule-nonempty). Widths count characters: Unicode code points, as Python does.
// - A regex that fails to compile is `argument.invalid` (#validators.deny): a syntax error, a
//   repeat count of 2**32 - 1 or more (Python's MAXREPEAT), nesting too deep for the parser.
// - Vectors keep to the common subset (#validators.deny, "Portability"), but where Python and
//   JavaScript give the same syntax different meanings, the translation keeps Python's:
//   `.` never matches "\n" (without DOTALL), `^`/`$` are Python's anchors (`$` also before a
//   final "\n"), `\d` is any Unicode decimal digit, `\s` is `str.isspace()`. Matching runs in
//   `u` mode so a character is a code point. What the translation cannot express (inline
//   flags after the start, possessive quantifiers, conditionals) is not a refusal by the spec
//   but a limit of this adapter, so it throws a plain Error (the case is reported errored).

import { LoomError } from "./journal.mjs";

const bad = (source, why) => new LoomError("argument.invalid", `bad regex ${JSON.stringify(source)}: ${why}`);
const unsupported = (why) => new Error(`regex construct not supported by the node adapter: ${why}`);

const WORD = "\\p{L}\\p{N}_"; // Python's str \w: alphanumeric (str.isalnum) or underscore
const SPACE = "\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const SYNTAX = new Set("^$\\.*+?()[]{}|/");
const lit = (ch, inClass = false) => (SYNTAX.has(ch) || (inClass && ch === "-") ? `\\${ch}` : ch);
const MAXREPEAT = 4294967295; // Python's sre limit: a repeat count must be below it
const CONTROL = { n: "\n", t: "\t", r: "\r", f: "\f", v: "\v", a: "\x07" };

/** `compilePython(source, flags)`: `{regex, min, max}`; `flags` is a set of "i", "m", "s". */
export function compilePython(source, flags = new Set()) {
  if (typeof source !== "string") throw new LoomError("argument.invalid", "a regex must be a string");
  flags = new Set(flags);
  let i = 0;
  const lead = /^\(\?([aiLmsux]+)\)/.exec(source); // global inline flags, allowed at the start only
  if (lead) {
    for (const f of lead[1]) {
      if (!"ims".includes(f)) throw unsupported(`inline flag ${f}`);
      flags.add(f);
    }
    i = lead[0].length;
  }
  const at = (k = 0) => source[i + k];

  function alternation() {
    const branches = [sequence()];
    while (at() === "|") {
      i++;
      branches.push(sequence());
    }
    return { src: branches.map((b) => b.src).join("|"), min: Math.min(...branches.map((b) => b.min)),
      max: Math.max(...branches.map((b) => b.max)) };
  }
  function sequence() {
    const out = { src: "", min: 0, max: 0 };
    while (i < source.length && at() !== "|" && at() !== ")") {
      const item = quantified(atom());
      out.src += item.src;
      out.min += item.min;
      out.max += item.max;
    }
    return out;
  }
  function quantifier() {
    const c = at();
    if (c === "*") return (i++, [0, Infinity, "*"]);
    if (c === "+") return (i++, [1, Infinity, "+"]);
    if (c === "?") return (i++, [0, 1, "?"]);
    if (c !== "{") return null;
    const m = /^\{(\d*)(?:(,)(\d*))?\}/.exec(source.slice(i));
    if (!m || (m[1] === "" && !m[2])) return null; // not a quantifier: a literal "{"
    i += m[0].length;
    const lo = m[1] === "" ? 0 : Number(m[1]);
    const hi = !m[2] ? lo : m[3] === "" ? Infinity : Number(m[3]);
    // spec: validators.deny — a repeat count too large for Python's `re` (MAXREPEAT, 2**32 - 1)
    if (lo >= MAXREPEAT || (hi !== Infinity && hi >= MAXREPEAT)) throw bad(source, "the repetition number is too large");
    if (hi < lo) throw bad(source, "min repeat greater than max repeat");
    return [lo, hi, `{${lo}${m[2] ? "," : ""}${m[2] && hi !== Infinity ? hi : ""}}`];
  }
  function quantified(item) {
    const q = quantifier();
    if (!q) return item;
    if (item.comment) throw bad(source, "nothing to repeat");
    let src = `(?:${item.src})${q[2]}`;
    if (at() === "?") src += (i++, "?");
    else if (at() === "+") throw unsupported("possessive quantifier");
    if (quantifier() !== null) throw bad(source, "multiple repeat");
    const max = item.max === 0 || q[1] === 0 ? 0 : item.max * q[1];
    return { src, min: item.min * q[0], max };
  }
  function atom() {
    const c = at();
    if ("*+?".includes(c) || (c === "{" && quantifier() !== null)) throw bad(source, "nothing to repeat");
    i++;
    switch (c) {
      case "(": return group();
      case "[": return charClass();
      case "\\": return escape();
      case ".": return { src: flags.has("s") ? "[\\s\\S]" : "[^\\n]", min: 1, max: 1 };
      case "^": return { src: flags.has("m") ? "(?<![^\\n])" : "(?<![\\s\\S])", min: 0, max: 0 };
      case "$": return { src: flags.has("m") ? "(?![^\\n])" : "(?=\\n?(?![\\s\\S]))", min: 0, max: 0 };
      default: {
        const cp = source.codePointAt(i - 1);
        const ch = String.fromCodePoint(cp);
        i += ch.length - 1;
        return { src: lit(ch), min: 1, max: 1 };
      }
    }
  }
  function close(inner, open) {
    if (at() !== ")") throw bad(source, "missing ), unterminated subpattern");
    i++;
    return { src: `${open}${inner.src})`, min: inner.min, max: inner.max };
  }
  const groups = []; // capture groups' widths, by number (1-based) and name
  const capture = (name, open) => {
    const slot = { name, open: true };
    groups.push(slot);
    const g = close(alternation(), open);
    Object.assign(slot, { min: g.min, max: g.max, open: false });
    return g;
  };
  const reference = (slot, src) => {
    if (!slot) throw bad(source, "invalid group reference");
    if (slot.open) throw bad(source, "cannot refer to an open group");
    return { src, min: slot.min, max: slot.max };
  };
  function group() {
    if (at() !== "?") return capture(null, "(");
    const rest = source.slice(i);
    let m;
    if (rest.startsWith("?:")) return (i += 2, close(alternation(), "(?:"));
    if ((m = /^\?P<([A-Za-z_][A-Za-z0-9_]*)>/.exec(rest))) {
      i += m[0].length;
      return capture(m[1], `(?<${m[1]}>`);
    }
    if ((m = /^\?P=([A-Za-z_][A-Za-z0-9_]*)\)/.exec(rest))) {
      i += m[0].length;
      return reference(groups.find((g) => g.name === m[1]), `\\k<${m[1]}>`);
    }
    if ((m = /^\?(=|!|<=|<!)/.exec(rest))) {
      i += m[0].length;
      const inner = close(alternation(), `(${m[0]}`);
      return { src: inner.src, min: 0, max: 0 }; // spec: validators.width — look-around is zero-width
    }
    if ((m = /^\?#[^)]*\)/.exec(rest))) return (i += m[0].length, { src: "", min: 0, max: 0, comment: true });
    throw unsupported(`group (${rest.slice(0, 4)}`);
  }
  function classEscape() {
    const c = at();
    i++;
    if (c === "d") return "\\p{Nd}";
    if (c === "w") return WORD;
    if (c === "s") return SPACE;
    if (c === "D") return "\\P{Nd}";
    // \W and \S negate a union: no flat JavaScript class says it, so they become alternatives
    // of the class (charClass)
    if (c === "W") return { alt: `[^${WORD}]` };
    if (c === "S") return { alt: `[^${SPACE}]` };
    return escapedChar(c, true);
  }
  function escapedChar(c, inClass) {
    if (c in CONTROL) return lit(CONTROL[c], inClass);
    if (c === "0") return "\\0";
    if (c === "x" || c === "u" || c === "U") {
      const n = { x: 2, u: 4, U: 8 }[c];
      const hex = source.slice(i, i + n);
      if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(hex)) throw bad(source, `incomplete escape \\${c}`);
      i += n;
      return `\\u{${hex}}`;
    }
    if (c === "b" && inClass) return "\\x08";
    if (c === undefined) throw bad(source, "bad escape (end of pattern)");
    if (/[A-Za-z0-9]/.test(c)) throw bad(source, `bad escape \\${c}`);
    const ch = String.fromCodePoint(source.codePointAt(i - 1));
    i += ch.length - 1;
    return lit(ch, inClass);
  }
  function escape() {
    const c = at();
    if (/[1-9]/.test(c)) {
      const m = /^\d{1,2}/.exec(source.slice(i));
      i += m[0].length;
      return reference(groups[Number(m[0]) - 1], `\\${m[0]}`); // Python: the group's width
    }
    i++;
    const one = (src) => ({ src, min: 1, max: 1 });
    const zero = (src) => ({ src, min: 0, max: 0 });
    const boundary = `(?:(?<=[${WORD}])(?![${WORD}])|(?<![${WORD}])(?=[${WORD}]))`;
    switch (c) {
      case "d": return one("\\p{Nd}");
      case "D": return one("\\P{Nd}");
      case "w": return one(`[${WORD}]`);
      case "W": return one(`[^${WORD}]`);
      case "s": return one(`[${SPACE}]`);
      case "S": return one(`[^${SPACE}]`);
      case "A": return zero("(?<![\\s\\S])");
      case "Z": return zero("(?![\\s\\S])");
      case "b": return zero(boundary);
      case "B": return zero(`(?!${boundary})`);
      default: return one(escapedChar(c, false));
    }
  }
  function charClass() {
    let src = "";
    const alts = []; // \W, \S: [a\W] is (?:[a]|[^WORD]), [^a\W] is (?:(?![a]|[^WORD])[\s\S])
    const negated = at() === "^";
    if (negated) i++;
    let first = true;
    while (i < source.length && (at() !== "]" || first)) {
      first = false;
      const c = at();
      if (c === "\\") {
        i++;
        const e = classEscape();
        if (typeof e === "string") src += e;
        else alts.push(e.alt);
      } else if (c === "[" && /^\[[:=.]/.test(source.slice(i))) {
        throw unsupported("POSIX-like class syntax");
      } else {
        const ch = String.fromCodePoint(source.codePointAt(i));
        i += ch.length;
        src += c === "-" ? "-" : lit(ch, true);
      }
    }
    if (at() !== "]") throw bad(source, "unterminated character set");
    i++;
    if (!alts.length) return { src: `[${negated ? "^" : ""}${src}]`, min: 1, max: 1 };
    const union = `(?:${[...(src ? [`[${src}]`] : []), ...alts].join("|")})`;
    return { src: negated ? `(?:(?!${union})[\\s\\S])` : union, min: 1, max: 1 };
  }

  let tree;
  try {
    tree = alternation();
  } catch (e) {
    // spec: validators.deny — refused whatever the compiler's failure, nesting too deep included
    // (Python's own depth limit is its recursion limit; this adapter's is its call stack)
    if (e instanceof RangeError) throw bad(source, "nesting too deep");
    throw e;
  }
  if (i < source.length) throw bad(source, "unbalanced parenthesis");
  let regex;
  try {
    regex = new RegExp(tree.src, flags.has("i") ? "giu" : "gu");
  } catch (e) {
    throw bad(source, e.message);
  }
  return { regex, min: tree.min, max: tree.max };
}
