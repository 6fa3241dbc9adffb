// A file store and a store log written through the simulated disk of journal-powerloss.mjs,
// for journal.store-on-disk (spec/journal.md 1.8, 1.12).
// Written from spec/journal.md; it shares no code with loom_ref.

import {
  LoomError, allJsonValues, checkPayload, checkWritten, crc32, encodeHeader, encodeLine, isExecutionId,
  parseJournal, parseLog, tornExecution,
} from "./journal.mjs";
import {
  OsError, SimulatedDisk, bad, dirname, isObject, latin1, powerLoss,
} from "./journal-powerloss.mjs";

// -- stores on the disk (journal.fsync-policy, journal.dir-sync) ------------------------------
const BOUNDARIES = new Set(["STEP_IN_DOUBT", "EXECUTION_SUSPENDED", "EXECUTION_COMPLETED",
  "EXECUTION_FAILED"]);
// write-ahead (every store's default) syncs after STEP_STARTED too: before the step's effect runs
const syncs = (policy, kind) => policy === "every-event"
  || ((policy === "at-boundaries" || policy === "write-ahead") && BOUNDARIES.has(kind))
  || (policy === "write-ahead" && kind === "STEP_STARTED");

// what a writer's bytes hold, line by line: a header by its schema, an event by its kind
function linesOf(buf) {
  const text = latin1(buf);
  const parts = text.split("\n");
  const tail = parts.pop();
  const out = parts.map((line) => {
    try {
      const doc = JSON.parse(Buffer.from(line, "latin1").toString("utf8"));
      return isObject(doc) ? String(doc.schema || doc.kind) : "unreadable";
    } catch {
      return "unreadable";
    }
  });
  if (tail) out.push("torn");
  return out;
}

// the calls a store makes that change the disk or its locks
class RecordingDisk {
  constructor(disk) {
    this.disk = disk;
    this.calls = [];
  }
  wrap(f, path) {
    const calls = this.calls;
    return {
      get closed() {
        return f.closed;
      },
      readAll: () => f.readAll(),
      append: (data) => (calls.push({ call: "append", path, lines: linesOf(data) }), f.append(data)),
      truncate: (size) => (calls.push({ call: "truncate", path }), f.truncate(size)),
      sync: () => (calls.push({ call: "fsync", path }), f.sync()),
      lock: () => (calls.push({ call: "lock", path }), f.lock()),
      close: () => (calls.push({ call: "close", path }), f.close()),
    };
  }
  create(path) {
    this.calls.push({ call: "create", path });
    return this.wrap(this.disk.create(path), path);
  }
  open(path, create = false) {
    const made = create && !this.disk.exists(path);
    this.calls.push({ call: made ? "create" : "open", path });
    return this.wrap(this.disk.open(path, create), path);
  }
  read(path) {
    return this.disk.read(path);
  }
  exists(path) {
    return this.disk.exists(path);
  }
  listDir(path) {
    return this.disk.listDir(path);
  }
  syncDir(path) {
    this.calls.push({ call: "fsyncDir", path });
    this.disk.syncDir(path);
  }
}

// a writer of one execution; `store.write(eid, bytes, sync)` puts its lines on the disk
class DiskJournal {
  constructor(store, eid, seq) {
    Object.assign(this, { store, eid, seq, open: true });
  }
  line(seq, kind, payload) {
    return this.store.line(this.eid, seq, kind, payload);
  }
  append(kind, payload, tornBytes = 0) {
    // journal.store-on-disk: a journal that takes no more appends refuses before the event
    // is looked at (a store log's journals too, once a torn write closed the log)
    if (!this.open || this.store.closed) throw new LoomError("journal.closed", `${this.eid} is closed`);
    checkPayload(kind, payload);
    // journal.json-values: a payloadText JSON.parse read with a number too large to be finite
    // (1e999, or an integer of that size: -Infinity for a minus sign) or a lone surrogate
    if (!allJsonValues(payload)) {
      throw new LoomError("journal.bad-payload", "the payload holds a number that is not finite or a lone surrogate");
    }
    // journal.started-names-header: a writer never writes a line its readers refuse
    if (kind === "EXECUTION_STARTED" && payload.executionId !== this.eid) {
      throw new LoomError("journal.bad-payload", `EXECUTION_STARTED names ${payload.executionId}, not ${this.eid}`);
    }
    const line = this.line(this.seq + 1, kind, payload);
    checkWritten(line); // journal.nesting-limit: nothing written for a line too deep
    if (tornBytes) {
      // a torn write is a strict prefix of the line as this writer spells it (INTERPRETING 6)
      if (tornBytes >= line.length) throw new LoomError("argument.invalid", "bytes must be below the line's length");
      this.store.write(this.eid, line.subarray(0, tornBytes), false);
      this.open = false;
      return;
    }
    this.store.write(this.eid, line, syncs(this.store.policy, kind));
    this.seq += 1;
  }
  close() {
    if (!this.open && !this.store.writers.has(this.eid)) return;
    this.open = false;
    this.store.release(this.eid);
  }
}

