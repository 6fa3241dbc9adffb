// A minimal Loom journal in JavaScript: the line format with CRC-32, the reader (torn tail,
// corruption by line), the store log reader (parseLog, the 1.7 extension), an in-memory byte
// store with a single-writer rule, and fold().
// Written from spec/journal.md; it shares no code with loom_ref.

import { NESTING_LIMIT, isExecutionId, scanJson } from "./journal-text.mjs";

export { NESTING_LIMIT, isExecutionId, scanJson };
import { checkSchema } from "./schema.mjs";

export class LoomError extends Error {
  constructor(code, message, details = {}) {
    super(message);
    this.code = code;
    this.details = details;
  }
  toJSON() {
    return { code: this.code, message: this.message };
  }
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

const enc = new TextEncoder();
// ignoreBOM: a byte order mark is kept, so a line that starts with one is not JSON (journal.checksum)
const dec = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const SUFFIX = 18; // ,"crc":"xxxxxxxx"}

function seal(obj) {
  const body = enc.encode(JSON.stringify(obj).slice(0, -1));
  const crc = crc32(body).toString(16).padStart(8, "0");
  return Buffer.concat([Buffer.from(body), Buffer.from(`,"crc":"${crc}"}\n`)]);
}

export const encodeHeader = (eid) =>
  seal({ schema: "loom-ref.journal", version: 1, executionId: eid });
export const encodeLine = (seq, kind, payload) => seal({ seq, kind, payload });

export const REQUIRED = {
  EXECUTION_STARTED: ["executionId", "workflow", "input"],
  STEP_STARTED: ["stepId", "toolId", "input", "idempotencyKey"],
  STEP_COMPLETED: ["stepId", "output"],
  STEP_FAILED: ["stepId", "error"],
  STEP_IN_DOUBT: ["stepId"],
  DECISION_RECORDED: ["decisionId", "choice"],
  STREAM_APPENDED: ["streamId", "data"],
  EXECUTION_SUSPENDED: ["gateId", "on", "correlationKey"],
  RESUME_RECEIVED: ["gateId", "payload"],
  EXECUTION_RESUMED: ["gateId"],
  EXECUTION_COMPLETED: ["output"],
  EXECUTION_FAILED: ["error"],
};

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

export function checkPayload(kind, payload) {
  if (!(kind in REQUIRED)) throw new LoomError("journal.bad-payload", `unknown kind ${kind}`);
  if (!isObject(payload)) throw new LoomError("journal.bad-payload", "payload is not an object");
  if (kind === "EXECUTION_SUSPENDED" && "resumeSchema" in payload) {
    try { // spec: kernel.resume-schema -- a journaled schema is one a reader can read
      checkSchema(payload.resumeSchema, "resumeSchema");
    } catch (e) {
      throw new LoomError("journal.bad-payload", e.message);
    }
  }
  for (const name of REQUIRED[kind]) {
    if (!(name in payload)) throw new LoomError("journal.bad-payload", `${kind} lacks ${name}`);
  }
}

// The subset of JSON Schema resume payloads are checked against (spec: kernel.resume-schema,
// kernel.schema-subset): schema.mjs; re-exported for the modules that import it from here.
export { checkSchema } from "./schema.mjs";

// journal.json-values: finite numbers, and strings (keys too) with no lone surrogate
export function allJsonValues(value) {
  if (typeof value === "number") return Number.isFinite(value);
  if (typeof value === "string") return value.isWellFormed();
  if (Array.isArray(value)) return value.every(allJsonValues);
  if (value !== null && typeof value === "object") {
    return Object.entries(value).every(([k, v]) => k.isWellFormed() && allJsonValues(v));
  }
  return true;
}

function decodeLine(line) {
  const opener = Buffer.from(',"crc":"');
  if (line.length < SUFFIX || !line.subarray(-SUFFIX, -10).equals(opener) ||
      line.subarray(-2).toString("latin1") !== '"}') {
    throw new LoomError("journal.malformed-line", "line does not end with a crc member");
  }
  const hex = line.subarray(-10, -2).toString("latin1");
  if (!/^[0-9a-f]{8}$/.test(hex)) throw new LoomError("journal.malformed-line", "bad crc");
  if (crc32(line.subarray(0, -SUFFIX)) !== parseInt(hex, 16)) {
    throw new LoomError("journal.bad-checksum", "checksum mismatch");
  }
  let text;
  try {
    text = dec.decode(line);
  } catch (e) {
    throw new LoomError("journal.malformed-line", `not UTF-8: ${e.message}`);
  }
  const scan = scanJson(text);
  if (scan.depth > NESTING_LIMIT) {
    throw new LoomError("journal.malformed-line", `nests deeper than ${NESTING_LIMIT}`);
  }
  let obj;
  try {
    obj = JSON.parse(text);
  } catch (e) {
    throw new LoomError("journal.malformed-line", `not JSON: ${e.message}`);
  }
  if (scan.duplicate !== null) {
    throw new LoomError("journal.malformed-line", `duplicate member name ${scan.duplicate}`);
  }
  if (!isObject(obj)) throw new LoomError("journal.malformed-line", "not an object");
  // journal.json-values: JSON.parse reads an overflowing number (1e999) as Infinity, and a
  // lone surrogate escape (\ud800) as a string UTF-8 cannot carry
  if (!allJsonValues(obj)) {
    throw new LoomError("journal.malformed-line", "not a JSON value: a number that is not " +
      "finite or a lone surrogate");
  }
  delete obj.crc;
  return obj;
}

// A writer refuses a line a reader would refuse for its depth (journal.nesting-limit), or a
// payload that is not made of JSON values (journal.json-values): journal.bad-payload.
export function checkWritten(line) {
  if (scanJson(line.toString("utf8")).depth > NESTING_LIMIT) {
    throw new LoomError("journal.bad-payload", `the line nests deeper than ${NESTING_LIMIT}`);
  }
}

// Split a byte buffer into complete lines; bytes after the last \n are the torn tail
// (journal.torn-tail), reported by the 1-based line they would have been and their size.
function splitLines(buf) {
  const lastNl = buf.lastIndexOf(0x0a);
  const goodSize = lastNl + 1;
  const lines = [];
  let start = 0;
  for (let i = 0; i < goodSize; i++) {
    if (buf[i] === 0x0a) {
      lines.push(buf.subarray(start, i));
      start = i + 1;
    }
  }
  const torn = goodSize < buf.length ? { line: lines.length + 1, size: buf.length - goodSize } : null;
  return { lines, torn, goodSize };
}

const corrupt = (line, reason, message) =>
  new LoomError("journal.corrupt", `line ${line}: ${message}`, { line, reason });

// Decode a complete line (crc, JSON), naming its line number when it is bad (journal.corrupt-line).
function decodeAt(line, lineno) {
  try {
    return decodeLine(line);
  } catch (e) {
    throw corrupt(lineno, e.code, e.message);
  }
}

// journal.header: an execution's journal header (also a line of a store log, journal.log-format).
function checkJournalHeader(header, lineno) {
  if (header.schema !== "loom-ref.journal" || header.version !== 1) {
    throw corrupt(lineno, "journal.bad-header", "not a loom-ref.journal v1 header");
  }
  if (!isExecutionId(header.executionId)) {
    throw corrupt(lineno, "journal.bad-header", "header names no execution id");
  }
  return header.executionId;
}

// journal.line-shape, journal.event-kinds, journal.payload-shape, journal.seq: a decoded event
// line `obj` that must carry `seq` = expectedSeq and exactly `members` members (crc removed);
// journal.started-names-header: an EXECUTION_STARTED names the journal's execution `eid`.
function checkEvent(obj, lineno, expectedSeq, members, eid) {
  try {
    checkPayload(obj.kind, obj.payload);
  } catch (e) {
    throw corrupt(lineno, e.code, e.message);
  }
  if (obj.kind === "EXECUTION_STARTED" && obj.payload.executionId !== eid) {
    throw corrupt(lineno, "journal.bad-payload", "EXECUTION_STARTED names another execution");
  }
  if (obj.seq !== expectedSeq || !Number.isInteger(obj.seq)) {
    throw corrupt(lineno, "journal.seq-gap", `expected seq ${expectedSeq}`);
  }
  if (Object.keys(obj).length !== members) {
    throw corrupt(lineno, "journal.malformed-line", "wrong members");
  }
  return { seq: obj.seq, kind: obj.kind, payload: obj.payload };
}

export function parseJournal(buf) {
  const { lines, torn, goodSize } = splitLines(buf);
  if (!lines.length) return { executionId: null, events: [], torn, goodSize };
  const executionId = checkJournalHeader(decodeAt(lines[0], 1), 1);
  const events = [];
  for (let i = 1; i < lines.length; i++) {
    events.push(checkEvent(decodeAt(lines[i], i + 1), i + 1, i, 3, executionId));
  }
  return { executionId, events, torn, goodSize };
}

// journal.log-torn-tail: torn bytes name an execution if they get as far as a complete
// `{"executionId":"<id>"`, the id by the whole rule of 1.1 (so `CON` names none), else null.
const LOG_EVENT_OPENER = '{"executionId":"';
export function tornExecution(bytes) {
  let text;
  try {
    text = dec.decode(bytes);
  } catch {
    text = Buffer.from(bytes).toString("utf8"); // a cut multi-byte character at the very end
  }
  if (!text.startsWith(LOG_EVENT_OPENER)) return null;
  for (let i = LOG_EVENT_OPENER.length; i < text.length; i++) {
    if (text[i] === "\\") {
      i++;
    } else if (text[i] === '"') {
      // an execution id by the whole rule of 1.1 (reserved names included), written as itself
      const id = text.slice(LOG_EVENT_OPENER.length, i);
      return isExecutionId(id) ? id : null;
    }
  }
  return null;
}

// The store log (spec/journal.md 1.7, extension): every execution's journal in one file.
export function parseLog(buf) {
  const { lines, torn, goodSize } = splitLines(buf);
  const journals = new Map(); // insertion order = order of the header lines
  if (lines.length) {
    // journal.log-format: the first line is the store log header
    const header = decodeAt(lines[0], 1);
    if (header.schema !== "loom-ref.log" || header.version !== 1) {
      throw corrupt(1, "journal.bad-header", "not a loom-ref.log v1 header");
    }
  }
  for (let i = 1; i < lines.length; i++) {
    const lineno = i + 1;
    const obj = decodeAt(lines[i], lineno);
    if ("schema" in obj) {
      // journal.log-executions: an execution's header, exactly as in 1.1, once per execution
      const eid = checkJournalHeader(obj, lineno);
      if (journals.has(eid)) {
        throw corrupt(lineno, "journal.bad-header", `second header for ${eid}`);
      }
      journals.set(eid, []);
      continue;
    }
    if (typeof obj.executionId !== "string") {
      throw corrupt(lineno, "journal.malformed-line", "event line has no executionId");
    }
    const events = journals.get(obj.executionId);
    if (events === undefined) {
      throw corrupt(lineno, "journal.bad-header", `event of ${obj.executionId} before its header`);
    }
    const { executionId, ...event } = obj;
    events.push(checkEvent(event, lineno, events.length + 1, 3, executionId));
  }
  return {
    executions: Object.fromEntries(journals),
    order: [...journals.keys()],
    torn: torn && { ...torn, executionId: tornExecution(buf.subarray(goodSize)) },
    goodSize,
  };
}

export class Crash {
  constructor(after) {
    this.after = after;
  }
}

// One journal per execution id, held as the bytes a file would hold.
export class MemoryStore {
  constructor() {
    this.data = new Map();
    this.writers = new Set();
  }
  exists(eid) {
    return this.data.has(eid);
  }
  read(eid) {
    if (!this.data.has(eid)) throw new LoomError("journal.not-found", `no journal ${eid}`);
    const parsed = parseJournal(this.data.get(eid));
    if (parsed.executionId !== null && parsed.executionId !== eid
      && parsed.executionId.toLowerCase() === eid.toLowerCase()) { // journal.execution-ids
      throw new LoomError("argument.execution-id", `${eid} differs only in case from ${parsed.executionId}`);
    }
    if (parsed.executionId !== null && parsed.executionId !== eid) {
      throw new LoomError("journal.corrupt", "header names another execution",
        { line: 1, reason: "journal.bad-header" });
    }
    return parsed;
  }
  claim(eid) {
    if (this.writers.has(eid)) throw new LoomError("journal.locked", `${eid} has a writer`);
    this.writers.add(eid);
  }
  create(eid, fault) {
    if (this.data.has(eid)) throw new LoomError("journal.exists", `${eid} exists`);
    this.data.set(eid, encodeHeader(eid));
    this.claim(eid);
    return new Journal(this, eid, [], null, fault);
  }
  open(eid, fault) {
    const parsed = this.read(eid);
    this.claim(eid);
    let buf = this.data.get(eid).subarray(0, parsed.goodSize);
    if (parsed.executionId === null) buf = encodeHeader(eid);
    this.data.set(eid, Buffer.from(buf));
    return new Journal(this, eid, parsed.events, parsed.torn, fault);
  }
}

// A writer. `fault` = {after, torn, count, onAppend}: crash after the after-th append.
class Journal {
  constructor(store, eid, events, torn, fault) {
    Object.assign(this, { store, eid, events: [...events], torn, fault, open: true });
  }
  write(bytes) {
    this.store.data.set(this.eid, Buffer.concat([this.store.data.get(this.eid), bytes]));
  }
  append(kind, payload) {
    if (!this.open) throw new LoomError("journal.closed", "closed");
    checkPayload(kind, payload);
    // journal.started-names-header: a writer never writes a line its readers refuse
    if (kind === "EXECUTION_STARTED" && payload.executionId !== this.eid) {
      throw new LoomError("journal.bad-payload", `EXECUTION_STARTED names ${payload.executionId}, not ${this.eid}`);
    }
    const seq = this.events.length + 1;
    const line = encodeLine(seq, kind, payload);
    checkWritten(line);
    const fault = this.fault;
    if (fault) fault.count += 1;
    if (fault && fault.count === fault.after && fault.torn) {
      this.write(line.subarray(0, 17));
      this.open = false;
      throw new Crash(fault.count);
    }
    this.write(line);
    const event = { seq, kind, payload: JSON.parse(JSON.stringify(payload)) };
    this.events.push(event);
    if (fault && fault.onAppend) fault.onAppend(event);
    if (fault && fault.count === fault.after) throw new Crash(fault.count);
    return event;
  }
  close() {
    this.open = false;
    this.store.writers.delete(this.eid);
  }
}

// -- fold ------------------------------------------------------------------------------------
const RUNNING_NEXT = {
  STEP_STARTED: "running", STEP_COMPLETED: "running", STEP_FAILED: "running",
  DECISION_RECORDED: "running", STREAM_APPENDED: "running", STEP_IN_DOUBT: "in-doubt",
  EXECUTION_SUSPENDED: "suspended", EXECUTION_COMPLETED: "completed",
  EXECUTION_FAILED: "failed",
};
export const TRANSITIONS = {
  "not-started": { EXECUTION_STARTED: "running" },
  running: RUNNING_NEXT,
  suspended: { RESUME_RECEIVED: "suspended", EXECUTION_RESUMED: "running" },
  "in-doubt": { STEP_COMPLETED: "running", STEP_FAILED: "running", EXECUTION_FAILED: "failed" },
  completed: {},
  failed: {},
};

export function fold(events) {
  const s = {
    status: "not-started", seq: 0, executionId: null, workflow: null, input: null,
    frames: {}, decisions: {}, waitingGate: null, pendingResume: false, inDoubtStep: null,
    output: null, error: null,
  };
  const illegal = (ev, why) =>
    new LoomError("journal.illegal-transition", `seq ${ev.seq}: ${why}`);
  for (const ev of events) {
    const next = TRANSITIONS[s.status][ev.kind];
    if (next === undefined) throw illegal(ev, `${ev.kind} while ${s.status}`);
    const p = ev.payload;
    switch (ev.kind) {
      case "EXECUTION_STARTED":
        Object.assign(s, { executionId: p.executionId, workflow: p.workflow, input: p.input });
        break;
      case "STEP_STARTED":
        s.frames[p.stepId] = { status: "started", tool: p.toolId };
        break;
      case "STEP_COMPLETED":
      case "STEP_FAILED":
      case "STEP_IN_DOUBT": {
        const frame = s.frames[p.stepId];
        if (!frame) throw illegal(ev, `outcome of unknown step ${p.stepId}`);
        frame.status = { STEP_COMPLETED: "completed", STEP_FAILED: "failed",
          STEP_IN_DOUBT: "in-doubt" }[ev.kind];
        s.inDoubtStep = ev.kind === "STEP_IN_DOUBT" ? p.stepId : null;
        break;
      }
      case "DECISION_RECORDED":
        s.decisions[p.decisionId] = p.choice;
        break;
      case "EXECUTION_SUSPENDED":
        s.waitingGate = p.gateId;
        s.pendingResume = false;
        break;
      case "RESUME_RECEIVED":
        if (p.gateId !== s.waitingGate || s.pendingResume) throw illegal(ev, "gate not waiting");
        s.pendingResume = true;
        break;
      case "EXECUTION_RESUMED":
        // journal.transitions: a resume for a gate that is not waiting, whichever event
        if (p.gateId !== s.waitingGate) throw illegal(ev, "gate not waiting");
        s.waitingGate = null;
        s.pendingResume = false;
        break;
      case "EXECUTION_COMPLETED":
        s.output = p.output;
        break;
      case "EXECUTION_FAILED":
        s.error = p.error;
        break;
    }
    s.status = next;
    s.seq = ev.seq;
  }
  return s;
}
