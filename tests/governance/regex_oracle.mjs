// The ECMAScript side of tests/governance/test_dialect_differential.py: one long-lived process
// answering one JSON line per request line, so a batch of patterns costs one node start.
//
//   {"op": "match", "pattern", "ignoreCase", "texts": [..]}
//     -> {"spans": [[[start, end] | null, ...], ...]}: for every text and every code point
//        offset `pos` from 0 to its length, the leftmost match of the pattern at or after pos
//        (native `new RegExp(pattern, "gu" + "i"?)`, lastIndex = pos), in code points.
//   {"op": "check", "patterns": [..]}
//     -> {"checks": [{"min", "max"} | {"reason"}]}: the Node adapter's dialect checker
//        (conformance/adapters/node/dialect.mjs); max null when unbounded.
// A request that throws answers {"error": message}.

import { createInterface } from "node:readline";
import { checkPattern } from "../../conformance/adapters/node/dialect.mjs";

const points = (s) => [...s];
const unitOffset = (cps, k) => cps.slice(0, k).join("").length;
const pointCount = (s) => [...s].length;

function spans(pattern, ignoreCase, text) {
  const re = new RegExp(pattern, ignoreCase ? "giu" : "gu");
  const cps = points(text);
  const out = [];
  for (let pos = 0; pos <= cps.length; pos++) {
    re.lastIndex = unitOffset(cps, pos);
    const m = re.exec(text);
    if (m === null) out.push(null);
    else {
      const start = pointCount(text.slice(0, m.index));
      out.push([start, start + pointCount(m[0])]);
    }
  }
  return out;
}

function check(pattern) {
  try {
    const { min, max } = checkPattern(pattern);
    return { min, max: max === Infinity ? null : max };
  } catch (e) {
    if (e.code !== "argument.pattern") throw e;
    return { reason: e.details.reason };
  }
}

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (!line.trim()) continue;
  let reply;
  try {
    const req = JSON.parse(line);
    if (req.op === "match") reply = { spans: req.texts.map((t) => spans(req.pattern, req.ignoreCase, t)) };
    else if (req.op === "check") reply = { checks: req.patterns.map(check) };
    else reply = { error: `unknown op ${req.op}` };
  } catch (e) {
    reply = { error: String(e && e.message) };
  }
  process.stdout.write(`${JSON.stringify(reply)}\n`);
}
