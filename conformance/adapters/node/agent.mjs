// The agent chapter's pure vector functions (spec/agent.md 6.14), written from spec/agent.md
// with the pieces it leans on from spec/deltas.md, spec/stream.md and spec/governance.md.
// No npm dependencies. The model-calling vectors (agent.model_effect, agent.summarize) live in
// agent-model.mjs; this module holds the rest and the helpers both share.
//
// Rules (spec/agent.md):
// - Canonical JSON (#agent.canonical-json) is Python's `json.dumps(ensure_ascii=False,
//   separators=(",", ":"), sort_keys=True)`: keys sorted by code point, Python's string escapes
//   and float repr, UTF-8 bytes.
// - Compaction (#agent.compaction-guard, #agent.compaction-trigger, #agent.kept-suffix-bytes,
//   #agent.kept-suffix-messages, #agent.compaction-skip): a pure plan over message sizes.
// - Tool results (#agent.tool-result): `{"tool":<name>,"result":<result>}`, "tool" first.
// - Transcript rendering (#agent.render-transcript).
// - Claim-check (#agent.claim-check-ref, #agent.claim-check-envelope, #agent.claim-check-taint).
// - Streaming granularity (#agent.chunk-boundary, #agent.chunk-min-chars, #agent.chunk-flush).

import { createHash } from "node:crypto";
import { LoomError } from "./journal.mjs";
import { Tainted, decodeTainted } from "./governance.mjs";

const jsonType = (v) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
const isObject = (v) => jsonType(v) === "object";
const invalid = (message, code = "argument.invalid") => new LoomError(code, message);

// -- taint: chapter 4's one implementation (governance.mjs), plus the collecting walk here ---
/** The tainted values inside a value, in document order (spec: taint.walk). */
export function taintedIn(v, found = []) {
  // a tainted value inside another tainted value's value counts too (#agent.claim-check-taint)
  if (v instanceof Tainted) {
    found.push(v);
    taintedIn(v.value, found);
  } else if (Array.isArray(v)) v.forEach((x) => taintedIn(x, found));
  else if (isObject(v)) Object.values(v).forEach((x) => taintedIn(x, found));
  return found;
}

/** The vector encoding of a value holding `Tainted` (the inverse of decodeTainted). */
const encodeTainted = (v) => {
  if (v instanceof Tainted) return { $tainted: { value: encodeTainted(v.value), origin: v.origin } };
  if (Array.isArray(v)) return v.map(encodeTainted);
  if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, encodeTainted(x)]));
  return v;
};