class FileStore {
  get closed() {
    return false; // each journal file is closed on its own
  }
  constructor(fs, policy) {
    Object.assign(this, { fs, policy, dir: "/disk", handles: new Map(), writers: new Set() });
    this.durable = new Set(); // executions whose directory entry this store synced
  }
  path(eid) {
    return `${this.dir}/${eid}.jsonl`;
  }
  locked(f, eid) {
    if (!f.lock()) {
      f.close();
      throw new LoomError("journal.locked", `${eid} has a writer`);
    }
    return f;
  }
  create(eid) {
    // journal.execution-ids: never two journals whose ids differ only in case
    const twin = this.fs.listDir(this.dir).find((n) => n.endsWith(".jsonl") &&
      n !== `${eid}.jsonl` && n.slice(0, -6).toLowerCase() === eid.toLowerCase());
    if (twin) throw new LoomError("argument.execution-id", `${eid} differs only in case from ${twin}`);
    let f;
    try {
      f = this.fs.create(this.path(eid));
    } catch (e) {
      if (e instanceof OsError) throw new LoomError("journal.exists", `${eid} exists`);
      throw e;
    }
    this.locked(f, eid).append(encodeHeader(eid));
    this.handles.set(eid, f);
    this.writers.add(eid);
    return new DiskJournal(this, eid, 0);
  }
  open(eid) {
    let f;
    try {
      f = this.locked(this.fs.open(this.path(eid)), eid);
    } catch (e) {
      if (e instanceof OsError) throw osError(e, eid);
      throw e;
    }
    let parsed;
    try {
      const data = f.readAll();
      parsed = parseJournal(data);
      if (parsed.goodSize < data.length) f.truncate(parsed.goodSize); // journal.torn-tail
      if (parsed.executionId === null) f.append(encodeHeader(eid));
    } catch (e) {
      f.close(); // journal.os-errors: a journal that failed to open holds no file and no lock
      throw e;
    }
    this.handles.set(eid, f);
    this.writers.add(eid);
    return Object.assign(new DiskJournal(this, eid, parsed.events.length),
      { kinds: parsed.events.map((e) => e.kind), torn: parsed.torn !== null });
  }
  read(eid) {
    let data;
    try {
      data = this.fs.read(this.path(eid));
    } catch (e) {
      if (e instanceof OsError) throw osError(e, eid);
      throw e;
    }
    const parsed = parseJournal(data);
    return { kinds: parsed.events.map((e) => e.kind), torn: parsed.torn !== null };
  }
  line(eid, seq, kind, payload) {
    return encodeLine(seq, kind, payload);
  }
  write(eid, bytes, sync) {
    const f = this.handles.get(eid);
    f.append(bytes);
    if (!sync) return;
    f.sync();
    if (!this.durable.has(eid)) { // journal.dir-sync: once per execution and store
      this.fs.syncDir(this.dir);
      this.durable.add(eid);
    }
  }
  release(eid) {
    this.writers.delete(eid);
    const f = this.handles.get(eid);
    if (f) f.close();
    this.handles.delete(eid);
  }
  close() {}
}

// what the disk refused, as the journal's code (journal.regular-files, journal.not-found)
const osError = (e, what) => (e.kind === "not-a-file"
  ? new LoomError("journal.not-a-file", `${what}: not a regular file`)
  : new LoomError("journal.not-found", `no journal ${what}`));

