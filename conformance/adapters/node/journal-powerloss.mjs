// The simulated disk of spec/journal.md 1.8 (the power-loss model) and journal.power-loss;
// journal-disk.mjs writes a file store and a store log through it (journal.store-on-disk).
// Written from spec/journal.md; it shares no code with loom_ref.

import { LoomError } from "./journal.mjs";

export const bad = (message) => new LoomError("argument.invalid", message);
export const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
export const latin1 = (buf) => Buffer.from(buf).toString("latin1");
// journal.power-loss-vector: the part before the last "/", "/" when that is the first
// character, none ("") without a "/"; nothing normalised
export const dirname = (p) => {
  const i = p.lastIndexOf("/");
  return i < 0 ? "" : p.slice(0, i) || "/";
};
export class OsError extends Error {
  constructor(kind) {
    super(kind);
    this.kind = kind; // "exists" | "not-found" | "closed" | "not-a-file"
  }
}

// -- the disk (journal.power-loss-model) ------------------------------------------------------
const VARIANTS = ["synced", "names", "written", "torn", "zeroed", "prefix"];
const applyOps = (content, ops) => ops.reduce(
  (c, [kind, arg]) => (kind === "append" ? Buffer.concat([c, arg]) : c.subarray(0, arg)), content);
const spreadTear = (moment, length) => 1 + ((moment * 7919) % (length - 1));

class SimFile {
  constructor(disk, path, inode) {
    Object.assign(this, { disk, path, inode, closed: false });
  }
  check() {
    if (this.closed) throw new OsError("closed");
  }
  readAll() {
    this.check();
    return this.inode.current;
  }
  append(data) {
    this.check();
    if (!data.length) return;
    this.inode.current = Buffer.concat([this.inode.current, data]);
    this.inode.pending.push(["append", Buffer.from(data)]);
    this.disk.moment();
  }
  truncate(size) {
    this.check();
    this.inode.current = this.inode.current.subarray(0, size);
    this.inode.pending.push(["truncate", size]);
    this.disk.moment();
  }
  sync() {
    this.check();
    this.inode.durable = this.inode.current;
    this.inode.pending = [];
    this.disk.syncs += 1;
    this.disk.moment();
  }
  lock() {
    this.check();
    const holder = this.disk.locks.get(this.path);
    if (holder && holder !== this && !holder.closed) return false;
    this.disk.locks.set(this.path, this);
    return true;
  }
  close() {
    if (this.closed) return;
    this.closed = true;
    if (this.disk.locks.get(this.path) === this) this.disk.locks.delete(this.path);
  }
}

export class SimulatedDisk {
  constructor(directories = ["/disk"], image = null, planted = {}) {
    this.directories = new Set(directories);
    // journal.regular-files: paths holding a link or a FIFO, never opened or followed
    this.planted = new Set(Object.keys(planted));
    this.files = new Map();
    for (const [path, data] of Object.entries(image || {})) {
      this.files.set(path, { durable: data, pending: [], current: data });
    }
    this.durableNames = new Set(this.files.keys());
    this.locks = new Map();
    Object.assign(this, { moments: 0, syncs: 0, dirSyncs: 0 });
  }
  moment() {
    this.moments += 1;
  }
  create(path) {
    // a listed directory is there too, and holds no file (journal.power-loss-vector)
    if (this.files.has(path) || this.planted.has(path) || this.directories.has(path)) {
      throw new OsError("exists");
    }
    if (!this.directories.has(dirname(path))) throw new OsError("not-found");
    const inode = { durable: Buffer.alloc(0), pending: [], current: Buffer.alloc(0) };
    this.files.set(path, inode);
    this.moment();
    return new SimFile(this, path, inode);
  }
  open(path, create = false) {
    if (this.planted.has(path)) throw new OsError("not-a-file");
    const inode = this.files.get(path);
    if (inode) return new SimFile(this, path, inode);
    if (create) return this.create(path);
    throw new OsError("not-found");
  }
  read(path) {
    if (this.planted.has(path)) throw new OsError("not-a-file");
    const inode = this.files.get(path);
    if (!inode) throw new OsError("not-found");
    return inode.current;
  }
  exists(path) {
    return this.files.has(path) || this.directories.has(path) || this.planted.has(path);
  }
  listDir(path) {
    return [...this.files.keys(), ...this.planted].filter((n) => dirname(n) === path)
      .map((n) => n.slice(path.length + 1));
  }
  isDir(path) {
    return this.directories.has(path);
  }
  syncDir(path) {
    if (!this.directories.has(path)) throw new OsError("not-found");
    for (const name of this.files.keys()) if (dirname(name) === path) this.durableNames.add(name);
    this.dirSyncs += 1;
    this.moment();
  }
  // the distinct images a power loss right now may leave, in VARIANTS order
  images() {
    const lastAppend = (s, last) => {
      const p = s.pending;
      if (!p.length || p[p.length - 1][0] !== "append") return s.current;
      return Buffer.concat([applyOps(s.durable, p.slice(0, -1)), last(p[p.length - 1][1])]);
    };
    const cut = (d) => (d.length > 1 ? d.subarray(0, spreadTear(this.moments, d.length))
      : Buffer.alloc(0));
    const each = (f) => new Map([...this.files].map(([n, s]) => [n, f(s)]));
    const candidates = {
      synced: new Map([...this.durableNames].map((n) => [n, this.files.get(n).durable])),
      names: each((s) => s.durable),
      written: each((s) => s.current),
      torn: each((s) => lastAppend(s, cut)),
      zeroed: each((s) => lastAppend(s, (d) => Buffer.alloc(d.length))),
      prefix: each((s) => applyOps(s.durable, s.pending.slice(0, Math.floor(s.pending.length / 2)))),
    };
    const seen = new Set();
    const out = [];
    for (const variant of VARIANTS) {
      const files = [...candidates[variant]].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      const key = JSON.stringify(files.map(([n, d]) => [n, latin1(d)]));
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ variant, files });
    }
    return out;
  }
}

