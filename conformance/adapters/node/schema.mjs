// The resume-schema subset of spec/kernel.md section 2.4.1, in JavaScript: checking a schema
// (kernel.schema-subset, kernel.schema-annotations, kernel.schema-refs: anything outside it is
// argument.schema) and validating a value against one (kernel.schema-keywords), listing each
// problem at the RFC 6901 JSON Pointer of the value that failed (kernel.schema-problems).
// Written from the spec; it shares no code with loom_ref.

import { LoomError } from "./journal.mjs";

const TYPES = new Set(["null", "boolean", "integer", "number", "string", "array", "object"]);
const ASSERTIONS = ["type", "enum", "const", "properties", "required", "additionalProperties",
  "items", "minItems", "maxItems", "minLength", "maxLength", "minimum", "maximum", "pattern",
  "anyOf", "oneOf", "$ref", "$defs"];
const ANNOTATIONS = ["$schema", "$id", "$comment", "title", "description", "default", "examples",
  "deprecated", "readOnly", "writeOnly"];
const KEYWORDS = new Set([...ASSERTIONS, ...ANNOTATIONS]);
const DEF_NAME = /^[A-Za-z0-9_.-]+$/;
const DEFS = "#/$defs/";

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const has = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

// JSON equality (INTERPRETING.md section 7): booleans are not numbers, objects by members.
export function jsonEqual(a, b) {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length &&
      a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (isObject(a) || isObject(b)) {
    if (!isObject(a) || !isObject(b)) return false;
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => has(b, k) && jsonEqual(a[k], b[k]));
  }
  return a === b;
}

const distinct = (list) => list.every((x, i) => list.findIndex((y) => jsonEqual(x, y)) === i);
const bad = (where, message) => {
  throw new LoomError("argument.schema", `${where} ${message}`);
};

// spec: kernel.schema-subset -- refuse anything outside the subset, at any depth
export function checkSchema(schema, where = "schema") {
  checkNode(schema, where, true);
  if (isObject(schema)) checkRefs(schema, where);
}

function checkNode(schema, where, root = false) {
  if (typeof schema === "boolean") return;
  if (!isObject(schema)) bad(where, "must be an object or a boolean");
  const unknown = Object.keys(schema).filter((k) => !KEYWORDS.has(k));
  if (unknown.length) bad(where, `uses unsupported keywords ${unknown.sort()}`);
  if (has(schema, "$id") && !root) bad(where, "has $id below the root");
  if (has(schema, "type")) {
    const names = typeof schema.type === "string" ? [schema.type] : schema.type;
    if (!Array.isArray(names) || !names.length ||
        !names.every((n) => typeof n === "string" && TYPES.has(n))) bad(where, "has a bad type");
    if (!distinct(names)) bad(where, "names a type twice");
  }
  for (const key of ["properties", "$defs"]) {
    if (has(schema, key)) {
      if (!isObject(schema[key])) bad(where, `${key} must be an object of schemas`);
      for (const [name, sub] of Object.entries(schema[key])) checkNode(sub, `${where}/${key}/${name}`);
    }
  }
  for (const key of ["items", "additionalProperties"]) {
    if (has(schema, key)) checkNode(schema[key], `${where}/${key}`);
  }
  for (const key of ["anyOf", "oneOf"]) {
    if (has(schema, key)) {
      if (!Array.isArray(schema[key]) || !schema[key].length) bad(where, `${key} must be a non-empty array`);
      schema[key].forEach((sub, i) => checkNode(sub, `${where}/${key}/${i}`));
    }
  }
  for (const key of ["minItems", "maxItems", "minLength", "maxLength"]) {
    if (has(schema, key) && !(Number.isInteger(schema[key]) && schema[key] >= 0)) bad(where, `${key} is not a count`);
  }
  for (const key of ["minimum", "maximum"]) {
    if (has(schema, key) && typeof schema[key] !== "number") bad(where, `${key} is not a number`);
  }
  if (has(schema, "required")) {
    const r = schema.required;
    if (!(Array.isArray(r) && r.every((n) => typeof n === "string"))) bad(where, "required must be an array of strings");
    if (!distinct(r)) bad(where, "required names a member twice");
  }
  if (has(schema, "enum") && !Array.isArray(schema.enum)) bad(where, "enum must be an array");
  for (const key of ["$ref", "pattern"]) {
    if (has(schema, key) && typeof schema[key] !== "string") bad(where, `${key} must be a string`);
  }
  if (has(schema, "pattern")) {
    try {
      new RegExp(schema.pattern, "u");
    } catch {
      bad(where, "pattern does not compile");
    }
  }
}

