// Module resolution for dsh-llm-adapter.ts: how the user's own deepseek-harness checkout is
// loaded from its TypeScript sources without building or installing anything into loom-ref.
//
// Registered by the adapter with node:module's register() (a customization hook; tsx's own
// hooks then transpile the .ts files this one points at). It resolves:
// - `@deepseek-ai/<package>` and `@deepseek-ai/<package>/<sub>` to the workspace package of
//   that name in the checkout (the workspace globs of its pnpm-workspace.yaml: vendor/* and
//   packages/*/*), at `src/index.ts` and `src/<sub>.ts` (or `src/<sub>/index.ts`): the same
//   source-level facade the checkout's tsconfig.base.json `paths` map gives its own tools,
//   extended to the package roots that map leaves to node_modules (`@deepseek-ai/dsh-llm`);
// - any other bare specifier (a third-party package such as `eventsource-parser`) as Node
//   resolves it from the importing file, so a checkout whose dependencies are installed needs
//   nothing more; failing that, from DSH_LLM_NODE_MODULES (a folder holding node_modules/),
//   the place a user installs the few third-party packages the loaded modules import.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

let packages = new Map(); // "@deepseek-ai/x" -> absolute package directory
let fallbackParent = null; // a file URL inside DSH_LLM_NODE_MODULES, as a parent to resolve from

function workspaceDirs(checkout) {
  const dirs = [];
  const sub = (dir) => {
    try {
      return readdirSync(dir).map((name) => join(dir, name)).filter((p) => statSync(p).isDirectory());
    } catch {
      return [];
    }
  };
  dirs.push(...sub(join(checkout, "vendor")));
  for (const group of sub(join(checkout, "packages"))) dirs.push(...sub(group));
  return dirs;
}

export function initialize(data) {
  packages = new Map();
  for (const dir of workspaceDirs(data.checkout)) {
    const manifest = join(dir, "package.json");
    if (!existsSync(manifest)) continue;
    try {
      const name = JSON.parse(readFileSync(manifest, "utf8")).name;
      if (typeof name === "string" && name.startsWith("@deepseek-ai/")) packages.set(name, dir);
    } catch {
      // a manifest that does not parse names no package
    }
  }
  fallbackParent = data.nodeModules ? pathToFileURL(join(data.nodeModules, "resolve-from-here.mjs")).href : null;
}

function workspaceFile(specifier) {
  const m = /^(@deepseek-ai\/[^/]+)(?:\/(.+))?$/.exec(specifier);
  if (!m || !packages.has(m[1])) return null;
  const src = join(packages.get(m[1]), "src");
  const sub = m[2] === undefined ? "index" : m[2].replace(/^src\//, "").replace(/\.[cm]?[jt]s$/, "");
  for (const candidate of [`${sub}.ts`, `${sub}.tsx`, join(sub, "index.ts")]) {
    const file = join(src, candidate);
    if (existsSync(file) && statSync(file).isFile()) return pathToFileURL(file).href;
  }
  return null;
}

const isBare = (s) => !s.startsWith(".") && !s.startsWith("/") && !/^[a-z][a-z0-9+.-]*:/i.test(s);

export async function resolve(specifier, context, nextResolve) {
  if (specifier.startsWith("@deepseek-ai/")) {
    const url = workspaceFile(specifier);
    // handed on as a file URL, so that tsx's own resolver (which its loader relies on to
    // transpile TypeScript) sees it
    if (url) return nextResolve(url, context);
  }
  try {
    return await nextResolve(specifier, context);
  } catch (err) {
    if (!fallbackParent || !isBare(specifier)) throw err;
    return nextResolve(specifier, { ...context, parentURL: fallbackParent });
  }
}
