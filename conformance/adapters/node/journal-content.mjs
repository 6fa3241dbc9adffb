// journal.content (spec/journal.md section 1.10, journal.content-vector): the content-resolving
// store, an extension. Appends are journaled with each configured array as a content reference
// ({"$content": {new?, items: [[first, count], ...]}}, journal.content-refs); stored references
// are resolved on reading, the first that cannot be is journal.corrupt (journal.content-errors);
// stored then appends is the reopen: the writer appends against the table the stored lines built.
import { LoomError, MemoryStore, REQUIRED, checkPayload } from "./journal.mjs";

const CONTENT = "$content";
const isObj = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const has = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
const bad = (message) => new LoomError("argument.invalid", message);

function config(externalize) {
  if (externalize === undefined) return { STEP_STARTED: [["input", "messages"]] };
  if (!isObj(externalize) || Object.keys(externalize).length === 0) {
    throw bad("externalize must be a non-empty object of kinds to paths");
  }
  const out = {};
  for (const [kind, paths] of Object.entries(externalize)) {
    if (!has(REQUIRED, kind)) throw bad(`externalize names no event kind: ${kind}`);
    if (!Array.isArray(paths) || paths.length === 0) throw bad(`externalize.${kind} must be a non-empty array`);
    for (const p of paths) {
      if (typeof p !== "string" || !p.split(".").every((name) => name.length > 0)) {
        throw bad(`a path is member names joined by '.', got ${JSON.stringify(p)}`);
      }
    }
    // journal.content-refs: a path listed twice for a kind is one path
    out[kind] = [...new Set(paths)].map((p) => p.split("."));
  }
  return out;
}

// spec: journal.content-vector -- every item an object, checked before anything is written
// (argument.invalid); a kind that names no event kind (absent, not a string) is the writer's
// refusal when that item is appended, journal.bad-payload, as on every store
function events(value, what) {
  if (!Array.isArray(value) || !value.every(isObj)) {
    throw bad(`${what} must be an array of {kind, payload} objects`);
  }
  return value;
}

function checkKind(kind) {
  if (typeof kind !== "string" || !has(REQUIRED, kind)) {
    throw new LoomError("journal.bad-payload", `unknown event kind ${JSON.stringify(kind) ?? "(absent)"}`);
  }
}

function at(payload, path) {
  let v = payload;
  for (const name of path) {
    if (!isObj(v) || !has(v, name)) return undefined;
    v = v[name];
  }
  return v;
}

function replaced(payload, [head, ...rest], value) {
  return { ...payload, [head]: rest.length === 0 ? value : replaced(payload[head], rest, value) };
}

function runs(indexes) {
  const out = [];
  for (const i of indexes) {
    const last = out[out.length - 1];
    if (last && last[0] + last[1] === i) last[1] += 1;
    else out.push([i, 1]);
  }
  return out;
}

// spec: journal.content-vector -- appends after a reopen (`held`: the stored lines read back,
// their journal and table) go against the table the stored references built: a value it
// holds is referred to by its first item, never added again (journal.content-refs)
function append(appends, paths, held) {
  const table = new Map(); // an item's journal encoding -> its (first) number
  let size = 0;
  for (const item of held ? held.table : []) {
    const key = JSON.stringify(item);
    if (!table.has(key)) table.set(key, size);
    size += 1;
  }
  const stored = held ? held.stored.map(({ kind, payload }, i) => ({ seq: i + 1, kind, payload })) : [];
  const resolved = held ? [...held.events] : [];
  const offset = stored.length;
  // written through a memory store's journal of e1: its checks are a writer's (payload shape,
  // journal.started-names-header, the nesting limit), as the store underneath makes them
  const journal = held ? held.journal : new MemoryStore().create("e1");
  appends.forEach(({ kind, payload }, n) => {
    const i = offset + n;
    checkKind(kind);
    checkPayload(kind, payload);
    let written = payload;
    const pending = new Map();
    const added = [];
    for (const path of paths[kind] || []) {
      const value = at(payload, path);
      if (isObj(value) && has(value, CONTENT)) {
        throw new LoomError("journal.bad-payload", `${kind} payload holds ${CONTENT} at ${path.join(".")}`);
      }
      if (!Array.isArray(value)) continue;
      const fresh = [];
      const indexes = value.map((item) => {
        const key = JSON.stringify(item);
        let n = table.has(key) ? table.get(key) : pending.get(key);
        if (n === undefined) {
          n = size + added.length;
          pending.set(key, n);
          added.push(key);
          fresh.push(item);
        }
        return n;
      });
      const ref = { items: runs(indexes) };
      if (fresh.length) ref.new = fresh;
      written = replaced(written, path, { [CONTENT]: ref });
    }
    journal.append(kind, written);
    for (const key of added) table.set(key, size++);
    stored.push({ seq: i + 1, kind, payload: written });
    resolved.push({ seq: i + 1, kind, payload });
  });
  return { stored, events: resolved };
}

function resolve(table, ref) {
  const content = "bad-content";
  if (!isObj(ref) || Object.keys(ref).some((k) => k !== "new" && k !== "items") || !has(ref, "items")) {
    throw content;
  }
  const fresh = has(ref, "new") ? ref.new : [];
  if (!Array.isArray(fresh) || !Array.isArray(ref.items)) throw content;
  table.push(...fresh);
  const out = [];
  for (const run of ref.items) {
    if (!(Array.isArray(run) && run.length === 2 && run.every((n) => Number.isInteger(n))
      && run[0] >= 0 && run[1] >= 1)) throw content;
    if (run[0] + run[1] > table.length) throw "missing-content";
    out.push(...table.slice(run[0], run[0] + run[1]));
  }
  return out;
}

function read(stored, paths) {
  const table = [];
  const journal = new MemoryStore().create("e1"); // the payloads written as they are
  for (const { kind, payload } of stored) {
    checkKind(kind);
    journal.append(kind, payload);
  }
  const resolved = stored.map(({ kind, payload }, i) => {
    let out = payload;
    for (const path of paths[kind] || []) {
      const value = at(payload, path);
      if (!(isObj(value) && has(value, CONTENT))) continue;
      try {
        if (Object.keys(value).length !== 1) throw "bad-content";
        out = replaced(out, path, resolve(table, value[CONTENT]));
      } catch (reason) {
        if (typeof reason !== "string") throw reason;
        throw new LoomError("journal.corrupt", `line ${i + 2}: ${path.join(".")}: ${reason}`,
          { line: i + 2, reason: `journal.${reason}` });
      }
    }
    return { seq: i + 1, kind, payload: out };
  });
  return { stored, events: resolved, table, journal };
}

export const JOURNAL_CONTENT_VECTORS = {
  "journal.content": (input) => {
    if (!isObj(input) || (!has(input, "appends") && !has(input, "stored"))) {
      throw bad("journal.content takes {externalize?, appends}, {externalize?, stored} or both");
    }
    const paths = config(input.externalize);
    // every item of both checked before anything is written (argument.invalid)
    const stored = has(input, "stored") ? events(input.stored, "stored") : null;
    const appends = has(input, "appends") ? events(input.appends, "appends") : null;
    const held = stored ? read(stored, paths) : null;
    return appends ? append(appends, paths, held) : { events: held.events };
  },
};