// -- canonical JSON (#agent.canonical-json) ------------------------------------------------
/** Code-point order, Python's `str` order (UTF-16 order differs above the surrogates). */
export function compareCodePoints(a, b) {
  const x = Array.from(a, (c) => c.codePointAt(0));
  const y = Array.from(b, (c) => c.codePointAt(0));
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

const ESCAPES = { '"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f" };
// Python's json escapes (ensure_ascii=False): the quote, the backslash, and C0 controls only.
const pyString = (s) => `"${s.replace(/["\\\x00-\x1f]/g, (c) => ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)}"`;

// Python's float repr: shortest round-trip digits, fixed for 1e-4 <= |x| < 1e16, else
// `d.ddde+XX`. A JSON number JavaScript reads as an integer is written as one: JavaScript
// cannot tell `1.0` from `1` (a limit of this adapter, not a rule).
function pyNumber(n) {
  if (!Number.isFinite(n)) throw invalid("canonical JSON has no NaN or Infinity"); // allow_nan=False
  if (Number.isInteger(n)) return Math.abs(n) < 1e21 ? String(n) : BigInt(n).toString();
  const [mantissa, exp] = n.toExponential().split("e");
  const e = Number(exp);
  if (e < -4 || e >= 16) return `${mantissa}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  return String(n); // JavaScript is fixed-point in this range too, with the same digits
}

/** The canonical JSON text of a JSON value; `Tainted` only where `tainted` says how to write it. */
export function canonicalJson(v, tainted = null) {
  if (v instanceof Tainted) {
    if (!tainted) throw invalid("a tainted value is not JSON");
    return canonicalJson(tainted(v), tainted);
  }
  switch (jsonType(v)) {
    case "null": return "null";
    case "boolean": return v ? "true" : "false";
    case "number": return pyNumber(v);
    case "string": return pyString(v);
    case "array": return `[${v.map((x) => canonicalJson(x, tainted)).join(",")}]`;
    case "object": {
      const keys = Object.keys(v).sort(compareCodePoints);
      return `{${keys.map((k) => `${pyString(k)}:${canonicalJson(v[k], tainted)}`).join(",")}}`;
    }
    default: throw invalid(`not JSON: ${jsonType(v)}`);
  }
}

/** The text's UTF-8 form; a lone surrogate has none (#agent.canonical-json: argument.invalid). */
const utf8 = (text) => {
  if (!text.isWellFormed()) throw invalid("a string holds a lone surrogate, which UTF-8 cannot carry");
  return text;
};
export const utf8Length = (text) => Buffer.byteLength(utf8(text), "utf8");

// -- compaction (spec/agent.md 6.9) --------------------------------------------------------
const isCount = (v, min) => Number.isInteger(v) && v >= min;

/** spec: agent.compaction-guard — the thresholds and keepRecent of a `Compaction`. */
function compactionConfig({ afterMessages = null, afterBytes = null, keepRecent }) {
  const fail = (m) => invalid(m, "argument.agent-compaction");
  if (afterMessages === null && afterBytes === null) throw fail("compaction needs afterMessages or afterBytes");
  for (const [name, v] of [["afterMessages", afterMessages], ["afterBytes", afterBytes]]) {
    if (v !== null && !isCount(v, 1)) throw fail(`${name} must be an int >= 1, got ${JSON.stringify(v)}`);
  }
  // loom-ref's choice: the default keepRecent is 8, lowered to afterMessages - 1 when smaller.
  if (keepRecent === undefined) keepRecent = afterMessages === null ? 8 : Math.min(8, afterMessages - 1);
  if (!isCount(keepRecent, 1)) throw fail(`keepRecent must be an int >= 1, got ${JSON.stringify(keepRecent)}`);
  if (afterMessages !== null && keepRecent >= afterMessages) {
    throw fail(`keepRecent (${keepRecent}) must be below afterMessages (${afterMessages})`);
  }
  return { afterMessages, afterBytes, keepRecent };
}

/** spec: agent.kept-suffix-bytes — newest-first run within afterBytes / 2, floored at 1, capped. */
export function keptSuffix(sizes, afterBytes, keepRecent) {
  let keep = 0;
  let total = 0;
  for (let i = sizes.length - 1; i >= 0 && keep < keepRecent; i--) {
    if (2 * (total + sizes[i]) > afterBytes) break; // the halving is exact; stop at the first misfit
    total += sizes[i];
    keep++;
  }
  return sizes.length ? Math.max(1, keep) : 0; // the newest message always reaches the model
}

/** The compaction decision before a model call (#agent.compaction-trigger ... #agent.compaction-skip). */
export function compactionPlan(sizes, config) {
  const { afterMessages, afterBytes, keepRecent } = compactionConfig(config);
  const bytes = sizes.reduce((s, n) => s + n, 0);
  const overBytes = afterBytes !== null && bytes > afterBytes; // strictly
  const overMessages = afterMessages !== null && sizes.length > afterMessages;
  if (!overBytes && !overMessages) return { compact: false, reason: null, keep: sizes.length, fold: 0, skipped: false };
  // The byte rule decides when both are crossed; its suffix never exceeds keepRecent.
  const reason = overBytes ? "bytes" : "messages";
  const keep = overBytes ? keptSuffix(sizes, afterBytes, keepRecent) : Math.min(keepRecent, sizes.length);
  if (keep >= sizes.length) return { compact: false, reason, keep: sizes.length, fold: 0, skipped: true };
  return { compact: true, reason, keep, fold: sizes.length - keep, skipped: false };
}

// -- the transcript (spec/agent.md 6.5, 6.8, 6.9) ------------------------------------------
/** spec: agent.tool-result — "tool" first, then "result", each value canonical; the content
 * is UTF-8 text, so a lone surrogate in it is argument.invalid (#agent.canonical-json). */
export function toolResultContent(name, result) {
  const content = `{"tool":${canonicalJson(name)},"result":${canonicalJson(result)}}`;
  if (!content.isWellFormed()) throw invalid("a string holds a lone surrogate, which UTF-8 cannot carry");
  return content;
}

/** spec: agent.render-transcript — one group per message, groups separated by a blank line. */
export function renderTranscript(messages) {
  const groups = messages.map((m) => m.content.flatMap((b) => {
    switch (b.type) {
      case "text": return [`${m.role}: ${b.text}`];
      case "tool-call":
        // A non-string `arguments` (the wire decoder lets any JSON value through) is refused.
        if (typeof b.arguments !== "string") throw invalid("tool-call arguments must be a string");
        return [`${m.role} called ${b.name}(${b.arguments})`];
      case "tool-result": return [`${b.isError ? "tool error" : "tool result"}: ${b.content}`];
      default: return []; // reasoning is left out
    }
  }).join("\n"));
  return groups.filter((g) => g).join("\n\n"); // a message with nothing to render is no group
}

// -- claim-check (spec/agent.md 6.11) ------------------------------------------------------
// spec: agent.claim-check-ref — a tainted value is stored in its vector encoding.
const storedForm = (t) => ({ $tainted: { value: t.value, origin: t.origin } });

/** spec: agent.claim-check-ref — the stored canonical JSON text of a result; a result that
 * has none (a lone surrogate, a non-finite number) is argument.claim-check-value. */
export function storedText(result) {
  try {
    return utf8(canonicalJson(result, storedForm));
  } catch (e) {
    if (e instanceof LoomError && e.code === "argument.invalid") {
      throw invalid(`a claim-checked result must be made of JSON values: ${e.message}`, "argument.claim-check-value");
    }
    throw e;
  }
}

/** spec: agent.claim-check-ref — "sha256:" + hex(sha256(canonical JSON bytes)). */
export const contentRef = (text) => `sha256:${createHash("sha256").update(utf8(text), "utf8").digest("hex")}`;

const PREVIEW_CHARS = 256;

/** spec: agent.claim-check-envelope, agent.claim-check-taint — the default digest or a bare ref. */
export function claimCheckEnvelope(result, preview = true) {
  const stored = storedText(result);
  const envelope = { __loomClaimCheck: true, ref: contentRef(stored) };
  const tainted = taintedIn(result);
  if (tainted.length) {
    // "never for tainted content": no digest of any kind, whatever `preview` says.
    const origins = [...new Set(tainted.map((t) => t.origin))].sort(compareCodePoints);
    return { envelope: { ...envelope, tainted: true, origins }, stored };
  }
  if (preview) {
    const chars = Array.from(stored); // characters are code points, as Python counts them
    envelope.digest = { preview: chars.slice(0, PREVIEW_CHARS).join(""), truncated: chars.length > PREVIEW_CHARS };
  }
  return { envelope, stored };
}

// -- streaming granularity (spec/agent.md 6.10) --------------------------------------------
// spec: agent.chunk-boundary — after a newline (U+000A only), or after one whitespace
// character following a sentence end and at most three closing quotes or brackets. Whitespace
// is the spec's list (Python's str.isspace), not JavaScript's \s: U+001C-U+001F and U+0085 are
// whitespace, U+FEFF is not.
export const WHITESPACE = "\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const BOUNDARY = new RegExp(`\\n|[.!?。！？]["'”’)\\]]{0,3}[${WHITESPACE}]`, "gu");

/** The end of the last boundary in `text` (0 for none). */
function lastBoundary(text) {
  let end = 0;
  for (const m of text.matchAll(BOUNDARY)) end = m.index + m[0].length;
  return end;
}

/** `chunk_deltas(emit, min_chars)`: a callable delta sink with `flush()`. */
export function chunkDeltas(emit, minChars = 40) {
  if (!Number.isInteger(minChars) || minChars < 1) throw invalid(`minChars must be an int >= 1, got ${minChars}`);
  let buffer = "";
  const push = (text) => {
    if (typeof text !== "string") throw invalid("a delta is a string");
    if (!text) return; // empty deltas are ignored
    buffer += text;
    const end = lastBoundary(buffer);
    // spec: agent.chunk-min-chars — at least minChars characters (code points) up to the boundary
    if (end && Array.from(buffer.slice(0, end)).length >= minChars) {
      emit(buffer.slice(0, end));
      buffer = buffer.slice(end);
    }
  };
  push.push = push;
  push.flush = () => {
    if (buffer) emit(buffer); // spec: agent.chunk-flush — no batch is empty
    buffer = "";
  };
  return push;
}

// -- vector inputs -------------------------------------------------------------------------
/** Reads a vector input object: `required` and `optional` members, nothing else. */
export function members(input, required, optional = []) {
  if (!isObject(input)) throw invalid("the input is an object");
  const extra = Object.keys(input).filter((k) => !required.includes(k) && !optional.includes(k));
  if (extra.length) throw invalid(`unknown input member(s) ${extra.sort().join(", ")}`);
  for (const k of required) if (!Object.hasOwn(input, k)) throw invalid(`missing input member ${k}`);
  return input;
}

const sizesOf = (v) => {
  if (!Array.isArray(v) || !v.every((n) => isCount(n, 0))) throw invalid("sizes are ints >= 0");
  return v;
};

export const AGENT_VECTORS = {
  "agent.kept_suffix": (input) => {
    const { sizes, afterBytes, keepRecent } = members(input, ["sizes", "afterBytes", "keepRecent"]);
    sizesOf(sizes);
    if (!isCount(afterBytes, 1) || !isCount(keepRecent, 1)) throw invalid("afterBytes and keepRecent are ints >= 1");
    return { keep: keptSuffix(sizes, afterBytes, keepRecent) };
  },
  "agent.compaction_plan": (input) => {
    const i = members(input, ["sizes", "afterMessages", "afterBytes", "keepRecent"]);
    return compactionPlan(sizesOf(i.sizes), i);
  },
  "agent.message_bytes": (input) => {
    const canonical = canonicalJson(members(input, ["message"]).message);
    return { bytes: utf8Length(canonical), canonical };
  },
  "agent.tool_result_content": (input) => {
    const { name, result } = members(input, ["name", "result"]);
    if (typeof name !== "string" || !name) throw invalid("name is a non-empty string");
    return { content: toolResultContent(name, result) };
  },
  "agent.claim_check_envelope": (input) => {
    const { result, preview = true } = members(input, ["result"], ["preview", "resolve"]);
    if (typeof preview !== "boolean") throw invalid("preview is a boolean");
    const out = claimCheckEnvelope(decodeTainted(result), preview);
    const answer = { envelope: encodeTainted(out.envelope), stored: out.stored };
    if (Object.hasOwn(input, "resolve")) {
      // spec: agent.claim-check-ref — only an envelope is resolved, against a store holding
      // this one result; the stored form is the $tainted encoding, so parsing it gives the
      // resolved value in that encoding
      const env = input.resolve;
      if (!isObject(env) || env.__loomClaimCheck !== true || typeof env.ref !== "string") {
        throw invalid("not a claim-check envelope");
      }
      if (env.ref !== out.envelope.ref) throw invalid(`no content stored as ${env.ref}`, "agent.content-not-found");
      answer.resolved = JSON.parse(out.stored);
    }
    return answer;
  },
  // The value may hold the $tainted encoding: decoded (a malformed one is refused), then stored so.
  "agent.content_ref": (input) =>
    ({ ref: contentRef(storedText(decodeTainted(members(input, ["value"]).value))) }),
  "agent.chunk_deltas": (input) => {
    const { deltas, minChars, flushAfter = [] } = members(input, ["deltas", "minChars"], ["flushAfter"]);
    if (!Array.isArray(deltas)) throw invalid("deltas is an array");
    if (!Array.isArray(flushAfter) || !flushAfter.every((k) => isCount(k, 0) && k < deltas.length)) {
      throw invalid("flushAfter holds indexes of deltas");
    }
    const batches = [];
    const chunker = chunkDeltas((b) => batches.push(b), minChars);
    // spec: agent.chunk-flush — a flush after the listed deltas; the chunker goes on as new
    deltas.forEach((d, i) => { chunker(d); if (flushAfter.includes(i)) chunker.flush(); });
    chunker.flush();
    return { batches };
  },
};