// every schema inside `schema`, itself included
function* subschemas(schema) {
  yield schema;
  if (!isObject(schema)) return;
  for (const key of ["properties", "$defs"]) {
    if (has(schema, key)) for (const sub of Object.values(schema[key])) yield* subschemas(sub);
  }
  for (const key of ["items", "additionalProperties"]) if (has(schema, key)) yield* subschemas(schema[key]);
  for (const key of ["anyOf", "oneOf"]) if (has(schema, key)) for (const sub of schema[key]) yield* subschemas(sub);
}

// the $refs a schema applies to the value it is given itself: its own, its alternatives'
function* sameValueRefs(schema) {
  if (!isObject(schema)) return;
  if (has(schema, "$ref")) yield schema.$ref;
  for (const key of ["anyOf", "oneOf"]) if (has(schema, key)) for (const sub of schema[key]) yield* sameValueRefs(sub);
}

// spec: kernel.schema-refs -- '#/$defs/<name>' of the root, resolved, and no loop that
// never reads into the value
function checkRefs(root, where) {
  const defs = isObject(root.$defs) ? root.$defs : {};
  const target = (ref) => {
    if (!ref.startsWith(DEFS) || !DEF_NAME.test(ref.slice(DEFS.length))) bad(where, `$ref ${ref} is not '#/$defs/<name>'`);
    const name = ref.slice(DEFS.length);
    if (!has(defs, name)) bad(where, `$ref ${ref} names no schema of $defs`);
    return name;
  };
  for (const sub of subschemas(root)) if (isObject(sub) && has(sub, "$ref")) target(sub.$ref);
  const edges = new Map(Object.entries(defs).map(([name, sub]) => [name, [...sameValueRefs(sub)].map(target)]));
  const state = new Map();
  const visit = (node) => {
    if (state.get(node) === 2) return;
    if (state.get(node) === 1) bad(where, `has $refs that loop at #/$defs/${node}`);
    state.set(node, 1);
    for (const next of edges.get(node) || []) visit(next);
    state.set(node, 2);
  };
  for (const node of edges.keys()) visit(node);
}

const pointer = (path, token) => `${path}/${String(token).replaceAll("~", "~0").replaceAll("/", "~1")}`;
const typeOf = (v) => (v === null ? "null" : Array.isArray(v) ? "array"
  : typeof v === "number" ? (Number.isInteger(v) ? "integer" : "number") : typeof v);
const length = (s) => [...s].length; // code points (kernel.schema-keywords)

// spec: kernel.schema-keywords, kernel.schema-problems -- every problem, {path, message}
export function validate(value, schema, root = schema, path = "", out = []) {
  const fail = (message) => out.push({ path, message });
  if (schema === true) return out;
  if (schema === false) {
    fail("no value is allowed here");
    return out;
  }
  if (has(schema, "type")) {
    const names = [].concat(schema.type);
    const t = typeOf(value);
    if (!names.some((n) => n === t || (n === "number" && t === "integer"))) {
      fail(`expected ${names.join(" or ")}`);
      return out;
    }
  }
  if (has(schema, "$ref")) validate(value, root.$defs[schema.$ref.slice(DEFS.length)], root, path, out);
  if (has(schema, "const") && !jsonEqual(value, schema.const)) fail("not the constant");
  if (has(schema, "enum") && !schema.enum.some((e) => jsonEqual(e, value))) fail("not in the enum");
  if (typeof value === "string") {
    if (has(schema, "minLength") && length(value) < schema.minLength) fail("too short");
    if (has(schema, "maxLength") && length(value) > schema.maxLength) fail("too long");
    if (has(schema, "pattern") && !new RegExp(schema.pattern, "u").test(value)) fail("does not match");
  }
  if (typeof value === "number") {
    if (has(schema, "minimum") && value < schema.minimum) fail("too small");
    if (has(schema, "maximum") && value > schema.maximum) fail("too large");
  }
  if (Array.isArray(value)) {
    if (has(schema, "minItems") && value.length < schema.minItems) fail("too few items");
    if (has(schema, "maxItems") && value.length > schema.maxItems) fail("too many items");
    if (has(schema, "items")) value.forEach((v, i) => validate(v, schema.items, root, pointer(path, i), out));
  }
  if (isObject(value)) {
    const props = has(schema, "properties") ? schema.properties : {};
    for (const name of schema.required || []) if (!has(value, name)) fail(`missing ${name}`);
    const extra = has(schema, "additionalProperties") ? schema.additionalProperties : true;
    for (const [k, v] of Object.entries(value)) {
      if (has(props, k)) validate(v, props[k], root, pointer(path, k), out);
      else if (extra !== true) validate(v, extra, root, pointer(path, k), out);
    }
  }
  for (const key of ["anyOf", "oneOf"]) {
    if (has(schema, key)) {
      const n = schema[key].filter((s) => validate(value, s, root).length === 0).length;
      if (n === 0 || (key === "oneOf" && n > 1)) fail(`matches ${n} of the ${key} alternatives`);
    }
  }
  return out;
}