class LogStore {
  constructor(fs, policy) {
    Object.assign(this, { fs, policy, path: "/disk/store.log", writers: new Set() });
    let f;
    try {
      f = fs.open(this.path, true);
    } catch (e) {
      if (e instanceof OsError) throw osError(e, this.path);
      throw e;
    }
    if (!f.lock()) {
      f.close();
      throw new LoomError("journal.locked", "the store log has a writer");
    }
    let parsed;
    try {
      const data = f.readAll();
      parsed = parseLog(data);
      // journal.log-torn-tail: torn bytes that name an execution stay until a writer opens it
      // or the store appends; any others go now
      const keep = parsed.goodSize > 0 && parsed.torn !== null && parsed.torn.executionId !== null;
      if (parsed.goodSize < data.length && !keep) f.truncate(parsed.goodSize);
      this.tornAt = keep ? parsed.goodSize : null;
      if (parsed.goodSize === 0) f.append(seal("loom-ref.log"));
    } catch (e) {
      f.close(); // journal.os-errors: a store that failed to open holds no file and no lock
      throw e;
    }
    this.f = f;
    this.known = new Map(Object.entries(parsed.executions)
      .map(([k, v]) => [k, v.map((e) => e.kind)]));
    // journal.log-torn-tail: the execution the torn bytes name is told, until a writer opens it
    this.tornExecution = parsed.torn ? parsed.torn.executionId : null;
    // journal.store-on-disk-vector: an execution a torn write of this store named (its read
    // tells the torn tail too, journal.disk/log-read-after-torn)
    this.tornWritten = null;
    this.unwritten = new Set();
    this.dirSynced = false; // journal.dir-sync: once per store
  }
  create(eid) {
    if (this.known.has(eid)) throw new LoomError("journal.exists", `${eid} exists`);
    const twin = [...this.known.keys()].find((k) => k.toLowerCase() === eid.toLowerCase());
    if (twin) throw new LoomError("argument.execution-id", `${eid} differs only in case from ${twin}`);
    // journal.store-on-disk-vector: a closed log takes no writer (after journal.exists, a twin)
    if (this.f.closed) throw new LoomError("journal.closed", "the store log is closed");
    this.known.set(eid, []);
    this.unwritten.add(eid);
    this.writers.add(eid);
    return new DiskJournal(this, eid, 0);
  }
  read(eid) {
    if (!this.known.has(eid)) throw new LoomError("journal.not-found", `no journal ${eid}`);
    const torn = eid === this.tornExecution || eid === this.tornWritten;
    return { kinds: [...this.known.get(eid)], torn };
  }
  open(eid) {
    const info = this.read(eid);
    if (this.f.closed) throw new LoomError("journal.closed", "the store log is closed");
    if (this.writers.has(eid)) throw new LoomError("journal.locked", `${eid} has a writer`);
    this.writers.add(eid);
    if (eid === this.tornExecution) { // told once, to the writer, which finds them gone
      this.dropTorn();
      this.tornExecution = null;
    }
    return Object.assign(new DiskJournal(this, eid, info.kinds.length), info);
  }
  line(eid, seq, kind, payload) {
    return logLine(eid, seq, kind, payload);
  }
  write(eid, bytes, sync) {
    if (this.f.closed) throw new LoomError("journal.closed", "the store log is closed");
    const data = this.unwritten.has(eid) ? Buffer.concat([encodeHeader(eid), bytes]) : bytes;
    this.dropTorn();
    this.f.append(data); // the execution's header goes with its first event
    if (sync) {
      this.f.sync();
      if (!this.dirSynced) {
        this.fs.syncDir("/disk");
        this.dirSynced = true;
      }
    }
    this.unwritten.delete(eid);
    if (!bytes.subarray(-1).equals(Buffer.from("\n"))) { // a torn write
      if (tornExecution(bytes) === eid) this.tornWritten = eid;
      this.close();
    }
    else this.known.get(eid).push(JSON.parse(bytes.toString("utf8")).kind);
  }
  dropTorn() {
    if (this.tornAt !== null) {
      this.f.truncate(this.tornAt);
      this.tornAt = null;
    }
  }
  release(eid) {
    this.writers.delete(eid);
  }
  get closed() {
    return this.f.closed;
  }
  close() {
    this.f.close();
  }
}

// a store log's lines: the log header, and event lines that carry their execution first
function sealObject(obj) {
  const body = Buffer.from(JSON.stringify(obj).slice(0, -1), "utf8");
  const crc = crc32(body).toString(16).padStart(8, "0");
  return Buffer.concat([body, Buffer.from(`,"crc":"${crc}"}\n`)]);
}
function seal(schema) {
  return sealObject({ schema, version: 1 });
}
function logLine(eid, seq, kind, payload) {
  return sealObject({ executionId: eid, seq, kind, payload });
}

const STORES = { files: FileStore, log: LogStore };
const POLICIES = ["every-event", "write-ahead", "at-boundaries", "never"];
const STEPS = ["create", "open", "read", "close", "append", "tornAppend", "reopen"];