export const str = (v, what) => {
  if (typeof v !== "string" || !v) throw bad(`${what} must be a non-empty string`);
  return v;
};
const ascii = (v, what) => {
  if (typeof v !== "string" || !/^[\x00-\x7f]*$/.test(v)) throw bad(`${what} must be ASCII text`);
  return Buffer.from(v, "latin1");
};

function diskOp(disk, handles, op, where) {
  const name = op.op;
  if (name === "create" || name === "open") {
    const path = str(op.path, `${where}.path`);
    const bind = str(op.as, `${where}.as`);
    // `create` is open's member (null is no exception, errors.vector-null); a create
    // operation does not name it, so there it is ignored (journal.power-loss-vector)
    const create = name === "open" && "create" in op ? op.create : false;
    if (typeof create !== "boolean") throw bad(`${where}.create must be a boolean`);
    handles.set(bind, name === "create" ? disk.create(path) : disk.open(path, create));
    return null;
  }
  if (["read", "exists", "isDir", "fsyncDir"].includes(name)) {
    const path = str(op.path, `${where}.path`);
    if (name === "read") return latin1(disk.read(path));
    if (name === "fsyncDir") return disk.syncDir(path), null;
    return name === "exists" ? disk.exists(path) : disk.isDir(path);
  }
  if (!["append", "truncate", "fsync", "lock", "close", "readAll"].includes(name)) {
    throw bad(`${where}.op is not a disk operation`);
  }
  const f = handles.get(str(op.file, `${where}.file`));
  if (!f) throw bad(`${where}.file names no handle bound by an earlier op`);
  if (name === "append") f.append(ascii(op.text, `${where}.text`));
  else if (name === "truncate") {
    if (!Number.isInteger(op.size) || op.size < 0) throw bad(`${where}.size must be an int >= 0`);
    f.truncate(op.size);
  } else if (name === "fsync") f.sync();
  else if (name === "lock") return f.lock();
  else if (name === "close") f.close();
  else return latin1(f.readAll());
  return null;
}

export function powerLoss(input) {
  if (!isObject(input)) throw bad("input must be a JSON object");
  const directories = input.directories ?? ["/disk"];
  if (!Array.isArray(directories) || !directories.length
      || !directories.every((d) => typeof d === "string" && d.startsWith("/"))) {
    throw bad("directories must be a list of absolute paths");
  }
  if (!Array.isArray(input.ops)) throw bad("journal.power-loss takes {ops: [...]}");
  let image = null;
  if (input.image !== undefined && input.image !== null) { // null is absent (journal.power-loss-model)
    if (!isObject(input.image)) throw bad("image must be a JSON object");
    image = Object.fromEntries(Object.entries(input.image).map(([k, v]) => [k, ascii(v, k)]));
    // a listed directory's path holds no file (journal.power-loss-vector)
    if (directories.some((d) => Object.hasOwn(image, d))) {
      throw bad("an image holds no file at a listed directory's path");
    }
  }
  const disk = new SimulatedDisk(directories, image);
  const handles = new Map();
  const answers = input.ops.map((op, i) => {
    if (!isObject(op)) throw bad(`ops[${i}] must be a JSON object`);
    try {
      return diskOp(disk, handles, op, `ops[${i}]`);
    } catch (e) {
      if (e instanceof OsError) return { error: e.kind };
      throw e;
    }
  });
  return {
    answers, moments: disk.moments, syncs: disk.syncs, dirSyncs: disk.dirSyncs,
    images: disk.images().map(({ variant, files }) => ({
      variant, files: Object.fromEntries(files.map(([n, d]) => [n, latin1(d)])),
    })),
  };
}