function storeOnDisk(input) {
  if (!isObject(input)) throw bad("input must be a JSON object");
  const Store = typeof input.store === "string" ? STORES[input.store] : undefined;
  if (!Store) throw bad("store must be files or log");
  if (!POLICIES.includes(input.fsync)) throw bad(`fsync must be one of ${POLICIES}`);
  if (!Array.isArray(input.steps)) throw bad("journal.store-on-disk takes {steps: [...]}");
  const planted = "planted" in input ? input.planted : {};
  if (!isObject(planted) || !Object.entries(planted).every(([path, kind]) =>
    dirname(path) === "/disk" && ["symlink", "fifo"].includes(kind))) {
    throw bad("planted maps a path in /disk to symlink or fifo");
  }
  const fs = new RecordingDisk(new SimulatedDisk(["/disk"], null, planted));
  let store = null;
  const journals = new Map();
  const closeStore = () => {
    for (const j of journals.values()) j.close();
    journals.clear();
    if (store) store.close();
  };
  // journal.store-on-disk-vector: the whole input is checked before any step runs, so a
  // malformed step refuses the call whatever the disk holds (a log behind a planted link)
  input.steps.forEach((step, i) => {
    const where = `steps[${i}]`;
    if (!isObject(step)) throw bad(`${where} must be a JSON object`);
    if (!STEPS.includes(step.do)) throw bad(`${where}.do is not a store step`);
    if (step.do === "reopen") return;
    if (typeof step.executionId !== "string") throw bad(`${where}.executionId must be a string`);
    if (["create", "open", "read"].includes(step.do) && !isExecutionId(step.executionId)) {
      throw new LoomError("argument.execution-id",
        `${where}.executionId must be 1-200 of A-Z a-z 0-9 _ . - (not first . -), no device name`);
    }
    if (step.do === "tornAppend" && !(Number.isInteger(step.bytes) && step.bytes >= 1)) {
      throw bad(`${where}.bytes must be an integer of at least 1`);
    }
    if (step.do === "append" || step.do === "tornAppend") stepPayload(step, where);
  });
  const answers = [];
  input.steps.forEach((step, i) => {
    const where = `steps[${i}]`;
    try {
      if (store === null || step.do === "reopen") {
        closeStore();
        store = null;
        store = new Store(fs, input.fsync);
      }
      if (step.do === "reopen") {
        answers.push(null);
        return;
      }
      const eid = step.executionId; // a string, spelled as an id where it names a journal
      if (step.do === "create") {
        journals.set(eid, store.create(eid));
      } else if (step.do === "open" || step.do === "read") {
        const got = store[step.do](eid);
        if (step.do === "open") journals.set(eid, got);
        answers.push({ events: got.kinds, torn: got.torn });
        return;
      } else if (step.do === "append" || step.do === "tornAppend") {
        if (!journals.has(eid)) throw bad(`${where}: ${eid} is not open`);
        const payload = stepPayload(step, where); // checked above: payloadText decodes
        if (step.do === "append") journals.get(eid).append(step.kind, payload);
        else journals.get(eid).append(step.kind, payload, step.bytes);
      } else { // close
        if (journals.has(eid)) journals.get(eid).close();
        journals.delete(eid);
      }
      answers.push(null);
    } catch (e) {
      // a refused argument refuses the whole call, as loom-ref's InvalidArgument does
      if (!(e instanceof LoomError) || e.code.startsWith("argument.")) throw e;
      answers.push({ error: e.code });
    }
  });
  closeStore();
  return {
    answers, calls: fs.calls,
    images: fs.disk.images().map(({ variant, files }) => ({
      variant, files: Object.fromEntries(files.map(([n, d]) => [n, linesOf(d)])),
    })),
  };
}

export const JOURNAL_DISK_VECTORS = {
  "journal.power-loss": powerLoss,
  "journal.store-on-disk": storeOnDisk,
};

/**
 * spec: journal.store-on-disk-vector -- an append's payload is `payload`, or `payloadText`, its
 * JSON text (never both; a text that is not one JSON value is argument.invalid), for a payload
 * nesting deeper than a protocol message may (INTERPRETING.md section 4, Depth).
 */
function stepPayload(step, where) {
  if (!Object.prototype.hasOwnProperty.call(step, "payloadText")) return step.payload;
  if (Object.prototype.hasOwnProperty.call(step, "payload")) throw bad(`${where} gives both payload and payloadText`);
  if (typeof step.payloadText !== "string") throw bad(`${where}.payloadText must be a string`);
  // journal.store-on-disk-vector: at most 512 arrays and objects, counted outside strings
  let depth = 0, deepest = 0, inString = false;
  for (let i = 0; i < step.payloadText.length; i++) {
    const c = step.payloadText[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "[" || c === "{") deepest = Math.max(deepest, ++depth);
    else if (c === "]" || c === "}") depth--;
  }
  if (deepest > 512) throw bad(`${where}.payloadText nests more than 512 arrays and objects`);
  try {
    return JSON.parse(step.payloadText);
  } catch (err) {
    throw bad(`${where}.payloadText is not one JSON value`);
  }
}
